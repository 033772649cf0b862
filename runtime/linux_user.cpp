#include "runtime/linux_user.h"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "runtime/host_fault.h"
#include "runtime/diag.h"
#include "csr/csr.h"
#include "csr/privileged.h"
#include "runtime/elf_loader.h"
#include "runtime/error.h"
#include "runtime/input_file.h"
#include "runtime/linux_syscall_nr.h"

namespace brisk {

namespace {


// si_code values (include/uapi/asm-generic/siginfo.h).
constexpr int kIllIllopc = 1, kTrapBrkpt = 1, kBusAdraln = 1, kBusAdrerr = 2, kSegvMaperr = 1, kSegvAccerr = 2;

// The signal and si_code Linux sends a process for an exception it does not handle itself.
std::pair<int, int> signal_for(uint64_t c) {
  switch (c) {
    case cause::kIllegalInstruction: return {SIGILL, kIllIllopc};
    case cause::kBreakpoint: return {SIGTRAP, kTrapBrkpt};
    case cause::kInstructionAddressMisaligned:
    case cause::kLoadAddressMisaligned:
    case cause::kStoreAmoAddressMisaligned: return {SIGBUS, kBusAdraln};
    case cause::kLoadAccessFault:
    case cause::kStoreAmoAccessFault: return {SIGBUS, kBusAdrerr};
    default: return {SIGSEGV, kSegvMaperr};
  }
}

// Guest signals interrupt translated code, chained loops included, through Hart::deadline.
EngineOptions with_deadlines(EngineOptions opt) {
  opt.deadlines = true;
  return opt;
}

}  // namespace

std::string signal_name(int sig) {
  const char* abbrev = sig > 0 && sig < 32 ? sigabbrev_np(sig) : nullptr;
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

std::unique_ptr<Engine> LinuxUser::new_engine(bool first) const {
  EngineOptions opt = with_deadlines(opt_.engine);
  // brisk's own files are made before any guest runs (runtime/diag.h): the perf map is the first thread's.
  opt.perf_map = opt.perf_map && first;
  return make_engine(opt);
}

LinuxUser::LinuxUser(const UserOptions& opt) : opt_(opt), main_(std::make_unique<GuestThread>()) {
  main_->engine = new_engine(true);
  main_->tid = getpid();
  t_self = main_.get();
  live_.push_back(main_.get());
  IsaConfig isa;
  isa.apply(opt_.cpu);
  if (isa.rv32()) throw Error("--cpu {}: brisk run runs riscv64 programs (RV32 is for brisk system)", opt_.cpu);
  csr::set_isa(main_->hart, isa);
  cpu_set_t host_cpus;
  cpus_ = opt_.cpus                                                       ? opt_.cpus
          : sched_getaffinity(0, sizeof host_cpus, &host_cpus) == 0 ? static_cast<unsigned>(CPU_COUNT(&host_cpus))
                                                                  : 1;
  main_->affinity = guest_cpus();
  char* abs = realpath(opt_.program.c_str(), nullptr);
  exe_path_ = abs ? abs : opt_.program;
  free(abs);
  char self[PATH_MAX];
  struct stat st;
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self);
  if (n > 0 && stat("/proc/self/exe", &st) == 0) {
    host_exe_.assign(self, static_cast<size_t>(n));
    host_exe_dev_ = st.st_dev;
    host_exe_ino_ = st.st_ino;
  }
  LoadedElf exe = load_elf(vm_, opt_.program, false);
  if (stat(exe_path_.c_str(), &st) == 0) {
    exe_dev_ = st.st_dev;
    exe_ino_ = st.st_ino;
  }
  vm_.name_anonymous(exe_path_);
  if (opt_.recorder) {
    opt_.recorder->comm(getpid(), getpid(), comm());
    for (const LoadedElf::Code& c : exe.code) record_mapping(c.start, c.len, c.offset, exe_path_, PROT_READ | PROT_EXEC, false);
  }
  uint64_t interp_base = 0;
  uint64_t entry = exe.entry;
  if (!exe.interp.empty()) {
    std::string path = opt_.sysroot.empty() ? exe.interp : opt_.sysroot + exe.interp;
    if (access(path.c_str(), F_OK) != 0) {
      if (opt_.sysroot.empty())
        throw Error("{} needs the interpreter {}, which is missing; give --sysroot DIR", opt_.program,
                    printable(exe.interp));
      throw Error("{} needs the interpreter {}, which is missing under --sysroot {}", opt_.program,
                  printable(exe.interp), opt_.sysroot);
    }
    LoadedElf interp = load_elf(vm_, path, true);
    char* real = realpath(path.c_str(), nullptr);
    const std::string interp_path = real ? real : path;
    free(real);
    vm_.name_anonymous(interp_path);
    if (opt_.recorder)
      for (const LoadedElf::Code& c : interp.code)
        record_mapping(c.start, c.len, c.offset, interp_path, PROT_READ | PROT_EXEC, false);
    interp_base = interp.bias;
    entry = interp.entry;
  }
  vm_.set_brk_start(exe.end);
  if (vm_.map(GuestVm::kStackTop - GuestVm::kStackSize, GuestVm::kStackSize, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_STACK, -1, 0) < 0)
    throw Error("cannot map the guest stack");

  main_->hart.mem_base = vm_.base();
  main_->hart.mem_limit = GuestVm::kLimit;
  main_->hart.mem_guard = GuestVm::kGuard;
  main_->hart.env = this;
  main_->hart.priv = Priv::U;
  // What Linux gives a process: FP state on, the counters readable, and cbo.zero, cbo.clean and
  // cbo.flush, but not cbo.inval (Linux 6.12 riscv_user_isa_enable sets senvcfg.CBZE and CBCFE).
  main_->hart.csr.mstatus = isa.has(Ext::F) ? csr::MSTATUS_FS_DIRTY : 0;
  main_->hart.csr.mcounteren = main_->hart.csr.scounteren = 7;
  const uint64_t envcfg = (isa.has(Ext::Zicboz) ? csr::ENVCFG_CBZE : 0) | (isa.has(Ext::Zicbom) ? csr::ENVCFG_CBCFE : 0);
  main_->hart.csr.menvcfg = main_->hart.csr.senvcfg = envcfg;
  main_->hart.csr.clock = &clock_;
  main_->hart.pc = entry;
  ctr::configure(main_->hart, opt_.ctr, ctr::CTRCTL_U, ctr::CTRCTL_U);
  if (opt_.ctr.dump) {
    ctr_dump_ = std::make_unique<ctr::Dump>(opt_.ctr.dump_path);
    limiter_.on_sigusr1([this] {
      if (ctr_dump_) ctr_dump_->write({&main_->hart}, "on SIGUSR1");  // a forked child has none
    });
  }
  build_stack(exe, interp_base);
  vm_.on_code_change = [this](uint64_t start, uint64_t end) { invalidate_all(start, end); };
  if (opt_.recorder) {
    vm_.on_exec_map = [this](uint64_t start, const GuestVm::Mapping& m) {
      record_mapping(start, m.end - start, m.offset, m.path, m.prot, m.shared);
    };
    // One thread under brisk record (clone of a thread is refused): the guest's pid and tid are brisk's pid.
    const uint32_t pid = static_cast<uint32_t>(getpid());
    opt_.recorder->task = [pid](const Hart&) { return profile::Task{pid, pid, profile::CpuMode::User}; };
  }
}

void LinuxUser::record_mapping(uint64_t start, uint64_t len, uint64_t offset, const std::string& host, int prot,
                               bool shared) {
  profile::Mapping m;
  m.pid = m.tid = static_cast<uint32_t>(getpid());
  m.start = start;
  m.len = len;
  m.pgoff = offset;
  struct stat st;
  if (stat(host.c_str(), &st) == 0) {
    m.maj = major(st.st_dev);
    m.min = minor(st.st_dev);
    m.ino = st.st_ino;
  }
  m.prot = static_cast<uint32_t>(prot);
  m.flags = shared ? MAP_SHARED : MAP_PRIVATE;
  m.filename = guest_name(host);
  m.host_path = host;
  opt_.recorder->mmap(m);
}

void LinuxUser::build_stack(const LoadedElf& exe, uint64_t interp_base) {
  uint64_t sp = GuestVm::kStackTop;
  auto push_bytes = [&](const void* p, size_t n) {
    sp -= n;
    std::memcpy(vm_.base() + sp, p, n);
    return sp;
  };

  // The strings in Linux's order, lowest first: argv's, envp's, then the program's name (AT_EXECFN).
  std::string strings;
  std::vector<uint64_t> argv, envp;
  for (const auto& s : opt_.argv) {
    argv.push_back(strings.size());
    strings.append(s).push_back('\0');
  }
  const size_t env_off = strings.size();
  for (const auto& s : opt_.envp) {
    envp.push_back(strings.size());
    strings.append(s).push_back('\0');
  }
  const size_t execfn_off = strings.size();
  strings.append(opt_.program).push_back('\0');
  const uint64_t at = push_bytes(strings.data(), strings.size());
  for (auto& p : argv) p += at;
  for (auto& p : envp) p += at;
  const uint64_t execfn = at + execfn_off;
  arg_start_ = at;
  arg_end_ = env_start_ = at + env_off;
  env_end_ = execfn;
  std::array<uint8_t, 16> random;
  std::random_device rd;
  for (auto& b : random) b = static_cast<uint8_t>(rd());
  uint64_t at_random = push_bytes(random.data(), random.size());

  std::vector<std::pair<uint64_t, uint64_t>> auxv = {
      {AT_PHDR, exe.phdr},     {AT_PHENT, exe.phent},       {AT_PHNUM, exe.phnum},
      {AT_PAGESZ, GuestVm::kPage}, {AT_BASE, interp_base},  {AT_FLAGS, 0},
      {AT_ENTRY, exe.entry},   {AT_UID, getuid()},          {AT_EUID, geteuid()},
      {AT_GID, getgid()},      {AT_EGID, getegid()},        {AT_SECURE, 0},
      {AT_HWCAP, main_->hart.csr.isa.letters()},      {AT_CLKTCK, 100},            {AT_RANDOM, at_random},
      {AT_EXECFN, execfn},     {AT_NULL, 0}};

  // argc, argv[], NULL, envp[], NULL, auxv pairs; sp 16-byte aligned at argc, as the ABI requires.
  size_t words = 1 + argv.size() + 1 + envp.size() + 1 + 2 * auxv.size();
  sp = (sp - words * 8) & ~uint64_t(15);
  std::vector<uint64_t> block;
  block.reserve(words);
  block.push_back(argv.size());
  block.insert(block.end(), argv.begin(), argv.end());
  block.push_back(0);
  block.insert(block.end(), envp.begin(), envp.end());
  block.push_back(0);
  for (auto [k, v] : auxv) {
    block.push_back(k);
    block.push_back(v);
    auxv_.push_back(k);
    auxv_.push_back(v);
  }
  std::memcpy(vm_.base() + sp, block.data(), block.size() * 8);
  main_->hart.x[2] = start_stack_ = sp;
}

UserResult LinuxUser::run() {
  GuestThread& t = *main_;
  t_self = &t;  // another LinuxUser may have been made on this host thread since this one
  if (opt_.recorder) opt_.recorder->start({&t.hart});
  limiter_.start({&t.hart});
  install_host_signals();
  t.started = true;
  t.member.hart = &t.hart;
  group_.join(t.member);
  t.engine->run(t.hart, *this);
  group_.exec_end();
  end_thread(t);
  return finish(t);
}

std::string LinuxUser::signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

bool LinuxUser::die(int sig, const std::string& why) {
  if (!exit_group(128 + sig)) return false;  // another thread ended the process first
  diag_print("brisk: guest killed by {}: {}\n", signal_name(sig), why);
  fatal_signal_ = sig;
  return false;
}

bool LinuxUser::on_trap(Hart& h) {
  if (h.trap.cause == cause::kEcallFromU) {
    std::array<uint64_t, 6> a = {h.x[10], h.x[11], h.x[12], h.x[13], h.x[14], h.x[15]};
    const uint64_t nr = h.x[17];
    // Not a call with a result: it replaces the whole register state.
    if (nr == nr::rt_sigreturn) return sigreturn(h);
    volatile int64_t ret = -EFAULT;
    group_.exec_end();  // other threads' exclusive sections go on while this one is in the kernel
    {
      GuestCopyScope copy;  // a file mapping beyond its end under a buffer brisk copies: EFAULT
      if (!sigsetjmp(copy.fault, 0)) ret = syscall(nr, a);
    }
    group_.exec_start();
    if (thread_ends()) return false;
    h.x[10] = static_cast<uint64_t>(ret);
    // From the program's point of view ecall completed like any other instruction.
    h.pc += 4;
    h.instret++;
    return deliver_signals(h, nr, a[0]);
  }
  const char* what = cause::name(h.trap.cause);
  const auto [sig, code] = signal_for(h.trap.cause);
  // Linux reports these at the instruction's own address, a misaligned jump's too (epc, not the
  // target: arch/riscv/kernel/traps.c).
  const bool at_pc = sig == SIGILL || sig == SIGTRAP || h.trap.cause == cause::kInstructionAddressMisaligned;
  // A page fault on a mapped page is a protection fault.
  const bool mapped = sig == SIGSEGV && vm_.accessible(h.trap.tval, 1, 0);
  if (deliver_fault(h, sig, mapped ? kSegvAccerr : code, at_pc ? h.pc : h.trap.tval)) return true;
  if (h.trap.cause == cause::kIllegalInstruction) {
    // Name what the bits would be with every extension on, and the extension --cpu switched off.
    const Insn full = decode(static_cast<uint32_t>(h.trap.tval), IsaConfig{});
    std::string name;
    if (full.op != Op::ILLEGAL) {
      name = " (" + disassemble(full, h.pc);
      const Ext e = full.len == 2 && !h.csr.isa.has(Ext::C) ? Ext::C : op_info(full.op).ext;
      if (!h.csr.isa.has(e)) name += fmt::format(": extension {} is off", ext_name(e));
      name += ")";
    }
    return die(sig, fmt::format("{} {:#x}{} at pc {:#x}", what, h.trap.tval, name, h.pc));
  }
  return die(sig, fmt::format("{} at pc {:#x}, address {:#x}", what, h.pc, h.trap.tval));
}

bool LinuxUser::load(Hart& h, uint64_t va, void*, unsigned) {
  h.raise(cause::kLoadPageFault, va);
  return false;
}
bool LinuxUser::store(Hart& h, uint64_t va, const void*, unsigned) {
  h.raise(cause::kStoreAmoPageFault, va);
  return false;
}
void* LinuxUser::amo(Hart& h, uint64_t va, unsigned) {
  h.raise(cause::kStoreAmoPageFault, va);
  return nullptr;
}
// Fetches read vm_'s map unlocked: it changes only while every thread running guest code is parked.
bool LinuxUser::fetch16(Hart& h, uint64_t va, uint16_t& out) {
  if (!vm_.accessible(va, 2, PROT_EXEC)) {
    h.raise(cause::kInstructionPageFault, va);
    return false;
  }
  std::memcpy(&out, vm_.base() + va, 2);
  return true;
}

bool LinuxUser::fetch_address(Hart& h, uint64_t va, uint64_t& pa) {
  if (!vm_.accessible(va, 2, PROT_EXEC)) {
    h.raise(cause::kInstructionPageFault, va);
    return false;
  }
  pa = va;
  return true;
}

void LinuxUser::watch_code(uint64_t page) {
  std::lock_guard lock(vm_mutex_);
  vm_.watch_code(page);
}

void LinuxUser::unwatch_code(uint64_t page) {
  // One engine let go of the page (a store to it faulted, or its code cache filled up): the page
  // becomes writable, so no other thread's engine may keep code made from it.
  // Inside the section: a thread that translated from the page after the others dropped their
  // code, and before it became writable, would keep code nothing watches.
  const bool outer = !group_.in_section();
  Exclusive ex(*this);
  if (outer) invalidate_all(page, page + GuestVm::kPage);
  std::lock_guard lock(vm_mutex_);
  vm_.unwatch_code(page);
}

bool LinuxUser::watches_code(uint64_t page) {
  std::lock_guard lock(vm_mutex_);
  return vm_.watches_code(page, GuestVm::kPage);
}

void* LinuxUser::guest_ptr(uint64_t va, uint64_t count, uint64_t size, int prot) {
  uint64_t len;
  if (__builtin_mul_overflow(count, size, &len)) return nullptr;
  {
    std::lock_guard lock(vm_mutex_);
    if (!vm_.accessible(va, len, prot)) return nullptr;
    if (!(prot & PROT_WRITE) || !vm_.watches_code(va, len)) return vm_.base() + va;
  }
  // The host is to write translated code: every thread's engine drops it first.
  Exclusive ex(*this);
  std::lock_guard lock(vm_mutex_);
  vm_.before_host_write(va, len);
  return vm_.base() + va;
}

bool LinuxUser::guest_string(uint64_t va, std::string& out, size_t max) {
  out.clear();
  std::lock_guard lock(vm_mutex_);
  for (;;) {
    uint64_t page_end = GuestVm::page_down(va) + GuestVm::kPage;
    if (!vm_.accessible(va, page_end - va, PROT_READ)) return false;
    const char* p = reinterpret_cast<const char*>(vm_.base() + va);
    size_t n = strnlen(p, page_end - va);
    out.append(p, n);
    if (va + n < page_end) return true;
    if (out.size() > max) return false;
    va = page_end;
  }
}

int LinuxUser::guest_fd(uint64_t v) {
  const int fd = static_cast<int>(v);
  return own_fd(fd) ? -1 : fd;
}

std::string LinuxUser::host_path(const std::string& guest) {
  if (!opt_.sysroot.empty() && !guest.empty() && guest[0] == '/') {
    std::string p = opt_.sysroot + guest;
    if (faccessat(AT_FDCWD, p.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) return p;
  }
  return guest;
}

}  // namespace brisk
