#include "runtime/semantics.h"

namespace brisk {

const SemFn kSemantics[kOpCount] = {
#define OP(name, mnem, fmt, flags, ext) &sem_##name,
#include "jit/opcodes.def"
#undef OP
};

}  // namespace brisk
