// Semantics of the privileged instructions.
#include "csr/csr.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "runtime/semantics.h"

namespace brisk {

Status sem_MRET(Hart& h, const Insn& i) { return csr::mret(h, i); }
Status sem_SRET(Hart& h, const Insn& i) { return csr::sret(h, i); }

// WFI in U-mode, or in S-mode under mstatus.TW, is illegal (brisk's time limit for it is zero).
// Otherwise the hart stops at the next instruction until an interrupt is pending: the exec loop
// sees `waiting` at its deadline and lets the machine idle the host.
Status sem_WFI(Hart& h, const Insn& i) {
  if (h.priv == Priv::U || (h.priv == Priv::S && (h.csr.mstatus & csr::MSTATUS_TW))) return h.illegal(i);
  h.waiting = true;
  h.request_exit();
  return Status::Next;
}

// SCTRCLR (Smctr): csr/ctr.cpp.
Status sem_SCTRCLR(Hart& h, const Insn& i) { return ctr::sctrclr(h, i, csr::virtual_mode(h)); }

Status sem_SFENCE_VMA(Hart& h, const Insn& i) {
  if (h.priv == Priv::U || (h.priv == Priv::S && (h.csr.mstatus & csr::MSTATUS_TVM))) return h.illegal(i);
  h.env->flush_tlb(h, i.rs1 ? xlen_addr(h, h.x[i.rs1]) : HartEnv::kFlushAll);
  return Status::Next;
}

}  // namespace brisk
