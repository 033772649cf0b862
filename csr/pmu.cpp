#include "csr/pmu.h"

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "jit/transfer.h"
#include "runtime/hart.h"

#include <algorithm>

namespace brisk::pmu {

namespace {

constexpr uint64_t kModeInhibit[kModes] = {EVENT_UINH, EVENT_SINH, 0, EVENT_MINH};

bool inhibited(const Hart& h, unsigned i) { return (h.csr.pmu.inhibit >> i) & 1; }

uint64_t implemented_fields(unsigned i) {
  // VSINH/VUINH stay read-only zero until brisk has the H extension.
  const uint64_t filters = EVENT_MINH | EVENT_SINH | EVENT_UINH;
  return i >= kFirstHpm ? EVENT_OF | filters | EVENT_SELECTOR : filters;
}

// The event counter i counts: fixed for cycle and instret, selected for the others.
unsigned event_of(const Hart& h, unsigned i) {
  if (i == kCycle) return kCycles;
  if (i == kInstret) return kInstructions;
  const uint64_t e = h.csr.pmu.config[i] & EVENT_SELECTOR;
  return e < kEventCount ? static_cast<unsigned>(e) : unsigned(kNone);
}

bool counts_in(const Hart& h, unsigned i, unsigned mode) {
  return mode != 2 && !(h.csr.pmu.config[i] & kModeInhibit[mode]);
}

// Instructions (and cycles, one per instruction) retired in a mode, from instret.
uint64_t mode_instructions(const Hart& h, unsigned mode) {
  const State& p = h.csr.pmu;
  return p.mode_instret[mode] + (mode == static_cast<unsigned>(h.priv) ? h.instret - p.mode_start : 0);
}

// The running total of counter i's event over the modes it counts.
uint64_t total(const Hart& h, unsigned i) {
  const unsigned e = event_of(h, i);
  uint64_t t = 0;
  for (unsigned m = 0; m < kModes; m++) {
    if (!counts_in(h, i, m)) continue;
    t += (e == kCycles || e == kInstructions) ? mode_instructions(h, m) : h.csr.pmu.events[m][e];
  }
  return t;
}

// Whether counter i counts the instruction now retiring.
bool counts_this_instruction(const Hart& h, unsigned i) {
  const unsigned e = event_of(h, i);
  return !inhibited(h, i) && (e == kCycles || e == kInstructions) && counts_in(h, i, static_cast<unsigned>(h.priv));
}

void store(Hart& h, unsigned i, uint64_t v) {
  State& p = h.csr.pmu;
  p.base[i] = v;
  p.snap[i] = total(h, i);
  p.last[i] = v;
  h.request_exit();  // the next overflow deadline moved
}

void update_active(Hart& h) {
  State& p = h.csr.pmu;
  for (unsigned m = 0; m < kModes; m++) {
    p.active[m] = m == 2 ? 0 : p.sampled;
    for (unsigned i = 0; i < kNumCounters; i++) {
      const unsigned e = event_of(h, i);
      if (i == 1 || inhibited(h, i) || !counts_in(h, i, m) || e == kNone || e == kCycles || e == kInstructions) continue;
      p.active[m] |= 1u << e;
    }
  }
}

}  // namespace

bool Gshare::mispredicted(uint64_t pc, bool taken) {
  const unsigned k = ((pc >> 1) ^ history) & ((1u << kBits) - 1);
  const bool predicted = counter[k] >= 2;
  if (taken && counter[k] < 3) counter[k]++;
  if (!taken && counter[k] > 0) counter[k]--;
  history = static_cast<uint16_t>(((history << 1) | taken) & ((1u << kBits) - 1));
  return predicted != taken;
}

uint64_t counter(const Hart& h, unsigned i) {
  const State& p = h.csr.pmu;
  return inhibited(h, i) ? p.base[i] : p.base[i] + (total(h, i) - p.snap[i]);
}

void set_counter(Hart& h, unsigned i, uint64_t v) {
  // A CSR write takes effect after its instruction completes: that instruction's own retirement,
  // counted right after, must not show in the written value.
  store(h, i, counts_this_instruction(h, i) ? v - 1 : v);
  h.csr.pmu.last[i] = v;  // a write never counts as an overflow (Sscofpmf)
}

uint64_t config(const Hart& h, unsigned i) { return h.csr.pmu.config[i]; }

void set_config(Hart& h, unsigned i, uint64_t v) {
  const uint64_t now = counter(h, i);
  h.csr.pmu.config[i] = v & implemented_fields(i);
  store(h, i, now);
  update_active(h);
}

uint32_t inhibit(const Hart& h) { return h.csr.pmu.inhibit; }

void set_inhibit(Hart& h, uint32_t v) {
  v &= ~2u;  // bit 1 would be time, which never stops
  uint64_t now[kNumCounters];
  for (unsigned i = 0; i < kNumCounters; i++) now[i] = counter(h, i);
  h.csr.pmu.inhibit = v;
  for (unsigned i = 0; i < kNumCounters; i++) store(h, i, now[i]);
  update_active(h);
}

uint32_t overflow_bits(const Hart& h) {
  uint32_t bits = 0;
  for (unsigned i = kFirstHpm; i < kNumCounters; i++)
    if (h.csr.pmu.config[i] & EVENT_OF) bits |= 1u << i;
  return bits;
}

uint32_t active_events(const Hart& h, unsigned priv) { return h.csr.pmu.active[priv]; }

bool predict_branch(Hart& h, uint64_t pc, bool taken) {
  State& p = h.csr.pmu;
  const bool miss = p.predictor.mispredicted(pc, taken);
  if (miss) count(h, kBranchMisses, 1);
  return miss;
}

uint32_t retired_events(const Insn& i, bool taken) {
  const uint16_t f = i.flags();
  uint32_t ev = 0;
  auto add = [&](unsigned e, bool yes) {
    if (yes) ev |= 1u << e;
  };
  add(kBranches, f & kBranch);
  add(kTakenBranches, (f & kBranch) && taken);
  add(kJumps, f & kJump);
  if (f & kJump) {
    const TransferType t = classify_transfer(i, true);
    add(kCalls, t == TransferType::DirectCall || t == TransferType::IndirectCall);
    add(kReturns, t == TransferType::Return);
  }
  add(kLoads, f & kLoad);
  add(kStores, f & kStore);
  add(kAtomics, f & kAmo);
  add(kFpOps, f & kFpArith);
  return ev;
}

void count_retired(Hart& h, const Insn& i, bool taken) {
  State& p = h.csr.pmu;
  const unsigned m = static_cast<unsigned>(h.priv);
  const uint32_t active = p.active[m];
  if (!active) return;
  uint64_t* ev = p.events[m];
  for (uint32_t e = retired_events(i, taken) & active; e; e &= e - 1) ev[__builtin_ctz(e)]++;
}

void count(Hart& h, Event e, uint64_t n) {
  State& p = h.csr.pmu;
  const unsigned m = static_cast<unsigned>(h.priv);
  if ((p.active[m] >> e) & 1) p.events[m][e] += n;
}

void leave_mode(Hart& h, uint64_t retiring) {
  State& p = h.csr.pmu;
  p.mode_instret[static_cast<unsigned>(h.priv)] += h.instret + retiring - p.mode_start;
  p.mode_start = h.instret + retiring;
}

void check_overflow(Hart& h) {
  State& p = h.csr.pmu;
  for (unsigned i = kFirstHpm; i < kNumCounters; i++) {
    if (inhibited(h, i) || event_of(h, i) == kNone) continue;
    const uint64_t v = counter(h, i);
    if (v < p.last[i]) {  // wrapped: at most once between checks (see next_overflow)
      if (!(p.config[i] & EVENT_OF)) h.csr.mip |= csr::MIP_LCOFIP;
      p.config[i] |= EVENT_OF;
    }
    p.last[i] = v;
  }
}

uint64_t next_overflow(const Hart& h) {
  const unsigned m = static_cast<unsigned>(h.priv);
  uint64_t room = UINT64_MAX;
  for (unsigned i = kFirstHpm; i < kNumCounters; i++) {
    const unsigned e = event_of(h, i);
    if (inhibited(h, i) || e == kNone || !counts_in(h, i, m)) continue;
    const uint64_t left = -counter(h, i);  // events until it wraps to 0
    if (left == 0) continue;
    room = std::min(room, min_instructions(e, left));
  }
  return room >= UINT64_MAX - h.instret ? UINT64_MAX : h.instret + room;
}

uint64_t min_instructions(unsigned e, uint64_t n) {
  // Halved rounding up, without the overflow of n + 1.
  return (e == kPageWalks || e == kTlbMisses) ? n / 2 + (n & 1) : n;
}

void set_sampled(Hart& h, uint32_t events) {
  h.csr.pmu.sampled = events & ~(1u << kCycles | 1u << kInstructions | 1u << kNone);
  update_active(h);
  h.request_exit();  // active_events is part of the translation key
}

uint64_t event_total(const Hart& h, unsigned e) {
  if (e == kCycles || e == kInstructions) return h.instret;
  uint64_t t = 0;
  for (unsigned m = 0; m < kModes; m++) t += h.csr.pmu.events[m][e];
  return t;
}

const char* event_name(unsigned e) {
  static constexpr const char* kNames[kEventCount] = {
      nullptr,      "cycles",  "instructions", "branches", "branch-misses", "taken-branches",
      "jumps",      "calls",   "returns",      "loads",    "stores",        "atomics",
      "fp-ops",     "exceptions", "interrupts", "page-walks", "tlb-misses"};
  return e < kEventCount ? kNames[e] : nullptr;
}

}  // namespace brisk::pmu

