// Trap entry and return, and interrupt selection (privileged spec, "Machine-Level ISA" and
// "Supervisor-Level ISA").
#include "csr/csr.h"
#include "csr/privileged.h"
#include "runtime/hart.h"

namespace brisk::csr {

namespace {

// Priority order for simultaneous interrupts: the platform's (Snitch's cluster-local one) above the
// standard ones, as AIA's default order puts 16-23, then MEI, MSI, MTI, SEI, SSI, STI, LCOFI.
constexpr unsigned kPriority[] = {IRQ_M_CLUSTER, IRQ_M_EXT, IRQ_M_SOFT, IRQ_M_TIMER, IRQ_S_EXT, IRQ_S_SOFT, IRQ_S_TIMER, IRQ_LCOF};

uint64_t set_field(uint64_t reg, uint64_t mask, uint64_t value) {
  return (reg & ~mask) | ((value * (mask & -mask)) & mask);
}

}  // namespace

int pending_interrupt(const Hart& h) {
  const State& c = h.csr;
  uint64_t pending = c.mip_effective() & c.mie;
  if (!pending) return -1;
  // M-level interrupts are enabled below M, or in M with MIE; delegated ones below S, or in S with SIE.
  const bool m_on = h.priv != Priv::M || (c.mstatus & MSTATUS_MIE);
  const bool s_on = h.priv == Priv::U || (h.priv == Priv::S && (c.mstatus & MSTATUS_SIE));
  // Interrupts to M-mode come before any to S-mode; within each, the fixed order.
  for (uint64_t enabled : {m_on ? pending & ~c.mideleg : 0, s_on ? pending & c.mideleg : 0})
    for (unsigned irq : kPriority)
      if (enabled & (1ull << irq)) return static_cast<int>(irq);
  return -1;
}

void take_trap(Hart& h, int irq) {
  State& c = h.csr;
  const bool interrupt = irq >= 0;
  const uint64_t code = interrupt ? static_cast<uint64_t>(irq) : h.trap.cause;
  const uint64_t tval = interrupt ? 0 : h.trap.tval;
  const uint64_t deleg = interrupt ? c.mideleg : c.medeleg;
  const uint64_t mcause = code | (interrupt ? cause::kInterruptBit : 0);
  // xcause is XLEN bits wide: RV32's Interrupt bit is bit 31.
  const uint64_t xcause = h.rv32 && interrupt ? code | cause::kInterruptBit32 : mcause;
  const unsigned from = static_cast<unsigned>(h.priv);
  const uint64_t epc = h.pc;
  h.reservation = ~0ull;
  pmu::count(h, interrupt ? pmu::kInterrupts : pmu::kExceptions);
  pmu::leave_mode(h);
  h.request_exit();  // the mode changes what counts and what is translated
  if (h.priv != Priv::M && ((deleg >> code) & 1)) {
    c.scause = xcause;
    c.sepc = h.pc;
    c.stval = tval;
    uint64_t s = c.mstatus;
    s = set_field(s, MSTATUS_SPIE, (s & MSTATUS_SIE) ? 1 : 0);
    s = set_field(s, MSTATUS_SPP, h.priv == Priv::U ? 0 : 1);
    c.mstatus = s & ~MSTATUS_SIE;
    h.priv = Priv::S;
    h.pc = (c.stvec & ~TVEC_MODE) + ((interrupt && (c.stvec & TVEC_MODE) == TVEC_VECTORED) ? 4 * code : 0);
  } else {
    c.mcause = xcause;
    c.mepc = h.pc;
    c.mtval = tval;
    uint64_t s = c.mstatus;
    s = set_field(s, MSTATUS_MPIE, (s & MSTATUS_MIE) ? 1 : 0);
    s = set_field(s, MSTATUS_MPP, static_cast<uint64_t>(h.priv));
    c.mstatus = s & ~MSTATUS_MIE;
    h.priv = Priv::M;
    h.pc = (c.mtvec & ~TVEC_MODE) + ((interrupt && (c.mtvec & TVEC_MODE) == TVEC_VECTORED) ? 4 * code : 0);
  }
  ctr::on_trap(h, from, false, static_cast<unsigned>(h.priv), false, mcause, epc, h.pc);
}

Status mret(Hart& h, const Insn& i) {
  if (h.priv != Priv::M) return h.illegal(i);
  State& c = h.csr;
  const Priv to = static_cast<Priv>((c.mstatus & MSTATUS_MPP) >> MSTATUS_MPP_SHIFT);
  uint64_t s = c.mstatus;
  s = set_field(s, MSTATUS_MIE, (s & MSTATUS_MPIE) ? 1 : 0);
  s |= MSTATUS_MPIE;
  s &= ~MSTATUS_MPP;  // least-privileged mode: U
  if (to != Priv::M) s &= ~MSTATUS_MPRV;
  c.mstatus = s;
  pmu::leave_mode(h, 1);
  const unsigned from = static_cast<unsigned>(h.priv);
  const uint64_t source = h.pc;
  h.priv = to;
  h.pc = c.mepc & ~uint64_t(h.ialign_mask == 3 ? 2 : 0);
  ctr::on_trap_return(h, from, false, static_cast<unsigned>(to), false, source, h.pc);
  h.reservation = ~0ull;
  h.request_exit();  // interrupts may have become enabled
  return Status::Jump;
}

Status sret(Hart& h, const Insn& i) {
  if (h.priv == Priv::U || (h.priv == Priv::S && (h.csr.mstatus & MSTATUS_TSR))) return h.illegal(i);
  State& c = h.csr;
  const Priv to = (c.mstatus & MSTATUS_SPP) ? Priv::S : Priv::U;
  uint64_t s = c.mstatus;
  s = set_field(s, MSTATUS_SIE, (s & MSTATUS_SPIE) ? 1 : 0);
  s |= MSTATUS_SPIE;
  s &= ~MSTATUS_SPP;
  s &= ~MSTATUS_MPRV;  // returning to a mode below M clears MPRV
  c.mstatus = s;
  pmu::leave_mode(h, 1);
  const unsigned from = static_cast<unsigned>(h.priv);
  const uint64_t source = h.pc;
  h.priv = to;
  h.pc = c.sepc & ~uint64_t(h.ialign_mask == 3 ? 2 : 0);
  ctr::on_trap_return(h, from, false, static_cast<unsigned>(to), false, source, h.pc);
  h.reservation = ~0ull;
  h.request_exit();
  return Status::Jump;
}

unsigned effective_data_priv(const Hart& h) {
  if (h.priv == Priv::M && (h.csr.mstatus & MSTATUS_MPRV))
    return static_cast<unsigned>((h.csr.mstatus & MSTATUS_MPP) >> MSTATUS_MPP_SHIFT);
  return static_cast<unsigned>(h.priv);
}

}  // namespace brisk::csr
