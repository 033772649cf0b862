// User-mode Linux: runs one riscv64 Linux program on the host kernel, as qemu-riscv64 does.
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include <array>
#include <atomic>
#include <bitset>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/ctr_config.h"
#include "runtime/engine.h"
#include "runtime/exclusive.h"
#include "runtime/guest_vm.h"
#include "runtime/host_clock.h"
#include "runtime/recorder.h"
#include "runtime/run_limits.h"

namespace brisk {

struct UserOptions {
  std::string program;              // path of the ELF to run
  std::vector<std::string> argv;    // argv[0] included
  std::vector<std::string> envp;
  std::string sysroot;              // where PT_INTERP and absolute library paths are looked up first
  std::string cpu = "rv64";         // QEMU-style rv64,EXT=on|off,... (csr/extensions.h)
  // --cpus: the guest sees CPUs 0..cpus-1 (0: as many as brisk may run on). Guest threads still run
  // wherever the host puts them.
  unsigned cpus = 0;
  EngineOptions engine;
  RunLimits limits;                 // --timeout, --max-insns
  ctr::Options ctr;                 // --ctr, --ctr-depth, --ctr-dump
  // brisk's command line up to PROG (brisk, run, its options): execve runs the new program with them.
  std::vector<std::string> brisk_argv;
  bool forked = false;              // --forked: a guest's fork made this process (runtime/linux_process.cpp)
  profile::Recorder* recorder = nullptr;  // brisk record (needs ctr.record)
};

struct UserResult {
  int exit_code = 0;       // the guest's status, or 128 + signal when a fault killed it
  uint64_t instret = 0;
  std::string engine;      // Engine::summary()
};

// The environment a guest's execve gave the new program, from the descriptor --guest-env-fd names,
// which it closes (runtime/linux_process.cpp). Throws brisk::Error when it cannot be read.
std::vector<std::string> read_guest_env(int fd);

// "SIGTERM", or "signal 40" for the real-time signals, which have no abbreviations.
std::string signal_name(int sig);

class LinuxUser final : public TrapHandler, public HartEnv {
 public:
  // Loads the program and builds its initial stack. Throws brisk::Error on bad input.
  explicit LinuxUser(const UserOptions& opt);
  UserResult run();
  // The program's first thread (the one run() runs).
  const Hart& hart() const { return main_->hart; }
  Hart& hart() { return main_->hart; }

  // TrapHandler
  bool on_trap(Hart& h) override;
  // A block boundary: brisk record's sample, --timeout and --max-insns, then the signals that
  // became deliverable.
  bool on_budget(Hart& h) override;
  // HartEnv: anything beyond the flat guest space faults.
  bool load(Hart& h, uint64_t va, void* out, unsigned size) override;
  bool store(Hart& h, uint64_t va, const void* in, unsigned size) override;
  void* amo(Hart& h, uint64_t va, unsigned size) override;
  bool fetch16(Hart& h, uint64_t va, uint16_t& out) override;
  bool fetch_address(Hart& h, uint64_t va, uint64_t& pa) override;
  void watch_code(uint64_t page) override;
  void unwatch_code(uint64_t page) override;
  bool watches_code(uint64_t page) override;

  static constexpr int kSignals = 64;
  // siginfo_t as the guest sees it (include/uapi/asm-generic/siginfo.h): the fields brisk fills.
  struct SigInfo {
    int32_t signo = 0, errno_ = 0, code = 0, pad = 0;
    uint64_t word0 = 0;  // si_pid, si_uid for kill; si_addr for faults
    uint64_t word1 = 0;
    uint8_t rest[96] = {};
  };
  static_assert(sizeof(SigInfo) == 128);
  // POSIX timers a process may have at once; timer_create answers EAGAIN beyond.
  static constexpr int kMaxTimers = 256;
  // Real-time signals queued per thread, beyond which more are dropped (Linux's bound is
  // RLIMIT_SIGPENDING per user, a few tens of thousands by default).
  static constexpr size_t kMaxQueuedSignals = 32768;
  // The most CPUs --cpus may give the guest: glibc's CPU_SETSIZE.
  static constexpr unsigned kMaxCpus = 1024;

