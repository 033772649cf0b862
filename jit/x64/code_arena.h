// Executable memory for translated code: one mapping, bump-allocated, reset as a whole.
// Direct exits are patched in place, so the memory stays writable.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace brisk::x64 {

class CodeArena {
 public:
  explicit CodeArena(size_t size) : size_(size) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cannot map executable memory for the JIT");
    base_ = static_cast<uint8_t*>(p);
    madvise(p, size, MADV_HUGEPAGE);  // tens of MB of code a boot: fewer host iTLB misses
  }
  ~CodeArena() { munmap(base_, size_); }
  CodeArena(const CodeArena&) = delete;
  CodeArena& operator=(const CodeArena&) = delete;

  uint8_t* begin() const { return base_; }
  uint8_t* cursor() const { return base_ + used_; }
  size_t used() const { return used_; }
  size_t left() const { return size_ - used_; }
  void commit(size_t n) { used_ = (used_ + n + 15) & ~size_t(15); }
  // Drops everything after `mark` (a cursor() taken earlier).
  void reset_to(uint8_t* mark) { used_ = static_cast<size_t>(mark - base_); }
  bool contains(const void* p) const {
    auto* b = static_cast<const uint8_t*>(p);
    return b >= base_ && b < base_ + size_;
  }

 private:
  uint8_t* base_ = nullptr;
  size_t size_;
  size_t used_ = 0;
};

}  // namespace brisk::x64
