// Semantics of the privileged instructions.
#include "runtime/semantics.h"

namespace brisk {

// System mode (privilege levels above U) arrives with the virt machine; until then every hart runs
// in U mode, where each of these is an illegal instruction.
Status sem_SRET(Hart& h, const Insn& i) { return h.illegal(i); }
Status sem_MRET(Hart& h, const Insn& i) { return h.illegal(i); }
Status sem_WFI(Hart& h, const Insn& i) { return h.illegal(i); }
Status sem_SFENCE_VMA(Hart& h, const Insn& i) { return h.illegal(i); }

}  // namespace brisk
