// The reference engine: fetch, decode and execute one instruction at a time through kSemantics.
#pragma once

#include <array>

#include "runtime/engine.h"
#include "runtime/zeroed.h"

namespace brisk {

class Interpreter : public Engine {
 public:
  // The decode cache from `pool` while it has room (an engine's huge page: JitEngine's first runs).
  explicit Interpreter(ZeroedPool* pool = nullptr) : cache_(make_zeroed<std::array<Entry, 4096>>(pool)) {}
  void run(Hart& h, TrapHandler& traps) override;

  // Executes the instruction at h.pc: on completion advances pc and instret; on Status::Trap leaves
  // both, with h.trap set.
  Status step(Hart& h);
  // The instruction at h.pc, fetched and decoded (through the decode cache) for execute(); nullptr
  // after raising the fetch fault.
  const Insn* fetch(Hart& h);
  // Executes `in`, the instruction at h.pc already fetched and decoded, as step() does.
  Status execute(Hart& h, const Insn& in);

 private:
  struct Entry {
    uint64_t pc;
    Insn insn;
    // The ISA insn was decoded for: harts of one Interpreter may differ (the -M snitch DMA core).
    decltype(IsaConfig::on) on;
    unsigned xlen;  // 0 in an empty entry, which so matches no hart
  };
  // Direct-mapped by pc; an entry is used only for a hart of the same ISA and while the bytes at pc
  // still match insn.raw, which also makes self-modifying code safe without fence.i.
  ZeroedPtr<std::array<Entry, 4096>> cache_;
};

}  // namespace brisk
