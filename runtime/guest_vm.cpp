#include "runtime/guest_vm.h"

#include <setjmp.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <vector>
#include <cstdio>

#include <cerrno>
#include <stdexcept>

#include "runtime/error.h"
#include "runtime/host_fault.h"

namespace brisk {

namespace {

// Guest code is never run by the host: executable guest pages only need to be readable.
int host_prot(int prot) {
  int p = prot & (PROT_READ | PROT_WRITE);
  if (prot & PROT_EXEC) p |= PROT_READ;
  return p;
}

constexpr int kProtSem = 0x8;  // PROT_SEM: accepted and ignored, as on every Linux architecture but alpha

constexpr int kReserveFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

}  // namespace

std::string fd_path(int fd) {
  char link[32], buf[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

GuestVm::GuestVm() {
  // Translated code addresses guest memory as [va + base] with base in a 32-bit displacement, so the
  // space must start below 2 GiB; it starts well above 0, so that a host null pointer (plus any
  // field offset) is never a guest address. The whole space is reserved, page 0 included.
  for (uintptr_t base : {uintptr_t(1) << 30, uintptr_t(1) << 29, uintptr_t(3) << 29}) {
    uint8_t* start = reinterpret_cast<uint8_t*>(base);
    void* p = mmap(start, kLimit + kGuard, PROT_NONE, kReserveFlags | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == start) {
      base_ = start;
      return;
    }
    if (p != MAP_FAILED) munmap(p, kLimit + kGuard);
  }
  throw std::runtime_error("cannot reserve the guest address space below 2 GiB of the host's");
}

GuestVm::~GuestVm() { munmap(base_, kLimit + kGuard); }

bool GuestVm::range_free(uint64_t start, uint64_t end) const {
  if (start >= end || end > kLimit) return false;
  auto it = vmas_.lower_bound(start);
  if (it != vmas_.end() && it->first < end) return false;
  if (it != vmas_.begin() && std::prev(it)->second.end > start) return false;
  return true;
}

bool GuestVm::mapped(uint64_t start, uint64_t end) const {
  if (start >= end || end > kLimit) return false;
  for (uint64_t at = start; at < end;) {
    auto it = vmas_.upper_bound(at);
    if (it == vmas_.begin() || std::prev(it)->second.end <= at) return false;
    at = std::prev(it)->second.end;
  }
  return true;
}

uint64_t GuestVm::find_free(uint64_t len, uint64_t top) const {
  if (len > kLimit) return 0;
  uint64_t hole_end = top;
  for (auto it = vmas_.rbegin(); it != vmas_.rend(); ++it) {
    if (it->first >= hole_end) continue;
    if (it->second.end < hole_end && hole_end - it->second.end >= len) return hole_end - len;
    hole_end = it->first;
  }
  return hole_end >= len + kLowest ? hole_end - len : 0;
}

void GuestVm::split(uint64_t at) {
  auto it = vmas_.upper_bound(at);
  if (it == vmas_.begin()) return;
  --it;
  if (it->first < at && it->second.end > at) {
    Mapping upper = it->second;
    if (!upper.path.empty()) upper.offset += at - it->first;
    it->second.end = at;
    vmas_.emplace(at, std::move(upper));
  }
}

void GuestVm::forget(uint64_t start, uint64_t end) {
  split(start);
  split(end);
  vmas_.erase(vmas_.lower_bound(start), vmas_.lower_bound(end));
}

void GuestVm::record(uint64_t start, const Mapping& m) {
  forget(start, m.end);
  vmas_.emplace(start, m);
  merge(start, m.end);
}

void GuestVm::merge(uint64_t start, uint64_t end) {
  // As Linux does, a mapping joins the one before it when it continues it: same protection, same
  // file (or none) at the next offset.
  auto it = vmas_.lower_bound(start);
  if (it != vmas_.begin()) --it;
  while (it != vmas_.end() && it->first <= end) {
    auto next = std::next(it);
    if (next == vmas_.end()) break;
    const Mapping& a = it->second;
    const Mapping& b = next->second;
    if (a.end == next->first && a.prot == b.prot && a.shared == b.shared && a.dev == b.dev && a.ino == b.ino &&
        a.path == b.path && (a.path.empty() || a.offset + (a.end - it->first) == b.offset)) {
      it->second.end = b.end;
      vmas_.erase(next);
    } else {
      it = next;
    }
  }
}

void GuestVm::release(uint64_t start, uint64_t end) {
  code_change(start, end);
  mmap(base_ + start, end - start, PROT_NONE, kReserveFlags | MAP_FIXED, -1, 0);
  forget(start, end);
}

int64_t GuestVm::map(uint64_t addr, uint64_t len, int prot, int flags, int fd, uint64_t offset) {
  if (len == 0 || (offset & (kPage - 1))) return -EINVAL;
  len = page_up(len);
  if (len == 0 || len > kLimit) return -ENOMEM;  // a length that rounds past 2^64 wraps to 0
  const bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
  if (fixed) {
    if (addr & (kPage - 1)) return -EINVAL;
    if (addr > kLimit - len) return -ENOMEM;
    if (addr < kLowest) return -EPERM;  // vm.mmap_min_addr, without CAP_SYS_RAWIO
    if ((flags & MAP_FIXED_NOREPLACE) && !range_free(addr, addr + len)) return -EEXIST;
  } else {
    // A hint is only taken where the range is free and allowed.
    addr = page_down(addr);
    if (!(addr >= kLowest && addr <= kLimit - len && range_free(addr, addr + len))) addr = find_free(len);
    if (!addr) return -ENOMEM;
  }
  const bool anonymous = flags & MAP_ANONYMOUS;
  int host_flags = (flags & (MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE | MAP_ANONYMOUS | MAP_NORESERVE |
                             MAP_POPULATE)) |
                   MAP_FIXED;
  code_change(addr, addr + len);
  void* p = mmap(base_ + addr, len, host_prot(prot), host_flags, anonymous ? -1 : fd, offset);
  if (p == MAP_FAILED) {
    int err = errno;
    if (fixed) release(addr, addr + len);
    return -err;
  }
  // Private memory in host huge pages where whole ones fit, as guest RAM in system mode: the host
  // faults in 2 MiB at a time and misses its TLB less (docs/architecture.md, "Processes in user mode").
  // Stacks, which a thread touches at one end, stay small.
  if (anonymous && (flags & MAP_TYPE) == MAP_PRIVATE && !(flags & (MAP_STACK | MAP_GROWSDOWN)))
    madvise(p, len, MADV_HUGEPAGE);
  Mapping m;
  m.end = addr + len;
  m.prot = prot;
  m.shared = (flags & MAP_TYPE) != MAP_PRIVATE;
  struct stat st;
  if (!anonymous && fstat(fd, &st) == 0) {
    m.offset = offset;
    m.dev = st.st_dev;
    m.ino = st.st_ino;
    m.path = fd_path(fd);
  }
  record(addr, m);
  if ((prot & PROT_EXEC) && !m.path.empty() && on_exec_map) on_exec_map(addr, m);
  return static_cast<int64_t>(addr);
}

bool GuestVm::overlay_file(uint64_t addr, uint64_t len, int fd, uint64_t offset) {
  code_change(addr, addr + len);
  constexpr int kRw = PROT_READ | PROT_WRITE;
  if (mmap(base_ + addr, len, kRw, MAP_PRIVATE | MAP_FIXED, fd, static_cast<off_t>(offset)) != MAP_FAILED) return true;
  // A failed MAP_FIXED may have unmapped the range already.
  if (mmap(base_ + addr, len, kRw, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
    throw Error("cannot map {:#x} bytes of guest memory at {:#x}: {}", len, addr, std::strerror(errno));
  return false;
}

int64_t GuestVm::unmap(uint64_t addr, uint64_t len) {
  if ((addr & (kPage - 1)) || addr > kLimit || len > kLimit - addr) return -EINVAL;
  len = page_up(len);
  if (len == 0) return -EINVAL;
  release(addr, addr + len);
  return 0;
}

int64_t GuestVm::protect(uint64_t addr, uint64_t len, int prot) {
  if (addr & (kPage - 1)) return -EINVAL;
  if (len == 0) return 0;
  const uint64_t end = addr + page_up(len);
  if (end <= addr) return -ENOMEM;  // the length rounded past 2^64
  if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | kProtSem | PROT_GROWSDOWN | PROT_GROWSUP)) return -EINVAL;
  prot &= PROT_READ | PROT_WRITE | PROT_EXEC;
  if (!mapped(addr, end)) return -ENOMEM;
  code_change(addr, end);
  if (mprotect(base_ + addr, end - addr, host_prot(prot)) != 0) return -errno;
  split(addr);
  split(end);
  std::vector<std::pair<uint64_t, Mapping>> now_exec;
  for (auto it = vmas_.lower_bound(addr); it != vmas_.end() && it->first < end; ++it) {
    if ((prot & PROT_EXEC) && !(it->second.prot & PROT_EXEC) && !it->second.path.empty())
      now_exec.emplace_back(it->first, it->second);
    it->second.prot = prot;
  }
  merge(addr, end);
  if (on_exec_map)
    for (auto& [start, m] : now_exec) {
      m.prot = prot;
      on_exec_map(start, m);
    }
  return 0;
}

int64_t GuestVm::remap(uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags, uint64_t new_addr) {
  if (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED)) return -EINVAL;
  if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE)) return -EINVAL;
  if (old_addr & (kPage - 1)) return -EINVAL;
  old_len = page_up(old_len);
  new_len = page_up(new_len);
  // old_len 0 duplicates a shared mapping in Linux; brisk has no use for it, like private mappings.
  if (new_len == 0 || old_len == 0) return -EINVAL;
  // Sizes beyond the guest space, or that wrapped adding up, name no mapping.
  if (old_len > kLimit || new_len > kLimit || old_addr > kLimit - old_len) return -EINVAL;
  if (flags & MREMAP_FIXED) {
    if (new_addr & (kPage - 1)) return -EINVAL;
    if (new_len > kLimit || new_addr > kLimit - new_len) return -EINVAL;
    if (old_addr + old_len > new_addr && new_addr + new_len > old_addr) return -EINVAL;
    if (new_addr < kLowest) return -EPERM;
  }
  auto it = vmas_.upper_bound(old_addr);
  if (it == vmas_.begin()) return -EFAULT;
  --it;
  const uint64_t vma_start = it->first;
  if (it->second.end <= old_addr || old_len > it->second.end - old_addr) return -EFAULT;
  Mapping m = it->second;
  if (!m.path.empty()) m.offset += old_addr - vma_start;
  if (new_len <= old_len && !(flags & MREMAP_FIXED)) {
    if (new_len < old_len) release(old_addr + new_len, old_addr + old_len);
    return static_cast<int64_t>(old_addr);
  }
  code_change(old_addr, old_addr + old_len);
  if (!(flags & MREMAP_FIXED) && range_free(old_addr + old_len, old_addr + new_len)) {
    // The host grows a mapping in place only into a hole: open one in the reservation.
    munmap(base_ + old_addr + old_len, new_len - old_len);
    if (mremap(base_ + old_addr, old_len, new_len, 0) != MAP_FAILED) {
      m.end = old_addr + new_len;
      record(old_addr, m);
      return static_cast<int64_t>(old_addr);
    }
    release(old_addr + old_len, old_addr + new_len);
  }
  if (!(flags & MREMAP_MAYMOVE)) return -ENOMEM;
  uint64_t dest = (flags & MREMAP_FIXED) ? new_addr : find_free(new_len);
  if (!dest) return -ENOMEM;
  code_change(dest, dest + new_len);
  if (mremap(base_ + old_addr, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, base_ + dest) == MAP_FAILED)
    return -errno;
  // The host left a hole where the old pages were: put the reservation back.
  release(old_addr, old_addr + old_len);
  m.end = dest + new_len;
  record(dest, m);
  return static_cast<int64_t>(dest);
}

