// Turns host SIGSEGV/SIGBUS on flat guest memory (user mode) into guest exceptions: the guest's
// unmapped pages are PROT_NONE in the host reservation, so the fast path needs no checks. Any other
// host fault is a bug in brisk: one line "brisk: internal error: ..." and exit status
// kInternalErrorStatus, never a guest exception.
#pragma once

#include <ucontext.h>

#include <csetjmp>

#include "runtime/hart.h"

namespace brisk {

// EX_SOFTWARE (sysexits.h): brisk itself failed, as opposed to 128 + N for a guest killed by signal N.
constexpr int kInternalErrorStatus = 70;

// Alive while this thread runs guest instructions: the interpreter's step, or translated code and
// the helpers it calls. Only a fault inside one, on guest memory, is the guest's. A fault that
// siglongjmps out skips the destructor; the handler clears the mark itself.
class GuestCode {
 public:
  GuestCode() : outer_(running) { running = true; }
  ~GuestCode() { running = outer_; }
  GuestCode(const GuestCode&) = delete;
  GuestCode& operator=(const GuestCode&) = delete;

  // Whether this thread is inside one. Inline: the interpreter marks every step.
  static inline thread_local bool running = false;

 private:
  bool outer_;
};

// What an engine with translated code adds to host fault handling. Both run in the signal handler.
struct HostFaultHooks {
  virtual ~HostFaultHooks() = default;
  // A store faulted at guest va: true if it hit watched code that is now writable, so the store can
  // be retried, at the host pc in ctx (which the hook may move).
  virtual bool on_code_write(Hart& h, uint64_t va, ucontext_t& ctx) = 0;
  // If the fault is in translated code, writes the architectural state it stands for (pc, instret,
  // registers held in host registers) into h and returns true.
  virtual bool recover(Hart& h, const ucontext_t& ctx) = 0;
};

// While alive, a host fault inside GuestCode on the flat guest memory [h.mem_base, h.mem_base + limit)
// raises the matching page fault in h.trap and siglongjmps to `resume`, which the owner must sigsetjmp before
// running (without saving the signal mask: the handler blocks nothing). `limit` defaults to h.mem_limit.
struct HostFaultScope {
  explicit HostFaultScope(Hart& h, HostFaultHooks* hooks = nullptr, uint64_t limit = ~0ull);
  ~HostFaultScope();
  HostFaultScope(const HostFaultScope&) = delete;
  HostFaultScope& operator=(const HostFaultScope&) = delete;

  sigjmp_buf resume;

 private:
  Hart* prev_hart_;
  sigjmp_buf* prev_resume_;
  HostFaultHooks* prev_hooks_;
  uint64_t prev_limit_;
};

// While alive, a SIGBUS on flat guest memory outside guest code — brisk's own system-call code
// reading or writing a file mapping beyond the end of its file — siglongjmps to `fault`, and the
// system call fails with EFAULT, as Linux's copy_to_user does. Code run under it must not own heap
// state across the guest-memory access (the jump skips destructors).
struct GuestCopyScope {
  GuestCopyScope();
  ~GuestCopyScope();
  GuestCopyScope(const GuestCopyScope&) = delete;
  GuestCopyScope& operator=(const GuestCopyScope&) = delete;

  sigjmp_buf fault;

 private:
  sigjmp_buf* prev_;
};

}  // namespace brisk
