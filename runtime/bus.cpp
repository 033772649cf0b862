#include "runtime/bus.h"

#include <sys/mman.h>

#include "runtime/error.h"
#include "runtime/host_heap.h"

namespace brisk {

Bus::Bus(uint64_t ram_base, uint64_t ram_size) : ram_base_(ram_base), ram_size_(ram_size) {
  // Untouched RAM costs nothing on the host: the kernel hands out zero pages on first use. Host
  // huge pages (transparent, as QEMU asks for its RAM too) cut the host's TLB misses on guest memory;
  // RAM starts on a huge-page boundary so that the guest's 2 MiB-aligned ranges are whole host ones.
  ram_ = map_huge(ram_size, MAP_NORESERVE);
  if (!ram_) throw Error("cannot allocate {} MiB of guest RAM", ram_size >> 20);
  code_ = std::make_unique<std::atomic<uint8_t>[]>(ram_size / kPage);
}

Bus::~Bus() { munmap(ram_, ram_size_); }

void Bus::map(uint64_t base, uint64_t size, Device* dev) { windows_.push_back({base, size, dev}); }

Device* Bus::device_at(uint64_t pa, uint64_t& offset) const {
  for (const auto& w : windows_)
    if (pa - w.base < w.size) {
      offset = pa - w.base;
      return w.dev;
    }
  return nullptr;
}

}  // namespace brisk
