// Processes in user mode. A guest's fork is a host fork of brisk, so the child has its own copy of
// guest memory and of the code cache (MAP_SHARED guest mappings stay shared, as in Linux); a
// guest's execve execs brisk again on the new program, in the same process, with the same options.
#include <elf.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "jit/llvm/region.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/linux_user.h"

namespace brisk {

namespace {

int64_t host(long r) { return r < 0 ? -errno : r; }


// clone3's flag for a child whose handled signals start at SIG_DFL (include/uapi/linux/sched.h);
// glibc's posix_spawn asks for it.
constexpr uint64_t kCloneClearSighand = 1ull << 32;

// The clone flags a process (not a thread) can be made with. CLONE_VM only with CLONE_VFORK: vfork
// runs as a fork whose parent waits for the child's exec or exit, which Linux allows.
constexpr uint64_t kCloneProcessFlags = CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | CLONE_CHILD_SETTID |
                                        CLONE_CHILD_CLEARTID | CLONE_SETTLS | kCloneClearSighand;

// warn_once keys: the syscalls' numbers (runtime/linux_syscalls.def).
constexpr uint64_t kCloneWarning = 220, kExecveWarning = 221, kClone3Warning = 435;

// struct clone_args (include/uapi/linux/sched.h): CLONE_ARGS_SIZE_VER0 is 64 bytes, VER2 88.
struct CloneArgs {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
static_assert(sizeof(CloneArgs) == 88);
constexpr uint64_t kCloneArgsSizeVer0 = 64;

// Linux's bounds on execve's strings (include/uapi/linux/binfmts.h, fs/exec.c): MAX_ARG_STRLEN per
// string, MAX_ARG_STRINGS strings, and a quarter of the default 8 MiB stack for all of them.
constexpr size_t kMaxArgStrlen = 32 * 4096;
constexpr size_t kMaxArgStrings = 0x7fffffff;
constexpr uint64_t kMaxArgBytes = 2 << 20;
// BINPRM_BUF_SIZE: how much of a file Linux reads to recognise it; and how deep #! nests.
constexpr size_t kBinprmBufSize = 256;
constexpr int kMaxInterpreterDepth = 4;

// siginfo_t of riscv64 as waitid writes it (include/uapi/asm-generic/siginfo.h): 128 bytes, the
// SIGCHLD fields after the three ints and the union's 8-byte alignment.
struct RvSiginfoChld {
  int32_t signo, err, code, pad;
  int32_t pid, uid, status, pad2;
  int64_t utime, stime;
  uint8_t rest[128 - 48];
};
static_assert(sizeof(RvSiginfoChld) == 128);

// What execve would run: a riscv64 ELF, or a reason it cannot.
int64_t check_riscv64_elf(const char* head, ssize_t n) {
  if (n < static_cast<ssize_t>(sizeof(Elf64_Ehdr)) || std::memcmp(head, ELFMAG, SELFMAG) != 0) return -ENOEXEC;
  Elf64_Ehdr eh;
  std::memcpy(&eh, head, sizeof eh);
  return eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == EM_RISCV ? 0 : -ENOEXEC;
}

// A memfd holding `block`, open across exec, far above the guest's descriptors; or -errno.
int guest_env_memfd(const std::string& block) {
  const int low = static_cast<int>(::syscall(SYS_memfd_create, "brisk-guest-env", 0u));
  if (low < 0) return -errno;
  // Under a descriptor limit below the floor, where it is.
  int fd = ::fcntl(low, F_DUPFD, kOwnFdFloor);
  if (fd < 0) fd = low;
  else ::close(low);
  for (size_t done = 0; done < block.size();) {
    const ssize_t n = ::write(fd, block.data() + done, block.size() - done);
    if (n <= 0) {
      ::close(fd);
      return n < 0 ? -errno : -EIO;
    }
    done += static_cast<size_t>(n);
  }
  return fd;
}

}  // namespace

std::vector<std::string> read_guest_env(int fd) {
  std::string block;
  char buf[65536];
  ssize_t n;
  while ((n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(block.size()))) > 0) block.append(buf, static_cast<size_t>(n));
  if (n < 0) throw Error("--guest-env-fd {}: {}", fd, std::strerror(errno));
  ::close(fd);
  std::vector<std::string> env;
  for (size_t at = 0; at < block.size();) {
    const size_t end = block.find('\0', at);
    env.push_back(block.substr(at, end - at));
    at = end == std::string::npos ? block.size() : end + 1;
  }
  return env;
}

int64_t LinuxUser::clone_process(uint64_t flags, uint64_t exit_signal, uint64_t sp, uint64_t ptid, uint64_t tls,
                                 uint64_t ctid) {
  // As kernel/fork.c copy_process: a thread shares the signal actions, which need shared memory.
  if (((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND)) || ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM)) ||
      ((flags & CLONE_SIGHAND) && (flags & kCloneClearSighand)))
    return -EINVAL;
  if (flags & CLONE_THREAD) return clone_thread(flags, sp, ptid, tls, ctid);
  if (((flags & CLONE_VM) && !(flags & CLONE_VFORK)) || (flags & ~kCloneProcessFlags)) {
    warn_once(kCloneWarning, fmt::format("clone with flags {:#x} (threads, namespaces) is not implemented; "
                                            "returning -ENOSYS", flags));
    return -ENOSYS;
  }
  if (exit_signal != 0 && !valid_signal(static_cast<int64_t>(exit_signal))) return -EINVAL;
  auto* parent_tid = (flags & CLONE_PARENT_SETTID) ? static_cast<int32_t*>(guest_ptr(ptid, 1, 4, PROT_WRITE)) : nullptr;
  auto* child_tid = (flags & CLONE_CHILD_SETTID) ? static_cast<int32_t*>(guest_ptr(ctid, 1, 4, PROT_WRITE)) : nullptr;
  if (((flags & CLONE_PARENT_SETTID) && !parent_tid) || ((flags & CLONE_CHILD_SETTID) && !child_tid)) return -EFAULT;
  // Buffered output would be written twice, once by each process.
  std::fflush(nullptr);
  long pid;
  {
    // The other threads hold none of brisk's locks while they are parked, and the child has
    // only this one (as Linux's fork copies only the calling thread).
    Exclusive ex(*this);
    std::lock_guard vm(vm_mutex_);
    std::lock_guard group(group_mutex_);
    std::lock_guard compilers(tier2::work_lock());
    // No CLONE_VM for the host: the child's brisk needs its own memory.
    pid = ::syscall(SYS_clone, exit_signal | (flags & CLONE_VFORK), 0, nullptr, nullptr, 0);
    if (pid == 0) after_fork_threads();
  }
  if (pid < 0) return -errno;
  if (pid > 0) {
    if (parent_tid) *parent_tid = static_cast<int32_t>(pid);
    return pid;
  }
  opt_.forked = true;
  // The parent's CTR dump and profile are the parent's: a child that wrote its own at exit would
  // clobber them. brisk record samples the process it started only.
  ctr_dump_.reset();
  opt_.recorder = nullptr;
  limiter_.after_fork();
  self().engine->after_fork();
  itimer_made_ = false;  // POSIX timers are not inherited: the child makes its own ITIMER_REAL
  timers_ = {};
  self().sig.pending = 0;  // as Linux's: none of the parent's pending signals
  self().sig.queued.clear();
  if (flags & kCloneClearSighand)
    for (SigAction& act : sigactions_)  // as kernel/signal.c flush_signal_handlers: ignored ones stay ignored
      act = {act.handler == reinterpret_cast<uint64_t>(SIG_IGN) ? act.handler : 0, 0, 0};
  signalfds_after_fork();
  if (child_tid) *child_tid = static_cast<int32_t>(getpid());
  // CLONE_CHILD_CLEARTID clears and wakes at exit for threads sharing the word; in a process with
  // memory of its own nobody could see it.
  self().clear_child_tid = 0;
  if (sp) self().hart.x[2] = sp;
  if (flags & CLONE_SETTLS) self().hart.x[4] = tls;
  return 0;
}

