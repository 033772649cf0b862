// The user-mode system call layer (runtime/linux_syscalls, runtime/linux_user): a few ecalls with
// numbers and arguments from the input, made by a tiny static program, after the input's bytes were
// copied into the program's memory (paths, structs, iovecs).
//
// The calls reach the host kernel, so the fuzzer confines them: it runs in user, mount and network
// namespaces of its own (sockets reach only its own loopback), chrooted into its working directory
// (scripts/fuzz makes a fresh one and marks it with .brisk-fuzz-sandbox), with files capped at 1 MiB.
// What is created there is removed after each input; the program's stdin, stdout and stderr are
// /dev/null. Calls that would change the fuzzer's limits or process group, signal another process,
// take the fuzzer's own descriptors, or wait are rewritten or not made (confine); a host wait that
// slips through is cut short by a watchdog signal (watchdog).
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <net/if.h>
#include <sanitizer/common_interface_defs.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>

#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "csr/causes.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/linux_syscall_nr.h"
#include "runtime/linux_user.h"
#include "tests/fuzz/fuzz.h"
#include "tests/riscv_elf.h"

using namespace brisk;

namespace {

constexpr uint64_t kText = 0x10000;        // the program: one RWX segment
constexpr uint64_t kScratch = 0x11000;     // where the input's bytes go
constexpr uint64_t kScratchSize = 0xf000;  // to the end of the segment
constexpr uint64_t kTimeoutSlot = kText + 0x800;  // a timespec of the fuzzer's, past the code
// How long a call waits: its timeouts at most kTimeoutNs, else until the watchdog's next signal.
constexpr long kTimeoutNs = 10'000, kWatchdogNs = 100'000;
constexpr unsigned kMaxCalls = 16;
const char* const kProgram = "/prog";

std::set<int> g_own_fds;  // the fuzzer's descriptors (and brisk's diag_fd): never the guest's
// What the working directory held at the start, by inode: comparing names would hand them to
// the fuzzer's dictionary, and from there to the guest's renameat.
std::set<ino_t> g_own_files;
int g_null = -1, g_saved[3] = {-1, -1, -1};
// The real-time signals the fuzzer blocks: all but the watchdog's (LLVMFuzzerInitialize).
sigset_t g_blocked_rt;
timer_t g_watchdog;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_syscall: %s: %s\n", what, strerror(errno));
  std::exit(1);
}

void write_file(const char* path, const std::string& text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) fail(path);
  close(fd);
}

// A static riscv64 ELF: one PT_LOAD of kText..kText + 64 KiB, read-write-execute, entry at kText.
std::vector<uint8_t> tiny_elf() {
  constexpr size_t kHeaders = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_flags = PF_R | PF_W | PF_X;
  ph.p_vaddr = ph.p_paddr = kText;
  ph.p_filesz = kHeaders + 4;
  ph.p_memsz = kScratch + kScratchSize - kText;
  ph.p_align = 0x1000;
  std::vector<uint8_t> out = test::riscv_elf(kText + kHeaders, {ph}, ph.p_filesz);
  const uint32_t ecall = 0x00000073;
  std::memcpy(out.data() + kHeaders, &ecall, 4);
  return out;
}

// Removes `name` under dirfd and everything in it, whatever its permissions.
void remove_tree(int dirfd, const char* name) {
  if (unlinkat(dirfd, name, 0) == 0) return;
  fchmodat(dirfd, name, 0700, 0);
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    DIR* d = fdopendir(fd);
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) remove_tree(fd, e->d_name);
    closedir(d);
  }
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

std::set<std::string> list_dir(const char* path) {
  std::set<std::string> names;
  DIR* d = opendir(path);
  if (!d) fail(path);
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.insert(e->d_name);
  closedir(d);
  return names;
}

