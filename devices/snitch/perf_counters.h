// The Snitch cluster's 16 performance counters (docs/snitch.md, "Performance counters"): what each
// counts, its enable and its 48-bit value. The timing model (devices/snitch/cluster.h) adds events; the
// peripheral block (devices/snitch_periph.h) is their MMIO view.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace brisk::snitch {

// PERF_CNT_SEL.METRIC values, as the peripheral's register description names them.
enum class Metric : uint16_t {
  CYCLE = 0x00,
  TCDM_ACCESSED = 0x01,
  TCDM_CONGESTED = 0x02,
  ISSUE_FPU = 0x03,
  ISSUE_FPU_SEQ = 0x04,
  ISSUE_CORE_TO_FPU = 0x05,
  RETIRED_INSTR = 0x06,
  RETIRED_LOAD = 0x07,
  RETIRED_I = 0x08,
  RETIRED_ACC = 0x09,
  DMA_AW_STALL = 0x0a,
  DMA_AR_STALL = 0x0b,
  DMA_R_STALL = 0x0c,
  DMA_W_STALL = 0x0d,
  DMA_BUF_W_STALL = 0x0e,
  DMA_BUF_R_STALL = 0x0f,
  DMA_AW_DONE = 0x10,
  DMA_AW_BW = 0x11,
  DMA_AR_DONE = 0x12,
  DMA_AR_BW = 0x13,
  DMA_R_DONE = 0x14,
  DMA_R_BW = 0x15,
  DMA_W_DONE = 0x16,
  DMA_W_BW = 0x17,
  DMA_B_DONE = 0x18,
  DMA_BUSY = 0x19,
  ICACHE_MISS = 0x1a,
  ICACHE_HIT = 0x1b,
  ICACHE_PREFETCH = 0x1c,
  ICACHE_DOUBLE_HIT = 0x1d,
  ICACHE_STALL = 0x1e,
};
constexpr unsigned kNumMetrics = 0x1f;  // METRIC values from here on are reserved and count nothing

// A set of metrics, a bit per Metric.
using MetricMask = uint32_t;
constexpr MetricMask bit(Metric m) { return MetricMask{1} << static_cast<unsigned>(m); }

// Metrics the hardware takes from one hart (PERF_CNT_SEL.HART chooses which); the others (CYCLE, the
// TCDM and the DMA metrics) are cluster-wide and ignore HART.
constexpr MetricMask kHartLocalMetrics =
    bit(Metric::ISSUE_FPU) | bit(Metric::ISSUE_FPU_SEQ) | bit(Metric::ISSUE_CORE_TO_FPU) |
    bit(Metric::RETIRED_INSTR) | bit(Metric::RETIRED_LOAD) | bit(Metric::RETIRED_I) | bit(Metric::RETIRED_ACC) |
    bit(Metric::ICACHE_MISS) | bit(Metric::ICACHE_HIT) | bit(Metric::ICACHE_PREFETCH) |
    bit(Metric::ICACHE_DOUBLE_HIT) | bit(Metric::ICACHE_STALL);

class PerfCounters {
 public:
  static constexpr unsigned kCounters = 16;
  static constexpr uint64_t kValueMask = (uint64_t{1} << 48) - 1;  // PERF_CNT.PERF_COUNTER, 47:0
  static constexpr uint64_t kSelectMask = 0xffffffff;               // PERF_CNT_SEL: METRIC 31:16, HART 15:0

  // `harts`: the harts of the cluster, which PERF_CNT_SEL.HART wraps around (at least 1).
  explicit PerfCounters(unsigned harts);

  // The hardware's reset state: every counter enabled and 0, counters 0-6 selecting CYCLE,
  // RETIRED_INSTR, TCDM_ACCESSED, ICACHE_MISS, ICACHE_HIT, ICACHE_PREFETCH, ICACHE_STALL of hart 0,
  // the others CYCLE.
  void reset();

  unsigned harts() const { return harts_; }
  bool enabled(unsigned counter) const { return enable_[counter]; }
  uint32_t select(unsigned counter) const { return select_[counter]; }
  uint64_t value(unsigned counter) const { return value_[counter]; }
  void set_enabled(unsigned counter, bool on);
  void set_select(unsigned counter, uint64_t select);
  void set_value(unsigned counter, uint64_t value) { value_[counter] = value & kValueMask; }

  // Adds `n` events of `m` that happened on `hart` (ignored for cluster-wide metrics) to every
  // enabled counter that selects them; the values wrap at 48 bits.
  void add(Metric m, unsigned hart, uint64_t n) {
    if (selected_ & bit(m)) add_selected(m, hart, n);
  }

  // The metrics some enabled counter counts, in all (`selected()`) or for one hart (the hart-local
  // metrics of that hart plus the selected cluster-wide ones): callers skip computing the others.
  MetricMask selected() const { return selected_; }
  MetricMask selected(unsigned hart) const { return selected_by_hart_[hart]; }

 private:
  void add_selected(Metric m, unsigned hart, uint64_t n);
  void update_selected();

  unsigned harts_;
  std::array<bool, kCounters> enable_{};
  std::array<uint32_t, kCounters> select_{};
  std::array<uint64_t, kCounters> value_{};
  MetricMask selected_ = 0;
  std::vector<MetricMask> selected_by_hart_;
  std::array<uint16_t, kNumMetrics> counters_of_{};  // per metric, the enabled counters selecting it
};

}  // namespace brisk::snitch
