// Descriptors beyond plain files, in user mode: signalfd, epoll, eventfd, timerfd, inotify and sockets.
// The host kernel does the work, except for signalfd, whose signals are the guest's (brisk emulates
// them, runtime/linux_signals.cpp); brisk checks every guest pointer (those inside struct msghdr
// too), keeps its own descriptors out of the guest's reach (guest_fd, SCM_RIGHTS, the BPF options),
// and converts struct epoll_event, the one structure here whose riscv64 layout differs from x86-64's.
//
// AF_UNIX socket paths are the guest's paths as given: --sysroot does not apply to them, as QEMU's
// linux-user does not remap them either (the sysroot holds libraries, not the sockets a program
// talks to).
#include <dirent.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "runtime/diag.h"
#include "runtime/linux_syscall_nr.h"
#include "runtime/linux_user.h"

namespace brisk {

namespace {

int64_t host(long r) { return r < 0 ? -errno : r; }

constexpr int R = PROT_READ, W = PROT_WRITE;

// struct epoll_event of riscv64 (include/uapi/linux/eventpoll.h): only x86-64 packs it.
struct RvEpollEvent {
  uint32_t events;
  uint32_t pad;
  uint64_t data;
};
static_assert(sizeof(RvEpollEvent) == 16 && sizeof(epoll_event) == 12);
// EP_MAX_EVENTS (fs/eventpoll.c), with riscv64's event size.
constexpr uint64_t kEpollMaxEvents = INT_MAX / sizeof(RvEpollEvent);
// Events taken from the host per wait: any beyond stay ready there for the next wait.
constexpr uint64_t kEpollBatch = 256;

// UIO_MAXIOV (include/linux/uio.h): the most iovecs a message may have.
constexpr uint64_t kMaxIov = 1024;
// Control data brisk copies for sendmsg: more than any optmem_max the host's sock_kmalloc allows
// by default, which answers ENOBUFS for it as the host would.
constexpr uint64_t kMaxControl = 1 << 20;

// struct mmsghdr: a msghdr (one layout on both LP64 ABIs) and the length sent or received.
struct RvMmsghdr {
  msghdr hdr;
  uint32_t len;
  uint32_t pad;
};
static_assert(sizeof(RvMmsghdr) == sizeof(mmsghdr) && sizeof(msghdr) == 56);

// struct signalfd_siginfo (include/uapi/linux/signalfd.h): one layout on every architecture.
struct RvSignalfdSiginfo {
  uint32_t signo;
  int32_t errno_, code;
  uint32_t pid, uid;
  int32_t fd;
  uint32_t tid, band, overrun, trapno;
  int32_t status, int_;
  uint64_t ptr, utime, stime, addr;
  uint16_t addr_lsb, pad2;
  int32_t syscall;
  uint64_t call_addr;
  uint32_t arch;
  uint8_t pad[28];
};
static_assert(sizeof(RvSignalfdSiginfo) == 128);

// What a signalfd read reports of a pending signal: the siginfo fields its si_code's layout has
// (kernel/signal.c siginfo_layout, fs/signalfd.c signalfd_copyinfo).
RvSignalfdSiginfo to_signalfd(const LinuxUser::SigInfo& si) {
  RvSignalfdSiginfo o{};
  o.signo = static_cast<uint32_t>(si.signo);
  o.errno_ = si.errno_;
  o.code = si.code;
  const auto lo = static_cast<uint32_t>(si.word0), hi = static_cast<uint32_t>(si.word0 >> 32);
  const bool fault = si.signo == SIGSEGV || si.signo == SIGBUS || si.signo == SIGILL || si.signo == SIGFPE ||
                     si.signo == SIGTRAP;
  if (si.code == SI_TIMER) {
    o.tid = lo;
    o.overrun = hi;
    o.ptr = si.word1;
    o.int_ = static_cast<int32_t>(si.word1);
  } else if (si.code > SI_USER && si.code < SI_KERNEL && fault) {
    o.addr = si.word0;
  } else if (si.code == SI_SIGIO || (si.code > SI_USER && si.code < SI_KERNEL && si.signo == SIGPOLL)) {
    o.band = static_cast<uint32_t>(si.word0);
    o.fd = static_cast<int32_t>(si.word1);
  } else {
    o.pid = lo;
    o.uid = hi;
    if (si.code > SI_USER && si.code < SI_KERNEL && si.signo == SIGCHLD) {
      o.status = static_cast<int32_t>(si.word1);
      std::memcpy(&o.utime, si.rest, 8);
      std::memcpy(&o.stime, si.rest + 8, 8);
    } else if (si.code < 0) {
      o.ptr = si.word1;
      o.int_ = static_cast<int32_t>(si.word1);
    }
  }
  return o;
}

// The guest's descriptors of the file (dev, ino); false when they cannot be listed.
bool guest_fds_of(uint64_t dev, uint64_t ino, std::vector<int>& out) {
  out.clear();
  DIR* d = opendir("/proc/self/fd");
  if (!d) return false;
  const int self = dirfd(d);
  while (dirent* e = readdir(d)) {
    const int fd = std::atoi(e->d_name);
    struct stat st;
    if (e->d_name[0] == '.' || fd == self || own_fd(fd) || fstat(fd, &st) != 0) continue;
    if (st.st_dev == dev && st.st_ino == ino) out.push_back(fd);
  }
  closedir(d);
  return true;
}

// Socket options whose values hold user pointers, which the host would follow into brisk's memory:
// the netfilter tables (IPT/IP6T/ARPT/EBT_SO_SET_REPLACE and _ADD_COUNTERS, EBT_SO_GET_ENTRIES and
// _GET_INIT_ENTRIES), AF_XDP's UMEM, and PACKET_FANOUT_DATA's filter.
bool option_has_pointers(int level, int name, bool set) {
  if (level == IPPROTO_IP || level == IPPROTO_IPV6) {
    if (set) return name == 64 || name == 65 || name == 96 || name == 97 || name == 128 || name == 129;
    return level == IPPROTO_IP && (name == 129 || name == 131);
  }
  return level == SOL_XDP || (level == SOL_PACKET && name == 22);
}

}  // namespace

// --- signalfd ---

int64_t LinuxUser::sys_signalfd4(const std::array<uint64_t, 6>& a) {
  // fs/signalfd.c's order: the mask's size, the mask, the flags, then the descriptor.
  if (a[2] != 8) return -EINVAL;
  auto* m = static_cast<const uint64_t*>(guest_ptr(a[1], 1, 8, R));
  if (!m) return -EFAULT;
  const uint64_t mask = *m & ~((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)));
  const int flags = static_cast<int>(a[3]);
  if (flags & ~(SFD_CLOEXEC | SFD_NONBLOCK)) return -EINVAL;
  const int ufd = static_cast<int>(a[0]);
  if (ufd != -1) {
    struct stat st;
    if (fstat(guest_fd(a[0]), &st) != 0) return -errno;
    SignalFd* s = signalfd_of(guest_fd(a[0]));
    if (!s) return -EINVAL;
    s->mask = mask;
    update_signalfds();
    return ufd;
  }
  // A pipe no descriptor of the guest's reads any more serves again; else a new one.
  std::vector<int> fds;
  auto s = std::find_if(signalfds_.begin(), signalfds_.end(),
                        [&](const SignalFd& f) { return guest_fds_of(f.dev, f.ino, fds) && fds.empty(); });
  if (s == signalfds_.end()) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -errno;
    SignalFd f;
    f.reader = adopt_own_fd(p[0]);
    f.writer = adopt_own_fd(p[1]);
    struct stat st;
    if (f.reader < 0 || f.writer < 0 || fstat(f.reader, &st) != 0) {
      const int e = errno;
      if (f.reader >= 0) close(f.reader);
      if (f.writer >= 0) close(f.writer);
      return -e;
    }
    f.dev = st.st_dev;
    f.ino = st.st_ino;
    s = signalfds_.insert(signalfds_.end(), f);
  }
  const int fd = fcntl(s->reader, flags & SFD_CLOEXEC ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
  if (fd < 0) return -errno;
  fcntl(fd, F_SETFL, flags & SFD_NONBLOCK ? O_NONBLOCK : 0);
  s->mask = mask;
  update_signalfds();
  return fd;
}

