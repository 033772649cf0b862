#include "runtime/check_engine.h"

#include <vector>

#include "runtime/error.h"
#include "runtime/host_fault.h"

namespace brisk {

namespace {

// The interpreter's view of memory during a check: every access takes the slow path, stores are
// logged so that they can be undone before the JIT runs the same block on the same memory.
class LoggingMemory final : public HartEnv {
 public:
  struct Write {
    uint64_t va;
    unsigned size;
    uint64_t before, after;
  };

  LoggingMemory(const Hart& real) : base_(real.mem_base), limit_(real.mem_limit), inner_(real.env) {}

  bool load(Hart& h, uint64_t va, void* out, unsigned size) override {
    if (va >= limit_) return inner_->load(h, va, out, size);
    std::memcpy(out, base_ + va, size);  // a host fault here is the guest's
    return true;
  }
  bool store(Hart& h, uint64_t va, const void* in, unsigned size) override {
    if (va >= limit_) return inner_->store(h, va, in, size);
    log(va, size);
    std::memcpy(base_ + va, in, size);
    return true;
  }
  void* amo(Hart& h, uint64_t va, unsigned size) override {
    if (va >= limit_) return inner_->amo(h, va, size);
    log(va, size);
    return base_ + va;
  }
  bool fetch16(Hart& h, uint64_t va, uint16_t& out) override { return inner_->fetch16(h, va, out); }
  bool fetch_address(Hart& h, uint64_t va, uint64_t& pa) override { return inner_->fetch_address(h, va, pa); }
  void flush_tlb(Hart& h, uint64_t va) override { inner_->flush_tlb(h, va); }
  void timer_changed(Hart& h) override { inner_->timer_changed(h); }
  void watch_code(uint64_t page) override { inner_->watch_code(page); }
  void unwatch_code(uint64_t page) override { inner_->unwatch_code(page); }

  // Remembers what the interpreter wrote, then puts memory back as it was. Bytes still as they were
  // are left alone: a store that faulted (a read-only page) was logged but never happened.
  void undo() {
    for (auto& w : writes_) w.after = read(w.va, w.size);
    for (auto it = writes_.rbegin(); it != writes_.rend(); ++it)
      if (read(it->va, it->size) != it->before) std::memcpy(base_ + it->va, &it->before, it->size);
  }
  uint64_t read(uint64_t va, unsigned size) const {
    uint64_t v = 0;
    std::memcpy(&v, base_ + va, size);
    return v;
  }
  const std::vector<Write>& writes() const { return writes_; }
  // Whether a write since the first `from` touched the 4 KiB page holding va.
  bool wrote_page_of(size_t from, uint64_t va) const {
    constexpr uint64_t kPageMask = ~uint64_t(4095);
    for (size_t k = from; k < writes_.size(); k++)
      if (((writes_[k].va ^ va) & kPageMask) == 0 || (((writes_[k].va + writes_[k].size - 1) ^ va) & kPageMask) == 0)
        return true;
    return false;
  }

 private:
  void log(uint64_t va, unsigned size) { writes_.push_back({va, size, read(va, size), 0}); }

