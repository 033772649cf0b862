// brisk: a fast RISC-V emulator. One binary with subcommands, like `git`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/linux_user.h"
#include "runtime/virt_machine.h"

extern char** environ;

namespace {

void print_stats(uint64_t instret, std::chrono::duration<double> wall, const std::string& engine) {
  double s = wall.count();
  brisk::diag_print("brisk: {} instructions in {:.3f} s ({:.1f} MIPS)\n", instret, s,
                    s > 0 ? static_cast<double>(instret) / s / 1e6 : 0.0);
  if (!engine.empty()) brisk::diag_print("brisk: jit: {}\n", engine);
}

void add_engine_options(CLI::App* cmd, brisk::EngineOptions& e) {
  cmd->add_option("--engine", e.name,
                  "jit (default), interp (the reference interpreter) or check (both, compared block by block)")
      ->check(CLI::IsMember({"jit", "interp", "check"}));
  cmd->add_option("--jit-regs", e.jit_regs, "Guest registers the JIT keeps in host registers (0-10)")
      ->check(CLI::Range(0, 10))
      ->group("Tuning");
  cmd->add_flag("--perf-map", e.perf_map, "Name translated blocks by guest pc in /tmp/perf-PID.map, for perf on the host")
      ->group("Tuning");
}

// --timeout and --max-insns, as typed; run_limits() checks them.
struct LimitArgs {
  std::string timeout, max_insns;
  CLI::Option* timeout_given = nullptr;  // an empty value is still a bad value
  CLI::Option* max_insns_given = nullptr;
};

void add_limit_options(CLI::App* cmd, LimitArgs& a) {
  a.timeout_given =
      cmd->add_option("--timeout", a.timeout, "Stop the guest after SECONDS of host time (exit status 124)")
          ->type_name("SECONDS");
  a.max_insns_given =
      cmd->add_option("--max-insns", a.max_insns, "Stop the guest after exactly N instructions (exit status 125)")
          ->type_name("N");
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

brisk::RunLimits run_limits(const LimitArgs& a, const brisk::EngineOptions& engine) {
  brisk::RunLimits l;
  if (*a.timeout_given) {
    const auto dot = a.timeout.find('.');
    const bool decimal = all_digits(a.timeout.substr(0, dot)) &&
                         (dot == std::string::npos || all_digits(a.timeout.substr(dot + 1)));
    if (decimal && a.timeout.size() <= 12) l.timeout = std::stod(a.timeout);
    if (!(l.timeout > 0))
      throw brisk::Error("--timeout: '{}' is not a positive number of seconds (e.g. 10 or 2.5)", a.timeout);
  }
  if (*a.max_insns_given) {
    if (all_digits(a.max_insns) && a.max_insns.size() <= 19) l.max_insns = std::stoull(a.max_insns);
    if (l.max_insns == 0) throw brisk::Error("--max-insns: '{}' is not a positive number of instructions", a.max_insns);
  }
  if (l.any() && engine.name == "check") throw brisk::Error("--timeout and --max-insns need --engine jit or interp");
  return l;
}

// --ctr, --ctr-depth and --ctr-dump, as typed; ctr_options() checks them (runtime/ctr_config.h).
// --ctr and --ctr-dump are flags that take a value only with '=', so that `brisk run --ctr PROG`
// does not read PROG as the filters.
struct CtrArgs {
  std::string filters, depth, dump;
  CLI::Option* filters_given = nullptr;
  CLI::Option* depth_given = nullptr;
  CLI::Option* dump_given = nullptr;
};

void add_ctr_options(CLI::App* cmd, CtrArgs& a, const char* what) {
  a.filters_given =
      cmd->add_flag("--ctr{any}", a.filters,
                    fmt::format("Record control transfers in the Smctr buffer, {}; FILTERS (comma-separated): "
                                "any (the default), any_call, call, ind_call, any_ret (return), ind_jmp, cond, "
                                "not_taken, stack (RASEMU), u, k, or a transfer type's name",
                                what))
          ->type_name("[=FILTERS]");
  a.depth_given = cmd->add_option("--ctr-depth", a.depth, "Entries in the CTR buffer: 16, 32, 64, 128 or 256 (default)")
                      ->type_name("N");
  a.dump_given = cmd->add_flag("--ctr-dump{-}", a.dump,
                               "Print the CTR buffer, youngest first, at exit and on SIGUSR1, as perf script brstack "
                               "text, to brisk's stderr or =FILE")
                     ->type_name("[=FILE]");
}

brisk::ctr::Options ctr_options(const CtrArgs& a) {
  brisk::ctr::Options o;
  o.record = a.filters_given->count() > 0;
  if (o.record) o.filters = brisk::ctr::parse_filters(a.filters);
  if (*a.depth_given) o.depth_code = brisk::ctr::parse_depth(a.depth);
  o.dump = a.dump_given->count() > 0;
  if (o.dump && a.dump != "-") o.dump_path = a.dump;
  return o;
}

// QEMU's -m: a number of MiB, or with a K/M/G suffix.
uint64_t parse_size(const std::string& s) {
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &used);
  } catch (const std::exception&) {
    throw brisk::Error("-m: '{}' is not a size (e.g. 512M or 2G)", s);
  }
  std::string unit = s.substr(used);
  if (unit.empty() || unit == "M" || unit == "m") return v << 20;
  if (unit == "G" || unit == "g") return v << 30;
  if (unit == "K" || unit == "k") return v << 10;
  throw brisk::Error("-m: '{}' is not a size (e.g. 512M or 2G)", s);
}