void LinuxUser::signalfds_after_fork() {
  // The child's signalfds read its own signals: each gets a pipe of its own, under the same
  // descriptor numbers, brisk's and the guest's, with the same flags.
  std::vector<int> fds;
  for (SignalFd& s : signalfds_) {
    int p[2];
    struct stat st;
    if (!guest_fds_of(s.dev, s.ino, fds) || pipe2(p, O_CLOEXEC) != 0) continue;
    const int status = fcntl(s.reader, F_GETFL);
    for (int fd : fds) dup3(p[0], fd, fcntl(fd, F_GETFD) & FD_CLOEXEC ? O_CLOEXEC : 0);
    dup3(p[0], s.reader, O_CLOEXEC);
    dup3(p[1], s.writer, O_CLOEXEC);
    close(p[0]);
    close(p[1]);
    fcntl(s.reader, F_SETFL, status);
    if (fstat(s.reader, &st) == 0) s.dev = st.st_dev, s.ino = st.st_ino;
    s.ready = false;
  }
  update_signalfds();
}

LinuxUser::SignalFd* LinuxUser::signalfd_of(int fd) {
  struct stat st;
  if (signalfds_.empty() || fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return nullptr;
  for (SignalFd& s : signalfds_)
    if (s.dev == st.st_dev && s.ino == st.st_ino) return &s;
  return nullptr;
}

void LinuxUser::update_signalfds() {
  for (SignalFd& s : signalfds_) {
    const bool want = (self().sig.pending & s.mask) != 0;
    if (want == s.ready) continue;
    // The pipe holds at most this one byte, so the write does not block; the read is only of a byte
    // there (the guest may have taken it another way, readv, splice).
    char byte = 0;
    int held = 0;
    if (want ? ::write(s.writer, &byte, 1) == 1
             : ioctl(s.reader, FIONREAD, &held) != 0 || held == 0 || ::read(s.reader, &byte, 1) == 1)
      s.ready = want;
  }
}

int64_t LinuxUser::signalfd_read(SignalFd& s, int fd, const std::vector<iovec>& to) {
  uint64_t len = 0;
  for (const iovec& v : to) len += v.iov_len;  // each at most SSIZE_MAX, at most IOV_MAX of them
  // As many as there are signal numbers: real-time signals queued beyond are the next read's.
  const uint64_t count = std::min<uint64_t>(len / sizeof(RvSignalfdSiginfo), kSignals);
  if (!count) return -EINVAL;
  const int fl = fcntl(fd, F_GETFL);
  for (;;) {
    take_host_signals();
    RvSignalfdSiginfo out[kSignals];
    uint64_t n = 0;
    for (uint64_t ready; n < count && (ready = self().sig.pending & s.mask); n++) {
      out[n] = to_signalfd(take_signal(__builtin_ctzll(ready) + 1));
    }
    update_signalfds();
    if (n) {
      const auto* from = reinterpret_cast<const uint8_t*>(out);
      uint64_t left = n * sizeof(RvSignalfdSiginfo);
      for (size_t k = 0; left; k++) {
        const uint64_t part = std::min<uint64_t>(left, to[k].iov_len);
        std::memcpy(to[k].iov_base, from, part);
        from += part;
        left -= part;
      }
      return static_cast<int64_t>(n * sizeof(RvSignalfdSiginfo));
    }
    if (fl & O_NONBLOCK) return -EAGAIN;
    // Until a signal it watches is raised, or another deliverable one interrupts it (then as Linux's
    // -ERESTARTSYS: restarted after a handler with SA_RESTART). On the pipe that is readable while
    // one is pending: wait_signals may take the signal in before it waits, blocked for the guest.
    const int64_t r = wait_signals(std::nullopt, [&](const sigset_t* host_mask) {
      pollfd ready{s.reader, POLLIN, 0};
      return host(::syscall(SYS_ppoll, &ready, 1, nullptr, host_mask, kHostSigsetSize));
    });
    // exit_group's kick, too: the thread ends.
    if (r == -EINTR && (thread_ends() || (!(self().sig.pending & s.mask) && next_signal()))) return -EINTR;
  }
}

// --- epoll ---

int64_t LinuxUser::sys_epoll_ctl(const std::array<uint64_t, 6>& a) {
  const int op = static_cast<int>(a[1]);
  epoll_event ev{};
  if (op != EPOLL_CTL_DEL) {  // ep_op_has_event: any other op reads the event, a bad op too
    auto* g = static_cast<const RvEpollEvent*>(guest_ptr(a[3], 1, sizeof(RvEpollEvent), R));
    if (!g) return -EFAULT;
    ev.events = g->events;
    ev.data.u64 = g->data;
  }
  return host(::epoll_ctl(guest_fd(a[0]), op, guest_fd(a[2]), &ev));
}

int64_t LinuxUser::sys_epoll_wait(uint64_t n, const std::array<uint64_t, 6>& a) {
  // fs/eventpoll.c's order: epoll_pwait2's timeout, the signal mask, then maxevents and the array.
  timespec ts{};
  const bool timed = n == nr::epoll_pwait2 && a[3];
  if (timed) {
    auto* t = static_cast<const int64_t*>(guest_ptr(a[3], 2, 8, R));
    if (!t) return -EFAULT;
    if (t[0] < 0 || t[1] < 0 || t[1] >= 1'000'000'000) return -EINVAL;
    ts = {t[0], t[1]};
  }
  std::optional<uint64_t> mask;
  if (a[4]) {
    if (a[5] != 8) return -EINVAL;
    auto* m = static_cast<const uint64_t*>(guest_ptr(a[4], 1, 8, R));
    if (!m) return -EFAULT;
    mask = *m;
  }
  const int maxevents = static_cast<int>(a[2]);
  if (maxevents <= 0 || static_cast<uint64_t>(maxevents) > kEpollMaxEvents) return -EINVAL;
  auto* out = static_cast<RvEpollEvent*>(guest_ptr(a[1], static_cast<uint64_t>(maxevents), sizeof(RvEpollEvent), W));
  if (!out) return -EFAULT;
  std::vector<epoll_event> events(std::min<uint64_t>(static_cast<uint64_t>(maxevents), kEpollBatch));
  const int epfd = guest_fd(a[0]), count = static_cast<int>(events.size());
  const int64_t r = wait_signals(mask, [&](const sigset_t* host_mask) {
    if (n == nr::epoll_pwait2)
      return host(::syscall(SYS_epoll_pwait2, epfd, events.data(), count, timed ? &ts : nullptr, host_mask, kHostSigsetSize));
    return host(::syscall(SYS_epoll_pwait, epfd, events.data(), count, static_cast<int>(a[3]), host_mask, kHostSigsetSize));
  });
  for (int64_t k = 0; k < r; k++) out[k] = {events[k].events, 0, events[k].data.u64};
  return r;
}

// --- eventfd, timerfd, inotify ---

int64_t LinuxUser::settime(uint64_t new_va, uint64_t old_va,
                           const std::function<long(const itimerspec*, itimerspec*)>& set) {
  auto* nv = static_cast<const itimerspec*>(guest_ptr(new_va, 1, sizeof(itimerspec), R));
  if (!nv) return -EFAULT;
  const itimerspec value = *nv;
  itimerspec old{};
  const int64_t r = host(set(&value, old_va ? &old : nullptr));
  if (r == 0 && old_va && !put_guest(old_va, old)) return -EFAULT;
  return r;
}

int64_t LinuxUser::sys_fd_misc(uint64_t n, const std::array<uint64_t, 6>& a) {
  const int fd = guest_fd(a[0]);
  switch (n) {
    case nr::eventfd2: return host(::syscall(SYS_eventfd2, static_cast<unsigned>(a[0]), static_cast<int>(a[1])));
    case nr::timerfd_create: return host(::syscall(SYS_timerfd_create, static_cast<int>(a[0]), static_cast<int>(a[1])));
    case nr::timerfd_settime:
      return settime(a[2], a[3], [&](const itimerspec* nv, itimerspec* old) {
        return ::syscall(SYS_timerfd_settime, fd, static_cast<int>(a[1]), nv, old);
      });
    case nr::timerfd_gettime: {
      itimerspec cur{};
      const int64_t r = host(::syscall(SYS_timerfd_gettime, fd, &cur));
      return r == 0 && !put_guest(a[1], cur) ? -EFAULT : r;
    }
    case nr::inotify_init1: return host(::inotify_init1(static_cast<int>(a[0])));
    case nr::inotify_add_watch: {
      int64_t err;
      const std::string path = host_path_arg(a[1], err);
      return err ? err : host(::inotify_add_watch(fd, path.c_str(), static_cast<uint32_t>(a[2])));
    }
    default: return host(::inotify_rm_watch(fd, static_cast<int>(a[1])));
  }
}

// --- sockets ---

int64_t LinuxUser::sys_socket(uint64_t n, const std::array<uint64_t, 6>& a) {
  const int fd = guest_fd(a[0]);
  // A socket address the guest passes in (move_addr_to_kernel): len is an int up to sockaddr_storage.
  auto addr_in = [&](uint64_t va, uint64_t len_arg, int64_t& err) -> const sockaddr* {
    const int len = static_cast<int>(len_arg);
    err = len < 0 || static_cast<size_t>(len) > sizeof(sockaddr_storage) ? -EINVAL : 0;
    if (err || len == 0) return nullptr;
    auto* p = static_cast<const sockaddr*>(guest_ptr(va, static_cast<uint64_t>(len), 1, R));
    if (!p) err = -EFAULT;
    return p;
  };
  // One the host writes back with its length (move_addr_to_user): at most min(*len, the address's
  // size) bytes, so only that much of the guest's buffer must be writable.
  struct AddrOut {
    sockaddr* addr = nullptr;
    socklen_t* len = nullptr;
  };
  auto addr_out = [&](uint64_t va, uint64_t len_va, int64_t& err) {
    AddrOut o;
    o.len = static_cast<socklen_t*>(guest_ptr(len_va, 1, sizeof(socklen_t), R | W));
    err = o.len ? 0 : -EFAULT;
    if (err) return o;
    const int len = static_cast<int>(*o.len);
    if (len < 0) {
      err = -EINVAL;
      return o;
    }
    const uint64_t bytes = std::min<uint64_t>(static_cast<uint64_t>(len), sizeof(sockaddr_storage));
    if (bytes) {
      o.addr = static_cast<sockaddr*>(guest_ptr(va, bytes, 1, W));
      if (!o.addr) err = -EFAULT;
    }
    return o;
  };
  int64_t err = 0;
  switch (n) {
    case nr::socket: return host(::socket(static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2])));
    case nr::socketpair: {
      auto* sv = static_cast<int*>(guest_ptr(a[3], 2, sizeof(int), W));
      if (!sv) return -EFAULT;
      return host(::socketpair(static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(a[2]), sv));
    }
    case nr::bind:
    case nr::connect: {
      const sockaddr* addr = addr_in(a[1], a[2], err);
      if (err) return err;
      const auto len = static_cast<socklen_t>(a[2]);
      return host(n == nr::bind ? ::bind(fd, addr, len) : ::connect(fd, addr, len));
    }
    case nr::listen: return host(::listen(fd, static_cast<int>(a[1])));
    case nr::shutdown: return host(::shutdown(fd, static_cast<int>(a[1])));
    case nr::accept:
    case nr::accept4: {
      AddrOut o;
      if (a[1]) o = addr_out(a[1], a[2], err);  // without an address, the length is not looked at
      if (err) return err;
      return host(::accept4(fd, o.addr, o.len, n == nr::accept4 ? static_cast<int>(a[3]) : 0));
    }
    case nr::getsockname:
    case nr::getpeername: {
      AddrOut o = addr_out(a[1], a[2], err);
      if (err) return err;
      return host(n == nr::getsockname ? ::getsockname(fd, o.addr, o.len) : ::getpeername(fd, o.addr, o.len));
    }
    case nr::sendto: {
      const void* buf = guest_ptr(a[1], a[2], 1, R);
      if (!buf && a[2]) return -EFAULT;
      const sockaddr* addr = a[4] ? addr_in(a[4], a[5], err) : nullptr;
      if (err) return err;
      return host(::sendto(fd, buf, a[2], static_cast<int>(a[3]), addr, addr ? static_cast<socklen_t>(a[5]) : 0));
    }
    default: {  // recvfrom
      void* buf = guest_ptr(a[1], a[2], 1, W);
      if (!buf && a[2]) return -EFAULT;
      AddrOut o;
      if (a[4]) o = addr_out(a[4], a[5], err);
      if (err) return err;
      return host(::recvfrom(fd, buf, a[2], static_cast<int>(a[3]), o.addr, o.len));
    }
  }
}

