// Guest threads in user mode. Each guest thread (clone with CLONE_VM | CLONE_THREAD) runs on a host
// thread of its own, with its own hart, engine and code cache; guest memory, signal actions and
// descriptors are the process's. Whatever changes what translated code was made from (munmap,
// mprotect, a store to a watched code page, a host write for a syscall) happens inside an
// exclusive section, as in QEMU's cpus-common.c: every other thread leaves guest code at its next
// block boundary (Hart::request_exit) or is in a syscall, so that no engine runs a block another
// thread dropped once the dropping syscall or store has completed.
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "runtime/linux_syscall_nr.h"
#include "runtime/linux_user.h"

namespace brisk {

namespace {

int64_t host(long r) { return r < 0 ? -errno : r; }

// What glibc's pthread_create asks for (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
// CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID), and
// CLONE_CHILD_SETTID. The first five are what sharing one host process gives; without them a thread
// would need a file table or working directory of its own.
constexpr uint64_t kCloneThreadNeeds = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD;
constexpr uint64_t kCloneThreadFlags = kCloneThreadNeeds | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |
                                       CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | CLONE_DETACHED;
constexpr uint64_t kCloneThreadWarning = 220ull << 32 | 1;  // warn_once key: clone's number, then a tag
constexpr uint64_t kFutexWarning = 98;

// Linux's ROBUST_LIST_LIMIT: how many entries exit walks before it gives up on a looping list.
constexpr int kRobustListLimit = 2048;

long host_futex(uint32_t* uaddr, int op, uint32_t val, const void* timeout_or_val2, uint32_t* uaddr2, uint32_t val3) {
  return ::syscall(SYS_futex, uaddr, op, val, timeout_or_val2, uaddr2, val3);
}

}  // namespace

int64_t LinuxUser::clone_thread(uint64_t flags, uint64_t sp, uint64_t ptid, uint64_t tls, uint64_t ctid) {
  if ((flags & kCloneThreadNeeds) != kCloneThreadNeeds || (flags & ~kCloneThreadFlags)) {
    warn_once(kCloneThreadWarning, fmt::format("clone of a thread with flags {:#x} (without a shared file table, "
                                               "working directory or memory) is not implemented; returning -ENOSYS",
                                               flags));
    return -ENOSYS;
  }
  if (opt_.recorder || opt_.engine.name == "check") {
    warn_once(kCloneThreadWarning, fmt::format("{} runs one thread: clone of a thread returns -ENOSYS",
                                               opt_.recorder ? "brisk record" : "the lockstep checker"));
    return -ENOSYS;
  }
  auto* parent_tid = (flags & CLONE_PARENT_SETTID) ? static_cast<int32_t*>(guest_ptr(ptid, 1, 4, PROT_WRITE)) : nullptr;
  auto* child_tid = (flags & CLONE_CHILD_SETTID) ? static_cast<int32_t*>(guest_ptr(ctid, 1, 4, PROT_WRITE)) : nullptr;
  if (((flags & CLONE_PARENT_SETTID) && !parent_tid) || ((flags & CLONE_CHILD_SETTID) && !child_tid)) return -EFAULT;

  GuestThread& me = self();
  auto t = std::make_unique<GuestThread>();
  ctr::sync_ring(me.hart);  // the new hart gets the buffer, not this engine's ring
  copy_state(t->hart, me.hart);
  t->hart.pc = me.hart.pc + 4;  // past the ecall, which on_trap completes for the parent
  t->hart.x[10] = 0;
  if (sp) t->hart.x[2] = sp;
  if (flags & CLONE_SETTLS) t->hart.x[4] = tls;
  ctr::move_instret(t->hart.csr.ctr, t->hart.instret, 0);  // the buffer's cycle count goes on in the thread
  t->hart.instret = 0;
  t->hart.reservation = ~0ull;
  t->engine = new_engine(false);
  t->sig.mask = me.sig.mask;  // the altstack is not inherited by a thread
  {
    std::lock_guard lock(group_mutex_);
    t->affinity = me.affinity;
  }
  t->clear_child_tid = (flags & CLONE_CHILD_CLEARTID) ? ctid : 0;
  if (!limiter_.add(t->hart)) return -EAGAIN;
  GuestThread* raw = t.get();
  std::unique_lock lock(group_mutex_);
  // Threads that ended are joined here, so that their host resources do not pile up.
  for (auto& e : ended_)
    if (e->host.joinable()) e->host.join();
  ended_.clear();
  group_cv_.wait(lock, [&] { return !group_.active(); });  // an exclusive section walks live_ unlocked
  try {
    raw->host = std::thread([this, raw] { thread_main(*raw); });
  } catch (const std::system_error&) {
    limiter_.remove(raw->hart);
    return -EAGAIN;
  }
  live_.push_back(raw);
  others_.push_back(std::move(t));
  group_cv_.wait(lock, [&] { return raw->tid != 0; });
  // Before the child runs, as Linux's copy_process writes them.
  if (parent_tid) *parent_tid = raw->tid;
  if (child_tid) *child_tid = raw->tid;
  raw->started = true;
  group_cv_.notify_all();
  return raw->tid;
}

void LinuxUser::thread_main(GuestThread& t) {
  t_self = &t;
  {
    std::unique_lock lock(group_mutex_);
    t.tid = static_cast<int>(::syscall(SYS_gettid));
    group_cv_.notify_all();
    group_cv_.wait(lock, [&] { return t.started; });
  }
  t.member.hart = &t.hart;
  group_.join(t.member);
  t.engine->run(t.hart, *this);
  group_.exec_end();
  // Its CTR buffer, as finish() writes the leader's; before end_thread, which drops the engine
  // whose site table the ring's records name.
  if (ctr_dump_ && &t != leader_) ctr_dump_->write({&t.hart}, fmt::format("thread {} at exit", t.tid).c_str());
  end_thread(t);
  if (&t == leader_) finish(t);  // a fork's child whose leader is this thread: it exits there
}

void LinuxUser::end_thread(GuestThread& t) {
  exit_robust_list(t);
  // As Linux's mm_release: the tid word is cleared and its waiters (pthread_join) woken.
  if (t.clear_child_tid && !(t.clear_child_tid & 3))
    if (auto* w = static_cast<uint32_t*>(guest_ptr(t.clear_child_tid, 1, 4, PROT_WRITE))) {
      __atomic_store_n(w, 0, __ATOMIC_SEQ_CST);
      host_futex(w, FUTEX_WAKE, 1, nullptr, nullptr, 0);
    }
  limiter_.remove(t.hart);
  group_.leave();
  std::unique_lock lock(group_mutex_);
  group_cv_.wait(lock, [&] { return !group_.active(); });
  std::erase(live_, &t);
  ended_instret_ += t.hart.instret;
  for (auto& o : others_)
    if (o.get() == &t) ended_.push_back(std::move(o));
  std::erase(others_, nullptr);
  group_cv_.notify_all();
  lock.unlock();
  if (&t != leader_) t.engine.reset();  // its code cache, which nobody reaches any more
}

UserResult LinuxUser::finish(GuestThread& t) {
  {
    // The process lives on until its last thread ends; after exit_group, a kick every 10 ms
    // interrupts a thread that entered a blocking syscall after the first one.
    std::unique_lock lock(group_mutex_);
    while (!live_.empty()) {
      if (group_exit_)
        for (GuestThread* o : live_) kick(*o);
      group_cv_.wait_for(lock, std::chrono::milliseconds(10));
    }
    for (auto& e : ended_)
      if (e->host.joinable() && e->host.get_id() != std::this_thread::get_id()) e->host.join();
  }
  restore_host_signals();
  if (ctr_dump_) ctr_dump_->write({&t.hart}, "at exit");
  if (opt_.recorder) opt_.recorder->finish({&t.hart});
  const int status = limiter_.status() ? limiter_.status() : exit_code_.load();
  if (opt_.forked) exit_child(status);
  return {status, t.hart.instret, t.engine->summary()};
}

void LinuxUser::after_fork_threads() {
  GuestThread* me = &self();
  // The other threads' host threads do not exist in the child: their state is left as it is,
  // never run, joined or destroyed.
  for (auto& o : others_)
    if (o.get() != me) {
      limiter_.remove(o->hart);
      (void)o.release();
    }
  std::erase(others_, nullptr);
  for (auto& e : ended_) (void)e.release();
  ended_.clear();
  if (me != main_.get()) limiter_.remove(main_->hart);
  me->tid = getpid();  // the child's one thread
  live_ = {me};
  group_.after_fork();
  leader_ = me;
}

bool LinuxUser::exit_group(int status) {
  std::lock_guard lock(group_mutex_);
  const bool first = !group_exit_.exchange(true);
  if (first) exit_code_ = status;
  for (GuestThread* t : live_) {
    t->hart.request_exit();
    kick(*t);
  }
  return first;
}

void LinuxUser::kick(const GuestThread& t) {
  if (&t != t_self && t.tid) ::syscall(SYS_tgkill, getpid(), t.tid, kKickSignal);
}

bool LinuxUser::limit_reached(Hart& h) {
  uint64_t retired, threads;
  {
    std::lock_guard lock(group_mutex_);
    retired = ended_instret_;
    // Other threads' counts, read racily, and behind by the block they run: they each stop at
    // their share of what is left, and look again.
    for (const GuestThread* t : live_) retired += t->hart.instret;
    threads = live_.size();
  }
  if (!limiter_.reached(h, retired, threads)) return false;
  exit_group(0);  // finish() ends with the limiter's status
  return true;
}

size_t LinuxUser::thread_count() const {
  std::lock_guard lock(group_mutex_);
  return live_.size();
}

// --- the exclusive section ---

void LinuxUser::invalidate_all(uint64_t start, uint64_t end) {
  Exclusive ex(*this);
  for (GuestThread* t : live_) t->engine->invalidate(t->hart, start, end);
}

// --- futexes ---

int64_t LinuxUser::sys_futex(const std::array<uint64_t, 6>& a) {
  const int op = static_cast<int>(a[1]);
  const int cmd = op & FUTEX_CMD_MASK;
  // As futex.c get_futex_key: a word must be aligned, then accessible.
  auto word = [&](uint64_t va, int prot, int64_t& err) -> uint32_t* {
    if (va & 3) {
      err = -EINVAL;
      return nullptr;
    }
    auto* w = static_cast<uint32_t*>(guest_ptr(va, 1, 4, prot));
    err = w ? 0 : -EFAULT;
    return w;
  };
  int64_t err = 0;
  switch (cmd) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET: {
      uint32_t* w = word(a[0], PROT_READ, err);
      if (!w) return err;
      // The same struct timespec on both sides; FUTEX_WAIT's is relative, FUTEX_WAIT_BITSET's
      // absolute on the clock op names, as the host takes them.
      timespec ts;
      if (a[3]) {
        const auto* g = static_cast<const timespec*>(guest_ptr(a[3], 1, sizeof(timespec), PROT_READ));
        if (!g) return -EFAULT;
        ts = *g;
      }
      return wait_signals(std::nullopt, [&](const sigset_t* open) {
        // The host mask opens only around the wait: a signal just before it waits for the next wake,
        // the timeout or (brisk's own: exit_group, --timeout) the next kick.
        sigset_t blocked;
        pthread_sigmask(SIG_SETMASK, open, &blocked);
        const long r = host_futex(w, op, static_cast<uint32_t>(a[2]), a[3] ? &ts : nullptr, nullptr,
                                  static_cast<uint32_t>(a[5]));
        const int e = errno;
        pthread_sigmask(SIG_SETMASK, &blocked, nullptr);
        return r < 0 ? -int64_t{e} : r;
      });
    }
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET: {
      // A private futex is only an address to Linux's wake (get_futex_key): mapped or not.
      const bool priv = op & FUTEX_PRIVATE_FLAG;
      if (priv && !(a[0] & 3) && a[0] < GuestVm::kLimit)
        return host(host_futex(reinterpret_cast<uint32_t*>(vm_.base() + a[0]), op, static_cast<uint32_t>(a[2]),
                               nullptr, nullptr, static_cast<uint32_t>(a[5])));
      uint32_t* w = word(a[0], PROT_READ, err);
      if (!w) return err;
      return host(host_futex(w, op, static_cast<uint32_t>(a[2]), nullptr, nullptr, static_cast<uint32_t>(a[5])));
    }
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
    case FUTEX_WAKE_OP: {
      uint32_t* w = word(a[0], PROT_READ, err);
      if (!w) return err;
      // FUTEX_WAKE_OP writes the second word.
      uint32_t* w2 = word(a[4], cmd == FUTEX_WAKE_OP ? PROT_READ | PROT_WRITE : PROT_READ, err);
      if (!w2) return err;
      // a[3] is val2 (a count), passed where the timeout would be.
      return host(host_futex(w, op, static_cast<uint32_t>(a[2]), reinterpret_cast<const void*>(a[3]), w2,
                             static_cast<uint32_t>(a[5])));
    }
    default:
      warn_once(kFutexWarning << 32 | static_cast<uint32_t>(cmd),
                fmt::format("futex operation {} (priority inheritance) is not implemented; returning -ENOSYS", cmd));
      return -ENOSYS;
  }
}