int64_t GuestVm::advise(uint64_t addr, uint64_t len, int advice) {
  // The advice values Linux knows (include/uapi/asm-generic/mman-common.h: MADV_NORMAL..MADV_COLLAPSE).
  if (advice < 0 || (advice > MADV_DONTNEED && advice < MADV_FREE) || advice > 25) return -EINVAL;
  if (addr & (kPage - 1)) return -EINVAL;
  const uint64_t rounded = page_up(len);
  if (len && !rounded) return -EINVAL;
  const uint64_t end = addr + rounded;
  if (end < addr) return -EINVAL;
  if (end == addr) return 0;
  if (!mapped(addr, end)) return -ENOMEM;
  // MADV_DONTNEED must really drop private pages: the next read sees zeros. The others are hints;
  // the huge-page ones are the guest's say over what map() asked for.
  if (advice == MADV_HUGEPAGE || advice == MADV_NOHUGEPAGE)
    return madvise(base_ + addr, end - addr, advice) == 0 ? 0 : -errno;
  if (advice != MADV_DONTNEED) return 0;
  code_change(addr, end);
  return madvise(base_ + addr, end - addr, MADV_DONTNEED) == 0 ? 0 : -errno;
}

int64_t GuestVm::sync(uint64_t addr, uint64_t len, int flags) {
  if ((flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) || (addr & (kPage - 1))) return -EINVAL;
  if ((flags & MS_ASYNC) && (flags & MS_SYNC)) return -EINVAL;
  const uint64_t end = addr + page_up(len);
  if (end < addr) return -ENOMEM;
  if (end == addr) return 0;  // as in Linux, also when the length rounded past 2^64
  if (!mapped(addr, end)) return -ENOMEM;
  return msync(base_ + addr, end - addr, flags) == 0 ? 0 : -errno;
}

