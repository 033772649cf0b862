#include "runtime/output_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/host_heap.h"
#include "runtime/input_file.h"
#include "runtime/quiet_thread.h"

namespace brisk {

OutputFile::OutputFile(const std::string& path, const char* what)
    : path_(path), what_(what), owner_(getpid()), buf_(new_buffer()) {
  // rename() would replace a directory only by failing at the end of the run.
  struct stat st;
  if (path.empty()) throw Error("the {} path is empty", what);
  const bool exists = stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw Error("cannot write the {} {}: it is a directory", what, printable(path));
  // Anything but a regular file (/dev/null, a terminal, a pipe) is written in place, as perf does:
  // a temporary renamed over it would replace the device.
  if (!exists || S_ISREG(st.st_mode)) tmp_ = path + ".XXXXXX";
  // A descriptor of brisk's own (runtime/diag.h): a user-mode guest can neither close nor reuse it.
  const int low = tmp_.empty() ? open(path.c_str(), O_WRONLY | O_CLOEXEC) : mkostemp(tmp_.data(), O_CLOEXEC);
  if (low < 0) throw Error("cannot write the {} {}: {}", what, printable(path), strerror(errno));
  fd_ = adopt_own_fd(low);
  if (fd_ < 0) {
    const int err = errno;
    remove_temporary();
    throw Error("cannot write the {} {}: {}", what, printable(path), strerror(err));
  }
  // mkostemp makes it 0600; the output gets the permissions of any file the user creates.
  const mode_t mask = umask(0);
  umask(mask);
  if (!tmp_.empty()) fchmod(fd_, 0666 & ~mask);
}

OutputFile::Buffer OutputFile::new_buffer() {
  // Populated at once, in a huge page: on the VM of docs/profiling.md ("Cost", "fp") a page fault
  // costs about 12 us, and even a present small page about 1 us when a sample next reaches it.
  uint8_t* p = map_huge(kBufferSize);
  if (!p) throw std::bad_alloc();
  if (madvise(p, kBufferSize, MADV_POPULATE_WRITE) != 0)  // Linux before 5.14
    for (size_t k = 0; k < kBufferSize; k += 4096) p[k] = 0;
  return Buffer(p);
}

void OutputFile::Unmap::operator()(uint8_t* p) const { munmap(p, kBufferSize); }

void OutputFile::remove_temporary() const {
  if (!tmp_.empty()) unlink(tmp_.c_str());
}

OutputFile::~OutputFile() {
  // A forked child has no writer thread (fork copies only the calling thread), and the temporary
  // is its parent's.
  if (getpid() != owner_) {
    if (writer_.joinable()) writer_.detach();
    (void)cv_.release();
    return;
  }
  stop_writer();
  if (fd_ < 0) return;
  close(fd_);
  remove_temporary();
}

void OutputFile::stop_writer() {
  if (!writer_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_->notify_all();
  writer_.join();
}

void OutputFile::writer_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_->wait(lock, [&] { return pending_ || stop_; });
    if (!pending_) return;  // stopped, with nothing left to write
    const size_t n = pending_;
    const uint64_t off = pending_off_;
    lock.unlock();
    std::string error;
    try {
      write_fully(spare_.get(), n, off);
    } catch (const Error& e) {
      error = e.what();
    }
    lock.lock();
    if (error_.empty()) error_ = std::move(error);
    pending_ = 0;
    cv_->notify_all();
  }
}

void OutputFile::drain() {
  std::unique_lock lock(mutex_);
  cv_->wait(lock, [&] { return !pending_; });
  if (!error_.empty()) throw Error("{}", error_);
}

void OutputFile::write_fully(const void* p, size_t n, uint64_t off) {
  const auto* b = static_cast<const uint8_t*>(p);
  while (n) {
    const ssize_t k = pwrite(fd_, b, n, static_cast<off_t>(off));
    if (k < 0 && errno == EINTR) continue;
    // pwrite returns 0 only for n == 0; a short write is retried and then reports ENOSPC.
    if (k <= 0) throw Error("cannot write the {} {}: {}", what_, printable(path_), strerror(k < 0 ? errno : EIO));
    b += k;
    n -= static_cast<size_t>(k);
    off += static_cast<uint64_t>(k);
  }
}

void OutputFile::flush() {
  drain();
  if (!used_) return;
  if (!writer_.joinable()) {
    spare_ = new_buffer();
    writer_ = quiet_thread([this] { writer_loop(); });
  }
  {
    std::lock_guard lock(mutex_);
    std::swap(buf_, spare_);
    pending_ = used_;
    pending_off_ = written_;
  }
  cv_->notify_all();
  written_ += used_;
  used_ = 0;
}

void OutputFile::write(const void* p, size_t n) {
  if (n == 0) return;  // p may be null (an empty section's bytes)
  if (used_ + n > kBufferSize) {
    flush();
    if (n > kBufferSize) {
      drain();
      write_fully(p, n, written_);
      written_ += n;
      return;
    }
  }
  std::memcpy(buf_.get() + used_, p, n);
  used_ += n;
}

void OutputFile::throw_too_large(size_t n) const {
  throw Error("internal: a record of {} bytes for the {} {}", n, what_, printable(path_));
}

void OutputFile::write_at(uint64_t off, const void* p, size_t n) {
  if (off + n > written_) flush();
  drain();
  write_fully(p, n, off);
}

void OutputFile::commit() {
  flush();
  drain();
  stop_writer();
  if (close(fd_) != 0) {
    fd_ = -1;
    remove_temporary();
    throw Error("cannot write the {} {}: {}", what_, printable(path_), strerror(errno));
  }
  fd_ = -1;
  if (!tmp_.empty() && rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    remove_temporary();
    throw Error("cannot write the {} {}: {}", what_, printable(path_), strerror(err));
  }
}

}  // namespace brisk
