// brisk: a fast RISC-V emulator. One binary with subcommands, like `git`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <optional>

#include <linux/perf_event.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "jit/llvm/region.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/ete_decode.h"
#include "runtime/linux_user.h"
#include "runtime/recorder.h"
#include "runtime/snitch_machine.h"
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
  cmd->add_flag("--jit-regs-fixed", e.jit_regs_fixed,
                "Keep the same guest registers (a5, a4, a0, a3, a2, a6, a1, a7, sp, t1) in host registers all run, "
                "instead of the ones the program uses most")
      ->group("Tuning");
  cmd->add_flag("--perf-map", e.perf_map, "Name translated blocks by guest pc in /tmp/perf-PID.map, for perf on the host")
      ->group("Tuning");
  cmd->add_option("--jit-threshold", e.jit_threshold,
                  "Runs of a block in the interpreter before the JIT translates it (0: translate every block at its "
                  "first run)")
      ->check(CLI::Range(0, 15))
      ->capture_default_str()
      ->type_name("N")
      ->group("Tuning");
  cmd->add_option("--tb-size", e.tb_size_mib,
                  "Translated-code cache per engine, in MiB (QEMU's -accel tcg,tb-size); flushed whole when full")
      ->check(CLI::Range(1, 4096))
      ->type_name("MIB")
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
                                "not_taken, stack (RASEMU), u, k, hv (M mode), or a transfer type's name",
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

// brisk record's options, as typed; record_options() checks them. `brisk system --record-opts`
// parses its string with the same code.
struct RecordArgs {
  std::string output = "perf.data", event = "instructions", period, freq, depth, filters = "any", format;
  bool exact = false;
  CLI::Option* period_given = nullptr;
  CLI::Option* freq_given = nullptr;
  CLI::Option* depth_given = nullptr;
  CLI::Option* format_given = nullptr;
  CLI::Option* event_given = nullptr;
};

void add_record_options(CLI::App* cmd, RecordArgs& a, bool system) {
  if (!system)  // brisk system --record names the file
    cmd->add_option("-o,--output", a.output,
                    "Where the profile goes (default perf.data); with --format both the perf script text goes "
                    "to FILE.script")
        ->type_name("FILE");
  a.event_given = cmd->add_option("-e,--event", a.event,
                                  "What the period counts: instructions (default), cycles (one per instruction), "
                                  "branches (conditional), branch-misses, or another brisk PMU event by name or as "
                                  "raw rN (README's event table)")
                      ->type_name("EVENT");
  a.period_given =
      cmd->add_option("-c,--count", a.period,
                      fmt::format("Take a sample every PERIOD events, exactly (default {}: a fixed period makes "
                                  "the recording depend only on the program; a prime keeps it out of step with loops)",
                                  brisk::profile::kDefaultPeriod))
          ->type_name("PERIOD");
  a.freq_given = cmd->add_option("-F,--freq", a.freq,
                                 "Aim for FREQ samples per second of host time instead: the period adapts after "
                                 "each sample to the rate the events came at, as the kernel adapts it; the samples "
                                 "then depend on the host's speed")
                     ->type_name("FREQ");
  a.depth_given = cmd->add_option("--ctr-depth", a.depth,
                                  "Entries in the CTR buffer, the longest branch stack: 16, 32, 64, 128 or 256 "
                                  "(default)")
                      ->type_name("N");
  cmd->add_option("-j,--branch-filter", a.filters,
                  fmt::format("Which transfers the branch stack holds, perf record -j's names (comma-separated): "
                              "any (default), any_call, call, ind_call, any_ret (return), ind_jmp, cond, stack, {}"
                              "or brisk's not_taken and the Smctr type names",
                              system ? "u, k, hv (M mode), " : ""))
      ->type_name("FILTERS");
  a.format_given = cmd->add_option("--format", a.format,
                                   "perf.data (default: for perf script, perf report), perfscript (perf script "
                                   "-F ip,brstack text for llvm-profgen --perfscript), or both (the text in "
                                   "FILE.script)")
                       ->check(CLI::IsMember({"perf.data", "perfscript", "both"}));
  cmd->add_flag("--exact", a.exact,
                "No sampling: every taken branch and fall-through range counted, written as llvm-profgen's "
                "unsymbolized profile (the ground truth a sampled profile is measured against)");
}

