// The JIT engine: block cache, dispatcher, chaining, invalidation and fault recovery around the
// asmjit baseline translator (jit/x64).
#pragma once

#include <array>
#include <atomic>
#include <cstdio>
#include <deque>
#include <map>
#include <tuple>
#include <memory>
#include <unordered_map>
#include <vector>

#include "jit/llvm/region.h"
#include "jit/x64/translator.h"
#include "runtime/block_table.h"
#include "runtime/engine.h"
#include "runtime/host_fault.h"
#include "runtime/host_heap.h"
#include "runtime/interp.h"
#include "runtime/zeroed.h"

namespace brisk {

class JitEngine final : public Engine, public HostFaultHooks {
 public:
  explicit JitEngine(const EngineOptions& opt);
  ~JitEngine() override;
  void run(Hart& h, TrapHandler& traps) override;
  // Drops the translations made from [start, end); if the block at h.pc is among them, sets
  // h.code_written, so that translated code running a store there leaves right after it.
  void invalidate(Hart& h, uint64_t start, uint64_t end) override;
  void flush_lookup(Hart& h, uint64_t va) override;
  // The child's perf map starts as a copy of its parent's: the code cache it inherited is the same.
  void after_fork() override;

  // HostFaultHooks
  bool on_code_write(Hart& h, uint64_t va, ucontext_t& ctx) override;
  bool recover(Hart& h, const ucontext_t& ctx) override;

  // One trip into translated code at h.pc, as run() makes it: chaining through linked exits and the
  // lookup table, and linking the exit it comes back through. Returns the JitExit code.
  uint32_t enter(Hart& h);
  // For the lockstep checker, which holds a HostFaultScope with this engine's hooks around them:
  // runs a translation of at most n instructions at h.pc that is never linked and whose exits all
  // come back, and returns its JitExit code.
  uint32_t run_unchained(Hart& h, unsigned n);
  // The block enter() starts at h.pc (translating it if needed), or nullptr after raising the fetch
  // fault. Execution leaves its plan's instructions at a taken branch (a side exit) or at the end.
  const x64::BlockCode* block(Hart& h);

  // At the exec loop's top, where no translated code runs (after on_budget): samples which guest
  // registers the code uses, and when another order of x64::HostRegs would keep clearly more of
  // those uses in host registers, takes it and flushes the code cache. Lowers h.deadline to the
  // next sample.
  void adapt(Hart& h);

  std::string summary() const override;
  bool reports_retired() const override { return true; }

  // What enter() returns for a block whose run the interpreter makes (block_for's `interpret`).
  static constexpr uint32_t kExitInterpret = 0x100;

  struct Stats {
    uint64_t blocks = 0, links = 0, flushes = 0, invalidated = 0;
    uint64_t interpreted = 0;  // runs of blocks not translated yet, left to the interpreter
    // Blocks the exec loop looked up (translated code left to it), and those the cache in front
    // of the block table (recent_) missed.
    uint64_t dispatches = 0, table_lookups = 0;
    // The LLVM tier: regions compiled and those LLVM failed on, the host time spent compiling, and
    // the instructions retired in region code out of those of every trip into translated code.
    uint64_t regions = 0, region_failures = 0;
    uint64_t compile_ns = 0;
    uint64_t tier2_insns = 0, translated_insns = 0;
    uint64_t remaps = 0;  // changes of the order of mapped guest registers (adapt)
  };
  const Stats& stats() const { return stats_; }

