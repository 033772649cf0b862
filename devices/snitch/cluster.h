// The Snitch cluster timing model (docs/snitch.md): single-issue in-order harts advancing in cycle
// order, with the stalls of operands (load-use, FPU and multiply/divide latency), TCDM bank
// conflicts, the barrier, wfi, a full DMA queue and instruction-cache misses, and the performance
// events the peripheral block counts. It knows nothing of decoding or the engines: they describe
// each retired instruction with InsnFacts (or a whole block with BlockCounts) and report the
// cluster's own operations (barrier, wfi, DMCPY, FREP repeats, SSR accesses).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "devices/snitch/dma.h"
#include "devices/snitch/icache.h"
#include "devices/snitch/perf_counters.h"
#include "devices/snitch/tcdm.h"

namespace brisk::snitch {

// Where an instruction executes, which fixes the latency of its result.
enum class Exec : uint8_t {
  Alu,        // base integer instructions, branches, jumps, CSR accesses: result the next cycle
  Load,       // loads, and AMOs and SC (their rd is load data): through the hart's TCDM port
  Store,
  Mul,        // the multiply/divide unit, an accelerator to the core
  Div,
  FpComp64,   // FPU: double add, multiply, fused multiply-add
  FpComp32,   // FPU: the same in single precision
  FpNonComp,  // FPU: sign injection, min/max, compares, classify, moves
  FpConv,     // FPU: conversions
  FpDivSqrt,  // FPU: division and square root, not pipelined
};

// Result latencies in cycles (docs/snitch.md, "Latencies"); loads take memory_latency().
constexpr unsigned exec_latency(Exec e) {
  switch (e) {
    case Exec::Mul: return 3;
    case Exec::Div: return 32;
    case Exec::FpComp64: return 3;
    case Exec::FpComp32: return 2;
    case Exec::FpNonComp: return 1;
    case Exec::FpConv: return 2;
    case Exec::FpDivSqrt: return 21;
    default: return 1;
  }
}

// What the decoder knows of one instruction: the same at every execution, so a translated block
// can keep its instructions' facts. Registers: 0-31 integer, kFp + n the FP register n.
struct InsnFacts {
  static constexpr uint8_t kNone = 0xff;
  static constexpr uint8_t kFp = 32;
  Exec exec = Exec::Alu;
  // Offloaded to the FP subsystem (every F and D instruction: FPU operations, FP loads and stores,
  // moves and conversions): its integer operands are read at issue, the rest runs decoupled.
  bool fp_subsystem = false;
  uint8_t dst = kNone;
  std::array<uint8_t, 3> src = {kNone, kNone, kNone};
  // Its integer result comes back over the core's accelerator interface: the multiply/divide
  // unit's, the DMA's (DMCPY(I), DMSTAT(I)) and the SSR configuration's (SCFGR(I)).
  bool accelerator = false;
};

// The events one retired instruction adds, one each: RETIRED_INSTR; ISSUE_CORE_TO_FPU, ISSUE_FPU
// and ISSUE_FPU_SEQ when offloaded to the FP subsystem; for an integer result to rd != 0,
// RETIRED_ACC (FP subsystem, accelerator), RETIRED_LOAD (loads) or RETIRED_I (the rest).
MetricMask retired_events(const InsnFacts& f);
constexpr MetricMask kRetiredEvents =
    bit(Metric::RETIRED_INSTR) | bit(Metric::RETIRED_LOAD) | bit(Metric::RETIRED_I) | bit(Metric::RETIRED_ACC) |
    bit(Metric::ISSUE_CORE_TO_FPU) | bit(Metric::ISSUE_FPU) | bit(Metric::ISSUE_FPU_SEQ);
// Metrics only the per-instruction path (Cluster::retire) computes exactly: a caller whose
// counters select none of them may account whole blocks with Cluster::retire_block.
constexpr MetricMask kTimingMetrics = bit(Metric::CYCLE) | bit(Metric::TCDM_ACCESSED) |
                                      bit(Metric::TCDM_CONGESTED) | bit(Metric::ICACHE_MISS) |
                                      bit(Metric::ICACHE_HIT) | bit(Metric::ICACHE_PREFETCH) |
                                      bit(Metric::ICACHE_DOUBLE_HIT) | bit(Metric::ICACHE_STALL);

// The retired events of a block's instructions, summed at translation time.
struct BlockCounts {
  uint32_t instructions = 0;
  std::array<uint32_t, kNumMetrics> events{};
  void add(const InsnFacts& f);
};

class Cluster {
 public:
  static constexpr unsigned kNoHart = ~0u;
  // How far next_hart() moves time in one call while every hart waits.
  static constexpr uint64_t kIdleSlice = 4096;

