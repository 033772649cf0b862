// Shared pieces of the libFuzzer targets (tests/fuzz/CMakeLists.txt): reading structured values
// off the front of an input, and handing bytes to code that opens files by path.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace brisk::fuzz {

// Takes fields off the front of the input in order, so seeds can be written by hand; past the
// end every field reads as zero.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  template <typename T>
  T take() {
    T v{};
    const size_t n = std::min(sizeof(T), left());
    std::memcpy(&v, p_, n);
    p_ += n;
    return v;
  }
  // Up to the next NUL (consumed) or the end.
  std::string take_string() {
    const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(p_, 0, left()));
    std::string s(reinterpret_cast<const char*>(p_), nul ? nul - p_ : left());
    p_ = nul ? nul + 1 : end_;
    return s;
  }
  const uint8_t* rest() const { return p_; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// The bytes as an anonymous in-memory file, opened by brisk through /proc/self/fd.
class MemFile {
 public:
  MemFile(const void* data, size_t size) : fd_(memfd_create("brisk-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0 || (size && write(fd_, data, size) != static_cast<ssize_t>(size))) __builtin_trap();
  }
  ~MemFile() { close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace brisk::fuzz