 private:
  using Key = BlockKey;
  struct Block {
    x64::BlockCode bc;
    uint64_t pa = 0;    // physical address of bc.pc: what the block was made from
    uint64_t mode = 0;  // mode_key
    uint64_t view = 0;  // RetireObserver::view of its first pc
    unsigned max_insns = 0;
    bool valid = true;
    std::vector<std::pair<Block*, unsigned>> incoming;  // (source block, exit index) linked here
    // Where links, lookup tables and the exec loop enter it: bc.code, or its tier-2 region's entry.
    uint8_t* entry = nullptr;
    uint32_t heat = 0;    // entries left before it tiers up (x64::TranslateConfig::hot_counter)
    uint64_t region = 0;  // its tier-2 region's id, from when it is queued (0: none)
    Key key() const { return {bc.plan.pc, pa, mode, max_insns, view}; }
  };
  // A compiled region, which its entry stub calls through run_region.
  struct Region {
    tier2::RegionFn fn;
    uint64_t* retired;  // Stats::tier2_insns
    uint64_t id;
  };
  static uint32_t run_region(Hart* h, const void* region);
  // A pc -> code table, and which of its groups of slots may hold entries, so that flushes clear
  // only those: Linux's sfence.vma made flush_lookup 3% of a boot. In system mode (`by_page`, as
  // x64::lookup_index) a group holds a page's slots.
  struct LookupTable {
    static constexpr unsigned kGroupSlots = 1u << x64::kLookupSlotBits;
    std::array<x64::LookupEntry, x64::kLookupEntries> entries;
    uint64_t groups = 0;
    bool by_page = false;
    x64::LookupEntry& at(uint64_t pc) { return entries[x64::lookup_index(pc, by_page)]; }
    void set(uint64_t pc, const void* code) {
      const uint32_t i = x64::lookup_index(pc, by_page);
      entries[i] = {pc, code};
      groups |= 1ull << (i / kGroupSlots);
    }
    void clear_group(unsigned g) {
      std::fill_n(entries.begin() + g * kGroupSlots, kGroupSlots, x64::LookupEntry{});
      groups &= ~(1ull << g);
    }
    void clear() {
      for (uint64_t m = groups; m; m &= m - 1) clear_group(static_cast<unsigned>(__builtin_ctzll(m)));
    }
  };
  static_assert(x64::kLookupPageBits <= 6, "LookupTable::groups has a bit per group");

  // The translation key beyond the address: what changes a block's meaning (docs/architecture.md,
  // "Translation key"), the counted events and the CTR record mask among it.
  uint64_t mode_key(const Hart& h) const;
  // The machine's instruction classes translations for h count (none without a classifier).
  uint8_t insn_events(const Hart& h) const { return opt_.insn_events ? h.insn_event_mask : 0; }
  jit::PlanConfig plan_config(const Hart& h, unsigned max_insns) const;
  x64::TranslateConfig config(const Hart& h);
  // Finds or translates the block at h.pc (of at most max_insns instructions, when not 0); nullptr
  // after raising an instruction fault. With `interpret`, a block not translated yet whose runs so
  // far are fewer than EngineOptions::jit_threshold is not: *interpret is set, nullptr returned,
  // and the run counted.
  Block* block_for(Hart& h, unsigned max_insns = 0, bool* interpret = nullptr);
  // Whether the block with `key` has run jit_threshold times: counts this run if not. A direct-mapped
  // table of key hash tags, each with its runs in the low bits: a key that evicts another's restarts
  // that one's count, which only delays its translation. In tables_' huge page, as hashes spread it.
  bool ran_enough(const Key& key);
  static constexpr unsigned kRunsBits = 4, kRunsSlots = 1u << 16;
  ZeroedPtr<std::array<uint32_t, kRunsSlots>> runs_;
  // At kExitInterpret: interprets the block at h.pc up to where it first leaves (a taken transfer,
  // a trap), ends, or reaches the deadline; false if a trap handler said stop.
  bool interpret_block(Hart& h, TrapHandler& traps);
  // The pc -> code table translated code of this hart, mode and view consults for indirect jumps.
  LookupTable& lookup_for(Hart& h, uint64_t mode, uint64_t view);
  // Whether guest memory still holds what the plan decoded (another thread may have stored to it
  // between the fetch and the watch that makes such stores fault or reach invalidate).
  bool still_in_memory(Hart& h, const jit::BlockPlan& plan) const;
  void link(Block* from, unsigned exit, Block* to);
  void drop(Block* b);
  void flush_all(Hart& h);
  Block* block_at_host(const void* p) const;
  // The block whose code holds host address p, and the fault site (inline load or store) there.
  std::pair<Block*, const x64::FaultSite*> fault_site_at(const void* host) const;
  // At a kExitDeadline: interprets up to the deadline and, if it fell inside the block that did
  // not start, on to where that block ends or first leaves; false if a trap handler said stop.
  bool step_past_deadline(Hart& h, TrapHandler& traps);
  // The LLVM tier: whether b may tier up, queuing it for compilation, and entering the regions that
  // are ready (from the exec loop, where no translated code runs, on the engine's own thread).
  bool tiers_up(const Hart& h, const Block& b) const;
  void tier_up(Block* b);
  // b's region: b and the hot blocks in its page that its direct exits reach, transitively.
  std::vector<jit::BlockPlan> region_of(const Block* b) const;
  // Starts loading the compiler once the run is long enough, and takes it when it is loaded.
  void start_tier2();
  void install_regions();

