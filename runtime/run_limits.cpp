#include "runtime/run_limits.h"

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "runtime/diag.h"
#include "runtime/error.h"

namespace brisk {

namespace {

// Set by the signal handlers; read by reached(). One run (one limiter) at a time per process.
std::atomic<bool> g_expired{false};
std::atomic<bool> g_sigusr1{false};
// The harts of the run, read by the signal handlers: a slot is null or a live hart.
std::atomic<Hart*> g_harts[RunLimiter::kMaxHarts];
struct sigaction g_old_action, g_old_sigusr1;

// The timer signal's period once --timeout has expired.
constexpr long kRepeatNs = 10'000'000;

void on_timeout(int) {
  g_expired.store(true, std::memory_order_relaxed);
  RunLimiter::interrupt_all();
}

void on_user_signal(int) {
  g_sigusr1.store(true, std::memory_order_relaxed);
  RunLimiter::interrupt_all();
}

timespec to_timespec(double seconds) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(seconds);
  ts.tv_nsec = static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
  if (ts.tv_sec == 0 && ts.tv_nsec == 0) ts.tv_nsec = 1;  // zero would disarm the timer
  return ts;
}

}  // namespace

void RunLimiter::interrupt_all() {
  for (auto& slot : g_harts)
    if (Hart* h = slot.load(std::memory_order_acquire)) h->request_exit();
}

bool RunLimiter::add(Hart& h) {
  h.request_exit();
  for (auto& slot : g_harts) {
    Hart* none = nullptr;
    if (slot.compare_exchange_strong(none, &h)) return true;
  }
  return false;
}

void RunLimiter::remove(Hart& h) {
  for (auto& slot : g_harts) {
    Hart* mine = &h;
    if (slot.compare_exchange_strong(mine, nullptr)) return;
  }
}

void RunLimiter::start(const std::vector<Hart*>& harts) {
  for (auto& slot : g_harts) slot.store(nullptr);
  for (Hart* h : harts)
    if (!add(*h)) throw Error("more than {} harts", kMaxHarts);
  if (on_sigusr1_) {
    g_sigusr1 = false;
    // SA_RESTART: the request waits for a host syscall the guest is blocked in, which goes on.
    struct sigaction sa {};
    sa.sa_handler = on_user_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, &g_old_sigusr1);
  }
  if (limits_.timeout <= 0) return;
  g_expired = false;
  // No SA_RESTART: a host syscall the guest is blocked in returns EINTR.
  struct sigaction sa {};
  sa.sa_handler = on_timeout;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, &g_old_action);
  arm();
}

void RunLimiter::after_fork() {
  if (armed_) arm();
}

void RunLimiter::arm() {
  // Directed at this thread, the one that runs the harts and makes their syscalls.
  sigevent ev{};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGALRM;
  ev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (timer_create(CLOCK_MONOTONIC, &ev, &timer_) != 0)
    throw Error("--timeout: cannot create a host timer: {}", strerror(errno));
  armed_ = true;
  itimerspec spec{};
  spec.it_value = to_timespec(limits_.timeout);
  spec.it_interval.tv_nsec = kRepeatNs;
  timer_settime(timer_, 0, &spec, nullptr);
}

RunLimiter::~RunLimiter() {
  if (on_sigusr1_) sigaction(SIGUSR1, &g_old_sigusr1, nullptr);
  if (armed_) {
    timer_delete(timer_);
    sigaction(SIGALRM, &g_old_action, nullptr);
  }
  for (auto& slot : g_harts) slot.store(nullptr);
}

bool RunLimiter::stop(int status) {
  int none = 0;
  if (!status_.compare_exchange_strong(none, status)) return false;
  if (armed_) {
    const itimerspec off{};
    timer_settime(timer_, 0, &off, nullptr);
  }
  return true;
}

bool RunLimiter::reached(Hart& h, uint64_t retired, uint64_t sharing) {
  if (status_) return true;
  if (limits_.max_insns) {
    if (retired >= limits_.max_insns) {
      if (stop(kMaxInsnsStatus))
        diag_print("brisk: stopped: --max-insns {} reached at pc {:#x}, {} instructions\n", limits_.max_insns, h.pc,
                   retired);
      return true;
    }
    h.deadline = std::min(h.deadline, h.instret + std::max<uint64_t>(1, (limits_.max_insns - retired) / sharing));
  }
  // The caller's store to h.deadline must come first: a timer signal after this load leaves its
  // request_exit() standing; one before it is seen here.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (on_sigusr1_ && g_sigusr1.exchange(false, std::memory_order_relaxed)) on_sigusr1_();
  if (armed_ && g_expired.load(std::memory_order_relaxed)) {
    if (stop(kTimeoutStatus))
      diag_print("brisk: stopped: --timeout {} s reached at pc {:#x}, {} instructions\n", limits_.timeout, h.pc,
                 retired);
    return true;
  }
  return false;
}

}  // namespace brisk
