// The files brisk writes (brisk record's perf.data and profiles): each appears whole or not at all.
// It is written as a temporary next to its path (same directory, so the rename cannot cross file
// systems) and renamed over the path by commit(); destroyed without commit() (an error, a guest
// run that unwinds) it removes the temporary, so no truncated file is left behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace brisk {

class OutputFile {
 public:
  // Creates the temporary at once. `what` names the file's role in messages ("perf.data output").
  // Throws brisk::Error naming the path when it cannot be created or the path is a directory.
  OutputFile(const std::string& path, const char* what);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Appends n bytes. Writes go through a fixed-size buffer, so memory does not grow with the file;
  // a failed write (disk full) throws brisk::Error naming the path.
  void write(const void* p, size_t n);
  void write(const std::string& s) { write(s.data(), s.size()); }
  // Bytes appended so far: the file offset of the next write.
  uint64_t size() const { return written_ + used_; }
  // Overwrites n bytes at offset `off`, which must lie within what was appended.
  void write_at(uint64_t off, const void* p, size_t n);
  // Writes out what is buffered and renames the temporary over the path.
  void commit();

  const std::string& path() const { return path_; }

 private:
  void flush();
  void write_fully(const void* p, size_t n, uint64_t off);

  static constexpr size_t kBufferSize = 256 * 1024;
  std::string path_, tmp_;
  const char* what_;
  int fd_ = -1;
  std::unique_ptr<uint8_t[]> buf_;
  size_t used_ = 0;
  uint64_t written_ = 0;
};

}  // namespace brisk