int64_t LinuxUser::clone3(uint64_t args, uint64_t size) {
  // As kernel/fork.c copy_clone_args_from_user: a known prefix, and zeros in what this kernel
  // does not know.
  if (size < kCloneArgsSizeVer0) return -EINVAL;
  if (size > GuestVm::kPage) return -E2BIG;
  const auto* raw = static_cast<const uint8_t*>(guest_ptr(args, size, 1, PROT_READ));
  if (!raw) return -EFAULT;
  CloneArgs ca{};
  std::memcpy(&ca, raw, std::min<uint64_t>(size, sizeof ca));
  for (uint64_t k = sizeof ca; k < size; k++)
    if (raw[k]) return -E2BIG;
  if ((ca.flags & CSIGNAL) || ca.exit_signal > kSignals) return -EINVAL;
  if (!ca.stack != !ca.stack_size) return -EINVAL;
  if (ca.set_tid || ca.set_tid_size || ca.cgroup || (ca.flags & CLONE_PIDFD)) {
    warn_once(kClone3Warning, "clone3 with set_tid, a cgroup or CLONE_PIDFD is not implemented; returning -ENOSYS");
    return -ENOSYS;
  }
  return clone_process(ca.flags, ca.exit_signal, ca.stack ? ca.stack + ca.stack_size : 0, ca.parent_tid, ca.tls,
                       ca.child_tid);
}

