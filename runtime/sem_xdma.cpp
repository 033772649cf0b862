// Xdma, the Snitch DMA core's instructions (docs/snitch.md, "DMA"), on the hart's XdmaPort. A hart
// with Ext::Xdma but no port (`--cpu ...,xdma=on` off -M snitch) finds them illegal.
#include "runtime/semantics.h"

namespace brisk {

namespace {

// DMSRC and DMDST: rs1 holds the address's low XLEN bits, rs2 (on RV32) the bits from 32 up.
uint64_t dma_address(const Hart& h, const Insn& i) {
  const uint64_t lo = xlen_addr(h, h.x[i.rs1]);
  return h.rv32 ? lo | xlen_addr(h, h.x[i.rs2]) << 32 : lo;
}

}  // namespace

Status sem_DMSRC(Hart& h, const Insn& i) {
  if (!h.xdma) return h.illegal(i);
  h.xdma->set_source(dma_address(h, i));
  return Status::Next;
}

Status sem_DMDST(Hart& h, const Insn& i) {
  if (!h.xdma) return h.illegal(i);
  h.xdma->set_destination(dma_address(h, i));
  return Status::Next;
}

// Strides are XLEN-bit values as the registers hold them: negative ones walk down.
Status sem_DMSTR(Hart& h, const Insn& i) {
  if (!h.xdma) return h.illegal(i);
  h.xdma->set_strides(h.x[i.rs1], h.x[i.rs2]);
  return Status::Next;
}

Status sem_DMREP(Hart& h, const Insn& i) {
  if (!h.xdma) return h.illegal(i);
  h.xdma->set_repetitions(static_cast<uint32_t>(h.x[i.rs1]));
  return Status::Next;
}

// The machine queues the copy after the DMCPY retires: the exec loop returns to it there.
Status sem_DMCPYI(Hart& h, const Insn& i) {
  if (!h.xdma) return h.illegal(i);
  h.request_exit();
  return set_rd_answer(h, i, h.xdma->copy(static_cast<uint32_t>(h.x[i.rs1]), i.rs2));
}

Status sem_DMCPY(Hart& h, const Insn& i) {
  if (!h.xdma) return h.illegal(i);
  h.request_exit();
  return set_rd_answer(h, i, h.xdma->copy(static_cast<uint32_t>(h.x[i.rs1]), static_cast<uint32_t>(h.x[i.rs2])));
}

Status sem_DMSTATI(Hart& h, const Insn& i) {
  if (!h.xdma) return h.illegal(i);
  return set_rd_answer(h, i, h.xdma->status(i.rs2));
}

Status sem_DMSTAT(Hart& h, const Insn& i) {
  if (!h.xdma) return h.illegal(i);
  return set_rd_answer(h, i, h.xdma->status(static_cast<uint32_t>(h.x[i.rs2])));
}

}  // namespace brisk