// The images scripts/guest-images built: KEY=path lines in $BRISK_CACHE/images/images.env.
std::map<std::string, std::string> cached_images() {
  const char* cache = std::getenv("BRISK_CACHE");
  const char* home = std::getenv("HOME");
  std::string dir = cache ? cache : std::string(home ? home : "") + "/.cache/brisk";
  std::ifstream in(dir + "/images/images.env");
  if (!in)
    throw brisk::Error("no --kernel given and no cached guest image in {}/images; run scripts/guest-images first", dir);
  std::map<std::string, std::string> kv;
  for (std::string line; std::getline(in, line);)
    if (auto eq = line.find('='); eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  return kv;
}

// People type QEMU's single-dash spellings (-kernel, -bios, ...): accept them as the long options.
std::vector<std::string> qemu_spellings(int argc, char** argv) {
  static const char* const kLong[] = {"-bios", "-kernel", "-initrd", "-append", "-smp", "-cpu", "-dumpdtb", "-machine"};
  std::vector<std::string> args;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    for (const char* l : kLong)
      if (a == l) a = std::string("-") + l;
    if (a == "-M") a = "--machine";
    args.push_back(a);
  }
  return args;
}

}  // namespace

// --cpu is the same string in run and system.
constexpr const char* kCpuHelp =
    "rv64 with extensions switched: rv64,EXT=on|off,... (all on by default); ctr-depths=16,32,... "
    "chooses the CTR depths sctrdepth accepts (default all five)";

