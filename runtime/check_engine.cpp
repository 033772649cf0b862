#include "runtime/check_engine.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "jit/block_plan.h"
#include "runtime/error.h"
#include "runtime/fp.h"
#include "runtime/host_fault.h"

namespace brisk {

// The interpreter's memory during a check: every access takes this slow path. Writes to RAM are
// logged, so that they can be undone before translated code runs the same instructions on the same
// memory and then compared; a device access stops the interpreter before it.
class CheckMemory final : public HartEnv {
 public:
  explicit CheckMemory(HostFaultHooks* hooks) : hooks_(hooks) {}

  // Starts a check of `real`, whose environment makes the accesses.
  void begin(const Hart& real) {
    base_ = real.mem_base;
    limit_ = real.mem_limit;
    inner_ = real.env;
    writes_.clear();
    settled_ = 0;
    at_device_ = false;
  }
  // The interpreter stopped before a device access.
  bool at_device() const { return at_device_; }

  bool load(Hart& h, uint64_t va, void* out, unsigned size) override {
    if (va < limit_) {
      std::memcpy(out, base_ + va, size);  // a host fault here is the guest's
      return true;
    }
    uint8_t* host;
    if (inner_->probe(h, va, size, false, host) == Target::Device) return stop_at_device();
    return inner_->load(h, va, out, size);
  }
  bool store(Hart& h, uint64_t va, const void* in, unsigned size) override {
    settle();
    if (va < limit_) {
      uint64_t before;
      if (!read_for_store(h, va, size, before)) return false;
      std::memcpy(base_ + va, in, size);  // a host fault here (a read-only page) is the guest's
      log(base_ + va, va, size, before);
    } else {
      uint8_t* host;
      switch (inner_->probe(h, va, size, true, host)) {
        case Target::Device: return stop_at_device();
        case Target::Fault: return inner_->store(h, va, in, size);  // raises the fault, writes nothing
        case Target::Ram: break;
      }
      const size_t first = writes_.size();
      if (host) {
        log(host, va, size, read(host, size));
      } else {  // across a page: byte by byte, as the access itself
        for (unsigned k = 0; k < size; k++) {
          inner_->probe(h, va + k, 1, true, host);
          log(host, va + k, 1, *host);
        }
      }
      if (!inner_->store(h, va, in, size)) {
        writes_.resize(first);
        return false;
      }
    }
    settle();
    return true;
  }
  void* amo(Hart& h, uint64_t va, unsigned size) override {
    // AMOs are aligned: what they overwrite is read with a write access (a locked add of 0), so that
    // a fault is the AMO's own. What they write is settled at the next write or boundary.
    // (cbo.zero asks for a whole cache block: logged 8 bytes at a time.)
    auto log_all = [&](uint8_t* host, bool locked) {
      for (unsigned k = 0; k < size; k += 8) {
        const unsigned n = std::min(size - k, 8u);
        log(host + k, va + k, n, locked ? locked_read(host + k, n) : read(host + k, n));
      }
    };
    settle();
    if (va < limit_) {
      log_all(base_ + va, true);
      return base_ + va;
    }
    uint8_t* host;
    if (inner_->probe(h, va, size, true, host) == Target::Ram && host) log_all(host, false);
    return inner_->amo(h, va, size);
  }
  Target probe(Hart& h, uint64_t va, unsigned size, bool write, uint8_t*& host) override {
    return inner_->probe(h, va, size, write, host);
  }
  bool fetch16(Hart& h, uint64_t va, uint16_t& out) override { return inner_->fetch16(h, va, out); }
  bool fetch_address(Hart& h, uint64_t va, uint64_t& pa) override { return inner_->fetch_address(h, va, pa); }
  void flush_tlb(Hart& h, uint64_t va) override { inner_->flush_tlb(h, va); }
  // The machine's timers follow the real hart: translated code's pass writes stimecmp too.
  void timer_changed(Hart&) override {}
  void watch_code(uint64_t page) override { inner_->watch_code(page); }
  void unwatch_code(uint64_t page) override { inner_->unwatch_code(page); }

