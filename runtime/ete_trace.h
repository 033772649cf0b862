// The hart side of the virt machine's ETE trace units (docs/ete.md, "The hook"): what a hart feeds
// its unit, and the command line's trace options. Devices know nothing of harts or the JIT, and the
// JIT nothing of trace: while a hart's unit is enabled the machine runs that hart on an Interpreter
// whose RetireObserver is the hart's HartTrace, and reports the traps it takes through it.
#pragma once

#include <atomic>
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

// One hart's trace unit as the machine wires it. The bus maps the unit through it, so that it sees
// TRCPRGCTLR.EN change; the hart's Interpreter reports retired instructions to it, the machine the
// traps, and Sdtrig its matches. MMIO comes from any hart under the device lock, observations from
// the hart's own thread: with harts on host threads both hold `lock` while they touch the unit.
class HartTrace final : public Device, public RetireObserver {
 public:
  // `enable_changed`: TRCPRGCTLR.EN changed through MMIO (called under the device lock).
  HartTrace(Hart& h, const ete::Sizes& sizes, const Clock& clock, bool stream, std::mutex* lock,
            std::function<void()> enable_changed);

  // Device: the unit's window.
  const char* name() const override { return "ete"; }
  bool read(uint64_t offset, unsigned size, uint64_t& value) override { return unit_.read(offset, size, value); }
  bool write(uint64_t offset, unsigned size, uint64_t value) override;

  // TRCPRGCTLR.EN as last seen under the lock: while it is set, the hart runs on interpreter().
  bool enabled() const { return enabled_.load(std::memory_order_acquire); }
  // Programs the unit from the host before the guest starts (--trace-config).
  void program(const std::vector<ete::RegisterWrite>& writes);
  // The hart starts running on interpreter(): the unit learns its exception level and context,
  // which it did not observe while disabled.
  void begin();
  Interpreter& interpreter() { return interp_; }
  // RetireObserver
  void retired(Hart& h, const Insn& in, uint64_t pc, bool jumped) override;
  // A trap was taken: `cause` and `interrupt` as mcause has them, `epc` the interrupted pc.
  void trap_taken(uint64_t cause, bool interrupt, uint64_t epc);
  // The unit's registers and stream, once the harts have stopped (--trace); a unit still enabled
  // ends its stream as if it stopped here.
  ete::SnapshotSource snapshot();

 private:
  std::unique_lock<std::mutex> lock() { return lock_ ? std::unique_lock(*lock_) : std::unique_lock<std::mutex>(); }
  // With the lock held: reports a change of exception level or context ID since the last one.
  void context_if_changed();
  static void on_match(void* self, const Hart& h, const trigger::Match& m);

  Hart& h_;
  ete::PacketEncoder encoder_;
  EteUnit unit_;
  std::mutex* lock_;
  std::function<void()> enable_changed_;
  std::atomic<bool> enabled_{false};
  Interpreter interp_{this};
  uint8_t matches_ = 0;  // Sdtrig triggers that matched since the last retired instruction
  ete::El el_ = ete::El::EL3;
  uint32_t context_id_ = 0;
};

}  // namespace brisk
