// The user-mode system call layer (runtime/linux_syscalls, runtime/linux_user): a few ecalls with
// numbers and arguments from the input, made by a tiny static program, after the input's bytes were
// copied into the program's memory (paths, structs, iovecs).
//
// The calls reach the host kernel, so the fuzzer confines them: it runs in user and mount
// namespaces of its own, chrooted into its working directory (scripts/fuzz makes a fresh one and
// marks it with .brisk-fuzz-sandbox), with files capped at 1 MiB. What is created there is removed
// after each input; the program's stdin, stdout and stderr are /dev/null. Calls that could block,
// change the fuzzer's limits or process group, signal another process, or take the fuzzer's own
// descriptors are not made.
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sanitizer/common_interface_defs.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "csr/causes.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/linux_user.h"
#include "tests/fuzz/fuzz.h"

using namespace brisk;

namespace {

// riscv64 system call numbers (runtime/linux_syscalls.def).
enum : uint16_t {
  kFutex = 98, kNanosleep = 101, kClockNanosleep = 115, kKill = 129, kTkill = 130, kTgkill = 131,
  kSetpgid = 154, kSetsid = 157, kSetrlimit = 164, kClose = 57, kPipe2 = 59, kPselect6 = 72, kPpoll = 73,
  kSync = 81, kDup3 = 24, kCloseRange = 436, kPrlimit64 = 261, kMmap = 222, kMadvise = 233,
  kMlockall = 230, kSetitimer = 103, kRtSigsuspend = 133, kRtSigtimedwait = 137, kClone = 220, kExecve = 221,
  kExecveat = 281, kClone3 = 435, kEventfd2 = 19, kEpollPwait = 22, kInotifyInit1 = 26, kSignalfd4 = 74,
  kTimerfdCreate = 85, kTimerCreate = 107, kRtSigqueueinfo = 138, kRtTgsigqueueinfo = 240, kSocket = 198,
  kSocketpair = 199, kEpollPwait2 = 441,
};
constexpr uint64_t kText = 0x10000;        // the program: one RWX segment
constexpr uint64_t kScratch = 0x11000;     // where the input's bytes go
constexpr uint64_t kScratchSize = 0xf000;  // to the end of the segment
constexpr unsigned kMaxCalls = 16;
const char* const kProgram = "/prog";

std::set<int> g_own_fds;  // the fuzzer's descriptors (and brisk's diag_fd): never the guest's
// What the working directory held at the start, by inode: comparing names would hand them to
// the fuzzer's dictionary, and from there to the guest's renameat.
std::set<ino_t> g_own_files;
int g_null = -1, g_saved[3] = {-1, -1, -1};

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_syscall: %s: %s\n", what, strerror(errno));
  std::exit(1);
}

void write_file(const char* path, const std::string& text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) fail(path);
  close(fd);
}

// A static riscv64 ELF: one PT_LOAD of kText..kText + 64 KiB, read-write-execute, entry at kText.
std::vector<uint8_t> tiny_elf() {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_RISCV;
  eh.e_version = EV_CURRENT;
  eh.e_entry = kText + sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 1;
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_flags = PF_R | PF_W | PF_X;
  ph.p_vaddr = ph.p_paddr = kText;
  ph.p_filesz = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr) + 4;
  ph.p_memsz = kScratch + kScratchSize - kText;
  ph.p_align = 0x1000;
  const uint32_t ecall = 0x00000073;
  std::vector<uint8_t> out(ph.p_filesz);
  std::memcpy(out.data(), &eh, sizeof eh);
  std::memcpy(out.data() + sizeof eh, &ph, sizeof ph);
  std::memcpy(out.data() + sizeof eh + sizeof ph, &ecall, 4);
  return out;
}

// Removes `name` under dirfd and everything in it, whatever its permissions.
void remove_tree(int dirfd, const char* name) {
  if (unlinkat(dirfd, name, 0) == 0) return;
  fchmodat(dirfd, name, 0700, 0);
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    DIR* d = fdopendir(fd);
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) remove_tree(fd, e->d_name);
    closedir(d);
  }
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