 private:
  void build_stack(const struct LoadedElf& exe, uint64_t interp_base);
  // brisk record: the executable pages of the host file `host` mapped at start (runtime/recorder.h).
  void record_mapping(uint64_t start, uint64_t len, uint64_t offset, const std::string& host, int prot, bool shared);
  int64_t syscall(uint64_t nr, const std::array<uint64_t, 6>& a);
  // Kills the guest as the fatal signal `sig` would, printing one line that says why.
  bool die(int sig, const std::string& why);
  // "SIGSEGV", or "signal 34" for a real-time signal, which has no abbreviation.
  static std::string signal_name(int sig);

  // Guest memory access for syscall arguments: `count` elements of `size` bytes at va, nullptr (the
  // syscall returns -EFAULT) unless all of it is mapped with `prot` and count * size does not wrap.
  void* guest_ptr(uint64_t va, uint64_t count, uint64_t size, int prot);
  bool guest_string(uint64_t va, std::string& out, size_t max = PATH_MAX * 4);
  // A guest file descriptor as the host knows it: -1 (so the host says EBADF) for brisk's own.
  static int guest_fd(uint64_t v);
  // Copies v to the guest at va: false (the syscall returns -EFAULT) unless it is writable there.
  template <typename T>
  bool put_guest(uint64_t va, const T& v) {
    void* p = guest_ptr(va, 1, sizeof(T), PROT_WRITE);
    if (p) std::memcpy(p, &v, sizeof v);
    return p != nullptr;
  }
  // The guest's array of count struct iovec (two u64s on riscv64 as on x86-64), count already
  // bounded: its (base, len) pairs, or nullptr with err = -EFAULT, or -EINVAL for a length above
  // SSIZE_MAX. err = 0 and nullptr for count 0.
  const uint64_t* guest_iov(uint64_t va, uint64_t count, int64_t& err);
  // The host's iovecs for those pairs, each buffer checked for prot: false (EFAULT) if one is not,
  // or if an empty one lies outside user space.
  bool host_iov(const uint64_t* g, uint64_t count, int prot, std::vector<iovec>& out);
  // Applies --sysroot to an absolute guest path.
  std::string host_path(const std::string& guest);
  // host_path of the guest string at va; err = -EFAULT when it cannot be read.
  std::string host_path_arg(uint64_t va, int64_t& err);
  void warn_once(uint64_t key, const std::string& what);

  // --- processes (runtime/linux_process.cpp) ---
  // fork, vfork and clone without CLONE_VM, as a host fork of brisk. sp, tls: 0 keeps the parent's.
  int64_t clone_process(uint64_t flags, uint64_t exit_signal, uint64_t sp, uint64_t ptid, uint64_t tls,
                        uint64_t ctid);
  int64_t clone3(uint64_t args, uint64_t size);
  // execve/execveat: brisk itself is exec'd on the new program; returns only on failure.
  int64_t execve(int dirfd, uint64_t path, uint64_t argv, uint64_t envp, int flags);
  // A guest's NULL-terminated array of strings (argv, envp), bounded as Linux bounds them.
  int64_t guest_strings(uint64_t va, std::vector<std::string>& out, uint64_t& total);
  int64_t wait4(int64_t pid, uint64_t status, int options, uint64_t rusage);
  int64_t waitid(int idtype, int64_t id, uint64_t info, int options, uint64_t rusage);
  int64_t prctl(int option, uint64_t arg2);
  // How a forked child ends: flushed, without unwinding what it shares with its parent (the
  // recorder's output files), and, when a signal killed its guest, of that signal, so that the
  // parent's wait sees it.
  [[noreturn]] void exit_child(int status);

