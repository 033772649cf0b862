// System-mode memory: Sv39/Sv48/Sv57 translation with the software TLBs in each Hart, RAM and MMIO
// through the Bus, and the bookkeeping that keeps translated code coherent with guest stores.
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "runtime/bus.h"
#include "runtime/exclusive.h"
#include "runtime/hart.h"

namespace brisk {

// The TLB set data accesses of h use now (MPRV and SUM applied); the JIT keys blocks by it.
MmuIndex data_mmu_index(const Hart& h);

class SystemMemory final : public HartEnv {
 public:
  // Engine callbacks: drop translated code from a physical page, and forget pc -> code lookups.
  struct CodeHooks {
    std::function<void(Hart&, uint64_t page)> invalidate_page;
    std::function<void(Hart&, uint64_t va)> flush_lookup;
  };

  SystemMemory(Bus& bus, std::vector<Hart*> harts) : bus_(bus), harts_(std::move(harts)) {}
  void set_code_hooks(CodeHooks hooks) { hooks_ = std::move(hooks); }
  void set_timer_changed(std::function<void(Hart&)> f) { timer_changed_ = std::move(f); }
  // Harts on host threads (runtime/virt_machine.h): device accesses take `device_lock`, and watching
  // a page for code clears other harts' TLB entries in an exclusive section of `group`.
  void set_threads(std::mutex* device_lock, ExclusiveGroup* group) {
    device_lock_ = device_lock;
    group_ = group;
  }

  bool load(Hart& h, uint64_t va, void* out, unsigned size) override;
  bool store(Hart& h, uint64_t va, const void* in, unsigned size) override;
  void* amo(Hart& h, uint64_t va, unsigned size) override;
  bool fetch16(Hart& h, uint64_t va, uint16_t& out) override;
  bool fetch_address(Hart& h, uint64_t va, uint64_t& pa) override;
  void watch_code(uint64_t page) override;
  void unwatch_code(uint64_t page) override;
  void flush_tlb(Hart& h, uint64_t va) override;
  void timer_changed(Hart& h) override {
    if (timer_changed_) timer_changed_(h);
  }
  Target probe(Hart& h, uint64_t va, unsigned size, bool write, uint8_t*& host) override;

 private:
  enum class Access { Read, Write, Exec };
  // Translates va for an access, raising the page or access fault on failure.
  // `level` is the page-table level of the leaf (0 for 4 KiB pages and for no translation).
  // `count`: the walk is a page-walk event (probe's are not).
  bool translate(Hart& h, uint64_t va, Access a, uint64_t& pa, unsigned& level, bool count = true);
  bool walk(Hart& h, uint64_t va, Access a, unsigned priv, uint64_t& pa, unsigned& level, bool count);
  bool access_one(Hart& h, uint64_t va, void* data, unsigned size, Access a);
  // RAM's host address for a data access at va if the TLB has its page (fill_tlb: RAM only, and for
  // stores no page with translated code), else nullptr.
  uint8_t* tlb_hit(Hart& h, uint64_t va, Access a) const;
  uint64_t ram_pa(const uint8_t* host) const;
  // Drops the translations made from the page of RAM at `pa`, before a store to it.
  void invalidate_code(Hart& h, uint64_t pa);
  void fill_tlb(Hart& h, uint64_t va, uint64_t pa, Access a, unsigned level);
  Status fault(Hart& h, uint64_t va, Access a, bool page_fault);

  Bus& bus_;
  std::vector<Hart*> harts_;
  CodeHooks hooks_;
  std::function<void(Hart&)> timer_changed_;
  std::mutex* device_lock_ = nullptr;
  ExclusiveGroup* group_ = nullptr;
};

}  // namespace brisk