std::set<std::string> list_dir(const char* path) {
  std::set<std::string> names;
  DIR* d = opendir(path);
  if (!d) fail(path);
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.insert(e->d_name);
  closedir(d);
  return names;
}

ino_t inode(const std::string& name) {
  struct stat st;
  return fstatat(AT_FDCWD, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? st.st_ino : 0;
}

// What one input may leave behind is undone: files, descriptors, cwd, umask, root's mode.
void restore() {
  for (int k = 0; k < 3; k++) dup2(g_saved[k], k);
  int prev = 2;
  for (int fd : g_own_fds) {
    if (fd > prev + 1) syscall(SYS_close_range, prev + 1, fd - 1, 0);
    prev = std::max(prev, fd);
  }
  syscall(SYS_close_range, prev + 1, ~0u, 0);
  if (chdir("/") != 0) fail("chdir /");
  chmod("/", 0755);
  umask(022);
  for (const std::string& name : list_dir("/"))
    if (!g_own_files.count(inode(name))) remove_tree(AT_FDCWD, name.c_str());
}

bool own_fd(uint64_t fd) { return fd > 2 && g_own_fds.count(static_cast<int>(fd)); }

// Rewrites or drops a call whose host effect would reach beyond the sandbox; false to skip it.
bool confine(uint16_t nr, std::array<uint64_t, 6>& a) {
  switch (nr) {
    case kNanosleep:
    case kClockNanosleep:
    case kPpoll:
    case kPselect6:
    case kPipe2:  // a full pipe blocks its writer, an empty one its reader
    case kSetpgid:
    case kSetsid:
    case kSetrlimit:
    case kSync:
    case kMlockall:
    case kRtSigsuspend:    // waits for a signal nothing sends
    case kRtSigtimedwait:
    case kSetitimer:  // its host timer signal is caught only while LinuxUser::run runs
    case kTimerCreate:
    case kEventfd2:   // descriptors whose reads wait: an eventfd at 0, an unarmed timerfd, ...
    case kTimerfdCreate:
    case kInotifyInit1:
    case kSignalfd4:
    case kSocket:
    case kSocketpair:
    case kEpollPwait2:  // no timeout waits for ever
    case kClone:      // a host fork: the child would go on fuzzing
    case kClone3:
    case kExecve:     // execs the host's /proc/self/exe, the fuzzer
    case kExecveat:
      return false;
    case kFutex: {  // a wait no other thread will end: only the calls that never block
      const uint64_t op = a[1] & FUTEX_CMD_MASK;
      return op != FUTEX_WAIT && op != FUTEX_WAIT_BITSET && op != FUTEX_LOCK_PI && op != FUTEX_LOCK_PI2 &&
             op != FUTEX_WAIT_REQUEUE_PI;
    }
    case kPrlimit64: return a[2] == 0;  // reading a limit is fine
    case kKill:
    case kTkill: a[0] = static_cast<uint64_t>(getpid()); break;
    case kTgkill: a[0] = a[1] = static_cast<uint64_t>(getpid()); break;
    case kRtSigqueueinfo: a[0] = static_cast<uint64_t>(getpid()); break;
    case kRtTgsigqueueinfo: a[0] = a[1] = static_cast<uint64_t>(getpid()); break;
    case kEpollPwait: a[3] = 0; break;  // no waiting
    case kDup3: return !own_fd(a[1]);
    case kCloseRange:
      for (int fd : g_own_fds)
        if (fd > 2 && fd >= static_cast<int64_t>(static_cast<uint32_t>(a[0]))) {
          a[1] = std::min<uint64_t>(static_cast<uint32_t>(a[1]), static_cast<uint64_t>(fd - 1));
          break;
        }
      break;
    case kMmap: a[3] &= ~uint64_t(MAP_POPULATE); break;
    case kMadvise: return a[2] != MADV_POPULATE_READ && a[2] != MADV_POPULATE_WRITE;
    default: break;
  }
  // Most calls that take a descriptor take it first.
  return !own_fd(a[0]);
}

}  // namespace

