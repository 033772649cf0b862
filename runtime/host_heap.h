#pragma once

#include <cstddef>

namespace brisk {

// Backs the next `bytes` of glibc's heap with transparent huge pages, a hint as for guest RAM: a
// boot keeps about a kilobyte of metadata per translated block, 100 MB and more, and on this kind
// of VM each first touch of a small page was a host page fault of several microseconds. Returns
// whether the heap grew by `bytes` and was advised (not under a sanitizer's allocator).
bool reserve_huge_heap(size_t bytes);

}  // namespace brisk
