// --engine=check: every block runs twice, first under the interpreter (the reference) and then as
// translated code, and the two architectural results must agree (DESIGN.md principle 1).
#pragma once

#include "runtime/engine.h"
#include "runtime/interp.h"
#include "runtime/jit_engine.h"

namespace brisk {

class CheckEngine final : public Engine {
 public:
  explicit CheckEngine(const EngineOptions& opt) : jit_(opt) {}
  void run(Hart& h, TrapHandler& traps) override;
  void invalidate(Hart& h, uint64_t start, uint64_t end) override { jit_.invalidate(h, start, end); }

 private:
  // Runs the block's instructions on ref, whose accesses all take the logging slow path into flat memory.
  Status interpret_block(Hart& ref, const std::vector<uint64_t>& path, uint64_t flat_limit);
  uint32_t jit_block(Hart& h);

  JitEngine jit_;
  Interpreter interp_;
  Hart ref_;  // the interpreter's copy of the hart for one block
};

}  // namespace brisk
