// System mode: a machine with QEMU virt's memory map, so OpenSBI's generic platform and Linux boot on
// it unchanged. Harts run round-robin on one host thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
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
#include "runtime/host_clock.h"
#include "runtime/mmu.h"
#include "runtime/run_limits.h"

namespace brisk {

struct SystemOptions {
  std::string bios;     // firmware (ELF or flat binary at RAM start), or "none" to run the kernel in M-mode
  std::string kernel;   // ELF, or a RISC-V Linux Image, or a flat binary
  std::string initrd;
  std::string append;
  std::string dumpdtb;  // write the device tree here and exit
  uint64_t ram_size = 512ull << 20;
  unsigned harts = 1;
  std::string cpu = "rv64";
  EngineOptions engine;
  RunLimits limits;     // --timeout, --max-insns
  ctr::Options ctr;     // --ctr, --ctr-depth, --ctr-dump
  profile::Recorder* recorder = nullptr;  // --record (ctr must hold its CTR options)
  std::string vmlinux;  // --vmlinux: the kernel's ELF with symbols, for the recording's MMAP2
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
  void poll_devices(uint64_t now);
  void update_stimer(Hart& h, uint64_t now);
  bool wake_condition(const Hart& h) const;
  void stop(int code);
  void idle();
  bool poll_htif();
  uint64_t retired() const;  // by all harts
  void dump_ctr(const char* when);
  // --record: the COMM and kernel MMAP2 records, and who each sample belongs to.
  void start_recording();

  SystemOptions opt_;
  HostClock clock_;
  Bus bus_;
  std::vector<std::unique_ptr<Hart>> harts_;
  RunLimiter limiter_{opt_.limits};  // after harts_: its timer signal touches them
  std::unique_ptr<SystemMemory> mem_;
  std::unique_ptr<Uart16550> uart_;
  std::unique_ptr<Clint> clint_;
  std::unique_ptr<Plic> plic_;
  std::unique_ptr<SifiveTest> test_;
  std::unique_ptr<Device> mrom_;  // fw_dynamic_info for OpenSBI, where QEMU keeps it
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<ctr::Dump> ctr_dump_;  // --ctr-dump
  std::set<uint32_t> address_spaces_;    // --record: the pids COMM records named
  std::vector<uint8_t> fdt_;
  uint64_t fdt_addr_ = 0;
  std::optional<uint64_t> tohost_;  // HTIF, when a bare-metal ELF defines tohost
  bool stopped_ = false;
  int exit_code_ = 0;
  uint64_t last_poll_ = 0;
  uint64_t slice_start_ = 0;
  uint64_t trap_instret_ = ~0ull;
  unsigned trap_repeats_ = 0;
};

}  // namespace brisk
