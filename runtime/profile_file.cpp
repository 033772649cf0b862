#include "runtime/profile_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/diag.h"
#include "runtime/error.h"

namespace brisk::profile {

namespace {
constexpr size_t kBuffer = 1 << 20;  // samples are small; write them in large pieces
}

OutputFile::OutputFile(const std::string& path) : path_(path), partial_(path + ".partial") {
  struct stat st;
  if (path.empty()) throw Error("an empty output path");
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw Error("cannot write {}: it is a directory", path);
  f_ = open_own_file(partial_);
  if (!f_) throw Error("cannot write {}: {}", path, std::strerror(errno));
  std::setvbuf(f_, nullptr, _IOFBF, kBuffer);
}

OutputFile::~OutputFile() {
  if (!f_) return;
  std::fclose(f_);
  unlink(partial_.c_str());
}

void OutputFile::write(const void* p, size_t n) {
  if (std::fwrite(p, 1, n, f_) != n) throw Error("cannot write {}: {}", path_, std::strerror(errno));
}

void OutputFile::commit() {
  const bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
  const int err = errno;
  std::fclose(f_);
  f_ = nullptr;
  if (!ok || std::rename(partial_.c_str(), path_.c_str()) != 0) {
    const int e = ok ? errno : err;
    unlink(partial_.c_str());
    throw Error("cannot write {}: {}", path_, std::strerror(e));
  }
}

}  // namespace brisk::profile
