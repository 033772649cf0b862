// The output file of a profile writer (runtime/profile.h): written as the recording goes to
// PATH.partial on a descriptor of brisk's own (runtime/diag.h), which the guest cannot close, and
// renamed to PATH by commit(). Destroyed without commit() (a bad option, an error, an unwinding
// run), it removes what it wrote, so no truncated profile is ever left at PATH.
#pragma once

#include <cstdio>
#include <string>

namespace brisk::profile {

class OutputFile {
 public:
  // Throws brisk::Error naming the path when it cannot be written.
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::FILE* get() const { return f_; }
  const std::string& path() const { return path_; }
  void write(const void* p, size_t n);
  void write(const std::string& s) { write(s.data(), s.size()); }
  // Flushes, closes and renames into place; throws brisk::Error naming the path on a write error.
  void commit();

 private:
  std::string path_, partial_;
  std::FILE* f_ = nullptr;
};

}  // namespace brisk::profile