// LeakSanitizer needs /proc, which the chroot hides; the other targets check for leaks.
extern "C" int __lsan_is_turned_off() { return 1; }

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (access(".brisk-fuzz-sandbox", F_OK) != 0) {
    std::fprintf(stderr,
                 "fuzz_syscall: run me in a scratch directory marked with .brisk-fuzz-sandbox (scripts/fuzz does);\n"
                 "its contents are the guest's to change\n");
    std::exit(1);
  }
  g_null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int k = 0; k < 3; k++) g_saved[k] = fcntl(k, F_DUPFD_CLOEXEC, 100);
  if (g_null < 0 || g_saved[0] < 0 || g_saved[1] < 0 || g_saved[2] < 0) fail("saving stdio");
  // brisk's own stderr (its warnings about each input's calls) is /dev/null, opened now so that it
  // counts as the fuzzer's.
  dup2(g_null, STDERR_FILENO);
  diag_fd();
  dup2(g_saved[2], STDERR_FILENO);
  // Sanitizer reports go to the real stderr even while the guest's is /dev/null. (In the chroot they
  // are not symbolized: addr2line -f -C -e fuzz_syscall OFFSET names the frames.)
  __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<intptr_t>(g_saved[2])));
  DIR* d = opendir("/proc/self/fd");
  if (!d) fail("/proc/self/fd");
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d)) g_own_fds.insert(atoi(e->d_name));
  closedir(d);

  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) fail("unshare (user namespaces)");
  write_file("/proc/self/setgroups", "deny");
  write_file("/proc/self/uid_map", fmt::format("{} {} 1", uid, uid));
  write_file("/proc/self/gid_map", fmt::format("{} {} 1", gid, gid));
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("mount --make-rprivate /");
  if (chroot(".") != 0 || chdir("/") != 0) fail("chroot");
  const rlimit fsize = {1 << 20, 1 << 20};
  if (setrlimit(RLIMIT_FSIZE, &fsize) != 0) fail("setrlimit");
  for (const std::string& name : list_dir("/")) g_own_files.insert(inode(name));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  struct Call {
    uint16_t nr;
    std::array<uint64_t, 6> a;
  };
  std::vector<Call> calls(std::min<unsigned>(in.take<uint8_t>(), kMaxCalls));
  for (Call& c : calls) {
    c.nr = in.take<uint16_t>();
    for (uint64_t& arg : c.a) {
      const uint8_t how = in.take<uint8_t>();
      const uint64_t v = in.take<uint64_t>();
      switch (how % 5) {
        case 0: arg = v; break;                                 // as is
        case 1: arg = kScratch + v % kScratchSize; break;       // into the input's bytes
        case 2: arg = v % 64; break;                            // a small number (fds, flags)
        case 3: arg = static_cast<uint64_t>(-100); break;       // AT_FDCWD
        case 4: arg = GuestVm::kStackTop - 1 - v % 4096; break; // the top of the stack
      }
    }
  }

  const std::vector<uint8_t> elf = tiny_elf();
  int fd = open(kProgram, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (fd < 0 || write(fd, elf.data(), elf.size()) != static_cast<ssize_t>(elf.size())) fail(kProgram);
  close(fd);
  UserOptions opt;
  opt.program = kProgram;
  opt.argv = {kProgram};
  opt.engine.name = "interp";
  {
    LinuxUser user(opt);
    Hart h = user.hart();
    std::memcpy(h.mem_base + kScratch, in.rest(), std::min<size_t>(in.left(), kScratchSize));
    for (int k = 0; k < 3; k++) dup2(g_null, k);
    // A write past the file size limit fails with EFBIG instead (libFuzzer's handler would exit).
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    for (Call& c : calls) {
      if (!confine(c.nr, c.a)) continue;
      for (int k = 0; k < 6; k++) h.x[10 + k] = c.a[k];
      h.x[17] = c.nr;
      h.trap = {cause::kEcallFromU, 0};
      if (!user.on_trap(h)) break;  // exit, or a fatal signal to itself
    }
  }
  restore();
  return 0;
}