  // --- signalfd, epoll, eventfd, timerfd, inotify and sockets (runtime/linux_fdio.cpp) ---
  int64_t sys_epoll_ctl(const std::array<uint64_t, 6>& a);
  int64_t sys_epoll_wait(uint64_t n, const std::array<uint64_t, 6>& a);
  // timerfd_settime and timer_settime: the new value read from new_va, the old one written to
  // old_va (when not 0) after set(new, old) succeeded, as Linux does.
  int64_t settime(uint64_t new_va, uint64_t old_va, const std::function<long(const itimerspec*, itimerspec*)>& set);
  int64_t sys_fd_misc(uint64_t n, const std::array<uint64_t, 6>& a);  // eventfd, timerfd, inotify
  int64_t sys_socket(uint64_t n, const std::array<uint64_t, 6>& a);
  int64_t sys_sockopt(uint64_t n, const std::array<uint64_t, 6>& a);
  // sendmsg, recvmsg, sendmmsg, recvmmsg.
  int64_t sys_msg(uint64_t n, const std::array<uint64_t, 6>& a);
  struct HostMsg;
  int64_t host_msghdr(const msghdr& g, bool send, HostMsg& m);
  // A guest's signalfd is a descriptor of the read end of a host pipe that holds one byte while a
  // signal it watches is pending for the guest, so that poll and epoll see it ready; brisk keeps
  // its own read and write ends, and reads it as Linux would (struct signalfd_siginfo).
  struct SignalFd {
    uint64_t mask = 0;
    uint64_t dev = 0, ino = 0;  // of the pipe
    int reader = -1, writer = -1;
    bool ready = false;
  };
  int64_t sys_signalfd4(const std::array<uint64_t, 6>& a);
  // The signalfd the guest's descriptor fd is, or nullptr.
  SignalFd* signalfd_of(int fd);
  // read or readv of a signalfd, into buffers already checked.
  int64_t signalfd_read(SignalFd& s, int fd, const std::vector<iovec>& to);
  // Makes each signalfd ready exactly while a signal it watches is pending: after the pending set changed.
  void update_signalfds();
  void signalfds_after_fork();

  // --- brisk's own /proc/<pid> entries, as Linux would show them to the guest (runtime/linux_proc.cpp) ---
  // CpuList, NoCpus, CpuInfo: the system's CPUs, which are the guest's (--cpus).
  enum class ProcEntry {
    None, Mem, Maps, Cmdline, Environ, Auxv, Stat, Status, Statm, Comm, Exe, Denied, Hidden, CpuList, NoCpus, CpuInfo
  };
  // What the host's canonical name of an open file (fd_path) is to the guest.
  ProcEntry proc_entry(const std::string& canonical) const;
  // fd was just opened by the host for the guest as openat(dirfd, path, flags): returns it, or,
  // when it is one of brisk's own entries, closes it and returns the emulated file or -errno.
  int64_t proc_open(int fd, int dirfd, const std::string& path, int flags);
  // Whether resolving path from dirfd follows a /proc/<own pid>/fd/N link of a descriptor that is
  // not the guest's: the kernel follows such links itself, so the name of what it opened cannot tell.
  bool reaches_hidden_fd(int dirfd, const std::string& path) const;
  // readlinkat(2) through the same checks.
  int64_t proc_readlink(int dirfd, const std::string& path, char* buf, size_t size);
  // Whether a stat result is brisk's own binary, which the guest knows as its program.
  bool is_host_exe(uint64_t dev, uint64_t ino) const { return dev == host_exe_dev_ && ino == host_exe_ino_; }
  // Whether `path` (under dirfd) is the running program's file, which Linux does not let a process
  // open for writing or truncate (ETXTBSY): its pages are mapped from the file (runtime/elf_loader.cpp).
  bool is_program(int dirfd, const std::string& path) const;
  std::string proc_maps() const;
  std::string proc_stat() const;
  std::string proc_status() const;
  std::string proc_statm() const;
  // What stat, status and statm say of the guest's address space and signal dispositions.
  struct GuestLayout {
    uint64_t vsize = 0, start_code = 0, end_code = 0, start_data = 0, end_data = 0;
    uint64_t ignored = 0, caught = 0;
  };
  GuestLayout guest_layout() const;
  std::string guest_bytes(uint64_t start, uint64_t end) const;
  std::string comm() const;
  // A host path as the guest names it: without the --sysroot prefix host_path adds.
  std::string guest_name(const std::string& host) const;
  // An emulated /proc/<pid>/mem: guest memory with the guest's permissions at file offset = address.
  bool is_mem_file(int fd) const;
  // Moves len bytes between the guest buffer at buf and the guest memory at pos; the count, or
  // -EIO (pos not accessible) / -EFAULT (buf not accessible) when nothing moved.
  int64_t mem_file_io(uint64_t pos, uint64_t buf, uint64_t len, bool write);
  // read/write/pread/pwrite on a mem file; without pos, at the file position, which it advances.
  // Offsets are unsigned, as for Linux's mem files.
  int64_t mem_file_rw(int fd, uint64_t buf, uint64_t len, std::optional<uint64_t> pos, bool write);
  // Whether sig is a signal number a riscv64 Linux process can name (1..64).
  static bool valid_signal(int64_t sig) { return sig >= 1 && sig <= kSignals; }
  // The guest's CPUs as /proc/cpuinfo lists them (arch/riscv/kernel/cpu.c: show_cpuinfo).
  std::string proc_cpuinfo() const;
  // The guest's CPUs, 0..cpus_-1.
  std::bitset<kMaxCpus> guest_cpus() const;
  // "0-2,5", as /sys/devices/system/cpu/online and Cpus_allowed_list say a set of CPUs (%*pbl).
  static std::string cpu_list(const std::bitset<kMaxCpus>& cpus);
  // sched_getaffinity and sched_setaffinity of the guest's threads (runtime/linux_threads.cpp).
  int64_t sys_sched_affinity(uint64_t n, const std::array<uint64_t, 6>& a);

