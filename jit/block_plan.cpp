#include "jit/block_plan.h"

#include "csr/csr_numbers.h"
#include "csr/ctr.h"
#include "csr/privileged.h"
#include "csr/pmu.h"
#include "csr/trigger.h"
#include "runtime/exec.h"
#include "runtime/hart.h"

namespace brisk::jit {

namespace {

// A block never crosses a guest page, so code-page invalidation stays per page.
constexpr uint64_t kPage = 4096;

// The static events of i among those counted (count_events): what it adds when it retires.
uint32_t static_events(const Insn& i, uint32_t count_events) {
  if (!count_events) return 0;
  const uint16_t f = i.flags();
  uint32_t ev = 0;
  auto add = [&](unsigned e, bool yes) {
    if (yes) ev |= 1u << e;
  };
  add(pmu::kLoads, f & kLoad);
  add(pmu::kStores, f & kStore);
  add(pmu::kAtomics, f & kAmo);
  add(pmu::kFpOps, f & kFpArith);
  add(pmu::kBranches, f & kBranch);
  add(pmu::kJumps, f & kJump);
  if (f & kJump) {
    const TransferType t = classify_transfer(i, true);
    add(pmu::kCalls, t == TransferType::DirectCall || t == TransferType::IndirectCall);
    add(pmu::kReturns, t == TransferType::Return);
  }
  return ev & count_events;
}

// What ctr::record does with a transfer of type t under record_mask m.
CtrOp ctr_op(TransferType t, uint32_t m) {
  if (t == TransferType::None || !((m >> unsigned(t)) & 1)) return CtrOp::None;
  if (m & ctr::kRasEmu) {
    if (t == TransferType::Return) return CtrOp::Pop;
    if (t == TransferType::CoroutineSwap) return CtrOp::Swap;
  }
  return CtrOp::Push;
}

// A trace unit's fast path sees every branch and jump in the ring (PlanConfig::record_transfers).
void record_for_trace(PlanInsn& p, const PlanConfig& cfg) {
  if (!cfg.record_transfers) return;
  if (p.taken_type != TransferType::None) p.record_taken = CtrOp::Push;
  if (p.not_taken_type != TransferType::None) p.record_not_taken = CtrOp::Push;
}

// The transfers, prediction and exit of p.insn, the last of the block when `last`; `known` is the
// value an auipc or lui just before it left in register known_reg (known_reg 0: none).
void plan_insn(PlanInsn& p, const PlanConfig& cfg, bool last, unsigned known_reg, uint64_t known) {
  const Insn& i = p.insn;
  auto guest_pc = [&](uint64_t pc) { return cfg.rv32 ? static_cast<uint32_t>(pc) : pc; };
  const uint16_t f = i.flags();
  p.events = static_events(i, cfg.count_events);
  if (cfg.insn_events) p.events |= uint32_t(cfg.classify(i) & cfg.insn_events) << pmu::kEventCount;
  if (f & kBranch) {
    p.exit = last ? Exit::Branch : Exit::Side;
    p.target = guest_pc(p.pc + i.imm);
    p.taken_traps = p.target & cfg.ialign_mask;
    p.not_taken_type = TransferType::NotTakenBranch;
    p.record_not_taken = ctr_op(p.not_taken_type, cfg.record_mask);
    if (!p.taken_traps) {
      p.taken_type = TransferType::TakenBranch;
      p.record_taken = ctr_op(p.taken_type, cfg.record_mask);
    }
    p.count_miss = cfg.counts_misses();
    p.predict = p.count_miss || p.record_taken != CtrOp::None || p.record_not_taken != CtrOp::None;
    record_for_trace(p, cfg);
    return;
  }
  if (!last || !ends_block(i)) return;
  p.exit = Exit::Helper;
  if (i.op == Op::JAL) {
    p.target = guest_pc(p.pc + i.imm);
    if (p.target & cfg.ialign_mask) return;  // raises instruction-address-misaligned
    p.exit = Exit::Direct;
  } else if (i.op == Op::JALR) {
    p.exit = Exit::Indirect;
    // auipc/lui + jalr through the same register (a far call or tail call): the exit can be chained.
    if (known_reg && known_reg == i.rs1) {
      const uint64_t target = guest_pc((known + i.imm) & ~uint64_t(1));
      if (!(target & cfg.ialign_mask)) {
        p.exit = Exit::Direct;
        p.target = target;
      }
    }
  } else {
    return;
  }
  p.taken_type = classify_transfer(i, true);
  p.record_taken = ctr_op(p.taken_type, cfg.record_mask);
  record_for_trace(p, cfg);
}

}  // namespace

bool PlanConfig::counts_misses() const { return (count_events >> pmu::kBranchMisses) & 1; }

bool ends_block(const Insn& i) {
  const uint16_t f = i.flags();
  if (!(f & kCsr)) return f & kEnd;
  const uint16_t csr = static_cast<uint16_t>(i.imm & 0xfff);
  const bool read_only = (i.op == Op::CSRRS || i.op == Op::CSRRC || i.op == Op::CSRRSI || i.op == Op::CSRRCI) &&
                         i.rs1 == 0;
  if (csr == csr::CSR_FFLAGS) return false;
  if (read_only && (csr == csr::CSR_FRM || csr == csr::CSR_FCSR || csr == csr::CSR_CYCLE || csr == csr::CSR_TIME ||
                    csr == csr::CSR_INSTRET))
    return false;
  // Clearing SIE or MIE (Linux's local_irq_save, csrrci sstatus, 2) lets no interrupt in, and of
  // the key it can only turn Sdtrig triggers off (csr/trigger.cpp, enabled_in_mode), which a block
  // planned with them on checks again at run time. The uimm is in rs1.
  const bool irq_off = i.op == Op::CSRRCI && (csr == csr::CSR_SSTATUS || csr == csr::CSR_MSTATUS) &&
                       !(i.rs1 & ~(csr::MSTATUS_SIE | csr::MSTATUS_MIE));
  return !irq_off;
}

bool plan_block(Hart& h, const PlanConfig& cfg, BlockPlan& out) {
  out.insns.clear();  // keeps its capacity for a caller that plans into one scratch plan
  out.pc = h.pc;
  out.cfg = cfg;
  out.count_taken = (cfg.count_events >> pmu::kTakenBranches) & 1;
  uint64_t pc = h.pc;
  const uint64_t page_end = (h.pc & ~(kPage - 1)) + kPage;
  while (out.insns.size() < cfg.max_insns && pc < page_end) {
    uint32_t raw;
    const uint64_t saved = h.pc;
    h.pc = pc;
    const bool ok = fetch_insn(h, raw);
    h.pc = saved;
    if (!ok) {
      if (out.insns.empty()) {  // the exec loop raises the fetch fault, or a trigger's breakpoint
        if (cfg.exec_triggers) trigger::fire_execute(h, 0);
        return false;
      }
      break;  // the next block will
    }
    Insn i = decode(raw, h.csr.isa);
    if (cfg.fp_off && (i.flags() & kFp)) i = i.as_illegal();  // mstatus.FS = Off: illegal-instruction
    // An instruction straddling the page end belongs to the next block, unless it is the first.
    if (pc + i.len > page_end && !out.insns.empty()) break;
    // An instruction an execute trigger fires on never runs in a block: the block before it ends
    // there, and the one it would start raises the breakpoint as the exec loop asks for it.
    if (cfg.exec_triggers && trigger::fires_on_execute(h, pc, i.len)) {
      if (out.insns.empty()) {
        trigger::fire_execute(h, i.len);
        return false;
      }
      break;
    }
    if (cfg.view && h.retire_observer->view(pc) != cfg.view) break;  // another block's, of its own view
    out.insns.push_back({.insn = i, .pc = pc});
    pc += i.len;
    // Conditional branches do not end a block: their taken side is a side exit.
    if (ends_block(i) && !(i.flags() & kBranch)) break;
  }
  out.end_pc = cfg.rv32 ? static_cast<uint32_t>(pc) : pc;
  unsigned known_reg = 0;
  uint64_t known = 0;
  for (size_t k = 0; k < out.insns.size(); k++) {
    PlanInsn& p = out.insns[k];
    plan_insn(p, cfg, k + 1 == out.insns.size(), known_reg, known);
    const Insn& i = p.insn;
    known_reg = (i.op == Op::AUIPC || i.op == Op::LUI) ? i.rd : 0;
    known = i.op == Op::AUIPC ? p.pc + i.imm : static_cast<uint64_t>(i.imm);
  }
  return true;
}

}  // namespace brisk::jit