  // Flips a byte the last of the first n writes left (BRISK_CHECK_SELFTEST=mem:N); false if n is 0.
  bool corrupt(size_t n) {
    if (n == 0) return false;
    writes_[n - 1].host[0] ^= 1;
    return true;
  }

  // The number of writes so far, each with the value it left.
  size_t mark() {
    settle();
    return writes_.size();
  }
  // Puts memory back as it was before the interpreter's pass. The guest's writes, undone: a page
  // translated since (user mode: write-protected) faults into on_code_write like a guest store.
  void undo() {
    GuestCode guest;
    settle();
    for (auto it = writes_.rbegin(); it != writes_.rend(); ++it) std::memcpy(it->host, &it->before, it->size);
  }
  // The first of the first n writes whose value memory does not hold now, unless a later one of
  // them wrote the same bytes; "" when there is none.
  std::string compare(size_t n) const {
    for (size_t i = n; i-- > 0;) {
      const Write& w = writes_[i];
      const uint64_t now = read(w.host, w.size);
      for (unsigned k = 0; k < w.size; k++) {
        if (uint8_t(now >> 8 * k) == uint8_t(w.after >> 8 * k)) continue;
        const uint8_t* byte = w.host + k;
        if (std::none_of(writes_.begin() + static_cast<ptrdiff_t>(i) + 1, writes_.begin() + static_cast<ptrdiff_t>(n),
                         [&](const Write& later) { return byte >= later.host && byte < later.host + later.size; }))
          return fmt::format("memory at {:#x} ({} bytes): interpreter {:#x}, jit {:#x}", w.va, w.size, w.after, now);
      }
    }
    return {};
  }

 private:
  struct Write {
    uint8_t* host;
    uint64_t va;
    unsigned size;
    uint64_t before, after;
  };

  static uint64_t read(const uint8_t* p, unsigned size) {
    uint64_t v = 0;
    std::memcpy(&v, p, size);
    return v;
  }
  static uint64_t locked_read(uint8_t* p, unsigned size) {
    switch (size) {
      case 1: return read_as_write(p);
      case 2: return read_as_write(reinterpret_cast<uint16_t*>(p));
      case 4: return read_as_write(reinterpret_cast<uint32_t*>(p));
      default: return read_as_write(reinterpret_cast<uint64_t*>(p));
    }
  }
  // Reads the flat memory a store is about to overwrite. Where that read faults the store would too,
  // at the same address: the fault is raised as the store's.
  bool read_for_store(Hart& h, uint64_t va, unsigned size, uint64_t& out) {
    HostFaultScope scope(h, hooks_, limit_);
    GuestCode guest;  // returning, it gives back the caller's mark, which a fault clears
    if (sigsetjmp(scope.resume, 0)) {
      h.trap.cause = h.trap.cause == cause::kLoadAccessFault ? cause::kStoreAmoAccessFault : cause::kStoreAmoPageFault;
      return false;
    }
    out = read(base_ + va, size);
    return true;
  }
  bool stop_at_device() {
    at_device_ = true;
    return false;
  }
  // Callers settle first: an AMO's writes are settled only after it (at the next access or mark).
  void log(uint8_t* host, uint64_t va, unsigned size, uint64_t before) { writes_.push_back({host, va, size, before, 0}); }
  void settle() {
    for (; settled_ < writes_.size(); settled_++) writes_[settled_].after = read(writes_[settled_].host, writes_[settled_].size);
  }

