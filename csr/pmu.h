// The hardware performance monitor: Zicntr/Zihpm counters, Sscofpmf overflow, Smcntrpmf mode
// filters, and the events brisk counts exactly (docs/architecture.md, "Exact events").
//
// Engines count events per privilege mode into State::events, but only the events some running
// counter needs in the current mode (active_events(): translated code is keyed by it, so with no
// counter configured nothing is counted at all). Instructions are never counted that way: they come
// from Hart::instret, split by mode at every privilege change. A counter's value is derived on read
// from the totals of its event over the modes it counts.
#pragma once

#include <cstdint>

namespace brisk {
struct Hart;
struct Insn;
}  // namespace brisk

namespace brisk::pmu {

// Event selectors for mhpmevent[15:0]. The device tree's riscv,pmu node maps Linux's generic events
// onto them; README documents each.
enum Event : uint16_t {
  kNone = 0,
  kCycles = 0x01,          // one cycle per retired instruction (brisk's cycle model)
  kInstructions = 0x02,    // retired instructions
  kBranches = 0x03,        // retired conditional branches
  kBranchMisses = 0x04,    // conditional branches the gshare model mispredicted
  kTakenBranches = 0x05,   // retired conditional branches that were taken
  kJumps = 0x06,           // jal and jalr
  kCalls = 0x07,           // jumps that link (direct or indirect calls, Smctr's definition)
  kReturns = 0x08,         // function returns (Smctr's definition)
  kLoads = 0x09,           // retired loads (integer, FP, LR, AMOs)
  kStores = 0x0a,          // retired stores (integer, FP, SC, AMOs)
  kAtomics = 0x0b,         // LR, SC and AMOs
  kFpOps = 0x0c,           // FP arithmetic, compare and convert instructions
  kExceptions = 0x0d,      // exceptions taken
  kInterrupts = 0x0e,      // interrupts taken
  kPageWalks = 0x0f,       // page-table walks (system mode)
  kTlbMisses = 0x10,       // misses of brisk's software TLB (system mode)
  kEventCount
};

// Counter indices: 0 = cycle, 1 = time (not a counter), 2 = instret, 3..31 = hpmcounter3..31.
constexpr unsigned kCycle = 0, kInstret = 2, kFirstHpm = 3, kNumCounters = 32;
constexpr unsigned kModes = 4;  // indexed by Priv: U = 0, S = 1, M = 3

// mhpmeventN / mcyclecfg / minstretcfg fields (Sscofpmf, Smcntrpmf).
constexpr uint64_t EVENT_OF = 1ull << 63;
constexpr uint64_t EVENT_MINH = 1ull << 62;
constexpr uint64_t EVENT_SINH = 1ull << 61;
constexpr uint64_t EVENT_UINH = 1ull << 60;
constexpr uint64_t EVENT_VSINH = 1ull << 59;
constexpr uint64_t EVENT_VUINH = 1ull << 58;
constexpr uint64_t EVENT_SELECTOR = 0xffff;

// The branch predictor behind kBranchMisses: gshare with 4096 two-bit counters and 12 bits of history.
struct Gshare {
  static constexpr unsigned kBits = 12;
  uint16_t history = 0;
  uint8_t counter[1u << kBits] = {};
  // Predicts the branch at pc, learns its outcome, and says whether the prediction was wrong.
  bool mispredicted(uint64_t pc, bool taken);
};

struct State {
  uint64_t events[kModes][kEventCount] = {};  // what the engines counted, per privilege
  uint64_t mode_instret[kModes] = {};         // instructions retired per privilege before mode_start
  uint64_t mode_start = 0;                    // Hart::instret when the current privilege was entered
  uint64_t base[kNumCounters] = {};           // counter value at its last snapshot ...
  uint64_t snap[kNumCounters] = {};           // ... and the event total it had then
  uint64_t last[kNumCounters] = {};           // value when overflow was last checked
  uint64_t config[kNumCounters] = {};         // mcyclecfg (0), minstretcfg (2), mhpmevent3..31
  uint32_t inhibit = 0;                       // mcountinhibit
  uint32_t active[kModes] = {};               // bit e: some running counter counts event e in that mode
  uint32_t sampled = 0;                       // events brisk record counts in every mode (runtime/recorder.h)
  Gshare predictor;
};

// Counter i and its configuration as the CSRs (and Smcdeleg's sireg window) see them. Writes are
// CSR writes: they take effect after the writing instruction retires.
uint64_t counter(const Hart& h, unsigned i);
void set_counter(Hart& h, unsigned i, uint64_t v);
uint64_t config(const Hart& h, unsigned i);
void set_config(Hart& h, unsigned i, uint64_t v);
uint32_t inhibit(const Hart& h);
void set_inhibit(Hart& h, uint32_t v);
// scountovf: bit i = OF of counter i.
uint32_t overflow_bits(const Hart& h);

// The events engines must count in privilege `priv` (bit e for Event e).
uint32_t active_events(const Hart& h, unsigned priv);
// The events of instruction i retiring (bit e for Event e), `taken` for branches: all but cycles and
// instructions (instret's), the branch miss (predict_branch's) and those of slow paths (count's).
uint32_t retired_events(const Insn& i, bool taken);
// Counts the events of the instruction that just retired (interpreter): retired_events.
void count_retired(Hart& h, const Insn& i, bool taken);
// A conditional branch at pc retired: runs the predictor, counts a miss if branch misses are counted,
// and returns whether it mispredicted (ctrtarget.MISP). The engines run it once per branch, when
// branch misses are counted or CTR records the branch (jit/block_plan.h).
bool predict_branch(Hart& h, uint64_t pc, bool taken);
// Counts n events e now (slow paths: traps, page walks, TLB misses).
void count(Hart& h, Event e, uint64_t n = 1);
// h.priv is about to change (trap entry or return): close the current mode's share of instret.
// `retiring` is 1 for an xRET, whose own retirement counts in the mode it leaves (Smcntrpmf).
void leave_mode(Hart& h, uint64_t retiring = 0);
// Sets OF on each counter that wrapped since the last check, raising the local counter-overflow
// interrupt (LCOFI) for those whose OF was clear (Sscofpmf).
void check_overflow(Hart& h);
// The instret before which a counter could next overflow (for Hart::deadline), or UINT64_MAX.
uint64_t next_overflow(const Hart& h);

// Instructions that must retire before `n` more events e can have happened: n, or half of it for
// the page walks and TLB misses a misaligned access that crosses pages makes two of.
uint64_t min_instructions(unsigned e, uint64_t n);

// Counting for brisk record: events e (bit e of `events`; never cycles or instructions, which
// come from instret) are counted in every mode from now on, whatever the counters say. The
// guest's counters cannot tell: each reads as the change of the totals since its last write.
void set_sampled(Hart& h, uint32_t events);
// The count of event e over all modes so far (instret for cycles and instructions).
uint64_t event_total(const Hart& h, unsigned e);
// perf's names where perf has them (cycles, instructions, branches, branch-misses), else brisk's
// ("taken-branches", ...), as README's event table lists them; nullptr for kNone and beyond.
const char* event_name(unsigned e);

}  // namespace brisk::pmu