uint64_t positive(const std::string& s, const char* what) {
  if (all_digits(s) && s.size() <= 19)
    if (const uint64_t v = std::stoull(s)) return v;
  throw brisk::Error("{}: '{}' is not a positive number", what, s);
}

brisk::profile::RecordOptions record_options(const RecordArgs& a, bool system) {
  namespace profile = brisk::profile;
  profile::RecordOptions o;
  o.output = a.output;
  o.exact = a.exact;
  if (system) o.records_per_instruction = 3;
  if (a.exact && (*a.period_given || *a.freq_given || *a.event_given || *a.format_given))
    throw brisk::Error("--exact records every transfer: -c, -F, -e and --format do not apply");
  if (*a.period_given && *a.freq_given) throw brisk::Error("-c and -F: give a period or a frequency, not both");
  profile::set_event(o, a.event);
  if (*a.freq_given) o.event.freq = positive(a.freq, "-F");
  else o.event.period = *a.period_given ? positive(a.period, "-c") : profile::kDefaultPeriod;
  if (a.format == "perfscript") o.format = profile::Format::PerfScript;
  if (a.format == "both") o.format = profile::Format::Both;
  o.ctr.record = true;
  o.ctr.filters = brisk::ctr::parse_filters(a.filters, "-j");
  if (a.exact && (o.ctr.filters.ctrctl & brisk::ctr::CTRCTL_RASEMU))
    throw brisk::Error("-j stack pops returns from the buffer: --exact cannot count them");
  // --exact's fall-through ranges run from one record to the next: every taken transfer must be one.
  constexpr uint64_t kTaken =
      brisk::ctr::kFilterTypes & ~(uint64_t(1) << unsigned(brisk::TransferType::NotTakenBranch));
  if (a.exact && ((o.ctr.filters.ctrctl >> brisk::ctr::CTRCTL_TYPE_SHIFT) & kTaken))
    throw brisk::Error("-j {}: --exact counts every taken transfer, so -j must leave none out (any, or any,not_taken)",
                       a.filters);
  if (*a.depth_given) o.ctr.depth_code = brisk::ctr::parse_depth(a.depth);
  o.event.branch_sample_type = o.ctr.filters.perf;
  // Without u or k, the modes CTR records (runtime/ctr_config.h): U, and S in system mode.
  if (!o.ctr.filters.modes)
    o.event.branch_sample_type |= PERF_SAMPLE_BRANCH_USER | (system ? PERF_SAMPLE_BRANCH_KERNEL : 0);
  return o;
}

// What perf.data's header says of the run.
brisk::profile::Session session(int argc, char** argv, unsigned harts) {
  brisk::profile::Session s;
  s.cmdline.assign(argv, argv + argc);
  s.nr_cpus = harts;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) s.hostname = host;
  struct utsname u;
  if (uname(&u) == 0) s.os_release = u.release;
  return s;
}

// brisk run's options, which brisk record shares.
struct UserArgs {
  brisk::UserOptions user;
  LimitArgs limits;
  bool stats = false;
  CLI::Option* argv0 = nullptr;  // --argv0 NAME
  std::string argv0_name;
  int guest_env_fd = -1;  // --guest-env-fd: the guest's environment after its execve
};

void add_user_options(CLI::App* cmd, UserArgs& a);