int64_t LinuxUser::sys_sockopt(uint64_t n, const std::array<uint64_t, 6>& a) {
  const int fd = guest_fd(a[0]), level = static_cast<int>(a[1]), name = static_cast<int>(a[2]);
  const bool set = n == nr::setsockopt;
  if (option_has_pointers(level, name, set)) {
    warn_once(n << 40 | uint64_t(static_cast<uint32_t>(level)) << 16 | static_cast<uint16_t>(name),
              fmt::format("{}sockopt level {} option {} is not implemented; returning -ENOPROTOOPT",
                          set ? "set" : "get", level, name));
    return -ENOPROTOOPT;
  }
  if (!set) {
    auto* len = static_cast<socklen_t*>(guest_ptr(a[4], 1, sizeof(socklen_t), R | W));
    if (!len) return -EFAULT;
    if (static_cast<int>(*len) < 0) return -EINVAL;
    void* val = guest_ptr(a[3], *len, 1, W);
    if (!val && *len) return -EFAULT;
    return host(::getsockopt(fd, level, name, val, len));
  }
  const int len = static_cast<int>(a[4]);
  if (len < 0) return -EINVAL;
  const void* val = guest_ptr(a[3], static_cast<uint64_t>(len), 1, R);
  if (!val && len) return -EFAULT;
  if (level == SOL_SOCKET && (name == SO_ATTACH_BPF || name == SO_ATTACH_REUSEPORT_EBPF) &&
      static_cast<size_t>(len) >= sizeof(int)) {
    // The value is a BPF program's descriptor.
    int prog;
    std::memcpy(&prog, val, sizeof prog);
    prog = guest_fd(static_cast<uint64_t>(prog));
    return host(::setsockopt(fd, level, name, &prog, sizeof prog));
  }
  if (level == SOL_SOCKET && (name == SO_ATTACH_FILTER || name == SO_ATTACH_REUSEPORT_CBPF) &&
      static_cast<size_t>(len) == sizeof(sock_fprog)) {
    // struct sock_fprog (the same on both ABIs) points at the classic BPF instructions.
    // No instructions, or more than BPF_MAXINSNS: the host refuses them before it reads any.
    sock_fprog prog;
    std::memcpy(&prog, val, sizeof prog);
    const uint64_t va = reinterpret_cast<uintptr_t>(prog.filter);
    prog.filter = nullptr;
    if (va && prog.len && prog.len <= BPF_MAXINSNS) {
      prog.filter = static_cast<sock_filter*>(guest_ptr(va, prog.len, sizeof(sock_filter), R));
      if (!prog.filter) return -EFAULT;
    }
    return host(::setsockopt(fd, level, name, &prog, sizeof prog));
  }
  return host(::setsockopt(fd, level, name, val, static_cast<socklen_t>(len)));
}

