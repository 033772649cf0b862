// Large tables whose empty state is all zero bytes, taken from fresh memory, which is zero already:
// a ZeroedPool's huge page, or calloc, which glibc serves from fresh mmap'd pages for a block this
// big, so that a page of the table costs its fault only when the table first uses it. Filling them
// at construction touched about 300 pages, a third of the page faults of a short run's start-up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace brisk {

// Zeroed tables in host huge pages (runtime/host_heap.h), for the tables looked in at every
// dispatch and indirect jump: on this kind of VM a TLB miss on a small page that has not been used
// for a while costs about a microsecond, and a 256 KiB lookup table spans 64 of them. The pool is
// reserved whole and committed a huge page at a time as tables are taken; what is taken stays until
// the pool goes.
class ZeroedPool {
 public:
  explicit ZeroedPool(size_t bytes);
  ~ZeroedPool();
  ZeroedPool(const ZeroedPool&) = delete;
  ZeroedPool& operator=(const ZeroedPool&) = delete;
  // `bytes` of zeros at `align`, or nullptr when the pool has no room left.
  void* take(size_t bytes, size_t align);

 private:
  uint8_t* base_;
  size_t size_, used_ = 0;
};

struct FreeDeleter {
  bool pooled = false;  // taken from a ZeroedPool, which frees it
  void operator()(void* p) const {
    if (!pooled) std::free(p);
  }
};
template <class T>
using ZeroedPtr = std::unique_ptr<T, FreeDeleter>;

// A T with every byte zero, from `pool` while it has room, else from calloc. calloc creates it
// implicitly (C++20), which an aggregate that needs no destructor allows; its default member
// initializers do not run, so zero must mean empty.
template <class T>
ZeroedPtr<T> make_zeroed(ZeroedPool* pool = nullptr) {
  static_assert(std::is_aggregate_v<T> && std::is_trivially_destructible_v<T>);
  if (pool)
    if (void* p = pool->take(sizeof(T), alignof(T))) return ZeroedPtr<T>(static_cast<T*>(p), FreeDeleter{true});
  void* p = std::calloc(1, sizeof(T));
  if (!p) throw std::bad_alloc();
  return ZeroedPtr<T>(static_cast<T*>(p));
}

}  // namespace brisk
