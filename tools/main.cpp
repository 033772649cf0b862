// brisk: a fast RISC-V emulator. One binary with subcommands, like `git`.
#include <chrono>
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/linux_user.h"

extern char** environ;

namespace {

void print_stats(uint64_t instret, std::chrono::duration<double> wall) {
  double s = wall.count();
  brisk::diag_print("brisk: {} instructions in {:.3f} s ({:.1f} MIPS)\n", instret, s,
             s > 0 ? static_cast<double>(instret) / s / 1e6 : 0.0);
}

int cmd_run(const brisk::UserOptions& opt, bool stats) {
  auto t0 = std::chrono::steady_clock::now();
  brisk::LinuxUser user(opt);
  brisk::UserResult r = user.run();
  if (stats) print_stats(r.instret, std::chrono::steady_clock::now() - t0);
  return r.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"brisk: a fast RISC-V emulator for performance engineers"};
  app.set_version_flag("--version", std::string("brisk ") + BRISK_VERSION);
  app.require_subcommand(1);

  brisk::UserOptions user;
  bool stats = false;
  auto* run = app.add_subcommand("run", "Run a riscv64 Linux program in user mode, as qemu-riscv64 does");
  run->footer(
      "Everything after PROG is passed to the program. The program sees the host's environment.\n"
      "Examples:\n"
      "  brisk run ./hello\n"
      "  brisk run --sysroot /srv/riscv64-root /srv/riscv64-root/usr/bin/xz -9 file\n"
      "The exit status is the program's, or 128+N when signal N (a guest fault) ended it.");
  run->add_option("--sysroot", user.sysroot,
                  "Directory searched first for the ELF interpreter and absolute paths (like qemu -L)")
      ->check(CLI::ExistingDirectory);
  run->add_option("--engine", user.engine.name,
                  "jit (default), interp (the reference interpreter) or check (both, compared block by block)")
      ->check(CLI::IsMember({"jit", "interp", "check"}));
  run->add_option("--jit-regs", user.engine.jit_regs, "Guest registers the JIT keeps in host registers (0-10)")
      ->check(CLI::Range(0, 10))
      ->group("Tuning");
  run->add_flag("--perf-map", user.engine.perf_map,
                "Name translated blocks by guest pc in /tmp/perf-PID.map, for perf on the host")
      ->group("Tuning");
  run->add_flag("--stats", stats, "Print instructions retired, wall time and MIPS on exit");
  run->add_flag("--transfer-sink", user.transfer_sink,
                "Record every branch and jump in the hart's control-transfer ring (measures hook cost)")
      ->group("Tuning");
  run->prefix_command();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (run->parsed()) {
      auto rest = run->remaining();
      if (rest.empty()) {
        brisk::diag_print("brisk run: missing PROG (see brisk run --help)\n");
        return 2;
      }
      if (rest.front() == "--") rest.erase(rest.begin());
      user.program = rest.front();
      user.argv = rest;
      for (char** e = environ; *e; e++) user.envp.emplace_back(*e);
      return cmd_run(user, stats);
    }
  } catch (const brisk::Error& e) {
    brisk::diag_print("brisk: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    brisk::diag_print("brisk: internal error: {}\n", e.what());
    return 1;
  }
  return 0;
}
