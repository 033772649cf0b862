// The hardware performance monitor: Zicntr/Zihpm counters, Sscofpmf overflow, Smcntrpmf mode
// filters, and the events brisk counts exactly (DESIGN.md principle 3).
#pragma once

#include <cstdint>

namespace brisk {
struct Hart;
}

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
  kLoads = 0x09,           // retired loads (integer, FP, LR)
  kStores = 0x0a,          // retired stores (integer, FP, SC)
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

// mhpmeventN / mcyclecfg / minstretcfg fields (Sscofpmf, Smcntrpmf).
constexpr uint64_t EVENT_OF = 1ull << 63;
constexpr uint64_t EVENT_MINH = 1ull << 62;
constexpr uint64_t EVENT_SINH = 1ull << 61;
constexpr uint64_t EVENT_UINH = 1ull << 60;
constexpr uint64_t EVENT_VSINH = 1ull << 59;
constexpr uint64_t EVENT_VUINH = 1ull << 58;
constexpr uint64_t EVENT_SELECTOR = 0xffff;

struct State {
  // What software reads from counter i, where it is not derived from Hart::instret (see counter()).
  uint64_t value[kNumCounters] = {};
  // mcyclecfg (0), minstretcfg (2), mhpmevent3..31: as written, with OF as the hardware sets it.
  uint64_t config[kNumCounters] = {};
  uint32_t inhibit = 0;  // mcountinhibit
  // Bumped whenever what a counter counts changes: translated code that counts is keyed by it.
  uint64_t generation = 0;
};

// Reads and writes of counter i and its configuration, as the CSRs (and Smcdeleg's sireg window)
// see them. set_config keeps only the implemented fields and bumps the generation.
uint64_t counter(const Hart& h, unsigned i);
void set_counter(Hart& h, unsigned i, uint64_t v);
uint64_t config(const Hart& h, unsigned i);
void set_config(Hart& h, unsigned i, uint64_t v);
uint32_t inhibit(const Hart& h);
void set_inhibit(Hart& h, uint32_t v);
// scountovf: bit i = OF of counter i.
uint32_t overflow_bits(const Hart& h);

}  // namespace brisk::pmu
