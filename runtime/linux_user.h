// User-mode Linux: runs one riscv64 Linux program on the host kernel, as qemu-riscv64 does.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runtime/engine.h"
#include "runtime/guest_vm.h"
#include "runtime/host_clock.h"

namespace brisk {

struct UserOptions {
  std::string program;              // path of the ELF to run
  std::vector<std::string> argv;    // argv[0] included
  std::vector<std::string> envp;
  std::string sysroot;              // where PT_INTERP and absolute library paths are looked up first
  EngineOptions engine;
  bool transfer_sink = false;       // record every branch and jump in hart().transfers
};

struct UserResult {
  int exit_code = 0;       // the guest's status, or 128 + signal when a fault killed it
  uint64_t instret = 0;
  std::string engine;      // Engine::summary()
};

class LinuxUser final : public TrapHandler, public HartEnv {
 public:
  // Loads the program and builds its initial stack. Throws brisk::Error on bad input.
  explicit LinuxUser(const UserOptions& opt);
  UserResult run();
  const Hart& hart() const { return hart_; }

  // TrapHandler
  bool on_trap(Hart& h) override;
  // Nothing in user mode sets a deadline.
  bool on_budget(Hart& h) override {
    h.deadline = UINT64_MAX;
    return true;
  }
  // HartEnv: anything beyond the flat guest space faults.
  bool load(Hart& h, uint64_t va, void* out, unsigned size) override;
  bool store(Hart& h, uint64_t va, const void* in, unsigned size) override;
  void* amo(Hart& h, uint64_t va, unsigned size) override;
  bool fetch16(Hart& h, uint64_t va, uint16_t& out) override;
  bool fetch_address(Hart& h, uint64_t va, uint64_t& pa) override;
  void watch_code(uint64_t page) override;
  void unwatch_code(uint64_t page) override;

 private:
  void build_stack(const struct LoadedElf& exe, uint64_t interp_base);
  int64_t syscall(uint64_t nr, const std::array<uint64_t, 6>& a);
  // Kills the guest as the fatal signal `sig` would, printing one line that says why.
  bool die(int sig, const std::string& why);
  // "SIGSEGV", or "signal 34" for a real-time signal, which has no abbreviation.
  static std::string signal_name(int sig);

  // Guest memory access for syscall arguments: nullptr (the syscall returns -EFAULT) unless mapped.
  void* guest_ptr(uint64_t va, uint64_t len, int prot);
  bool guest_string(uint64_t va, std::string& out);
  // Applies --sysroot to an absolute guest path, and maps /proc/self/exe to the program.
  std::string host_path(const std::string& guest);
  // host_path of the guest string at va; err = -EFAULT when it cannot be read.
  std::string host_path_arg(uint64_t va, int64_t& err);
  void warn_once(uint64_t key, const std::string& what);

  UserOptions opt_;
  std::string exe_path_;  // absolute path of the program, for /proc/self/exe
  GuestVm vm_;
  HostClock clock_;
  Hart hart_;
  std::unique_ptr<Engine> engine_;
  int exit_code_ = 0;
  bool exit_requested_ = false;
  std::set<uint64_t> warned_;
  struct SigAction {
    uint64_t handler = 0, flags = 0, mask = 0;
  };
  std::array<SigAction, 65> sigactions_{};
  uint64_t sigmask_ = 0;
};

}  // namespace brisk
