// --engine=check: everything runs twice, first under the interpreter (the reference) and then as
// translated code, and the two architectural results must agree (docs/architecture.md, "Engines and tiers").
//
// One check covers a chain: the blocks translated code runs in one trip, through linked exits and
// the indirect-jump lookup table. The interpreter follows the same blocks first, its memory writes
// logged and then undone, and remembers its state at each block boundary; the translated code then
// runs from the same state with Hart::deadline set so that it stops at one of those boundaries, and
// its registers, pc, instret, CSRs (PMU event counts and predictor included), memory written and
// control-transfer records are compared with the interpreter's there. A device access cannot be
// undone: the interpreter stops before it, a shortened translation runs up to it, and then the
// interpreter alone performs it, once.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "runtime/engine.h"
#include "runtime/interp.h"
#include "runtime/jit_engine.h"

namespace brisk {

class CheckMemory;

class CheckEngine final : public Engine, public HostFaultHooks {
 public:
  explicit CheckEngine(const EngineOptions& opt);
  ~CheckEngine() override;
  void run(Hart& h, TrapHandler& traps) override;
  void invalidate(Hart& h, uint64_t start, uint64_t end) override;
  void flush_lookup(Hart& h, uint64_t va) override { jit_.flush_lookup(h, va); }
  void after_fork() override { jit_.after_fork(); }
  std::string summary() const override;

  // HostFaultHooks, for both passes: the JIT's, noting when code changed under the interpreter.
  bool on_code_write(Hart& h, uint64_t va, ucontext_t& ctx) override;
  bool recover(Hart& h, const ucontext_t& ctx) override { return jit_.recover(h, ctx); }

 private:
  // Where the interpreter's pass may stop and translated code's may end: after the block at
  // block_pc, with the interpreter's state then in the snapshot of the same index.
  struct Boundary {
    uint64_t block_pc, instret;
    Status st;      // how the block's last instruction ended (Trap: it raised an exception)
    size_t writes;  // memory writes logged by then
    bool saved;     // its snapshot is taken (else ref_ is still in that state)
  };

  // Makes ref_ a copy of h, with every access through mem_, and sets up the snapshots.
  void begin(const Hart& h);
  // Checks what translated code does from h.pc next; returns its JitExit code.
  uint32_t check(Hart& h);
  // Runs up to n instructions of block b on the reference, as the block decoded them (what
  // translated code runs, too, until the block ends): until a trap, a device access, or a taken
  // branch or jump, with which translated code leaves the block's instruction sequence.
  Status interpret(const x64::BlockCode& b, unsigned n);
  void mark(uint64_t block_pc, Status st);
  // Takes the last boundary's snapshot, before the interpreter goes on from it.
  void save();
  // Copies between ref_ and snapshot k. The first boundary's is the hart's state without the TLBs;
  // later ones hold only what a block that does not end a chain can change (see snapshot()).
  void snapshot(size_t k, bool restore);
  // Translated code from h.pc: a chain (n = 0) or a shortened block of n instructions on its own.
  uint32_t translated(Hart& h, unsigned n);
  // Compares where translated code stopped with the interpreter's boundary there.
  void verify(Hart& h, uint32_t exit);

  JitEngine jit_;
  Interpreter interp_;
  std::unique_ptr<CheckMemory> mem_;
  Hart ref_;  // the interpreter's copy of the hart
  const Hart* ref_of_ = nullptr;  // whose TLBs ref_ holds
  uint64_t flat_limit_ = 0;
  uint64_t entry_instret_ = 0;  // h.instret when the check began
  bool code_changed_ = false;  // a store of the interpreter's pass hit translated code
  std::vector<Boundary> boundaries_;
  std::vector<uint8_t> snapshots_;  // only grows: resizing it would clear it
  struct Range {
    size_t offset, size;
  };
  std::array<Range, 7> partial_{};  // what later snapshots hold, at these offsets of Hart
  unsigned partial_count_ = 0;
  size_t full_size_ = 0, partial_size_ = 0;
  struct Stats {
    uint64_t checks = 0, blocks = 0, device = 0;
  } stats_;
  // BRISK_CHECK_SELFTEST=N (tests only): corrupt a0 before the Nth comparison, to show a difference is
  // caught; =WHAT:N corrupts another piece of translated code's state instead (kInjectNames in
  // check_engine.cpp), mem at the first comparison from the Nth with a memory write to corrupt.
  uint64_t inject_at_ = 0;
  unsigned inject_what_ = 0;
  // Corrupts that piece of h; false if there is nothing to corrupt yet (no memory written).
  bool inject(Hart& h, size_t writes);
};

}  // namespace brisk
