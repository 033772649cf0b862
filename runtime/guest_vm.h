// User-mode guest address space: one host reservation, guest address va at host address base + va
// (docs/architecture.md, "Where each concern lives"), with a map of the guest's mappings for mmap/munmap/mprotect/brk.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "runtime/sanitizer.h"

namespace brisk {

class GuestVm {
 public:
  // Sv39's user half: the layout a riscv64 Linux process sees on a 39-bit MMU. AddressSanitizer's
  // default shadow starts at host 0x7fff8000, so a sanitizer build gives the guest 1 GiB below it.
#ifdef BRISK_ASAN
  static constexpr uint64_t kLimit = 1ull << 30;
#else
  static constexpr uint64_t kLimit = 1ull << 38;
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

  // One guest mapping, as /proc/<pid>/maps shows it.
  struct Mapping {
    uint64_t end = 0;
    int prot = 0;
    bool shared = false;
    uint64_t offset = 0;  // into the file
    uint64_t dev = 0, ino = 0;
    std::string path;     // the file's host path; empty for anonymous memory
  };

  GuestVm();
  ~GuestVm();
  GuestVm(const GuestVm&) = delete;
  GuestVm& operator=(const GuestVm&) = delete;

  // Host address of guest address 0: never host 0, so that a null pointer in brisk cannot look like
  // a guest access (see the constructor).
  uint8_t* base() const { return base_; }

  // The Linux system calls on the guest space, with Linux's checks and errors. Flags and prot use the
  // Linux values (identical on riscv64 and x86-64). Each returns its result or -errno.
  int64_t map(uint64_t addr, uint64_t len, int prot, int flags, int fd, uint64_t offset);
  int64_t unmap(uint64_t addr, uint64_t len);
  int64_t protect(uint64_t addr, uint64_t len, int prot);
  int64_t remap(uint64_t old_addr, uint64_t old_len, uint64_t new_len, int flags, uint64_t new_addr);
  int64_t advise(uint64_t addr, uint64_t len, int advice);
  int64_t sync(uint64_t addr, uint64_t len, int flags);

  void set_brk_start(uint64_t addr) { brk_start_ = brk_ = page_up(addr); }
  uint64_t brk_start() const { return brk_start_; }
  uint64_t program_break() const { return brk_; }
  uint64_t brk(uint64_t addr);

  // Puts a private mapping of the file's bytes at `offset` in place of the whole pages [addr, addr +
  // len) of private anonymous memory, which stay the mapping they were part of: the ELF loader's way
  // to load a segment's pages without copying them. False if the host refused: the pages are then
  // zeroed anonymous memory again.
  bool overlay_file(uint64_t addr, uint64_t len, int fd, uint64_t offset);
  // Gives every mapping that has no file the file `path` (the ELF loader's segments are anonymous
  // mappings here, which Linux would show as mappings of the program).
  void name_anonymous(const std::string& path);
  // Calls fn(start, mapping) for every mapping, lowest first.
  void for_each(const std::function<void(uint64_t, const Mapping&)>& fn) const;

  // Whether [addr, addr+len) is mapped with at least `prot` (PROT_READ/WRITE/EXEC; EXEC implies READ).
  bool accessible(uint64_t addr, uint64_t len, int prot) const;

  // /proc/<pid>/mem's access (Linux's FOLL_FORCE, as a debugger uses it): copies len bytes at addr,
  // inside one page, from any mapping or into any private one, whatever its protection. False where
  // Linux fails it: nothing mapped, a shared mapping without write permission, or a file mapping
  // beyond its file's end.
  bool force_copy(uint64_t addr, void* data, uint64_t len, bool write);

  // Code pages: translated code was made from them, so the host maps them read-only and a guest
  // store faults into the JIT, which drops the stale translations and unwatches the page.
  void watch_code(uint64_t page);
  void unwatch_code(uint64_t page);
  // Called before any watched page in [start, end) is unmapped, replaced, re-protected, or written by
  // the host kernel on the guest's behalf; it must unwatch them.
  std::function<void(uint64_t start, uint64_t end)> on_code_change;
  // A file's pages became executable, mapped with PROT_EXEC or given it by mprotect: `m` is the
  // piece that did, at `start` (brisk record's MMAP2, runtime/recorder.h).
  std::function<void(uint64_t start, const Mapping& m)> on_exec_map;
  // Whether a watched page lies in [addr, addr+len).
  bool watches_code(uint64_t addr, uint64_t len) const;
  // The host kernel is about to write [addr, addr+len) for a syscall: lets go of watched code there.
  void before_host_write(uint64_t addr, uint64_t len);
  // A free range of len bytes at or above kLowest, searched top-down from below `top`; 0 when none.
  uint64_t find_free(uint64_t len, uint64_t top = kMmapTop) const;

  static uint64_t page_up(uint64_t v) { return (v + kPage - 1) & ~(kPage - 1); }
  static uint64_t page_down(uint64_t v) { return v & ~(kPage - 1); }

 private:
  bool range_free(uint64_t start, uint64_t end) const;
  // Whether every page of [start, end) is mapped.
  bool mapped(uint64_t start, uint64_t end) const;
  // Runs on_code_change if any watched page lies in [start, end).
  void code_change(uint64_t start, uint64_t end);
  int prot_of(uint64_t page) const;
  // Makes `at` a boundary between mappings.
  void split(uint64_t at);
  // Replaces whatever the map says about [start, m.end) with m.
  void record(uint64_t start, const Mapping& m);
  // Joins the mappings in and around [start, end) that continue one another.
  void merge(uint64_t start, uint64_t end);
  // Drops [start, end) from the map.
  void forget(uint64_t start, uint64_t end);
  // Gives [start, end) back to the host reservation.
  void release(uint64_t start, uint64_t end);

  uint8_t* base_ = nullptr;
  std::map<uint64_t, Mapping> vmas_;  // keyed by start; ranges never overlap
  std::set<uint64_t> code_pages_;
  uint64_t brk_start_ = 0, brk_ = 0;
};

// The host kernel's name for an open file descriptor (the target of /proc/self/fd/N); empty if none.
std::string fd_path(int fd);

}  // namespace brisk
