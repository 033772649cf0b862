// Xssr and Xfrep, the Snitch compute cores' instructions (docs/snitch.md, "SSRs" and "FREP"), on the
// hart's SnitchCorePort. A hart with the extension but no port (`--cpu ...,xssr=on` off -M snitch)
// finds them illegal. The streams and the sequencer themselves are the machine's
// (runtime/snitch_machine.cpp): they act around the FP instructions, not in these semantics.
#include "runtime/semantics.h"

namespace brisk {

namespace {

uint32_t imm12(const Insn& i) { return (i.raw >> 20) & 0xfff; }

Status write(Hart& h, const Insn& i, uint32_t addr, uint32_t value) {
  if (!h.snitch_core || !h.snitch_core->ssr_write(addr, value)) return h.illegal(i);
  return Status::Next;
}

Status frep(Hart& h, const Insn& i, bool outer) {
  if (!h.snitch_core) return h.illegal(i);
  h.snitch_core->frep({outer, imm12(i), static_cast<uint32_t>(h.x[i.rs1]), (i.raw >> 12) & 7, (i.raw >> 8) & 0xf});
  h.request_exit();  // the machine runs the body, from the exec loop
  return Status::Next;
}

}  // namespace

Status sem_SCFGRI(Hart& h, const Insn& i) {
  if (!h.snitch_core) return h.illegal(i);
  return set_rd_answer(h, i, h.snitch_core->ssr_read(imm12(i)));
}

Status sem_SCFGR(Hart& h, const Insn& i) {
  if (!h.snitch_core) return h.illegal(i);
  return set_rd_answer(h, i, h.snitch_core->ssr_read(static_cast<uint32_t>(h.x[i.rs2]) & 0xfff));
}

Status sem_SCFGWI(Hart& h, const Insn& i) { return write(h, i, imm12(i), static_cast<uint32_t>(h.x[i.rs1])); }

Status sem_SCFGW(Hart& h, const Insn& i) {
  return write(h, i, static_cast<uint32_t>(h.x[i.rs2]) & 0xfff, static_cast<uint32_t>(h.x[i.rs1]));
}

Status sem_FREP_O(Hart& h, const Insn& i) { return frep(h, i, true); }
Status sem_FREP_I(Hart& h, const Insn& i) { return frep(h, i, false); }

}  // namespace brisk