namespace brisk::csr {

namespace {

// Zicntr/Zihpm reads below M-mode need the counter's bit in mcounteren (and scounteren for U).
Status check_counter(Hart& h, const Insn& i, bool) {
  const unsigned bit = static_cast<unsigned>(i.imm) & 31;
  if (h.priv != Priv::M && !((h.csr.mcounteren >> bit) & 1)) return h.illegal(i);
  if (h.priv == Priv::U && !((h.csr.scounteren >> bit) & 1)) return h.illegal(i);
  return Status::Next;
}

uint64_t read_time(Hart& h, uint16_t) { return h.csr.clock->now(); }

Status check_smcntrpmf(Hart& h, const Insn& i, bool) {
  return h.csr.isa.has(Ext::Smcntrpmf) ? Status::Next : h.illegal(i);
}
uint64_t read_counter(Hart& h, uint16_t n) { return pmu::counter(h, n & 31); }
void write_counter(Hart& h, uint16_t n, uint64_t v) { pmu::set_counter(h, n & 31, v); }

}  // namespace

void define_pmu(Table& t) {
  t[CSR_CYCLE] = {read_counter, nullptr, check_counter};
  t[CSR_TIME] = {read_time, nullptr, check_counter};
  t[CSR_INSTRET] = {read_counter, nullptr, check_counter};
  t[CSR_MCYCLE] = {read_counter, write_counter};
  t[CSR_MINSTRET] = {read_counter, write_counter};
  for (uint16_t n = CSR_HPMCOUNTER3; n <= CSR_HPMCOUNTER31; n++) t[n] = {read_counter, nullptr, check_counter};
  for (uint16_t n = CSR_MHPMCOUNTER3; n <= CSR_MHPMCOUNTER31; n++) t[n] = {read_counter, write_counter};
  for (uint16_t n = CSR_MHPMEVENT3; n <= CSR_MHPMEVENT31; n++)
    t[n] = {[](Hart& h, uint16_t n) { return pmu::config(h, n - CSR_MHPMEVENT3 + pmu::kFirstHpm); },
            [](Hart& h, uint16_t n, uint64_t v) { pmu::set_config(h, n - CSR_MHPMEVENT3 + pmu::kFirstHpm, v); }};
  // Smcntrpmf: the mode filters of cycle and instret.
  for (uint16_t n : {CSR_MCYCLECFG, CSR_MINSTRETCFG})
    t[n] = {[](Hart& h, uint16_t n) { return pmu::config(h, n == CSR_MCYCLECFG ? pmu::kCycle : pmu::kInstret); },
            [](Hart& h, uint16_t n, uint64_t v) { pmu::set_config(h, n == CSR_MCYCLECFG ? pmu::kCycle : pmu::kInstret, v); },
            check_smcntrpmf};
  t[CSR_MCOUNTINHIBIT] = {[](Hart& h, uint16_t) -> uint64_t { return pmu::inhibit(h); },
                          [](Hart& h, uint16_t, uint64_t v) { pmu::set_inhibit(h, static_cast<uint32_t>(v)); }};
}

}  // namespace brisk::csr
