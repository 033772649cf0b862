// brisk's own /proc/<pid> entries as the guest must see them. The guest is brisk's host process, so
// the host's /proc/self would show (and /proc/self/mem would let it overwrite) brisk itself: the
// entries that describe the process are emulated from the guest's state, those that would expose
// brisk's memory are refused, and brisk's own file descriptors do not exist.
//
// Every open is checked after the host kernel has resolved it (symlinks, "..", a directory fd,
// /proc/<pid>, /proc/thread-self, task/<tid>), by the canonical name of the file it opened, so no
// spelling of a path gets past and no race between a check and the open exists.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "runtime/diag.h"
#include "runtime/linux_user.h"

namespace brisk {

namespace {

// Consumes a decimal number and the '/' (or end) after it from the front of s.
bool take_number(std::string_view& s, long& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end == s.data() || (end != s.data() + s.size() && *end != '/')) return false;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  if (!s.empty()) s.remove_prefix(1);
  return true;
}

// Whether the host task id names a thread of brisk's process.
bool is_own_task(long id) {
  if (id == getpid()) return true;
  return faccessat(AT_FDCWD, fmt::format("/proc/self/task/{}", id).c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int64_t memfd_with(const std::string& content, int flags) {
  int fd = static_cast<int>(::syscall(SYS_memfd_create, "brisk-proc", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0u));
  if (fd < 0) return -errno;
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) {
      close(fd);
      return -EIO;
    }
    done += static_cast<size_t>(n);
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

// The first n bits of a CPU set as Linux's %*pb prints them: hex, 32 bits a group, the highest first.
template <size_t N>
std::string cpu_mask(const std::bitset<N>& cpus, unsigned n) {
  std::string out;
  const unsigned groups = (n + 31) / 32;
  for (unsigned k = groups; k-- > 0;) {
    uint32_t word = 0;
    for (unsigned b = 0; b < 32 && k * 32 + b < n; b++) word |= uint32_t(cpus.test(k * 32 + b)) << b;
    const unsigned bits = k == groups - 1 && n % 32 ? n % 32 : 32;
    out += fmt::format("{:0{}x}", word, (bits + 3) / 4);
    if (k) out += ',';
  }
  return out;
}

}  // namespace

LinuxUser::ProcEntry LinuxUser::proc_entry(const std::string& canonical) const {
  std::string_view s = canonical;
  // The system's CPUs are the guest's: glibc's sysconf(_SC_NPROCESSORS_ONLN) reads online, and
  // _SC_NPROCESSORS_CONF possible (sysdeps/unix/sysv/linux/getsysstats.c).
  if (s == "/sys/devices/system/cpu/online" || s == "/sys/devices/system/cpu/possible" ||
      s == "/sys/devices/system/cpu/present")
    return ProcEntry::CpuList;
  if (s == "/sys/devices/system/cpu/offline") return ProcEntry::NoCpus;
  if (s == "/proc/cpuinfo") return ProcEntry::CpuInfo;
  if (!s.starts_with("/proc/")) return ProcEntry::None;
  s.remove_prefix(6);
  long id;
  if (!take_number(s, id) || !is_own_task(id)) return ProcEntry::None;
  if (s.starts_with("task/")) {
    s.remove_prefix(5);
    if (!take_number(s, id) || !is_own_task(id)) return ProcEntry::None;
  }
  static const std::pair<std::string_view, ProcEntry> kNames[] = {
      {"mem", ProcEntry::Mem},         {"maps", ProcEntry::Maps},   {"cmdline", ProcEntry::Cmdline},
      {"environ", ProcEntry::Environ}, {"auxv", ProcEntry::Auxv},   {"stat", ProcEntry::Stat},
      {"status", ProcEntry::Status},   {"statm", ProcEntry::Statm}, {"comm", ProcEntry::Comm},
      {"exe", ProcEntry::Exe},
      // brisk's memory, registers, stack or layout: nothing the guest can be shown instead.
      {"smaps", ProcEntry::Denied},    {"smaps_rollup", ProcEntry::Denied}, {"numa_maps", ProcEntry::Denied},
      {"pagemap", ProcEntry::Denied},  {"clear_refs", ProcEntry::Denied},   {"syscall", ProcEntry::Denied},
      {"stack", ProcEntry::Denied},    {"map_files", ProcEntry::Denied},
  };
  for (auto [name, entry] : kNames)
    if (s == name) return entry;
  if (s.starts_with("map_files/")) return ProcEntry::Denied;
  for (std::string_view dir : {"fd/", "fdinfo/"}) {
    if (!s.starts_with(dir)) continue;
    std::string_view rest = s.substr(dir.size());
    long fd;
    if (take_number(rest, fd) && rest.empty() && guest_fd(static_cast<uint64_t>(fd)) < 0) return ProcEntry::Hidden;
  }
  return ProcEntry::None;
}

bool LinuxUser::reaches_hidden_fd(int dirfd, const std::string& path) const {
  // A walk of path one component at a time, as the kernel's, splicing in the text of ordinary
  // symlinks and checking each /proc link the kernel follows by itself (fd/N, exe, cwd, ...).
  std::string rest = path;
  int cur = -1;
  auto step_to = [&](int next) {
    if (cur >= 0) close(cur);
    cur = next;
  };
  auto at = [&] { return cur >= 0 ? cur : dirfd; };
  bool hidden = false;
  for (int links = 0; !rest.empty() && !hidden;) {
    if (rest[0] == '/') {
      step_to(::open("/", O_PATH | O_CLOEXEC));
      rest.erase(0, rest.find_first_not_of('/'));
      if (cur < 0) break;
      continue;
    }
    const size_t slash = rest.find('/');
    const std::string name = rest.substr(0, slash);
    rest.erase(0, slash == std::string::npos ? rest.size() : slash + 1);
    const int f = openat(at(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (f < 0 || fstat(f, &st) != 0) {  // the open failed, or the guest changed the path under it
      if (f >= 0) close(f);
      break;
    }
    if (!S_ISLNK(st.st_mode)) {
      step_to(f);
      continue;
    }
    if (++links > 40) {  // the open itself gave ELOOP
      close(f);
      break;
    }
    const std::string where = fd_path(f);
    if (where.starts_with("/proc/") && where != "/proc/self" && where != "/proc/thread-self") {
      hidden = proc_entry(where) == ProcEntry::Hidden;
      close(f);
      step_to(openat(at(), name.c_str(), O_PATH | O_CLOEXEC));  // a magic link: the kernel's to follow
      if (cur < 0) break;
      continue;
    }
    char target[PATH_MAX];
    const ssize_t n = readlinkat(f, "", target, sizeof target);
    close(f);
    if (n <= 0) break;
    rest = std::string(target, static_cast<size_t>(n)) + (rest.empty() ? "" : "/" + rest);
  }
  if (cur >= 0) close(cur);
  return hidden;
}

int64_t LinuxUser::proc_open(int fd, int dirfd, const std::string& path, int flags) {
  // brisk's perf map or dump, or its messages descriptor, reached through /proc/self/fd. Only the
  // path can tell the messages descriptor from the guest's stderr, which may be the same file.
  if (same_as_own_file(fd) || (same_as_messages(fd) && reaches_hidden_fd(dirfd, path))) {
    close(fd);
    return -ENOENT;
  }
  const std::string canonical = fd_path(fd);
  // Following /proc/self/exe opened brisk's binary.
  ProcEntry e = !host_exe_.empty() && canonical == host_exe_ ? ProcEntry::Exe : proc_entry(canonical);
  if (e == ProcEntry::None) return fd;
  close(fd);
  switch (e) {
    case ProcEntry::Denied: return -EACCES;
    case ProcEntry::Hidden: return -ENOENT;
    case ProcEntry::Exe: {
      int r = ::open(exe_path_.c_str(), flags & ~(O_CREAT | O_EXCL | O_TRUNC));
      return r < 0 ? -errno : r;
    }
    case ProcEntry::Mem: {
      int64_t r = memfd_with({}, flags);
      struct stat st;
      if (r >= 0 && fstat(static_cast<int>(r), &st) == 0) mem_files_.insert({st.st_dev, st.st_ino});
      return r;
    }
    case ProcEntry::Maps: return memfd_with(proc_maps(), flags);
    case ProcEntry::Cmdline: return memfd_with(guest_bytes(arg_start_, arg_end_), flags);
    case ProcEntry::Environ: return memfd_with(guest_bytes(env_start_, env_end_), flags);
    case ProcEntry::Auxv:
      return memfd_with(std::string(reinterpret_cast<const char*>(auxv_.data()), auxv_.size() * 8), flags);
    case ProcEntry::Stat: return memfd_with(proc_stat(), flags);
    case ProcEntry::Status: return memfd_with(proc_status(), flags);
    case ProcEntry::Statm: return memfd_with(proc_statm(), flags);
    case ProcEntry::Comm: return memfd_with(comm() + "\n", flags);
    case ProcEntry::CpuList: return memfd_with(cpu_list(guest_cpus()) + "\n", flags);
    case ProcEntry::NoCpus: return memfd_with("\n", flags);
    case ProcEntry::CpuInfo: return memfd_with(proc_cpuinfo(), flags);
    default: return -EACCES;
  }
}

int64_t LinuxUser::proc_readlink(int dirfd, const std::string& path, char* buf, size_t size) {
  int f = openat(dirfd, path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (f < 0) return -errno;
  int64_t r;
  struct stat st;
  switch (proc_entry(fd_path(f))) {
    case ProcEntry::Exe: {
      const std::string name = guest_name(exe_path_);
      r = static_cast<int64_t>(std::min(size, name.size()));
      std::memcpy(buf, name.data(), static_cast<size_t>(r));
      break;
    }
    case ProcEntry::Denied: r = -EACCES; break;
    case ProcEntry::Hidden: r = -ENOENT; break;
    default:
      // With an empty path readlinkat reads the link f is; a file that is not one is EINVAL.
      if (fstat(f, &st) == 0 && !S_ISLNK(st.st_mode)) r = -EINVAL;
      else r = readlinkat(f, "", buf, size);
      if (r < 0) r = -errno;
  }
  close(f);
  return r;
}

std::string LinuxUser::guest_name(const std::string& host) const {
  if (opt_.sysroot.empty() || !host.starts_with(opt_.sysroot + "/")) return host;
  return host.substr(opt_.sysroot.size());
}

std::bitset<LinuxUser::kMaxCpus> LinuxUser::guest_cpus() const {
  std::bitset<kMaxCpus> all;
  for (unsigned c = 0; c < cpus_; c++) all.set(c);
  return all;
}

std::string LinuxUser::cpu_list(const std::bitset<kMaxCpus>& cpus) {
  std::string out;
  for (unsigned c = 0; c < kMaxCpus; c++) {
    if (!cpus.test(c)) continue;
    unsigned last = c;
    while (last + 1 < kMaxCpus && cpus.test(last + 1)) last++;
    if (!out.empty()) out += ',';
    out += last == c ? std::to_string(c) : fmt::format("{}-{}", c, last);
    c = last;
  }
  return out;
}

std::string LinuxUser::proc_cpuinfo() const {
  // brisk's harts have no vendor, architecture or implementation ids (mvendorid, marchid and mimpid
  // read 0), and user mode's address space is Sv39's.
  const std::string isa = main_->hart.csr.isa.isa_string();
  std::string out;
  for (unsigned c = 0; c < cpus_; c++)
    out += fmt::format("processor\t: {0}\nhart\t\t: {0}\nisa\t\t: {1}\nmmu\t\t: sv39\nmvendorid\t: 0x0\n"
                       "marchid\t\t: 0x0\nmimpid\t\t: 0x0\nhart isa\t: {1}\n\n",
                       c, isa);
  return out;
}

std::string LinuxUser::comm() const {
  if (comm_name_) return *comm_name_;
  // The kernel's TASK_COMM_LEN keeps 15 characters of the program's file name.
  const size_t slash = opt_.program.rfind('/');
  return opt_.program.substr(slash == std::string::npos ? 0 : slash + 1, 15);
}

std::string LinuxUser::guest_bytes(uint64_t start, uint64_t end) const {
  std::lock_guard lock(vm_mutex_);
  if (end <= start || !vm_.accessible(start, end - start, PROT_READ)) return {};
  return std::string(reinterpret_cast<const char*>(vm_.base() + start), end - start);
}

std::string LinuxUser::proc_maps() const {
  std::lock_guard lock(vm_mutex_);
  const uint64_t brk = vm_.program_break();
  std::string out;
  vm_.for_each([&](uint64_t start, const GuestVm::Mapping& m) {
    std::string line = fmt::format("{:08x}-{:08x} {}{}{}{} {:08x} {:02x}:{:02x} {} ", start, m.end,
                                   (m.prot & PROT_READ) ? 'r' : '-', (m.prot & PROT_WRITE) ? 'w' : '-',
                                   (m.prot & PROT_EXEC) ? 'x' : '-', m.shared ? 's' : 'p', m.offset,
                                   major(m.dev), minor(m.dev), m.ino);
    std::string name = guest_name(m.path);
    if (name.empty() && start <= brk && m.end >= vm_.brk_start()) name = "[heap]";
    if (name.empty() && start <= start_stack_ && m.end >= start_stack_) name = "[stack]";
    if (!name.empty()) {
      // Linux pads the name to column 73.
      if (line.size() < 72) line.append(72 - line.size(), ' ');
      line += ' ' + name;
    }
    out += line + '\n';
  });
  return out;
}

std::string LinuxUser::proc_stat() const {
  // The host's line for the process times, ids and counters; every address, the signal state and
  // the thread count are the guest's (fs/proc/array.c: do_task_stat).
  std::ifstream in("/proc/self/stat");
  std::string host((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = host.rfind(')');
  if (paren == std::string::npos || paren + 2 > host.size()) return {};
  std::vector<std::string> f;  // f[k] is field k + 3 of proc(5)
  std::istringstream rest(host.substr(paren + 2));
  for (std::string w; rest >> w;) f.push_back(w);
  auto set = [&](size_t field, uint64_t v) {
    if (field - 3 < f.size()) f[field - 3] = std::to_string(v);
  };
  const GuestLayout g = guest_layout();
  set(20, thread_count());  // num_threads
  set(23, g.vsize);
  set(26, g.start_code);
  set(27, g.end_code);
  set(28, start_stack_);
  set(29, 0);  // kstkesp, kstkeip: Linux shows them only while the task dumps core
  set(30, 0);
  set(31, self().sig.pending);
  set(32, self().sig.mask);
  set(33, g.ignored);
  set(34, g.caught);
  set(35, 0);  // wchan
  set(45, g.start_data);
  set(46, g.end_data);
  set(47, vm_.brk_start());
  set(48, arg_start_);
  set(49, arg_end_);
  set(50, env_start_);
  set(51, env_end_);
  set(52, 0);  // exit_code
  std::string out = fmt::format("{} ({})", getpid(), comm());
  for (const auto& w : f) out += ' ' + w;
  return out + '\n';
}

LinuxUser::GuestLayout LinuxUser::guest_layout() const {
  GuestLayout g;
  std::lock_guard lock(vm_mutex_);
  vm_.for_each([&](uint64_t start, const GuestVm::Mapping& m) {
    g.vsize += m.end - start;
    if (m.path != exe_path_) return;
    if ((m.prot & PROT_EXEC) && !g.start_code) g.start_code = start, g.end_code = m.end;
    if ((m.prot & PROT_WRITE) && !g.start_data) g.start_data = start, g.end_data = m.end;
  });
  for (int sig = 1; sig <= kSignals; sig++) {
    const uint64_t handler = sigactions_[sig].handler, bit = 1ull << (sig - 1);
    if (handler == reinterpret_cast<uint64_t>(SIG_IGN)) g.ignored |= bit;
    else if (handler != reinterpret_cast<uint64_t>(SIG_DFL)) g.caught |= bit;
  }
  return g;
}

std::string LinuxUser::proc_status() const {
  // The host's lines for ids, capabilities and resident memory; the name, the address-space size, the
  // threads, the signal state and the CPUs are the guest's (fs/proc/array.c: proc_pid_status).
  const GuestLayout g = guest_layout();
  std::bitset<kMaxCpus> affinity;
  {
    std::lock_guard lock(group_mutex_);
    affinity = self().affinity;
  }
  std::ifstream in("/proc/self/status");
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const std::string key = line.substr(0, line.find(':'));
    if (key == "Name") line = "Name:\t" + comm();
    else if (key == "Threads") line = fmt::format("Threads:\t{}", thread_count());
    else if (key == "VmPeak" || key == "VmSize") line = fmt::format("{}:\t{:8} kB", key, g.vsize / 1024);
    else if (key == "VmExe") line = fmt::format("VmExe:\t{:8} kB", (g.end_code - g.start_code) / 1024);
    else if (key == "SigPnd") line = fmt::format("SigPnd:\t{:016x}", self().sig.pending);
    // Process-directed signals go to a thread at once (signal_process): no process-wide pending set.
    else if (key == "ShdPnd") line = "ShdPnd:\t0000000000000000";
    else if (key == "SigBlk") line = fmt::format("SigBlk:\t{:016x}", self().sig.mask);
    else if (key == "SigIgn") line = fmt::format("SigIgn:\t{:016x}", g.ignored);
    else if (key == "SigCgt") line = fmt::format("SigCgt:\t{:016x}", g.caught);
    else if (key == "Cpus_allowed") line = "Cpus_allowed:\t" + cpu_mask(affinity, cpus_);
    else if (key == "Cpus_allowed_list") line = "Cpus_allowed_list:\t" + cpu_list(affinity);
    out += line + '\n';
  }
  return out;
}

std::string LinuxUser::proc_statm() const {
  // size and text are the guest's, in pages; resident, shared and data the host's (fs/proc/array.c).
  const GuestLayout g = guest_layout();
  std::ifstream in("/proc/self/statm");
  uint64_t size, resident = 0, shared = 0, text, lib, data = 0;
  in >> size >> resident >> shared >> text >> lib >> data;
  return fmt::format("{} {} {} {} 0 {} 0\n", g.vsize / GuestVm::kPage, resident, shared,
                     (g.end_code - g.start_code) / GuestVm::kPage, data);
}

bool LinuxUser::is_mem_file(int fd) const {
  struct stat st;
  return !mem_files_.empty() && fstat(fd, &st) == 0 && mem_files_.count({st.st_dev, st.st_ino});
}

int64_t LinuxUser::mem_file_io(uint64_t pos, uint64_t buf, uint64_t len, bool write) {
  uint64_t done = 0;
  int64_t err = 0;
  // Page by page, as Linux does (fs/proc/base.c: mem_rw): a short count at the first page that fails.
  // The mem side ignores the guest's protections, as Linux's FOLL_FORCE does; the buffer does not.
  // A bounce page between the two, as Linux's, so each side fails with its own error in Linux's order.
  uint8_t page[GuestVm::kPage];
  // A write may lift a page's protection for a moment and replace translated code.
  Exclusive ex(*this);
  std::lock_guard lock(vm_mutex_);
  while (done < len) {
    const uint64_t at = pos + done;
    const uint64_t n = std::min(len - done, GuestVm::kPage - at % GuestVm::kPage);
    if (!write && (at < pos || !vm_.force_copy(at, page, n, false))) {
      err = -EIO;
      break;
    }
    void* user = guest_ptr(buf + done, n, 1, write ? PROT_READ : PROT_WRITE);
    if (!user) {
      err = -EFAULT;
      break;
    }
    if (!write) {
      std::memcpy(user, page, n);
    } else {
      std::memcpy(page, user, n);
      if (at < pos || !vm_.force_copy(at, page, n, true)) {
        err = -EIO;
        break;
      }
    }
    done += n;
  }
  return done ? static_cast<int64_t>(done) : err;
}

int64_t LinuxUser::mem_file_rw(int fd, uint64_t buf, uint64_t len, std::optional<uint64_t> pos, bool write) {
  if (pos) return mem_file_io(*pos, buf, len, write);
  const off_t at = lseek(fd, 0, SEEK_CUR);
  if (at < 0) return -errno;
  int64_t r = mem_file_io(static_cast<uint64_t>(at), buf, len, write);
  if (r > 0) lseek(fd, at + r, SEEK_SET);
  return r;
}

bool LinuxUser::is_program(int dirfd, const std::string& path) const {
  struct stat st;
  return exe_ino_ && fstatat(dirfd, path.c_str(), &st, 0) == 0 && st.st_dev == exe_dev_ && st.st_ino == exe_ino_;
}

}  // namespace brisk