int64_t LinuxUser::guest_strings(uint64_t va, std::vector<std::string>& out, uint64_t& total) {
  out.clear();
  if (!va) return 0;  // Linux takes a NULL argv or envp as empty
  for (uint64_t k = 0;; k++) {
    if (k >= kMaxArgStrings) return -E2BIG;
    const auto* p = static_cast<const uint64_t*>(guest_ptr(va + 8 * k, 1, 8, PROT_READ));
    if (!p) return -EFAULT;
    if (!*p) return 0;
    std::string s;
    if (!guest_string(*p, s, kMaxArgStrlen)) return s.size() > kMaxArgStrlen ? -E2BIG : -EFAULT;
    if (s.size() + 1 > kMaxArgStrlen) return -E2BIG;  // its NUL included
    total += s.size() + 1 + 8;
    if (total > kMaxArgBytes) return -E2BIG;
    out.push_back(std::move(s));
  }
}

int64_t LinuxUser::execve(int dirfd, uint64_t path_va, uint64_t argv_va, uint64_t envp_va, int flags) {
  if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) return -EINVAL;
  std::string path;
  if (!guest_string(path_va, path)) return -EFAULT;
  std::vector<std::string> argv, envp;
  uint64_t total = 0;
  if (int64_t r = guest_strings(argv_va, argv, total); r < 0) return r;
  if (int64_t r = guest_strings(envp_va, envp, total); r < 0) return r;
  // Linux (since 5.18) runs a program given no argv with argv[0] = "".
  if (argv.empty()) argv.emplace_back();

  // The file as the host names it: through --sysroot as open does, or relative to dirfd.
  std::string file;
  if (path.empty()) {
    if (!(flags & AT_EMPTY_PATH)) return -ENOENT;
    if (guest_fd(static_cast<uint64_t>(dirfd)) < 0) return -EBADF;
    file = fmt::format("/proc/self/fd/{}", dirfd);
  } else if (path[0] != '/' && dirfd != AT_FDCWD) {
    if (guest_fd(static_cast<uint64_t>(dirfd)) < 0) return -EBADF;
    file = fmt::format("/proc/self/fd/{}/{}", dirfd, path);
  } else {
    file = host_path(path);
  }

  // A #! script runs its interpreter with the script's name as an argument, as fs/binfmt_script.c.
  std::string guest_name = path;
  for (int depth = 0;; depth++) {
    const int f = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | (flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0));
    if (f < 0) return -errno;
    struct stat st;
    char head[kBinprmBufSize + 1];
    ssize_t n = -1;
    int64_t err = 0;
    if (::fstat(f, &st) != 0) err = -errno;
    else if (!S_ISREG(st.st_mode) || ::faccessat(AT_FDCWD, file.c_str(), X_OK, AT_EACCESS) != 0) err = -EACCES;
    else if ((n = ::pread(f, head, kBinprmBufSize, 0)) < 0) err = -errno;
    ::close(f);
    if (err) return err;
    if (n < 2 || head[0] != '#' || head[1] != '!') {
      if (int64_t r = check_riscv64_elf(head, n); r < 0) return r;
      break;
    }
    if (depth == kMaxInterpreterDepth) return -ELOOP;
    head[n] = '\0';
    std::string line(head + 2, strcspn(head + 2, "\n"));
    const char* blank = " \t";
    const size_t i0 = line.find_first_not_of(blank);
    if (i0 == std::string::npos) return -ENOEXEC;
    const size_t i1 = std::min(line.find_first_of(blank, i0), line.size());
    const std::string interp = line.substr(i0, i1 - i0);
    std::string arg;
    if (const size_t a0 = line.find_first_not_of(blank, i1); a0 != std::string::npos) {
      arg = line.substr(a0);
      arg.erase(arg.find_last_not_of(blank) + 1);
    }
    std::vector<std::string> next = {interp};
    if (!arg.empty()) next.push_back(arg);
    next.push_back(guest_name);
    next.insert(next.end(), argv.begin() + 1, argv.end());
    argv = std::move(next);
    guest_name = interp;
    file = host_path(interp);
    flags &= ~AT_SYMLINK_NOFOLLOW;
  }

  // brisk again, with its options but those that name this process's own run.
  const auto& own = opt_.brisk_argv;
  if (own.empty()) {  // brisk record, or a LinuxUser made without a command line (tests/unit)
    warn_once(kExecveWarning, "execve is not implemented under brisk record; returning -ENOSYS");
    return -ENOSYS;
  }
  std::vector<std::string> args;
  for (size_t k = 0; k < own.size(); k++) {
    const std::string& s = own[k];
    if (s == "--forked" || s.starts_with("--argv0=") || s.starts_with("--guest-env-fd=")) continue;
    if (s == "--argv0" || s == "--guest-env-fd") {
      k++;
      continue;
    }
    // A child's exec must not truncate the CTR dump of the process that forked it.
    if (opt_.forked && (s == "--ctr-dump" || s.starts_with("--ctr-dump="))) continue;
    args.push_back(s);
  }
  if (opt_.forked) args.emplace_back("--forked");
  // The guest's environment goes to the new brisk in a memfd, so that what the guest sets (LD_PRELOAD,
  // LD_LIBRARY_PATH, ...) never reaches the host's loader; brisk runs with the environment it started with.
  std::string env_block;
  for (const auto& s : envp) env_block.append(s).push_back('\0');
  const int env_fd = guest_env_memfd(env_block);
  if (env_fd < 0) return env_fd;
  args.insert(args.end(), {"--guest-env-fd", std::to_string(env_fd)});
  // PROG ends brisk's options; one that starts with '-' would read as an option.
  if (file[0] == '-') file = "./" + file;
  args.insert(args.end(), {"--argv0", argv[0], file});
  args.insert(args.end(), argv.begin() + 1, argv.end());
  std::vector<char*> host_argv;
  for (auto& s : args) host_argv.push_back(s.data());
  host_argv.push_back(nullptr);
  std::fflush(nullptr);
  // The host's /proc/self/exe is brisk's binary even when its path has been replaced since. brisk's
  // own descriptors are all O_CLOEXEC; the guest's without FD_CLOEXEC stay open, as in Linux.
  ::execve("/proc/self/exe", host_argv.data(), environ);
  const int e = errno;
  ::close(env_fd);
  diag_print("brisk: cannot exec brisk for the guest's execve of {}: {}\n", path, std::strerror(e));
  return -e;
}

