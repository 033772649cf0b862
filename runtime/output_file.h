// The files brisk writes (brisk record's perf.data and profiles): each appears whole or not at all.
// It is written as a temporary next to its path (same directory, so the rename cannot cross file
// systems) and renamed over the path by commit(); destroyed without commit() (an error, a guest
// run that unwinds) it removes the temporary, so no truncated file is left behind. A path that
// exists and is no regular file (/dev/null, a terminal) is written in place.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

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
  // full buffers are written by a thread of the file's own, so the caller (a guest being sampled)
  // does not wait for the file system. A failed write (disk full) throws brisk::Error naming the
  // path, from the next call after it.
  void write(const void* p, size_t n);
  void write(const std::string& s) { write(s.data(), s.size()); }
  // Appends what fill(p) writes at p and returns the size of: at most `max` bytes, at most
  // kMaxAppend. A record is built in place, without a copy through a buffer of its own (brisk
  // record's samples: README.md, "Performance").
  template <typename F>
  void append(size_t max, F&& fill) {
    if (max > kMaxAppend) throw_too_large(max);
    if (used_ + max > kBufferSize) flush();
    used_ += fill(buf_.get() + used_);
  }
  static constexpr size_t kMaxAppend = 64 * 1024;
  // One huge page: each wakes the writer thread once, 340 samples of 256 branches.
  static constexpr size_t kBufferSize = 2 << 20;
  // Bytes appended so far: the file offset of the next write.
  uint64_t size() const { return written_ + used_; }
  // Overwrites n bytes at offset `off`, which must lie within what was appended.
  void write_at(uint64_t off, const void* p, size_t n);
  // Writes out what is buffered and renames the temporary over the path.
  void commit();

  const std::string& path() const { return path_; }

 private:
  // Hands the buffer to the writer thread (after the one it holds is written).
  void flush();
  // Waits until the writer thread has written everything handed to it; throws its error.
  void drain();
  void write_fully(const void* p, size_t n, uint64_t off);
  void writer_loop();
  void stop_writer();
  [[noreturn]] void throw_too_large(size_t n) const;
  void remove_temporary() const;

  std::string path_, tmp_;  // tmp_: empty when writing the path in place
  const char* what_;
  int fd_ = -1;
  pid_t owner_;  // a forked child's copy neither writes nor removes the temporary
  struct Unmap {
    void operator()(uint8_t* p) const;
  };
  using Buffer = std::unique_ptr<uint8_t[], Unmap>;
  static Buffer new_buffer();  // kBufferSize bytes, every page present
  Buffer buf_, spare_;
  size_t used_ = 0;
  uint64_t written_ = 0;

  // The writer thread, started by the first flush: it writes spare_'s `pending_` bytes at
  // `pending_off_`, and keeps the first error's message.
  std::thread writer_;
  std::mutex mutex_;
  // Left undestroyed by a forked child, whose copy may count the parent's writer as its waiter:
  // pthread_cond_destroy would wait for it forever.
  std::unique_ptr<std::condition_variable> cv_ = std::make_unique<std::condition_variable>();
  size_t pending_ = 0;
  uint64_t pending_off_ = 0;
  bool stop_ = false;
  std::string error_;
};

}  // namespace brisk
