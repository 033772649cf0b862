// The Snitch cluster's tightly coupled data memory as the timing model sees it (docs/snitch.md,
// "TCDM"): 128 KiB at 0x10000000 in 32 banks of 64-bit words (bank = address bits 7:3), each
// granting one request per cycle. The data itself is ordinary machine memory.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "devices/snitch/perf_counters.h"

namespace brisk::snitch {

constexpr uint64_t kTcdmBase = 0x10000000;
constexpr uint64_t kTcdmSize = 128 * 1024;
constexpr bool in_tcdm(uint64_t addr) { return addr - kTcdmBase < kTcdmSize; }

// Cycles from a granted read until its data can be used (a dependent instruction right after a
// TCDM load stalls one cycle), and the round trip of any other access (DRAM, peripherals) over
// the cluster's AXI port. The DMA's write responses take the same latency as reads.
constexpr unsigned kTcdmLatency = 2;
constexpr unsigned kAxiLatency = 10;
constexpr unsigned memory_latency(uint64_t addr) { return in_tcdm(addr) ? kTcdmLatency : kAxiLatency; }

class Tcdm {
 public:
  static constexpr unsigned kBanks = 32;
  static constexpr unsigned bank(uint64_t addr) { return (addr >> 3) % kBanks; }

  explicit Tcdm(PerfCounters& counters) : counters_(counters) {}

  // Arbitrates one core-side request for `addr` (a TCDM address) made at `cycle`: it is granted at
  // the first cycle from `cycle` on in which its bank granted no other request; stalled k cycles,
  // it adds k + 1 to TCDM_ACCESSED and k to TCDM_CONGESTED. Returns the grant cycle. `horizon`
  // is the earliest cycle any later request can be made at (the cluster's time): grants before
  // it are forgotten.
  uint64_t request(uint64_t addr, uint64_t cycle, uint64_t horizon);

 private:
  PerfCounters& counters_;
  // Per bank, the cycles it has granted from the horizon on (a few: one per hart at most in flight).
  std::array<std::vector<uint64_t>, kBanks> granted_;
};

}  // namespace brisk::snitch