// PROG [ARGS...]: what the options left, then what followed a `--` ending them (main() keeps
// that from CLI11, which would hand it to the parent app). False after saying what is wrong.
bool program_args(CLI::App* cmd, const std::optional<std::vector<std::string>>& after_dashes,
                  brisk::UserOptions& user) {
  auto rest = cmd->remaining();
  if (!rest.empty() && rest.front().size() > 1 && rest.front()[0] == '-') {
    brisk::diag_print("brisk {}: unknown option {} (see brisk {} --help; -- ends the options)\n", cmd->get_name(),
                      rest.front(), cmd->get_name());
    return false;
  }
  if (after_dashes) {
    if (!rest.empty()) rest.push_back("--");  // PROG came first: the -- is one of its arguments
    rest.insert(rest.end(), after_dashes->begin(), after_dashes->end());
  }
  if (rest.empty()) {
    brisk::diag_print("brisk {}: missing PROG (see brisk {} --help)\n", cmd->get_name(), cmd->get_name());
    return false;
  }
  user.program = rest.front();
  user.argv = rest;
  return true;
}

// Runs the program as brisk run does; its exit status.
int run_user(UserArgs& a, std::chrono::steady_clock::time_point t0) {
  brisk::UserOptions& user = a.user;
  user.limits = run_limits(a.limits, user.engine);
  if (*a.argv0) user.argv.front() = a.argv0_name;
  if (a.guest_env_fd >= 0) user.envp = brisk::read_guest_env(a.guest_env_fd);
  else for (char** e = environ; *e; e++) user.envp.emplace_back(*e);
  brisk::LinuxUser u(user);
  brisk::UserResult r = u.run();
  if (a.stats) print_stats(r.instret, std::chrono::steady_clock::now() - t0, r.engine);
  return r.exit_code;
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
    "rv64 (or, for brisk system, rv32) with extensions switched: rv64,EXT=on|off,... (all on by default); "
    "ctr-depths=16,32,... "
    "chooses the CTR depths sctrdepth accepts (default all five)";

namespace {

void add_user_options(CLI::App* cmd, UserArgs& a) {
  cmd->add_option("--sysroot", a.user.sysroot,
                  "Directory searched first for the ELF interpreter and absolute paths (like qemu -L)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--stats", a.stats, "Print instructions retired, wall time and MIPS on exit");
  cmd->add_option("--cpu", a.user.cpu, kCpuHelp)->capture_default_str();
  cmd->add_option("--cpus", a.user.cpus,
                  "CPUs the guest sees in sched_getaffinity, /sys/devices/system/cpu and /proc/cpuinfo "
                  "(default: those brisk may run on)")
      ->check(CLI::Range(1u, brisk::LinuxUser::kMaxCpus));
  add_limit_options(cmd, a.limits);
  add_engine_options(cmd, a.user.engine);
  // brisk system has no such options: its MMU and inline TLB are not in region code yet.
  cmd->add_option_function<std::string>(
         "--tier2", [&a](const std::string& v) { a.user.engine.tier2 = v == "on"; },
         "The LLVM tier (user mode only): compile hot blocks with LLVM in the background and run them there "
         "(default off)")
      ->check(CLI::IsMember({"off", "on"}))
      ->type_name("off|on");
  cmd->add_option("--tier2-threshold", a.user.engine.tier2_threshold,
                  "Entries of a block before --tier2=on compiles it (0: every block at once)")
      ->capture_default_str()
      ->type_name("N")
      ->group("Tuning");
  a.argv0 = cmd->add_option("--argv0", a.argv0_name, "Give the program NAME as argv[0] instead of PROG (like qemu-riscv64 -0)")
                ->type_name("NAME");
  // How brisk execs itself for a guest's execve (runtime/linux_process.cpp): in a forked child, and
  // with the guest's environment, which must not be brisk's own (LD_PRELOAD, ...).
  cmd->add_flag("--forked", a.user.forked)->group("");
  cmd->add_option("--guest-env-fd", a.guest_env_fd)->group("");
}

}  // namespace

namespace {

int brisk_main(int argc, char** argv) {
  // The FP semantics run on SSE4.1 and FMA3 (runtime/fp.cpp): say so instead of dying on SIGILL.
  if (!__builtin_cpu_supports("sse4.1") || !__builtin_cpu_supports("fma")) {
    brisk::diag_print("brisk: this host's CPU lacks SSE4.1 or FMA3, which brisk needs\n");
    return 1;
  }
  CLI::App app{"brisk: a fast RISC-V emulator for performance engineers"};
  app.set_version_flag("--version", std::string("brisk ") + BRISK_VERSION);
  app.require_subcommand(1);

  bool stats = false;
  UserArgs run_args;
  auto* run = app.add_subcommand("run", "Run a riscv64 Linux program in user mode, as qemu-riscv64 does");
  run->footer(
      "Everything after PROG is passed to the program. The program sees the host's environment.\n"
      "Examples:\n"
      "  brisk run ./hello\n"
      "  brisk run --sysroot /srv/riscv64-root /srv/riscv64-root/usr/bin/xz -9 file\n"
      "The exit status is the program's, or 128+N when signal N (a guest fault) ended it,\n"
      "124 when --timeout stopped it, 125 when --max-insns did.");
  add_user_options(run, run_args);
  CtrArgs run_ctr_args;
  add_ctr_options(run, run_ctr_args, "as if the guest's kernel had enabled U-mode recording");
  run->prefix_command();

  UserArgs record_user_args;
  RecordArgs record_args;
  auto* record = app.add_subcommand("record", "Run a riscv64 Linux program as brisk run does, sampling it with "
                                              "branch stacks from CTR, like perf record -b");
  record->footer(
      "A sample is taken every PERIOD events, exactly: which instructions are sampled depends only on the\n"
      "program and the period, not on the host or the engine. Each holds the pc, the pid, the time and the\n"
      "CTR buffer as its branch stack, youngest first, with mispredict flags and cycle counts; MMAP2 records\n"
      "place the program, its interpreter and the libraries it maps. On a terminal a progress line runs;\n"
      "at the end a summary gives the samples, the hottest functions and the branch-stack depths.\n"
      "The exit status is the program's, as brisk run's. Examples:\n"
      "  brisk record -c 100000 -- ./prog args          # perf.data, for perf script / perf report\n"
      "  brisk record --format perfscript -o prog.script ./prog\n"
      "  llvm-profgen --perfscript prog.script --binary prog --output prog.prof\n"
      "  brisk record --exact -o prog.exact ./prog     # every transfer: llvm-profgen's unsymbolized profile\n"
      "docs/profiling.md tells how recording works.");
  add_record_options(record, record_args, false);
  add_user_options(record, record_user_args);
  record->prefix_command();

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
      "  brisk system --cpu rv64,sstc=off --dumpdtb virt.dtb\n"
      "  brisk system --bios none --kernel test.elf --trace trace.d --trace-config autofdo\n"
      "  trc_pkt_lister -ss_dir trace.d -logstdout          # the ETE packets (docs/ete.md)");
  system->add_option("--bios", sys.bios, "Firmware: OpenSBI fw_jump/fw_dynamic (.bin or .elf), or 'none'");
  system->add_option("--kernel", sys.kernel, "Kernel: a RISC-V Linux Image, an ELF, or a flat binary");
  system->add_option("--initrd", sys.initrd, "Initial ramdisk (cpio)");
  system->add_option("--append", sys.append, "Kernel command line");
  system->add_option("-m,--memory", mem, "RAM size: MiB, or with a K/M/G suffix")->capture_default_str();
  system->add_option("--smp", sys.harts, "Number of harts")->capture_default_str();
  system->add_option("--smp-threads", sys.host_threads,
                     "Host threads for the harts: one each (the default, as QEMU's MTTCG), or 1 to run them in "
                     "turns on one thread, reproducibly. --record, --ctr-dump and --engine=check imply 1");
  system->add_option("--cpu", sys.cpu, kCpuHelp)
      ->capture_default_str();
  system->add_option("--dumpdtb", sys.dumpdtb, "Write the device tree to FILE and exit");
  system->add_option("--machine", machine,
                     "Machine model: virt, or snitch (a Snitch cluster, docs/snitch.md: --kernel PROG.elf, "
                     "the interpreter, or the JIT too with --quantum, --cpu " + std::string(brisk::kSnitchCpu) +
                     " unless given)")
      ->check(CLI::IsMember({"virt", "snitch"}));
  system->add_option("--quantum", sys.quantum,
                     "-M snitch: while no enabled performance counter selects a timing metric (CYCLE, TCDM_*, "
                     "ICACHE_*), run each hart N instructions per turn, one cycle each, instead of in cycle order, "
                     "in translated code (--engine=jit, the default with --quantum) while its SSRs are off and no "
                     "counter selects a retired event but RETIRED_INSTR (docs/snitch.md, \"Quantum mode\"); 0, "
                     "the default, is always cycle order")
      ->type_name("N");
  system->add_flag("--nographic", nographic, "Accepted for QEMU habits: the console is always stdio");
  system->add_flag("--stats", stats, "Print instructions retired, wall time and MIPS on exit");
  LimitArgs system_limit_args;
  add_limit_options(system, system_limit_args);
  add_engine_options(system, sys.engine);
  CtrArgs system_ctr_args;
  add_ctr_options(system, system_ctr_args, "in U and S mode from reset, as if M-mode firmware had enabled it");
  std::string record_file, record_opts;
  auto* record_given =
      system->add_option("--record", record_file,
                         "Sample the machine as brisk record does, into FILE (--format both: the text in "
                         "FILE.script); samples carry the privilege, user ones the address space as pid")
          ->type_name("FILE");
  system->add_option("--record-opts", record_opts,
                     "brisk record's -e, -c, -F, -j, --format, --ctr-depth and --exact for --record, in one string "
                     "(e.g. '-c 1000003 -j any,u --format both')")
      ->type_name("'OPTS'");
  system->add_option("--vmlinux", sys.vmlinux,
                     "The kernel's ELF with symbols, which --record's MMAP2 names for kernel samples")
      ->type_name("FILE");
  std::string trace_dir, trace_config, trace_opts;
  system->add_option("--trace", trace_dir,
                     "Write the harts' ETE trace (docs/ete.md) at exit as an OpenCSD snapshot in DIR, one "
                     "stream per hart (trc_pkt_lister -ss_dir DIR lists it)")
      ->type_name("DIR");
  system->add_option("--trace-config", trace_config,
                     "Program every hart's trace unit before the guest starts: a file of NAME = VALUE lines "
                     "(ETE register names), or autofdo[:WINDOW,PERIOD], Linux's AutoFDO strobing (5000,10000)")
      ->type_name("FILE|autofdo");
  system->add_option("--trace-opts", trace_opts,
                     "Add to --trace-config's TRCCONFIGR: cycles (cycle counts), timestamps (the timebase's)")
      ->type_name("cycles,timestamps");

  brisk::ete::DecodeOptions decode_opts;
  std::string itrace, elf, vmlinux;
  auto* decode = app.add_subcommand("trace-decode", "Rebuild the RISC-V program flow from brisk system --trace's ETE "
                                                    "stream: an instruction listing, or perf-script samples for AutoFDO");
  decode->footer(
      "Reads each hart's stream (ete_N.bin) of the snapshot DIR that brisk system --trace DIR wrote and walks\n"
      "PROG's code from each address in the stream to each branch: an E atom takes a branch or jump, an N\n"
      "atom falls through, a jalr or xRET goes to the address that follows, an exception packet names the\n"
      "return address and the handler (docs/ete.md, \"Decoding\"). By default it lists every executed\n"
      "instruction as '0x<pc>  <disassembly>', with '# ' lines where trace starts (what ran while it was\n"
      "off is unknown) and where an exception or interrupt was taken. With --itrace it writes what\n"
      "perf inject --itrace=i100000l64 writes for an Arm ETE trace, as perf-script text: a sample every\n"
      "PERIOD traced instructions with the last DEPTH taken branches, for llvm-profgen --perfscript.\n"
      "What ran after the last branch before trace stopped, or before the stream ended, is not in it.\n"
      "Code outside PROG and FILE (user programs under --vmlinux, firmware) is a gap, listed as such, until\n"
      "the next address in the stream. A stream that disagrees with PROG (an N atom for a jump, a return\n"
      "address beyond a branch, an illegal instruction on the way) is an error naming its offset. Examples:\n"
      "  brisk system --bios none --kernel prog.elf --trace trace.d --trace-config autofdo\n"
      "  brisk trace-decode trace.d --elf prog.elf | less\n"
      "  brisk trace-decode trace.d --elf prog.elf --itrace=i100000l64 -o prog.script\n"
      "  llvm-profgen --perfscript prog.script --binary prog.elf --output prog.prof");
  decode->add_option("DIR", decode_opts.dir, "The snapshot directory (brisk system --trace DIR)")->required();
  decode->add_option("--elf", elf, "The program the trace ran: its executable segments are the code walked")
      ->required()
      ->type_name("PROG");
  decode->add_option("--elf-base", decode_opts.elf_base,
                     "Where PROG's first executable segment was loaded, for a position-independent one (OpenSBI's "
                     "fw_jump.elf at 0x80000000); default: its link address")
      ->type_name("ADDR");
  decode->add_option("--vmlinux", vmlinux, "Another ELF whose code the trace ran through (a kernel)")->type_name("FILE");
  decode->add_option("--itrace", itrace,
                     "Write perf-script brstack samples instead of the listing: i[PERIOD][l[DEPTH]], a sample "
                     "every PERIOD instructions (100000) with the last DEPTH branches (64), as perf inject's")
      ->type_name("iPERIODlDEPTH");
  decode->add_option("-o,--output", decode_opts.output, "Write to FILE (the listing goes to stdout without it)")
      ->type_name("FILE");
  decode->add_option("--hart", decode_opts.hart, "Decode only hart N's stream (default: every hart's, in turn)")
      ->check(CLI::Range(0, 1023))
      ->type_name("N");

  std::vector<std::string> args = qemu_spellings(argc, argv);
  std::optional<std::vector<std::string>> after_dashes;
  if (!args.empty() && (args[0] == "run" || args[0] == "record")) {
    if (auto dashes = std::find(args.begin() + 1, args.end(), "--"); dashes != args.end()) {
      after_dashes.emplace(dashes + 1, args.end());
      args.erase(dashes, args.end());
    }
  }
  const std::vector<std::string> options = args;  // up to PROG, for brisk run's execve
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    // A bad value (out of range, not a number, ...): one line in the form of program_args' errors.
    const std::vector<CLI::App*> sub = app.get_subcommands();
    const std::string cmd = sub.empty() ? "brisk" : "brisk " + sub.front()->get_name();
    brisk::diag_print("{}: {} (see {} --help)\n", cmd, e.what(), cmd);
    return 2;
  }

  try {
    auto t0 = std::chrono::steady_clock::now();
    if (decode->parsed()) {
      decode_opts.elfs.push_back(elf);
      if (!vmlinux.empty()) decode_opts.elfs.push_back(vmlinux);
      if (!itrace.empty() || decode->count("--itrace")) brisk::ete::parse_itrace(itrace, decode_opts);
      const brisk::ete::DecodeSummary s = brisk::ete::trace_decode(decode_opts);
      brisk::diag_print("brisk trace-decode: {} stream{}: {} instructions, {} taken branches, {} exceptions, {} trace on{}{}\n",
                        s.streams, s.streams == 1 ? "" : "s", s.instructions, s.branches, s.exceptions, s.trace_ons,
                        s.gaps ? fmt::format(", {} gaps (code outside the ELF files)", s.gaps) : std::string(),
                        decode_opts.samples ? fmt::format(", {} samples", s.samples) : std::string());
      return 0;
    }
    if (run->parsed()) {
      const size_t used = options.size() - run->remaining().size();
      run_args.user.brisk_argv.assign(argv, argv + 1);
      run_args.user.brisk_argv.insert(run_args.user.brisk_argv.end(), options.begin(), options.begin() + used);
      if (!program_args(run, after_dashes, run_args.user)) return 2;
      run_args.user.ctr = ctr_options(run_ctr_args);
      return run_user(run_args, t0);
    }
    if (record->parsed()) {
      if (!program_args(record, after_dashes, record_user_args.user)) return 2;
      const brisk::profile::RecordOptions opts = record_options(record_args, false);
      brisk::profile::Recorder rec(opts, session(argc, argv, 1));
      record_user_args.user.ctr = opts.ctr;
      record_user_args.user.recorder = &rec;
      return run_user(record_user_args, t0);
    }
    if (system->parsed()) {
      sys.ram_size = parse_size(mem);
      if (machine == "snitch") {
        if (!system->count("--cpu")) sys.cpu = brisk::kSnitchCpu;
        if (!system->count("--engine")) sys.engine.name = sys.quantum ? "jit" : "interp";
      }
      sys.limits = run_limits(system_limit_args, sys.engine);
      sys.ctr = ctr_options(system_ctr_args);
      if (machine != "snitch" && sys.quantum) throw brisk::Error("--quantum is for -M snitch");
      if (machine == "snitch" && !trace_dir.empty())
        throw brisk::Error("--trace is for -M virt: the Snitch cluster has no trace unit");
      sys.trace = brisk::trace_options(trace_dir, trace_config, trace_opts);
      if (machine == "snitch") {
        brisk::SnitchMachine m(sys);
        brisk::SystemResult r = m.run();
        if (stats) {
          print_stats(r.instret, std::chrono::steady_clock::now() - t0, "");
          brisk::diag_print("brisk: snitch: {}\n", r.engine);
        }
        return r.exit_code;
      }
      if (sys.kernel.empty() && sys.bios != "none") {
        auto img = cached_images();
        sys.kernel = img["KERNEL"];
        if (sys.bios.empty()) sys.bios = img.count("OPENSBI19_FW_JUMP") ? img["OPENSBI19_FW_JUMP"] : img["OPENSBI16_FW_JUMP"];
        if (sys.initrd.empty()) sys.initrd = img["INITRD_BUSYBOX"];
        if (sys.append.empty()) sys.append = "console=ttyS0";
      }
      if (sys.bios.empty() && sys.dumpdtb.empty())
        throw brisk::Error("--bios FILE is needed (OpenSBI's fw_jump.bin, or 'none' for a bare-metal ELF)");
      std::unique_ptr<brisk::profile::Recorder> rec;
      if (*record_given) {
        if (sys.ctr.record) throw brisk::Error("--ctr and --record both set CTR up: give one");
        RecordArgs ra;
        CLI::App parse_opts{"brisk system --record-opts"};
        add_record_options(&parse_opts, ra, true);
        try {
          parse_opts.parse(record_opts, false);
        } catch (const CLI::CallForHelp&) {
          std::fputs(parse_opts.help().c_str(), stdout);
          return 0;
        } catch (const CLI::ParseError& e) {
          throw brisk::Error("--record-opts: {}", e.what());
        }
        if (!parse_opts.remaining().empty())
          throw brisk::Error("--record-opts: unexpected '{}'", parse_opts.remaining().front());
        ra.output = record_file;
        brisk::profile::RecordOptions opts = record_options(ra, true);
        if (!*ra.depth_given) opts.ctr.depth_code = sys.ctr.depth_code;  // system's own --ctr-depth
        opts.ctr.dump = sys.ctr.dump;
        opts.ctr.dump_path = sys.ctr.dump_path;
        sys.ctr = opts.ctr;
        rec = std::make_unique<brisk::profile::Recorder>(opts, session(argc, argv, sys.harts));
        sys.recorder = rec.get();
      } else if (!sys.vmlinux.empty() || !record_opts.empty()) {
        throw brisk::Error("--vmlinux and --record-opts are for --record FILE");
      }
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

}  // namespace

int main(int argc, char** argv) {
  const int status = brisk_main(argc, argv);
  // A tier-2 thread still loading LLVM or compiling when the run ended: exit's destructors of
  // libLLVM's globals would race it (jit/llvm/region.h), and everything brisk writes is written.
  if (brisk::tier2::any_abandoned()) {
    std::fflush(nullptr);
    std::_Exit(status);
  }
  return status;
}
