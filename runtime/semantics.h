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

// Writes x[rd], keeping x0 hard-wired to zero.
inline void set_x(Hart& h, unsigned rd, uint64_t v) {
  if (rd != 0) h.x[rd] = v;
}

}  // namespace brisk
