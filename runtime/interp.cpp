#include "runtime/interp.h"

#include "csr/ctr.h"
#include "csr/privileged.h"
#include "runtime/host_fault.h"
#include "runtime/semantics.h"

namespace brisk {

bool fetch_insn(Hart& h, uint32_t& raw) {
  uint16_t lo, hi;
  if (!h.env->fetch16(h, h.pc, lo)) return false;
  if (insn_length(lo) == 2) {
    raw = lo;
    return true;
  }
  if (!h.env->fetch16(h, h.pc + 2, hi)) return false;
  raw = lo | uint32_t(hi) << 16;
  return true;
}

namespace {

// The bytes at pc as the decode cache last saw them: true if `raw` still matches. Flat memory is
// read directly; anything else refetches through the checked path.
bool same_bytes(Hart& h, uint32_t raw) {
  uint32_t now;
  if (h.pc < h.mem_limit) {
    uint16_t lo;
    std::memcpy(&lo, h.mem_base + h.pc, 2);
    if (insn_length(lo) == 2) return lo == raw;
    std::memcpy(&now, h.mem_base + h.pc, 4);
    return now == raw;
  }
  return fetch_insn(h, now) && now == raw;
}

// The events and the CTR record of an instruction at pc that retired, with the rules translated code
// has (jit/block_plan.h): the predictor runs once for a conditional branch when branch misses are
// counted or CTR records a branch type, and gives both the miss and MISP.
void instrument_retired(Hart& h, const Insn& in, uint64_t pc, bool taken) {
  pmu::count_retired(h, in, taken);
  const uint16_t f = in.flags();
  if (!(f & (kBranch | kJump))) return;
  const uint32_t rec = ctr::record_mask(h);
  constexpr uint32_t kBranchTypes = 1u << unsigned(TransferType::NotTakenBranch) | 1u << unsigned(TransferType::TakenBranch);
  const bool count_miss = (pmu::active_events(h, static_cast<unsigned>(h.priv)) >> pmu::kBranchMisses) & 1;
  bool misp = false;
  if ((f & kBranch) && (count_miss || (rec & kBranchTypes))) misp = pmu::predict_branch(h, pc, taken);
  const TransferType t = classify_transfer(in, taken);
  if ((rec >> unsigned(t)) & 1) ctr::record(h, pc, h.pc, t, misp);
}

}  // namespace

const Insn* Interpreter::fetch(Hart& h) {
  Entry& e = (*cache_)[(h.pc >> 1) & (cache_->size() - 1)];
  const IsaConfig& isa = h.csr.isa;
  if (e.pc != h.pc || e.on != isa.on || e.xlen != isa.xlen || !same_bytes(h, e.insn.raw)) {
    uint32_t raw;
    if (!fetch_insn(h, raw)) {
      trigger::fire_execute(h, 0);  // an execute trigger of any size takes priority over the fault
      return nullptr;
    }
    e.pc = h.pc;
    e.insn = decode(raw, isa);
    e.on = isa.on;
    e.xlen = isa.xlen;
  }
  return &e.insn;
}

Status Interpreter::step(Hart& h) {
  GuestCode guest;
  const Insn* in = fetch(h);
  return in ? execute(h, *in) : Status::Trap;
}

Status Interpreter::execute(Hart& h, const Insn& in) {
  const uint64_t pc = h.pc, before = h.instret;
  if (h.csr.triggers.exec && trigger::fire_execute(h, in.len)) [[unlikely]]
    return Status::Trap;  // before the instruction, and before any exception it raises
  if ((in.flags() & kFp) && (h.csr.mstatus & csr::MSTATUS_FS) == 0) [[unlikely]]
    return h.illegal(in);  // F/D instructions trap while mstatus.FS is Off
  Status st = kSemantics[static_cast<unsigned>(in.op)](h, in);
  switch (st) {
    case Status::Next:
      h.pc = xlen_addr(h, h.pc + in.len);
      h.instret++;
      break;
    case Status::Jump:
      h.instret++;
      break;
    case Status::Trap:
    case Status::Exit:
      return st;
  }
  if (h.csr.pmu.active[static_cast<unsigned>(h.priv)] || h.csr.ctr.active) [[unlikely]]
    instrument_retired(h, in, pc, st == Status::Jump);
  if (h.retire_observer) [[unlikely]]
    h.retire_observer->retired(h, in, pc, st == Status::Jump, before);
  return st;
}

void Interpreter::run(Hart& h, TrapHandler& traps) {
  HostFaultScope scope(h);
  // A host fault on guest memory lands here with h.trap set and pc at the faulting instruction.
  if (sigsetjmp(scope.resume, 0) && !traps.on_trap(h)) return;
  for (;;) {
    if (h.deadline_reached() && !traps.on_budget(h)) return;
    Status st = step(h);
    if (st == Status::Trap && !traps.on_trap(h)) return;
    if (st == Status::Exit) return;
  }
}

}  // namespace brisk
