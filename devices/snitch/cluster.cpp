#include "devices/snitch/cluster.h"

#include <algorithm>
#include <bit>

namespace brisk::snitch {

namespace {

bool memory_op(Exec e) { return e == Exec::Load || e == Exec::Store; }

}  // namespace

MetricMask retired_events(const InsnFacts& f) {
  MetricMask events = bit(Metric::RETIRED_INSTR);
  const bool int_result = f.dst != 0 && f.dst < InsnFacts::kFp;
  if (f.fp_subsystem) events |= bit(Metric::ISSUE_CORE_TO_FPU) | bit(Metric::ISSUE_FPU) | bit(Metric::ISSUE_FPU_SEQ);
  if (int_result) {
    if (f.fp_subsystem || f.accelerator) {
      events |= bit(Metric::RETIRED_ACC);
    } else if (f.exec == Exec::Load) {
      events |= bit(Metric::RETIRED_LOAD);
    } else {
      events |= bit(Metric::RETIRED_I);
    }
  }
  return events;
}

void BlockCounts::add(const InsnFacts& f) {
  instructions++;
  for (MetricMask m = retired_events(f); m; m &= m - 1) events[std::countr_zero(m)]++;
}

Cluster::Cluster(unsigned harts, Memory& memory)
    : counters_(harts), icache_(counters_.harts(), counters_), tcdm_(counters_), dma_(counters_, memory),
      harts_(counters_.harts()), ready_(counters_.harts()) {}

void Cluster::advance(uint64_t cycle, bool stop_on_dma_completion) {
  if (cycle <= now_) return;
  const uint64_t reached = dma_.run(cycle, stop_on_dma_completion);
  counters_.add(Metric::CYCLE, 0, reached - now_);
  now_ = reached;
}

void Cluster::advance_to(uint64_t cycle) { advance(cycle, false); }

unsigned Cluster::next_hart() {
  for (;;) {
    const bool dma_wait = dma_waiters_ != 0;
    if (dma_wait && dma_.queued() <= Dma::kQueueDepth) {
      for (HartTiming& h : harts_) {
        if (h.state != State::Dma) continue;
        h.state = State::Run;
        h.cycle = std::max(h.cycle, now_ + 1);
      }
      dma_waiters_ = 0;
      continue;
    }
    unsigned best = kNoHart;
    uint64_t best_cycle = UINT64_MAX;
    for (unsigned i = 0; i < harts_.size(); i++) {
      const uint64_t key = harts_[i].state == State::Run ? harts_[i].cycle : UINT64_MAX;
      if (key < best_cycle) {
        best_cycle = key;
        best = i;
      }
    }
    if (best == kNoHart) {
      advance(now_ + kIdleSlice, dma_wait);
      if (!dma_wait || dma_.queued() > Dma::kQueueDepth) return kNoHart;
      continue;
    }
    advance(harts_[best].cycle, dma_wait);
    if (now_ >= harts_[best].cycle) return best;
  }
}

void Cluster::count(unsigned hart, MetricMask events) {
  for (MetricMask m = events & counters_.selected(hart); m; m &= m - 1) {
    counters_.add(static_cast<Metric>(std::countr_zero(m)), hart, 1);
  }
}

uint64_t Cluster::access(uint64_t addr, uint64_t cycle) {
  return in_tcdm(addr) ? tcdm_.request(addr, cycle, now_) : cycle;
}

void Cluster::retire(unsigned hart, uint64_t pc, const InsnFacts& f, uint64_t addr) {
  HartTiming& h = harts_[hart];
  Scoreboard& ready = ready_[hart];
  uint64_t issue = h.cycle + icache_.fetch(hart, pc, h.cycle);
  for (uint8_t r : f.src) {
    // The FP subsystem waits for its own operands; the core only for the integer ones.
    if (r != InsnFacts::kNone && (r < InsnFacts::kFp || !f.fp_subsystem)) issue = std::max(issue, ready[r]);
  }
  h.cycle = issue + 1;
  count(hart, retired_events(f));
  if (f.fp_subsystem) {
    execute_fp(hart, f, addr, issue);
    return;
  }
  uint64_t result = issue + exec_latency(f.exec);
  if (memory_op(f.exec)) {
    // The core waits for the grant; the data comes memory_latency() later.
    const uint64_t grant = access(addr, issue);
    h.cycle = grant + 1;
    result = grant + memory_latency(addr);
  }
  if (f.dst != InsnFacts::kNone && f.dst != 0) ready[f.dst] = result;
}

void Cluster::execute_fp(unsigned hart, const InsnFacts& f, uint64_t addr, uint64_t issue) {
  HartTiming& h = harts_[hart];
  Scoreboard& ready = ready_[hart];
  uint64_t start = issue;
  for (uint8_t r : f.src) {
    if (r != InsnFacts::kNone && r >= InsnFacts::kFp) start = std::max(start, ready[r]);
  }
  uint64_t result;
  if (memory_op(f.exec)) {
    const uint64_t grant = access(addr, start);
    result = grant + memory_latency(addr);
  } else {
    start = std::max(start, h.fpu_free);
    h.fpu_free = start + (f.exec == Exec::FpDivSqrt ? exec_latency(f.exec) : 1);
    result = start + exec_latency(f.exec);
  }
  if (f.dst != InsnFacts::kNone && f.dst != 0) ready[f.dst] = result;
}

void Cluster::retire_block(unsigned hart, const BlockCounts& counts) {
  harts_[hart].cycle += counts.instructions;
  for (MetricMask m = kRetiredEvents & counters_.selected(hart); m; m &= m - 1) {
    const unsigned metric = std::countr_zero(m);
    if (counts.events[metric]) counters_.add(static_cast<Metric>(metric), hart, counts.events[metric]);
  }
}

void Cluster::sequence(unsigned hart, const InsnFacts& f, uint64_t addr) {
  count(hart, bit(Metric::ISSUE_FPU) | bit(Metric::ISSUE_FPU_SEQ));
  execute_fp(hart, f, addr, now_);
}

void Cluster::stream_access(unsigned hart, uint64_t addr) {
  HartTiming& h = harts_[hart];
  h.fpu_free = std::max(h.fpu_free, access(addr, std::max(now_, h.fpu_free)));
}

void Cluster::barrier(unsigned hart) {
  harts_[hart].state = State::Barrier;
  if (++arrived_ < harts_.size()) return;
  uint64_t release = 0;
  for (const HartTiming& h : harts_) release = std::max(release, h.cycle);
  for (HartTiming& h : harts_) {
    h.state = State::Run;
    h.cycle = release;
  }
  arrived_ = 0;
}

void Cluster::wfi(unsigned hart) { harts_[hart].state = State::Wfi; }

void Cluster::wake(unsigned hart) {
  HartTiming& h = harts_[hart];
  if (h.state != State::Wfi) return;
  h.state = State::Run;
  h.cycle = std::max(h.cycle, now_ + 1);
}

uint32_t Cluster::dma_copy(unsigned hart, uint32_t size, uint32_t config) {
  HartTiming& h = harts_[hart];
  const uint32_t id = dma_.copy(h.cycle - 1, size, config);
  if (dma_.queued() > Dma::kQueueDepth) {
    h.state = State::Dma;
    dma_waiters_++;
  }
  return id;
}

}  // namespace brisk::snitch
