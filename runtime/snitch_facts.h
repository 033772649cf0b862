// What the Snitch timing model needs to know of a decoded instruction (docs/snitch.md,
// "Integration"): where it executes and which registers it reads and writes. The same for every
// execution, so a translated block can keep its instructions' facts.
#pragma once

#include "jit/insn.h"
#include "devices/snitch/cluster.h"

namespace brisk {

snitch::InsnFacts snitch_facts(const Insn& insn);

}  // namespace brisk