  UserOptions opt_;
  unsigned cpus_ = 1;  // how many CPUs the guest sees (UserOptions::cpus)
  std::string exe_path_;  // absolute path of the program, for /proc/self/exe
  std::string host_exe_;  // brisk's own binary, which the guest must see as the program
  uint64_t host_exe_dev_ = 0, host_exe_ino_ = 0;
  uint64_t exe_dev_ = 0, exe_ino_ = 0;  // the program's file
  // What build_stack laid out, for /proc/<pid>/{cmdline,environ,auxv,stat}.
  uint64_t arg_start_ = 0, arg_end_ = 0, env_start_ = 0, env_end_ = 0, start_stack_ = 0;
  std::vector<uint64_t> auxv_;
  std::set<std::pair<uint64_t, uint64_t>> mem_files_;  // (dev, ino) of the emulated mem files
  GuestVm vm_;
  // Guards vm_ between threads: its map and watched pages. Changes to the map are made inside an
  // exclusive section too, so that threads running guest code (which fetch through vm_ unlocked)
  // never see one half made. Recursive: invalidation unwatches pages from inside a change.
  mutable std::recursive_mutex vm_mutex_;
  HostClock clock_;
  std::unique_ptr<ctr::Dump> ctr_dump_;  // --ctr-dump
  std::atomic<int> exit_code_{0};
  int fatal_signal_ = 0;  // the signal die() killed the guest with
  std::optional<std::string> comm_name_;  // PR_SET_NAME
  std::mutex warned_mutex_;
  std::set<uint64_t> warned_;
  struct SigAction {
    uint64_t handler = 0, flags = 0, mask = 0;
  };
  std::array<SigAction, kSignals + 1> sigactions_{};  // indexed by signal number, checked by valid_signal
  struct AltStack {
    uint64_t sp = 0, size = 0;  // size 0: none
    int flags = 0;
  };
  // What Linux keeps per thread (task_struct's blocked, pending and sas_ss_*).
  struct ThreadSignals {
    uint64_t mask = 0;     // blocked
    uint64_t pending = 0;  // raised and not yet delivered
    std::array<SigInfo, kSignals + 1> info{};  // of each pending signal: the oldest of a real-time one
    // Real-time signals raised while one of their number was pending, oldest first: each is
    // delivered in turn, as Linux queues them.
    std::deque<SigInfo> queued;
    AltStack altstack;
    // rt_sigsuspend's mask is in force: this one is what the handler's frame saves and sigreturn restores.
    std::optional<uint64_t> saved_mask;
  };

  // --- threads (runtime/linux_threads.cpp) ---
  // One guest thread: its own hart, engine (code cache) and signal state, run by a host thread of
  // its own. Guest memory, signal actions and descriptors are the process's.
  struct GuestThread {
    Hart hart;
    std::unique_ptr<Engine> engine;
    ThreadSignals sig;
    int tid = 0;                  // the host thread's tid, which the guest sees as its own
    uint64_t clear_child_tid = 0; // set_tid_address, CLONE_CHILD_CLEARTID: zeroed and woken at exit
    uint64_t robust_list = 0;     // set_robust_list's head
    bool exiting = false;         // exit: the thread ends after this syscall
    // In the exclusive group from its first guest instruction to its end: its `running` is false
    // while parked at a block boundary or in a syscall.
    ExclusiveGroup::Member member;
    bool started = false;         // the parent finished clone: the thread may run
    std::bitset<kMaxCpus> affinity;  // sched_setaffinity's CPUs, under group_mutex_
    // Signals other threads sent to this one (tgkill), under group_mutex_ in the order sent; the
    // thread moves them into sig at its next boundary. incoming has their bits.
    std::atomic<uint64_t> incoming{0};
    std::vector<SigInfo> incoming_info;
    std::thread host;
  };
  std::unique_ptr<GuestThread> main_;
  RunLimiter limiter_{opt_.limits};  // after main_: its timer signal touches the harts
  // The thread this host thread runs.
  static inline thread_local GuestThread* t_self = nullptr;
  static GuestThread& self() { return *t_self; }
  mutable std::mutex group_mutex_;
  std::condition_variable group_cv_;
  std::vector<GuestThread*> live_;                    // threads not yet exited, main_ among them
  std::vector<std::unique_ptr<GuestThread>> ended_;  // exited threads whose host thread is to be joined
  std::vector<std::unique_ptr<GuestThread>> others_; // threads clone made that are still live
  uint64_t ended_instret_ = 0;                       // what exited threads retired
  ExclusiveGroup group_{group_mutex_, group_cv_};  // its sections walk live_ unlocked
  std::atomic<bool> group_exit_{false}; // exit_group, a fatal signal, or a run limit: every thread ends

