// riscv64 Linux system calls, emulated on the x86-64 host kernel. Most pass through with guest
// pointers translated; the structures whose layout differs between the two ABIs are converted.
#include <dirent.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "runtime/diag.h"
#include "runtime/linux_syscall_nr.h"
#include "runtime/linux_user.h"

namespace brisk {

namespace {

const char* syscall_name(uint64_t n) {
  static const std::map<uint64_t, const char*> names = {
#define SYSCALL(n, name) {n, #name},
#include "runtime/linux_syscalls.def"
#undef SYSCALL
  };
  auto it = names.find(n);
  return it == names.end() ? "unknown" : it->second;
}

// A host syscall's result in the kernel's convention: the value, or -errno.
int64_t host(long r) { return r < 0 ? -errno : r; }

// RLIMIT_NOFILE's soft limit, which bounds poll's nfds.
uint64_t open_files_limit() {
  rlimit lim;
  return getrlimit(RLIMIT_NOFILE, &lim) == 0 ? lim.rlim_cur : FD_SETSIZE;
}

// The size of the process's descriptor table (FDSize in /proc/self/status), to which select clamps n.
uint64_t fd_table_size() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("FDSize:")) return std::strtoull(line.c_str() + 7, nullptr, 10);
  return open_files_limit();
}

// struct stat of the generic 64-bit ABI (include/uapi/asm-generic/stat.h), which riscv64 uses.
struct RvStat {
  uint64_t dev, ino;
  uint32_t mode, nlink, uid, gid;
  uint64_t rdev, pad1;
  int64_t size;
  int32_t blksize, pad2;
  int64_t blocks;
  int64_t atime;
  uint64_t atime_nsec;
  int64_t mtime;
  uint64_t mtime_nsec;
  int64_t ctime;
  uint64_t ctime_nsec;
  uint32_t unused4, unused5;
};
static_assert(sizeof(RvStat) == 128);

RvStat to_rv(const struct stat& s) {
  RvStat r{};
  r.dev = s.st_dev;
  r.ino = s.st_ino;
  r.mode = s.st_mode;
  r.nlink = static_cast<uint32_t>(s.st_nlink);
  r.uid = s.st_uid;
  r.gid = s.st_gid;
  r.rdev = s.st_rdev;
  r.size = s.st_size;
  r.blksize = static_cast<int32_t>(s.st_blksize);
  r.blocks = s.st_blocks;
  r.atime = s.st_atim.tv_sec;
  r.atime_nsec = static_cast<uint64_t>(s.st_atim.tv_nsec);
  r.mtime = s.st_mtim.tv_sec;
  r.mtime_nsec = static_cast<uint64_t>(s.st_mtim.tv_nsec);
  r.ctime = s.st_ctim.tv_sec;
  r.ctime_nsec = static_cast<uint64_t>(s.st_ctim.tv_nsec);
  return r;
}

// riscv_hwprobe keys and values (arch/riscv/include/uapi/asm/hwprobe.h).
constexpr int64_t kHwprobeMvendorid = 0, kHwprobeMarchid = 1, kHwprobeMimpid = 2, kHwprobeBaseBehavior = 3,
                  kHwprobeImaExt0 = 4, kHwprobeCpuperf0 = 5, kHwprobeZicbozBlockSize = 6;
constexpr uint64_t kHwprobeBaseBehaviorIma = 1;
constexpr uint64_t kHwprobeImaFd = 1 << 0, kHwprobeImaC = 1 << 1, kHwprobeExtZba = 1 << 3,
                   kHwprobeExtZbb = 1 << 4, kHwprobeExtZbs = 1 << 5, kHwprobeExtZicboz = 1 << 6,
                   kHwprobeExtZicond = 1ull << 35;
constexpr uint64_t kHwprobeMisalignedFast = 3;

}  // namespace

std::string LinuxUser::host_path_arg(uint64_t va, int64_t& err) {
  std::string guest;
  if (!guest_string(va, guest)) {
    err = -EFAULT;
    return {};
  }
  err = 0;
  return host_path(guest);
}

const uint64_t* LinuxUser::guest_iov(uint64_t va, uint64_t count, int64_t& err) {
  auto* g = static_cast<const uint64_t*>(guest_ptr(va, count, 16, PROT_READ));
  err = !g && count ? -EFAULT : 0;
  for (uint64_t k = 0; !err && k < count; k++)
    if (g[2 * k + 1] > SSIZE_MAX) err = -EINVAL;
  return err ? nullptr : g;
}