int main(int argc, char** argv) {
  // The FP semantics run on SSE4.1 and FMA3 (runtime/fp.cpp): say so instead of dying on SIGILL.
  if (!__builtin_cpu_supports("sse4.1") || !__builtin_cpu_supports("fma")) {
    brisk::diag_print("brisk: this host's CPU lacks SSE4.1 or FMA3, which brisk needs\n");
    return 1;
  }
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
      "The exit status is the program's, or 128+N when signal N (a guest fault) ended it,\n"
      "124 when --timeout stopped it, 125 when --max-insns did.");
  run->add_option("--sysroot", user.sysroot,
                  "Directory searched first for the ELF interpreter and absolute paths (like qemu -L)")
      ->check(CLI::ExistingDirectory);
  run->add_flag("--stats", stats, "Print instructions retired, wall time and MIPS on exit");
  run->add_option("--cpu", user.cpu, kCpuHelp)
      ->capture_default_str();
  LimitArgs run_limit_args;
  add_limit_options(run, run_limit_args);
  add_engine_options(run, user.engine);
  CtrArgs run_ctr_args;
  add_ctr_options(run, run_ctr_args, "as if the guest's kernel had enabled U-mode recording");
  run->prefix_command();

  brisk::SystemOptions sys;
  std::string mem = "512M", machine = "virt";
  bool nographic = false;
  auto* system = app.add_subcommand("system", "Boot a RISC-V machine like qemu-system-riscv64 -M virt");
  system->footer(
      "Options also take QEMU's single-dash spellings (-kernel, -bios, -initrd, -append, -smp, -cpu).\n"
      "With no --kernel, boots the Debian kernel and busybox initramfs that scripts/guest-images caches.\n"
      "The console is stdio; Ctrl-A x quits. The exit status is the guest's (sifive_test finisher, HTIF),\n"
      "124 when --timeout stopped it, 125 when --max-insns did.\n"
      "Examples:\n"
      "  brisk system -bios fw_jump.bin -kernel Image -initrd initrd.gz -append 'console=ttyS0'\n"
      "  brisk system --bios none --kernel test.elf        # bare-metal ELF in M-mode\n"
      "  brisk system --cpu rv64,sstc=off --dumpdtb virt.dtb");
  system->add_option("--bios", sys.bios, "Firmware: OpenSBI fw_jump/fw_dynamic (.bin or .elf), or 'none'");
  system->add_option("--kernel", sys.kernel, "Kernel: a RISC-V Linux Image, an ELF, or a flat binary");
  system->add_option("--initrd", sys.initrd, "Initial ramdisk (cpio)");
  system->add_option("--append", sys.append, "Kernel command line");
  system->add_option("-m,--memory", mem, "RAM size: MiB, or with a K/M/G suffix")->capture_default_str();
  system->add_option("--smp", sys.harts, "Number of harts")->capture_default_str();
  system->add_option("--cpu", sys.cpu, kCpuHelp)
      ->capture_default_str();
  system->add_option("--dumpdtb", sys.dumpdtb, "Write the device tree to FILE and exit");
  system->add_option("--machine", machine, "Machine model (only virt)")->check(CLI::IsMember({"virt"}));
  system->add_flag("--nographic", nographic, "Accepted for QEMU habits: the console is always stdio");
  system->add_flag("--stats", stats, "Print instructions retired, wall time and MIPS on exit");
  LimitArgs system_limit_args;
  add_limit_options(system, system_limit_args);
  add_engine_options(system, sys.engine);
  CtrArgs system_ctr_args;
  add_ctr_options(system, system_ctr_args, "in U and S mode from reset, as if M-mode firmware had enabled it");

  std::vector<std::string> args = qemu_spellings(argc, argv);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    auto t0 = std::chrono::steady_clock::now();
    if (run->parsed()) {
      auto rest = run->remaining();
      if (rest.empty()) {
        brisk::diag_print("brisk run: missing PROG (see brisk run --help)\n");
        return 2;
      }
      if (rest.front() == "--") {
        rest.erase(rest.begin());
      } else if (rest.front().size() > 1 && rest.front()[0] == '-') {
        brisk::diag_print("brisk run: unknown option {} (see brisk run --help; -- ends the options)\n", rest.front());
        return 2;
      }
      if (rest.empty()) {
        brisk::diag_print("brisk run: missing PROG (see brisk run --help)\n");
        return 2;
      }
      user.limits = run_limits(run_limit_args, user.engine);
      user.ctr = ctr_options(run_ctr_args);
      // The limits and SIGUSR1 stop translated code through Hart::deadline.
      user.engine.deadlines = user.limits.any() || user.ctr.dump;
      user.program = rest.front();
      user.argv = rest;
      for (char** e = environ; *e; e++) user.envp.emplace_back(*e);
      brisk::LinuxUser u(user);
      brisk::UserResult r = u.run();
      if (stats) print_stats(r.instret, std::chrono::steady_clock::now() - t0, r.engine);
      return r.exit_code;
    }
    if (system->parsed()) {
      sys.ram_size = parse_size(mem);
      sys.limits = run_limits(system_limit_args, sys.engine);
      sys.ctr = ctr_options(system_ctr_args);
      if (sys.kernel.empty() && sys.bios != "none") {
        auto img = cached_images();
        sys.kernel = img["KERNEL"];
        if (sys.bios.empty()) sys.bios = img.count("OPENSBI19_FW_JUMP") ? img["OPENSBI19_FW_JUMP"] : img["OPENSBI16_FW_JUMP"];
        if (sys.initrd.empty()) sys.initrd = img["INITRD_BUSYBOX"];
        if (sys.append.empty()) sys.append = "console=ttyS0";
      }
      if (sys.bios.empty() && sys.dumpdtb.empty())
        throw brisk::Error("--bios FILE is needed (OpenSBI's fw_jump.bin, or 'none' for a bare-metal ELF)");
      brisk::VirtMachine m(sys);
      brisk::SystemResult r = m.run();
      if (stats) print_stats(r.instret, std::chrono::steady_clock::now() - t0, r.engine);
      return r.exit_code;
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