  // The host signal that interrupts a thread's blocking host syscall (kick): one brisk uses for
  // nothing else, below the ITIMER_REAL and POSIX-timer ones (runtime/linux_signals.cpp).
  static inline const int kKickSignal = SIGRTMAX - 2;
  // The host's sigset size for the raw syscalls that take a mask: a size_t, since syscall()'s
  // variadic arguments are not widened (an int's upper half is whatever the register held).
  static constexpr size_t kHostSigsetSize = _NSIG / 8;
  static constexpr uint64_t kRobustListHeadSize = 24;  // struct robust_list_head (include/uapi/linux/futex.h)
  GuestThread* leader_ = main_.get();  // the thread whose host thread ends the process (finish)
  // An engine for the first thread, or for one clone makes.
  std::unique_ptr<Engine> new_engine(bool first) const;
  // After t, the leader, ended: waits for the other threads, then the run's result.
  UserResult finish(GuestThread& t);
  // In the child of a fork: the calling thread is the only one.
  void after_fork_threads();
  // clone with CLONE_VM | CLONE_THREAD: a new guest thread on a new host thread.
  int64_t clone_thread(uint64_t flags, uint64_t sp, uint64_t ptid, uint64_t tls, uint64_t ctid);
  void thread_main(GuestThread& t);
  // The calling thread's guest code ends: clear_child_tid, the robust list, and its place in live_.
  void end_thread(GuestThread& t);
  // Ends every thread: they leave guest code at their next boundary, and a blocking host syscall
  // is interrupted by kKickSignal (sent again until they are all gone, see finish). False when
  // the process was ending already: the first status stands.
  bool exit_group(int status);
  // Whether this thread's run ends now (after a syscall or at a boundary).
  bool thread_ends() { return self().exiting || group_exit_.load(std::memory_order_relaxed); }
  // Interrupts t's blocking host syscall, if it is in one.
  void kick(const GuestThread& t);
  // An exclusive section (runtime/exclusive.h): every other thread is parked at a block boundary or
  // in a syscall while it lasts, so that its code cache and vm_'s map can change under it. Nests.
  struct Exclusive : ExclusiveGroup::Section {
    explicit Exclusive(LinuxUser& u) : ExclusiveGroup::Section(&u.group_) {}
  };
  // Drops what every thread's engine translated from [start, end) (inside an exclusive section).
  void invalidate_all(uint64_t start, uint64_t end);
  // --timeout and --max-insns (over all threads): true when the run ends, every thread with it.
  bool limit_reached(Hart& h);
  // The futex syscall on the host futex: guest memory is host memory at base + va.
  int64_t sys_futex(const std::array<uint64_t, 6>& a);
  int64_t sys_get_robust_list(const std::array<uint64_t, 6>& a);
  // Linux's exit_robust_list: every futex the exiting thread holds gets FUTEX_OWNER_DIED and a wake.
  void exit_robust_list(GuestThread& t);
  // Sends info to the thread tid of this process (tgkill; signal 0 only looks): false when there
  // is none. Or to the process (kill): the calling thread, or else one that does not block it.
  bool signal_tid(int tid, const SigInfo& info);
  void signal_process(const SigInfo& info);
  size_t thread_count() const;
  // Under group_mutex_ (lock), which it lets go of when t is the calling thread.
  void send_to(GuestThread& t, const SigInfo& info, std::unique_lock<std::mutex>& lock);

