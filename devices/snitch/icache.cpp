#include "devices/snitch/icache.h"

#include <algorithm>

namespace brisk::snitch {

ICache::ICache(unsigned harts, PerfCounters& counters) : counters_(counters), l0_(harts), l1_(kL1Sets) {}

uint64_t ICache::l1_request(uint64_t line, uint64_t cycle) {
  L1Set& set = l1_[line % kL1Sets];
  const uint64_t tag = line / kL1Sets;
  for (unsigned w = 0; w < kL1Ways; w++) {
    Line& way = set.ways[w];
    if (way.valid && way.tag == tag) {
      set.lru = w ^ 1;
      return std::max(cycle + kL1HitLatency, way.ready);
    }
  }
  Line& victim = set.ways[set.lru];
  victim = {true, tag, cycle + kRefillLatency};
  set.lru ^= 1;
  return victim.ready;
}

void ICache::l0_insert(L0& l0, uint64_t line, uint64_t ready) {
  l0.lines[l0.next_victim] = {true, line, ready};
  l0.next_victim = (l0.next_victim + 1) % kL0Lines;
}

uint64_t ICache::fetch(unsigned hart, uint64_t pc, uint64_t cycle) {
  L0& l0 = l0_[hart];
  const uint64_t line = pc / kLineBytes;
  constexpr uint64_t kEarlyMask = (uint64_t{1} << kEarlyTagBits) - 1;
  unsigned early_hits = 0;
  const Line* hit = nullptr;
  for (const Line& l : l0.lines) {
    if (!l.valid || ((l.tag ^ line) & kEarlyMask)) continue;
    early_hits++;
    if (l.tag == line) hit = &l;
  }
  if (early_hits > 1) counters_.add(Metric::ICACHE_DOUBLE_HIT, hart, 1);
  uint64_t ready;
  if (hit) {
    counters_.add(Metric::ICACHE_HIT, hart, 1);
    ready = std::max(cycle, hit->ready);
  } else {
    counters_.add(Metric::ICACHE_MISS, hart, 1);
    ready = l1_request(line, cycle);
    l0_insert(l0, line, ready);
  }
  if (prefetch_ && line != l0.last_line) {
    const uint64_t next = line + 1;
    const bool present = std::any_of(l0.lines.begin(), l0.lines.end(),
                                     [&](const Line& l) { return l.valid && l.tag == next; });
    if (!present) {
      counters_.add(Metric::ICACHE_PREFETCH, hart, 1);
      l0_insert(l0, next, l1_request(next, ready));
    }
  }
  l0.last_line = line;
  const uint64_t stall = ready - cycle;
  if (stall) counters_.add(Metric::ICACHE_STALL, hart, stall);
  return stall;
}

}  // namespace brisk::snitch
