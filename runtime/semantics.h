// The meaning of every instruction, written once (docs/architecture.md, "Engines and tiers").
// The interpreter calls these through kSemantics; the JIT calls the same functions for everything it
// does not emit inline. A function either completes the instruction (Status::Next, or Status::Jump with
// hart.pc written), or raises an exception and leaves all architectural state untouched (Status::Trap).
// It never advances pc for Status::Next and never touches instret: the caller does both.
#pragma once

#include "jit/insn.h"
#include "runtime/hart.h"

namespace brisk {

using SemFn = Status (*)(Hart&, const Insn&);

#define OP(name, mnem, fmt, flags, ext) Status sem_##name(Hart& h, const Insn& i);
#include "jit/opcodes.def"
#undef OP

extern const SemFn kSemantics[kOpCount];

// Whether a FENCE orders earlier stores before later loads: the one ordering x86-TSO does not give
// for free (an mfence), as RVWMO's mapping onto TSO needs (the RVWMO chapter, "Code Porting and
// Mapping Guidelines"). FENCE.TSO (fm = 1000) leaves exactly that one out.
inline bool fence_orders_store_load(const Insn& i) {
  constexpr int64_t kPredW = 1 << 4, kSuccR = 1 << 1, kFmTso = 8;
  return (i.imm & kPredW) && (i.imm & kSuccR) && ((i.imm >> 8) & 0xf) != kFmTso;
}

constexpr uint64_t kCacheBlock = 64;  // Zicbom/Zicboz block size, advertised as riscv,cbo*-block-size

// Writes x[rd], keeping x0 hard-wired to zero.
inline void set_x(Hart& h, unsigned rd, uint64_t v) {
  if (rd != 0) h.x[rd] = v;
}

// rd = a custom unit's 32-bit answer (Xdma, Xssr), sign-extended to XLEN; the instruction goes on.
inline Status set_rd_answer(Hart& h, const Insn& i, uint32_t v) {
  set_x(h, i.rd, xlen_value(h, v));
  return Status::Next;
}

}  // namespace brisk
