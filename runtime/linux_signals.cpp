// Guest signals in user mode, as Linux delivers them to a riscv64 process: actions, the thread's mask,
// pending set and alternate stack, handler frames (arch/riscv/kernel/signal.c's rt_sigframe) and
// rt_sigreturn, synchronous faults, host signals sent to brisk, ITIMER_REAL and POSIX timers.
//
// Asynchronous signals are taken at block boundaries: brisk's host handler records the signal and
// asks the hart to leave translated code (Hart::request_exit, as runtime/run_limits.cpp does), and
// on_budget delivers it. A signal also interrupts a blocking host syscall: the host handler has no
// SA_RESTART, so the syscall returns EINTR, and deliver_signals restarts it when Linux would.
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "runtime/fp.h"
#include "runtime/linux_syscall_nr.h"
#include "runtime/linux_user.h"

namespace brisk {

namespace {

constexpr uint64_t sig_bit(int sig) { return 1ull << (sig - 1); }
constexpr uint64_t kUnblockable = sig_bit(SIGKILL) | sig_bit(SIGSTOP);

constexpr int kSsAutodisarm = 1 << 31;  // SS_AUTODISARM (include/uapi/linux/signal.h)
constexpr uint64_t kMinSigStackSize = 2048;  // MINSIGSTKSZ of riscv64 (arch/riscv/include/uapi/asm/signal.h)

// The kernel's first real-time signal (glibc keeps 32 and 33 for itself): these queue.
constexpr int kSigRtMin = 32;

// si_code values (include/uapi/asm-generic/siginfo.h).
constexpr int kSiUser = 0, kSiKernel = 0x80, kSiTimer = -2, kSiTkill = -6;

// The host signal that carries the guest's ITIMER_REAL: one brisk uses for nothing else, so that
// --timeout keeps SIGALRM.
int itimer_signal() { return SIGRTMAX; }
// The one that carries every POSIX timer's expiry, its si_value naming the guest's timer.
int timer_signal() { return SIGRTMAX - 1; }

// struct ucontext of riscv64 (arch/riscv/include/uapi/asm/ucontext.h), with uc_mcontext's
// struct sigcontext: sc_regs (pc, then x1..x31) and the D-extension FP state, whose last 12 bytes
// (sc_extdesc) hold a reserved word and the END header that closes the (empty) list of extension contexts.
struct RvUcontext {
  uint64_t flags, link;
  uint64_t ss_sp;
  int32_t ss_flags, ss_pad;
  uint64_t ss_size;
  uint64_t sigmask;
  uint8_t sigmask_rest[120];  // sigset_t is 1024 bits in the uapi layout
  uint64_t align_pad;
  uint64_t regs[32];
  uint64_t f[32];
  uint32_t fcsr;
  uint32_t fp_rest[64];
  uint32_t ext_reserved;  // must be 0
  uint32_t ext_magic, ext_size;  // END_MAGIC and END_HDR_SIZE: both 0
};
static_assert(offsetof(RvUcontext, sigmask) == 40 && offsetof(RvUcontext, regs) == 176);
static_assert(offsetof(RvUcontext, ext_reserved) == 176 + 256 + 516 && sizeof(RvUcontext) == 960);

struct RvSigframe {
  LinuxUser::SigInfo info;
  RvUcontext uc;
};
static_assert(sizeof(RvSigframe) == 1088);

// The trampoline a handler returns to (Linux's vDSO __vdso_rt_sigreturn): li a7, 139; ecall.
constexpr uint32_t kSigreturnCode[] = {0x08b00893, 0x00000073};
static_assert(nr::rt_sigreturn == 139);

// Set by the host handler, taken by take_host_signals(). One LinuxUser runs at a time per process.
std::atomic<uint64_t> g_host_pending{0};
struct HostSender {
  int code, pid;
  uint32_t uid;
};
HostSender g_sender[LinuxUser::kSignals + 1];
// Each POSIX timer's host expirations not yet taken, and whether any came to this host thread: each
// host timer signals the thread that takes its expirations (PosixTimer::tid).
std::atomic<uint32_t> g_timer_expirations[LinuxUser::kMaxTimers];
thread_local std::atomic<bool> t_timers_expired{false};

void on_host_signal(int sig, siginfo_t* si, void*) {
  if (sig == timer_signal() && si->si_code == kSiTimer) {
    const auto id = static_cast<unsigned>(si->si_value.sival_int);
    const auto count = 1 + static_cast<uint32_t>(std::max(si->si_overrun, 0));
    if (id < LinuxUser::kMaxTimers) g_timer_expirations[id].fetch_add(count, std::memory_order_relaxed);
    t_timers_expired.store(true, std::memory_order_release);
    RunLimiter::interrupt_all();
    return;
  }
  const int guest = sig == itimer_signal() ? SIGALRM : sig;
  g_sender[guest] = sig == itimer_signal() ? HostSender{kSiKernel, 0, 0} : HostSender{si->si_code, si->si_pid, si->si_uid};
  g_host_pending.fetch_or(sig_bit(guest), std::memory_order_release);
  RunLimiter::interrupt_all();  // a thread that does not block it takes it (signal_process)
}

// What Linux does with a signal nobody handles: nothing for these four, else the process ends.
bool ignored_by_default(int sig) { return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT; }

// Syscalls Linux never restarts after a handler (-ERESTARTNOHAND, -ERESTART_RESTARTBLOCK): sleeps and waits.
bool restartable(uint64_t n) {
  switch (n) {
    case nr::nanosleep:
    case nr::clock_nanosleep:
    case nr::ppoll:
    case nr::pselect6:
    case nr::rt_sigsuspend:
    case nr::rt_sigtimedwait:
    case nr::futex:
    case nr::epoll_pwait:
    case nr::epoll_pwait2: return false;
    default: return true;
  }
}

int64_t host(long r) { return r < 0 ? -errno : r; }

// timeval <-> timespec for itimerval (two struct timeval of 64-bit fields on riscv64).
bool to_timespec(const int64_t* tv, timespec& ts) {
  if (tv[0] < 0 || tv[1] < 0 || tv[1] >= 1'000'000) return false;
  ts.tv_sec = tv[0];
  ts.tv_nsec = tv[1] * 1000;
  return true;
}
void to_timeval(const timespec& ts, int64_t* tv) {
  tv[0] = ts.tv_sec;
  tv[1] = (ts.tv_nsec + 999) / 1000;  // a timer still running never reads as 0
  if (tv[1] == 1'000'000) tv[0]++, tv[1] = 0;
}

}  // namespace

bool LinuxUser::on_budget(Hart& h) {
  h.deadline = UINT64_MAX;
  group_.park_if_pending();  // after the store above, as it needs
  if (thread_ends()) return false;
  if (opt_.recorder) opt_.recorder->on_budget(h);
  return !limit_reached(h) && deliver_signals(h);
}

void LinuxUser::install_host_signals() {
  g_host_pending = 0;
  struct sigaction kick {};
  kick.sa_handler = [](int) {};  // no SA_RESTART: only the EINTR matters
  sigemptyset(&kick.sa_mask);
  sigaction(kKickSignal, &kick, nullptr);
  // What execve passes on to the guest: the signal mask, and the signals ignored.
  sigset_t blocked, caught;
  pthread_sigmask(SIG_SETMASK, nullptr, &blocked);
  for (int sig = 1; sig <= kSignals; sig++)
    if (sigismember(&blocked, sig) == 1) self().sig.mask |= sig_bit(sig) & ~kUnblockable;
  struct sigaction sa {};
  sa.sa_sigaction = on_host_signal;
  sa.sa_flags = SA_SIGINFO;  // no SA_RESTART: a blocking host syscall returns EINTR
  sigemptyset(&sa.sa_mask);
  sigemptyset(&caught);
  for (int sig : caught_host_signals()) {
    struct sigaction old;
    if (sigaction(sig, &sa, &old) == 0 && old.sa_handler == SIG_IGN && sig != itimer_signal() && sig != timer_signal())
      sigactions_[sig].handler = reinterpret_cast<uint64_t>(SIG_IGN);
    sigaddset(&caught, sig);
  }
  // The guest's mask holds them back now, not the host's.
  pthread_sigmask(SIG_UNBLOCK, &caught, nullptr);
}

void LinuxUser::restore_host_signals() {
  if (itimer_made_) timer_delete(itimer_);
  itimer_made_ = false;
  for (PosixTimer& t : timers_.slot)
    if (t.used) ::syscall(SYS_timer_delete, t.host);
  timers_ = {};
  for (int sig : caught_host_signals()) signal(sig, SIG_DFL);
  signal(kKickSignal, SIG_DFL);
}

std::vector<int> LinuxUser::caught_host_signals() const {
  std::vector<int> sigs = {SIGHUP, SIGINT, SIGQUIT, SIGUSR2, SIGTERM, SIGCHLD, SIGWINCH, itimer_signal(),
                           timer_signal()};
  if (!opt_.ctr.dump) sigs.push_back(SIGUSR1);        // --ctr-dump's (runtime/run_limits.cpp)
  if (opt_.limits.timeout <= 0) sigs.push_back(SIGALRM);  // --timeout's
  return sigs;
}

void LinuxUser::raise_signal(const SigInfo& info) {
  const uint64_t bit = sig_bit(info.signo);
  ThreadSignals& s = self().sig;
  if (!(s.pending & bit)) s.info[info.signo] = info;
  else if (info.signo >= kSigRtMin && s.queued.size() < kMaxQueuedSignals) s.queued.push_back(info);
  // else, as Linux, one of each non-real-time signal is pending at a time
  s.pending |= bit;
  update_signalfds();
  if (!(s.mask & bit)) self().hart.request_exit();
}

LinuxUser::SigInfo LinuxUser::take_signal(int sig) {
  ThreadSignals& s = self().sig;
  const SigInfo out = s.info[sig];
  s.pending &= ~sig_bit(sig);
  // As Linux's dequeue: a timer's overrun count is its signal's once taken, whatever expires after.
  if (out.code == kSiTimer) {
    const auto id = static_cast<uint32_t>(out.word0);
    if (id < kMaxTimers && timers_.slot[id].used) timers_.slot[id].overrun_last = static_cast<int>(out.word0 >> 32);
  }
  const auto next = std::find_if(s.queued.begin(), s.queued.end(), [&](const SigInfo& i) { return i.signo == sig; });
  if (next != s.queued.end()) {
    s.info[sig] = *next;
    s.queued.erase(next);
    s.pending |= sig_bit(sig);
  }
  return out;
}

void LinuxUser::take_host_signals() {
  uint64_t bits = g_host_pending.exchange(0, std::memory_order_acquire);
  for (int sig = 1; bits; sig++, bits >>= 1) {
    if (!(bits & 1)) continue;
    SigInfo info;
    info.signo = sig;
    info.code = g_sender[sig].code;
    info.word0 = static_cast<uint32_t>(g_sender[sig].pid) | uint64_t(g_sender[sig].uid) << 32;
    signal_process(info);
  }
  if (t_timers_expired.exchange(false, std::memory_order_acquire))
    for (int id = 0; id < kMaxTimers; id++)
      if (timers_.slot[id].tid == self().tid)
        if (const uint32_t n = g_timer_expirations[id].exchange(0, std::memory_order_relaxed)) timer_expired(id, n);
  GuestThread& me = self();
  if (!me.incoming.load(std::memory_order_acquire)) return;
  std::lock_guard lock(group_mutex_);
  me.incoming = 0;
  for (const SigInfo& info : me.incoming_info) raise_signal(info);
  me.incoming_info.clear();
}

void LinuxUser::timer_expired(int id, uint32_t count) {
  PosixTimer& t = timers_.slot[id];
  if (!t.used || t.notify == SIGEV_NONE) return;  // deleted since
  // As Linux, a timer has one signal queued at most: expirations meanwhile count as its overruns.
  ThreadSignals& s = self().sig;
  auto mine = [&](const SigInfo& i) { return i.signo == t.signo && i.code == kSiTimer && static_cast<int32_t>(i.word0) == id; };
  SigInfo* queued = nullptr;
  if ((s.pending & sig_bit(t.signo)) && mine(s.info[t.signo])) queued = &s.info[t.signo];
  else if (const auto q = std::find_if(s.queued.begin(), s.queued.end(), mine); q != s.queued.end()) queued = &*q;
  if (queued) {
    t.overrun = static_cast<int>(std::min<uint64_t>(uint64_t(static_cast<uint32_t>(t.overrun)) + count, INT_MAX));
    queued->word0 = static_cast<uint32_t>(id) | uint64_t(static_cast<uint32_t>(t.overrun)) << 32;
    return;
  }
  t.overrun = static_cast<int>(std::min<uint32_t>(count - 1, INT_MAX));
  SigInfo info;
  info.signo = t.signo;
  info.code = kSiTimer;
  info.word0 = static_cast<uint32_t>(id) | uint64_t(static_cast<uint32_t>(t.overrun)) << 32;  // si_tid, si_overrun
  info.word1 = t.value;                                                                       // si_value
  if (t.to_thread) raise_signal(info);  // this is its thread
  else signal_process(info);
}

void LinuxUser::send_to(GuestThread& t, const SigInfo& info, std::unique_lock<std::mutex>& lock) {
  if (&t == &self()) {
    lock.unlock();
    return raise_signal(info);
  }
  if (t.incoming_info.size() < kMaxQueuedSignals) t.incoming_info.push_back(info);
  t.incoming.fetch_or(sig_bit(info.signo), std::memory_order_release);
  t.hart.request_exit();
  kick(t);
}

bool LinuxUser::signal_tid(int tid, const SigInfo& info) {
  std::unique_lock lock(group_mutex_);
  for (GuestThread* t : live_)
    if (t->tid == tid) {
      if (info.signo) send_to(*t, info, lock);
      return true;
    }
  return false;
}

void LinuxUser::signal_process(const SigInfo& info) {
  const uint64_t bit = sig_bit(info.signo);
  std::unique_lock lock(group_mutex_);
  GuestThread* to = &self();
  // Other threads' masks, read racily: a thread that changes its own now may take the signal late.
  for (GuestThread* t : live_)
    if ((to->sig.mask & bit) && !(t->sig.mask & bit)) to = t;
  send_to(*to, info, lock);
}

int LinuxUser::next_signal() {
  for (uint64_t ready = self().sig.pending & ~self().sig.mask; ready; ready &= ready - 1) {
    const int sig = __builtin_ctzll(ready) + 1;
    const uint64_t handler = sigactions_[sig].handler;
    if (handler == reinterpret_cast<uint64_t>(SIG_IGN) ||
        (handler == reinterpret_cast<uint64_t>(SIG_DFL) && ignored_by_default(sig))) {
      while (self().sig.pending & sig_bit(sig)) take_signal(sig);  // and each one queued
      continue;
    }
    return sig;
  }
  return 0;
}

bool LinuxUser::deliver_signals(Hart& h, uint64_t syscall_nr, uint64_t orig_a0) {
  std::atomic_signal_fence(std::memory_order_seq_cst);  // after the caller's store to h.deadline
  take_host_signals();
  const int sig = next_signal();
  const bool interrupted = syscall_nr != kNoSyscall && static_cast<int64_t>(h.x[10]) == -EINTR;
  // --timeout's timer interrupted the syscall: the run stops after it, as it would at the next block.
  if (interrupted && !sig && limit_reached(h)) return false;
  if (interrupted && (!sig || (restartable(syscall_nr) && (sigactions_[sig].flags & SA_RESTART)))) {
    // The ecall again, with its arguments: it was interrupted by a signal the guest does not see, or
    // by one whose handler asked for SA_RESTART.
    h.pc -= 4;
    h.instret--;
    h.x[10] = orig_a0;
  }
  if (!sig) {
    if (self().sig.saved_mask) self().sig.mask = *std::exchange(self().sig.saved_mask, std::nullopt);
    return true;
  }
  const SigInfo info = take_signal(sig);
  update_signalfds();
  if (sigactions_[sig].handler == reinterpret_cast<uint64_t>(SIG_DFL)) {
    const int pid = static_cast<int>(info.word0);
    const bool own = (info.code == kSiUser || info.code == kSiTkill) && pid == getpid();
    std::string why = own                      ? "sent by the program itself"
                      : info.code == kSiKernel || info.code == kSiTimer ? "its timer expired"
                      : info.code <= kSiUser   ? fmt::format("sent by process {}", pid)
                                               : "sent by the kernel";
    return die(sig, why);
  }
  if (!setup_frame(h, info)) return die(SIGSEGV, fmt::format("no room for the {} handler's frame below sp {:#x}",
                                                            signal_name(sig), h.x[2]));
  // More to deliver: each frame goes on top, so the last one set up runs first, as in Linux.
  if (self().sig.pending & ~self().sig.mask) h.request_exit();
  return true;
}

bool LinuxUser::deliver_fault(Hart& h, int sig, int code, uint64_t addr) {
  const uint64_t handler = sigactions_[sig].handler;
  // A fault the program blocks or ignores kills it (force_sig_fault), as one it does not handle.
  if (handler == reinterpret_cast<uint64_t>(SIG_DFL) || handler == reinterpret_cast<uint64_t>(SIG_IGN) ||
      (self().sig.mask & sig_bit(sig)))
    return false;
  SigInfo info;
  info.signo = sig;
  info.code = code;
  info.word0 = addr;
  return setup_frame(h, info);
}

bool LinuxUser::on_altstack(uint64_t sp) const {
  const AltStack& s = self().sig.altstack;
  return s.size && sp > s.sp && sp - s.sp <= s.size;
}

bool LinuxUser::setup_frame(Hart& h, const SigInfo& info) {
  const int sig = info.signo;
  const SigAction act = sigactions_[sig];
  if (!sigreturn_page_) {
    Exclusive ex(*this);
    std::lock_guard lock(vm_mutex_);
    const int64_t page =
        sigreturn_page_ ? 0 : vm_.map(0, GuestVm::kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page < 0) return false;
    if (page) {  // no other thread's handler made it first
      std::memcpy(vm_.base() + page, kSigreturnCode, sizeof kSigreturnCode);
      vm_.protect(static_cast<uint64_t>(page), GuestVm::kPage, PROT_READ | PROT_EXEC);
      sigreturn_page_ = static_cast<uint64_t>(page);
    }
  }
  uint64_t sp = h.x[2];
  const AltStack alt = self().sig.altstack;
  const bool was_on_alt = on_altstack(sp);
  if ((act.flags & SA_ONSTACK) && alt.size && !was_on_alt) sp = alt.sp + alt.size;
  const uint64_t at = (sp - sizeof(RvSigframe)) & ~uint64_t(15);
  auto* frame = static_cast<RvSigframe*>(guest_ptr(at, 1, sizeof(RvSigframe), PROT_READ | PROT_WRITE));
  if (sp < sizeof(RvSigframe) || !frame) return false;

  RvSigframe f{};
  f.info = info;
  f.uc.ss_sp = alt.sp;
  f.uc.ss_flags = (alt.size ? (was_on_alt ? SS_ONSTACK : 0) : SS_DISABLE) | alt.flags;
  f.uc.ss_size = alt.size;
  f.uc.sigmask = self().sig.saved_mask.value_or(self().sig.mask);
  f.uc.regs[0] = h.pc;
  for (int r = 1; r < 32; r++) f.uc.regs[r] = h.x[r];
  if (h.csr.isa.has(Ext::F)) {
    std::memcpy(f.uc.f, h.f, sizeof f.uc.f);
    f.uc.fcsr = uint32_t(h.frm) << 5 | h.fflags;
  }
  std::memcpy(frame, &f, sizeof f);

  self().sig.saved_mask.reset();
  if (alt.flags & kSsAutodisarm) self().sig.altstack = {};
  self().sig.mask |= act.mask & ~kUnblockable;
  if (!(act.flags & SA_NODEFER)) self().sig.mask |= sig_bit(sig);
  if (act.flags & SA_RESETHAND) sigactions_[sig].handler = reinterpret_cast<uint64_t>(SIG_DFL);
  h.x[1] = sigreturn_page_;
  h.x[2] = at;
  h.x[10] = static_cast<uint64_t>(sig);
  h.x[11] = at + offsetof(RvSigframe, info);
  h.x[12] = at + offsetof(RvSigframe, uc);
  h.pc = act.handler;
  h.reservation = ~0ull;
  return true;
}

bool LinuxUser::sigreturn(Hart& h) {
  const uint64_t at = h.x[2];
  const auto* frame = static_cast<const RvSigframe*>(guest_ptr(at, 1, sizeof(RvSigframe), PROT_READ));
  RvSigframe f;
  if (frame) std::memcpy(&f, frame, sizeof f);
  if (!frame || f.uc.ext_reserved != 0 || f.uc.ext_magic != 0 || f.uc.ext_size != 0)
    return die(SIGSEGV, fmt::format("rt_sigreturn found no valid signal frame at sp {:#x}", at));
  self().sig.mask = f.uc.sigmask & ~kUnblockable;
  // As restore_altstack: a stack the guest may not set now is left as it is.
  const int mode = f.uc.ss_flags & ~kSsAutodisarm;
  if (!on_altstack(f.uc.regs[2]) && !on_altstack(at)) {
    if (mode == SS_DISABLE) self().sig.altstack = {};
    else if ((mode == 0 || mode == SS_ONSTACK) && f.uc.ss_size >= kMinSigStackSize)
      self().sig.altstack = {f.uc.ss_sp, f.uc.ss_size, f.uc.ss_flags & kSsAutodisarm};
  }
  h.pc = f.uc.regs[0];
  for (int r = 1; r < 32; r++) h.x[r] = f.uc.regs[r];
  if (h.csr.isa.has(Ext::F)) {
    std::memcpy(h.f, f.uc.f, sizeof h.f);
    h.frm = (f.uc.fcsr >> 5) & 7;
    h.fflags = f.uc.fcsr & 0x1f;
    load_host_flags(h);
    fp_dirty(h);
  }
  h.reservation = ~0ull;
  h.instret++;  // the ecall
  return deliver_signals(h);
}

// --- the system calls ---

int64_t LinuxUser::sys_rt_sigaction(const std::array<uint64_t, 6>& a) {
  if (a[3] != 8) return -EINVAL;
  const auto* nv = static_cast<const SigAction*>(a[1] ? guest_ptr(a[1], 1, sizeof(SigAction), PROT_READ) : nullptr);
  if (a[1] && !nv) return -EFAULT;
  const int sig = static_cast<int>(a[0]);
  if (!valid_signal(sig) || (nv && (sig == SIGKILL || sig == SIGSTOP))) return -EINVAL;
  const SigAction old = sigactions_[sig];
  if (nv) sigactions_[sig] = *nv;
  if (a[2]) {
    auto* o = static_cast<SigAction*>(guest_ptr(a[2], 1, sizeof(SigAction), PROT_WRITE));
    if (!o) return -EFAULT;
    *o = old;
  }
  return 0;
}

int64_t LinuxUser::sys_rt_sigprocmask(const std::array<uint64_t, 6>& a) {
  if (a[3] != 8) return -EINVAL;
  const uint64_t old = self().sig.mask;
  if (a[1]) {
    auto* s = static_cast<const uint64_t*>(guest_ptr(a[1], 1, 8, PROT_READ));
    if (!s) return -EFAULT;
    const uint64_t set = *s & ~kUnblockable;
    switch (static_cast<int>(a[0])) {
      case SIG_BLOCK: self().sig.mask |= set; break;
      case SIG_UNBLOCK: self().sig.mask &= ~set; break;
      case SIG_SETMASK: self().sig.mask = set; break;
      default: return -EINVAL;
    }
  }
  if (a[2]) {
    auto* o = static_cast<uint64_t*>(guest_ptr(a[2], 1, 8, PROT_WRITE));
    if (!o) return -EFAULT;
    *o = old;
  }
  return 0;
}

int64_t LinuxUser::sys_rt_sigpending(const std::array<uint64_t, 6>& a) {
  if (a[1] > 8) return -EINVAL;
  take_host_signals();
  auto* o = static_cast<uint8_t*>(guest_ptr(a[0], 1, a[1], PROT_WRITE));
  if (!o) return -EFAULT;
  const uint64_t set = self().sig.pending & self().sig.mask;
  std::memcpy(o, &set, a[1]);
  return 0;
}

int64_t LinuxUser::sys_rt_sigsuspend(const std::array<uint64_t, 6>& a) {
  if (a[1] != 8) return -EINVAL;
  auto* s = static_cast<const uint64_t*>(guest_ptr(a[0], 1, 8, PROT_READ));
  if (!s) return -EFAULT;
  const int64_t r = wait_signals(*s, [](const sigset_t* host_mask) { return host(::syscall(SYS_rt_sigsuspend, host_mask, kHostSigsetSize)); });
  return r == 0 ? -EINTR : r;
}

int64_t LinuxUser::sys_rt_sigtimedwait(const std::array<uint64_t, 6>& a) {
  if (a[3] != 8) return -EINVAL;
  auto* s = static_cast<const uint64_t*>(guest_ptr(a[0], 1, 8, PROT_READ));
  if (!s) return -EFAULT;
  const uint64_t set = *s & ~kUnblockable;
  timespec until{};
  if (a[2]) {
    auto* ts = static_cast<const timespec*>(guest_ptr(a[2], 1, sizeof(timespec), PROT_READ));
    if (!ts) return -EFAULT;
    if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1'000'000'000) return -EINVAL;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ts->tv_sec + (until.tv_nsec + ts->tv_nsec) / 1'000'000'000;
    until.tv_nsec = (until.tv_nsec + ts->tv_nsec) % 1'000'000'000;
  }
  const uint64_t mask = self().sig.mask;
  for (;;) {
    take_host_signals();
    if (const uint64_t ready = self().sig.pending & set) {
      const int sig = __builtin_ctzll(ready) + 1;
      const SigInfo taken = take_signal(sig);
      update_signalfds();
      if (a[1] && !put_guest(a[1], taken)) return -EFAULT;
      return sig;
    }
    timespec left{};
    if (a[2]) {
      timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      const int64_t ns = (until.tv_sec - now.tv_sec) * 1'000'000'000 + (until.tv_nsec - now.tv_nsec);
      if (ns <= 0) return -EAGAIN;
      left = {ns / 1'000'000'000, ns % 1'000'000'000};
    }
    // The signals waited for are not blocked while it waits; any other deliverable one interrupts it.
    self().sig.mask = mask & ~set;
    const int64_t r = wait_signals(std::nullopt, [&](const sigset_t* host_mask) {
      return host(::syscall(SYS_ppoll, nullptr, 0, a[2] ? &left : nullptr, host_mask, kHostSigsetSize));
    });
    self().sig.mask = mask;
    // exit_group's kick, too: the thread ends.
    if (r == -EINTR && (thread_ends() || (!(self().sig.pending & set) && next_signal()))) return -EINTR;
  }
}

int64_t LinuxUser::wait_signals(std::optional<uint64_t> mask, const std::function<int64_t(const sigset_t*)>& wait) {
  if (mask) {
    self().sig.saved_mask = self().sig.mask;  // deliver_signals puts it back, or the handler's frame keeps it
    self().sig.mask = *mask & ~kUnblockable;
  }
  sigset_t caught, open;
  sigemptyset(&caught);
  for (int sig : caught_host_signals()) sigaddset(&caught, sig);
  pthread_sigmask(SIG_BLOCK, &caught, &open);
  take_host_signals();
  const int64_t r = next_signal() ? -EINTR : wait(&open);
  pthread_sigmask(SIG_SETMASK, &open, nullptr);
  return r;
}

int64_t LinuxUser::sys_sigaltstack(const std::array<uint64_t, 6>& a) {
  // stack_t: ss_sp, ss_flags (an int, padded), ss_size.
  const AltStack old = self().sig.altstack;
  const bool on = on_altstack(self().hart.x[2]);
  if (a[0]) {
    auto* ss = static_cast<const uint64_t*>(guest_ptr(a[0], 3, 8, PROT_READ));
    if (!ss) return -EFAULT;
    const int flags = static_cast<int>(ss[1]);
    const int mode = flags & ~kSsAutodisarm;
    if (on) return -EPERM;
    if (mode != 0 && mode != SS_DISABLE && mode != SS_ONSTACK) return -EINVAL;
    if (mode == SS_DISABLE) self().sig.altstack = {};
    else if (ss[2] < kMinSigStackSize) return -ENOMEM;
    else self().sig.altstack = AltStack{ss[0], ss[2], flags & kSsAutodisarm};
  }
  if (a[1]) {
    auto* o = static_cast<uint64_t*>(guest_ptr(a[1], 3, 8, PROT_WRITE));
    if (!o) return -EFAULT;
    o[0] = old.sp;
    o[1] = static_cast<uint32_t>(old.size ? (on ? SS_ONSTACK : 0) | old.flags : int{SS_DISABLE});
    o[2] = old.size;
  }
  return 0;
}

int64_t LinuxUser::sys_kill(uint64_t n, const std::array<uint64_t, 6>& a) {
  const int sig = static_cast<int>(n == nr::tgkill ? a[2] : a[1]);
  const int target = static_cast<int>(n == nr::tgkill ? a[1] : a[0]);
  const int tgid = static_cast<int>(a[0]);
  if (sig != 0 && !valid_signal(sig)) return -EINVAL;
  if (n != nr::kill && (target <= 0 || (n == nr::tgkill && tgid <= 0))) return -EINVAL;
  SigInfo info;
  info.signo = sig;
  info.code = n == nr::kill ? kSiUser : kSiTkill;
  info.word0 = static_cast<uint32_t>(getpid()) | uint64_t(getuid()) << 32;
  if (n != nr::kill && (n == nr::tkill || tgid == getpid()) && signal_tid(target, info)) return 0;
  if (n == nr::kill && (target == getpid() || target == 0)) {
    if (sig) signal_process(info);
    return 0;
  }
  if (n == nr::kill) return host(::kill(target, sig));
  if (n == nr::tkill) return host(::syscall(SYS_tkill, target, sig));
  return host(::syscall(SYS_tgkill, tgid, target, sig));
}

int64_t LinuxUser::sys_setitimer(const std::array<uint64_t, 6>& a) {
  if (static_cast<int>(a[0]) != ITIMER_REAL) {
    if (static_cast<int>(a[0]) == ITIMER_VIRTUAL || static_cast<int>(a[0]) == ITIMER_PROF)
      warn_once(nr::setitimer << 32 | a[0], "setitimer: only ITIMER_REAL is implemented; returning -EINVAL");
    return -EINVAL;
  }
  itimerspec spec{};
  if (a[1]) {
    auto* v = static_cast<const int64_t*>(guest_ptr(a[1], 4, 8, PROT_READ));
    if (!v) return -EFAULT;
    if (!to_timespec(v, spec.it_interval) || !to_timespec(v + 2, spec.it_value)) return -EINVAL;
  }
  int64_t* o = a[2] ? static_cast<int64_t*>(guest_ptr(a[2], 4, 8, PROT_WRITE)) : nullptr;
  if (a[2] && !o) return -EFAULT;
  if (!itimer_made_) {
    // Directed at this thread; signal_process passes it on when this one blocks it.
    sigevent ev{};
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = itimer_signal();
    ev._sigev_un._tid = static_cast<pid_t>(::syscall(SYS_gettid));
    if (timer_create(CLOCK_MONOTONIC, &ev, &itimer_) != 0) return -errno;
    itimer_made_ = true;
  }
  itimerspec old{};
  if (a[1] ? timer_settime(itimer_, 0, &spec, &old) : timer_gettime(itimer_, &old)) return -errno;
  if (o) {
    to_timeval(old.it_interval, o);
    to_timeval(old.it_value, o + 2);
  }
  return 0;
}

int64_t LinuxUser::sys_getitimer(const std::array<uint64_t, 6>& a) {
  if (static_cast<int>(a[0]) != ITIMER_REAL) return sys_setitimer(a);  // the same checks and warning
  return a[1] ? sys_setitimer({a[0], 0, a[1]}) : -EFAULT;
}

int64_t LinuxUser::sys_rt_sigqueueinfo(uint64_t n, const std::array<uint64_t, 6>& a) {
  const bool tg = n == nr::rt_tgsigqueueinfo;
  const int tgid = static_cast<int>(a[0]), tid = static_cast<int>(a[1]);
  const int sig = static_cast<int>(tg ? a[2] : a[1]);
  auto* in = static_cast<const SigInfo*>(guest_ptr(tg ? a[3] : a[2], 1, sizeof(SigInfo), PROT_READ));
  if (!in) return -EFAULT;
  SigInfo info = *in;
  if (tg && (tgid <= 0 || tid <= 0)) return -EINVAL;
  // si_code >= 0 is the kernel's and kill's, SI_TKILL tkill's: a process may claim them only to itself.
  if ((info.code >= 0 || info.code == kSiTkill) && tgid != getpid()) return -EPERM;
  if (sig != 0 && !valid_signal(sig)) return -EINVAL;
  if (tgid != getpid())
    return host(tg ? ::syscall(SYS_rt_tgsigqueueinfo, tgid, tid, sig, &info)
                   : ::syscall(SYS_rt_sigqueueinfo, tgid, sig, &info));
  info.signo = sig;
  // To one of this process's threads, or to the process: a thread that does not block it.
  if (tg) return signal_tid(tid, info) ? 0 : -ESRCH;
  if (sig) signal_process(info);
  return 0;
}

int64_t LinuxUser::sys_timer(uint64_t n, const std::array<uint64_t, 6>& a) {
  const int id = static_cast<int>(a[0]);
  if (n == nr::timer_create) {
    // struct sigevent of riscv64 (include/uapi/asm-generic/siginfo.h), as x86-64's: sigev_value,
    // sigev_signo, sigev_notify, then sigev_notify_thread_id first in the union. None: SIGALRM, the
    // timer's id as the value.
    struct RvSigevent {
      uint64_t value;
      int32_t signo, notify, tid;
      uint8_t rest[44];
    };
    static_assert(sizeof(RvSigevent) == 64);
    RvSigevent ev{0, SIGALRM, SIGEV_SIGNAL, 0, {}};
    if (a[1]) {
      auto* g = static_cast<const RvSigevent*>(guest_ptr(a[1], 1, sizeof(RvSigevent), PROT_READ));
      if (!g) return -EFAULT;
      ev = *g;
    }
    // kernel/time/posix-timers.c good_sigevent: a thread id must name one of this process's threads.
    switch (ev.notify) {
      case SIGEV_SIGNAL | SIGEV_THREAD_ID:
        if (!signal_tid(ev.tid, SigInfo{})) return -EINVAL;
        [[fallthrough]];
      case SIGEV_SIGNAL:
      case SIGEV_THREAD:
        if (!valid_signal(ev.signo)) return -EINVAL;
        break;
      case SIGEV_NONE: break;
      default: return -EINVAL;
    }
    // Ids in turn, as kernel/time/posix-timers.c's posix_timer_add, not the lowest free one.
    int guest_id = -1;
    for (int k = 0; k < kMaxTimers && guest_id < 0; k++)
      if (!timers_.slot[(timers_.next + k) % kMaxTimers].used) guest_id = (timers_.next + k) % kMaxTimers;
    if (guest_id < 0) return -EAGAIN;
    // Directed at the host thread of the guest's SIGEV_THREAD_ID thread (guest tids are host tids),
    // or else of this one, as ITIMER_REAL's: that thread takes the expirations (take_host_signals).
    const bool to_thread = ev.notify == (SIGEV_SIGNAL | SIGEV_THREAD_ID);
    const int tid = to_thread ? ev.tid : self().tid;
    sigevent host_ev{};
    host_ev.sigev_notify = ev.notify == SIGEV_NONE ? SIGEV_NONE : SIGEV_THREAD_ID;
    host_ev.sigev_signo = timer_signal();
    host_ev.sigev_value.sival_int = guest_id;
    host_ev._sigev_un._tid = tid;
    int host_id;
    if (::syscall(SYS_timer_create, static_cast<clockid_t>(a[0]), &host_ev, &host_id) != 0) return -errno;
    if (!put_guest(a[2], guest_id)) {
      ::syscall(SYS_timer_delete, host_id);
      return -EFAULT;
    }
    g_timer_expirations[guest_id] = 0;
    timers_.next = (guest_id + 1) % kMaxTimers;
    const int notify = ev.notify == SIGEV_NONE ? SIGEV_NONE : SIGEV_SIGNAL;
    timers_.slot[guest_id] = {true, host_id, notify, ev.signo, a[1] ? ev.value : uint64_t(guest_id), 0, 0, tid, to_thread};
    return 0;
  }
  PosixTimer* t = id >= 0 && id < kMaxTimers && timers_.slot[id].used ? &timers_.slot[id] : nullptr;
  switch (n) {
    case nr::timer_settime:
      if (!a[2]) return -EINVAL;
      return settime(a[2], a[3], [&](const itimerspec* nv, itimerspec* old) {
        if (!t) return (errno = EINVAL, -1L);
        return ::syscall(SYS_timer_settime, t->host, static_cast<int>(a[1]), nv, old);
      });
    case nr::timer_gettime: {
      if (!t) return -EINVAL;
      itimerspec cur{};
      if (::syscall(SYS_timer_gettime, t->host, &cur) != 0) return -errno;
      return put_guest(a[1], cur) ? 0 : -EFAULT;
    }
    case nr::timer_getoverrun: return t ? t->overrun_last : -EINVAL;
    default:  // timer_delete
      if (!t) return -EINVAL;
      ::syscall(SYS_timer_delete, t->host);
      *t = {};
      return 0;
  }
}

}  // namespace brisk
