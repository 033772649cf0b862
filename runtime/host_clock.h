// The machine timer as brisk runs it: the host's monotonic clock, in ticks of the 10 MHz timebase
// that QEMU's virt machine also advertises.
#pragma once

#include <time.h>

#include "devices/device.h"

namespace brisk {

struct HostClock final : Clock {
  static constexpr uint64_t kTimebaseHz = 10'000'000;
  timespec start{};
  HostClock() { clock_gettime(CLOCK_MONOTONIC, &start); }
  uint64_t now() const override {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    const int64_t ns = (t.tv_sec - start.tv_sec) * 1'000'000'000 + (t.tv_nsec - start.tv_nsec);
    return static_cast<uint64_t>(ns) / (1'000'000'000 / kTimebaseHz);
  }
};

}  // namespace brisk
