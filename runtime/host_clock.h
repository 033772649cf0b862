// The machine timer as brisk runs it: the host's monotonic clock, in ticks of the 10 MHz timebase
// that QEMU's virt machine also advertises.
#pragma once

#include <time.h>

#include <atomic>

#include "devices/device.h"

namespace brisk {

struct HostClock final : Clock {
  static constexpr uint64_t kTimebaseHz = 10'000'000;
  HostClock() { set(0); }
  // Harts on host threads read it while one of them sets mtime.
  uint64_t now() const override { return host_ticks() + offset_.load(std::memory_order_relaxed); }
  void set(uint64_t now) override { offset_.store(now - host_ticks(), std::memory_order_relaxed); }

 private:
  static uint64_t host_ticks() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<uint64_t>(t.tv_sec) * kTimebaseHz + static_cast<uint64_t>(t.tv_nsec) / (1'000'000'000 / kTimebaseHz);
  }
  std::atomic<uint64_t> offset_{0};
};

}  // namespace brisk