  Cluster(unsigned harts, Memory& memory);

  unsigned harts() const { return static_cast<unsigned>(harts_.size()); }
  PerfCounters& counters() { return counters_; }
  ICache& icache() { return icache_; }
  Dma& dma() { return dma_; }
  // The cluster's time: the cycle of the instruction being run. CYCLE counts its advance.
  uint64_t now() const { return now_; }
  // The cycle `hart` issues its next instruction at.
  uint64_t cycle(unsigned hart) const { return harts_[hart].cycle; }
  // At the barrier, in wfi, or stalled behind a full DMA queue.
  bool waiting(unsigned hart) const { return harts_[hart].state != State::Run; }

  // Cycle order: the hart to run next, the one whose next instruction issues first (the lowest on
  // ties), with the cluster's time (and the DMA) advanced to that cycle. kNoHart when every hart
  // waits; time then moved on by up to kIdleSlice cycles (while the DMA works toward a stalled
  // hart's release), and the caller may ask again or wait for an interrupt (wake).
  unsigned next_hart();
  // Moves time on to `cycle` (when every hart waits for an interrupt, say).
  void advance_to(uint64_t cycle);

  // One instruction `hart` retired, fetched at `pc`; `addr` is the address a Load or Store
  // accessed. Computes its fetch, issue and result cycles and counts its events.
  void retire(unsigned hart, uint64_t pc, const InsnFacts& f, uint64_t addr = 0);
  // The fast paths, when no counter selects a kTimingMetrics metric (quantum mode): count the
  // events retire() would and advance the hart one cycle per instruction, without stalls, for one
  // instruction or a block.
  void retire_untimed(unsigned hart, const InsnFacts& f) {
    harts_[hart].cycle++;
    count(hart, retired_events(f));
  }
  void retire_block(unsigned hart, const BlockCounts& counts);
  // An instruction of `hart` that raised an exception: it retires nothing and counts nothing, and
  // the hart's next instruction (the handler's first) issues a cycle later.
  void trap(unsigned hart) { harts_[hart].cycle++; }
  // An FP-subsystem instruction the FREP sequencer issued again on its own (a repeat, not fetched
  // and not retired by the core): ISSUE_FPU and ISSUE_FPU_SEQ, and its FPU timing.
  void sequence(unsigned hart, const InsnFacts& f, uint64_t addr = 0);
  // One SSR stream element of `hart` read or written at `addr` (a TCDM address: a port of its own
  // that competes for the bank), at the FPU's time; the FPU starts nothing before the grant. Called
  // before retire() or sequence() of the instruction that reads the element, after that of the one
  // that writes it.
  void stream_access(unsigned hart, uint64_t addr);

  // The cluster's own operations, each called after retire() of the instruction that does it:
  // the barrier CSR 0x7C2 (the hart waits until every hart of the cluster has arrived, and all
  // leave in the cycle after the last arrival's access), wfi (the hart waits until wake(), which
  // the machine calls when an enabled interrupt is pending), and DMCPY (returns the transfer id;
  // the hart waits while the DMA queue is over its depth).
  void barrier(unsigned hart);
  void wfi(unsigned hart);
  void wake(unsigned hart);
  uint32_t dma_copy(unsigned hart, uint32_t size, uint32_t config);

 private:
  enum class State : uint8_t { Run, Barrier, Wfi, Dma };
  struct HartTiming {
    State state = State::Run;
    uint64_t cycle = 0;
    uint64_t fpu_free = 0;  // the first cycle the FPU can start another operation
  };
  // Per register, the cycle its pending result is usable.
  using Scoreboard = std::array<uint64_t, 64>;

  void count(unsigned hart, MetricMask events);
  void execute_fp(unsigned hart, const InsnFacts& f, uint64_t addr, uint64_t issue);
  uint64_t access(uint64_t addr, uint64_t cycle);
  void advance(uint64_t cycle, bool stop_on_dma_completion);

  PerfCounters counters_;
  ICache icache_;
  Tcdm tcdm_;
  Dma dma_;
  std::vector<HartTiming> harts_;  // small, as next_hart() scans them for every instruction
  std::vector<Scoreboard> ready_;
  unsigned arrived_ = 0;       // at the barrier
  unsigned dma_waiters_ = 0;  // harts stalled behind the full DMA queue
  uint64_t now_ = 0;
};

}  // namespace brisk::snitch
