#include "runtime/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/error.h"

namespace brisk {

namespace {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

int open_input(const std::string& path, const char* what, uint64_t& size) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open the {} {}: {}", what, printable(path), strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t mode = st.st_mode;
    close(fd);
    throw Error("the {} {} is {}, not a regular file", what, printable(path), file_kind(mode));
  }
  size = static_cast<uint64_t>(st.st_size);
  return fd;
}

InputFile::InputFile(const std::string& path, const char* what, uint64_t limit) : path_(path), what_(what) {
  fd_ = open_input(path, what, size_);
  const std::string shown = printable(path);
  if (size_ == 0 || size_ > limit) {
    close(fd_);
    if (size_ == 0) throw Error("the {} {} is empty", what, shown);
    throw Error("the {} {} ({} MiB) is larger than RAM; try a larger -m", what, shown, size_ >> 20);
  }
}

InputFile::~InputFile() { close(fd_); }

void InputFile::read(uint64_t offset, void* dst, uint64_t n) const {
  for (uint64_t done = 0; done < n;) {
    const ssize_t r = pread(fd_, static_cast<uint8_t*>(dst) + done, n - done, static_cast<off_t>(offset + done));
    if (r <= 0)
      throw Error("cannot read the {} {}: {}", what_, printable(path_), r < 0 ? strerror(errno) : "it shrank");
    done += static_cast<uint64_t>(r);
  }
}

std::vector<uint8_t> read_input(const std::string& path, const char* what, uint64_t limit) {
  const InputFile file(path, what, limit);
  std::vector<uint8_t> data(file.size());
  file.read(0, data.data(), data.size());
  return data;
}

std::string printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out += static_cast<char>(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

}  // namespace brisk