// A guest's message as the host takes it: the iovecs translated, and for sendmsg a copy of the
// control data, whose SCM_RIGHTS descriptors are the guest's.
struct LinuxUser::HostMsg {
  msghdr h{};
  std::vector<iovec> iov;
  std::vector<uint8_t> control;
};

int64_t LinuxUser::host_msghdr(const msghdr& g, bool send, HostMsg& m) {
  // As net/socket.c's __copy_msghdr: no name, no length; a length clamped to sockaddr_storage.
  const int prot = send ? R : W;
  const int namelen = g.msg_name ? static_cast<int>(g.msg_namelen) : 0;
  if (namelen < 0) return -EINVAL;
  m.h.msg_namelen = std::min<socklen_t>(static_cast<socklen_t>(namelen), sizeof(sockaddr_storage));
  if (m.h.msg_namelen) {
    m.h.msg_name = guest_ptr(reinterpret_cast<uintptr_t>(g.msg_name), m.h.msg_namelen, 1, prot);
    if (!m.h.msg_name) return -EFAULT;
  }
  if (g.msg_iovlen > kMaxIov) return -EMSGSIZE;
  int64_t err = 0;
  const uint64_t* iov = guest_iov(reinterpret_cast<uintptr_t>(g.msg_iov), g.msg_iovlen, err);
  if (err) return err;
  if (!host_iov(iov, g.msg_iovlen, prot, m.iov)) return -EFAULT;
  m.h.msg_iov = m.iov.data();
  m.h.msg_iovlen = m.iov.size();
  if (!g.msg_controllen) return 0;
  const uint64_t control_va = reinterpret_cast<uintptr_t>(g.msg_control);
  if (!send) {
    m.h.msg_control = guest_ptr(control_va, g.msg_controllen, 1, W);
    m.h.msg_controllen = g.msg_controllen;
    return m.h.msg_control ? 0 : -EFAULT;
  }
  if (g.msg_controllen > INT_MAX || g.msg_controllen > kMaxControl) return -ENOBUFS;
  const auto* control = static_cast<const uint8_t*>(guest_ptr(control_va, g.msg_controllen, 1, R));
  if (!control) return -EFAULT;
  m.control.assign(control, control + g.msg_controllen);
  m.h.msg_control = m.control.data();
  m.h.msg_controllen = m.control.size();
  // Any descriptor of brisk's becomes -1, which the host refuses (EBADF). The walk stops where the
  // host's would (net/core/scm.c: CMSG_OK) and refuse the message (EINVAL).
  uint8_t* data = m.control.data();
  const uint64_t size = m.control.size();
  for (uint64_t off = 0; off + sizeof(cmsghdr) <= size;) {
    cmsghdr c;
    std::memcpy(&c, data + off, sizeof c);
    if (c.cmsg_len < sizeof(cmsghdr) || c.cmsg_len > size - off) break;
    if (c.cmsg_level == SOL_SOCKET && c.cmsg_type == SCM_RIGHTS) {
      for (uint64_t at = off + CMSG_LEN(0); at + sizeof(int) <= off + c.cmsg_len; at += sizeof(int)) {
        int v;
        std::memcpy(&v, data + at, sizeof v);
        v = guest_fd(static_cast<uint64_t>(v));
        std::memcpy(data + at, &v, sizeof v);
      }
    }
    off += CMSG_ALIGN(c.cmsg_len);
  }
  return 0;
}

