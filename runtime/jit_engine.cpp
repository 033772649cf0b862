#include "runtime/jit_engine.h"

#include <fcntl.h>
#include <unistd.h>
#include <xmmintrin.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <asmjit/core.h>
#include <fmt/format.h>

#include "csr/ctr.h"
#include "csr/privileged.h"
#include "csr/trigger.h"
#include "runtime/diag.h"
#include "runtime/fp.h"
#include "runtime/hart.h"
#include "runtime/mmu.h"
#include "runtime/quiet_thread.h"

namespace brisk {

namespace {

constexpr uint64_t kPage = 4096;

uint64_t page_of(uint64_t va) { return va & ~(kPage - 1); }

// Where mode_key keeps trigger::translation_key, and the machine's instruction classes counted.
constexpr unsigned kTriggerKeyShift = 44, kInsnEventsKeyShift = 48, kTraceKeyShift = 56;

// ucontext register index of each asmjit general-purpose register id (rax=0 ... r15=15).
constexpr int kGregOfId[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                               REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

void patch_jump(uint8_t* jmp, const uint8_t* target) {
  int32_t rel = static_cast<int32_t>(target - (jmp + 5));
  std::memcpy(jmp + 1, &rel, 4);
}

bool fp_off(const Hart& h) { return (h.csr.mstatus & csr::MSTATUS_FS) == 0; }
bool fp_dirty_state(const Hart& h) { return (h.csr.mstatus & csr::MSTATUS_FS) == csr::MSTATUS_FS_DIRTY; }

// Instructions between two samples of JitEngine::adapt, each a deadline exit and a return to the
// block that did not start. BRISK_JIT_REGS_SAMPLE=N (tests only) samples every N instructions
// instead, so that a short program remaps.
uint64_t sample_period() {
  const char* s = std::getenv("BRISK_JIT_REGS_SAMPLE");
  return s ? std::max<uint64_t>(1, std::strtoull(s, nullptr, 10)) : uint64_t{1} << 20;
}

// Calls f(r) for each integer register (r != 0) `in` reads or writes, as far as its format says:
// what JitEngine::adapt weighs orders of mapped registers by.
template <typename F>
void int_register_uses(const Insn& in, F f) {
  auto use = [&](unsigned r) {
    if (r) f(r);
  };
  const uint16_t flags = in.flags();
  if (flags & kFp) {  // the base of an FP load or store is the only integer register that matters
    if (flags & (kLoad | kStore)) use(in.rs1);
    return;
  }
  switch (op_info(in.op).fmt) {
    case Fmt::R:
    case Fmt::A:
      use(in.rd), use(in.rs1), use(in.rs2);
      break;
    case Fmt::I:
    case Fmt::SH:
    case Fmt::CSR:
      use(in.rd), use(in.rs1);
      break;
    case Fmt::S:
    case Fmt::B:
      use(in.rs1), use(in.rs2);
      break;
    case Fmt::U:
    case Fmt::J:
    case Fmt::CSRI:
      use(in.rd);
      break;
    default:
      break;
  }
}

}  // namespace

JitEngine::JitEngine(const EngineOptions& opt)
    : opt_(opt), arena_(size_t{opt.tb_size_mib} << 20), sample_period_(sample_period()),
      host_fma_(asmjit::CpuInfo::host().features().x86().hasFMA()) {
  if (opt_.perf_map) perf_map_ = open_own_file(fmt::format("/tmp/perf-{}.map", getpid()));
  emit_trampolines();
  // Without deadlines translated code cannot be stopped at a sample.
  if (opt_.jit_regs_fixed || !opt_.jit_regs || !opt_.deadlines) samples_.next = UINT64_MAX;
  tier2_on_ = opt_.tier2 && tier2::Compiler::available();
  // Not where translated code counts the machine's instruction classes (-M snitch's quantum mode),
  // which the machine counts for the interpreter's runs in its own loop.
  if (opt_.jit_threshold && !opt_.insn_events) runs_ = make_zeroed<std::array<uint32_t, kRunsSlots>>(&tables_);
}

void JitEngine::emit_trampolines() {
  arena_.reset_to(arena_.begin());
  // A configuration of each x64::HostRegs::layout.
  for (jit::PlanConfig c : {jit::PlanConfig{}, jit::PlanConfig{.count_events = 1u << pmu::kBranchMisses},
                            jit::PlanConfig{.record_mask = 1u << unsigned(TransferType::DirectCall)},
                            jit::PlanConfig{.record_mask = ctr::kRasEmu}})
    tramp_[host_regs(c).layout()] = x64::emit_trampolines(arena_, emitter_, host_regs(c));
  arena_start_ = arena_.cursor();
  name_trampolines();
}

void JitEngine::sample(const jit::BlockPlan& plan) {
  samples_.due = false;
  samples_.taken++;
  // A sample's deadline falls in a block with a chance its length times its runs: weighed by one
  // over its length, a block counts as often as its instructions run. Up to the first branch: a
  // superblock goes on past its side exits, into code that may rarely run.
  // (A plan may be empty: at the top of the address space its page's end wraps to 0.)
  const uint32_t weight = 64 / std::max<uint32_t>(1, static_cast<uint32_t>(plan.insns.size())) + 1;
  for (const jit::PlanInsn& p : plan.insns) {
    int_register_uses(p.insn, [&](unsigned r) { samples_.uses[r] += weight; });
    if (p.exit != jit::Exit::None) break;
  }
}

bool JitEngine::sampled_at_deadline(Hart& h) {
  // Any other deadline (a signal, --max-insns, a counter's overflow) is reached exactly, as before.
  if (samples_.next == UINT64_MAX || h.deadline != samples_.next) return false;
  Block* b = block_for(h);  // the block that did not start, in the cache
  if (!b) return false;
  sample(b->bc.plan);
  // The deadline the sample's replaced is gone: reached here, at a block boundary, as a
  // request_exit's is, the trap handler's on_budget sets it afresh from what it stands for (then
  // adapt lowers it again), so one that happened to equal the sample's is not lost either. A host
  // signal's request_exit (deadline 0) on this thread stands.
  uint64_t expected = samples_.next;
  samples_.next = h.instret + sample_period_;
  std::atomic_ref<uint64_t>(h.deadline).compare_exchange_strong(expected, h.instret, std::memory_order_relaxed);
  return true;
}

void JitEngine::adapt(Hart& h) {
  // User mode only (flat memory): in system mode a sample's deadline exit kept a bare-metal test
  // (diff.system.regress.fetch_top) from going on, which is not understood yet.
  if (samples_.next == UINT64_MAX || !h.mem_limit) return;
  if (h.instret >= samples_.next) {
    samples_.due = true;
    samples_.next = h.instret + sample_period_;
  }
  if (samples_.taken >= RegSamples::kWindow) {
    // The registers by uses, ties in the current order; the first `n` are what translations without
    // pinned registers keep.
    std::array<uint8_t, 31> regs;
    for (unsigned i = 0; i < regs.size(); i++) regs[i] = static_cast<uint8_t>(i + 1);
    auto rank = [&](uint8_t r) { return std::find(order_.begin(), order_.end(), r) - order_.begin(); };
    std::stable_sort(regs.begin(), regs.end(), [&](uint8_t a, uint8_t b) {
      return samples_.uses[a] != samples_.uses[b] ? samples_.uses[a] > samples_.uses[b] : rank(a) < rank(b);
    });
    const unsigned n = host_regs(jit::PlanConfig{}).mapped;
    uint64_t now = 0, best = 0, total = 0;
    for (unsigned i = 0; i < n; i++) now += samples_.uses[order_[i]], best += samples_.uses[regs[i]];
    for (uint32_t u : samples_.uses) total += u;
    // Hysteresis: a flush costs the translation of everything hot again, so only for a clear gain.
    if (best - now > total / 8) {
      std::copy_n(regs.begin(), order_.size(), order_.begin());
      flush_all(h);
      emit_trampolines();
      if (++stats_.remaps == RegSamples::kMaxRemaps) samples_.next = UINT64_MAX;
    }
    for (uint32_t& u : samples_.uses) u /= 2;
    samples_.taken = 0;
  }
  // Atomically: a host signal's request_exit (deadline 0) on this thread must stand. What the
  // deadline stood for before comes back at the sample (sampled_at_deadline).
  std::atomic_ref<uint64_t> deadline(h.deadline);
  for (uint64_t d = deadline.load(std::memory_order_relaxed);
       d > samples_.next && !deadline.compare_exchange_weak(d, samples_.next, std::memory_order_relaxed);) {
  }
}

// What the thread that loads LLVM and the engine share: whichever is done with it last frees it.
struct JitEngine::Tier2Load {
  std::mutex mu;
  std::atomic<bool> done{false};  // the compiler (or the error) is here
  bool abandoned = false;         // the engine went first
  std::unique_ptr<tier2::Compiler> compiler;
  std::string error;
};

tier2::Compiler::Options JitEngine::tier2_options() {
  // BRISK_TIER2_SELFTEST=fail (tests only): LLVM fails on every region, to show what brisk does then.
  const char* selftest = std::getenv("BRISK_TIER2_SELFTEST");
  tier2::Compiler::Options o;
  o.inject_failure = selftest && std::string_view(selftest) == "fail";
  // A loop running chained never comes back to the exec loop, which enters the new regions: ask
  // its hart to leave at the next block boundary (Hart::request_exit, from another thread).
  o.on_done = [this] {
    if (Hart* h = running_.load(std::memory_order_acquire))
      std::atomic_ref<uint64_t>(h->deadline).store(0, std::memory_order_relaxed);
  };
  return o;
}

void JitEngine::loaded_tier2(std::unique_ptr<tier2::Compiler> compiler, const std::string& error) {
  tier2_ = std::move(compiler);
  if (!tier2_) {
    tier2_on_ = false;
    compiling_.clear();  // their blocks keep the baseline code, and their region ids: not queued again
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) diag_print("brisk: tier 2: LLVM is not available; everything stays in the baseline tier: {}\n", error);
    return;
  }
  // Newest first: the blocks the start of the run made hot may be cold by now.
  for (auto it = compiling_.rbegin(); it != compiling_.rend(); ++it) tier2_->submit(it->first, region_of(it->second));
}

std::string JitEngine::summary() const {
  std::string s = fmt::format(
      "{} blocks translated ({} KiB of code), {} links, {} dispatches ({} looked up in the block table), {} "
      "invalidated, {} code-cache flushes",
      stats_.blocks, (arena_.used() + 1023) / 1024, stats_.links, stats_.dispatches, stats_.table_lookups,
      stats_.invalidated, stats_.flushes);
  if (ctr_sites_.size()) s += fmt::format(", {} CTR sites", ctr_sites_.size());
  if (runs_) s += fmt::format(", {} first runs interpreted", stats_.interpreted);
  if (opt_.jit_regs) {
    s += "; guest registers in host registers:";
    for (unsigned i = 0; i < opt_.jit_regs; i++) s += fmt::format(" {}", x_register_name(order_[i]));
    s += fmt::format(" ({} changes)", stats_.remaps);
  }
  if (opt_.tier2) {
    const double share = stats_.translated_insns ? 100.0 * stats_.tier2_insns / stats_.translated_insns : 0;
    s += fmt::format("; tier 2: {} regions compiled in {:.3f} s ({} failed), {} of the {} instructions run in "
                     "translated code ({:.1f}%)",
                     stats_.regions, stats_.compile_ns / 1e9, stats_.region_failures, stats_.tier2_insns,
                     stats_.translated_insns, share);
    if (!tier2_ && !compiling_.empty())
      s += fmt::format("; {} hot blocks not compiled: the run was too short to load LLVM", compiling_.size());
  }
  return s;
}

void JitEngine::after_fork() {
  // The compiler's thread did not come along: its state may be half-changed, so it is left alone
  // (leaked, not destroyed), and the regions entered so far stay, their code copied with the rest.
  if (tier2_ || loading_) {
    (void)tier2_.release();
    loading_ = nullptr;  // its thread is the parent's alone
    tier2_on_ = false;
    compiling_.clear();
    dead_regions_.clear();
  }
  if (!perf_map_) return;
  std::fflush(perf_map_);
  // The parent's map is open for writing only: read it through a descriptor of its own.
  const int parent = open(fmt::format("/proc/self/fd/{}", fileno(perf_map_)).c_str(), O_RDONLY | O_CLOEXEC);
  std::fclose(perf_map_);  // the child's copy of the parent's descriptor
  perf_map_ = open_own_file(fmt::format("/tmp/perf-{}.map", getpid()));
  if (parent < 0) return;
  char buf[65536];
  ssize_t n;
  while (perf_map_ && (n = read(parent, buf, sizeof buf)) > 0) std::fwrite(buf, 1, static_cast<size_t>(n), perf_map_);
  close(parent);
}

void JitEngine::name_trampolines() {
  if (!perf_map_) return;
  // Each thunk runs up to the next one; the last up to the first block.
  std::vector<std::pair<const uint8_t*, const char*>> thunks;
  for (const x64::Trampolines& t : tramp_)
    thunks.insert(thunks.end(), {{reinterpret_cast<const uint8_t*>(t.enter), "brisk_enter"}, {t.exit, "brisk_exit"},
                                 {t.helper, "brisk_helper"}, {t.access, "brisk_access"}, {t.link, "brisk_link"},
                                 {t.dispatch, "brisk_dispatch"}});
  std::sort(thunks.begin(), thunks.end());
  for (size_t i = 0; i < thunks.size(); i++) {
    const uint8_t* end = i + 1 < thunks.size() ? thunks[i + 1].first : arena_start_;
    fmt::print(perf_map_, "{:x} {:x} {}\n", reinterpret_cast<uintptr_t>(thunks[i].first), end - thunks[i].first,
               thunks[i].second);
  }
}

JitEngine::~JitEngine() {
  // The compiler's thread calls back into this engine (tier2_options): it goes first.
  tier2_.reset();
  if (loading_) {
    bool done;
    {
      std::lock_guard lock(loading_->mu);
      done = loading_->done.load(std::memory_order_relaxed);
      loading_->abandoned = !done;
    }
    if (done) delete loading_;
    else tier2::note_abandoned();  // the thread frees it
  }
  if (!perf_map_) return;
  // BRISK_JIT_DUMP=1: the code arena as it is now, for scripts/jit-disasm (its first byte is
  // brisk_enter's, in the map).
  if (std::getenv("BRISK_JIT_DUMP")) {
    if (FILE* f = std::fopen(fmt::format("/tmp/perf-{}.code", getpid()).c_str(), "we")) {
      std::fwrite(arena_.begin(), 1, arena_.used(), f);
      std::fclose(f);
    }
  }
  std::fclose(perf_map_);
}

uint64_t JitEngine::mode_key(const Hart& h) const {
  static_assert(pmu::kEventCount <= 17, "the event mask fits in bits 10..26");
  static_assert(ctr::kRasEmu < 1u << (kTriggerKeyShift - 27), "the record mask fits in bits 27..43");
  const uint64_t mmu = h.mem_limit ? 0u : static_cast<unsigned>(data_mmu_index(h));
  return static_cast<uint64_t>(h.priv) | uint64_t(h.ialign_mask) << 3 | uint64_t(fp_off(h)) << 5 | mmu << 6 |
         uint64_t(fp_dirty_state(h)) << 8 | uint64_t(h.frm == 0) << 9 |
         uint64_t(pmu::active_events(h, static_cast<unsigned>(h.priv))) << 10 | uint64_t(ctr::record_mask(h)) << 27 |
         uint64_t(trigger::translation_key(h)) << kTriggerKeyShift | uint64_t(insn_events(h)) << kInsnEventsKeyShift |
         uint64_t(h.retire_observer != nullptr) << kTraceKeyShift | uint64_t(h.record_transfers) << (kTraceKeyShift + 1);
}

jit::PlanConfig JitEngine::plan_config(const Hart& h, unsigned max_insns) const {
  jit::PlanConfig cfg;
  if (max_insns) cfg.max_insns = max_insns;
  cfg.fp_off = fp_off(h);
  cfg.count_events = pmu::active_events(h, static_cast<unsigned>(h.priv));
  cfg.record_mask = ctr::record_mask(h);
  // A trace unit's fast path (runtime/ete_trace.h): CTR takes its types from the same ring records.
  cfg.report_retired = h.retire_observer;
  cfg.record_transfers = h.record_transfers && !(cfg.record_mask & ctr::kRasEmu);
  cfg.ialign_mask = h.ialign_mask;
  cfg.rv32 = h.rv32;
  const uint32_t triggers = trigger::translation_key(h);
  cfg.exec_triggers = triggers & trigger::kKeyExecute;
  cfg.mem_triggers = triggers & trigger::kKeyMemory;
  cfg.insn_events = insn_events(h);
  cfg.classify = opt_.insn_events;
  return cfg;
}

x64::TranslateConfig JitEngine::config(const Hart& h) {
  x64::TranslateConfig cfg;
  cfg.regs = host_regs(plan_config(h, 0));
  cfg.deadlines = opt_.deadlines;
  cfg.flat_limit = h.mem_limit;
  cfg.flat_base = reinterpret_cast<uint64_t>(h.mem_base);
  cfg.flat_guard = h.mem_guard;
  cfg.mmu_index = h.mem_limit ? 0u : static_cast<unsigned>(data_mmu_index(h));
  cfg.fp_inline = fp_dirty_state(h);
  cfg.frm_rne = h.frm == 0;
  cfg.host_fma = host_fma_;
  cfg.priv = static_cast<unsigned>(h.priv);
  cfg.ctr_sites = &ctr_sites_;
  return cfg;
}

bool JitEngine::ran_enough(const Key& key) {
  constexpr uint32_t runs_mask = (1u << kRunsBits) - 1;
  const uint64_t hash = BlockTable<Block>::hash(key);
  uint32_t& slot = (*runs_)[hash % kRunsSlots];
  const uint32_t tag = static_cast<uint32_t>(hash >> 32) & ~runs_mask;
  if ((slot & ~runs_mask) != tag) slot = tag;
  if ((slot & runs_mask) >= std::min<uint32_t>(opt_.jit_threshold, runs_mask)) return true;
  slot++;
  return false;
}

JitEngine::Block* JitEngine::block_for(Hart& h, unsigned max_insns, bool* interpret) {
  uint64_t pa;
  if (!h.env->fetch_address(h, h.pc, pa)) {
    trigger::fire_execute(h, 0);  // an execute trigger of any size takes priority over the fault
    return nullptr;
  }
  // A trace unit's decisions from the pc (runtime/ete_trace.h) are the view's.
  const Key key{h.pc, pa, mode_key(h), max_insns, h.retire_observer ? h.retire_observer->view(h.pc) : 0};
  // Translations an execute trigger shaped are for one configuration (trigger::State::exec_epoch):
  // another one drops them all.
  if (key.mode & uint64_t(trigger::kKeyExecute) << kTriggerKeyShift && h.csr.triggers.exec_epoch != exec_epoch_) {
    if (exec_epoch_) flush_all(h);
    exec_epoch_ = h.csr.triggers.exec_epoch;
  }
  // Views of another epoch may be equal to these and mean other configurations (TraceViews in
  // runtime/ete_trace.h): those translations and their lookup tables go.
  if (key.view && h.retire_observer->view_epoch() != view_epoch_) {
    if (view_epoch_) {
      flush_all(h);
      std::erase_if(lookups_, [](const auto& t) { return std::get<2>(t.first) != 0; });
    }
    view_epoch_ = h.retire_observer->view_epoch();
  }
  stats_.dispatches++;
  Recent& r = (*recent_)[x64::lookup_index(h.pc, true)];
  if (r.block && r.key == key) return r.block;
  stats_.table_lookups++;
  if (Block* b = blocks_.find(key)) {
    r = {key, b};
    return b;
  }
  // Where a trace unit observes the hart, only in its view (a silent run's steps are alike: those of
  // one view) and while it does not trace: translated code's ring records are then the unit's
  // (docs/ete.md, "The engine rule"), and the unit's stream lost a branch's atom when the
  // interpreter retired that branch after such records (bare.ete_jit.autofdo, the last atom).
  if (interpret && runs_ && key.view == h.trace_view && !h.record_transfers && !ran_enough(key)) {
    stats_.interpreted++;
    *interpret = true;
    return nullptr;
  }

  auto b = std::make_unique<Block>();
  b->pa = pa;
  b->mode = key.mode;
  b->view = key.view;
  b->max_insns = max_insns;
  jit::PlanConfig plan_cfg = plan_config(h, max_insns);
  plan_cfg.view = key.view;
  // Planned into the scratch plan, whose vector keeps its capacity, and copied at its size.
  if (!jit::plan_block(h, plan_cfg, plan_)) return nullptr;
  b->bc.plan = plan_;
  x64::TranslateConfig cfg = config(h);
  cfg.loops = max_insns == 0;
  const bool hot_count = tiers_up(h, *b) && opt_.tier2_threshold;
  if (hot_count) {
    b->heat = opt_.tier2_threshold;
    cfg.hot_counter = &b->heat;
  }
  const x64::Trampolines& tramp = trampolines(b->bc.plan.cfg);
  try {
    x64::translate(arena_, emitter_, tramp, cfg, b->bc);
  } catch (const std::length_error&) {
    flush_all(h);
    x64::translate(arena_, emitter_, tramp, cfg, b->bc);
  }
  b->entry = b->bc.code;
  Block* raw = b.get();
  all_.push_back(std::move(b));
  blocks_.insert(raw);
  r = {key, raw};
  by_code_.push_back(raw);
  // A block lies in one page, except when its only instruction straddles into the next. Counted in pages,
  // as va wraps past the last page of the address space.
  const uint64_t pages = (raw->bc.plan.end_pc - page_of(raw->bc.plan.pc) + kPage - 1) / kPage;
  for (uint64_t n = 0, va = page_of(raw->bc.plan.pc); n < pages; ++n, va += kPage) {
    uint64_t page = page_of(pa);
    if (va != page_of(raw->bc.plan.pc) && h.env->fetch_address(h, va, page)) page = page_of(page);
    auto [it, first] = by_page_.try_emplace(page);
    if (first) h.env->watch_code(page);
    it->second.push_back(raw);
  }
  stats_.blocks++;
  // Watching may have let another thread's exclusive section drop it (a store to its first page).
  if (!raw->valid || ((h.mem_limit || opt_.concurrent_harts) && !still_in_memory(h, raw->bc.plan))) {
    drop(raw);
    return block_for(h, max_insns);  // made again from what memory holds now, which is watched
  }
  if (perf_map_)
    fmt::print(perf_map_, "{:x} {:x} guest_{:x}_{}\n", reinterpret_cast<uintptr_t>(raw->bc.code), raw->bc.size,
               raw->bc.plan.pc, raw->bc.plan.insns.size());
  if (tiers_up(h, *raw) && !hot_count) tier_up(raw);  // a threshold of 0
  return raw;
}

bool JitEngine::still_in_memory(Hart& h, const jit::BlockPlan& plan) const {
  for (const jit::PlanInsn& p : plan.insns) {
    uint16_t lo = 0, hi = 0;
    if (!h.env->fetch16(h, p.pc, lo) || (p.insn.len == 4 && !h.env->fetch16(h, p.pc + 2, hi))) return false;
    if ((p.insn.len == 4 ? uint32_t(hi) << 16 | lo : lo) != p.insn.raw) return false;
  }
  return true;
}

JitEngine::LookupTable& JitEngine::lookup_for(Hart& h, uint64_t mode, uint64_t view) {
  auto& t = lookups_[{&h, mode, view}];
  if (!t) {
    // Zero slots are empty for every pc but 0, whose slot is the first.
    static_assert(x64::lookup_index(0, true) == 0 && x64::lookup_index(0, false) == 0);
    t = make_zeroed<LookupTable>(&tables_);
    t->entries[0] = {};
    t->by_page = !h.mem_limit;  // system mode (x64::TranslateConfig::flat_limit)
  }
  return *t;
}

void JitEngine::flush_lookup(Hart& h, uint64_t va) {
  for (auto& [key, table] : lookups_) {
    if (std::get<0>(key) != &h) continue;
    if (va == HartEnv::kFlushAll || !table->by_page) {
      table->clear();
    } else {
      const unsigned group = x64::lookup_index(va & ~(kPage - 1), true) / LookupTable::kGroupSlots;
      if (table->groups >> group & 1) table->clear_group(group);
    }
  }
}

void JitEngine::link(Block* from, unsigned exit, Block* to) {
  patch_jump(from->bc.code + from->bc.exits[exit].jmp_off, to->entry);
  to->incoming.emplace_back(from, exit);
  stats_.links++;
}

void JitEngine::drop(Block* b) {
  if (!b->valid) return;
  b->valid = false;
  blocks_.erase(b);
  if (Recent& r = (*recent_)[x64::lookup_index(b->bc.plan.pc, true)]; r.block == b) r = Recent{};
  // Its region, queued or entered: the code of an entered one may be running (a store in it dropped
  // its block), so it is freed once it has returned.
  if (b->region && !compiling_.erase(b->region) && b->entry != b->bc.code) dead_regions_.push_back(b->region);
  // Whoever jumps here directly goes back to its unlinked stub, and so to the exec loop.
  for (auto [src, exit] : b->incoming)
    if (src->valid) patch_jump(src->bc.code + src->bc.exits[exit].jmp_off, src->bc.code + src->bc.exits[exit].stub_off);
  b->incoming.clear();
  for (auto& [key, table] : lookups_) {
    auto& e = table->at(b->bc.plan.pc);
    if (e.code == b->entry) e = {};
  }
  stats_.invalidated++;
}

void JitEngine::invalidate(Hart& h, uint64_t start, uint64_t end) {
  for (uint64_t p = page_of(start); p < end; p += kPage) {
    auto it = by_page_.find(p);
    if (it == by_page_.end()) continue;
    for (Block* b : it->second) {
      if (h.pc - b->bc.plan.pc < b->bc.plan.end_pc - b->bc.plan.pc) h.code_written = true;
      drop(b);
    }
    by_page_.erase(it);
    h.env->unwatch_code(p);
  }
}

void JitEngine::flush_all(Hart& h) {
  // Unwatched once all is gone: in user mode unwatching may let another thread drop this engine's
  // blocks of the page (runtime/linux_threads.cpp), which must find nothing left to walk.
  std::vector<uint64_t> pages;
  for (auto& [page, blocks] : by_page_) pages.push_back(page);
  by_page_.clear();
  blocks_.clear();
  recent_->fill({});
  by_code_.clear();
  all_.clear();
  for (auto& [key, table] : lookups_) table->clear();
  arena_.reset_to(arena_start_);
  // No code names a site now, and only h's ring records may (the others synced when their run
  // ended): so the site table, which would otherwise grow with every new site a guest makes, starts
  // again, bounded by what fits in the code cache.
  ctr::sync_ring(h);
  ctr_sites_.clear();
  // No code jumps to a region now, and none runs (the exec loop flushes).
  if (tier2_) {
    for (const Region& r : regions_) tier2_->release(r.id);
    for (uint64_t id : dead_regions_) tier2_->release(id);
  }
  regions_.clear();
  dead_regions_.clear();
  compiling_.clear();
  stats_.flushes++;
  for (uint64_t page : pages) h.env->unwatch_code(page);
}

JitEngine::Block* JitEngine::block_at_host(const void* p) const {
  auto* c = static_cast<const uint8_t*>(p);
  auto it = std::upper_bound(by_code_.begin(), by_code_.end(), c,
                             [](const uint8_t* c, const Block* b) { return c < b->bc.code; });
  if (it == by_code_.begin()) return nullptr;
  Block* b = *std::prev(it);
  return b->valid && c < b->bc.code + b->bc.size ? b : nullptr;
}

std::pair<JitEngine::Block*, const x64::FaultSite*> JitEngine::fault_site_at(const void* host) const {
  const auto* p = static_cast<const uint8_t*>(host);
  Block* b = arena_.contains(p) ? block_at_host(p) : nullptr;
  if (!b) return {nullptr, nullptr};
  const uint32_t off = static_cast<uint32_t>(p - b->bc.code);
  for (const auto& f : b->bc.faults)
    if (f.host_off == off) return {b, &f};
  return {b, nullptr};
}

bool JitEngine::on_code_write(Hart& h, uint64_t va, ucontext_t& ctx) {
  if (by_page_.find(page_of(va)) == by_page_.end()) {
    if (!h.env->watches_code(page_of(va))) return false;
    h.env->unwatch_code(page_of(va));  // another thread's code: its engine drops it
    return true;
  }
  // A store its helper runs has synced h.pc; an inline one (user mode: it faulted on the
  // write-protected page) is found by the host pc, and h.pc becomes its pc.
  auto& rip = ctx.uc_mcontext.gregs[REG_RIP];
  auto [b, site] = fault_site_at(reinterpret_cast<const void*>(rip));
  if (site) h.pc = b->bc.plan.insns[site->index].pc;
  invalidate(h, page_of(va), page_of(va) + kPage);
  // The store overwrote its own block: as QEMU does, run it alone (its slow path, through the
  // helper, from the same host state) and leave the block right after it.
  if (site && site->slow_off && h.code_written) rip = reinterpret_cast<greg_t>(b->bc.code + site->slow_off);
  return true;
}

bool JitEngine::recover(Hart& h, const ucontext_t& ctx) {
  auto [b, f] = fault_site_at(reinterpret_cast<const void*>(ctx.uc_mcontext.gregs[REG_RIP]));
  if (!f) return false;
  h.pc = b->bc.plan.insns[f->index].pc;
  auto greg = [&](unsigned id) { return static_cast<uint64_t>(ctx.uc_mcontext.gregs[kGregOfId[id]]); };
  h.instret = static_cast<uint64_t>(ctx.uc_mcontext.gregs[REG_R15]) + f->pending;
  // The flags inline FP operations left in MXCSR (jit/x64/translator.cpp, fold_fp_flags): the
  // signal handler runs with MXCSR reset.
  if (ctx.uc_mcontext.fpregs) h.fflags |= kMxcsrToFflags[ctx.uc_mcontext.fpregs->mxcsr & 0x3f];
  // The f registers that were only in xmm copies (jit/x64/translator.cpp, fstore).
  if (f->fcopies && ctx.uc_mcontext.fpregs) {
    const x64::FCopies& c = b->bc.fcopies[f->fcopies - 1];
    uint64_t xmm = c.xmm;
    for (uint32_t m = c.dirty; m; m &= m - 1, xmm >>= 4)
      std::memcpy(&h.f[std::countr_zero(m)], &ctx.uc_mcontext.fpregs->_xmm[xmm & 15], sizeof h.f[0]);
  }
  const x64::HostRegs regs = host_regs(b->bc.plan.cfg);
  for (unsigned i = 0; i < regs.mapped; i++) h.x[regs.order[i]] = greg(x64::mapped_host_id(i));
  if (regs.history) h.csr.pmu.predictor.history = static_cast<uint16_t>(greg(x64::gshare_history_host_id()));
  if (regs.misses())
    h.csr.pmu.events[static_cast<unsigned>(h.priv)][pmu::kBranchMisses] += greg(x64::branch_misses_host_id());
  if (regs.ctr == x64::CtrRecording::None) return true;
  if (regs.ctr == x64::CtrRecording::Ring) {
    h.ctr_ring.next = greg(x64::ctr_cursor_host_id());
  } else {
    h.csr.ctr.wrptr_off = greg(x64::ctr_cursor_host_id());
    h.csr.ctr.cycle_base = -greg(x64::ctr_neg_cycle_base_host_id());
  }
  return true;
}

uint32_t JitEngine::run_unchained(Hart& h, unsigned n) {
  Block* b = block_for(h, n);
  if (!b) return x64::kExitTrap;
  load_host_flags(h);
  // A table nobody fills: indirect exits always come back here.
  static LookupTable empty{};
  h.jit_lookup = empty.entries.data();
  h.code_written = false;
  h.ctr_ring.sites = &ctr_sites_;
  GuestCode guest;
  return trampolines(b->bc.plan.cfg).enter(&h, b->bc.code);
}

const x64::BlockCode* JitEngine::block(Hart& h) {
  Block* b = block_for(h);
  if (b && samples_.due) sample(b->bc.plan);
  return b ? &b->bc : nullptr;
}

bool JitEngine::step_past_deadline(Hart& h, TrapHandler& traps) {
  Status st = Status::Jump;  // none interpreted: h.pc is where a block begins
  while (!h.deadline_reached()) {
    st = interp_.step(h);
    if (st == Status::Exit) return false;
    if (st == Status::Trap && !traps.on_trap(h)) return false;
  }
  if (st != Status::Next) return true;
  // Inside a block: after on_budget, on to the first taken transfer (at most a block's length), so
  // that the exec loop goes on where blocks begin, not at a new block at each pc a deadline falls
  // on (brisk record's samples and windows: docs/architecture.md, "Deadlines").
  const uint64_t pc = h.pc;
  if (!traps.on_budget(h)) return false;
  if (h.pc != pc) return true;  // a trap or a signal handler: where a block begins
  for (unsigned n = 0; n < jit::PlanConfig{}.max_insns && !h.deadline_reached(); n++) {
    st = interp_.step(h);
    if (st == Status::Exit) return false;
    if (st == Status::Trap) return traps.on_trap(h);
    if (st == Status::Jump) break;
  }
  return true;
}

bool JitEngine::interpret_block(Hart& h, TrapHandler& traps) {
  for (unsigned n = 0; n < jit::PlanConfig{}.max_insns; n++) {
    if (h.deadline_reached()) return true;  // the exec loop delivers it, and goes on from h.pc
    const Status st = interp_.step(h);
    if (st == Status::Exit) return false;
    if (st == Status::Trap) return traps.on_trap(h);
    if (st == Status::Jump) break;
  }
  return true;
}

uint32_t JitEngine::enter(Hart& h) {
  if (tier2_on_ && !tier2_) start_tier2();
  if (tier2_ || loading_) running_.store(&h, std::memory_order_release);
  if (tier2_) install_regions();
  bool interpret = false;
  Block* b = block_for(h, 0, &interpret);
  if (interpret) return kExitInterpret;
  if (!b) return x64::kExitTrap;
  if (samples_.due) sample(b->bc.plan);
  // A block of another view than the hart's: the exec loop first (the trace unit's next silent run).
  if (b->view != h.trace_view) {
    h.request_exit();
    return x64::kExitDispatch;
  }
  LookupTable& lookup = lookup_for(h, b->mode, b->view);
  lookup.set(h.pc, b->entry);
  h.jit_lookup = lookup.entries.data();
  h.code_written = false;  // whatever set it outside translated code has no store to follow
  h.ctr_ring.sites = &ctr_sites_;  // the sites of the records it makes
  uint64_t before = h.instret;
  uint32_t exit;
  for (;;) {
    exit = [&] {
      GuestCode guest;
      return trampolines(b->bc.plan.cfg).enter(&h, b->entry);
    }();
    if (exit == x64::kExitRegionStep) {
      // Region code left before an access its inline path cannot make: the interpreter makes it (a
      // trap, say), and translated code goes on after it, so that the run leaves translated code at
      // the boundaries of the baseline's blocks (the checker's).
      const Status st = interp_.step(h);
      if (st == Status::Trap || st == Status::Exit) {
        exit = st == Status::Trap ? x64::kExitTrap : x64::kExitStop;
        break;
      }
      b = block_for(h);
      if (!b) return x64::kExitTrap;
      continue;
    }
    if (exit != x64::kExitHot) break;
    // A block reached the threshold where translated code left, before it started: queued, it goes
    // on in the baseline meanwhile. A program whose loops run chained comes back only here: the
    // compiler is loaded here too once the run is long enough.
    b = block_for(h);
    if (!b) return x64::kExitTrap;
    tier_up(b);
    if (!tier2_) {
      stats_.translated_insns += h.instret - before;
      before = h.instret;
      start_tier2();
      if (tier2_ || loading_) running_.store(&h, std::memory_order_release);
    }
  }
  stats_.translated_insns += h.instret - before;
  if (exit == x64::kExitLink) {
    Block* to = block_for(h);  // first: translating may flush, and `from` with it
    // The fetch faulted: that trap now, not a second fetch (and a second TLB miss counted).
    if (!to) return x64::kExitTrap;
    Block* from = block_at_host(reinterpret_cast<const void*>(h.jit_exit_site));
    // System mode links only within a page: another page's mapping may change under the link (the
    // stubs of exits to another page dispatch instead, so as not to look `from` up for nothing).
    if (from && from->mode == to->mode && from->view == to->view && (h.mem_limit || page_of(from->bc.plan.pc) == page_of(to->bc.plan.pc))) {
      for (unsigned e = 0; e < from->bc.exits.size(); e++)
        if (from->bc.code + from->bc.exits[e].jmp_off == reinterpret_cast<uint8_t*>(h.jit_exit_site))
          link(from, e, to);
    }
  }
  return exit;
}

bool JitEngine::tiers_up(const Hart& h, const Block& b) const {
  // User mode only (flat memory): system mode's MMU and inline TLB are not in region code yet.
  // Shortened blocks (the lockstep checker's) are other translations, never entered through links.
  return tier2_on_ && h.mem_limit && b.max_insns == 0 && b.bc.plan.cfg.tiers_up();
}

void JitEngine::tier_up(Block* b) {
  if (!tier2_on_ || b->region) return;
  b->region = ++last_region_;
  compiling_[b->region] = b;
  if (tier2_) tier2_->submit(b->region, region_of(b));
}

std::vector<jit::BlockPlan> JitEngine::region_of(const Block* b) const {
  // Members lie in b's page, so that a store there (JitEngine::invalidate) drops them all with b,
  // whose entry is the region's; hot: entered a quarter of the threshold's times.
  constexpr size_t kRegionBlocks = 8;
  const uint64_t page = page_of(b->bc.plan.pc), t = opt_.tier2_threshold;
  std::vector<const Block*> members{b};
  auto consider = [&](uint64_t pc) {
    if (members.size() == kRegionBlocks || page_of(pc) != page) return;
    const Block* m = blocks_.find(Key{pc, page_of(b->pa) + (pc - page), b->mode, 0, b->view});
    if (!m) return;
    const uint64_t entered = m->heat <= t ? t - m->heat : t;
    if (!m->valid || !m->bc.plan.cfg.tiers_up() || page_of(m->bc.plan.end_pc - 1) != page || entered * 4 < t ||
        std::find(members.begin(), members.end(), m) != members.end())
      return;
    members.push_back(m);
  };
  for (size_t k = 0; k < members.size(); k++) {
    const jit::BlockPlan& p = members[k]->bc.plan;
    for (const jit::PlanInsn& i : p.insns) {
      if (i.exit == jit::Exit::Side || i.exit == jit::Exit::Branch || i.exit == jit::Exit::Direct) consider(i.target);
      if (i.exit == jit::Exit::Branch) consider(i.pc + i.insn.len);
    }
    if (const jit::Exit last = p.insns.back().exit; last == jit::Exit::None || last == jit::Exit::Side) consider(p.end_pc);
  }
  std::vector<jit::BlockPlan> plans;
  for (const Block* m : members) plans.push_back(m->bc.plan);
  return plans;
}

void JitEngine::start_tier2() {
  if (loading_) {
    if (!loading_->done.load(std::memory_order_acquire)) return;
    std::unique_ptr<Tier2Load> l(std::exchange(loading_, nullptr));
    return loaded_tier2(std::move(l->compiler), l->error);
  }
  // Loading LLVM and its first compilation cost about 0.1 s of CPU: a short program (busybox echo
  // and `xz --version` retire about half a million instructions) ends before that would pay, though
  // some of its blocks get hot.
  constexpr uint64_t kLoadAfter = 1'000'000;  // instructions retired in translated code
  if (compiling_.empty() || (opt_.tier2_threshold && stats_.translated_insns < kLoadAfter)) return;
  if (!opt_.tier2_threshold) {
    // Every block at once (the tests' setting): the run waits for LLVM, so that even its first
    // blocks are compiled. Loading runs libLLVM's initializers on this thread, whose MXCSR holds the
    // guest's accrued flags (runtime/fp.h): they must come out as they went in.
    std::string error;
    const unsigned mxcsr = _mm_getcsr();
    std::unique_ptr<tier2::Compiler> c = tier2::Compiler::load(tier2_options(), error);
    _mm_setcsr(mxcsr);
    return loaded_tier2(std::move(c), error);
  }
  // Otherwise the hart runs on while a thread of its own loads LLVM (about 0.1 s), and the exec
  // loop takes the compiler when it is there. At the hart's priority, as when the hart loaded it.
  loading_ = new Tier2Load;
  quiet_thread([l = loading_, o = tier2_options()] {
    // All of it under work_lock, which a guest's fork waits for: dlopen, LLVM's initializers and
    // malloc must not be half-way when a raw clone copies the process (jit/llvm/region.h).
    std::lock_guard busy(tier2::work_lock());
    std::string error;
    std::unique_ptr<tier2::Compiler> c = tier2::Compiler::load(o, error);
    std::unique_lock lock(l->mu);
    if (l->abandoned) {
      lock.unlock();
      delete l;
      return;
    }
    l->compiler = std::move(c);
    l->error = std::move(error);
    l->done.store(true, std::memory_order_release);
    // A loop running chained comes back to the exec loop, which takes the compiler.
    if (o.on_done) o.on_done();
  }, 0).detach();
}

uint32_t JitEngine::run_region(Hart* h, const void* region) {
  const auto& r = *static_cast<const Region*>(region);
  const uint64_t before = h->instret;
  const uint32_t exit = r.fn(h);
  *r.retired += h->instret - before;
  return exit;
}

void JitEngine::install_regions() {
  for (uint64_t id : dead_regions_) tier2_->release(id);
  dead_regions_.clear();
  if (!tier2_->has_done()) return;
  for (tier2::Compiled& c : tier2_->take_done()) {
    stats_.compile_ns += c.nanoseconds;
    auto it = compiling_.find(c.id);
    Block* b = it == compiling_.end() ? nullptr : it->second;
    if (b) compiling_.erase(it);
    if (!c.fn) {
      // Its block keeps its baseline code (and its region id, so it is not queued again).
      stats_.region_failures++;
      static std::atomic<bool> said{false};
      if (!said.exchange(true))
        diag_print("brisk: tier 2: LLVM could not compile a region; its code stays in the baseline tier: {}\n",
                   c.error);
      continue;
    }
    if (!b) {  // dropped while it compiled
      tier2_->release(c.id);
      continue;
    }
    const jit::PlanConfig& plan_cfg = b->bc.plan.cfg;
    Region& r = regions_.emplace_back(Region{c.fn, &stats_.tier2_insns, c.id});
    uint8_t* stub;
    try {
      stub = x64::emit_region_entry(arena_, emitter_, trampolines(plan_cfg), host_regs(plan_cfg), run_region, &r);
    } catch (const std::length_error&) {  // the next translation flushes the cache
      regions_.pop_back();
      tier2_->release(c.id);
      continue;
    }
    stats_.regions++;
    if (perf_map_ && c.size)
      fmt::print(perf_map_, "{:x} {:x} tier2_{:x}\n", reinterpret_cast<uintptr_t>(c.fn), c.size, b->bc.plan.pc);
    // Published on this thread, outside translated code: whatever entered the block enters the region.
    b->entry = stub;
    for (auto [src, exit] : b->incoming)
      if (src->valid) patch_jump(src->bc.code + src->bc.exits[exit].jmp_off, stub);
    for (auto& [key, table] : lookups_) {
      auto& e = table->at(b->bc.plan.pc);
      if (e.code == b->bc.code) e.code = stub;
    }
  }
}

void JitEngine::run(Hart& h, TrapHandler& traps) {
  // Ring records name this engine's sites: into the buffer before the engine may go.
  struct SyncRing {
    Hart& h;
    ~SyncRing() { ctr::sync_ring(h); }
  } sync_ring{h};
  HostFaultScope scope(h, this);
  load_host_flags(h);  // MXCSR's flags are this hart's from here on (another hart may have run before)
  // A guest fault in translated code or a helper lands here with the state recovered.
  if (sigsetjmp(scope.resume, 0) && !traps.on_trap(h)) return;
  for (;;) {
    if (h.deadline_reached() && !traps.on_budget(h)) return;
    adapt(h);
    switch (enter(h)) {
      case x64::kExitDispatch:
      case x64::kExitLink:
        break;
      case kExitInterpret:
        if (!interpret_block(h, traps)) return;
        break;
      case x64::kExitDeadline:
        // Translated code goes on with the block that did not start, instead of interpreting up to
        // the deadline (and translating the rest of the block after it).
        if (sampled_at_deadline(h)) break;
        if (!step_past_deadline(h, traps)) return;
        break;
      case x64::kExitTrap:
        if (!traps.on_trap(h)) return;
        break;
      default:  // kExitStop
        return;
    }
  }
}

}  // namespace brisk
