// System mode: a machine with QEMU virt's memory map, so OpenSBI's generic platform and Linux boot on
// it unchanged. With -smp N each hart runs on a host thread of its own (docs/architecture.md, "Harts
// on host threads in system mode"); with --smp-threads=1 they take turns on one.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "devices/clint.h"
#include "devices/fdt.h"
#include "devices/plic.h"
#include "devices/sifive_test.h"
#include "devices/uart16550.h"
#include "runtime/recorder.h"
#include "runtime/bus.h"
#include "runtime/ctr_config.h"
#include "runtime/engine.h"
#include "runtime/ete_trace.h"
#include "runtime/exclusive.h"
#include "runtime/host_clock.h"
#include "runtime/mmu.h"
#include "runtime/run_limits.h"
#include "runtime/system_image.h"

namespace brisk {

struct SystemOptions {
  std::string bios;     // firmware (ELF or flat binary at RAM start), or "none" to run the kernel in M-mode
  std::string kernel;   // ELF, or a RISC-V Linux Image, or a flat binary
  std::string initrd;
  std::string append;
  std::string dumpdtb;  // write the device tree here and exit
  uint64_t ram_size = 512ull << 20;
  unsigned harts = 1;
  // Host threads that run the harts: 1 (round-robin, deterministic), or 0 for one per hart unless an
  // option needs one thread (single_thread_reason). Any other value must be `harts`.
  unsigned host_threads = 0;
  std::string cpu = "rv64";
  EngineOptions engine;
  RunLimits limits;     // --timeout, --max-insns
  ctr::Options ctr;     // --ctr, --ctr-depth, --ctr-dump
  profile::Recorder* recorder = nullptr;  // --record (ctr must hold its CTR options)
  std::string vmlinux;  // --vmlinux: the kernel's ELF with symbols, for the recording's MMAP2
  TraceOptions trace;   // --trace, --trace-config, --trace-opts
  uint64_t quantum = 0;  // --quantum (-M snitch): instructions per turn while no timing metric counts
};

struct SystemResult {
  int exit_code = 0;
  uint64_t instret = 0;
  std::string engine;  // Engine::summary()
};

class VirtMachine final : public TrapHandler, public InterruptSink {
 public:
  static constexpr uint64_t kRamBase = 0x80000000;

  // Builds the machine and loads the images. Throws brisk::Error on bad input.
  explicit VirtMachine(const SystemOptions& opt);
  ~VirtMachine() override;
  SystemResult run();

  // TrapHandler
  bool on_trap(Hart& h) override;
  bool on_budget(Hart& h) override;
  // InterruptSink
  void set_mip(unsigned hart, unsigned bit, bool level) override;

 private:
  MachineDesc describe() const;
  void load_images();
  struct LoadedImage {
    uint64_t entry = 0;
    uint64_t end = 0;  // physical end of the highest segment
  };
  // Loads the firmware or kernel ELF by physical address; a kernel's tohost symbol is HTIF's.
  LoadedImage load_elf(const std::string& path, bool kernel, uint64_t dyn_base);
  void load_flat(const std::string& path, uint64_t pa);
  // Polls the devices (at most every kPollTicks, unless `idle`: harts wait for them) and HTIF, and
  // re-evaluates stimecmp, from h's thread.
  void poll_devices(Hart& h, uint64_t now, bool idle = false);
  // How long harts waiting for an interrupt may sleep: until the next timer deadline, at most a
  // few polls' time (console input).
  uint64_t idle_ticks(const std::vector<Hart*>& harts);
  void update_stimer(Hart& h, uint64_t now);
  bool wake_condition(const Hart& h) const;
  void stop(int code);
  void idle();
  bool poll_htif();
  uint64_t retired() const;  // by all harts
  void dump_ctr(const char* when);
  // --record: the COMM and kernel MMAP2 records, and who each sample belongs to.
  void start_recording();

  // One per hart. With harts on host threads, each has its own engine (code cache) and thread.
  struct HartThread {
    std::unique_ptr<Engine> engine;
    ExclusiveGroup::Member member;
    std::mutex wake_mutex;  // a hart asleep in WFI waits on `wake` under it
    std::condition_variable wake;
    std::thread host;
    TrapRepeats traps;  // on_trap's stuck-handler detection
    bool traced = false;  // runs traced (docs/ete.md, "The engine rule")
    bool fast = false;    // and on the fast path: in silent runs of translated code
    bool can_fast = false;  // its engine reports_retired()
  };
  void run_hart(Hart& h);
  // Runs h on `engine`, or while its trace unit is enabled on the unit's interpreter or on the fast
  // path, switching when on_budget sees that change, until the slice ends or the machine stops.
  void run_engine(Hart& h, Engine& engine);
  // The engine h runs on no longer fits its trace unit.
  bool engine_changed(Hart& h);
  // TRCPRGCTLR.EN of hart's unit changed through MMIO: the hart leaves translated code right after
  // the store when it made it, else at its next block boundary.
  void trace_enable_changed(unsigned hart);
  // WFI with harts on host threads: sleeps until an interrupt is pending for h or the machine stops;
  // false when it stopped.
  bool sleep(Hart& h);
  void wake(unsigned hart);
  void invalidate_code(Hart& h, uint64_t page);
  Engine& engine_for(const Hart& h) { return threaded_ ? *per_[h.hartid]->engine : *engine_; }
  // The device lock (QEMU's BQL) when harts run on host threads; none when they take turns.
  std::unique_lock<std::mutex> device_lock() {
    return threaded_ ? std::unique_lock(device_lock_) : std::unique_lock<std::mutex>();
  }

  SystemOptions opt_;
  bool threaded_ = false;
  HostClock clock_;
  Bus bus_;
  std::vector<std::unique_ptr<Hart>> harts_;
  RunLimiter limiter_{opt_.limits};  // after harts_: its timer signal touches them
  std::unique_ptr<SystemMemory> mem_;
  std::unique_ptr<Uart16550> uart_;
  std::unique_ptr<Clint> clint_;
  std::unique_ptr<Plic> plic_;
  std::unique_ptr<SifiveTest> test_;
  TraceViews trace_views_;                         // the units' comparator configurations
  std::vector<std::unique_ptr<HartTrace>> trace_;  // one per hart: its ETE trace unit
  std::unique_ptr<Device> mrom_;  // fw_dynamic_info for OpenSBI, where QEMU keeps it
  std::unique_ptr<Engine> engine_;  // the harts' when they take turns
  std::vector<std::unique_ptr<HartThread>> per_;
  std::mutex device_lock_;
  std::mutex group_mutex_;
  std::condition_variable group_cv_;
  ExclusiveGroup group_{group_mutex_, group_cv_};
  std::exception_ptr hart_error_;  // the first a hart thread threw, rethrown by run()
  std::unique_ptr<ctr::Dump> ctr_dump_;  // --ctr-dump
  std::set<uint32_t> address_spaces_;    // --record: the pids COMM records named
  std::vector<uint8_t> fdt_;
  uint64_t fdt_addr_ = 0;
  std::optional<Htif> htif_;  // when a bare-metal ELF defines tohost
  std::atomic<bool> stopped_{false};
  int exit_code_ = 0;
  uint64_t last_poll_ = 0;  // under the device lock
  uint64_t slice_start_ = 0;
};

// Why the harts must run on one host thread, or nullptr: what --record, --ctr-dump and the lockstep
// checker observe must not change under them.
const char* single_thread_reason(const SystemOptions& opt);

}  // namespace brisk
