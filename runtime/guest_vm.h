// User-mode guest address space: one host reservation, guest address va at host address base + va
// (DESIGN.md principle 4), with a map of the guest's mappings for mmap/munmap/mprotect/brk.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>

namespace brisk {

class GuestVm {
 public:
  // Sv39's user half: the layout a riscv64 Linux process sees on a 39-bit MMU.
#ifdef BRISK_SANITIZE
  // ASan's shadow memory starts below 2 GiB on x86-64 (0x7fff8000): a sanitizer build gets 1 GiB of
  // guest at 256 MiB (a null base would make every guest pointer UB to UBSan).
  static constexpr uint64_t kLimit = 1ull << 30;
  static constexpr uintptr_t kHostBases[] = {uintptr_t(1) << 28};
#else
  static constexpr uint64_t kLimit = 1ull << 38;
  static constexpr uintptr_t kHostBases[] = {0, uintptr_t(1) << 30};
#endif
  static constexpr uint64_t kPage = 4096;
  // Host-reserved bytes past kLimit, so an access that starts below kLimit and crosses it faults
  // on the host instead of touching other memory.
  static constexpr uint64_t kGuard = 1ull << 20;
  static constexpr uint64_t kStackTop = kLimit;
  static constexpr uint64_t kStackSize = 8ull << 20;
  static constexpr uint64_t kMmapTop = kStackTop - kStackSize - (128ull << 20);
  // Below this nothing is ever mapped (Linux's default vm.mmap_min_addr).
  static constexpr uint64_t kLowest = 0x10000;

  GuestVm();
  ~GuestVm();
  GuestVm(const GuestVm&) = delete;
  GuestVm& operator=(const GuestVm&) = delete;

  // Host address of guest address 0: 0 or 1 GiB (see the constructor).
  uint8_t* base() const { return base_; }

  // mmap(2) inside the guest space: flags and prot use the Linux values (identical on riscv64 and x86-64).
  // Returns the guest address, or -errno.
  int64_t map(uint64_t addr, uint64_t len, int prot, int flags, int fd, uint64_t offset);
  int64_t unmap(uint64_t addr, uint64_t len);
  int64_t protect(uint64_t addr, uint64_t len, int prot);
  int64_t remap(uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags, uint64_t new_addr);

  void set_brk_start(uint64_t addr) { brk_start_ = brk_ = page_up(addr); }
  uint64_t brk(uint64_t addr);

  // Whether [addr, addr+len) is mapped with at least `prot` (PROT_READ/WRITE/EXEC; EXEC implies READ).
  bool accessible(uint64_t addr, uint64_t len, int prot) const;

  // Code pages: translated code was made from them, so the host maps them read-only and a guest
  // store faults into the JIT, which drops the stale translations and unwatches the page.
  void watch_code(uint64_t page);
  void unwatch_code(uint64_t page);
  // Called before any watched page in [start, end) is unmapped, replaced, re-protected, or written by
  // the host kernel on the guest's behalf; it must unwatch them.
  std::function<void(uint64_t start, uint64_t end)> on_code_change;
  // The host kernel is about to write [addr, addr+len) for a syscall: lets go of watched code there.
  void before_host_write(uint64_t addr, uint64_t len);
  // A free range of len bytes, searched top-down from below `top`; 0 when none.
  uint64_t find_free(uint64_t len, uint64_t top = kMmapTop) const;

  static uint64_t page_up(uint64_t v) { return (v + kPage - 1) & ~(kPage - 1); }
  static uint64_t page_down(uint64_t v) { return v & ~(kPage - 1); }

 private:
  struct Vma {
    uint64_t end;
    int prot;
  };
  bool range_free(uint64_t start, uint64_t end) const;
  // Runs on_code_change if any watched page lies in [start, end).
  void code_change(uint64_t start, uint64_t end);
  int prot_of(uint64_t page) const;
  // Replaces whatever the map says about [start, end) with one mapping of `prot`, or nothing (prot < 0).
  void record(uint64_t start, uint64_t end, int prot);
  // Gives [start, end) back to the host reservation.
  void release(uint64_t start, uint64_t end);

  uint8_t* base_ = nullptr;
  std::map<uint64_t, Vma> vmas_;  // keyed by start; ranges never overlap
  std::set<uint64_t> code_pages_;
  uint64_t brk_start_ = 0, brk_ = 0;
};

}  // namespace brisk
