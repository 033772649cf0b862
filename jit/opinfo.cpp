// The static facts of every op, generated from the single list in opcodes.def.
#include "jit/insn.h"

namespace brisk {

const OpInfo kOpInfo[kOpCount] = {
#define OP(name, mnem, fmt, flags, ext) {mnem, Fmt::fmt, static_cast<uint16_t>(flags), Ext::ext},
#include "jit/opcodes.def"
#undef OP
};

}  // namespace brisk