int64_t LinuxUser::sys_get_robust_list(const std::array<uint64_t, 6>& a) {
  const int tid = static_cast<int>(a[0]);
  uint64_t list = self().robust_list;
  if (tid != 0) {
    std::lock_guard lock(group_mutex_);
    const auto it = std::find_if(live_.begin(), live_.end(), [&](const GuestThread* t) { return t->tid == tid; });
    if (it == live_.end()) return -ESRCH;
    list = (*it)->robust_list;
  }
  // kernel/futex/syscalls.c: the length first, then the head.
  if (!put_guest(a[2], kRobustListHeadSize)) return -EFAULT;
  return put_guest(a[1], list) ? 0 : -EFAULT;
}

void LinuxUser::exit_robust_list(GuestThread& t) {
  if (!t.robust_list) return;
  // struct robust_list_head: next, futex_offset, list_op_pending. Entries have bit 0 set for PI futexes.
  const auto* head = static_cast<const uint64_t*>(guest_ptr(t.robust_list, 3, 8, PROT_READ));
  if (!head) return;
  const int64_t offset = static_cast<int64_t>(head[1]);
  const uint64_t pending = head[2] & ~1ull;
  // As futex.c handle_futex_death: a lock word this thread holds gets FUTEX_OWNER_DIED, and a waiter is woken.
  auto death = [&](uint64_t entry) {
    const uint64_t va = entry + static_cast<uint64_t>(offset);
    if (va & 3) return;
    auto* w = static_cast<uint32_t*>(guest_ptr(va, 1, 4, PROT_READ | PROT_WRITE));
    if (!w) return;
    uint32_t v = __atomic_load_n(w, __ATOMIC_SEQ_CST);
    do {
      if ((v & FUTEX_TID_MASK) != static_cast<uint32_t>(t.tid)) return;
    } while (!__atomic_compare_exchange_n(w, &v, (v & FUTEX_WAITERS) | FUTEX_OWNER_DIED, false, __ATOMIC_SEQ_CST,
                                          __ATOMIC_SEQ_CST));
    if (v & FUTEX_WAITERS) host_futex(w, FUTEX_WAKE, 1, nullptr, nullptr, 0);
  };
  uint64_t entry = head[0] & ~1ull;
  for (int k = 0; entry != t.robust_list && k < kRobustListLimit; k++) {
    const auto* next = static_cast<const uint64_t*>(guest_ptr(entry, 1, 8, PROT_READ));
    if (!next) break;
    const uint64_t following = *next & ~1ull;
    if (entry != pending) death(entry);
    entry = following;
  }
  if (pending) death(pending);
}