bool LinuxUser::host_iov(const uint64_t* g, uint64_t count, int prot, std::vector<iovec>& out) {
  out.resize(count);
  for (uint64_t k = 0; k < count; k++) {
    out[k].iov_len = g[2 * k + 1];
    out[k].iov_base = guest_ptr(g[2 * k], g[2 * k + 1], 1, prot);
    if (!out[k].iov_base) return false;  // an empty one too, outside user space (Linux's access_ok)
  }
  return true;
}

int64_t LinuxUser::syscall(uint64_t n, const std::array<uint64_t, 6>& a) {
  auto i = [&](int k) { return static_cast<int>(a[k]); };
  auto fd = [&](int k) { return guest_fd(a[k]); };
  auto ptr = [&](uint64_t va, uint64_t len, int prot) -> void* { return guest_ptr(va, len, 1, prot); };
  auto array = [&](uint64_t va, uint64_t count, uint64_t size, int prot) -> void* {
    return guest_ptr(va, count, size, prot);
  };
  constexpr int R = PROT_READ, W = PROT_WRITE;
  int64_t err = 0;
  // Threads running guest code fetch through vm_'s map unlocked: they are parked while it changes.
  auto vm_change = [&](auto change) -> int64_t {
    Exclusive ex(*this);
    std::lock_guard lock(vm_mutex_);
    return change();
  };

  switch (n) {
    // --- process ---
    case nr::exit:
      // The process's status is its first thread's, as wait shows the group leader's.
      if (&self() == main_.get() && !group_exit_) exit_code_ = i(0) & 0xff;
      self().exiting = true;
      return 0;
    case nr::exit_group:
      exit_group(i(0) & 0xff);
      return 0;
    case nr::getpid: return getpid();
    case nr::gettid: return self().tid;
    // clone takes the low 32 bits of its flags (kernel/fork.c): the others are clone3's.
    case nr::clone: return clone_process(a[0] & 0xffffffffu & ~uint64_t(CSIGNAL), a[0] & CSIGNAL, a[1], a[2], a[3], a[4]);
    case nr::clone3: return clone3(a[0], a[1]);
    case nr::execve: return execve(AT_FDCWD, a[0], a[1], a[2], 0);
    case nr::execveat: return execve(i(0), a[1], a[2], a[3], i(4));
    case nr::wait4: return wait4(i(0), a[1], i(2), a[3]);
    case nr::waitid: return waitid(i(0), i(1), a[2], i(3), a[4]);
    case nr::getppid: return getppid();
    case nr::getuid: return getuid();
    case nr::geteuid: return geteuid();
    case nr::getgid: return getgid();
    case nr::getegid: return getegid();
    case nr::getpgid: return host(getpgid(i(0)));
    case nr::setpgid: return host(setpgid(i(0), i(1)));
    case nr::getsid: return host(getsid(i(0)));
    case nr::setsid: return host(setsid());
    case nr::getresuid:
    case nr::getresgid: {
      auto* p = static_cast<uint32_t*>(ptr(a[0], 4, W));
      auto* q = static_cast<uint32_t*>(ptr(a[1], 4, W));
      auto* r = static_cast<uint32_t*>(ptr(a[2], 4, W));
      if (!p || !q || !r) return -EFAULT;
      *p = *q = *r = n == nr::getresuid ? getuid() : getgid();
      return 0;
    }
    case nr::getgroups: {
      // Linux writes only the groups there are, after checking that size holds them all.
      const int size = i(0), groups = getgroups(0, nullptr);
      if (size < 0) return -EINVAL;
      if (size == 0 || groups < 0) return host(groups);
      if (size < groups) return -EINVAL;
      void* p = array(a[1], static_cast<uint64_t>(groups), sizeof(gid_t), W);
      return p ? host(getgroups(groups, static_cast<gid_t*>(p))) : -EFAULT;
    }
    case nr::set_tid_address:
      self().clear_child_tid = a[0];
      return self().tid;
    case nr::set_robust_list:
      if (a[1] != kRobustListHeadSize) return -EINVAL;
      self().robust_list = a[0];
      return 0;
    case nr::get_robust_list: return sys_get_robust_list(a);
    // glibc registers restartable sequences when the kernel has them; like a kernel built without
    // CONFIG_RSEQ, brisk says it has none, and glibc carries on.
    case nr::rseq: return -ENOSYS;
    case nr::prctl: return prctl(i(0), a[1]);
    // Like a kernel booted with Landlock disabled: programs that sandbox themselves carry on without.
    case nr::landlock_create_ruleset: return -EOPNOTSUPP;
    case nr::umask: return umask(static_cast<mode_t>(a[0]));
    case nr::uname: {
      auto* u = static_cast<struct utsname*>(ptr(a[0], sizeof(struct utsname), W));
      if (!u) return -EFAULT;
      if (::uname(u) != 0) return -errno;
      std::strcpy(u->machine, "riscv64");
      return 0;
    }
    case nr::sched_getaffinity:
    case nr::sched_setaffinity: return sys_sched_affinity(n, a);
    case nr::sched_yield: return host(::sched_yield());
    case nr::getcpu: {
      if (a[0]) {
        auto* c = static_cast<uint32_t*>(ptr(a[0], 4, W));
        if (!c) return -EFAULT;
        *c = 0;
      }
      if (a[1]) {
        auto* c = static_cast<uint32_t*>(ptr(a[1], 4, W));
        if (!c) return -EFAULT;
        *c = 0;
      }
      return 0;
    }
    case nr::prlimit64: {
      const void* nv = a[2] ? ptr(a[2], sizeof(rlimit), R) : nullptr;
      void* ov = a[3] ? ptr(a[3], sizeof(rlimit), W) : nullptr;
      if ((a[2] && !nv) || (a[3] && !ov)) return -EFAULT;
      return host(::syscall(SYS_prlimit64, i(0), i(1), nv, ov));
    }
    case nr::getrlimit:
    case nr::setrlimit: {
      void* p = ptr(a[1], sizeof(rlimit), n == nr::getrlimit ? W : R);
      if (!p) return -EFAULT;
      return host(::syscall(n == nr::getrlimit ? SYS_getrlimit : SYS_setrlimit, i(0), p));
    }
    case nr::getrusage: {
      void* p = ptr(a[1], sizeof(rusage), W);
      return p ? host(::syscall(SYS_getrusage, i(0), p)) : -EFAULT;
    }
    case nr::sysinfo: {
      void* p = ptr(a[0], 112, W);
      return p ? host(::syscall(SYS_sysinfo, p)) : -EFAULT;
    }
    case nr::times: {
      void* p = a[0] ? ptr(a[0], 32, W) : nullptr;
      if (a[0] && !p) return -EFAULT;
      return host(::syscall(SYS_times, p));
    }

    // --- signals (runtime/linux_signals.cpp) ---
    case nr::rt_sigaction: return sys_rt_sigaction(a);
    case nr::rt_sigprocmask: return sys_rt_sigprocmask(a);
    case nr::rt_sigpending: return sys_rt_sigpending(a);
    case nr::rt_sigsuspend: return sys_rt_sigsuspend(a);
    case nr::rt_sigtimedwait: return sys_rt_sigtimedwait(a);
    case nr::sigaltstack: return sys_sigaltstack(a);
    case nr::kill:
    case nr::tkill:
    case nr::tgkill: return sys_kill(n, a);
    case nr::setitimer: return sys_setitimer(a);
    case nr::getitimer: return sys_getitimer(a);
    case nr::rt_sigqueueinfo:
    case nr::rt_tgsigqueueinfo: return sys_rt_sigqueueinfo(n, a);
    case nr::timer_create:
    case nr::timer_settime:
    case nr::timer_gettime:
    case nr::timer_getoverrun:
    case nr::timer_delete: return sys_timer(n, a);

    // --- files ---
    case nr::openat: {
      std::string p = host_path_arg(a[1], err);
      if (err) return err;
      const int dirfd = fd(0);
      if (((i(2) & O_ACCMODE) != O_RDONLY || (i(2) & O_TRUNC)) && is_program(dirfd, p)) return -ETXTBSY;
      const int64_t r = host(::syscall(SYS_openat, dirfd, p.c_str(), i(2), static_cast<mode_t>(a[3])));
      return r < 0 ? r : proc_open(static_cast<int>(r), dirfd, p, i(2));
    }
    // brisk's own stderr (diag_fd) is invisible to the guest: every fd argument goes through fd(),
    // so the guest can neither use, close nor replace it.
    case nr::close: return host(::close(fd(0)));
    case nr::close_range: {
      // Closes the range around brisk's own descriptors, which the guest cannot see.
      const uint64_t lo = static_cast<unsigned>(a[0]), hi = static_cast<unsigned>(a[1]);
      if (lo > hi) return -EINVAL;
      uint64_t from = lo;
      auto close_to = [&](uint64_t to) {  // [from, to]
        return ::syscall(SYS_close_range, static_cast<unsigned>(from), static_cast<unsigned>(to), i(2)) == 0;
      };
      for (int mine : own_fds()) {
        const uint64_t m = static_cast<unsigned>(mine);
        if (m < from || m > hi) continue;
        if (m > from && !close_to(m - 1)) return -errno;
        from = m + 1;
      }
      return from > hi || close_to(hi) ? 0 : -errno;
    }
    case nr::dup: return host(::dup(fd(0)));
    case nr::dup3: return host(::dup3(fd(0), fd(1), i(2)));
    case nr::fcntl: {
      int cmd = i(1);
      if (cmd == F_GETLK || cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_GETLK || cmd == F_OFD_SETLK ||
          cmd == F_OFD_SETLKW) {
        void* p = ptr(a[2], sizeof(struct flock), R | W);
        return p ? host(::fcntl(fd(0), cmd, p)) : -EFAULT;
      }
      return host(::fcntl(fd(0), cmd, a[2]));
    }
    case nr::read:
    case nr::write:
    case nr::pread64:
    case nr::pwrite64: {
      const bool writing = n == nr::write || n == nr::pwrite64, positioned = n == nr::pread64 || n == nr::pwrite64;
      if (is_mem_file(fd(0)))
        return mem_file_rw(fd(0), a[1], a[2], positioned ? std::optional<uint64_t>(a[3]) : std::nullopt, writing);
      void* p = ptr(a[1], a[2], writing ? R : W);
      if (!p) return -EFAULT;
      if (n == nr::read)
        if (SignalFd* s = signalfd_of(fd(0))) return signalfd_read(*s, fd(0), {{p, a[2]}});
      switch (n) {
        case nr::read: return host(::read(fd(0), p, a[2]));
        case nr::write: return host(::write(fd(0), p, a[2]));
        case nr::pread64: return host(::pread(fd(0), p, a[2], static_cast<off_t>(a[3])));
        default: return host(::pwrite(fd(0), p, a[2], static_cast<off_t>(a[3])));
      }
    }
    case nr::readv:
    case nr::writev:
    case nr::preadv:
    case nr::pwritev: {
      if (a[2] > IOV_MAX) return -EINVAL;
      const uint64_t* g = guest_iov(a[1], a[2], err);
      if (err) return err;
      const bool reading = n == nr::readv || n == nr::preadv, positioned = n == nr::preadv || n == nr::pwritev;
      if (is_mem_file(fd(0))) {
        uint64_t total = 0;
        for (size_t k = 0; k < a[2]; k++) {
          auto pos = positioned ? std::optional<uint64_t>(a[3] + total) : std::nullopt;
          const int64_t r = mem_file_rw(fd(0), g[2 * k], g[2 * k + 1], pos, !reading);
          if (r < 0) return total ? static_cast<int64_t>(total) : r;
          total += static_cast<uint64_t>(r);
          if (static_cast<uint64_t>(r) < g[2 * k + 1]) break;
        }
        return static_cast<int64_t>(total);
      }
      std::vector<iovec> v;
      if (!host_iov(g, a[2], reading ? W : R, v)) return -EFAULT;
      if (n == nr::readv)
        if (SignalFd* s = signalfd_of(fd(0))) return signalfd_read(*s, fd(0), v);
      int cnt = static_cast<int>(v.size());
      switch (n) {
        case nr::readv: return host(::readv(fd(0), v.data(), cnt));
        case nr::writev: return host(::writev(fd(0), v.data(), cnt));
        case nr::preadv: return host(::preadv(fd(0), v.data(), cnt, static_cast<off_t>(a[3])));
        default: return host(::pwritev(fd(0), v.data(), cnt, static_cast<off_t>(a[3])));
      }
    }
    case nr::lseek:
      // A mem file's offset is an address: no end to seek from (fs/proc/base.c: mem_lseek).
      if (is_mem_file(fd(0)) && i(2) != SEEK_SET && i(2) != SEEK_CUR) return -EINVAL;
      return host(::lseek(fd(0), static_cast<off_t>(a[1]), i(2)));
    case nr::ioctl: {
      unsigned long req = a[1];
      switch (req) {
        case TCGETS:
        case TCSETS:
        case TCSETSW:
        case TCSETSF: {
          // struct termios of the kernel ABI: identical on riscv64 and x86-64.
          void* p = ptr(a[2], 36, req == TCGETS ? W : R);
          return p ? host(::ioctl(fd(0), req, p)) : -EFAULT;
        }
        case TIOCGWINSZ:
        case TIOCSWINSZ: {
          void* p = ptr(a[2], sizeof(winsize), req == TIOCGWINSZ ? W : R);
          return p ? host(::ioctl(fd(0), req, p)) : -EFAULT;
        }
        case TIOCGPGRP:
        case TIOCSPGRP:
        case FIONREAD:
        case FIONBIO: {
          void* p = ptr(a[2], 4, R | W);
          return p ? host(::ioctl(fd(0), req, p)) : -EFAULT;
        }
        case FIOCLEX:
        case FIONCLEX: return host(::ioctl(fd(0), req));
        default:
          warn_once(n << 32 | req, fmt::format("ioctl request {:#x} is not implemented; returning -ENOTTY", req));
          return -ENOTTY;
      }
    }
    case nr::fstat: {
      auto* out = static_cast<RvStat*>(ptr(a[1], sizeof(RvStat), W));
      if (!out) return -EFAULT;
      struct stat s;
      if (::fstat(fd(0), &s) != 0) return -errno;
      *out = to_rv(s);
      return 0;
    }
    case nr::newfstatat: {
      std::string p = host_path_arg(a[1], err);
      if (err) return err;
      auto* out = static_cast<RvStat*>(ptr(a[2], sizeof(RvStat), W));
      if (!out) return -EFAULT;
      struct stat s;
      if (::fstatat(fd(0), p.c_str(), &s, i(3)) != 0) return -errno;
      // /proc/self/exe followed to brisk's binary
      if (is_host_exe(s.st_dev, s.st_ino) && ::stat(exe_path_.c_str(), &s) != 0) return -errno;
      *out = to_rv(s);
      return 0;
    }
    case nr::statx: {
      std::string p = host_path_arg(a[1], err);
      if (err) return err;
      auto* out = static_cast<struct statx*>(ptr(a[4], 256, W));  // one layout on every architecture
      if (!out) return -EFAULT;
      const int64_t r = host(::syscall(SYS_statx, fd(0), p.c_str(), i(2), static_cast<unsigned>(a[3]), out));
      if (r == 0 && is_host_exe(makedev(out->stx_dev_major, out->stx_dev_minor), out->stx_ino))
        return host(::syscall(SYS_statx, AT_FDCWD, exe_path_.c_str(), 0, static_cast<unsigned>(a[3]), out));
      return r;
    }
    case nr::statfs: {
      std::string p = host_path_arg(a[0], err);
      if (err) return err;
      void* out = ptr(a[1], 120, W);
      return out ? host(::syscall(SYS_statfs, p.c_str(), out)) : -EFAULT;
    }
    case nr::fstatfs: {
      void* out = ptr(a[1], 120, W);
      return out ? host(::syscall(SYS_fstatfs, fd(0), out)) : -EFAULT;
    }
    case nr::readlinkat: {
      const int size = i(3);
      if (size <= 0) return -EINVAL;
      std::string p = host_path_arg(a[1], err);
      if (err) return err;
      char* buf = static_cast<char*>(ptr(a[2], static_cast<uint64_t>(size), W));
      return buf ? proc_readlink(fd(0), p, buf, static_cast<size_t>(size)) : -EFAULT;
    }
    case nr::getcwd: {
      // Linux builds the path in one page and copies only that much.
      const uint64_t size = std::min<uint64_t>(a[1], GuestVm::kPage);
      char* buf = static_cast<char*>(ptr(a[0], size, W));
      if (!buf) return -EFAULT;
      return host(::syscall(SYS_getcwd, buf, size));
    }
    case nr::chdir: {
      std::string p = host_path_arg(a[0], err);
      return err ? err : host(::chdir(p.c_str()));
    }
    case nr::fchdir: return host(::fchdir(fd(0)));
    case nr::faccessat:
    case nr::faccessat2: {
      std::string p = host_path_arg(a[1], err);
      if (err) return err;
      return host(::syscall(SYS_faccessat2, fd(0), p.c_str(), i(2), n == nr::faccessat2 ? i(3) : 0));
    }
    case nr::getdents64: {
      // struct linux_dirent64 has one layout on every architecture.
      void* p = ptr(a[1], a[2], W);
      return p ? host(::syscall(SYS_getdents64, fd(0), p, a[2])) : -EFAULT;
    }
    case nr::mkdirat: {
      std::string p = host_path_arg(a[1], err);
      return err ? err : host(::mkdirat(fd(0), p.c_str(), static_cast<mode_t>(a[2])));
    }
    case nr::unlinkat: {
      std::string p = host_path_arg(a[1], err);
      return err ? err : host(::unlinkat(fd(0), p.c_str(), i(2)));
    }
    case nr::renameat2: {
      std::string from = host_path_arg(a[1], err);
      if (err) return err;
      std::string to = host_path_arg(a[3], err);
      if (err) return err;
      return host(::syscall(SYS_renameat2, fd(0), from.c_str(), fd(2), to.c_str(), static_cast<unsigned>(a[4])));
    }
    case nr::symlinkat: {
      std::string target;
      if (!guest_string(a[0], target)) return -EFAULT;
      std::string p = host_path_arg(a[2], err);
      return err ? err : host(::symlinkat(target.c_str(), fd(1), p.c_str()));
    }
    case nr::linkat: {
      std::string from = host_path_arg(a[1], err);
      if (err) return err;
      std::string to = host_path_arg(a[3], err);
      return err ? err : host(::linkat(fd(0), from.c_str(), fd(2), to.c_str(), i(4)));
    }
    case nr::fchmod: return host(::fchmod(fd(0), static_cast<mode_t>(a[1])));
    case nr::fchmodat: {
      std::string p = host_path_arg(a[1], err);
      return err ? err : host(::syscall(SYS_fchmodat, fd(0), p.c_str(), static_cast<mode_t>(a[2])));
    }
    case nr::fchown: return host(::fchown(fd(0), static_cast<uid_t>(a[1]), static_cast<gid_t>(a[2])));
    case nr::fchownat: {
      std::string p = host_path_arg(a[1], err);
      return err ? err : host(::fchownat(fd(0), p.c_str(), static_cast<uid_t>(a[2]), static_cast<gid_t>(a[3]), i(4)));
    }
    case nr::utimensat: {
      std::string p;
      if (a[1]) {
        p = host_path_arg(a[1], err);
        if (err) return err;
      }
      const void* t = a[2] ? ptr(a[2], 32, R) : nullptr;
      if (a[2] && !t) return -EFAULT;
      return host(::syscall(SYS_utimensat, fd(0), a[1] ? p.c_str() : nullptr, t, i(3)));
    }
    case nr::ftruncate: return host(::ftruncate(fd(0), static_cast<off_t>(a[1])));
    case nr::truncate: {
      std::string p = host_path_arg(a[0], err);
      if (err) return err;
      return is_program(AT_FDCWD, p) ? -ETXTBSY : host(::truncate(p.c_str(), static_cast<off_t>(a[1])));
    }
    case nr::fallocate: return host(::fallocate(fd(0), i(1), static_cast<off_t>(a[2]), static_cast<off_t>(a[3])));
    case nr::fsync: return host(::fsync(fd(0)));
    case nr::fdatasync: return host(::fdatasync(fd(0)));
    case nr::sync: ::sync(); return 0;
    case nr::fadvise64: return 0;
    case nr::pipe2: {
      auto* fds = static_cast<int*>(ptr(a[0], 8, W));
      return fds ? host(::pipe2(fds, i(1))) : -EFAULT;
    }
    case nr::sendfile: {
      void* off = a[2] ? ptr(a[2], 8, R | W) : nullptr;
      if (a[2] && !off) return -EFAULT;
      return host(::syscall(SYS_sendfile, fd(0), fd(1), off, a[3]));
    }
    case nr::copy_file_range: {
      void* ino = a[1] ? ptr(a[1], 8, R | W) : nullptr;
      void* outo = a[3] ? ptr(a[3], 8, R | W) : nullptr;
      if ((a[1] && !ino) || (a[3] && !outo)) return -EFAULT;
      return host(::syscall(SYS_copy_file_range, fd(0), ino, fd(2), outo, a[4], static_cast<unsigned>(a[5])));
    }
    case nr::ppoll: {
      // Linux's order: the timeout, the signal mask's size, nfds (an unsigned int) against
      // RLIMIT_NOFILE, then the array.
      const void* ts = a[2] ? ptr(a[2], 16, R) : nullptr;
      if (a[2] && !ts) return -EFAULT;
      if (a[3] && a[4] != 8) return -EINVAL;
      const auto* mask = static_cast<const uint64_t*>(a[3] ? ptr(a[3], 8, R) : nullptr);
      if (a[3] && !mask) return -EFAULT;
      const unsigned nfds = static_cast<unsigned>(a[1]);
      if (nfds > open_files_limit()) return -EINVAL;
      void* fds = nfds ? array(a[0], nfds, sizeof(pollfd), R | W) : nullptr;
      if (nfds && !fds) return -EFAULT;
      return wait_signals(mask ? std::optional<uint64_t>(*mask) : std::nullopt, [&](const sigset_t* host_mask) {
        return host(::syscall(SYS_ppoll, fds, nfds, ts, host_mask, kHostSigsetSize));
      });
    }
    case nr::pselect6: {
      // Linux's order: the {sigset pointer, size} pair, the timeout, the signal mask, then n (an int,
      // clamped to the size of the descriptor table) and the sets.
      const auto* pack = static_cast<const uint64_t*>(a[5] ? ptr(a[5], 16, R) : nullptr);
      if (a[5] && !pack) return -EFAULT;
      const uint64_t mask_va = pack ? pack[0] : 0, mask_size = pack ? pack[1] : 0;
      void* ts = a[4] ? ptr(a[4], 16, R | W) : nullptr;
      if (a[4] && !ts) return -EFAULT;
      if (mask_va && mask_size != 8) return -EINVAL;
      const auto* mask = static_cast<const uint64_t*>(mask_va ? ptr(mask_va, 8, R) : nullptr);
      if (mask_va && !mask) return -EFAULT;
      if (i(0) < 0) return -EINVAL;
      const uint64_t nfds = i(0) > FD_SETSIZE ? std::min<uint64_t>(static_cast<uint64_t>(i(0)), fd_table_size())
                                              : static_cast<uint64_t>(i(0));
      const uint64_t bytes = (nfds + 63) / 64 * 8;
      void* sets[3];
      for (int k = 0; k < 3; k++) {
        sets[k] = a[1 + k] ? ptr(a[1 + k], bytes, R | W) : nullptr;
        if (a[1 + k] && !sets[k]) return -EFAULT;
      }
      return wait_signals(mask ? std::optional<uint64_t>(*mask) : std::nullopt, [&](const sigset_t* host_mask) {
        const struct {
          const sigset_t* ss;
          size_t size;
        } host_pack = {host_mask, kHostSigsetSize};
        return host(::syscall(SYS_pselect6, nfds, sets[0], sets[1], sets[2], ts, &host_pack));
      });
    }
    // --- signalfd, epoll, eventfd, timerfd, inotify and sockets (runtime/linux_fdio.cpp) ---
    case nr::signalfd4: return sys_signalfd4(a);
    case nr::epoll_create1: return host(::syscall(SYS_epoll_create1, i(0)));
    case nr::epoll_ctl: return sys_epoll_ctl(a);
    case nr::epoll_pwait:
    case nr::epoll_pwait2: return sys_epoll_wait(n, a);
    case nr::eventfd2:
    case nr::timerfd_create:
    case nr::timerfd_settime:
    case nr::timerfd_gettime:
    case nr::inotify_init1:
    case nr::inotify_add_watch:
    case nr::inotify_rm_watch: return sys_fd_misc(n, a);
    case nr::socket:
    case nr::socketpair:
    case nr::bind:
    case nr::listen:
    case nr::accept:
    case nr::accept4:
    case nr::connect:
    case nr::getsockname:
    case nr::getpeername:
    case nr::sendto:
    case nr::recvfrom:
    case nr::shutdown: return sys_socket(n, a);
    case nr::setsockopt:
    case nr::getsockopt: return sys_sockopt(n, a);
    case nr::sendmsg:
    case nr::recvmsg:
    case nr::sendmmsg:
    case nr::recvmmsg: return sys_msg(n, a);
    case nr::memfd_create: {
      // A name brisk cannot read goes to the host as NULL: Linux checks the flags before the name,
      // and the host then faults on it as Linux would on the guest's.
      std::string name;
      const bool readable = guest_string(a[0], name);
      return host(::syscall(SYS_memfd_create, readable ? name.c_str() : nullptr, static_cast<unsigned>(a[1])));
    }

    // --- memory ---
    case nr::brk: return vm_change([&] { return static_cast<int64_t>(vm_.brk(a[0])); });
    case nr::mmap:
      if (!(i(3) & MAP_ANONYMOUS) && is_mem_file(fd(4))) return -ENODEV;  // mem files have no mmap
      return vm_change([&] { return vm_.map(a[0], a[1], i(2), i(3), fd(4), a[5]); });
    case nr::munmap: return vm_change([&] { return vm_.unmap(a[0], a[1]); });
    case nr::mprotect: return vm_change([&] { return vm_.protect(a[0], a[1], i(2)); });
    case nr::mremap: return vm_change([&] { return vm_.remap(a[0], a[1], a[2], i(3), a[4]); });
    case nr::madvise: return vm_change([&] { return vm_.advise(a[0], a[1], i(2)); });
    case nr::msync: return vm_change([&] { return vm_.sync(a[0], a[1], i(2)); });
    case nr::mlock:
    case nr::munlock:
    case nr::mlockall:
    case nr::munlockall: return 0;

    // --- time ---
    case nr::clock_gettime:
    case nr::clock_getres: {
      void* ts = a[1] ? ptr(a[1], 16, W) : nullptr;
      if (a[1] && !ts) return -EFAULT;
      return host(::syscall(n == nr::clock_gettime ? SYS_clock_gettime : SYS_clock_getres, i(0), ts));
    }
    case nr::gettimeofday: {
      void* tv = a[0] ? ptr(a[0], 16, W) : nullptr;
      void* tz = a[1] ? ptr(a[1], 8, W) : nullptr;
      if ((a[0] && !tv) || (a[1] && !tz)) return -EFAULT;
      return host(::syscall(SYS_gettimeofday, tv, tz));
    }
    case nr::nanosleep: {
      const void* req = ptr(a[0], 16, R);
      void* rem = a[1] ? ptr(a[1], 16, W) : nullptr;
      if (!req || (a[1] && !rem)) return -EFAULT;
      return host(::syscall(SYS_nanosleep, req, rem));
    }
    case nr::clock_nanosleep: {
      const void* req = ptr(a[2], 16, R);
      void* rem = a[3] ? ptr(a[3], 16, W) : nullptr;
      if (!req || (a[3] && !rem)) return -EFAULT;
      int r = ::clock_nanosleep(static_cast<clockid_t>(a[0]), i(1), static_cast<const timespec*>(req),
                                static_cast<timespec*>(rem));
      return -r;
    }
    case nr::getrandom: {
      void* p = ptr(a[0], a[1], W);
      return p ? host(::syscall(SYS_getrandom, p, a[1], static_cast<unsigned>(a[2]))) : -EFAULT;
    }

    // --- threads (runtime/linux_threads.cpp) ---
    case nr::futex: return sys_futex(a);

    // --- RISC-V specific ---
    case nr::riscv_flush_icache: return 0;  // decoded code is checked against memory on every use
    case nr::riscv_hwprobe: {
      // As arch/riscv/kernel/sys_hwprobe.c: flags are reserved; a cpu set must name one of the
      // guest's CPUs, which are all alike; the pairs are answered one at a time, up to the first
      // that cannot be accessed.
      if (a[4] != 0) return -EINVAL;
      if (a[2] || a[3]) {
        const uint64_t bytes = std::min<uint64_t>(a[2], (cpus_ + 7) / 8);
        const auto* cpus = static_cast<const uint8_t*>(ptr(a[3], bytes, R));
        if (!cpus) return -EFAULT;
        bool any = false;
        for (unsigned c = 0; c < cpus_ && c / 8 < bytes; c++) any |= (cpus[c / 8] >> (c % 8)) & 1;
        if (!any) return -EINVAL;
      }
      // A page's pairs at a time: the count may cover all of the guest's memory, so each page is
      // checked once, and pair by pair only where the array stops being accessible.
      int64_t* pair = nullptr;
      for (uint64_t k = 0, left = 0; k < a[1]; k++, left--, pair += 2) {
        if (!left) {
          const uint64_t at = a[0] + 16 * k;
          left = std::min(a[1] - k, (GuestVm::page_down(at) + GuestVm::kPage - at + 15) / 16);
          pair = static_cast<int64_t*>(array(at, left, 16, R | W));
          if (!pair) left = 1, pair = static_cast<int64_t*>(array(at, 1, 16, R | W));
          if (!pair) return -EFAULT;
        }
        uint64_t& v = reinterpret_cast<uint64_t&>(pair[1]);
        switch (pair[0]) {
          case kHwprobeMvendorid:
          case kHwprobeMarchid:
          case kHwprobeMimpid: v = 0; break;
          case kHwprobeBaseBehavior: v = kHwprobeBaseBehaviorIma; break;
          case kHwprobeImaExt0: {
            const IsaConfig& isa = self().hart.csr.isa;
            v = 0;
            for (auto [e, bit] : {std::pair{Ext::C, kHwprobeImaC}, {Ext::Zba, kHwprobeExtZba}, {Ext::Zbb, kHwprobeExtZbb},
                                  {Ext::Zbs, kHwprobeExtZbs}, {Ext::Zicboz, kHwprobeExtZicboz},
                                  {Ext::Zicond, kHwprobeExtZicond}})
              if (isa.has(e)) v |= bit;
            if (isa.has(Ext::F) && isa.has(Ext::D)) v |= kHwprobeImaFd;
            break;
          }
          case kHwprobeCpuperf0: v = kHwprobeMisalignedFast; break;
          case kHwprobeZicbozBlockSize: v = 64; break;
          default:
            pair[0] = -1;  // unknown key
            v = 0;
        }
      }
      return 0;
    }

    default:
      warn_once(n, fmt::format("syscall {} ({}) is not implemented; returning -ENOSYS", syscall_name(n), n));
      return -ENOSYS;
  }
}

void LinuxUser::warn_once(uint64_t key, const std::string& what) {
  std::lock_guard lock(warned_mutex_);
  if (warned_.insert(key).second) diag_print("brisk: warning: {}\n", what);
}

}  // namespace brisk
