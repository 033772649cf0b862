// The hart side of the virt machine's ETE trace units (docs/ete.md, "The hook"): what a hart feeds
// its unit, and the command line's trace options. Devices know nothing of harts or the JIT, and the
// JIT nothing of trace: while a hart's unit is enabled the hart's engines report what it retires to
// its HartTrace (Hart::retire_observer), either one by one on an Interpreter, or, on the fast path,
// in silent runs of translated code whose branches come through the CTR ring (docs/ete.md, "The
// engine rule"); the machine reports the traps it takes through it.
#pragma once

#include <atomic>
#include <thread>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "csr/trigger.h"
#include "devices/ete.h"
#include "devices/ete_config.h"
#include "devices/ete_packets.h"
#include "runtime/hart.h"
#include "runtime/interp.h"

namespace brisk {

// --trace, --trace-config and --trace-opts.
struct TraceOptions {
  std::string dir;                         // the OpenCSD snapshot directory written at exit; empty: none
  std::vector<ete::RegisterWrite> config;  // programmed into every unit before the guest starts
  bool program = false;                    // --trace-config was given
};

// Checks and reads the options (`config`: a register file or autofdo[:WINDOW,PERIOD]; `opts`:
// cycles and timestamps, comma-separated), creating `dir` so that a bad one fails before the guest
// runs. Throws brisk::Error with one line naming the option.
TraceOptions trace_options(const std::string& dir, const std::string& config, const std::string& opts);

ete::El exception_level(Priv p);

// The comparator configurations (ete::AddressClasses) the machine's trace units decide by the pc
// under, interned: a configuration's number is in the views of the blocks translated under it
// (HartTrace::view), so that two configurations never share a translation. A guest can reprogram
// its unit forever, so the table holds kSize of them: the next new one empties it and starts a new
// epoch, whose numbers mean other configurations. Translations with views are for one epoch
// (RetireObserver::view_epoch, JitEngine::block_for), and an engine that sees another flushes its
// code cache. Shared by the machine's units, under their lock.
class TraceViews {
 public:
  static constexpr unsigned kSize = 16;
  // The number of `c` in the current epoch, from 1; may start a new epoch.
  uint64_t intern(const ete::AddressClasses& c);
  uint64_t epoch() const { return epoch_; }

 private:
  std::vector<ete::AddressClasses> table_;  // number n is table_[n - 1]
  uint64_t epoch_ = 1;
};

// One hart's trace unit as the machine wires it. The bus maps the unit through it, so that it sees
// TRCPRGCTLR.EN change; the hart's Interpreter reports retired instructions to it, the machine the
// traps, and Sdtrig its matches. MMIO comes from any hart under the device lock, observations from
// the hart's own thread: with harts on host threads both hold `lock` while they touch the unit.
class HartTrace final : public Device, public RetireObserver {
 public:
  // `enable_changed`: TRCPRGCTLR.EN changed through MMIO (called under the device lock); `views`:
  // the machine's, shared with the other harts' units under `lock`.
  HartTrace(Hart& h, const ete::Sizes& sizes, const Clock& clock, bool stream, std::mutex* lock,
            TraceViews& views, std::function<void()> enable_changed);

  // Device: the unit's window.
  const char* name() const override { return "ete"; }
  bool read(uint64_t offset, unsigned size, uint64_t& value) override { return unit_.read(offset, size, value); }
  bool write(uint64_t offset, unsigned size, uint64_t value) override;

  // TRCPRGCTLR.EN as last seen under the lock: while it is set, the hart runs traced.
  bool enabled() const { return enabled_.load(std::memory_order_acquire); }
  // Programs the unit from the host before the guest starts (--trace-config).
  void program(const std::vector<ete::RegisterWrite>& writes);
  // The fast path may run the hart: the unit's configuration decides by the pc alone
  // (EteUnit::steps_by_pc) and CTR does not emulate a return-address stack, so that translated code
  // records every transfer in the ring, for the unit and for CTR (those of the types it records).
  bool fast_path();
  // The hart starts running traced, on interpreter() or on the fast path (an engine that
  // reports_retired()): the unit learns its exception level and context, which it did not observe
  // while disabled, and the hart reports to this. end(): it stops, having reported everything.
  void begin();
  void end();
  Interpreter& interpreter() { return interp_; }
  // The fast path's next silent run (docs/ete.md, "The engine rule"): the unit sees what the last
  // one retired, and this returns how many instructions (at most `limit`) translated code may now
  // retire, or 0 when the next one must be stepped on interpreter(), exactly.
  uint64_t silent_run(uint64_t limit);
  // RetireObserver
  void retired(Hart& h, const Insn& in, uint64_t pc, bool jumped, uint64_t before) override;
  void catch_up(Hart& h) override;
  // A configuration that is not alike but decides by the pc (EteUnit::steps_by_pc): the address
  // class of pc, under the comparators' number in TraceViews, so that translations made under
  // other comparators are not run (docs/ete.md, "The engine rule"); else 0.
  uint64_t view(uint64_t pc) const override { return classes_at_ ? view_base_ | classes_at_->at(pc) : 0; }
  uint64_t view_epoch() const override { return view_epoch_; }
  // A trap was taken: `cause` and `interrupt` as mcause has them, `epc` the interrupted pc.
  void trap_taken(uint64_t cause, bool interrupt, uint64_t epc);
  // The unit's registers and stream, once the harts have stopped (--trace); a unit still enabled
  // ends its stream as if it stopped here.
  ete::SnapshotSource snapshot();

 private:
  std::unique_lock<std::mutex> lock() { return lock_ ? std::unique_lock(*lock_) : std::unique_lock<std::mutex>(); }
  // With the lock held: reports a change of exception level or context ID since the last one;
  // returns whether there was one.
  bool context_if_changed();
  // With the lock held, in a silent run: the unit sees the instructions retired before instret
  // `upto`, the branches among them from the ring.
  void catch_up_to(uint64_t upto);
  static void on_match(void* self, const Hart& h, const trigger::Match& m);

  Hart& h_;
  ete::PacketEncoder encoder_;
  EteUnit unit_;
  std::mutex* lock_;
  std::function<void()> enable_changed_;
  std::atomic<bool> enabled_{false};
  Interpreter interp_;
  // The fast path: translated code is in a silent run; the unit has seen the instructions before
  // instret `seen_`; the instructions of the run are like `like_` to the resources (its first pc);
  // the hart runs on thread `runner_`.
  bool silent_ = false;
  uint64_t seen_ = 0;
  uint32_t ctr_mask_ = 0;  // ctr::record_mask as the run started: the types of its records CTR takes
  ete::Retired like_;
  std::thread::id runner_;
  // The unit's address classes as the last silent run saw them, with their number in views_ above
  // bit 24 and its epoch, while the configuration is one view() decides for (the hart's thread
  // reads them without the lock).
  TraceViews& views_;
  ete::AddressClasses classes_;
  const ete::AddressClasses* classes_at_ = nullptr;
  uint64_t view_base_ = 0, view_epoch_ = 0;
  uint8_t matches_ = 0;  // Sdtrig triggers that matched since the last retired instruction
  ete::El el_ = ete::El::EL3;
  uint32_t context_id_ = 0;
};

}  // namespace brisk