uint64_t GuestVm::brk(uint64_t addr) {
  if (addr < brk_start_ || addr > kLimit) return brk_;
  uint64_t old_end = page_up(brk_), new_end = page_up(addr);
  if (new_end > old_end) {
    if (!range_free(old_end, new_end)) return brk_;
    if (map(old_end, new_end - old_end, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) < 0)
      return brk_;
  } else if (new_end < old_end) {
    release(new_end, old_end);
  }
  brk_ = addr;
  return brk_;
}

void GuestVm::name_anonymous(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return;
  for (auto& [start, m] : vmas_) {
    if (!m.path.empty()) continue;
    m.path = path;
    m.dev = st.st_dev;
    m.ino = st.st_ino;
  }
  merge(0, kLimit);
}

void GuestVm::for_each(const std::function<void(uint64_t, const Mapping&)>& fn) const {
  for (const auto& [start, m] : vmas_) fn(start, m);
}

bool GuestVm::accessible(uint64_t addr, uint64_t len, int prot) const {
  if (len == 0) return addr <= kLimit;  // as Linux's access_ok: an empty range must still be user space
  if (addr > kLimit || len > kLimit - addr) return false;
  const uint64_t end = addr + len;
  for (uint64_t at = addr; at < end;) {
    auto it = vmas_.upper_bound(at);
    if (it == vmas_.begin()) return false;
    --it;
    int have = it->second.prot;
    if (have & PROT_EXEC) have |= PROT_READ;
    if (it->second.end <= at || (have & prot) != prot) return false;
    at = it->second.end;
  }
  return true;
}