  uint8_t* base_;
  uint64_t limit_;
  HartEnv* inner_;
  std::vector<Write> writes_;
};

const char* kXNames[32] = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
                           "a1",   "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
                           "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

// The first architectural difference between the reference and the JIT, or "".
std::string compare(const Hart& ref, Status ref_st, const Hart& jit, uint32_t jit_exit, const LoggingMemory& mem) {
  const bool ref_trap = ref_st == Status::Trap, jit_trap = jit_exit == x64::kExitTrap;
  if (ref_trap != jit_trap) return fmt::format("trap: interpreter {}, jit {}", ref_trap, jit_trap);
  if (ref_trap && (ref.trap.cause != jit.trap.cause || ref.trap.tval != jit.trap.tval))
    return fmt::format("trap: interpreter cause {} tval {:#x}, jit cause {} tval {:#x}", ref.trap.cause, ref.trap.tval,
                       jit.trap.cause, jit.trap.tval);
  if (ref.pc != jit.pc) return fmt::format("pc: interpreter {:#x}, jit {:#x}", ref.pc, jit.pc);
  if (ref.instret != jit.instret) return fmt::format("instret: interpreter {}, jit {}", ref.instret, jit.instret);
  // x and f are adjacent: one memcmp finds out whether to look closer.
  static_assert(offsetof(Hart, f) == offsetof(Hart, x) + sizeof(Hart::x));
  if (std::memcmp(ref.x, jit.x, sizeof ref.x + sizeof ref.f) != 0) {
    for (unsigned r = 0; r < 32; r++)
      if (ref.x[r] != jit.x[r]) return fmt::format("{}: interpreter {:#x}, jit {:#x}", kXNames[r], ref.x[r], jit.x[r]);
    for (unsigned r = 0; r < 32; r++)
      if (ref.f[r] != jit.f[r]) return fmt::format("f{}: interpreter {:#x}, jit {:#x}", r, ref.f[r], jit.f[r]);
  }
  if (ref.fflags != jit.fflags || ref.frm != jit.frm)
    return fmt::format("fcsr: interpreter {:#x}, jit {:#x}", ref.frm << 5 | ref.fflags, jit.frm << 5 | jit.fflags);
  if (ref.reservation != jit.reservation)
    return fmt::format("reservation: interpreter {:#x}, jit {:#x}", ref.reservation, jit.reservation);
  for (const auto& w : mem.writes())
    if (mem.read(w.va, w.size) != w.after)
      return fmt::format("memory at {:#x}: interpreter {:#x}, jit {:#x}", w.va, w.after, mem.read(w.va, w.size));
  if (!ref.transfer_sink) return {};
  if (ref.transfers.next != jit.transfers.next)
    return fmt::format("control-transfer ring offset: interpreter {}, jit {}", ref.transfers.next, jit.transfers.next);
  for (unsigned k = 0; k < TransferRing::kSize; k++) {
    const auto &a = ref.transfers.rec[k], &b = jit.transfers.rec[k];
    if (a.source != b.source || a.target != b.target || a.type != b.type)
      return fmt::format("control transfer record {}: interpreter {:#x}->{:#x} type {}, jit {:#x}->{:#x} type {}", k,
                         a.source, a.target, a.type, b.source, b.target, b.type);
  }
  return {};
}

// The `time` both passes of one block read: time moves between blocks, never inside a check.
struct FrozenClock final : Clock {
  const Clock* real;
  uint64_t at = 0;
  explicit FrozenClock(const Clock* c) : real(c) {}
  uint64_t now() const override { return at; }
  void set(uint64_t) override {}  // user mode has no mtime to write
};

}  // namespace

Status CheckEngine::interpret_block(Hart& ref, const std::vector<uint64_t>& path, uint64_t flat_limit) {
  HostFaultScope scope(ref, &jit_, flat_limit);
  if (sigsetjmp(scope.resume, 0)) return Status::Trap;
  Status st = Status::Next;
  // Follow the block's instructions until a trap, or until execution leaves them (a taken side exit).
  const auto& mem = static_cast<const LoggingMemory&>(*ref.env);
  for (size_t k = 0; k < path.size() && ref.pc == path[k]; k++) {
    const size_t writes = mem.writes().size();
    st = interp_.step(ref);
    if (st == Status::Trap || st == Status::Exit) break;
    // Translated code leaves the block right after a store to a page it was made from
    // (JitEngine::on_code_write): so does the reference.
    if (mem.wrote_page_of(writes, path.front())) break;
  }
  return st;
}

uint32_t CheckEngine::jit_block(Hart& h) {
  HostFaultScope scope(h, &jit_);
  if (sigsetjmp(scope.resume, 0)) return x64::kExitTrap;  // the fault, with the JIT's state recovered into h
  return jit_.run_one_block(h);
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
  HostFaultScope scope(h, &jit_);
  if (sigsetjmp(scope.resume, 0) && !traps.on_trap(h)) return;
  for (;;) {
    const uint64_t start = h.pc;
    frozen.at = frozen.real->now();
    const std::vector<uint64_t> path = jit_.block_path(h);
    if (path.empty()) {  // the block's first fetch faults: both engines agree by construction
      if (!traps.on_trap(h)) return;
      continue;
    }
    copy_state(ref_, h);
    Hart& ref = ref_;
    LoggingMemory mem(h);
    ref.mem_limit = 0;
    ref.env = &mem;
    const Status st = interpret_block(ref, path, h.mem_limit);
    mem.undo();

    const uint32_t exit = jit_block(h);
    std::string diff = compare(ref, st, h, exit, mem);
    if (!diff.empty()) throw Error("lockstep check failed in the block at {:#x}: {}", start, diff);
    if (exit == x64::kExitStop || (exit == x64::kExitTrap && !traps.on_trap(h))) return;
  }
}

}  // namespace brisk