int64_t LinuxUser::wait4(int64_t pid, uint64_t status, int options, uint64_t rusage_va) {
  // struct rusage has one layout on riscv64 and x86-64 (longs and timevals of 64-bit longs).
  int* st = status ? static_cast<int*>(guest_ptr(status, 1, 4, PROT_WRITE)) : nullptr;
  void* ru = rusage_va ? guest_ptr(rusage_va, 1, sizeof(struct rusage), PROT_WRITE) : nullptr;
  if ((status && !st) || (rusage_va && !ru)) return -EFAULT;
  return host(::syscall(SYS_wait4, static_cast<pid_t>(pid), st, options, ru));
}

int64_t LinuxUser::waitid(int idtype, int64_t id, uint64_t info, int options, uint64_t rusage_va) {
  auto* out = info ? static_cast<RvSiginfoChld*>(guest_ptr(info, 1, sizeof(RvSiginfoChld), PROT_WRITE)) : nullptr;
  void* ru = rusage_va ? guest_ptr(rusage_va, 1, sizeof(struct rusage), PROT_WRITE) : nullptr;
  if ((info && !out) || (rusage_va && !ru)) return -EFAULT;
  siginfo_t si{};
  const int64_t r = host(::syscall(SYS_waitid, idtype, static_cast<id_t>(id), &si, options, ru));
  if (r < 0 || !out) return r;
  *out = RvSiginfoChld{.signo = si.si_signo, .err = si.si_errno, .code = si.si_code, .pad = 0,
                       .pid = si.si_pid, .uid = static_cast<int32_t>(si.si_uid), .status = si.si_status, .pad2 = 0,
                       .utime = si.si_utime, .stime = si.si_stime, .rest = {}};
  return r;
}