ino_t inode(const std::string& name) {
  struct stat st;
  return fstatat(AT_FDCWD, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_ino : 0;
}

// What one input may leave behind is undone: files, descriptors, cwd, umask, root's mode.
void restore() {
  for (int k = 0; k < 3; k++) dup2(g_saved[k], k);
  int prev = 2;
  for (int fd : g_own_fds) {
    if (fd > prev + 1) syscall(SYS_close_range, prev + 1, fd - 1, 0);
    prev = std::max(prev, fd);
  }
  syscall(SYS_close_range, prev + 1, ~0u, 0);
  if (chdir("/") != 0) fail("chdir /");
  chmod("/", 0755);
  umask(022);
  for (const std::string& name : list_dir("/"))
    if (!g_own_files.count(inode(name))) remove_tree(AT_FDCWD, name.c_str());
}

bool own_fd(uint64_t fd) { return fd > 2 && g_own_fds.count(static_cast<int>(fd)); }

// The watchdog: a host timer that signals the fuzzer's thread every kWatchdogNs while a call runs
// (again and again, as one may come just before the wait starts). Its handler does nothing and has
// no SA_RESTART, so any host wait confine did not bound (a wait with no timeout, an open that
// waits) returns EINTR, as a signal makes it on Linux, and brisk hands that to the guest. brisk's
// waits that go on after an EINTR (a blocking signalfd read, rt_sigtimedwait) are bounded by
// confine instead.
void watchdog(bool on) {
  const itimerspec every = {{0, on ? kWatchdogNs : 0}, {0, on ? kWatchdogNs : 0}};
  timer_settime(g_watchdog, 0, &every, nullptr);
}

// Copies a timespec between the fuzzer and guest address va through the kernel's checked copy,
// which fails where the fuzzer cannot read (or write) it.
bool copy_timespec(const Hart& h, uint64_t va, timespec& ts, bool to_guest) {
  if (va > GuestVm::kLimit - sizeof ts) return false;
  iovec local = {&ts, sizeof ts}, remote = {h.mem_base + va, sizeof ts};
  const ssize_t n = to_guest ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0)
                             : process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  return n == sizeof ts;
}

// Writes a timeout of kTimeoutNs at guest address va.
bool put_timeout(const Hart& h, uint64_t va) {
  timespec ts = {0, kTimeoutNs};
  return copy_timespec(h, va, ts, true);
}

// Shortens the timeout a call reads at guest address va to at most kTimeoutNs, in place (an absolute
// one is then in the past); an invalid one is left for brisk to refuse. False when there is none or
// the fuzzer cannot reach it, where the watchdog still ends the wait.
bool bound_timeout(const Hart& h, uint64_t va) {
  timespec ts;
  if (!va || !copy_timespec(h, va, ts, false)) return false;
  if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1'000'000'000 || (ts.tv_sec == 0 && ts.tv_nsec <= kTimeoutNs))
    return true;
  return put_timeout(h, va);
}

// A descriptor the call may wait on is made non-blocking first: the guest may have made it blocking
// (fcntl is rewritten, but ioctl FIONBIO is not) or got it from accept, and brisk's signalfd read
// waits unless its descriptor is non-blocking.
void nonblocking(uint64_t fd) {
  const int fl = own_fd(fd) ? -1 : fcntl(static_cast<int>(fd), F_GETFL);
  if (fl >= 0 && !(fl & O_NONBLOCK)) fcntl(static_cast<int>(fd), F_SETFL, fl | O_NONBLOCK);
}