int64_t LinuxUser::sys_msg(uint64_t n, const std::array<uint64_t, 6>& a) {
  const int fd = guest_fd(a[0]);
  const bool send = n == nr::sendmsg || n == nr::sendmmsg;
  if (n == nr::sendmsg || n == nr::recvmsg) {
    auto* g = static_cast<msghdr*>(guest_ptr(a[1], 1, sizeof(msghdr), send ? R : R | W));
    if (!g) return -EFAULT;
    msghdr copy = *g;
    HostMsg m;
    if (const int64_t err = host_msghdr(copy, send, m)) return err;
    const int flags = static_cast<int>(a[2]);
    if (send) return host(::sendmsg(fd, &m.h, flags));
    const int64_t r = host(::recvmsg(fd, &m.h, flags));
    if (r < 0) return r;
    if (copy.msg_name) g->msg_namelen = m.h.msg_namelen;
    g->msg_controllen = m.h.msg_controllen;
    g->msg_flags = m.h.msg_flags;
    return r;
  }
  // sendmmsg, recvmmsg: as Linux, the messages up to the first bad one are still sent or received.
  const uint64_t vlen = std::min<uint64_t>(static_cast<unsigned>(a[2]), kMaxIov);
  auto* g = static_cast<RvMmsghdr*>(guest_ptr(a[1], vlen, sizeof(RvMmsghdr), R | W));
  if (!g && vlen) return -EFAULT;
  timespec* timeout = nullptr;  // the host writes back what is left of it
  if (n == nr::recvmmsg && a[4]) {
    timeout = static_cast<timespec*>(guest_ptr(a[4], 1, sizeof(timespec), R | W));
    if (!timeout) return -EFAULT;
  }
  std::vector<HostMsg> msgs(vlen);
  std::vector<mmsghdr> h(vlen);
  uint64_t ok = 0;
  int64_t err = 0;
  for (; ok < vlen; ok++) {
    msghdr copy = g[ok].hdr;
    if ((err = host_msghdr(copy, send, msgs[ok]))) break;
    h[ok].msg_hdr = msgs[ok].h;
  }
  if (!ok && err) return err;
  const auto count = static_cast<unsigned>(ok);
  const int flags = static_cast<int>(a[3]);
  const int64_t r = send ? host(::sendmmsg(fd, h.data(), count, flags))
                         : host(::syscall(SYS_recvmmsg, fd, h.data(), count, flags, timeout));
  for (int64_t k = 0; k < r; k++) {
    g[k].len = h[k].msg_len;
    if (send) continue;
    if (g[k].hdr.msg_name) g[k].hdr.msg_namelen = h[k].msg_hdr.msg_namelen;
    g[k].hdr.msg_controllen = h[k].msg_hdr.msg_controllen;
    g[k].hdr.msg_flags = h[k].msg_hdr.msg_flags;
  }
  return r;
}

}  // namespace brisk
