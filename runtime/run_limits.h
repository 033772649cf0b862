// --timeout and --max-insns: a guest that does not finish by itself (a spin, a wait for input that
// never comes) is stopped with one line and a status of its own, in user mode and system mode alike.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/hart.h"

namespace brisk {

struct RunLimits {
  double timeout = 0;      // seconds of host time; 0: none
  uint64_t max_insns = 0;  // instructions retired by all harts together; 0: none
  bool any() const { return timeout > 0 || max_insns > 0; }
};

class RunLimiter {
 public:
  static constexpr int kTimeoutStatus = 124;   // as coreutils timeout(1)
  static constexpr int kMaxInsnsStatus = 125;

  explicit RunLimiter(const RunLimits& limits) : limits_(limits) {}
  ~RunLimiter();
  RunLimiter(const RunLimiter&) = delete;
  RunLimiter& operator=(const RunLimiter&) = delete;

  // Starts the run: every hart is sent to its trap handler's on_budget first, which must call
  // reached(). When --timeout expires, a host timer signal (SIGALRM) asks every hart to leave
  // translated code at its next block and interrupts a blocking host syscall; it repeats until the
  // run ends, so that a syscall entered just after the first one is interrupted too.
  void start(const std::vector<Hart*>& harts);

  // A hart that joins the run after start() (a guest thread clone made), and one that leaves it.
  // add() fails when kMaxHarts are in the run already.
  static constexpr size_t kMaxHarts = 1024;
  bool add(Hart& h);
  void remove(Hart& h);
  // Asks every hart in the run to leave translated code at its next block (async-signal-safe).
  static void interrupt_all();

  // In the child of a fork: timer_create timers are not inherited, so --timeout is armed again and
  // counts from the fork.
  void after_fork();

  // Before start(): SIGUSR1 to brisk calls `f` from reached() at the next block boundary, and the
  // run goes on (--ctr-dump). Translated code must honour deadlines (EngineOptions::deadlines).
  void on_sigusr1(std::function<void()> f) { on_sigusr1_ = std::move(f); }

  // From on_budget (or an idle loop), after h.deadline was set; `retired` counts what all harts
  // retired so far. Lowers h.deadline to where --max-insns stops: exactly for harts that take turns,
  // and for `sharing` harts running at once (guest threads), to their share of what is left, so
  // that together they stop near it (past it by part of a share: `retired` lags behind them). True when a limit was reached: the line is printed (once,
  // whichever thread sees it first), and the run must stop with status().
  bool reached(Hart& h, uint64_t retired, uint64_t sharing = 1);
  // The exit status the run must end with: 0 until a limit is reached.
  int status() const { return status_; }

 private:
  bool stop(int status);  // false when the run was stopped already
  void arm();  // creates and starts the --timeout timer

  RunLimits limits_;
  timer_t timer_{};
  bool armed_ = false;  // timer_ exists: --timeout was given
  std::function<void()> on_sigusr1_;
  std::atomic<int> status_{0};
};

}  // namespace brisk