  uint64_t sigreturn_page_ = 0;  // guest address of the rt_sigreturn trampoline, mapped at the first handler

  // --- signals (runtime/linux_signals.cpp) ---
  int64_t sys_rt_sigaction(const std::array<uint64_t, 6>& a);
  int64_t sys_rt_sigprocmask(const std::array<uint64_t, 6>& a);
  int64_t sys_rt_sigpending(const std::array<uint64_t, 6>& a);
  int64_t sys_rt_sigsuspend(const std::array<uint64_t, 6>& a);
  int64_t sys_rt_sigtimedwait(const std::array<uint64_t, 6>& a);
  int64_t sys_sigaltstack(const std::array<uint64_t, 6>& a);
  int64_t sys_kill(uint64_t n, const std::array<uint64_t, 6>& a);
  int64_t sys_setitimer(const std::array<uint64_t, 6>& a);
  int64_t sys_getitimer(const std::array<uint64_t, 6>& a);
  int64_t sys_rt_sigqueueinfo(uint64_t n, const std::array<uint64_t, 6>& a);
  // timer_create, timer_settime, timer_gettime, timer_getoverrun, timer_delete.
  int64_t sys_timer(uint64_t n, const std::array<uint64_t, 6>& a);
  // A POSIX timer the guest made: a host timer whose signal brisk turns into the guest's.
  struct PosixTimer {
    bool used = false;
    int host = 0;             // the host's timer id
    int notify = 0, signo = 0;
    uint64_t value = 0;       // sigev_value
    int overrun = 0;          // of the signal raised last, counting while it is pending
    int overrun_last = 0;     // of the signal taken last: timer_getoverrun's (Linux's it_overrun_last)
    int tid = 0;              // the thread whose host thread the host timer signals, which takes its expirations
    bool to_thread = false;   // SIGEV_THREAD_ID: the signal is that thread's, else the process's
  };
  // Timer id's expirations since the last: its signal, or overruns while it is still pending.
  void timer_expired(int id, uint32_t count);
  // A blocking host call that a guest signal interrupts: -EINTR at once if one is deliverable (with
  // `mask` in force as the guest's mask, when given, as for ppoll and rt_sigsuspend), else
  // wait(host_mask), which must pass host_mask to a host call that installs it atomically while it
  // blocks (ppoll, pselect6): brisk's host signals stay blocked until then, so none slips in between.
  int64_t wait_signals(std::optional<uint64_t> mask, const std::function<int64_t(const sigset_t*)>& wait);
  // The guest's rt_sigreturn: restores the state the handler's frame holds. False: the run ends.
  bool sigreturn(Hart& h);
  // Marks sig pending for the calling guest thread, with `info`.
  void raise_signal(const SigInfo& info);
  // Takes the oldest pending sig off the calling thread's pending set: its siginfo. A real-time
  // signal queued behind it becomes pending.
  SigInfo take_signal(int sig);
  // A synchronous fault the guest may handle: delivers it now, or false when it kills the guest.
  bool deliver_fault(Hart& h, int sig, int code, uint64_t addr);
  // Delivers a deliverable signal: a handler's frame, or its default action. False: the run ends.
  // After the ecall of syscall_nr, which returned -EINTR, runs it again when Linux would restart it.
  static constexpr uint64_t kNoSyscall = ~0ull;
  bool deliver_signals(Hart& h, uint64_t syscall_nr = kNoSyscall, uint64_t orig_a0 = 0);
  // Pending, unblocked and not ignored: the lowest such signal, or 0. Drops the ignored ones.
  int next_signal();
  // Moves what brisk's host handler recorded, and what other threads sent, into the pending set.
  void take_host_signals();
  // Builds the frame of the signal info describes and enters its handler; false when the frame
  // does not fit in guest memory.
  bool setup_frame(Hart& h, const SigInfo& info);
  bool on_altstack(uint64_t sp) const;
  // The host signals brisk turns into guest signals while run() runs.
  std::vector<int> caught_host_signals() const;
  void install_host_signals();
  void restore_host_signals();
  timer_t itimer_{};  // ITIMER_REAL, on the host
  bool itimer_made_ = false;
  struct PosixTimers {
    std::array<PosixTimer, kMaxTimers> slot{};  // indexed by the guest's timer id
    int next = 0;                               // the id timer_create tries first
  };
  PosixTimers timers_;
  std::vector<SignalFd> signalfds_;
};

}  // namespace brisk