bool GuestVm::force_copy(uint64_t addr, void* data, uint64_t len, bool write) {
  if (addr >= kLimit || len > kPage - addr % kPage) return false;
  auto it = vmas_.upper_bound(addr);
  if (it == vmas_.begin() || std::prev(it)->second.end < addr + len) return false;
  const Mapping& m = std::prev(it)->second;
  if (write && m.shared && !(m.prot & PROT_WRITE)) return false;
  if (write) before_host_write(addr, len);  // a watched code page gets its own protection back
  const int have = host_prot(m.prot), need = write ? PROT_READ | PROT_WRITE : PROT_READ;
  uint8_t* page = base_ + page_down(addr);
  const bool lift = (have & need) != need;  // private copy-on-write pages take the write
  if (lift && mprotect(page, kPage, have | need) != 0) return false;
  volatile bool done = false;
  {
    GuestCopyScope copy;  // beyond a file's end: a host SIGBUS, Linux's EIO
    if (!sigsetjmp(copy.fault, 0)) {
      if (write) std::memcpy(base_ + addr, data, len);
      else std::memcpy(data, base_ + addr, len);
      done = true;
    }
  }
  if (lift) mprotect(page, kPage, have);
  return done;
}

int GuestVm::prot_of(uint64_t page) const {
  auto it = vmas_.upper_bound(page);
  if (it == vmas_.begin() || std::prev(it)->second.end <= page) return PROT_NONE;
  return std::prev(it)->second.prot;
}

void GuestVm::watch_code(uint64_t page) {
  if (!code_pages_.insert(page).second) return;
  int prot = prot_of(page);
  if (prot & PROT_WRITE) mprotect(base_ + page, kPage, host_prot(prot) & ~PROT_WRITE);
}

void GuestVm::unwatch_code(uint64_t page) {
  if (!code_pages_.erase(page)) return;
  mprotect(base_ + page, kPage, host_prot(prot_of(page)));
}

bool GuestVm::watches_code(uint64_t addr, uint64_t len) const {
  auto it = code_pages_.lower_bound(page_down(addr));
  return it != code_pages_.end() && *it < addr + len;
}

void GuestVm::code_change(uint64_t start, uint64_t end) {
  if (watches_code(start, end - start) && on_code_change) on_code_change(page_down(start), page_up(end));
}

void GuestVm::before_host_write(uint64_t addr, uint64_t len) { code_change(addr, addr + len); }

}  // namespace brisk