// Rewrites or drops a call whose host effect would reach beyond the sandbox or wait; false to skip
// it. Descriptors that could wait are made non-blocking where the guest makes them, so that its
// flag handling is still exercised.
bool confine(const Hart& h, uint64_t nr, std::array<uint64_t, 6>& a) {
  switch (nr) {
    case nr::setpgid:
    case nr::setsid:
    case nr::setrlimit:
    case nr::sync:
    case nr::mlockall:
    // Its host timer outlives the LinuxUser: only LinuxUser::run, which the fuzzer does not call,
    // deletes it (restore_host_signals).
    case nr::setitimer:
    case nr::clone:      // a host fork: the child would go on fuzzing
    case nr::clone3:
    case nr::execve:     // execs the host's /proc/self/exe, the fuzzer
    case nr::execveat:
      return false;
    case nr::prlimit64: return a[2] == 0;  // reading a limit is fine
    case nr::kill:
    case nr::tkill: a[0] = static_cast<uint64_t>(getpid()); break;
    case nr::tgkill: a[0] = a[1] = static_cast<uint64_t>(getpid()); break;
    case nr::rt_sigqueueinfo: a[0] = static_cast<uint64_t>(getpid()); break;
    case nr::rt_tgsigqueueinfo: a[0] = a[1] = static_cast<uint64_t>(getpid()); break;
    case nr::dup3: return !own_fd(a[1]);
    case nr::close_range:
      for (int fd : g_own_fds)
        if (fd > 2 && fd >= static_cast<int64_t>(static_cast<uint32_t>(a[0]))) {
          a[1] = std::min<uint64_t>(static_cast<uint32_t>(a[1]), static_cast<uint64_t>(fd - 1));
          break;
        }
      break;
    case nr::mmap: a[3] &= ~uint64_t(MAP_POPULATE); break;
    // The pairs are answered up to the first inaccessible one, as on Linux, so a huge count after a
    // large brk writes all of the guest's memory (20 s under ASan). 4096 pairs (64 KiB) still cross
    // pages and the end of a mapping.
    case nr::riscv_hwprobe: a[1] = std::min<uint64_t>(a[1], 4096); break;
    case nr::madvise: return a[2] != MADV_POPULATE_READ && a[2] != MADV_POPULATE_WRITE;

    // --- waits: timeouts of at most kTimeoutNs; without one, the watchdog ends them ---
    case nr::futex:
      if ((a[1] & FUTEX_CMD_MASK) == FUTEX_WAIT || (a[1] & FUTEX_CMD_MASK) == FUTEX_WAIT_BITSET)
        bound_timeout(h, a[3]);
      break;
    case nr::nanosleep: bound_timeout(h, a[0]); break;
    case nr::clock_nanosleep: bound_timeout(h, a[2]); break;
    case nr::ppoll: bound_timeout(h, a[2]); break;
    case nr::pselect6: bound_timeout(h, a[4]); break;
    case nr::epoll_pwait: a[3] = 0; break;
    case nr::epoll_pwait2: bound_timeout(h, a[3]); break;
    case nr::rt_sigtimedwait:  // waits on through the watchdog's EINTRs: it needs a timeout
      if (!bound_timeout(h, a[2])) {
        if (!put_timeout(h, kTimeoutSlot)) return false;
        a[2] = kTimeoutSlot;
      }
      break;

    // --- descriptors whose reads or writes wait ---
    case nr::pipe2: a[1] |= O_NONBLOCK; break;
    case nr::eventfd2: a[1] |= EFD_NONBLOCK; break;
    case nr::timerfd_create: a[1] |= TFD_NONBLOCK; break;
    case nr::signalfd4: a[3] |= SFD_NONBLOCK; break;
    case nr::inotify_init1: a[0] |= IN_NONBLOCK; return true;  // a[0] is the flags
    case nr::socket:
    case nr::socketpair: {
      // The families the network namespace confines; others reach the kernel's or the machine's
      // other endpoints (netlink, packet, vsock, ...).
      const int family = static_cast<int>(a[0]);
      if (family != AF_UNIX && family != AF_INET && family != AF_INET6) return false;
      a[1] |= SOCK_NONBLOCK;
      return true;
    }
    case nr::accept4: a[3] |= SOCK_NONBLOCK; [[fallthrough]];
    case nr::accept:
    case nr::connect:
    case nr::read:
    case nr::readv:
    case nr::pread64:
    case nr::preadv:
    case nr::write:
    case nr::writev:
    case nr::pwrite64:
    case nr::pwritev: nonblocking(a[0]); break;
    case nr::sendfile:
      nonblocking(a[0]);
      nonblocking(a[1]);
      break;
    case nr::sendto:
    case nr::recvfrom:
    case nr::sendmmsg:
    case nr::recvmmsg: a[3] |= MSG_DONTWAIT; nonblocking(a[0]); break;
    case nr::sendmsg:
    case nr::recvmsg: a[2] |= MSG_DONTWAIT; nonblocking(a[0]); break;
    case nr::fcntl:
      switch (static_cast<int>(a[1])) {
        case F_SETFL: a[2] = (a[2] | O_NONBLOCK) & ~uint64_t(O_ASYNC); break;  // O_ASYNC: SIGIO to the fuzzer
        case F_OFD_SETLKW: a[1] = F_OFD_SETLK; break;  // another open of the file may hold the lock
        case F_NOTIFY:    // a directory's changes signal the fuzzer
        case F_SETLEASE:  // a lease's break signals the fuzzer and makes the opener wait
          return false;
        default: break;
      }
      break;
    default: break;
  }
  // Most calls that take a descriptor take it first.
  return !own_fd(a[0]);
}

// The ecall, with the watchdog armed.
bool ecall(LinuxUser& user, Hart& h, uint64_t nr, const std::array<uint64_t, 6>& a) {
  for (int k = 0; k < 6; k++) h.x[10 + k] = a[k];
  h.x[17] = nr;
  h.trap = {cause::kEcallFromU, 0};
  watchdog(true);
  const bool on = user.on_trap(h);
  watchdog(false);
  return on;
}

// Deletes the input's POSIX timers, whose host timers would outlive the LinuxUser (as setitimer's),
// and drops the signals they raised.
void end_input(LinuxUser& user, Hart& h, bool timers) {
  for (uint64_t id = 0; timers && id < LinuxUser::kMaxTimers; id++) ecall(user, h, nr::timer_delete, {id});
  const timespec zero{};
  while (sigtimedwait(&g_blocked_rt, nullptr, &zero) > 0) {
  }
}

}  // namespace