int64_t LinuxUser::prctl(int option, uint64_t arg2) {
  constexpr size_t kTaskCommLen = 16;  // TASK_COMM_LEN, the terminating NUL included
  switch (option) {
    case PR_SET_NAME: {
      // Linux copies up to 16 bytes and keeps 15.
      std::string name;
      for (uint64_t k = 0; k < kTaskCommLen - 1; k++) {
        const auto* c = static_cast<const char*>(guest_ptr(arg2 + k, 1, 1, PROT_READ));
        if (!c) return -EFAULT;
        if (!*c) break;
        name.push_back(*c);
      }
      comm_name_ = name;
      ::prctl(PR_SET_NAME, name.c_str());  // for the host's ps and top too
      return 0;
    }
    case PR_GET_NAME: {
      auto* out = static_cast<char*>(guest_ptr(arg2, kTaskCommLen, 1, PROT_WRITE));
      if (!out) return -EFAULT;
      const std::string name = comm();
      std::memset(out, 0, kTaskCommLen);
      std::memcpy(out, name.data(), std::min(name.size(), kTaskCommLen - 1));
      return 0;
    }
    case PR_SET_PDEATHSIG:
      if (arg2 != 0 && !valid_signal(static_cast<int64_t>(arg2))) return -EINVAL;
      return host(::prctl(PR_SET_PDEATHSIG, arg2));
    case PR_GET_PDEATHSIG: {
      auto* out = static_cast<int*>(guest_ptr(arg2, 1, 4, PROT_WRITE));
      if (!out) return -EFAULT;
      return host(::prctl(PR_GET_PDEATHSIG, out));
    }
    default: return -EINVAL;
  }
}

void LinuxUser::exit_child(int status) {
  std::fflush(nullptr);
  if (fatal_signal_) {
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // a guest's crash is no reason for a core file of brisk's
    signal(fatal_signal_, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, fatal_signal_);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    raise(fatal_signal_);
  }
  // Not a signal that ends a process (SIGCHLD, SIGURG, ...): the status says it.
  _exit(status);
}

}  // namespace brisk
