// The system-mode physical address space: RAM and MMIO device windows.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "devices/device.h"

namespace brisk {

class Bus {
 public:
  static constexpr uint64_t kPage = 4096;

  Bus(uint64_t ram_base, uint64_t ram_size);
  ~Bus();
  Bus(const Bus&) = delete;
  Bus& operator=(const Bus&) = delete;

  uint64_t ram_base() const { return ram_base_; }
  uint64_t ram_size() const { return ram_size_; }
  uint8_t* ram() const { return ram_; }

  void map(uint64_t base, uint64_t size, Device* dev);

  // Host pointer to [pa, pa + size) when all of it is RAM, else nullptr.
  uint8_t* ram_ptr(uint64_t pa, uint64_t size) const {
    uint64_t off = pa - ram_base_;
    return off < ram_size_ && size <= ram_size_ - off ? ram_ + off : nullptr;
  }
  // The device whose window holds pa, with pa's offset in it; nullptr if none.
  Device* device_at(uint64_t pa, uint64_t& offset) const;

  // Pages of RAM that translated code was made from (see HartEnv::watch_code): per page, how many
  // engines hold code from it (harts on host threads each have their own, runtime/virt_machine.h).
  bool has_code(uint64_t pa) const { return code_[(pa - ram_base_) / kPage].load(std::memory_order_relaxed); }
  // Returns the count before.
  unsigned watch_code(uint64_t pa) { return code_[(pa - ram_base_) / kPage].fetch_add(1); }
  // Counts one more engine only if another holds code from the page already.
  bool watch_code_if_watched(uint64_t pa) {
    auto& n = code_[(pa - ram_base_) / kPage];
    for (uint8_t v = n.load(); v;)
      if (n.compare_exchange_weak(v, static_cast<uint8_t>(v + 1))) return true;
    return false;
  }
  void unwatch_code(uint64_t pa) { code_[(pa - ram_base_) / kPage].fetch_sub(1); }

 private:
  struct Window {
    uint64_t base, size;
    Device* dev;
  };
  uint64_t ram_base_, ram_size_;
  uint8_t* ram_ = nullptr;
  std::vector<Window> windows_;
  std::unique_ptr<std::atomic<uint8_t>[]> code_;
};

}  // namespace brisk