  EngineOptions opt_;
  x64::CodeArena arena_;
  x64::Emitter emitter_;
  // The trampolines of translations by what they keep in host registers (x64::HostRegs::layout).
  std::array<x64::Trampolines, x64::HostRegs::kLayouts> tramp_;
  const x64::Trampolines& trampolines(const jit::PlanConfig& c) const {
    return tramp_[host_regs(c).layout()];
  }
  x64::HostRegs host_regs(const jit::PlanConfig& c) const {
    return x64::host_regs(opt_.jit_regs, c.recording_mask(), c.counts_misses(), order_);
  }
  void emit_trampolines();  // at the arena's start, for order_
  // The guest registers in host registers, and how adapt chooses them: register uses of the
  // blocks about to run every sample_period_ instructions (sample(): the block a sample's deadline
  // stopped, or, when the deadline was reached another way, the one enter() or block() returns
  // next), decayed by half after each window of kWindow samples, at whose end a better order may
  // replace the current one, at most kMaxRemaps times.
  x64::GuestOrder order_ = x64::kMappedGuestOrder;
  struct RegSamples {
    static constexpr unsigned kWindow = 32, kMaxRemaps = 3;
    std::array<uint32_t, 32> uses{};
    uint64_t next = 0;   // instret of the next sample; UINT64_MAX: no more
    unsigned taken = 0;  // in this window
    bool due = false;    // the next block looked up is the sample
  } samples_;
  uint64_t sample_period_;
  void sample(const jit::BlockPlan& plan);
  // At a kExitDeadline of the sample's own deadline: samples the block at h.pc, which did not
  // start, and leaves the deadline reached, for on_budget. False for any other deadline.
  bool sampled_at_deadline(Hart& h);
  // The sites of CTR ring records, until a code-cache flush (flush_all).
  ctr::SiteTable ctr_sites_;
  uint8_t* arena_start_ = nullptr;  // first byte after the trampolines
  BlockTable<Block> blocks_;  // the valid blocks
  // Direct-mapped cache in front of blocks_, by lookup_index(pc, true): most dispatches hit here.
  struct Recent {
    Key key;
    Block* block;  // nullptr: empty
  };
  // The exec loop's and translated code's dispatch tables (runtime/zeroed.h): recent_ and the first
  // lookup tables share one huge page.
  ZeroedPool tables_{kHostHugePage};
  ZeroedPtr<std::array<Recent, x64::kLookupEntries>> recent_ =
      make_zeroed<std::array<Recent, x64::kLookupEntries>>(&tables_);
  std::unordered_map<uint64_t, std::vector<Block*>> by_page_;  // physical page -> blocks made from it
  // Blocks by where their code starts, in the order the arena gave it out: sorted until it is reset.
  std::vector<Block*> by_code_;
  std::deque<std::unique_ptr<Block>> all_;  // dropped blocks stay until the arena is reset
  std::map<std::tuple<const Hart*, uint64_t, uint64_t>, ZeroedPtr<LookupTable>> lookups_;
  // The execute-trigger configuration the blocks translated with an execute trigger armed were
  // made for (trigger::State::exec_epoch; 0: none).
  uint64_t exec_epoch_ = 0;
  // The epoch of the views of the blocks and lookup tables made with one (RetireObserver::view_epoch;
  // 0: none yet).
  uint64_t view_epoch_ = 0;
  // The LLVM tier: whether blocks tier up (off, in a forked child whose copy lacks the compiler's
  // thread, or once the module failed to load: no), the compiler, loaded by start_tier2 (so that a
  // short run pays nothing for LLVM), and the hart last run, which the compiler's thread asks to
  // come back to the exec loop.
  bool tier2_on_ = false;
  std::unique_ptr<tier2::Compiler> tier2_;
  struct Tier2Load;
  Tier2Load* loading_ = nullptr;  // LLVM loading on a thread of its own (start_tier2)
  tier2::Compiler::Options tier2_options();
  // Takes the loaded compiler (nullptr: LLVM is not available, as `error` says) and submits what is queued.
  void loaded_tier2(std::unique_ptr<tier2::Compiler> compiler, const std::string& error);
  std::atomic<Hart*> running_{nullptr};
  uint64_t last_region_ = 0;
  std::map<uint64_t, Block*> compiling_;  // queued regions by id, while their blocks are valid
  std::deque<Region> regions_;            // entered ones, until a code-cache flush
  std::vector<uint64_t> dead_regions_;    // entered ones whose block was dropped: freed once they return
  jit::BlockPlan plan_;  // block_for's scratch plan
  Interpreter interp_{&tables_};  // for first runs and the last few instructions before a deadline
  Stats stats_;
  FILE* perf_map_ = nullptr;
  void name_trampolines();  // in the perf map
  bool host_fma_;
};

}  // namespace brisk
