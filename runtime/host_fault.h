// Turns host SIGSEGV/SIGBUS on flat guest memory (user mode) into guest exceptions: the guest's
// unmapped pages are PROT_NONE in the host reservation, so the fast path needs no checks.
#pragma once

#include <ucontext.h>

#include <csetjmp>

#include "runtime/hart.h"

namespace brisk {

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

// While alive, a host fault on the flat guest memory [h.mem_base, h.mem_base + limit) raises the
// matching page fault in h.trap and siglongjmps to `resume`, which the owner must sigsetjmp before
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

}  // namespace brisk