int64_t LinuxUser::sys_sched_affinity(uint64_t n, const std::array<uint64_t, 6>& a) {
  // As kernel/sched/core.c: masks of longs, of at least the guest's nr_cpu_ids bits for get;
  // cpumask_size() bytes written or read. Another process's CPUs brisk does not know: all of them.
  const uint64_t mask_bytes = (cpus_ + 63) / 64 * 8;
  const bool get = n == nr::sched_getaffinity;
  if (get && (a[1] * 8 < cpus_ || (a[1] & 7))) return -EINVAL;
  const int pid = static_cast<int>(a[0]);
  const uint64_t bytes = std::min(a[1], mask_bytes);
  auto* m = static_cast<uint8_t*>(guest_ptr(a[2], bytes, 1, get ? PROT_WRITE : PROT_READ));
  std::unique_lock lock(group_mutex_);
  GuestThread* t = pid == 0 ? &self() : nullptr;
  for (GuestThread* o : live_)
    if (!t && o->tid == pid) t = o;
  if (!t) {
    cpu_set_t host_mask;  // tids are the host's: the host says whether there is such a task
    if (::sched_getaffinity(pid, sizeof host_mask, &host_mask) != 0) return -errno;
    if (!get) return -EPERM;
  }
  if (!m && bytes) return -EFAULT;
  if (get) {
    const std::bitset<kMaxCpus> cpus = t ? t->affinity : guest_cpus();
    std::memset(m, 0, bytes);
    for (unsigned c = 0; c < cpus_; c++) m[c / 8] |= uint8_t(cpus.test(c) << (c % 8));
    return static_cast<int64_t>(bytes);
  }
  // Only the guest's CPUs count, and one of them must remain; host threads run where the host puts them.
  std::bitset<kMaxCpus> cpus;
  for (unsigned c = 0; c < cpus_ && c / 8 < bytes; c++) cpus.set(c, (m[c / 8] >> (c % 8)) & 1);
  if (cpus.none()) return -EINVAL;
  t->affinity = cpus;
  return 0;
}

}  // namespace brisk
