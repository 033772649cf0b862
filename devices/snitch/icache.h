// The Snitch instruction cache model (docs/snitch.md, "Instruction cache"): a private L0 per hart
// (8 fully associative lines of 64 B, FIFO replacement, an early tag of the line-address bits
// within a 4 KiB page) over a shared L1 (16 KiB, 2-way, 64 B lines, LRU), with the L0's next-line
// prefetcher that ICACHE_PREFETCH_ENABLE switches.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "devices/snitch/perf_counters.h"

namespace brisk::snitch {

class ICache {
 public:
  static constexpr unsigned kLineBytes = 64;
  static constexpr unsigned kL0Lines = 8;
  static constexpr unsigned kEarlyTagBits = 12 - 6;  // line-address bits 11:6: the tag within a page
  static constexpr unsigned kL1Bytes = 16 * 1024;
  static constexpr unsigned kL1Ways = 2;
  static constexpr unsigned kL1Sets = kL1Bytes / (kL1Ways * kLineBytes);
  // Cycles from an L0 request until the line is in the L0: from the L1, or refilled from memory.
  static constexpr unsigned kL1HitLatency = 2;
  static constexpr unsigned kRefillLatency = 20;

  ICache(unsigned harts, PerfCounters& counters);

  // ICACHE_PREFETCH_ENABLE (reset 1).
  void set_prefetch(bool on) { prefetch_ = on; }
  bool prefetch() const { return prefetch_; }

  // One instruction fetch by `hart` at `cycle`: counts ICACHE_HIT or ICACHE_MISS (and
  // ICACHE_DOUBLE_HIT, ICACHE_PREFETCH, ICACHE_STALL) and returns the cycles the fetch stalls. An
  // instruction is fetched from the line of its first byte.
  uint64_t fetch(unsigned hart, uint64_t pc, uint64_t cycle);

 private:
  struct Line {
    bool valid = false;
    uint64_t tag = 0;    // L0: the line address; L1: the line address above the set index
    uint64_t ready = 0;  // the cycle its data arrives (lines in flight are present, not ready)
  };
  struct L0 {
    std::array<Line, kL0Lines> lines;
    unsigned next_victim = 0;
    uint64_t last_line = ~uint64_t{0};  // the line of the previous fetch: the prefetcher runs on line changes
  };
  struct L1Set {
    std::array<Line, kL1Ways> ways;
    unsigned lru = 0;  // the way to replace next
  };

  // Requests `line` from the L1 at `cycle`; returns the cycle it is in the L0.
  uint64_t l1_request(uint64_t line, uint64_t cycle);
  static void l0_insert(L0& l0, uint64_t line, uint64_t ready);

  PerfCounters& counters_;
  std::vector<L0> l0_;
  std::vector<L1Set> l1_;
  bool prefetch_ = true;
};

}  // namespace brisk::snitch
