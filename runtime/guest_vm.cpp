#include "runtime/guest_vm.h"

#include <sys/mman.h>

#include <cerrno>
#include <stdexcept>

namespace brisk {

namespace {

// Guest code is never run by the host: executable guest pages only need to be readable.
int host_prot(int prot) {
  int p = prot & (PROT_READ | PROT_WRITE);
  if (prot & PROT_EXEC) p |= PROT_READ;
  return p;
}

constexpr int kReserveFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

}  // namespace

GuestVm::GuestVm() {
  // Translated code addresses guest memory as [va + base] with base in a 32-bit displacement, so the
  // space must start below 2 GiB: at 0 (guest and host addresses equal) when the host has nothing
  // there, else a little higher. The lowest pages stay unmapped either way, as Linux keeps them.
  for (uintptr_t base : kHostBases) {
    uint8_t* start = reinterpret_cast<uint8_t*>(base + kLowest);
    void* p = mmap(start, kLimit + kGuard - kLowest, PROT_NONE, kReserveFlags | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == start) {
      base_ = reinterpret_cast<uint8_t*>(base);
      return;
    }
    if (p != MAP_FAILED) munmap(p, kLimit + kGuard - kLowest);
  }
  throw std::runtime_error("cannot reserve the guest address space below 2 GiB of the host's");
}

GuestVm::~GuestVm() { munmap(base_ + kLowest, kLimit + kGuard - kLowest); }

bool GuestVm::range_free(uint64_t start, uint64_t end) const {
  if (start >= end || end > kLimit) return false;
  auto it = vmas_.lower_bound(start);
  if (it != vmas_.end() && it->first < end) return false;
  if (it != vmas_.begin() && std::prev(it)->second.end > start) return false;
  return true;
}

uint64_t GuestVm::find_free(uint64_t len, uint64_t top) const {
  uint64_t hole_end = top;
  for (auto it = vmas_.rbegin(); it != vmas_.rend(); ++it) {
    if (it->first >= hole_end) continue;
    if (it->second.end < hole_end && hole_end - it->second.end >= len) return hole_end - len;
    hole_end = it->first;
  }
  // Page 0 stays unmapped so that null pointers fault.
  return hole_end >= len + kPage ? hole_end - len : 0;
}

void GuestVm::record(uint64_t start, uint64_t end, int prot) {
  // Split the mappings that straddle either boundary, then drop everything inside.
  auto split = [&](uint64_t at) {
    auto it = vmas_.upper_bound(at);
    if (it == vmas_.begin()) return;
    --it;
    if (it->first < at && it->second.end > at) {
      vmas_[at] = it->second;
      it->second.end = at;
    }
  };
  split(start);
  split(end);
  vmas_.erase(vmas_.lower_bound(start), vmas_.lower_bound(end));
  if (prot >= 0) vmas_[start] = Vma{end, prot};
}

void GuestVm::release(uint64_t start, uint64_t end) {
  code_change(start, end);
  mmap(base_ + start, end - start, PROT_NONE, kReserveFlags | MAP_FIXED, -1, 0);
  record(start, end, -1);
}

int64_t GuestVm::map(uint64_t addr, uint64_t len, int prot, int flags, int fd, uint64_t offset) {
  if (len == 0 || (offset & (kPage - 1))) return -EINVAL;
  len = page_up(len);
  if (len > kLimit) return -ENOMEM;
  const bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
  if (fixed) {
    if ((addr & (kPage - 1)) || addr + len > kLimit || addr + len < addr) return -EINVAL;
    if ((flags & MAP_FIXED_NOREPLACE) && !range_free(addr, addr + len)) return -EEXIST;
  } else {
    addr = page_down(addr);
    if (!(addr && range_free(addr, addr + len))) addr = find_free(len);
    if (!addr) return -ENOMEM;
  }
  int host_flags = (flags & (MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE | MAP_ANONYMOUS | MAP_NORESERVE |
                             MAP_POPULATE)) |
                   MAP_FIXED;
  code_change(addr, addr + len);
  void* p = mmap(base_ + addr, len, host_prot(prot), host_flags, (flags & MAP_ANONYMOUS) ? -1 : fd, offset);
  if (p == MAP_FAILED) {
    int err = errno;
    if (fixed) release(addr, addr + len);
    return -err;
  }
  record(addr, addr + len, prot);
  return static_cast<int64_t>(addr);
}

int64_t GuestVm::unmap(uint64_t addr, uint64_t len) {
  if ((addr & (kPage - 1)) || len == 0) return -EINVAL;
  uint64_t end = page_up(addr + len);
  if (end > kLimit || end < addr) return -EINVAL;
  release(addr, end);
  return 0;
}

int64_t GuestVm::protect(uint64_t addr, uint64_t len, int prot) {
  if (addr & (kPage - 1)) return -EINVAL;
  uint64_t end = page_up(addr + len);
  if (end == addr) return 0;
  if (end < addr) return -ENOMEM;  // the range wraps: it cannot all be mapped
  // Every page of the range must be mapped.
  for (uint64_t at = addr; at < end;) {
    auto it = vmas_.upper_bound(at);
    if (it == vmas_.begin() || std::prev(it)->second.end <= at) return -ENOMEM;
    at = std::prev(it)->second.end;
  }
  code_change(addr, end);
  if (mprotect(base_ + addr, end - addr, host_prot(prot)) != 0) return -errno;
  record(addr, end, prot);
  return 0;
}

int64_t GuestVm::remap(uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags, uint64_t new_addr) {
  if ((old_addr & (kPage - 1)) || new_len == 0) return -EINVAL;
  old_len = page_up(old_len);
  new_len = page_up(new_len);
  // Sizes beyond the guest space, or that wrapped rounding up or adding up, name no mapping.
  if (new_len == 0 || old_len > kLimit || new_len > kLimit || old_addr > kLimit - old_len) return -EINVAL;
  auto it = vmas_.upper_bound(old_addr);
  if (it == vmas_.begin() || std::prev(it)->second.end < old_addr + old_len) return -EFAULT;
  const int prot = std::prev(it)->second.prot;
  if (new_len <= old_len && !(flags & MREMAP_FIXED)) {
    if (new_len < old_len) release(old_addr + new_len, old_addr + old_len);
    return static_cast<int64_t>(old_addr);
  }
  code_change(old_addr, old_addr + old_len);
  if (!(flags & MREMAP_FIXED) && range_free(old_addr + old_len, old_addr + new_len)) {
    if (mremap(base_ + old_addr, old_len, new_len, 0) == MAP_FAILED) return -errno;
    record(old_addr, old_addr + new_len, prot);
    return static_cast<int64_t>(old_addr);
  }
  if (!(flags & MREMAP_MAYMOVE)) return -ENOMEM;
  uint64_t dest = (flags & MREMAP_FIXED) ? new_addr : find_free(new_len);
  if (!dest || (dest & (kPage - 1)) || dest + new_len > kLimit) return -ENOMEM;
  if (mremap(base_ + old_addr, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, base_ + dest) == MAP_FAILED)
    return -errno;
  // The host left a hole where the old pages were: put the reservation back.
  release(old_addr, old_addr + old_len);
  record(dest, dest + new_len, prot);
  return static_cast<int64_t>(dest);
}

uint64_t GuestVm::brk(uint64_t addr) {
  if (addr < brk_start_) return brk_;
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

bool GuestVm::accessible(uint64_t addr, uint64_t len, int prot) const {
  if (len == 0) return addr <= kLimit;  // as Linux's access_ok: an empty range must still be user space
  uint64_t end = addr + len;
  if (end < addr || end > kLimit) return false;
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

void GuestVm::code_change(uint64_t start, uint64_t end) {
  auto it = code_pages_.lower_bound(page_down(start));
  if (it != code_pages_.end() && *it < end && on_code_change) on_code_change(page_down(start), page_up(end));
}

void GuestVm::before_host_write(uint64_t addr, uint64_t len) { code_change(addr, addr + len); }

}  // namespace brisk
