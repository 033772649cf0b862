#include "runtime/host_fault.h"

#include <signal.h>
#include <ucontext.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "runtime/diag.h"
#include "runtime/guest_vm.h"

namespace brisk {

namespace {

thread_local Hart* t_hart = nullptr;
thread_local sigjmp_buf* t_resume = nullptr;
thread_local HostFaultHooks* t_hooks = nullptr;
thread_local uint64_t t_limit = 0;
thread_local sigjmp_buf* t_copy_fault = nullptr;

constexpr uint64_t kPageFaultWriteBit = 2;  // x86 page-fault error code: the access was a write

void on_host_fault(int sig, siginfo_t* si, void* ctx) {
  Hart* h = t_hart;
  auto* addr = static_cast<uint8_t*>(si->si_addr);
  // System mode has no flat guest memory (limit 0): every host fault there is brisk's.
  if (h && t_resume && t_limit && GuestCode::running && addr >= h->mem_base &&
      addr < h->mem_base + t_limit + GuestVm::kGuard) {
    uint64_t va = static_cast<uint64_t>(addr - h->mem_base);
    auto& uc = *static_cast<ucontext_t*>(ctx);
    bool write = uc.uc_mcontext.gregs[REG_ERR] & kPageFaultWriteBit;
    if (write && t_hooks && t_hooks->on_code_write(*h, va, uc)) return;  // retry the store
    // Translated code never fetches through flat memory; the interpreter's decode check does.
    bool translated = t_hooks && t_hooks->recover(*h, uc);
    uint64_t c;
    if (sig == SIGBUS)  // a file mapping beyond its end: Linux sends SIGBUS, an access fault
      c = write ? cause::kStoreAmoAccessFault : cause::kLoadAccessFault;
    else if (!translated && !write && va - h->pc < 4)
      c = cause::kInstructionPageFault;
    else
      c = write ? cause::kStoreAmoPageFault : cause::kLoadPageFault;
    h->raise(c, va);
    GuestCode::running = false;
    siglongjmp(*t_resume, 1);
  }
  if (h && t_copy_fault && sig == SIGBUS && !GuestCode::running && addr >= h->mem_base &&
      addr < h->mem_base + h->mem_limit)
    siglongjmp(*t_copy_fault, 1);
  // A bug in brisk itself. Only async-signal-safe calls from here: the heap may be what broke.
  char line[160];
  int n = std::snprintf(line, sizeof line, "brisk: internal error: SIG%s at host address %p, guest pc %#llx\n",
                        sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", si->si_addr,
                        static_cast<unsigned long long>(h ? h->pc : 0));
  if (n > 0) (void)!write(diag_fd(), line, std::min<size_t>(static_cast<size_t>(n), sizeof line - 1));
  _exit(kInternalErrorStatus);
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    diag_fd();  // opened now: the handler may only write to it
    struct sigaction sa = {};
    sa.sa_sigaction = on_host_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;  // nothing blocked after a siglongjmp out of the handler
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
  });
}

}  // namespace

HostFaultScope::HostFaultScope(Hart& h, HostFaultHooks* hooks, uint64_t limit)
    : prev_hart_(t_hart), prev_resume_(t_resume), prev_hooks_(t_hooks), prev_limit_(t_limit) {
  install_once();
  t_hart = &h;
  t_resume = &resume;
  t_hooks = hooks;
  t_limit = limit == ~0ull ? h.mem_limit : limit;
}

GuestCopyScope::GuestCopyScope() : prev_(t_copy_fault) { t_copy_fault = &fault; }
GuestCopyScope::~GuestCopyScope() { t_copy_fault = prev_; }

HostFaultScope::~HostFaultScope() {
  t_hart = prev_hart_;
  t_resume = prev_resume_;
  t_hooks = prev_hooks_;
  t_limit = prev_limit_;
}

}  // namespace brisk
