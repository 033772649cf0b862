// The host-neutral description of a translation block (docs/architecture.md, "The block plan"):
// which guest instructions it runs, what each retires in static events, which control transfers it
// records in CTR and how it leaves. Every decision that depends on the translation key is made here,
// once, so that each backend (jit/x64 today) only emits what the plan says.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/insn.h"
#include "jit/transfer.h"

namespace brisk {
struct Hart;
}

namespace brisk::jit {

// The parts of the translation key the plan depends on.
struct PlanConfig {
  unsigned max_insns = 64;
  bool fp_off = false;          // mstatus.FS is Off: every F/D instruction raises illegal-instruction
  uint32_t count_events = 0;    // pmu::active_events (bit e: pmu::Event e)
  uint32_t record_mask = 0;     // ctr::record_mask: the transfer types CTR records
  // A trace unit's fast path observes the hart (Hart::retire_observer): block-ending instructions
  // run out of line report their retirement; with record_transfers, every branch and jump is also
  // recorded in the ring (CTR takes the types it records from there), the predictor running only
  // where CTR or the PMU needs it.
  bool report_retired = false;
  bool record_transfers = false;
  // The view of the block's first instruction (RetireObserver::view): when not 0, the block ends
  // before an instruction of another view.
  uint64_t view = 0;
  // The record mask that decides how translated code records (x64::ctr_recording): CTR's, or, for
  // record_transfers alone, one that records in the ring.
  uint32_t recording_mask() const {
    return record_transfers && !record_mask ? 1u << unsigned(TransferType::TakenBranch) : record_mask;
  }
  uint8_t ialign_mask = 1;      // Hart::ialign_mask
  bool rv32 = false;            // Hart::rv32: pcs wrap at 2^32, registers are sign-extended from bit 31
  // Sdtrig (csr/trigger.h): an execute trigger may fire in this mode, so the plan asks at which
  // instructions; a load or store trigger may, so memory accesses run their semantics, which check.
  bool exec_triggers = false;
  bool mem_triggers = false;
  // The machine's instruction classes counted (Hart::insn_event_mask) and what each instruction is
  // (EngineOptions::insn_events).
  uint8_t insn_events = 0;
  uint8_t (*classify)(const Insn&) = nullptr;
  bool counts() const { return count_events || insn_events; }
  // Branch misses count, which runs the predictor at every conditional branch.
  bool counts_misses() const;
  // Whether a translation of this key may tier up to the LLVM tier (jit/llvm/region.h): only one
  // that counts, records, reports and checks nothing, so that every recording rule holds there by
  // construction and the key (which has the instrumentation) decides.
  bool tiers_up() const {
    return !counts() && !record_mask && !report_retired && !record_transfers && !exec_triggers && !mem_triggers;
  }
};

// How one control transfer changes the CTR buffer (csr/ctr.cpp, ctr::record).
enum class CtrOp : uint8_t {
  None,  // not recorded
  Push,  // a new entry at WRPTR; WRPTR advances (CCV cleared under RASEMU)
  Pop,   // RASEMU return: WRPTR goes back, that entry's V clears
  Swap,  // RASEMU co-routine swap: logical entry 0 is rewritten in place
};

// How an instruction leaves the block, if it does.
enum class Exit : uint8_t {
  None,      // falls through to the next instruction (or, last, to a direct exit to end_pc)
  Side,      // conditional branch inside the block: taken leaves to `target`, not taken goes on
  Branch,    // conditional branch ending the block: both sides leave, to `target` and the next pc
  Direct,    // jal, or jalr whose target an auipc/lui before it fixed: leaves to `target`
  Indirect,  // jalr: leaves to a register's value
  Helper,    // runs its semantics out of line and returns to the exec loop
};

struct PlanInsn {
  Insn insn;
  uint64_t pc = 0;
  // The static events it counts when it retires, among those counted: bit e pmu::Event e, bit
  // pmu::kEventCount + k the machine's instruction class k (PlanConfig::insn_events).
  uint32_t events = 0;
  Exit exit = Exit::None;
  uint64_t target = 0;  // Side, Branch, Direct
  // Branches: a taken target breaking IALIGN raises instruction-address-misaligned instead.
  bool taken_traps = false;
  // The transfer types of its taken and not-taken side (TransferType::None when there is none), and
  // what CTR does with each.
  TransferType taken_type = TransferType::None, not_taken_type = TransferType::None;
  CtrOp record_taken = CtrOp::None, record_not_taken = CtrOp::None;
  // A conditional branch whose outcome the gshare model (pmu::Gshare) must see exactly once: branch
  // misses are counted, or CTR records one of its sides (MISP).
  bool predict = false;
  bool count_miss = false;  // and the misprediction counts as a branch miss
};

struct BlockPlan {
  uint64_t pc = 0, end_pc = 0;
  PlanConfig cfg;
  std::vector<PlanInsn> insns;  // helper calls in translated code point into this: never changed after planning
  bool count_taken = false;     // taken conditional branches count pmu::kTakenBranches
};

// Whether i must end a block (kEnd): a CSR access returns to the exec loop, which re-derives the
// translation key, except one that changes nothing a translation depends on. That is any access to
// fflags (the accrued flags are in no key), a read of frm or fcsr (libm brackets quiet comparisons
// with frflags and fsflags), a read of cycle, time or instret (the helper call syncs instret), and
// a csrrci of sstatus or mstatus clearing SIE or MIE (interrupts off).
bool ends_block(const Insn& i);

// Decodes the block at h.pc: up to cfg.max_insns instructions, within one guest page, to the first
// one that must end a block (a conditional branch does not: its taken side is a side exit), and
// before one an execute trigger fires on. Returns false, with h.trap raised, when its first
// instruction cannot be fetched or an execute trigger fires on it.
bool plan_block(Hart& h, const PlanConfig& cfg, BlockPlan& out);

}  // namespace brisk::jit
