#include "devices/snitch/perf_counters.h"

#include <algorithm>
#include <bit>

namespace brisk::snitch {

namespace {

uint32_t select_value(Metric m, unsigned hart) { return static_cast<uint32_t>(m) << 16 | hart; }
unsigned select_metric(uint32_t select) { return select >> 16; }
unsigned select_hart(uint32_t select) { return select & 0xffff; }

}  // namespace

PerfCounters::PerfCounters(unsigned harts) : harts_(std::max(harts, 1u)), selected_by_hart_(harts_, 0) { reset(); }

void PerfCounters::reset() {
  constexpr Metric kResetMetrics[] = {Metric::CYCLE,       Metric::RETIRED_INSTR, Metric::TCDM_ACCESSED,
                                      Metric::ICACHE_MISS, Metric::ICACHE_HIT,    Metric::ICACHE_PREFETCH,
                                      Metric::ICACHE_STALL};
  for (unsigned i = 0; i < kCounters; i++) {
    enable_[i] = true;
    select_[i] = select_value(i < std::size(kResetMetrics) ? kResetMetrics[i] : Metric::CYCLE, 0);
    value_[i] = 0;
  }
  update_selected();
}

void PerfCounters::set_enabled(unsigned counter, bool on) {
  enable_[counter] = on;
  update_selected();
}

void PerfCounters::set_select(unsigned counter, uint64_t select) {
  select_[counter] = static_cast<uint32_t>(select & kSelectMask);
  update_selected();
}

void PerfCounters::update_selected() {
  selected_ = 0;
  std::fill(selected_by_hart_.begin(), selected_by_hart_.end(), 0);
  counters_of_.fill(0);
  for (unsigned i = 0; i < kCounters; i++) {
    const unsigned metric = select_metric(select_[i]);
    if (!enable_[i] || metric >= kNumMetrics) continue;
    const MetricMask m = MetricMask{1} << metric;
    selected_ |= m;
    counters_of_[metric] |= 1u << i;
    if (m & kHartLocalMetrics) {
      selected_by_hart_[select_hart(select_[i]) % harts_] |= m;
    } else {
      for (MetricMask& h : selected_by_hart_) h |= m;
    }
  }
}

void PerfCounters::add_selected(Metric m, unsigned hart, uint64_t n) {
  const bool local = bit(m) & kHartLocalMetrics;
  for (unsigned counters = counters_of_[static_cast<unsigned>(m)]; counters; counters &= counters - 1) {
    const unsigned i = std::countr_zero(counters);
    if (local && select_hart(select_[i]) % harts_ != hart) continue;
    value_[i] = (value_[i] + n) & kValueMask;
  }
}

}  // namespace brisk::snitch