  HostFaultHooks* hooks_;
  uint8_t* base_ = nullptr;
  uint64_t limit_ = 0;
  HartEnv* inner_ = nullptr;
  std::vector<Write> writes_;
  size_t settled_ = 0;  // writes before this one have their `after`
  bool at_device_ = false;
};

namespace {

// Blocks one check follows at most: each boundary costs a snapshot of the hart.
constexpr size_t kMaxChain = 16;

// The first difference in the CSR state, or "" (r is the interpreter's, made equal where not
// compared). Not compared: the clock (the frozen one on both
// sides), the mip bits devices drive (devices see only the translated pass), and the software-TLB
// events, since only translated code looks in the TLB first.
// The CTR state (csr/ctr.h), field by field and physical entry by entry.
std::string compare_ctr(const ctr::State& a, const ctr::State& b) {
  const std::pair<const char*, uint64_t ctr::State::*> named[] = {
      {"mctrctl", &ctr::State::mctrctl},       {"vsctrctl", &ctr::State::vsctrctl},
      {"sctrdepth.DEPTH", &ctr::State::depth_code}, {"WRPTR byte offset", &ctr::State::wrptr_off},
      {"WRPTR mask", &ctr::State::wrptr_mask}, {"cycle counter base", &ctr::State::cycle_base}};
  for (auto [name, field] : named)
    if (a.*field != b.*field) return fmt::format("CTR {}: interpreter {:#x}, jit {:#x}", name, a.*field, b.*field);
  if (a.frozen != b.frozen || a.active != b.active)
    return fmt::format("CTR frozen and active: interpreter {} {}, jit {} {}", a.frozen, a.active, b.frozen, b.active);
  for (unsigned k = 0; k < ctr::kMaxDepth; k++) {
    const ctr::Entry &x = a.entries[k], &y = b.entries[k];
    if (x.source != y.source || x.target != y.target || x.type != y.type || x.cycles != y.cycles)
      return fmt::format("CTR physical entry {} (source, target, type, cycles): interpreter {:#x} {:#x} {} {:#x}, jit "
                         "{:#x} {:#x} {} {:#x}", k, x.source, x.target, x.type, x.cycles, y.source, y.target, y.type,
                         y.cycles);
  }
  return {};
}

std::string compare_csr(csr::State& r, const csr::State& jit) {
  r.clock = jit.clock;
  r.mip_hw = jit.mip_hw;
  r.triggers.observer = jit.triggers.observer;
  r.triggers.exec_epoch = jit.triggers.exec_epoch;  // a number each run of a tdata write takes
  for (unsigned m = 0; m < pmu::kModes; m++)
    for (unsigned e : {pmu::kTlbMisses, pmu::kPageWalks}) r.pmu.events[m][e] = jit.pmu.events[m][e];
  if (std::memcmp(&r, &jit, sizeof r) == 0) return {};
  const pmu::State &a = r.pmu, &b = jit.pmu;
  for (unsigned m = 0; m < pmu::kModes; m++)
    for (unsigned e = 0; e < pmu::kEventCount; e++)
      if (a.events[m][e] != b.events[m][e])
        return fmt::format("PMU event {:#x} count in privilege {}: interpreter {}, jit {}", e, m, a.events[m][e],
                           b.events[m][e]);
  if (a.predictor.history != b.predictor.history ||
      std::memcmp(a.predictor.counter, b.predictor.counter, sizeof a.predictor.counter) != 0)
    return fmt::format("gshare branch predictor: interpreter history {:#x}, jit history {:#x}", a.predictor.history,
                       b.predictor.history);
  if (std::string c = compare_ctr(r.ctr, jit.ctr); !c.empty()) return c;
  for (unsigned i = 0; i < pmu::kNumCounters; i++)
    if (a.base[i] != b.base[i] || a.snap[i] != b.snap[i] || a.last[i] != b.last[i] || a.config[i] != b.config[i])
      return fmt::format("PMU counter {} (base, snapshot, last, config): interpreter {:#x} {:#x} {:#x} {:#x}, jit {:#x} "
                         "{:#x} {:#x} {:#x}", i, a.base[i], a.snap[i], a.last[i], a.config[i], b.base[i], b.snap[i],
                         b.last[i], b.config[i]);
  const std::pair<const char*, uint64_t csr::State::*> named[] = {
      {"mstatus", &csr::State::mstatus}, {"mip", &csr::State::mip},       {"mepc", &csr::State::mepc},
      {"mcause", &csr::State::mcause},   {"mtval", &csr::State::mtval},   {"sepc", &csr::State::sepc},
      {"scause", &csr::State::scause},   {"stval", &csr::State::stval},   {"satp", &csr::State::satp},
      {"stimecmp", &csr::State::stimecmp}};
  for (auto [name, field] : named)
    if (r.*field != jit.*field) return fmt::format("{}: interpreter {:#x}, jit {:#x}", name, r.*field, jit.*field);
  for (unsigned n = 0; n < trigger::kCount; n++)
    if (r.triggers.t[n].tdata1 != jit.triggers.t[n].tdata1)
      return fmt::format("tdata1 of trigger {}: interpreter {:#x}, jit {:#x}", n, r.triggers.t[n].tdata1,
                         jit.triggers.t[n].tdata1);
  const auto* p = reinterpret_cast<const uint8_t*>(&r);
  const auto* q = reinterpret_cast<const uint8_t*>(&jit);
  return fmt::format("CSR state at byte {} of csr::State", std::mismatch(p, p + sizeof r, q).first - p);
}

// The first architectural difference between the interpreter's state and translated code's, or "".
std::string compare(Hart& ref, Status ref_st, const Hart& jit, uint32_t jit_exit, const CheckMemory& mem,
                    size_t writes) {
  const bool ref_trap = ref_st == Status::Trap, jit_trap = jit_exit == x64::kExitTrap;
  if (ref_trap != jit_trap) return fmt::format("trap: interpreter {}, jit {}", ref_trap, jit_trap);
  if (ref_trap && (ref.trap.cause != jit.trap.cause || ref.trap.tval != jit.trap.tval))
    return fmt::format("trap: interpreter cause {} tval {:#x}, jit cause {} tval {:#x}", ref.trap.cause, ref.trap.tval,
                       jit.trap.cause, jit.trap.tval);
  const bool ref_stop = ref_st == Status::Exit, jit_stop = jit_exit == x64::kExitStop;
  if (ref_stop != jit_stop) return fmt::format("stop: interpreter {}, jit {}", ref_stop, jit_stop);
  if (ref.pc != jit.pc) return fmt::format("pc: interpreter {:#x}, jit {:#x}", ref.pc, jit.pc);
  if (ref.instret != jit.instret) return fmt::format("instret: interpreter {}, jit {}", ref.instret, jit.instret);
  // x and f are adjacent: one memcmp finds out whether to look closer.
  static_assert(offsetof(Hart, f) == offsetof(Hart, x) + sizeof(Hart::x));
  if (std::memcmp(ref.x, jit.x, sizeof ref.x + sizeof ref.f) != 0) {
    for (unsigned r = 0; r < 32; r++)
      if (ref.x[r] != jit.x[r]) return fmt::format("{}: interpreter {:#x}, jit {:#x}", x_register_name(r), ref.x[r], jit.x[r]);
    for (unsigned r = 0; r < 32; r++)
      if (ref.f[r] != jit.f[r]) return fmt::format("f{}: interpreter {:#x}, jit {:#x}", r, ref.f[r], jit.f[r]);
  }
  if (ref.fflags != jit.fflags || ref.frm != jit.frm)
    return fmt::format("fcsr: interpreter {:#x}, jit {:#x}", ref.frm << 5 | ref.fflags, jit.frm << 5 | jit.fflags);
  if (ref.reservation != jit.reservation)
    return fmt::format("reservation: interpreter {:#x}, jit {:#x}", ref.reservation, jit.reservation);
  if (ref.priv != jit.priv || ref.waiting != jit.waiting)
    return fmt::format("privilege and wfi: interpreter {} {}, jit {} {}", static_cast<unsigned>(ref.priv), ref.waiting,
                       static_cast<unsigned>(jit.priv), jit.waiting);
  if (std::string m = mem.compare(writes); !m.empty()) return m;
  return compare_csr(ref.csr, jit.csr);
}

// Whether translated code returns to the exec loop after the block ran `done` instructions with `st`:
// at a trap or stop, after a store that overwrote the block, or after a last instruction that runs out of line (a CSR access, a system
// instruction), where a branch or jump leaves by a chainable exit.
bool returns_to_loop(const x64::BlockCode& b, const Hart& ref, Status st, uint64_t done) {
  if (st == Status::Trap || st == Status::Exit || ref.code_written) return true;
  const Insn& last = b.plan.insns.back().insn;
  return done == b.plan.insns.size() && jit::ends_block(last) && !(last.flags() & (kBranch | kJump));
}

// The `time` both passes read: time moves between checks, never inside one.
struct FrozenClock final : Clock {
  const Clock* real;
  uint64_t at = 0;
  explicit FrozenClock(const Clock* c) : real(c) {}
  uint64_t now() const override { return at; }
  void set(uint64_t) override {}  // the `time` CSR is read-only; mtime is the CLINT's, reached by MMIO
};

// What BRISK_CHECK_SELFTEST=WHAT:N may corrupt, in CheckEngine::inject's order (a0 without WHAT).
constexpr std::string_view kInjectNames[] = {"a0",  "ctr", "pc",  "instret", "fcsr",   "reservation", "priv",     "mem",
                                             "csr", "pmu", "counter", "of", "gshare", "wrptr",       "ctrcycles"};

EngineOptions checked_jit_options(EngineOptions opt) {
  opt.deadlines = true;  // the checker bounds translated chains with Hart::deadline, in user mode too
  opt.jit_threshold = 0;  // it compares translated code: a block's first run too
  return opt;
}

}  // namespace

CheckEngine::CheckEngine(const EngineOptions& opt)
    : jit_(checked_jit_options(opt)), mem_(std::make_unique<CheckMemory>(this)) {
  if (const char* s = std::getenv("BRISK_CHECK_SELFTEST")) {
    const char* n = s;
    bool known = true;
    if (const char* colon = std::strchr(s, ':')) {
      const auto* it = std::find(std::begin(kInjectNames), std::end(kInjectNames), std::string_view(s, colon));
      known = it != std::end(kInjectNames);
      inject_what_ = static_cast<unsigned>(it - std::begin(kInjectNames));
      n = colon + 1;
    }
    char* end;
    inject_at_ = std::strtoull(n, &end, 10);
    if (!known || *n < '1' || *n > '9' || *end) {
      std::string names;
      for (std::string_view w : kInjectNames) names += fmt::format(" {}:", w);
      throw Error("BRISK_CHECK_SELFTEST must be a positive number, alone or after one of{}, not '{}'", names, s);
    }
  }
}

CheckEngine::~CheckEngine() = default;

std::string CheckEngine::summary() const {
  return fmt::format("{}; check: {} comparisons after {} blocks, {} device accesses done once", jit_.summary(),
                     stats_.checks, stats_.blocks, stats_.device);
}

void CheckEngine::invalidate(Hart& h, uint64_t start, uint64_t end) {
  code_changed_ = true;
  jit_.invalidate(h, start, end);
}

bool CheckEngine::on_code_write(Hart& h, uint64_t va, ucontext_t& ctx) {
  const bool hit = jit_.on_code_write(h, va, ctx);
  code_changed_ |= hit;
  return hit;
}

Status CheckEngine::interpret(const x64::BlockCode& b, unsigned n) {
  HostFaultScope scope(ref_, this, flat_limit_);
  GuestCode guest;
  if (sigsetjmp(scope.resume, 0)) return Status::Trap;
  Status st = Status::Next;
  // Translated code also leaves the block right after a store that overwrote it (Hart::code_written,
  // set by JitEngine::invalidate for the interpreter's stores as for its own).
  for (unsigned k = 0; k < n && st == Status::Next && !ref_.code_written; k++) st = interp_.execute(ref_, b.plan.insns[k].insn);
  return st;
}

void CheckEngine::mark(uint64_t block_pc, Status st) {
  boundaries_.push_back({block_pc, ref_.instret, st, mem_->mark(), false});
}

void CheckEngine::snapshot(size_t k, bool restore) {
  auto* hart = reinterpret_cast<uint8_t*>(&ref_);
  auto copy = [&](uint8_t* snap, size_t offset, size_t size) {
    restore ? std::memcpy(hart + offset, snap, size) : std::memcpy(snap, hart + offset, size);
  };
  if (k == 0) return copy(snapshots_.data(), 0, full_size_);
  uint8_t* snap = snapshots_.data() + full_size_ + (k - 1) * partial_size_;
  for (unsigned i = 0; i < partial_count_; i++) {
    copy(snap, partial_[i].offset, partial_[i].size);
    snap += partial_[i].size;
  }
}

void CheckEngine::save() {
  const size_t need = full_size_ + (boundaries_.size() - 1) * partial_size_;
  if (snapshots_.size() < need) snapshots_.resize(need);
  snapshot(boundaries_.size() - 1, false);
  boundaries_.back().saved = true;
}

uint32_t CheckEngine::translated(Hart& h, unsigned n) {
  HostFaultScope scope(h, this);
  if (sigsetjmp(scope.resume, 0)) return x64::kExitTrap;  // the fault, with the JIT's state recovered into h
  if (n) return jit_.run_unchained(h, n);
  load_host_flags(h);
  return jit_.enter(h);
}

void CheckEngine::verify(Hart& h, uint32_t exit) {
  // A host signal's request_exit stopped translated code before its first block: nothing ran, so
  // nothing to compare (the interpreter's first boundary has this instret too when its block is
  // one instruction that trapped, as an ecall).
  if (exit != x64::kExitTrap && h.deadline_reached() && h.pc == boundaries_.front().block_pc &&
      h.instret == entry_instret_)
    return;
  // The boundary at translated code's instret (a trap's, if it trapped and the interpreter did too).
  const Boundary* at = nullptr;
  for (const Boundary& b : boundaries_)
    if (b.instret == h.instret && (!at || (b.st == Status::Trap) == (exit == x64::kExitTrap))) at = &b;
  if (!at)
    throw Error("lockstep check failed in the chain from {:#x}: translated code stopped at pc {:#x} with instret {}, "
                "where the interpreter passed no block boundary", boundaries_.front().block_pc, h.pc, h.instret);
  const size_t k = static_cast<size_t>(at - boundaries_.data());
  ctr::sync_ring(h);
  if (at->saved) {
    if (k) snapshot(0, true);
    snapshot(k, true);
  }
  stats_.blocks += k + 1;
  if (++stats_.checks >= inject_at_ && inject_at_ && inject(h, at->writes)) inject_at_ = 0;
  const std::string diff = compare(ref_, at->st, h, exit, *mem_, at->writes);
  if (diff.empty()) return;
  if (k == 0) throw Error("lockstep check failed in the block at {:#x}: {}", at->block_pc, diff);
  throw Error("lockstep check failed in the block at {:#x} (block {} of a chain from {:#x}): {}", at->block_pc, k + 1,
              boundaries_.front().block_pc, diff);
}

bool CheckEngine::inject(Hart& h, size_t writes) {
  csr::State& c = h.csr;
  switch (inject_what_) {
    case 0: h.x[10] ^= 1; break;
    case 1: c.ctr.entries[(c.ctr.wrptr_off / sizeof(ctr::Entry) - 1) % ctr::kMaxDepth].target ^= 4; break;
    case 2: h.pc ^= 4; break;
    case 3: h.instret++; break;
    case 4: h.fflags ^= 1; break;
    case 5: h.reservation ^= 8; break;
    case 6: h.priv = static_cast<Priv>(static_cast<unsigned>(h.priv) ^ 1); break;
    case 7: return mem_->corrupt(writes);
    case 8: c.mscratch ^= 1; break;  // a CSR compare_csr does not name: found by its byte
    case 9: c.pmu.events[static_cast<unsigned>(h.priv)][pmu::kBranches]++; break;
    case 10: c.pmu.base[pmu::kFirstHpm]++; break;
    case 11: c.pmu.config[pmu::kFirstHpm] ^= pmu::EVENT_OF; break;
    case 12: c.pmu.predictor.history ^= 1; break;
    case 13: c.ctr.wrptr_off ^= sizeof(ctr::Entry); break;
    case 14: c.ctr.cycle_base++; break;
  }
  return true;
}

void CheckEngine::begin(const Hart& h) {
  if (ref_of_ != &h) {  // ref_'s TLBs are another hart's
    for (Tlb& t : ref_.tlb) t = Tlb{};
    ref_of_ = &h;
  }
  copy_state(ref_, h);
  mem_->begin(h);
  ref_.env = mem_.get();
  ref_.mem_limit = 0;  // every access through mem_
  ref_.code_written = false;
  ref_.csr.triggers.observer = {};  // the real hart reports its triggers' firings
  flat_limit_ = h.mem_limit;
  entry_instret_ = h.instret;
  code_changed_ = false;
  boundaries_.clear();
  // Blocks inside a chain end in no CSR access, system instruction or trap: past the first boundary
  // they change only the hot state, mstatus.FS (an FP helper marking it dirty), the event counts,
  // the branch predictor (when branch misses are counted or CTR records branches) and the CTR buffer
  // (when CTR records).
  full_size_ = offsetof(Hart, tlb);
  constexpr size_t kCsr = offsetof(Hart, csr), kPmu = kCsr + offsetof(csr::State, pmu);
  constexpr size_t kCtr = kCsr + offsetof(csr::State, ctr);
  const uint32_t rec = ctr::record_mask(h);
  constexpr uint32_t kBranchTypes = 1u << unsigned(TransferType::NotTakenBranch) | 1u << unsigned(TransferType::TakenBranch);
  partial_count_ = 0;
  auto part = [&](size_t offset, size_t size) { partial_[partial_count_++] = {offset, size}; };
  part(0, offsetof(Hart, trap));
  part(kCsr + offsetof(csr::State, mstatus), sizeof(uint64_t));
  part(kPmu + offsetof(pmu::State, events), offsetof(pmu::State, base) - offsetof(pmu::State, events));
  if ((pmu::active_events(h, static_cast<unsigned>(h.priv)) >> pmu::kBranchMisses) & 1 || (rec & kBranchTypes))
    part(kPmu + offsetof(pmu::State, predictor), sizeof(pmu::Gshare));
  if (rec) {
    part(kCtr + offsetof(ctr::State, wrptr_off), sizeof(uint64_t));
    part(kCtr + offsetof(ctr::State, cycle_base), sizeof(uint64_t));
    part(kCtr + offsetof(ctr::State, entries), sizeof ctr::State::entries);
  }
  partial_size_ = 0;
  for (unsigned i = 0; i < partial_count_; i++) partial_size_ += partial_[i].size;
}

uint32_t CheckEngine::check(Hart& h) {
  const x64::BlockCode* b = jit_.block(h);
  if (!b) return x64::kExitTrap;  // the block's first fetch faults: both engines agree by construction

  if (h.deadline_reached()) return x64::kExitDispatch;  // a host signal's request_exit since on_budget
  ctr::sync_ring(h);  // the interpreter's copy starts from the buffer
  begin(h);
  const uint64_t start = h.instret, deadline = h.deadline;
  const auto full = static_cast<unsigned>(b->plan.insns.size());
  // Translated code would not start a block that could pass the deadline: a shortened one runs up to it.
  const unsigned n = start + full > deadline ? static_cast<unsigned>(deadline - start) : full;
  Status st = interpret(*b, n);
  if (n < full || mem_->at_device()) {
    // On its own, up to the deadline or to the device access, which the interpreter then performs.
    const bool device = mem_->at_device();
    const auto done = device ? static_cast<unsigned>(ref_.instret - start) : n;
    mark(h.pc, device ? Status::Next : st);
    mem_->undo();
    if (done) {
      const uint32_t exit = translated(h, done);
      verify(h, exit);
      if (!device) return exit;
    }
    stats_.device++;
    st = interp_.step(h);
    return st == Status::Trap ? x64::kExitTrap : st == Status::Exit ? x64::kExitStop : x64::kExitDispatch;
  }
  mark(h.pc, st);

  // Follow the chain while translated code could: `next` is the length of the block the interpreter
  // did not go on into although translated code might have (0: unknown).
  bool stops = returns_to_loop(*b, ref_, st, ref_.instret - start);
  unsigned next = 0;
  while (!stops && !code_changed_) {
    const uint64_t pc = ref_.pc;
    save();  // first: planning may fire an execute trigger on ref_, setting its hit bits (csr/trigger.h)
    ref_.mem_limit = flat_limit_;  // the block's translation key is the real hart's
    b = jit_.block(ref_);
    ref_.mem_limit = 0;
    if (!b) {  // the fetch faults, or a trigger fires: translated code stops with that trap (JitEngine::enter)
      mark(pc, Status::Trap);
      stops = true;
      break;
    }
    const auto len = static_cast<unsigned>(b->plan.insns.size());
    if (boundaries_.size() >= kMaxChain || ref_.instret + len > ref_.deadline) {
      next = len;
      break;
    }
    const uint64_t entry = ref_.instret;
    st = interpret(*b, len);
    if (mem_->at_device()) {
      next = len;
      break;
    }
    mark(pc, st);
    stops = returns_to_loop(*b, ref_, st, ref_.instret - entry);
  }
  mem_->undo();

  // Translated code runs block by block while instret + block length <= deadline: stopped before a
  // block of length `next` that starts at the last boundary, or after it when that is unknown.
  const uint64_t last = boundaries_.back().instret;
  const uint64_t bound = stops ? deadline : std::min(deadline, last + (next ? next - 1 : 0));
  // A host signal asked to leave (request_exit) while the interpreter ran ahead on its copy: h has not
  // moved yet, and setting the bound would lose the request. The signal handler runs on this thread,
  // so a compare-and-swap sees the request or keeps it.
  std::atomic_ref<uint64_t> h_deadline(h.deadline);
  if (uint64_t expected = deadline; !h_deadline.compare_exchange_strong(expected, bound)) return x64::kExitDispatch;
  uint32_t exit = translated(h, 0);
  // Back to the deadline, unless a helper or a host signal asked to leave (request_exit) meanwhile.
  uint64_t expected = bound;
  h_deadline.compare_exchange_strong(expected, deadline);
  if (exit == x64::kExitDeadline && h.instret == start) {
    // The bound stopped even the first block, which left its instruction sequence early: that block alone.
    exit = translated(h, full);
  }
  verify(h, exit);
  return exit;
}

void CheckEngine::run(Hart& h, TrapHandler& traps) {
  FrozenClock frozen(h.csr.clock);
  struct ClockSwap {
    Hart& h;
    const Clock* saved;
    ClockSwap(Hart& hart, const Clock* c) : h(hart), saved(hart.csr.clock) { h.csr.clock = c; }
    ~ClockSwap() { h.csr.clock = saved; }
  } swap(h, &frozen);
  // Covers the trap handler itself (a syscall touching guest memory).
  HostFaultScope scope(h, this);
  if (sigsetjmp(scope.resume, 0) && !traps.on_trap(h)) return;
  for (;;) {
    if (h.deadline_reached() && !traps.on_budget(h)) return;
    jit_.adapt(h);
    frozen.at = frozen.real->now();
    const uint32_t exit = check(h);
    if (exit == x64::kExitStop || (exit == x64::kExitTrap && !traps.on_trap(h))) return;
  }
}

}  // namespace brisk