// LeakSanitizer needs /proc, which the chroot hides; the other targets check for leaks.
extern "C" int __lsan_is_turned_off() { return 1; }

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (access(".brisk-fuzz-sandbox", F_OK) != 0) {
    std::fprintf(stderr,
                 "fuzz_syscall: run me in a scratch directory marked with .brisk-fuzz-sandbox (scripts/fuzz does);\n"
                 "its contents are the guest's to change\n");
    std::exit(1);
  }
  g_null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int k = 0; k < 3; k++) g_saved[k] = fcntl(k, F_DUPFD_CLOEXEC, 100);
  if (g_null < 0 || g_saved[0] < 0 || g_saved[1] < 0 || g_saved[2] < 0) fail("saving stdio");
  // brisk's own stderr (its warnings about each input's calls) is /dev/null, opened now so that it
  // counts as the fuzzer's.
  dup2(g_null, STDERR_FILENO);
  diag_fd();
  dup2(g_saved[2], STDERR_FILENO);
  // Sanitizer reports go to the real stderr even while the guest's is /dev/null. (In the chroot they
  // are not symbolized: addr2line -f -C -e fuzz_syscall OFFSET names the frames.)
  __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<intptr_t>(g_saved[2])));
  DIR* d = opendir("/proc/self/fd");
  if (!d) fail("/proc/self/fd");
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d)) g_own_fds.insert(atoi(e->d_name));
  closedir(d);

  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) != 0) fail("unshare (user namespaces)");
  write_file("/proc/self/setgroups", "deny");
  write_file("/proc/self/uid_map", fmt::format("{} {} 1", uid, uid));
  write_file("/proc/self/gid_map", fmt::format("{} {} 1", gid, gid));
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("mount --make-rprivate /");
  if (chroot(".") != 0 || chdir("/") != 0) fail("chroot");
  const rlimit fsize = {1 << 20, 1 << 20};
  if (setrlimit(RLIMIT_FSIZE, &fsize) != 0) fail("setrlimit");
  for (const std::string& name : list_dir("/")) g_own_files.insert(inode(name));

  // The namespace's loopback, down when it is made: up, so that guest sockets reach each other.
  ifreq lo{};
  std::strcpy(lo.ifr_name, "lo");
  const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  lo.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
  if (s < 0 || ioctl(s, SIOCSIFFLAGS, &lo) != 0) fail("bringing up lo");
  close(s);

  // brisk catches its host timer signals (ITIMER_REAL's, the POSIX timers') only inside
  // LinuxUser::run, which the fuzzer does not call: every real-time signal but the watchdog's stays
  // blocked, and what an input's timers raised is dropped after it (end_input).
  sigemptyset(&g_blocked_rt);
  for (int sig = SIGRTMIN + 1; sig <= SIGRTMAX; sig++) sigaddset(&g_blocked_rt, sig);
  pthread_sigmask(SIG_BLOCK, &g_blocked_rt, nullptr);
  struct sigaction wake {};
  wake.sa_handler = [](int) {};  // no SA_RESTART: the wait returns EINTR
  sigemptyset(&wake.sa_mask);
  sigaction(SIGRTMIN, &wake, nullptr);
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGRTMIN;
  ev._sigev_un._tid = gettid();
  if (timer_create(CLOCK_MONOTONIC, &ev, &g_watchdog) != 0) fail("timer_create (watchdog)");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  struct Call {
    uint16_t nr;
    std::array<uint64_t, 6> a;
  };
  std::vector<Call> calls(std::min<unsigned>(in.take<uint8_t>(), kMaxCalls));
  for (Call& c : calls) {
    c.nr = in.take<uint16_t>();
    for (uint64_t& arg : c.a) {
      const uint8_t how = in.take<uint8_t>();
      const uint64_t v = in.take<uint64_t>();
      switch (how % 5) {
        case 0: arg = v; break;                                 // as is
        case 1: arg = kScratch + v % kScratchSize; break;       // into the input's bytes
        case 2: arg = v % 64; break;                            // a small number (fds, flags)
        case 3: arg = static_cast<uint64_t>(-100); break;       // AT_FDCWD
        case 4: arg = GuestVm::kStackTop - 1 - v % 4096; break; // the top of the stack
      }
    }
  }

  const std::vector<uint8_t> elf = tiny_elf();
  int fd = open(kProgram, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (fd < 0 || write(fd, elf.data(), elf.size()) != static_cast<ssize_t>(elf.size())) fail(kProgram);
  close(fd);
  UserOptions opt;
  opt.program = kProgram;
  opt.argv = {kProgram};
  opt.engine.name = "interp";
  {
    LinuxUser user(opt);
    Hart h = user.hart();
    std::memcpy(h.mem_base + kScratch, in.rest(), std::min<size_t>(in.left(), kScratchSize));
    for (int k = 0; k < 3; k++) dup2(g_null, k);
    // A write past the file size limit fails with EFBIG instead (libFuzzer's handler would exit).
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    bool timers = false;
    for (Call& c : calls) {
      if (!confine(h, c.nr, c.a)) continue;
      timers |= c.nr == nr::timer_create;
      if (!ecall(user, h, c.nr, c.a)) break;  // exit, or a fatal signal to itself
    }
    end_input(user, h, timers);
  }
  restore();
  return 0;
}
