// Large tables whose empty state is all zero bytes, taken from calloc: glibc serves a block this
// big from fresh mmap'd pages, which are zero already, so a page of the table costs its fault only
// when the table first uses it. Filling them at construction touched about 300 pages, a third of
// the page faults of a short run's start-up.
#pragma once

#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace brisk {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using ZeroedPtr = std::unique_ptr<T, FreeDeleter>;

// A T with every byte zero. calloc creates it implicitly (C++20), which an aggregate that needs no
// destructor allows; its default member initializers do not run, so zero must mean empty.
template <class T>
ZeroedPtr<T> make_zeroed() {
  static_assert(std::is_aggregate_v<T> && std::is_trivially_destructible_v<T>);
  void* p = std::calloc(1, sizeof(T));
  if (!p) throw std::bad_alloc();
  return ZeroedPtr<T>(static_cast<T*>(p));
}

}  // namespace brisk
