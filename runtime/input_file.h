// The files brisk is given to load (program, interpreter, firmware, kernel, initrd): every loader
// opens them here, so that a FIFO, a device or a directory is refused in one line instead of blocking
// open() or read() or exhausting memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brisk {

// Opens `path` read-only without blocking and checks that it is a regular file. `what` names its
// role in messages ("program", "kernel", ...). Returns the fd (close-on-exec) and its size; throws
// brisk::Error otherwise.
int open_input(const std::string& path, const char* what, uint64_t& size);

// An input file opened with open_input, refused when it is empty or larger than `limit` bytes, and
// read where the caller wants it (a kernel image straight into guest RAM).
class InputFile {
 public:
  InputFile(const std::string& path, const char* what, uint64_t limit);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  uint64_t size() const { return size_; }
  // Bytes [offset, offset + n) of the file into dst; throws brisk::Error if they cannot be read.
  void read(uint64_t offset, void* dst, uint64_t n) const;

 private:
  std::string path_;
  const char* what_;
  uint64_t size_ = 0;
  int fd_ = -1;
};

// The whole file, refused when it is empty or larger than `limit` bytes.
std::vector<uint8_t> read_input(const std::string& path, const char* what, uint64_t limit);

// Text taken from a guest file (PT_INTERP, ...) fit for a one-line message: bytes that are not
// printable ASCII are shown as \xNN.
std::string printable(std::string_view s);

}  // namespace brisk
