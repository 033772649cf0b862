// An execution engine runs a hart until its trap handler stops it.
#pragma once

#include <memory>
#include <string>

#include "runtime/exec.h"

namespace brisk {

struct Insn;

struct Engine {
  virtual ~Engine() = default;
  virtual void run(Hart& h, TrapHandler& traps) = 0;
  // Guest memory in [start, end) is about to change under the engine (unmapped, remapped, written by
  // the host): forget anything derived from it.
  virtual void invalidate(Hart& h, uint64_t start, uint64_t end) {}
  // Address translation changed for the page at va (or everywhere, HartEnv::kFlushAll): forget the
  // pc -> code mappings the engine caches for h there.
  virtual void flush_lookup(Hart& h, uint64_t va) {}
  // In the child of a host fork: what names the parent process (the perf map) becomes the child's.
  virtual void after_fork() {}
  // One line about the engine's own work, for --stats (empty: nothing to say).
  virtual std::string summary() const { return {}; }
  // It honours Hart::retire_observer and Hart::record_transfers with translated code (a trace
  // unit's fast path, runtime/ete_trace.h).
  virtual bool reports_retired() const { return false; }
};

struct EngineOptions {
  std::string name = "jit";  // jit (the default), interp (the reference), check (both in lockstep)
  unsigned jit_regs = 10;    // guest registers kept in host registers by the JIT (0..10)
  bool jit_regs_fixed = false;  // keep x64::kMappedGuestOrder's registers all run (JitEngine::adapt)
  bool perf_map = false;     // describe translated blocks in /tmp/perf-PID.map for host `perf`
  unsigned tb_size_mib = 256;  // each JIT engine's code cache; flushed whole when full
  bool deadlines = false;    // honour Hart::deadline in translated code (system mode: interrupts, events)
  // Other harts on host threads store to guest memory while this engine translates (system mode's
  // -smp N; user mode always counts as such).
  bool concurrent_harts = false;
  // The machine's instruction classes (bit k: Hart::insn_events[k]), which the JIT counts per block
  // while Hart::insn_event_mask selects them; nullptr: none.
  uint8_t (*insn_events)(const Insn&) = nullptr;
  // The LLVM tier (jit/llvm/region.h, user mode only): blocks entered tier2_threshold times (0: at
  // once) are compiled in the background and entered through their region from then on.
  bool tier2 = false;
  uint32_t tier2_threshold = 1000;
  // Runs of a block the JIT leaves to the interpreter before translating it (0: translates it at its
  // first run): a block that runs once, as much of a boot does, costs its interpretation, not a
  // translation 20 times that (docs/architecture.md, "Engines and tiers").
  uint32_t jit_threshold = 1;
};

// Throws brisk::Error for an unknown engine.
std::unique_ptr<Engine> make_engine(const EngineOptions& opt);

}  // namespace brisk
