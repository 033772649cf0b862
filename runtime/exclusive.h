// Exclusive sections for harts on host threads, guest threads in user mode and harts in system
// mode alike (docs/architecture.md, "Threads in user mode", "Harts on host threads in system
// mode"), as QEMU's start_exclusive/end_exclusive (cpus-common.c): whatever changes what another
// thread's translated code was made from, or state it reads unlocked, runs while every other
// member is parked at a block boundary or outside guest code (a syscall, WFI).
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "runtime/hart.h"

namespace brisk {

class ExclusiveGroup {
 public:
  // `mutex` and `cv` are the owner's, which may keep more state under them: a section is begun,
  // ended and waited for under them (active()).
  ExclusiveGroup(std::mutex& mutex, std::condition_variable& cv) : mutex_(mutex), cv_(cv) {}

  // One host thread that runs a hart. `running` (under the mutex): in guest code, rather than
  // parked at a block boundary or outside guest code.
  struct Member {
    Hart* hart = nullptr;
    bool running = false;
  };

  // The calling thread runs m's hart from now on, and runs guest code (exec_start).
  void join(Member& m);
  // The calling thread's hart has stopped for good.
  void leave();
  // In the child of a host fork made inside a section: the calling thread is the only member.
  void after_fork() { members_ = {t_member}; }

  // The calling thread leaves guest code (a syscall, WFI) / comes back, waiting out a section.
  void exec_end();
  void exec_start();

  // At a block boundary: parks the calling thread while another thread's section runs. The
  // caller's store to its hart's deadline comes first, so that either the section is seen here
  // or the section's request_exit comes after that store and stands.
  void park_if_pending() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (exclusive_.load(std::memory_order_relaxed)) {
      exec_end();
      exec_start();
    }
  }

  // Nests on one thread. A thread that is no member (before any joined) may begin one too.
  void begin();
  void end();
  bool in_section() const { return t_depth > 0; }
  // A section is held or being entered; under the mutex, nobody else's is when this is false.
  bool active() const { return exclusive_.load(std::memory_order_relaxed); }

  // A section when `group` is not null (harts on host threads), nothing when it is (one thread).
  class Section {
   public:
    explicit Section(ExclusiveGroup* group) : group_(group) {
      if (group_) group_->begin();
    }
    ~Section() {
      if (group_) group_->end();
    }
    Section(const Section&) = delete;
    Section& operator=(const Section&) = delete;

   private:
    ExclusiveGroup* group_;
  };

 private:
  std::mutex& mutex_;
  std::condition_variable& cv_;
  std::vector<Member*> members_;
  std::atomic<bool> exclusive_{false};  // a section is held or being entered
  static inline thread_local Member* t_member = nullptr;
  static inline thread_local int t_depth = 0;
  static inline thread_local bool t_was_running = false;
};

}  // namespace brisk
