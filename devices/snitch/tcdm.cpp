#include "devices/snitch/tcdm.h"

#include <algorithm>

namespace brisk::snitch {

uint64_t Tcdm::request(uint64_t addr, uint64_t cycle, uint64_t horizon) {
  std::vector<uint64_t>& granted = granted_[bank(addr)];
  std::erase_if(granted, [&](uint64_t c) { return c < horizon; });
  uint64_t grant = cycle;
  while (std::find(granted.begin(), granted.end(), grant) != granted.end()) grant++;
  granted.push_back(grant);
  const uint64_t stalled = grant - cycle;
  counters_.add(Metric::TCDM_ACCESSED, 0, stalled + 1);
  if (stalled) counters_.add(Metric::TCDM_CONGESTED, 0, stalled);
  return grant;
}

}  // namespace brisk::snitch
