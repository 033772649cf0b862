#include "runtime/host_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "runtime/zeroed.h"

namespace brisk {

uint8_t* map_huge(size_t bytes, int flags) {
  void* p = mmap(nullptr, bytes + kHostHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(p), aligned = (start + kHostHugePage - 1) & ~(kHostHugePage - 1);
  if (aligned != start) munmap(p, aligned - start);
  munmap(reinterpret_cast<void*>(aligned + bytes), start + kHostHugePage - aligned);
  madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<uint8_t*>(aligned);
}

bool reserve_huge_heap(size_t bytes) {
  // glibc grows the heap by M_TOP_PAD beyond what a request needs, and keeps that much at its top
  // when it trims: one growth now reserves `bytes`, which stay reserved.
  if (bytes < 2 * kHostHugePage || bytes > INT32_MAX || mallopt(M_TOP_PAD, static_cast<int>(bytes)) != 1) return false;
  const auto start = reinterpret_cast<uintptr_t>(sbrk(0));
  // Allocations below the mmap threshold until one has to grow the heap.
  std::vector<void*> chunks;
  chunks.reserve(64);
  while (reinterpret_cast<uintptr_t>(sbrk(0)) == start && chunks.size() < chunks.capacity())
    chunks.push_back(malloc(64 << 10));
  for (void* c : chunks) free(c);
  const auto end = reinterpret_cast<uintptr_t>(sbrk(0));
  // It grew by `bytes` less the free top it had: advise from the first huge page on.
  const uintptr_t lo = (start + kHostHugePage - 1) & ~(kHostHugePage - 1);
  return end >= start + bytes - kHostHugePage && madvise(reinterpret_cast<void*>(lo), end - lo, MADV_HUGEPAGE) == 0;
}

ZeroedPool::ZeroedPool(size_t bytes)
    : size_((bytes + kHostHugePage - 1) & ~(kHostHugePage - 1)) {
  base_ = map_huge(size_, MAP_NORESERVE);
}

ZeroedPool::~ZeroedPool() {
  if (base_) munmap(base_, size_);
}

void* ZeroedPool::take(size_t bytes, size_t align) {
  const size_t at = (used_ + align - 1) & ~(align - 1);
  if (!base_ || at > size_ || bytes > size_ - at) return nullptr;
  used_ = at + bytes;
  return base_ + at;
}

}  // namespace brisk
