// System mode: the Snitch cluster machine, `brisk system -M snitch --kernel PROG.elf`
// (docs/snitch.md, "The -M snitch machine"): 9 harts in the 2024 memory map of the cluster, run
// one instruction at a time in cycle order through the timing model (devices/snitch/cluster.h),
// whose counters the peripheral block shows, or in turns of --quantum instructions while no
// counter selects a timing metric (on the interpreter, or in translated code with --engine=jit).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "devices/clint.h"
#include "devices/snitch/cluster.h"
#include "devices/snitch/ssr.h"
#include "devices/snitch_periph.h"
#include "runtime/bus.h"
#include "runtime/engine.h"
#include "runtime/interp.h"
#include "runtime/mmu.h"
#include "runtime/run_limits.h"
#include "runtime/system_image.h"
#include "runtime/virt_machine.h"

namespace brisk {

// The harts' ISA when --cpu is not given: Snitch cores are RV32IMAFD.
constexpr const char* kSnitchCpu = "rv32,c=off,sstc=off";

class SnitchMachine final : public InterruptSink, private TrapHandler {
 public:
  static constexpr unsigned kHarts = 9;  // 0-7 compute cores, 8 the DMA core
  static constexpr unsigned kDmaCore = 8;  // the one with Xdma
  static constexpr uint64_t kPeriphBase = 0x10020000;
  static constexpr uint64_t kZeroMemBase = 0x10030000;
  static constexpr uint64_t kZeroMemSize = 0x10000;
  static constexpr uint64_t kDramBase = 0x80000000;
  static constexpr uint64_t kClintBase = 0xffff0000;

  // Builds the machine and loads opt.kernel. Throws brisk::Error on bad input or options that
  // are not the machine's.
  explicit SnitchMachine(const SystemOptions& opt);
  ~SnitchMachine() override;
  SystemResult run();

  // InterruptSink: the CLINT's and the peripheral block's lines.
  void set_mip(unsigned hart, unsigned bit, bool level) override;

 private:
  class Sram;
  class ZeroMemory;
  class ClusterMemory;
  class CycleClock;
  class DmaPort;
  class CorePort;
  class PeriphWindow;

  void load_program();
  // Runs one instruction of `hart` (or takes its interrupt or exception) and tells the model.
  void step(unsigned hart);
  // Quantum mode (docs/snitch.md): no enabled counter selects a timing metric, so `hart` runs up to
  // --quantum instructions on its turn, each retired untimed.
  bool untimed() const { return opt_.quantum && !(cluster_->counters().selected() & snitch::kTimingMetrics); }
  // The instructions the next turn may run: --quantum, fewer to end exactly at --max-insns.
  uint64_t turn_length() const;
  // Returns the steps it took.
  uint64_t run_quantum(unsigned hart);
  // A quantum-mode turn in translated code: with --engine=jit, while the hart's SSRs are off and no
  // other hart holds an LR reservation. Translated code counts the retired events the counters
  // select per block (Hart::insn_events). Returns the instructions it ran.
  Engine* engine_for(unsigned hart) const { return (hart == kDmaCore ? dma_engine_ : core_engine_).get(); }
  bool translated(unsigned hart) const;
  uint64_t run_translated(unsigned hart);
  // The turn's instructions since the last count: their retired events, a cycle each
  // (Cluster::retire_block).
  void count_turn(const Hart& h);
  // TrapHandler, for translated turns: a trap is taken as step() takes it; the budget ends the turn.
  bool on_trap(Hart& h) override;
  bool on_budget(Hart&) override { return false; }
  // What the machine does after an instruction retired: a DMCPY's copy, an FREP's body, the
  // barrier, wfi.
  void after_retire(unsigned hart);
  // Translations of code in [pa, pa + size) are stale (the DMA wrote there).
  void code_written(uint64_t pa, uint64_t size);
  // Runs `in` at h.pc with the hart's SSRs around it and tells the model (retire, or sequence for
  // an FREP repeat); Status::Trap with h.trap set, the trap not taken.
  Status run_insn(unsigned hart, const Insn& in, const snitch::InsnFacts& facts, bool repeat);
  void break_reservations(unsigned hart, uint64_t addr, uint64_t size);
  // An indirect stream's next index word, if the SSR needs it: loaded and told to the model.
  // False with h.trap set on a fault.
  bool fetch_index(unsigned hart, snitch::Ssr& s);
  // The FREP that just retired: its body, issued once by the core and repeated by the sequencer.
  void run_frep(unsigned hart, const SnitchCorePort::Frep& f);
  void trap(unsigned hart);
  // snitch_facts(in) for the instruction at pc, from a cache like the interpreter's decode cache.
  const snitch::InsnFacts& facts_of(uint64_t pc, const Insn& in);
  bool wake_condition(const Hart& h) const { return (h.csr.mip_effective() & h.csr.mie) != 0; }
  // Every hart waits: moves time to the next timer interrupt, or ends a deadlock.
  void idle();
  // Serves a request in tohost (the store to it just retired).
  void poll_htif();
  void stop(int code);
  uint64_t retired() const;

  SystemOptions opt_;
  Bus bus_;
  std::unique_ptr<Sram> tcdm_;
  std::unique_ptr<ZeroMemory> zero_;
  std::unique_ptr<ClusterMemory> cluster_memory_;
  std::unique_ptr<snitch::Cluster> cluster_;
  std::unique_ptr<CycleClock> clock_;
  std::unique_ptr<DmaPort> dma_port_;
  std::vector<std::unique_ptr<CorePort>> core_ports_;  // per compute core
  std::vector<std::unique_ptr<Hart>> harts_;
  std::vector<TrapRepeats> traps_;
  RunLimiter limiter_{opt_.limits};  // after harts_: its timer signal touches them
  std::unique_ptr<SystemMemory> mem_;
  std::unique_ptr<Clint> clint_;
  std::unique_ptr<SnitchPeriph> periph_;
  std::unique_ptr<PeriphWindow> periph_window_;
  Interpreter interp_;
  // --engine=jit: one engine per ISA (the block cache is keyed by pc and mode, not by extensions).
  std::unique_ptr<Engine> core_engine_, dma_engine_;
  Hart* translating_ = nullptr;  // the hart of the translated turn under way
  uint64_t translated_turns_ = 0, interpreted_turns_ = 0;  // quantum mode's, for --stats
  uint64_t counted_ = 0;         // its instret when count_turn last counted ...
  std::array<uint64_t, Hart::kInsnEventClasses> counted_events_{};  // ... and its insn_events
  std::optional<Htif> htif_;
  uint64_t tohost_ = ~0ull;
  uint64_t next_timer_ = 0;  // the mtime from which the CLINT must be polled
  struct FactsEntry {
    uint64_t pc = ~0ull;
    uint32_t raw = 0;
    snitch::InsnFacts facts;
  };
  std::array<FactsEntry, 4096> facts_;
  bool timed_ = true;  // run_insn retires through the cycle model
  bool stopped_ = false;
  int exit_code_ = 0;
};

}  // namespace brisk
