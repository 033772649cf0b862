#pragma once

#include <cstddef>
#include <cstdint>

namespace brisk {

inline constexpr size_t kHostHugePage = 2 << 20;

// An anonymous read-write mapping of `bytes` that starts on a host huge page and asks for them
// (transparent huge pages: a hint, without THP it stays in small pages); `flags` adds to
// MAP_PRIVATE | MAP_ANONYMOUS. nullptr when mmap fails; munmap(p, bytes) frees it. On this kind of
// VM a TLB miss on a small page it has not touched for a while costs about a microsecond, even
// when the page is present (docs/profiling.md, "fp").
uint8_t* map_huge(size_t bytes, int flags = 0);

// Backs the next `bytes` of glibc's heap with transparent huge pages, a hint as for guest RAM: a
// boot keeps about a kilobyte of metadata per translated block, 100 MB and more, and on this kind
// of VM each first touch of a small page was a host page fault of several microseconds. Returns
// whether the heap grew by `bytes` and was advised (not under a sanitizer's allocator).
bool reserve_huge_heap(size_t bytes);

}  // namespace brisk
