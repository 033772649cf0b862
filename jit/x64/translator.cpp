#include "jit/x64/translator.h"

#include <asmjit/x86.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "csr/csr_numbers.h"
#include "csr/ctr.h"
#include "jit/transfer.h"
#include "runtime/exec.h"
#include "csr/pmu.h"
#include "runtime/fp.h"
#include "runtime/semantics.h"

namespace brisk::x64 {

using namespace asmjit;
using x86::Gp;
using x86::Mem;

namespace {

const Gp kHart = x86::rbp;
// instret lives here while translated code runs: adding to it in memory would chain every block on a
// store-to-load forward.
const Gp kInstretReg = x86::r15;
// Callee-saved first: those survive helper calls without a spill.
const Gp kMappedHost[kMaxMappedRegs] = {x86::rbx, x86::r12, x86::r13, x86::r14, x86::rsi,
                                        x86::rdi, x86::r8,  x86::r9,  x86::r10, x86::r11};

Mem hart_q(size_t off) { return x86::qword_ptr(kHart, static_cast<int32_t>(off)); }
Mem xreg(unsigned r) { return hart_q(offsetof(Hart, x) + 8 * r); }
// x[r]'s low 32 bits (little-endian), the operand of the W ops.
Mem xreg32(unsigned r) { return x86::dword_ptr(kHart, static_cast<int32_t>(offsetof(Hart, x) + 8 * r)); }
Mem xreg16(unsigned r) { return x86::word_ptr(kHart, static_cast<int32_t>(offsetof(Hart, x) + 8 * r)); }
const Mem kPc = hart_q(offsetof(Hart, pc));
const Mem kInstret = hart_q(offsetof(Hart, instret));

// HostRegs::ctr, in the host registers of the last guest registers: the ring's next slot
// (CtrRecording::Ring) or WRPTR (Buffer: a byte offset, always wrapped at the depth), the gshare
// history (12 bits), and for Buffer the negated cycle base (so that one lea computes the cycle count).
const Gp kCtrCursor = x86::r10, kGshareHistory = x86::r11, kCtrNegCycleBase = x86::r9;
const Gp kBranchMisses = x86::r10;  // HostRegs::misses(), never with CTR's cursor
constexpr size_t kCtr = offsetof(Hart, csr) + offsetof(csr::State, ctr);
const Mem kWrptrMem = hart_q(kCtr + offsetof(ctr::State, wrptr_off));
const Mem kRingNextMem = hart_q(offsetof(Hart, ctr_ring) + offsetof(ctr::Ring, next));
const Mem kCycleBaseMem = hart_q(kCtr + offsetof(ctr::State, cycle_base));
constexpr size_t kGshare = offsetof(Hart, csr) + offsetof(csr::State, pmu) + offsetof(pmu::State, predictor);
const Mem kHistoryMem = x86::word_ptr(kHart, static_cast<int32_t>(kGshare + offsetof(pmu::Gshare, history)));
constexpr int32_t kGshareCounters = static_cast<int32_t>(kGshare + offsetof(pmu::Gshare, counter));
constexpr uint32_t kGshareMask = (1u << pmu::Gshare::kBits) - 1;

bool fits_i32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

// Inline FP operations accrue their flags in MXCSR (runtime/fp.h), and the flags stay there across
// chained blocks: hart.fflags lacks them until this ORs them in, wherever C++ may read fflags or
// reload MXCSR from it, which is only outside translated code (the exit trampoline) and in helpers
// (the helper thunk, call_semantics). `v` and `table` are scratch registers.
void fold_fp_flags(x86::Assembler& a, Gp v, Gp table) {
  const Mem scratch = x86::dword_ptr(kHart, static_cast<int32_t>(offsetof(Hart, mxcsr_scratch)));
  a.stmxcsr(scratch);
  a.mov(v.r32(), scratch);
  a.and_(v.r32(), Imm(0x3f));
  a.mov(table, Imm(reinterpret_cast<uint64_t>(kMxcsrToFflags.data())));
  a.movzx(v.r32(), x86::byte_ptr(table, v.r64()));
  a.or_(x86::byte_ptr(kHart, static_cast<int32_t>(offsetof(Hart, fflags))), v.r8());
}

// Jumps to the translated code for the pc in rax if the lookup table has it; falls through if not.
// Clobbers rcx and rdx.
void probe_lookup(x86::Assembler& a, bool by_page) {
  static_assert(sizeof(LookupEntry) == 16 && kLookupSlotBits + 4 == 12);
  // The entry's byte offset, lookup_index(pc, by_page) * 16: by page, the page bits in place and the
  // offset's bits 8:1 shifted to bits 11:4; else the pc's bits 14:1 shifted to bits 17:4.
  if (by_page) {
    a.mov(x86::ecx, x86::eax);
    a.and_(x86::ecx, Imm(((1u << kLookupPageBits) - 1) << 12));
    a.mov(x86::edx, x86::eax);
    a.shl(x86::edx, Imm(3));
    a.and_(x86::edx, Imm(((1u << kLookupSlotBits) - 1) << 4));
    a.or_(x86::ecx, x86::edx);
  } else {
    a.lea(x86::ecx, x86::ptr(uint64_t{0}, x86::rax, 3));
    a.and_(x86::ecx, Imm((kLookupEntries - 1) << 4));
  }
  Label miss = a.newLabel();
  a.mov(x86::rdx, hart_q(offsetof(Hart, jit_lookup)));
  a.cmp(x86::qword_ptr(x86::rdx, x86::rcx), x86::rax);
  a.jne(miss);
  a.jmp(x86::qword_ptr(x86::rdx, x86::rcx, 0, 8));
  a.bind(miss);
}

}  // namespace

int mapped_host_reg(const HostRegs& regs, unsigned guest) {
  for (unsigned i = 0; i < regs.mapped; i++)
    if (regs.order[i] == guest) return static_cast<int>(i);
  return -1;
}

unsigned mapped_host_id(unsigned i) { return kMappedHost[i].id(); }
unsigned ctr_cursor_host_id() { return kCtrCursor.id(); }
unsigned gshare_history_host_id() { return kGshareHistory.id(); }
unsigned branch_misses_host_id() { return kBranchMisses.id(); }
unsigned ctr_neg_cycle_base_host_id() { return kCtrNegCycleBase.id(); }

CtrRecording ctr_recording(uint32_t record_mask) {
  if (!record_mask) return CtrRecording::None;
  return record_mask & ctr::kRasEmu ? CtrRecording::Buffer : CtrRecording::Ring;
}

HostRegs host_regs(unsigned jit_regs, uint32_t record_mask, bool counts_misses, const GuestOrder& order) {
  const CtrRecording ctr = ctr_recording(record_mask);
  const bool history = ctr != CtrRecording::None || counts_misses;
  const unsigned pinned = history + (ctr == CtrRecording::Buffer ? 2 : history);
  return {std::min(jit_regs, kMaxMappedRegs - pinned), ctr, history, order};
}

namespace {

// The hart's copies of what translated code keeps in host registers, loaded on the way in (and after
// helper calls) and stored on the way out (and before them: the registers are loaded again before
// translated code goes on).
void load_mapped(x86::Assembler& a, const HostRegs& r) {
  for (unsigned i = 0; i < r.mapped; i++) a.mov(kMappedHost[i], xreg(r.order[i]));
  if (r.history) a.movzx(kGshareHistory.r32(), kHistoryMem);
  if (r.misses()) a.xor_(kBranchMisses.r32(), kBranchMisses.r32());
  if (r.ctr == CtrRecording::None) return;
  if (r.ctr == CtrRecording::Ring) {
    a.mov(kCtrCursor, kRingNextMem);
    return;
  }
  a.mov(kCtrCursor, kWrptrMem);
  a.mov(kCtrNegCycleBase, kCycleBaseMem);
  a.neg(kCtrNegCycleBase);
}
// With HostRegs::misses(), clobbers rcx: translated code runs in one privilege between loads (a helper
// that changes it runs between a store and a load), so the count is the hart's current one's.
void store_mapped(x86::Assembler& a, const HostRegs& r) {
  for (unsigned i = 0; i < r.mapped; i++) a.mov(xreg(r.order[i]), kMappedHost[i]);
  if (r.history) a.mov(kHistoryMem, kGshareHistory.r16());
  if (r.misses()) {
    a.movzx(x86::ecx, x86::byte_ptr(kHart, static_cast<int32_t>(offsetof(Hart, priv))));
    a.imul(x86::ecx, x86::ecx, Imm(pmu::kEventCount * sizeof(uint64_t)));
    a.add(x86::qword_ptr(kHart, x86::rcx, 0,
                         static_cast<int32_t>(offsetof(Hart, csr) + offsetof(csr::State, pmu) +
                                              offsetof(pmu::State, events) + pmu::kBranchMisses * sizeof(uint64_t))),
          kBranchMisses);
  }
  if (r.ctr == CtrRecording::None) return;
  if (r.ctr == CtrRecording::Ring) {
    a.mov(kRingNextMem, kCtrCursor);
    return;
  }
  a.mov(kWrptrMem, kCtrCursor);
  a.neg(kCtrNegCycleBase);
  a.mov(kCycleBaseMem, kCtrNegCycleBase);
}

}  // namespace

// Notes the one error an emission may run into: the arena's free space, its buffer, is used up.
namespace {

// Out-of-line code a block queues while it emits (one per inline memory access, exit stub, ...),
// kept in place: std::function allocated for captures this size, a few times per block.
class OutOfLine {
 public:
  template <typename F>
  OutOfLine(F f) : ops_(&kOps<F>) {  // NOLINT(google-explicit-constructor): built from lambdas
    static_assert(sizeof(F) <= sizeof(buf_) && alignof(F) <= alignof(std::max_align_t));
    new (buf_) F(std::move(f));
  }
  OutOfLine(OutOfLine&& o) noexcept : ops_(o.ops_) { ops_->move(buf_, o.buf_); }
  OutOfLine& operator=(OutOfLine&&) = delete;
  ~OutOfLine() { ops_->destroy(buf_); }
  void operator()() { ops_->call(buf_); }

 private:
  struct Ops {
    void (*call)(void*);
    void (*move)(void* to, void* from);
    void (*destroy)(void*);
  };
  template <typename F>
  static constexpr Ops kOps = {[](void* p) { (*static_cast<F*>(p))(); },
                               [](void* to, void* from) { new (to) F(std::move(*static_cast<F*>(from))); },
                               [](void* p) { static_cast<F*>(p)->~F(); }};
  const Ops* ops_;
  alignas(std::max_align_t) unsigned char buf_[128];
};

// A 16-byte constant translated code loads, emitted after the out-of-line code.
struct Constant {
  Label label;
  uint64_t lo, hi;
};

}  // namespace

// Kept from one emission to the next, so that a translation allocates nothing it does not keep:
// asmjit's holder and assembler, and scratch lists whose capacity stays.
struct Emitter::State : ErrorHandler {
  CodeHolder code;
  x86::Assembler a;
  std::vector<OutOfLine> slow_paths;
  std::vector<Constant> constants;
  std::vector<FaultSite> faults;
  std::vector<FCopies> fcopies;
  std::vector<DirectExit> exits;
  bool full = false;
  void handleError(Error err, const char*, BaseEmitter*) override { full |= err == kErrorTooLarge; }
};
Emitter::Emitter() : state_(std::make_unique<State>()) {}
Emitter::~Emitter() = default;

struct EmitterAccess {
  static Emitter::State& state(Emitter& e) { return *e.state_; }
  static CodeHolder& code(Emitter& e) { return e.state_->code; }
  static x86::Assembler& assembler(Emitter& e) { return e.state_->a; }
};

namespace {

// Emits into the arena at its cursor and commits the bytes; returns where they went.
template <typename F>
uint8_t* emit_at_cursor(CodeArena& arena, Emitter& emitter, F&& body, uint32_t* size_out = nullptr) {
  CodeHolder& code = EmitterAccess::code(emitter);
  x86::Assembler& a = EmitterAccess::assembler(emitter);
  uint8_t* at = arena.cursor();
  code.reset(ResetPolicy::kSoft);  // keeps the zone's blocks for the next emission
  code.init(Environment::host(), reinterpret_cast<uint64_t>(at));
  // The arena's free space is the text section's buffer: fixed, so that asmjit reports running out
  // of it instead of moving the code to a buffer of its own.
  CodeBuffer& buf = code.textSection()->_buffer;
  buf._data = at;
  buf._capacity = arena.left();
  buf._flags = CodeBufferFlags::kIsExternal | CodeBufferFlags::kIsFixed;
  EmitterAccess::state(emitter).full = false;
  code.setErrorHandler(&EmitterAccess::state(emitter));
  code.attach(&a);
  body(a, code);
  code.flatten();
  code.resolveUnresolvedLinks();
  size_t n = code.codeSize();
  if (EmitterAccess::state(emitter).full || n > arena.left()) throw std::length_error("JIT code arena full");
  code.relocateToBase(reinterpret_cast<uint64_t>(at));
  arena.commit(n);
  if (size_out) *size_out = static_cast<uint32_t>(n);
  return at;
}

}  // namespace

Trampolines emit_trampolines(CodeArena& arena, Emitter& emitter, const HostRegs& regs) {
  Trampolines t;
  uint8_t* enter_at = emit_at_cursor(arena, emitter, [&](x86::Assembler& a, CodeHolder& code) {
    Label exit = a.newLabel(), helper = a.newLabel(), trapped = a.newLabel(), link = a.newLabel(),
          dispatch = a.newLabel(), access = a.newLabel(), written = a.newLabel();
    // enter(Hart* rdi, code rsi)
    for (Gp r : {x86::rbx, x86::rbp, x86::r12, x86::r13, x86::r14, x86::r15}) a.push(r);
    a.sub(x86::rsp, 8);  // six pushes + return address: realign to 16 for helper calls
    a.mov(kHart, x86::rdi);
    a.mov(x86::rax, x86::rsi);
    a.mov(kInstretReg, kInstret);
    load_mapped(a, regs);
    a.jmp(x86::rax);
    a.bind(exit);
    fold_fp_flags(a, x86::rdx, x86::rcx);  // eax: the exit code
    store_mapped(a, regs);
    a.mov(kInstret, kInstretReg);
    a.add(x86::rsp, 8);
    for (Gp r : {x86::r15, x86::r14, x86::r13, x86::r12, x86::rbp, x86::rbx}) a.pop(r);
    a.ret();

    // The shared helper thunk (see Trampolines::helper), so that each out-of-line call site in a
    // block is three instructions instead of the whole sync. The return address and the three
    // slots below it realign rsp.
    const Mem site = x86::qword_ptr(x86::rsp, 16), pending = x86::qword_ptr(x86::rsp, 8);
    auto run_semantics = [&] {
      a.sub(x86::rsp, 24);
      a.mov(site, x86::rdx);
      a.mov(pending, x86::rcx);
      fold_fp_flags(a, x86::rax, x86::rcx);
      a.mov(x86::rax, x86::qword_ptr(x86::rdx, offsetof(jit::PlanInsn, pc)));
      a.mov(kPc, x86::rax);
      a.add(kInstretReg, pending);
      a.mov(kInstret, kInstretReg);
      store_mapped(a, regs);
      a.mov(x86::rdi, kHart);
      a.lea(x86::rsi, x86::ptr(x86::rdx, offsetof(jit::PlanInsn, insn)));
      a.movzx(x86::eax, x86::word_ptr(x86::rsi, offsetof(Insn, op)));
      a.mov(x86::rcx, Imm(reinterpret_cast<uint64_t>(kSemantics)));
      a.call(x86::qword_ptr(x86::rcx, x86::rax, 3));
      load_mapped(a, regs);
      a.mov(kInstretReg, kInstret);  // the helper may have written minstret
      a.test(x86::eax, x86::eax);
      a.jnz(trapped);
    };
    a.bind(helper);
    run_semantics();
    a.add(x86::rsp, 24);
    a.ret();
    // The access thunk (Trampolines::access): the block goes on with its pending count, unless the
    // access stored to the block's own code (Hart::code_written): then it leaves right after it.
    const Mem written_flag = x86::byte_ptr(kHart, static_cast<int32_t>(offsetof(Hart, code_written)));
    a.bind(access);
    run_semantics();
    a.cmp(written_flag, Imm(0));
    a.jne(written);
    a.sub(kInstretReg, pending);
    a.add(x86::rsp, 24);
    a.ret();
    a.bind(written);
    a.mov(written_flag, Imm(0));
    a.add(kInstretReg, Imm(1));
    a.mov(x86::rdx, site);
    a.movzx(x86::ecx, x86::byte_ptr(x86::rdx, offsetof(jit::PlanInsn, insn) + offsetof(Insn, len)));
    a.add(x86::rcx, x86::qword_ptr(x86::rdx, offsetof(jit::PlanInsn, pc)));
    a.mov(x86::eax, x86::ecx);  // RV32 pcs wrap at 2^32 (docs/architecture.md, "XLEN")
    a.cmp(x86::byte_ptr(kHart, static_cast<int32_t>(offsetof(Hart, rv32))), Imm(0));
    a.cmove(x86::rax, x86::rcx);
    a.add(x86::rsp, 32);  // and the return address into the block
    a.jmp(dispatch);
    a.bind(trapped);
    a.add(x86::rsp, 32);  // and the return address into the block: leave from the block's frame
    a.jmp(exit);

    // The stubs of direct exits (Trampolines::link, ::dispatch), so that each is a few instructions.
    // `link` always goes back to the exec loop, even when the lookup table has the target: going on
    // through the table would leave the exit unlinked for good, paying the stub and the probe at
    // every pass (bench/branch.c's interpreter: a seventh of its time).
    a.bind(link);
    a.mov(hart_q(offsetof(Hart, jit_exit_site)), x86::rcx);
    a.mov(kPc, x86::rax);
    a.mov(x86::eax, Imm(kExitLink));
    a.jmp(exit);
    a.bind(dispatch);
    a.mov(kPc, x86::rax);
    a.xor_(x86::eax, x86::eax);  // kExitDispatch
    a.jmp(exit);

    code.flatten();
    auto at = [&](Label l) { return reinterpret_cast<uint8_t*>(code.baseAddress() + code.labelOffsetFromBase(l)); };
    t.exit = at(exit);
    t.helper = at(helper);
    t.access = at(access);
    t.link = at(link);
    t.dispatch = at(dispatch);
  });
  t.enter = reinterpret_cast<EnterFn>(enter_at);
  return t;
}

namespace {

// A block-ending instruction run out of line while a trace unit's fast path observes the hart
// (jit::PlanConfig::report_retired): its semantics, and once it retired, the report the
// Interpreter makes, with pc and instret as it leaves them. Translated code then advances both.
Status report_retired(Hart& h, const Insn& i) {
  const uint64_t pc = h.pc, before = h.instret;
  const Status st = kSemantics[static_cast<unsigned>(i.op)](h, i);
  if (st != Status::Next && st != Status::Jump) return st;
  if (st == Status::Next) h.pc = xlen_addr(h, pc + i.len);
  h.instret++;
  h.retire_observer->retired(h, i, pc, st == Status::Jump, before);
  h.instret--;
  if (st == Status::Next) h.pc = pc;
  return st;
}

// Emits one block plan. Tracks `pending_`: instructions of this block already executed at the current
// point of the code but not yet added to hart.instret. instret is exact at every helper call and exit.
// Pending counts of the PMU's events and of the machine's instruction classes (jit::PlanInsn::events).
using EventCounts = std::array<uint16_t, pmu::kEventCount + Hart::kInsnEventClasses>;

class BlockEmitter {
 public:
  BlockEmitter(x86::Assembler& a, const TranslateConfig& cfg, const Trampolines& t, BlockCode& b,
               std::vector<OutOfLine>& slow_paths, std::vector<Constant>& constants)
      : a_(a), cfg_(cfg), tramp_(t), b_(b), slow_paths_(slow_paths), constants_(constants), plan_(b.plan) {
    slow_paths_.clear();
    constants_.clear();
  }

  void emit() {
    if (cfg_.hot_counter) emit_hot_count();
    if (cfg_.deadlines) emit_deadline_check();
    const size_t n = plan_.insns.size();
    for (idx_ = 0; idx_ < n; idx_++) {
      const jit::PlanInsn& p = plan_.insns[idx_];
      pc_ = p.pc;
      if (p.exit != jit::Exit::None || !keeps_flags_folded(p.insn)) flags_folded_ = false;
      if ((p.insn.flags() & kFp) && !uses_f_copies(p.insn)) write_back_f();
      if (p.exit == jit::Exit::None && (p.insn.flags() & kFp) && !keeps_fcache(p.insn)) fcache_drop(p.insn.rd);
      at_insn_ = {fcache_, fdirty_};
      switch (p.exit) {
        case jit::Exit::None: emit_body(p.insn); break;
        case jit::Exit::Side: emit_side_exit(p); break;
        default: emit_terminator(p); continue;
      }
      forget_or_move_check(p.insn);
      pending_++;
      count_static(p, pend_ev_);
      if (idx_ + 1 == n) emit_direct_exit(plan_.end_pc, 0);
    }
    // Out-of-line code may queue more (a side exit's stub), so the list grows while it is walked.
    for (size_t k = 0; k < slow_paths_.size(); k++) {
      auto emit_one = std::move(slow_paths_[k]);
      emit_one();
    }
    if (!constants_.empty()) a_.align(AlignMode::kData, 16);
    for (const Constant& c : constants_) {
      bind(c.label);
      a_.embedUInt64(c.lo);
      a_.embedUInt64(c.hi);
    }

  }

 private:
  // Where each f register's copy is (fcache_), and which copies the hart lacks (fdirty_).
  struct FState {
    std::array<int8_t, 32> cache;
    uint32_t dirty;
  };

  // --- guest register access ---
  std::optional<Gp> mapped(unsigned r) const {
    int m = r ? mapped_host_reg(cfg_.regs, r) : -1;
    if (m < 0) return std::nullopt;
    return kMappedHost[m];
  }
  // A register holding x[r]: its host register, or `scratch` loaded with it.
  Gp src(unsigned r, Gp scratch) {
    if (r == 0) {
      a_.xor_(scratch.r32(), scratch.r32());
      return scratch;
    }
    if (auto m = mapped(r)) return *m;
    if (scratch.id() != x86::rax.id() || !rax_holds(r)) a_.mov(scratch, xreg(r));
    return scratch;
  }
  void write(unsigned rd, Gp value) {
    if (rd == 0) return;
    if (auto m = mapped(rd)) {
      if (m->id() != value.id()) a_.mov(*m, value);
    } else {
      a_.mov(xreg(rd), value);
      if (value.id() == x86::rax.id()) rax_copy_ = {rd, a_.offset()};
    }
  }
  // rax still holds x[r], a register in the hart, as the store of it left it: nothing has been
  // emitted since, and no label bound (code may come there from elsewhere). Saves reloading a
  // result the next instruction reads, a store-to-load forward on its dependency chain.
  bool rax_holds(unsigned r) const { return r && rax_copy_.reg == r && rax_copy_.offset == a_.offset(); }
  void bind(const Label& l) {
    a_.bind(l);
    rax_copy_ = {};
  }
  // Where to compute a result for rd: its host register if mapped, else rax.
  Gp dest(unsigned rd) {
    auto m = mapped(rd);
    return m ? *m : Gp(x86::rax);
  }
  void set_pc(uint64_t pc) {
    if (fits_i32(static_cast<int64_t>(pc))) {
      a_.mov(kPc, Imm(static_cast<int32_t>(pc)));
    } else {
      a_.mov(x86::rax, Imm(pc));
      a_.mov(kPc, x86::rax);
    }
  }
  // r = v in the fewest bytes: xor for 0 (no flags are live between guest instructions), the
  // zero-extending 32-bit mov, else asmjit's sign-extended or 64-bit forms.
  void mov_imm(Gp r, uint64_t v) {
    if (v == 0) a_.xor_(r.r32(), r.r32());
    else if (v <= UINT32_MAX) a_.mov(r.r32(), Imm(v));
    else a_.mov(r, Imm(v));
  }
  void add_instret(unsigned n) {
    if (n) a_.add(kInstretReg, Imm(n));
  }
  // --- performance events (only those the plan counts; none by default) ---
  bool counting(unsigned e) const { return (plan_.cfg.count_events >> e) & 1; }
  // Event e's count: pmu::Event e in the current privilege, or the machine's instruction class
  // e - pmu::kEventCount (jit::PlanInsn::events).
  Mem event_mem(unsigned e) const {
    if (e >= pmu::kEventCount) return hart_q(offsetof(Hart, insn_events) + (e - pmu::kEventCount) * sizeof(uint64_t));
    return hart_q(offsetof(Hart, csr) + offsetof(csr::State, pmu) + offsetof(pmu::State, events) +
                  (cfg_.priv * pmu::kEventCount + e) * sizeof(uint64_t));
  }
  // The static events of an instruction that retires, added to the pending counts.
  static void count_static(const jit::PlanInsn& p, EventCounts& ev) {
    for (uint32_t m = p.events; m; m &= m - 1) ev[__builtin_ctz(m)]++;
  }
  // Adds events to the hart's counts: sign -1 takes them back.
  void emit_event_adds(const EventCounts& ev, int sign = 1) {
    for (unsigned e = 0; e < ev.size(); e++)
      if (ev[e]) a_.add(event_mem(e), Imm(sign * ev[e]));
  }
  // At an exit that retires `p` (nullptr: nothing more), and its taken-branch event.
  void emit_exit_events(const jit::PlanInsn* p, bool taken) {
    if (!plan_.cfg.counts()) return;
    auto ev = pend_ev_;
    if (p) count_static(*p, ev);
    if (taken && plan_.count_taken) ev[pmu::kTakenBranches]++;
    emit_event_adds(ev);
  }
  // The branch predictor (pmu::Gshare) inline, on the path where the outcome is `taken`, when the plan
  // says it runs. Same state and arithmetic as Gshare::mispredicted. A miss counts when branch misses
  // are counted; edx keeps the counter the prediction came from, which gives ctrtarget.MISP
  // (ctr::Ring). Clobbers rax.
  void emit_branch_predict(const jit::PlanInsn& p, bool taken) {
    if (!p.predict) return;
    // The plan predicts only where CTR records or branch misses count, which keep the history in
    // its host register (HostRegs::history).
    const Gp history = kGshareHistory.r32();
    a_.mov(x86::eax, history);
    a_.xor_(x86::eax, Imm(static_cast<uint32_t>(pc_ >> 1) & kGshareMask));
    const Mem counter = x86::byte_ptr(kHart, x86::rax, 0, kGshareCounters);
    a_.movzx(x86::edx, counter);
    // Branch-free, as the counter is as unpredictable to the host as the guest's branch. The counter
    // predicts taken from 2 up: a miss is dl < 2 for a taken branch (the carry of dl - 2), dl >= 2 for
    // a not-taken one (1 minus that carry).
    if (p.count_miss) {
      const Mem in_hart = event_mem(pmu::kBranchMisses);
      a_.cmp(x86::dl, Imm(2));
      if (cfg_.regs.misses()) taken ? a_.adc(kBranchMisses, Imm(0)) : a_.sbb(kBranchMisses, Imm(-1));
      else taken ? a_.adc(in_hart, Imm(0)) : a_.sbb(in_hart, Imm(-1));
    }
    // Saturating: taken adds the carry of dl - 3 (dl < 3), not taken adds -1 plus the carry of
    // dl - 1 (dl == 0).
    a_.cmp(x86::dl, Imm(taken ? 3 : 1));
    a_.adc(counter, Imm(taken ? 0 : -1));
    a_.lea(history, x86::ptr(history.r64(), history.r64(), 0, taken ? 1 : 0));  // history << 1 | taken
    a_.and_(history, Imm(kGshareMask));
  }

  void exit_with(uint32_t code) {
    a_.mov(x86::eax, Imm(code));
    a_.jmp(Imm(reinterpret_cast<uint64_t>(tramp_.exit)));
  }

  // --- helper calls: the C++ semantics of the instruction (docs/architecture.md, "Engines and tiers") ---
  // Leaves the Status in eax with every mapped register reloaded; instret counts the instructions
  // before this one.
  void call_semantics(const Insn& i, SemFn fn = nullptr) {
    ring_r15_stored_ = false;
    fold_fp_flags(a_, x86::rdx, x86::rcx);
    set_pc(pc_);
    add_instret(pending_);
    pending_ = 0;
    emit_event_adds(pend_ev_);
    pend_ev_ = {};
    a_.mov(kInstret, kInstretReg);
    store_mapped(a_, cfg_.regs);
    a_.mov(x86::rdi, kHart);
    a_.mov(x86::rsi, Imm(reinterpret_cast<uint64_t>(&i)));
    a_.mov(x86::rax, Imm(reinterpret_cast<uint64_t>(fn ? fn : kSemantics[static_cast<unsigned>(i.op)])));
    a_.call(x86::rax);
    load_mapped(a_, cfg_.regs);
    a_.mov(kInstretReg, kInstret);  // the helper may have written minstret
  }
  // Calls a thunk of the trampolines for the current instruction (rdx = its PlanInsn, ecx = the
  // instructions before it not yet counted).
  void call_thunk(const uint8_t* thunk, unsigned pending) {
    a_.mov(x86::rdx, Imm(reinterpret_cast<uint64_t>(&plan_.insns[idx_])));
    if (pending) a_.mov(x86::ecx, Imm(pending));
    else a_.xor_(x86::ecx, x86::ecx);
    a_.call(Imm(reinterpret_cast<uint64_t>(thunk)));
  }
  // For instructions that never jump: a trap leaves the block, success falls through with the
  // instructions before this one counted (pending_ = 0).
  void emit_helper(const Insn& i) {
    ring_r15_stored_ = false;
    flags_folded_ = false;  // C++ may fold MXCSR and reload it
    write_back_f();         // reads f registers in the hart,
    fcache_.fill(-1);       // clobbers every xmm register, and may write any f register
    checked_.fill(kUnchecked);  // or x register
    if (!plan_.cfg.counts()) {  // the shared thunk; counted events need the pending counts inline
      call_thunk(tramp_.helper, pending_);
      pending_ = 0;
    } else {
      call_semantics(i);
      a_.test(x86::eax, x86::eax);
      Label ok = a_.newLabel();
      a_.jz(ok);
      a_.jmp(Imm(reinterpret_cast<uint64_t>(tramp_.exit)));  // eax = Trap or Exit
      bind(ok);
    }
    if (i.flags() & kStore) emit_code_written_exit(i);
  }
  // After a store that completed out of line: if it overwrote this block's code (Hart::code_written),
  // the rest of the block is stale, so leave right after the store.
  void emit_code_written_exit(const Insn& i) {
    const Mem flag = x86::byte_ptr(kHart, static_cast<int32_t>(offsetof(Hart, code_written)));
    Label written = a_.newLabel();
    a_.cmp(flag, Imm(0));
    a_.jne(written);
    slow_paths_.push_back([this, &i, &p = plan_.insns[idx_], written, flag, pc = pc_] {
      bind(written);
      a_.mov(flag, Imm(0));
      pending_ = 0;  // the helper counted everything before the store
      pend_ev_ = {};
      emit_exit_events(&p, false);
      add_instret(1);
      set_pc(guest_pc(pc + i.len));
      exit_with(kExitDispatch);
    });
  }

  // --- block structure ---
  // Leaves before the block if running it could pass hart.deadline: a compare, no read-modify-write.
  void emit_deadline_check() {
    deadline_out_ = a_.newLabel();
    compare_deadline();
    a_.ja(deadline_out_);
    slow_paths_.push_back([this] {
      bind(deadline_out_);
      set_pc(plan_.pc);
      exit_with(kExitDeadline);
    });
    body_ = a_.newLabel();
    bind(body_);
  }

  // Flags of (instret + the block's length) against hart.deadline: above, the block could pass it.
  void compare_deadline() {
    a_.lea(x86::rax, x86::ptr(kInstretReg, static_cast<int32_t>(plan_.insns.size())));
    a_.cmp(x86::rax, hart_q(offsetof(Hart, deadline)));
  }

  // Counts the entry for the LLVM tier; the one that reaches zero leaves before the block.
  void emit_hot_count() {
    Label hot = a_.newLabel();
    a_.mov(x86::rax, Imm(reinterpret_cast<uint64_t>(cfg_.hot_counter)));
    a_.sub(x86::dword_ptr(x86::rax), Imm(1));
    a_.jz(hot);
    slow_paths_.push_back([this, hot] {
      bind(hot);
      set_pc(plan_.pc);
      exit_with(kExitHot);
    });
  }

  // --- Smctr: the recording point of translated code ---
  static Mem ctr_q(size_t field) { return hart_q(kCtr + field); }
  // Field `field` (`size` bytes of it) of the physical entry at byte offset `at`.
  static Mem ctr_entry(Gp at, size_t field = 0, uint32_t size = 8) {
    return x86::ptr(kHart, at, 0, static_cast<int32_t>(kCtr + offsetof(ctr::State, entries) + field), size);
  }
  // *m = v, through `tmp` when v is no sign-extended imm32.
  void store_imm(const Mem& m, uint64_t v, Gp tmp) {
    if (fits_i32(static_cast<int64_t>(v))) {
      a_.mov(m, Imm(static_cast<int32_t>(v)));
    } else {
      a_.mov(tmp, Imm(v));
      a_.mov(m, tmp);
    }
  }
  // ctr::record (csr/ctr.cpp) after the transfer retired: now = instret = r15 + pending_ + 1. The
  // target is `target`, or rax when not given; for a branch (`predicted`), edx holds the
  // predictor's counter (emit_branch_predict). Clobbers rcx, rdx and xmm0, and rax unless it is the
  // target.
  void emit_ctr_record(jit::CtrOp op, TransferType type, std::optional<uint64_t> target, bool predicted) {
    if (op == jit::CtrOp::None) return;
    if (cfg_.regs.ctr == CtrRecording::Ring) return emit_ring_record(type, target, predicted);
    emit_buffer_record(op, type, target);
  }

  // The next slot of the ctr::Ring array at `field`, of `size`-byte elements.
  static Mem ring_slot(size_t field, uint32_t size) {
    return x86::ptr(kHart, kCtrCursor, size == 8 ? 3 : 2, static_cast<int32_t>(offsetof(Hart, ctr_ring) + field),
                    size);
  }
  static_assert(ctr::Ring::kSlots > ctr::kMaxDepth + jit::PlanConfig{}.max_insns, "ctr::Ring's room for a block");
  // A push as a ctr::Ring record: its site word, r15 unless the record before it on the way here
  // stored it, an indirect target, and the slot's bump.
  void emit_ring_record(TransferType type, std::optional<uint64_t> target, bool predicted) {
    const uint32_t site = cfg_.ctr_sites->intern({.source = pc_, .target = target.value_or(0), .type = type,
                                                   .indirect = !target, .shares_instret = ring_r15_stored_,
                                                   .instret_offset = pending_ + 1});
    if (!ring_r15_stored_) a_.mov(ring_slot(offsetof(ctr::Ring, instret), 8), kInstretReg);
    ring_r15_stored_ = true;
    if (!target) a_.mov(ring_slot(offsetof(ctr::Ring, target), 8), x86::rax);
    const int32_t word = static_cast<int32_t>(site << 2);
    if (predicted) {
      a_.lea(x86::edx, x86::ptr(x86::rdx, word));
      a_.mov(ring_slot(offsetof(ctr::Ring, site), 4), x86::edx);
    } else {
      a_.mov(ring_slot(offsetof(ctr::Ring, site), 4), Imm(word));
    }
    a_.add(kCtrCursor.r32(), Imm(1));
    a_.and_(kCtrCursor.r32(), Imm(ctr::Ring::kSlots - 1));
  }

  // Under RASEMU (calls, returns and swaps, no branches: no MISP), with the same stores as
  // ctr::record into the buffer, WRPTR in its host register.
  void emit_buffer_record(jit::CtrOp op, TransferType type, std::optional<uint64_t> target) {
    using jit::CtrOp;
    const Mem wrmask = ctr_q(offsetof(ctr::State, wrptr_mask));
    if (op == CtrOp::Pop) {  // RASEMU return: WRPTR goes back, and that entry's V clears
      a_.sub(kCtrCursor, Imm(sizeof(ctr::Entry)));
      a_.and_(kCtrCursor, wrmask);
      a_.and_(ctr_entry(kCtrCursor, offsetof(ctr::Entry, source)), Imm(~int32_t(ctr::CTRSOURCE_V)));
      return;
    }
    Gp at = kCtrCursor;
    if (op == CtrOp::Swap) {  // RASEMU co-routine swap: logical entry 0 in place
      at = x86::rcx;
      a_.lea(at, x86::ptr(kCtrCursor, -int32_t(sizeof(ctr::Entry))));
      a_.and_(at, wrmask);
    }
    const Gp tmp = target ? Gp(x86::rax) : Gp(x86::rdx);  // free here
    // The entry's address in rcx: short displacements keep the stores small.
    a_.lea(x86::rcx, ctr_entry(at, 0, 0));
    auto field = [](size_t f) { return x86::qword_ptr(x86::rcx, static_cast<int32_t>(f)); };
    const Mem target_mem = field(offsetof(ctr::Entry, target));
    if (target) store_imm(target_mem, *target, tmp);
    else a_.mov(target_mem, x86::rax);  // jalr targets have bit 0 clear: MISP 0
    // source | V and type: one 16-byte constant, placed after the block's code.
    static_assert(offsetof(ctr::Entry, type) == offsetof(ctr::Entry, source) + 8);
    Label pair = a_.newLabel();
    constants_.push_back({pair, pc_ | ctr::CTRSOURCE_V, static_cast<uint64_t>(type)});
    a_.movups(x86::xmm0, x86::ptr(pair));
    a_.movups(x86::ptr(x86::rcx, offsetof(ctr::Entry, source)), x86::xmm0);
    // cycles = now - cycle_base, with CCV clear as RASEMU records it; cycle_base = now ^ CCV, so
    // the negated base becomes -now ^ CCV.
    a_.lea(tmp, x86::ptr(kInstretReg, kCtrNegCycleBase, 0, static_cast<int32_t>(pending_ + 1)));
    a_.sub(kCtrNegCycleBase, tmp);
    a_.btc(kCtrNegCycleBase, Imm(63));
    a_.btr(tmp, Imm(63));
    a_.mov(field(offsetof(ctr::Entry, cycles)), tmp);
    if (op == CtrOp::Push) {
      a_.add(kCtrCursor, Imm(sizeof(ctr::Entry)));
      a_.and_(kCtrCursor, wrmask);
    }
  }

  // Whether an exit to `target` may go straight back into this block, past its deadline check (which
  // it makes itself): a loop in one block. Not where the LLVM tier counts entries (hot_counter).
  bool loops_back(uint64_t target) const {
    return target == plan_.pc && cfg_.loops && body_.isValid() && !cfg_.hot_counter;
  }
  // A chainable exit to a known pc, counting `retired` more instructions.
  void emit_direct_exit(uint64_t target, unsigned retired, const jit::PlanInsn* last = nullptr, bool taken = false) {
    write_back_f();
    emit_exit_events(last, taken);
    add_instret(pending_ + retired);
    if (loops_back(target)) {
      // Back to this block's start: its deadline check, then straight on (no link, no second jump).
      compare_deadline();
      a_.jbe(body_);
      a_.jmp(deadline_out_);
      return;
    }
    Label stub = a_.newLabel(), site = a_.newLabel();
    const size_t index = b_.exits.size();
    b_.exits.push_back({static_cast<uint32_t>(a_.offset()), 0, target});
    bind(site);
    a_.long_().jmp(stub);
    slow_paths_.push_back([this, stub, site, target, index] {
      bind(stub);
      b_.exits[index].stub_off = static_cast<uint32_t>(a_.offset());
      mov_imm(x86::rax, target);
      // System mode links only within a page (JitEngine::enter): another page's target is found
      // in the lookup table, at an index known now, or dispatched.
      if (!cfg_.flat_limit && (target ^ plan_.pc) >> 12) {
        const int32_t slot = static_cast<int32_t>(lookup_index(target, true) * sizeof(LookupEntry));
        Label miss = a_.newLabel();
        a_.mov(x86::rdx, hart_q(offsetof(Hart, jit_lookup)));
        a_.cmp(x86::qword_ptr(x86::rdx, slot + offsetof(LookupEntry, pc)), x86::rax);
        a_.short_().jne(miss);
        a_.jmp(x86::qword_ptr(x86::rdx, slot + offsetof(LookupEntry, code)));
        bind(miss);
        a_.jmp(Imm(reinterpret_cast<uint64_t>(tramp_.dispatch)));
        return;
      }
      // Until the exec loop links this exit, the link stub probes the lookup table.
      a_.lea(x86::rcx, x86::ptr(site));
      a_.jmp(Imm(reinterpret_cast<uint64_t>(tramp_.link)));
    });
  }

  // An exit to the pc in rax, through the pc -> code table (lookup_index, computed inline).
  void emit_indirect_exit(unsigned retired, const jit::PlanInsn* last) {
    write_back_f();
    emit_exit_events(last, false);
    add_instret(pending_ + retired);
    probe_lookup(a_, !cfg_.flat_limit);
    a_.jmp(Imm(reinterpret_cast<uint64_t>(tramp_.dispatch)));
  }

  void emit_terminator(const jit::PlanInsn& p) {
    const Insn& i = p.insn;
    write_back_f();  // every way on leaves the block
    switch (p.exit) {
      case jit::Exit::Branch: return emit_branch(p);
      case jit::Exit::Direct: return emit_direct_jump(p);
      case jit::Exit::Indirect: return emit_jalr(p);
      default: break;
    }
    // Everything else that ends a block runs its semantics and returns to the exec loop, which
    // re-derives the translation key (a CSR write or trap return may have changed the mode).
    call_semantics(i, plan_.cfg.report_retired ? report_retired : nullptr);
    Label jumped = a_.newLabel(), next = a_.newLabel();
    a_.cmp(x86::eax, Imm(static_cast<uint32_t>(Status::Jump)));
    a_.je(jumped);
    a_.test(x86::eax, x86::eax);
    a_.jz(next);
    a_.jmp(Imm(reinterpret_cast<uint64_t>(tramp_.exit)));
    bind(next);
    set_pc(guest_pc(pc_ + i.len));
    bind(jumped);
    emit_exit_events(&p, false);
    add_instret(1);
    exit_with(kExitDispatch);
  }

  // Jumps to `to` (bound by the caller) when the branch is taken, or with `when_taken` false, when
  // it is not.
  void emit_branch_test(const Insn& i, Label to, bool when_taken = true) {
    if (i.rs2 == 0 && i.rs1 != 0) {  // beqz, bnez, bltz, ...: compare with zero directly
      if (auto m = mapped(i.rs1)) a_.test(*m, *m);
      else a_.cmp(xreg(i.rs1), Imm(0));
    } else {
      // rs2 from rax if it is there (rax_holds), which loading rs1 there would have undone.
      const Gp s1 = src(i.rs1, x86::rax);
      a_.cmp(s1, rax_holds(i.rs2) ? Gp(x86::rax) : src(i.rs2, x86::rcx));
    }
    switch (i.op) {
      case Op::BEQ: when_taken ? a_.je(to) : a_.jne(to); break;
      case Op::BNE: when_taken ? a_.jne(to) : a_.je(to); break;
      case Op::BLT: when_taken ? a_.jl(to) : a_.jge(to); break;
      case Op::BGE: when_taken ? a_.jge(to) : a_.jl(to); break;
      case Op::BLTU: when_taken ? a_.jb(to) : a_.jae(to); break;
      default: when_taken ? a_.jae(to) : a_.jb(to); break;
    }
  }

  // One side of a conditional branch, once it retired: the predictor, then the record.
  void emit_branch_side(const jit::PlanInsn& p, bool taken) {
    const jit::CtrOp op = taken ? p.record_taken : p.record_not_taken;
    Label record = a_.newLabel();
    if (p.predict && taken && p.target <= pc_) emit_loop_steady_state(op, record);
    emit_branch_predict(p, taken);
    bind(record);
    emit_ctr_record(op, taken ? p.taken_type : p.not_taken_type, taken ? p.target : guest_pc(pc_ + p.insn.len),
                    p.predict);
  }
  // A loop's back edge, taken again in the steady state of a loop without other branches: with every
  // branch of the history taken and its counter at 3, the predictor says taken and nothing in it
  // changes, so two compares that the host predicts well replace the update; they go on to `record`
  // with the counter (3) in edx, as emit_branch_predict leaves it.
  void emit_loop_steady_state(jit::CtrOp op, Label record) {
    Label general = a_.newLabel();
    a_.cmp(kGshareHistory.r32(), Imm(kGshareMask));
    a_.jne(general);
    const uint32_t index = kGshareMask ^ (static_cast<uint32_t>(pc_ >> 1) & kGshareMask);
    a_.cmp(x86::byte_ptr(kHart, kGshareCounters + static_cast<int32_t>(index)), Imm(3));
    a_.jne(general);
    if (op != jit::CtrOp::None) a_.mov(x86::edx, Imm(3));
    a_.jmp(record);
    bind(general);
  }

  // The taken side of a conditional branch: records, counts and leaves to the target.
  void emit_taken_exit(const jit::PlanInsn& p) {
    if (p.taken_traps) {  // only without C: raise instruction-address-misaligned
      emit_helper(p.insn);
      return;
    }
    emit_branch_side(p, true);
    emit_direct_exit(p.target, 1, &p, true);
  }

  // Restores the emitter's position in the block for out-of-line code queued at idx.
  void resume_at(size_t idx, unsigned pending, const EventCounts& ev, uint32_t f) {
    ring_r15_stored_ = false;
    idx_ = idx;
    pc_ = plan_.insns[idx].pc;
    pending_ = pending;
    pend_ev_ = ev;
    fcache_ = fstates_[f].cache;
    fdirty_ = fstates_[f].dirty;
  }

  // A conditional branch that does not end the block (a superblock): the taken side is out of line,
  // with the pending counts as they stand here.
  void emit_side_exit(const jit::PlanInsn& p) {
    if (loops_back(p.target) && !p.taken_traps) {
      // A loop's back edge to this block's start: its taken side inline, so that a round takes one
      // jump (emit_direct_exit's back to the body), and the side that leaves the loop out of the way.
      Label not_taken = a_.newLabel();
      emit_branch_test(p.insn, not_taken, false);
      const bool r15_stored = std::exchange(ring_r15_stored_, false);  // as resume_at leaves it
      const uint32_t fdirty = fdirty_;  // written back on the way out only
      emit_taken_exit(p);
      ring_r15_stored_ = r15_stored;
      fdirty_ = fdirty;
      bind(not_taken);
      emit_branch_side(p, false);
      return;
    }
    Label taken = a_.newLabel();
    emit_branch_test(p.insn, taken);
    slow_paths_.push_back([this, &p, taken, idx = idx_, pending = pending_, ev = pend_ev_, f = keep(fstate())] {
      bind(taken);
      resume_at(idx, pending, ev, f);
      emit_taken_exit(p);
    });
    emit_branch_side(p, false);
  }

  // A conditional branch that ends the block: both sides are exits.
  void emit_branch(const jit::PlanInsn& p) {
    Label taken = a_.newLabel();
    emit_branch_test(p.insn, taken);
    const bool r15_stored = ring_r15_stored_;
    emit_branch_side(p, false);
    emit_direct_exit(guest_pc(pc_ + p.insn.len), 1, &p, false);
    bind(taken);
    ring_r15_stored_ = r15_stored;
    emit_taken_exit(p);
  }

  // jal, or a jalr whose target the plan knows: a chainable exit.
  void emit_direct_jump(const jit::PlanInsn& p) {
    link(p.insn.rd, guest_value(pc_ + p.insn.len));
    emit_ctr_record(p.record_taken, p.taken_type, p.target, false);
    emit_direct_exit(p.target, 1, &p);
  }

  void emit_jalr(const jit::PlanInsn& p) {
    const Insn& i = p.insn;
    Gp s = src(i.rs1, x86::rax);
    if (plan_.cfg.rv32) {  // the 32-bit forms zero-extend the target
      a_.lea(x86::eax, x86::ptr(s, static_cast<int32_t>(i.imm)));
      a_.and_(x86::eax, Imm(-2));
    } else {
      a_.lea(x86::rax, x86::ptr(s, static_cast<int32_t>(i.imm)));
      a_.and_(x86::rax, Imm(-2));
    }
    if (plan_.cfg.ialign_mask & 2) {
      // Out of line, so that the helper's sync leaves the pending counts of the aligned path alone.
      Label misaligned = a_.newLabel();
      a_.test(x86::al, Imm(2));
      a_.jnz(misaligned);
      slow_paths_.push_back([this, &i, misaligned, idx = idx_, pending = pending_, ev = pend_ev_, f = keep(fstate())] {
        bind(misaligned);
        resume_at(idx, pending, ev, f);
        emit_helper(i);  // raises instruction-address-misaligned, and so never comes back
      });
    }
    link(i.rd, guest_value(pc_ + i.len));
    emit_ctr_record(p.record_taken, p.taken_type, std::nullopt, false);
    emit_indirect_exit(1, &p);
  }

  // RV32 (docs/architecture.md, "XLEN"): a pc is zero-extended from bit 31, a register value
  // sign-extended.
  uint64_t guest_pc(uint64_t pc) const { return plan_.cfg.rv32 ? static_cast<uint32_t>(pc) : pc; }
  uint64_t guest_value(uint64_t v) const {
    return plan_.cfg.rv32 ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))) : v;
  }

  void link(unsigned rd, uint64_t value) {
    if (rd == 0) return;
    if (auto m = mapped(rd)) {
      mov_imm(*m, value);
    } else if (fits_i32(static_cast<int64_t>(value))) {
      a_.mov(xreg(rd), Imm(static_cast<int32_t>(value)));
    } else {
      a_.mov(x86::rcx, Imm(value));
      a_.mov(xreg(rd), x86::rcx);
    }
  }

  // --- straight-line instructions ---
  void emit_body(const Insn& i) {
    if (idx_ == folded_) return;  // emitted with the instruction before it
    const bool mem_out_of_line = plan_.cfg.mem_triggers && (i.flags() & (kLoad | kStore));  // csr/trigger.h
    if (!mem_out_of_line && ((i.flags() & kFp) ? emit_fp(i) : emit_inline(i))) return;
    emit_helper(i);
  }

  // --- two-address x86 forms for three-address RISC-V ALU ops ---
  // Puts x[r] into d, or for a W op (`word`) its low 32 bits into d's: the 32-bit x86 forms read only
  // those, so a register already in d needs no zero-extending copy and an unmapped one is one 32-bit
  // load.
  void load_operand(Gp d, unsigned r, bool word) {
    if (!word) {
      Gp s = src(r, d);
      if (s.id() != d.id()) a_.mov(d, s);
    } else if (r == 0) {
      a_.xor_(d.r32(), d.r32());
    } else if (auto m = mapped(r)) {
      if (m->id() != d.id()) a_.mov(d.r32(), m->r32());
    } else if (d.id() != x86::rax.id() || !rax_holds(r)) {
      a_.mov(d.r32(), xreg32(r));
    }
  }
  // After op on d (its 32-bit form for a W op): the W result sign-extended, written to rd.
  void finish_alu(unsigned rd, Gp d, bool word) {
    if (word) a_.movsxd(d, d.r32());
    write(rd, d);
  }
  // rd is rs1 and lives in the hart: ops with a read-modify-write x86 form (F invocable with a Mem
  // destination) change it there, one instruction instead of a load, the op and a store.
  bool in_place(const Insn& i, bool word) const {
    return !word && i.rd == i.rs1 && i.rd != 0 && !mapped(i.rd) && !rax_holds(i.rd);
  }
  // rd = op(rs1, imm): computed in rd's host register when it has one, else in rax. `extend` false:
  // the W result has bit 31 clear, so x86's zero-extension already is its sign-extension.
  template <typename F>
  void alu_imm(const Insn& i, F op, bool word = false, bool extend = true) {
    if constexpr (std::is_invocable_v<F, Mem>) {
      if (in_place(i, word)) return op(xreg(i.rd));
    }
    Gp d = dest(i.rd);
    load_operand(d, i.rs1, word);
    op(word ? d.r32() : d);
    finish_alu(i.rd, d, word && extend);
  }
  // rd = op(rs1, rs2). Ops whose x86 form takes a memory source (F invocable with a Mem) read an
  // unmapped rs2 straight from hart.x.
  template <typename F>
  void alu_reg(const Insn& i, F op, bool commutative, bool word = false) {
    if constexpr (std::is_invocable_v<F, Mem, Gp>) {
      if (in_place(i, word)) return op(xreg(i.rd), src(i.rs2, x86::rcx));
    }
    Gp d = dest(i.rd);
    if constexpr (std::is_invocable_v<F, Gp, Mem>) {
      if (i.rs2 != 0 && !mapped(i.rs2)) {  // so d, a mapped register or rax, is not rs2's
        load_operand(d, i.rs1, word);
        if (word) op(d.r32(), xreg32(i.rs2));
        else op(d, xreg(i.rs2));
        finish_alu(i.rd, d, word);
        return;
      }
    }
    Gp s2 = src(i.rs2, x86::rcx);
    if (s2.id() == d.id() && i.rs1 != i.rd) {  // rd == rs2: don't clobber rs2 by moving rs1 into rd
      if (commutative) {
        Gp s1 = src(i.rs1, x86::rax);
        if (word) op(d.r32(), s1.r32());
        else op(d, s1);
        finish_alu(i.rd, d, word);
        return;
      }
      d = x86::rax;
    }
    load_operand(d, i.rs1, word);
    if (word) op(d.r32(), s2.r32());
    else op(d, s2);
    finish_alu(i.rd, d, word);
  }
  // rd = op(rs1, rs2 & mask) for x86 shifts and rotates, whose count must be in cl.
  template <typename F>
  void alu_shift(const Insn& i, F op, bool word) {
    Gp s2 = src(i.rs2, x86::rcx);
    if (s2.id() != x86::rcx.id()) a_.mov(x86::ecx, s2.r32());
    Gp d = dest(i.rd);
    load_operand(d, i.rs1, word);
    op(word ? d.r32() : d);
    finish_alu(i.rd, d, word);
  }

  // The Snitch custom ops act through the hart's ports (or raise illegal-instruction without one)
  // whatever their rd field.
  static bool custom_op(const Insn& i) {
    const Ext ext = op_info(i.op).ext;
    return ext == Ext::Xdma || ext == Ext::Xssr || ext == Ext::Xfrep;
  }
  // An integer ALU op: no memory, f register, CSR, control transfer or port.
  static bool plain_alu(const Insn& i) {
    return !custom_op(i) && !(i.flags() & (kLoad | kStore | kFp | kCsr | kBranch | kJump));
  }

  // slli rd, rs, k followed by srli rd, rd, k for k = 32 or 48, zext.w and zext.h without Zba and
  // Zbb, as one move that zero-extends: the srli then emits nothing (emit_body), and both count as
  // they retire.
  bool zext_pair(const Insn& i) {
    const unsigned k = i.imm & 63;
    if (plan_.cfg.rv32 || (k != 32 && k != 48) || idx_ + 1 == plan_.insns.size()) return false;
    const jit::PlanInsn& n = plan_.insns[idx_ + 1];
    if (n.exit != jit::Exit::None || n.insn.op != Op::SRLI || (n.insn.imm & 63) != k || n.insn.rs1 != i.rd ||
        n.insn.rd != i.rd)
      return false;
    Gp d = dest(i.rd);
    const std::optional<Gp> s = rax_holds(i.rs1) ? std::optional<Gp>(x86::rax) : mapped(i.rs1);
    if (i.rs1 == 0) a_.xor_(d.r32(), d.r32());
    else if (k == 32) s ? a_.mov(d.r32(), s->r32()) : a_.mov(d.r32(), xreg32(i.rs1));
    else s ? a_.movzx(d.r32(), s->r16()) : a_.movzx(d.r32(), xreg16(i.rs1));
    write(i.rd, d);
    folded_ = idx_ + 1;
    return true;
  }

  // Emits the instruction inline if it is one of the hot, simple ones. rd = x0 makes ALU ops no-ops.
  bool emit_inline(const Insn& i) {
    using namespace x86;
    const int32_t imm = static_cast<int32_t>(i.imm);
    const bool alu = plain_alu(i);  // never a nop otherwise
    if (i.op == Op::FENCE) {  // no rd, and no ALU result: not a nop for all that
      if (fence_orders_store_load(i)) a_.mfence();  // as the interpreter's sem_FENCE
      return true;
    }
    if (alu && i.rd == 0) return true;  // HINTs and nops: an ALU result to x0 is discarded
    if (i.flags() & kCsr) return emit_fflags_access(i);
    const uint8_t sh = static_cast<uint8_t>(imm & 63), shw = static_cast<uint8_t>(imm & 31);
    const bool rv32 = plan_.cfg.rv32;
    switch (i.op) {
      case Op::LUI:
        if (auto m = mapped(i.rd)) mov_imm(*m, i.imm);
        else a_.mov(xreg(i.rd), Imm(imm));
        return true;
      case Op::AUIPC:
        mov_imm(dest(i.rd), guest_value(pc_ + i.imm));
        write(i.rd, dest(i.rd));
        return true;
      case Op::ADDI: {
        Gp d = dest(i.rd);
        if (in_place(i, false)) {
          a_.add(xreg(i.rd), Imm(imm));
          return true;
        }
        if (i.rs1 == 0) mov_imm(d, i.imm);
        else if (imm == 0) a_.mov(d, src(i.rs1, d));
        else a_.lea(d, ptr(src(i.rs1, d), imm));
        write(i.rd, d);
        return true;
      }
      case Op::ADD:
      case Op::SH1ADD:
      case Op::SH2ADD:
      case Op::SH3ADD: {
        unsigned shift = i.op == Op::ADD ? 0 : i.op == Op::SH1ADD ? 1 : i.op == Op::SH2ADD ? 2 : 3;
        Gp d = dest(i.rd);
        if (i.op == Op::ADD && (i.rs1 == 0 || i.rs2 == 0)) {  // mv (c.mv is add rd, x0, rs2)
          Gp s = src(i.rs1 ? i.rs1 : i.rs2, d);
          if (s.id() != d.id()) a_.mov(d, s);
          write(i.rd, d);
          return true;
        }
        if (i.op == Op::ADD && in_place(i, rv32)) {
          a_.add(xreg(i.rd), src(i.rs2, rcx));
          return true;
        }
        if (rv32) {
          a_.lea(d.r32(), ptr(src(i.rs2, rcx), src(i.rs1, rax), shift));
          a_.movsxd(d, d.r32());
        } else {
          a_.lea(d, ptr(src(i.rs2, rcx), src(i.rs1, rax), shift));
        }
        write(i.rd, d);
        return true;
      }
      case Op::ADDIW:
        if (imm == 0 && i.rs1 != 0) {  // sext.w: one movsxd from wherever rs1 is
          if (auto m = mapped(i.rs1)) a_.movsxd(dest(i.rd), m->r32());
          else if (rax_holds(i.rs1)) a_.movsxd(dest(i.rd), eax);
          else a_.movsxd(dest(i.rd), xreg32(i.rs1));
        } else {
          a_.lea(eax, ptr(src(i.rs1, rax), imm));
          a_.movsxd(dest(i.rd), eax);
        }
        write(i.rd, dest(i.rd));
        return true;
      case Op::SLTI:
      case Op::SLTIU:
      case Op::SLT:
      case Op::SLTU: {
        if (i.op == Op::SLTI || i.op == Op::SLTIU) a_.cmp(src(i.rs1, rax), Imm(imm));
        else a_.cmp(src(i.rs1, rax), src(i.rs2, rcx));
        if (i.op == Op::SLTI || i.op == Op::SLT) a_.setl(cl);
        else a_.setb(cl);
        a_.movzx(dest(i.rd).r32(), cl);
        write(i.rd, dest(i.rd));
        return true;
      }
      case Op::XORI: alu_imm(i, [&](auto d) { a_.xor_(d, Imm(imm)); }); return true;
      case Op::ORI: alu_imm(i, [&](auto d) { a_.or_(d, Imm(imm)); }); return true;
      case Op::ANDI: alu_imm(i, [&](auto d) { a_.and_(d, Imm(imm)); }); return true;
      case Op::SLLI:
        if (!zext_pair(i)) alu_imm(i, [&](auto d) { a_.shl(d, Imm(sh)); });
        return true;
      case Op::SRLI: alu_imm(i, [&](auto d) { a_.shr(d, Imm(sh)); }); return true;
      case Op::SRAI: alu_imm(i, [&](auto d) { a_.sar(d, Imm(sh)); }); return true;
      case Op::RORI: alu_imm(i, [&](Gp d) { a_.ror(d, Imm(sh)); }); return true;
      // RV32: the 32-bit forms, sign-extended.
      case Op::BSETI: alu_imm(i, [&](Gp d) { a_.bts(d, Imm(sh)); }, rv32); return true;
      case Op::BCLRI: alu_imm(i, [&](Gp d) { a_.btr(d, Imm(sh)); }, rv32); return true;
      case Op::BINVI: alu_imm(i, [&](Gp d) { a_.btc(d, Imm(sh)); }, rv32); return true;
      case Op::REV8: alu_imm(i, [&](Gp d) { a_.bswap(d); }, rv32); return true;
      case Op::SLLIW: alu_imm(i, [&](Gp d) { a_.shl(d, Imm(shw)); }, true); return true;
      case Op::SRLIW: alu_imm(i, [&](Gp d) { a_.shr(d, Imm(shw)); }, true, shw == 0); return true;
      case Op::SRAIW: alu_imm(i, [&](Gp d) { a_.sar(d, Imm(shw)); }, true); return true;
      case Op::RORIW: alu_imm(i, [&](Gp d) { a_.ror(d, Imm(shw)); }, true); return true;
      case Op::SLLI_UW:
        a_.mov(dest(i.rd).r32(), src(i.rs1, dest(i.rd)).r32());  // zero-extends
        if (sh) a_.shl(dest(i.rd), Imm(sh));
        write(i.rd, dest(i.rd));
        return true;
      case Op::SUB: alu_reg(i, [&](auto d, auto s) { a_.sub(d, s); }, false); return true;
      case Op::XOR: alu_reg(i, [&](auto d, auto s) { a_.xor_(d, s); }, true); return true;
      case Op::OR: alu_reg(i, [&](auto d, auto s) { a_.or_(d, s); }, true); return true;
      case Op::AND: alu_reg(i, [&](auto d, auto s) { a_.and_(d, s); }, true); return true;
      case Op::MUL: alu_reg(i, [&](Gp d, auto s) { a_.imul(d, s); }, true); return true;
      case Op::XNOR: alu_reg(i, [&](Gp d, auto s) { a_.xor_(d, s); a_.not_(d); }, true); return true;
      case Op::ADDW: alu_reg(i, [&](Gp d, auto s) { a_.add(d, s); }, true, true); return true;
      case Op::SUBW: alu_reg(i, [&](Gp d, auto s) { a_.sub(d, s); }, false, true); return true;
      case Op::MULW: alu_reg(i, [&](Gp d, auto s) { a_.imul(d, s); }, true, true); return true;
      case Op::ANDN:
      case Op::ORN: {
        Gp s2 = src(i.rs2, rcx);
        if (s2.id() != rcx.id()) a_.mov(rcx, s2);
        a_.not_(rcx);
        Gp s1 = src(i.rs1, rax);
        Gp d = dest(i.rd);
        if (s1.id() != d.id()) a_.mov(d, s1);
        if (i.op == Op::ANDN) a_.and_(d, rcx);
        else a_.or_(d, rcx);
        write(i.rd, d);
        return true;
      }
      case Op::SLL: alu_shift(i, [&](Gp d) { a_.shl(d, cl); }, false); return true;
      case Op::SRL: alu_shift(i, [&](Gp d) { a_.shr(d, cl); }, false); return true;
      case Op::SRA: alu_shift(i, [&](Gp d) { a_.sar(d, cl); }, false); return true;
      case Op::ROL: alu_shift(i, [&](Gp d) { a_.rol(d, cl); }, false); return true;
      case Op::ROR: alu_shift(i, [&](Gp d) { a_.ror(d, cl); }, false); return true;
      case Op::SLLW: alu_shift(i, [&](Gp d) { a_.shl(d, cl); }, true); return true;
      case Op::SRLW: alu_shift(i, [&](Gp d) { a_.shr(d, cl); }, true); return true;
      case Op::SRAW: alu_shift(i, [&](Gp d) { a_.sar(d, cl); }, true); return true;
      case Op::ROLW: alu_shift(i, [&](Gp d) { a_.rol(d, cl); }, true); return true;
      case Op::RORW: alu_shift(i, [&](Gp d) { a_.ror(d, cl); }, true); return true;
      case Op::MULH:
      case Op::MULHU: {
        if (rv32) return false;  // the high half of a 64-bit product: rare enough for the helper
        Gp s2 = src(i.rs2, rcx);
        Gp s1 = src(i.rs1, rax);
        if (s1.id() != rax.id()) a_.mov(rax, s1);
        if (i.op == Op::MULH) a_.imul(s2);
        else a_.mul(s2);
        write(i.rd, rdx);
        return true;
      }
      case Op::DIV:
      case Op::DIVU:
      case Op::REM:
      case Op::REMU:
        return !rv32 && emit_div(i, false);
      case Op::DIVW:
      case Op::DIVUW:
      case Op::REMW:
      case Op::REMUW:
        return emit_div(i, true);
      case Op::ADD_UW:
      case Op::SH1ADD_UW:
      case Op::SH2ADD_UW:
      case Op::SH3ADD_UW: {
        unsigned shift = i.op == Op::ADD_UW ? 0 : i.op == Op::SH1ADD_UW ? 1 : i.op == Op::SH2ADD_UW ? 2 : 3;
        Gp s2 = src(i.rs2, rcx);
        a_.mov(eax, src(i.rs1, rax).r32());  // zero-extends
        a_.lea(dest(i.rd), ptr(s2, rax, shift));
        write(i.rd, dest(i.rd));
        return true;
      }
      case Op::MIN: alu_reg(i, [&](Gp d, Gp s) { a_.cmp(d, s); a_.cmovg(d, s); }, true); return true;
      case Op::MAX: alu_reg(i, [&](Gp d, Gp s) { a_.cmp(d, s); a_.cmovl(d, s); }, true); return true;
      case Op::MINU: alu_reg(i, [&](Gp d, Gp s) { a_.cmp(d, s); a_.cmova(d, s); }, true); return true;
      case Op::MAXU: alu_reg(i, [&](Gp d, Gp s) { a_.cmp(d, s); a_.cmovb(d, s); }, true); return true;
      // bts/btr/btc with a register bit offset take it modulo the operand size: 64, or RV32's 32.
      case Op::BSET: alu_reg(i, [&](Gp d, Gp s) { a_.bts(d, s); }, false, rv32); return true;
      case Op::BCLR: alu_reg(i, [&](Gp d, Gp s) { a_.btr(d, s); }, false, rv32); return true;
      case Op::BINV: alu_reg(i, [&](Gp d, Gp s) { a_.btc(d, s); }, false, rv32); return true;
      case Op::SEXT_B:
      case Op::SEXT_H:
      case Op::ZEXT_H: {
        Gp s = src(i.rs1, rax);
        Gp d = dest(i.rd);
        if (i.op == Op::SEXT_B) a_.movsx(d, s.r8Lo());
        else if (i.op == Op::SEXT_H) a_.movsx(d, s.r16());
        else a_.movzx(d.r32(), s.r16());
        write(i.rd, d);
        return true;
      }
      case Op::BEXT:
      case Op::BEXTI: {
        Gp s1 = src(i.rs1, rax);
        if (i.op == Op::BEXT && rv32) a_.bt(s1.r32(), src(i.rs2, rcx).r32());
        else if (i.op == Op::BEXT) a_.bt(s1, src(i.rs2, rcx));
        else a_.bt(s1, Imm(sh));
        a_.setc(cl);
        a_.movzx(dest(i.rd).r32(), cl);
        write(i.rd, dest(i.rd));
        return true;
      }
      case Op::CZERO_EQZ:
      case Op::CZERO_NEZ: {
        Gp s1 = src(i.rs1, rax);
        if (s1.id() != rax.id()) a_.mov(rax, s1);
        Gp s2 = src(i.rs2, rcx);
        a_.xor_(edx, edx);
        a_.test(s2, s2);
        if (i.op == Op::CZERO_EQZ) a_.cmovz(rax, rdx);
        else a_.cmovnz(rax, rdx);
        write(i.rd, rax);
        return true;
      }
      case Op::PAUSE:
        return true;
      case Op::LB: return emit_load(i, 1, true);
      case Op::LH: return emit_load(i, 2, true);
      case Op::LW: return emit_load(i, 4, true);
      case Op::LD: return emit_load(i, 8, true);
      case Op::LBU: return emit_load(i, 1, false);
      case Op::LHU: return emit_load(i, 2, false);
      case Op::LWU: return emit_load(i, 4, false);
      case Op::SB: return emit_store(i, 1);
      case Op::SH: return emit_store(i, 2);
      case Op::SW: return emit_store(i, 4);
      case Op::SD: return emit_store(i, 8);
      default: return false;
    }
  }

  // Division on x86's div/idiv (the W forms on 32 bits, sign-extended). The cases RISC-V defines
  // and x86 faults on go to the semantics out of line: a zero divisor, and for the signed forms a
  // divisor of -1 (which covers the overflow of the most negative dividend).
  bool emit_div(const Insn& i, bool word) {
    using namespace x86;
    const bool is_signed = i.op == Op::DIV || i.op == Op::REM || i.op == Op::DIVW || i.op == Op::REMW;
    const bool rem = i.op == Op::REM || i.op == Op::REMU || i.op == Op::REMW || i.op == Op::REMUW;
    const Gp divisor = word ? Gp(ecx) : Gp(rcx), dividend = word ? Gp(eax) : Gp(rax), high = word ? Gp(edx) : Gp(rdx);
    Label slow = a_.newLabel(), back = a_.newLabel();
    Gp s2 = src(i.rs2, rcx);
    if (s2.id() != rcx.id()) a_.mov(rcx, s2);
    a_.test(divisor, divisor);
    a_.jz(slow);
    if (is_signed) {
      a_.cmp(divisor, Imm(-1));
      a_.je(slow);
    }
    Gp s1 = src(i.rs1, rax);
    if (s1.id() != rax.id()) a_.mov(rax, s1);
    if (is_signed) {
      word ? a_.cdq(edx, eax) : a_.cqo(rdx, rax);
      a_.idiv(high, dividend, divisor);
    } else {
      a_.xor_(edx, edx);
      a_.div(high, dividend, divisor);
    }
    const Gp result = rem ? rdx : rax;
    if (word) a_.movsxd(result, result.r32());
    write(i.rd, result);
    bind(back);
    slow_path(i, slow, back);
    return true;
  }

  // --- memory: one inline fast path, the semantics out of line for everything else ---
  // Computes the guest address and returns the host operand for the access, jumping to `slow` when
  // the fast path cannot do it: outside flat memory (user mode), or a software-TLB miss (system mode).
  Mem host_operand(const Insn& i, unsigned size, bool store, Label slow) {
    const bool flat64 = cfg_.flat_limit && !plan_.cfg.rv32 && i.rs1 && i.imm >= -2048 && i.imm < 2048;
    if (flat64 && checked_[i.rs1] <= i.imm && uint64_t(i.imm - checked_[i.rs1]) + size <= cfg_.flat_guard) {
      // x[rs1] + imm < flat_limit + flat_guard, and no higher: past the limit the host faults, and
      // the fault is the guest's page fault at this access (runtime/host_fault.h).
      return x86::ptr(src(i.rs1, x86::rax), static_cast<int32_t>(cfg_.flat_base + i.imm), size);
    }
    if (flat64) checked_[i.rs1] = std::min(checked_[i.rs1], static_cast<int32_t>(i.imm));
    Gp s = src(i.rs1, x86::rax);
    if (plan_.cfg.rv32) {
      a_.lea(x86::eax, x86::ptr(s, static_cast<int32_t>(i.imm)));  // wraps at 2^32 and zero-extends
    } else if (cfg_.flat_limit && !i.imm) {  // the base register is the address: no copy needed
      a_.cmp(s, hart_q(offsetof(Hart, mem_limit)));
      a_.jae(slow);
      return x86::ptr(s, static_cast<int32_t>(cfg_.flat_base), size);
    } else if (i.imm || s.id() != x86::rax.id()) {
      a_.lea(x86::rax, x86::ptr(s, static_cast<int32_t>(i.imm)));
    }
    if (cfg_.flat_limit) {
      a_.cmp(x86::rax, hart_q(offsetof(Hart, mem_limit)));
      a_.jae(slow);
      return x86::ptr(x86::rax, static_cast<int32_t>(cfg_.flat_base), size);
    }
    const size_t set = offsetof(Hart, tlb) + cfg_.mmu_index * sizeof(Tlb) + (store ? offsetof(Tlb, write) : offsetof(Tlb, read));
    // The entry's byte offset, page number bits 7:0 times sizeof(TlbEntry), in three instructions.
    static_assert(sizeof(TlbEntry) == 16);
    a_.mov(x86::ecx, x86::eax);
    a_.shr(x86::ecx, Imm(12 - 4));
    a_.and_(x86::ecx, Imm((Tlb::kSize - 1) << 4));
    a_.mov(x86::rdx, x86::rax);
    a_.and_(x86::rdx, Imm(static_cast<int32_t>(0xfffff000u | (size - 1))));  // misaligned never matches
    a_.cmp(x86::rdx, x86::qword_ptr(kHart, x86::rcx, 0, static_cast<int32_t>(set)));
    a_.jne(slow);
    a_.add(x86::rax, x86::qword_ptr(kHart, x86::rcx, 0, static_cast<int32_t>(set + 8)));
    return x86::ptr(x86::rax, 0, size);
  }
  size_t fault_site() {
    b_.faults.push_back({static_cast<uint32_t>(a_.offset()), static_cast<uint16_t>(idx_),
                         static_cast<uint16_t>(pending_), 0, fcopies_at_insn()});
    return b_.faults.size() - 1;
  }
  // FaultSite::fcopies for this instruction's state: its f registers not in the hart.
  uint16_t fcopies_at_insn() {
    if (!at_insn_.dirty) return 0;
    FCopies c{at_insn_.dirty, 0};
    unsigned shift = 0;
    for (uint32_t m = c.dirty; m; m &= m - 1, shift += 4)
      c.xmm |= static_cast<uint64_t>(at_insn_.cache[std::countr_zero(m)]) << shift;
    if (b_.fcopies.empty() || !(b_.fcopies.back() == c)) b_.fcopies.push_back(c);
    return static_cast<uint16_t>(b_.fcopies.size());
  }
  // The out-of-line access through the semantics; for a store, `site` is its fault site, which
  // learns where this code is (FaultSite::slow_off).
  // `in_rax`: a register in the hart that the fast path leaves in rax at `back` (rax_holds), which
  // the slow path loads there too.
  void slow_path(const Insn& i, Label slow, Label back, size_t site = SIZE_MAX, unsigned in_rax = 0) {
    // The fast path goes on after the helper's C++ with r15 as it was. In system mode that C++ may
    // take the ring's records (a device access; Hart::record_transfers), so the next record stores
    // r15 again; in user mode it takes none, and a record after the access shares r15 as before.
    if (!cfg_.flat_limit) ring_r15_stored_ = false;
    flags_folded_ = false;
    const unsigned saved_pending = pending_;
    const auto saved_ev = pend_ev_;
    const uint32_t rejoin = keep(fstate()), f = keep(at_insn_);
    slow_paths_.push_back([this, &i, slow, back, saved_pending, saved_ev, idx = static_cast<uint32_t>(idx_),
                           site = static_cast<uint32_t>(site), rejoin, f, in_rax = static_cast<uint8_t>(in_rax)] {
      bind(slow);
      if (site != UINT32_MAX) b_.faults[site].slow_off = static_cast<uint32_t>(a_.offset());
      resume_at(idx, saved_pending, saved_ev, f);
      write_back_f();
      if (!plan_.cfg.counts()) {  // the access thunk; counted events need the pending counts inline
        call_thunk(tramp_.access, saved_pending);
      } else {
        emit_helper(i);
        // The fast path continues with the same pending counts: undo the sync the helper did.
        a_.sub(kInstretReg, Imm(saved_pending));
        emit_event_adds(saved_ev, -1);
      }
      fcache_reload(fstates_[rejoin].cache);  // C++ clobbered them; the hart has the values
      if (in_rax) a_.mov(x86::rax, xreg(in_rax));
      a_.jmp(back);
    });
  }

  // After instruction i: its rd's check is gone, unless i is an addi from a checked register (a
  // pointer stepping through memory), which keeps that check at the offset it now has from rd.
  // Stores, branches, fences and cache-block ops have no rd; the F and D ops below write an f
  // register, never x[rd]. (Forgetting is always safe: any other op forgets its rd.)
  void forget_or_move_check(const Insn& i) {
    const Fmt fmt = op_info(i.op).fmt;
    if (fmt == Fmt::S || fmt == Fmt::B || fmt == Fmt::FENCE || fmt == Fmt::CBO || writes_f_register(i.op)) return;
    int32_t moved = kUnchecked;
    if (i.op == Op::ADDI && i.rd && !plan_.cfg.rv32 && checked_[i.rs1] != kUnchecked)
      moved = static_cast<int32_t>(checked_[i.rs1] - i.imm);  // within +-2^17 in a block of 64
    checked_[i.rd] = moved;
  }
  static bool writes_f_register(Op op) {
    switch (op) {
      case Op::FLW: case Op::FLD:
      case Op::FADD_S: case Op::FSUB_S: case Op::FMUL_S: case Op::FDIV_S: case Op::FSQRT_S:
      case Op::FADD_D: case Op::FSUB_D: case Op::FMUL_D: case Op::FDIV_D: case Op::FSQRT_D:
      case Op::FMADD_S: case Op::FMSUB_S: case Op::FNMSUB_S: case Op::FNMADD_S:
      case Op::FMADD_D: case Op::FMSUB_D: case Op::FNMSUB_D: case Op::FNMADD_D:
      case Op::FSGNJ_S: case Op::FSGNJN_S: case Op::FSGNJX_S: case Op::FSGNJ_D: case Op::FSGNJN_D: case Op::FSGNJX_D:
      case Op::FMIN_S: case Op::FMAX_S: case Op::FMIN_D: case Op::FMAX_D:
        return true;
      default:
        return false;
    }
  }

  bool emit_load(const Insn& i, unsigned size, bool sign) {
    Label slow = a_.newLabel(), back = a_.newLabel();
    const Mem m = host_operand(i, size, false, slow);
    Gp d = i.rd ? dest(i.rd) : Gp(x86::rax);
    fault_site();
    switch (size) {
      case 1: sign ? a_.movsx(d, m) : a_.movzx(d.r32(), m); break;
      case 2: sign ? a_.movsx(d, m) : a_.movzx(d.r32(), m); break;
      case 4: sign ? a_.movsxd(d, m) : a_.mov(d.r32(), m); break;
      default: a_.mov(d, m); break;
    }
    write(i.rd, d);
    bind(back);
    const unsigned in_rax = d.id() == x86::rax.id() ? i.rd : 0;
    if (in_rax) rax_copy_ = {in_rax, a_.offset()};
    slow_path(i, slow, back, SIZE_MAX, in_rax);
    return true;
  }

  bool emit_store(const Insn& i, unsigned size) {
    Label slow = a_.newLabel(), back = a_.newLabel();
    const Mem m = host_operand(i, size, true, slow);
    // rax holds one register at most: if m's base is rax with no load since, it is that one.
    const Gp v = rax_holds(i.rs2) ? Gp(x86::rax) : src(i.rs2, x86::rcx);
    const size_t site = fault_site();
    switch (size) {
      case 1: a_.mov(m, v.r8Lo()); break;
      case 2: a_.mov(m, v.r16()); break;
      case 4: a_.mov(m, v.r32()); break;
      default: a_.mov(m, v); break;
    }
    bind(back);
    slow_path(i, slow, back, site);
    return true;
  }


  // --- F and D: the common operations inline on SSE, the rest (and every NaN result) in helpers ---
  static Mem freg(unsigned r) { return x86::qword_ptr(kHart, static_cast<int32_t>(offsetof(Hart, f) + 8 * r)); }
  static Mem freg32(unsigned r) { return x86::dword_ptr(kHart, static_cast<int32_t>(offsetof(Hart, f) + 8 * r)); }
  static Mem freg_box(unsigned r) { return x86::dword_ptr(kHart, static_cast<int32_t>(offsetof(Hart, f) + 8 * r + 4)); }

  bool rne(const Insn& i) const { return i.rm == 0 || (i.rm == 7 && cfg_.frm_rne); }

  // --- copies of double f registers in xmm2-xmm15 (xmm0 and xmm1 are scratch, and CTR's) ---
  static constexpr unsigned kFcacheFirst = 2, kFcacheCount = 14;
  static std::array<int8_t, 32> filled_fcache() {
    std::array<int8_t, 32> c;
    c.fill(-1);
    return c;
  }
  // Instructions whose code below keeps the copies current (or only reads f registers).
  static bool keeps_fcache(const Insn& i) {
    switch (i.op) {
      case Op::FADD_D: case Op::FSUB_D: case Op::FMUL_D: case Op::FDIV_D: case Op::FSQRT_D:
      case Op::FMADD_D: case Op::FMSUB_D: case Op::FNMSUB_D: case Op::FNMADD_D:
      case Op::FEQ_D: case Op::FLT_D: case Op::FLE_D: case Op::FEQ_S: case Op::FLT_S: case Op::FLE_S:
      case Op::FMV_X_D: case Op::FMV_X_W: case Op::FCVT_W_D: case Op::FCVT_L_D: case Op::FCVT_W_S: case Op::FCVT_L_S:
      case Op::FLD: case Op::FSD: case Op::FSW:
        return true;
      case Op::FSGNJ_D:
        return i.rs1 == i.rs2;  // fmv.d
      default:
        return false;
    }
  }
  // Instructions whose code reads f registers only through fsrc and fload (or reads none): others
  // find them in the hart, so the copies the hart lacks go there first.
  static bool uses_f_copies(const Insn& i) {
    switch (i.op) {
      case Op::FEQ_S: case Op::FLT_S: case Op::FLE_S: case Op::FMV_X_W: case Op::FCVT_W_S: case Op::FCVT_L_S:
      case Op::FSW:
        return false;
      default:
        return keeps_fcache(i);
    }
  }
  // An instruction that writes f[r] in the hart (!keeps_fcache) ends its copy; its value went to the
  // hart before (write_back_f).
  void fcache_drop(unsigned r) { fcache_[r] = -1; }
  FState fstate() const { return {fcache_, fdirty_}; }
  // For out-of-line code: an index in fstates_.
  uint32_t keep(const FState& f) {
    fstates_.push_back(f);
    return static_cast<uint32_t>(fstates_.size() - 1);
  }
  // The hart gets every f register only a copy holds: before C++, an exit, or code that reads the
  // hart's f registers.
  void write_back_f() {
    for (uint32_t m = fdirty_; m; m &= m - 1) {
      const unsigned r = static_cast<unsigned>(std::countr_zero(m));
      a_.movsd(freg(r), x86::xmm(fcache_[r]));
    }
    fdirty_ = 0;
  }
  void fcache_reload(const std::array<int8_t, 32>& cache) {
    for (unsigned r = 0; r < 32; r++)
      if (cache[r] >= 0) a_.movsd(x86::xmm(cache[r]), freg(r));
  }
  // f[r] as an SSE source operand: its copy, or the hart.
  Operand fsrc(unsigned r) const {
    if (fcache_[r] >= 0) return x86::xmm(fcache_[r]);
    return freg(r);
  }
  // d = f[r] (the low 64 bits; the rest is don't-care).
  void fload(x86::Xmm d, unsigned r) {
    if (fcache_[r] >= 0) a_.movaps(d, x86::xmm(fcache_[r]));
    else a_.movsd(d, freg(r));
  }
  // The register fstore(rd) will keep rd's copy in: the one it has, or the next of the round robin,
  // whose register goes to the hart now if only that copy has it. Code may compute rd there before
  // fstore (and before its sources are all read: until fstore, the copies are as they were), since a
  // slow path where it rejoins reloads it; but not over a copy the hart lacks (fdirty_), which the
  // slow path writes back, nor before an instruction's first jump to its slow path, which expects
  // the write-back done (at_insn_).
  x86::Xmm fcache_target(unsigned rd) {
    if (fcache_[rd] >= 0) return x86::xmm(fcache_[rd]);
    const int c = static_cast<int>(kFcacheFirst + fcache_next_);
    for (unsigned r = 0; r < 32; r++)
      if (fcache_[r] == c && (fdirty_ >> r & 1)) {
        a_.movsd(freg(r), x86::xmm(c));
        fdirty_ &= ~(1u << r);
        at_insn_.dirty &= ~(1u << r);
      }
    return x86::xmm(c);
  }
  // f[rd] = the double in v, in rd's copy only (the register the round robin takes it from keeps no
  // other copy); the hart gets it when something reads it there (write_back_f).
  void fstore(unsigned rd, x86::Xmm v) {
    const x86::Xmm c = fcache_target(rd);
    if (fcache_[rd] < 0) {
      fcache_next_ = (fcache_next_ + 1) % kFcacheCount;
      for (auto& r : fcache_)
        if (r == static_cast<int>(c.id())) r = -1;
      fcache_[rd] = static_cast<int8_t>(c.id());
    }
    if (c.id() != v.id()) a_.movaps(c, v);
    fdirty_ |= 1u << rd;
  }
  // d = op(f[rs1], f[rs2]) for a scalar double op: the AVX form `avx` (d need not be xmm0, and may
  // hold a source) or, without AVX, the SSE form `sse` in xmm0.
  void fp_binary(InstId sse_id, InstId avx_id, x86::Xmm d, unsigned rs1, unsigned rs2) {
    if (d.id() == x86::xmm0.id()) {
      fload(x86::xmm0, rs1);
      sse(sse_id, x86::xmm0, rs2);
      return;
    }
    Operand a = fsrc(rs1);
    if (!a.isReg()) {
      a_.movsd(x86::xmm0, freg(rs1));
      a = x86::xmm0;
    }
    a_.emit(avx_id, d, a, fsrc(rs2));
  }
  void sse(InstId id, x86::Xmm d, unsigned r) { a_.emit(id, d, fsrc(r)); }

  // Jumps to `slow` unless f[r] is a properly NaN-boxed single.
  void check_boxed(unsigned r, Label slow) {
    a_.cmp(freg_box(r), Imm(-1));
    a_.jne(slow);
  }
  // The helper re-runs the whole instruction from its unchanged inputs, then rejoins at `back`.
  void fp_slow_path(const Insn& i, Label slow, Label back) { slow_path(i, slow, back); }

  void store_single(unsigned rd, x86::Xmm v) {
    a_.movss(freg32(rd), v);
    a_.mov(freg_box(rd), Imm(-1));
  }

  // The double ops whose inline x86 result is NaN exactly when RISC-V's is, with the same flags,
  // whatever the payloads of NaN operands (x86 makes every NaN result quiet), and whose operands are
  // rs1 and, but for fsqrt, rs2.
  bool propagates_nan(const Insn& i) const {
    switch (i.op) {
      case Op::FADD_D: case Op::FSUB_D: case Op::FMUL_D: case Op::FDIV_D: case Op::FSQRT_D: return rne(i);
      default: return false;
    }
  }
  // Whether the op at idx_, writing f[rd], may leave its NaN check to the next one: after integer ALU
  // ops only (nothing between can fault, leave or read f registers), a propagates_nan op that reads
  // rd, whose result is then NaN too when rd's is. Its check covers rd's: where it finds a NaN, it
  // makes an x86 NaN in rd canonical too (nan_unchecked_). One register at a time.
  bool defers_nan_check(const Insn& i) const {
    if (!propagates_nan(i) || nan_unchecked_ >= 0) return false;
    for (size_t k = idx_ + 1; k < plan_.insns.size(); k++) {
      const jit::PlanInsn& n = plan_.insns[k];
      if (n.exit != jit::Exit::None) return false;
      if (plain_alu(n.insn)) continue;
      return propagates_nan(n.insn) && (n.insn.rs1 == i.rd || (n.insn.op != Op::FSQRT_D && n.insn.rs2 == i.rd));
    }
    return false;
  }
  // f[r] = the canonical NaN if it is a NaN, in its copy `copy` or else in the hart. Clobbers rax
  // and xmm1.
  void canonical_if_nan(unsigned r, int copy) {
    Label done = a_.newLabel();
    const x86::Xmm v = copy >= 0 ? x86::xmm(copy) : x86::xmm1;
    if (copy < 0) a_.movsd(v, freg(r));
    a_.ucomisd(v, v);
    a_.jnp(done);
    a_.mov(x86::rax, Imm(kCanonicalNaNDouble));
    if (copy >= 0) a_.movq(v, x86::rax);
    else a_.mov(freg(r), x86::rax);
    bind(done);
  }

  // d = op(f[rs1], f[rs2]) in RNE. A NaN result of a propagates_nan op becomes the canonical NaN out
  // of line, with the flags x86 raised; any other op's goes to the helper, which re-runs it. d is
  // xmm0, or for a double result with AVX (cfg_.host_fma: FMA3 is VEX-encoded) rd's copy: one
  // three-operand instruction then computes it where it stays.
  template <typename F>
  bool fp_arith(const Insn& i, bool single, unsigned nsrc, F op) {
    if (!rne(i)) return false;
    Label slow = a_.newLabel(), back = a_.newLabel();
    const unsigned srcs[3] = {i.rs1, i.rs2, i.rs3};
    if (single)
      for (unsigned k = 0; k < nsrc; k++) check_boxed(srcs[k], slow);
    // rd's copy, claimed before any jump to the slow path (fcache_target), and computed into unless
    // the hart lacks rd's old value, which the helper may need.
    const bool nan_inline = propagates_nan(i);
    const x86::Xmm target = single ? x86::xmm0 : fcache_target(i.rd);
    const x86::Xmm d = !single && cfg_.host_fma && (nan_inline || !(fdirty_ >> i.rd & 1)) ? target : x86::xmm0;
    op(slow, d);
    if (single) {
      a_.ucomiss(x86::xmm0, x86::xmm0);
      a_.jp(slow);
      store_single(i.rd, x86::xmm0);
    } else if (nan_inline && defers_nan_check(i)) {
      fstore(i.rd, d);
      nan_unchecked_ = static_cast<int>(i.rd);
      return true;  // no slow path: nothing jumps to `slow`
    } else if (nan_inline) {
      Label canonical = a_.newLabel(), checked = a_.newLabel();
      a_.ucomisd(d, d);
      a_.jp(canonical);
      // The earlier result is in its copy, unless this op's rd took that copy (fcache_target wrote
      // it to the hart then, and it is clean, though still mapped until fstore).
      const int r = nan_unchecked_ != static_cast<int>(i.rd) ? nan_unchecked_ : -1;
      const int copy = r >= 0 && (fdirty_ >> r & 1) ? fcache_[r] : -1;
      slow_paths_.push_back([this, canonical, checked, d, r, copy] {
        bind(canonical);
        if (r >= 0) canonical_if_nan(static_cast<unsigned>(r), copy);
        a_.mov(x86::rax, Imm(kCanonicalNaNDouble));
        a_.movq(d, x86::rax);
        a_.jmp(checked);
      });
      bind(checked);
      nan_unchecked_ = -1;
      fstore(i.rd, d);
      return true;
    } else {
      a_.ucomisd(d, d);
      a_.jp(slow);
      fstore(i.rd, d);
    }
    bind(back);
    fp_slow_path(i, slow, back);
    return true;
  }

  // rd = compare(f[rs1], f[rs2]): feq quietly (ucomis), flt/fle signalling (comis), as RISC-V requires.
  bool fp_compare(const Insn& i, bool single) {
    Label slow = a_.newLabel(), back = a_.newLabel();
    if (single) {
      check_boxed(i.rs1, slow);
      check_boxed(i.rs2, slow);
    }
    const bool eq = i.op == Op::FEQ_S || i.op == Op::FEQ_D;
    const bool lt = i.op == Op::FLT_S || i.op == Op::FLT_D;
    // eq: a == b, ordered. lt/le: computed as b > a / b >= a, which unordered operands never satisfy.
    const unsigned first = eq ? i.rs1 : i.rs2, second = eq ? i.rs2 : i.rs1;
    if (single) {
      a_.movss(x86::xmm0, freg32(first));
      eq ? a_.ucomiss(x86::xmm0, freg32(second)) : a_.comiss(x86::xmm0, freg32(second));
    } else {
      fload(x86::xmm0, first);
      sse(eq ? x86::Inst::kIdUcomisd : x86::Inst::kIdComisd, x86::xmm0, second);
    }
    // Unordered operands may have raised invalid: with the flags folded, fold it in too (out of line),
    // which folds them again. The result of every compare is 0 then.
    Label result = a_.newLabel();
    if (flags_folded_) {
      Label unordered = a_.newLabel();
      a_.jp(unordered);
      slow_paths_.push_back([this, unordered, result] {
        bind(unordered);
        fold_fp_flags(a_, x86::rdx, x86::rcx);
        a_.xor_(x86::eax, x86::eax);
        a_.jmp(result);
      });
    }
    if (eq) {
      a_.sete(x86::al);
      a_.setnp(x86::cl);
      a_.and_(x86::al, x86::cl);
    } else if (lt) {
      a_.seta(x86::al);
    } else {
      a_.setae(x86::al);
    }
    bind(result);
    a_.movzx(dest(i.rd).r32(), x86::al);
    write(i.rd, dest(i.rd));
    bind(back);
    if (single) fp_slow_path(i, slow, back);  // only singles have one: an unboxed operand
    return true;
  }

  // fsgnj family on the raw bits; `w` = 32 for single (boxed), 64 for double.
  bool fp_sign_inject(const Insn& i, bool single) {
    Label slow = a_.newLabel(), back = a_.newLabel();
    const unsigned sign = single ? 31 : 63;
    if (single) {
      check_boxed(i.rs1, slow);
      check_boxed(i.rs2, slow);
    }
    a_.mov(x86::rax, freg(i.rs1));
    a_.mov(x86::rcx, freg(i.rs2));
    if (i.op == Op::FSGNJN_S || i.op == Op::FSGNJN_D) a_.not_(x86::rcx);
    if (i.op == Op::FSGNJX_S || i.op == Op::FSGNJX_D) {
      a_.bt(x86::rcx, Imm(sign));
      Label keep = a_.newLabel();
      a_.jnc(keep);
      a_.btc(x86::rax, Imm(sign));
      bind(keep);
    } else {
      a_.btr(x86::rax, Imm(sign));
      a_.bt(x86::rcx, Imm(sign));
      Label pos = a_.newLabel();
      a_.jnc(pos);
      a_.bts(x86::rax, Imm(sign));
      bind(pos);
    }
    a_.mov(freg(i.rd), x86::rax);  // for single, bits 63:32 of rs1 were all ones and still are
    bind(back);
    if (single) fp_slow_path(i, slow, back);
    return true;
  }

  bool emit_fp(const Insn& i) { return cfg_.fp_inline && emit_fp_op(i); }

  // Whether i's inline code leaves flags_folded_ true: integer ALU ops, and the FP ops that raise no
  // host flag, or only in fp_compare's unordered case, which folds it. Should i go to a helper or
  // have a slow path after all, emit_helper and slow_path clear it.
  static bool keeps_flags_folded(const Insn& i) {
    if (custom_op(i)) return false;
    if (plain_alu(i)) return true;
    switch (i.op) {
      case Op::FEQ_D: case Op::FLT_D: case Op::FLE_D: case Op::FEQ_S: case Op::FLT_S: case Op::FLE_S:
      case Op::FSGNJ_D: case Op::FSGNJN_D: case Op::FSGNJX_D: case Op::FSGNJ_S: case Op::FSGNJN_S: case Op::FSGNJX_S:
      case Op::FMV_X_D: case Op::FMV_X_W: case Op::FMV_D_X: case Op::FMV_W_X:
        return true;
      default:
        return (i.flags() & kCsr) && static_cast<uint16_t>(i.imm) == csr::CSR_FFLAGS;
    }
  }

  // A Zicsr access to fflags (libm brackets quiet comparisons with frflags and fsflags), where FP
  // runs inline: the flags accrued in MXCSR folded in first, as the helper thunk does; a write then
  // makes MXCSR's flags the new fflags, as csr.cpp's load_host_flags does, but only when they differ
  // (ldmxcsr is slow, and restoring what frflags read changes nothing).
  bool emit_fflags_access(const Insn& i) {
    if (!cfg_.fp_inline || static_cast<uint16_t>(i.imm) != csr::CSR_FFLAGS) return false;
    const bool uimm = i.op == Op::CSRRWI || i.op == Op::CSRRSI || i.op == Op::CSRRCI;
    const bool rw = i.op == Op::CSRRW || i.op == Op::CSRRWI;
    const Mem fflags = x86::byte_ptr(kHart, static_cast<int32_t>(offsetof(Hart, fflags)));
    const Mem mxcsr = x86::dword_ptr(kHart, static_cast<int32_t>(offsetof(Hart, mxcsr_scratch)));
    if (!flags_folded_) fold_fp_flags(a_, x86::rdx, x86::rcx);  // leaves MXCSR in mxcsr_scratch
    flags_folded_ = true;  // a write below keeps it so: it makes mxcsr_scratch MXCSR again
    if (!rw && i.rs1 == 0) {  // a read
      if (i.rd == 0) return true;
      const Gp d = dest(i.rd);
      a_.movzx(d.r32(), fflags);
      write(i.rd, d);
      return true;
    }
    if (uimm) a_.mov(x86::ecx, Imm(i.rs1));
    else if (const Gp s = src(i.rs1, x86::rcx); s.id() != x86::rcx.id()) a_.mov(x86::ecx, s.r32());
    a_.movzx(x86::eax, fflags);
    if (i.op == Op::CSRRS || i.op == Op::CSRRSI) a_.or_(x86::ecx, x86::eax);
    if (i.op == Op::CSRRC || i.op == Op::CSRRCI) {
      a_.not_(x86::ecx);
      a_.and_(x86::ecx, x86::eax);
    }
    a_.and_(x86::ecx, Imm(0x1f));
    a_.mov(fflags, x86::cl);
    a_.mov(x86::rdx, Imm(reinterpret_cast<uint64_t>(kFflagsToMxcsr.data())));
    a_.mov(x86::edx, x86::dword_ptr(x86::rdx, x86::rcx, 2));
    Label same = a_.newLabel();
    a_.cmp(mxcsr, x86::edx);
    a_.je(same);
    a_.mov(mxcsr, x86::edx);
    a_.ldmxcsr(mxcsr);
    bind(same);
    write(i.rd, x86::rax);
    return true;
  }

  bool emit_fp_op(const Insn& i) {
    using namespace x86;
    switch (i.op) {
      case Op::FADD_D: return fp_arith(i, false, 2, [&](Label, Xmm d) { fp_binary(Inst::kIdAddsd, Inst::kIdVaddsd, d, i.rs1, i.rs2); });
      case Op::FSUB_D: return fp_arith(i, false, 2, [&](Label, Xmm d) { fp_binary(Inst::kIdSubsd, Inst::kIdVsubsd, d, i.rs1, i.rs2); });
      case Op::FMUL_D: return fp_arith(i, false, 2, [&](Label, Xmm d) { fp_binary(Inst::kIdMulsd, Inst::kIdVmulsd, d, i.rs1, i.rs2); });
      case Op::FDIV_D: return fp_arith(i, false, 2, [&](Label, Xmm d) { fp_binary(Inst::kIdDivsd, Inst::kIdVdivsd, d, i.rs1, i.rs2); });
      // sqrt's AVX form takes d's upper half from its second operand: rs1 there too, so that d's old
      // value is no dependency.
      case Op::FSQRT_D: return fp_arith(i, false, 1, [&](Label, Xmm d) { fp_binary(Inst::kIdSqrtsd, Inst::kIdVsqrtsd, d, i.rs1, i.rs1); });
      case Op::FADD_S: return fp_arith(i, true, 2, [&](Label, Xmm) { a_.movss(xmm0, freg32(i.rs1)); a_.addss(xmm0, freg32(i.rs2)); });
      case Op::FSUB_S: return fp_arith(i, true, 2, [&](Label, Xmm) { a_.movss(xmm0, freg32(i.rs1)); a_.subss(xmm0, freg32(i.rs2)); });
      case Op::FMUL_S: return fp_arith(i, true, 2, [&](Label, Xmm) { a_.movss(xmm0, freg32(i.rs1)); a_.mulss(xmm0, freg32(i.rs2)); });
      case Op::FDIV_S: return fp_arith(i, true, 2, [&](Label, Xmm) { a_.movss(xmm0, freg32(i.rs1)); a_.divss(xmm0, freg32(i.rs2)); });
      case Op::FSQRT_S: return fp_arith(i, true, 1, [&](Label, Xmm) { a_.sqrtss(xmm0, freg32(i.rs1)); });
      // Fused: xmm0 starts as rs3, xmm1 = rs1, then one rounding of +-(rs1 * rs2) +- rs3.
      case Op::FMADD_D:
      case Op::FMSUB_D:
      case Op::FNMSUB_D:
      case Op::FNMADD_D:
        if (!cfg_.host_fma) return false;
        return fp_arith(i, false, 3, [&](Label, Xmm d) {  // in xmm0: d may hold rs1 or rs2
          fload(xmm0, i.rs3);
          fload(xmm1, i.rs1);
          const InstId id = i.op == Op::FMADD_D   ? Inst::kIdVfmadd231sd
                            : i.op == Op::FMSUB_D  ? Inst::kIdVfmsub231sd
                            : i.op == Op::FNMSUB_D ? Inst::kIdVfnmadd231sd
                                                   : Inst::kIdVfnmsub231sd;
          a_.emit(id, xmm0, xmm1, fsrc(i.rs2));
          a_.movaps(d, xmm0);
        });
      case Op::FMADD_S:
      case Op::FMSUB_S:
      case Op::FNMSUB_S:
      case Op::FNMADD_S:
        if (!cfg_.host_fma) return false;
        return fp_arith(i, true, 3, [&](Label, Xmm) {
          a_.movss(xmm0, freg32(i.rs3));
          a_.movss(xmm1, freg32(i.rs1));
          if (i.op == Op::FMADD_S) a_.vfmadd231ss(xmm0, xmm1, freg32(i.rs2));
          else if (i.op == Op::FMSUB_S) a_.vfmsub231ss(xmm0, xmm1, freg32(i.rs2));
          else if (i.op == Op::FNMSUB_S) a_.vfnmadd231ss(xmm0, xmm1, freg32(i.rs2));
          else a_.vfnmsub231ss(xmm0, xmm1, freg32(i.rs2));
        });
      case Op::FEQ_D: case Op::FLT_D: case Op::FLE_D: return fp_compare(i, false);
      case Op::FEQ_S: case Op::FLT_S: case Op::FLE_S: return fp_compare(i, true);
      case Op::FSGNJ_D:
        if (i.rs1 == i.rs2) {  // fmv.d, compilers' register move: from copy to copy
          const Xmm d = fcache_target(i.rd);
          fload(d, i.rs1);
          fstore(i.rd, d);
          return true;
        }
        return fp_sign_inject(i, false);
      case Op::FSGNJN_D: case Op::FSGNJX_D: return fp_sign_inject(i, false);
      case Op::FSGNJ_S: case Op::FSGNJN_S: case Op::FSGNJX_S: return fp_sign_inject(i, true);
      case Op::FMV_X_D:
        if (fcache_[i.rs1] >= 0) a_.movq(dest(i.rd), x86::xmm(fcache_[i.rs1]));
        else a_.mov(dest(i.rd), freg(i.rs1));
        write(i.rd, dest(i.rd));
        return true;
      case Op::FMV_X_W:
        a_.movsxd(dest(i.rd), freg32(i.rs1));
        write(i.rd, dest(i.rd));
        return true;
      case Op::FMV_D_X:
        a_.mov(freg(i.rd), src(i.rs1, rax));
        return true;
      case Op::FMV_W_X:
        a_.mov(freg32(i.rd), src(i.rs1, rax).r32());
        a_.mov(freg_box(i.rd), Imm(-1));
        return true;
      // Integer to FP: exact for w/wu into double, otherwise rounded in RNE like the rest.
      case Op::FCVT_D_W:
      case Op::FCVT_D_WU:
      case Op::FCVT_D_L:
      case Op::FCVT_S_W:
      case Op::FCVT_S_WU:
      case Op::FCVT_S_L: {
        if (!rne(i)) return false;
        Gp s = src(i.rs1, rax);
        if (i.op == Op::FCVT_D_WU || i.op == Op::FCVT_S_WU) {
          a_.mov(eax, s.r32());
          s = rax;
        }
        const bool w = i.op == Op::FCVT_D_W || i.op == Op::FCVT_S_W;
        const bool single = i.op == Op::FCVT_S_W || i.op == Op::FCVT_S_WU || i.op == Op::FCVT_S_L;
        a_.xorps(xmm0, xmm0);  // no false dependency on xmm0's old value
        if (single) {
          a_.cvtsi2ss(xmm0, w ? s.r32() : s);
          store_single(i.rd, xmm0);
        } else {
          a_.cvtsi2sd(xmm0, w ? s.r32() : s);
          a_.movsd(freg(i.rd), xmm0);
        }
        return true;
      }
      // FP to integer, round toward zero (C casts): the host's "integer indefinite" result stands for
      // NaN or out of range, where RISC-V saturates: the helper handles those.
      case Op::FCVT_W_D:
      case Op::FCVT_L_D:
      case Op::FCVT_W_S:
      case Op::FCVT_L_S: {
        if (i.rm != 1) return false;
        Label slow = a_.newLabel(), back = a_.newLabel();
        const bool single = i.op == Op::FCVT_W_S || i.op == Op::FCVT_L_S;
        const bool word = i.op == Op::FCVT_W_D || i.op == Op::FCVT_W_S;
        if (single) check_boxed(i.rs1, slow);
        if (word) {
          single ? a_.cvttss2si(eax, freg32(i.rs1)) : a_.emit(Inst::kIdCvttsd2si, eax, fsrc(i.rs1));
          a_.cmp(eax, Imm(INT32_MIN));
          a_.je(slow);
          a_.movsxd(dest(i.rd), eax);
        } else {
          single ? a_.cvttss2si(rax, freg32(i.rs1)) : a_.emit(Inst::kIdCvttsd2si, rax, fsrc(i.rs1));
          a_.mov(rcx, Imm(INT64_MIN));
          a_.cmp(rax, rcx);
          a_.je(slow);
          if (dest(i.rd).id() != rax.id()) a_.mov(dest(i.rd), rax);
        }
        write(i.rd, dest(i.rd));
        bind(back);
        fp_slow_path(i, slow, back);
        return true;
      }
      case Op::FCVT_D_S:
      case Op::FCVT_S_D:
        if (!rne(i)) return false;
        return fp_arith(i, i.op == Op::FCVT_S_D, 0, [&](Label slow, Xmm d) {
          if (i.op == Op::FCVT_D_S) {
            check_boxed(i.rs1, slow);
            a_.cvtss2sd(d, freg32(i.rs1));
          } else {
            a_.cvtsd2ss(xmm0, freg(i.rs1));
          }
        });
      case Op::FLD: return emit_fp_load(i, 8);
      case Op::FLW: return emit_fp_load(i, 4);
      case Op::FSD: return emit_fp_store(i, 8);
      case Op::FSW: return emit_fp_store(i, 4);
      default: return false;
    }
  }

  bool emit_fp_load(const Insn& i, unsigned size) {
    Label slow = a_.newLabel(), back = a_.newLabel();
    const x86::Xmm d = size == 8 ? fcache_target(i.rd) : x86::xmm0;  // before the jump to `slow`
    const Mem m = host_operand(i, size, false, slow);
    fault_site();
    if (size == 8) {  // straight into rd's copy
      a_.movsd(d, m);
      fstore(i.rd, d);
    } else {
      a_.mov(x86::eax, m);
      a_.mov(freg32(i.rd), x86::eax);
      a_.mov(freg_box(i.rd), Imm(-1));
    }
    bind(back);
    slow_path(i, slow, back);
    return true;
  }

  bool emit_fp_store(const Insn& i, unsigned size) {
    Label slow = a_.newLabel(), back = a_.newLabel();
    const Mem m = host_operand(i, size, true, slow);
    const int copy = size == 8 ? fcache_[i.rs2] : -1;
    if (copy < 0) {
      if (size == 8) a_.mov(x86::rcx, freg(i.rs2));
      else a_.mov(x86::ecx, freg32(i.rs2));
    }
    const size_t site = fault_site();
    if (copy >= 0) a_.movsd(m, x86::xmm(copy));
    else a_.mov(m, size == 8 ? Gp(x86::rcx) : Gp(x86::ecx));
    bind(back);
    slow_path(i, slow, back, site);
    return true;
  }

  x86::Assembler& a_;
  const TranslateConfig& cfg_;
  const Trampolines& tramp_;
  BlockCode& b_;
  std::vector<OutOfLine>& slow_paths_;  // emitted after the block
  std::vector<Constant>& constants_;
  size_t idx_ = 0;
  uint64_t pc_ = 0;
  Label body_, deadline_out_;  // after the deadline check, and where it leaves (when deadlines are on)
  unsigned pending_ = 0;
  EventCounts pend_ev_{};  // events of retired instructions not yet counted
  // A ring record on the way here stored r15, which has not changed since and no C++ has run: the
  // next record may leave its slot's r15 out (ctr::Site::shares_instret).
  bool ring_r15_stored_ = false;
  size_t folded_ = SIZE_MAX;  // the instruction emit_inline emitted with the one before it
  struct {
    unsigned reg = 0;  // 0: none
    size_t offset = 0;
  } rax_copy_;  // the register write() last stored from rax, and where the store ends
  // An inline fflags access left MXCSR's flags folded into hart.fflags and MXCSR in mxcsr_scratch,
  // and nothing since has raised a host flag (keeps_flags_folded): the next access needs no stmxcsr,
  // which waits for every FP operation in flight (libm brackets a compare with frflags and fsflags).
  bool flags_folded_ = false;
  // The f register whose NaN check the next op's covers (defers_nan_check); -1: none.
  int nan_unchecked_ = -1;
  // Which xmm register holds a copy of each f register within the block (-1: none). A double op's
  // result stays in its copy (fstore), and goes to the hart before anything reads it there: C++, an
  // exit, an instruction that reads the hart (write_back_f), a slow path (the state at_insn_), or a
  // host fault (FaultSite::fcopies, which JitEngine::recover writes back). Code that reads a copy
  // must only know it is current: C++ drops them all (emit_helper) or a slow path reloads them
  // (fcache_reload), and an FP op that writes the hart alone drops its rd's.
  std::array<int8_t, 32> fcache_ = filled_fcache();
  uint32_t fdirty_ = 0;  // f registers whose copy the hart lacks
  // fcache_ and fdirty_ as the current instruction found them, less what it wrote back since: what
  // its slow path and fault sites stand for.
  FState at_insn_{filled_fcache(), 0};
  unsigned fcache_next_ = 0;  // round robin over xmm2-xmm15
  std::vector<FState> fstates_;  // where out-of-line code starts, and where slow paths rejoin
  // Flat memory: for each x register unchanged since an access based on it checked the limit in this
  // block, the lowest offset checked (kUnchecked: none). A slow path of that check never rejoins
  // (past the limit a user-mode access traps), so code after it knows x[r] + offset < flat_limit.
  static constexpr int32_t kUnchecked = INT32_MAX;
  std::array<int32_t, 32> checked_ = filled_checked();
  static std::array<int32_t, 32> filled_checked() {
    std::array<int32_t, 32> c;
    c.fill(kUnchecked);
    return c;
  }
  const jit::BlockPlan& plan_;
};

}  // namespace

void translate(CodeArena& arena, Emitter& emitter, const Trampolines& tramp, const TranslateConfig& cfg,
               BlockCode& out) {
  // The recording code uses the host registers of HostRegs::ctr and nothing else.
  if (cfg.regs.ctr != ctr_recording(out.plan.cfg.recording_mask()) ||
      (cfg.regs.ctr == CtrRecording::Ring && !cfg.ctr_sites))
    throw std::logic_error("translate: HostRegs::ctr is not the plan's");
  // The fault sites and exits grow in the emitter's lists and are copied at their size.
  Emitter::State& st = EmitterAccess::state(emitter);
  st.faults.clear();
  st.fcopies.clear();
  st.exits.clear();
  out.faults.swap(st.faults);
  out.fcopies.swap(st.fcopies);
  out.exits.swap(st.exits);
  uint32_t size = 0;
  out.code = emit_at_cursor(
      arena, emitter,
      [&](x86::Assembler& a, CodeHolder&) {
        BlockEmitter e(a, cfg, tramp, out, st.slow_paths, st.constants);
        e.emit();
      },
      &size);
  out.size = size;
  out.faults.swap(st.faults);
  out.fcopies.swap(st.fcopies);
  out.exits.swap(st.exits);
  out.faults.assign(st.faults.begin(), st.faults.end());
  out.fcopies.assign(st.fcopies.begin(), st.fcopies.end());
  out.exits.assign(st.exits.begin(), st.exits.end());
}

uint8_t* emit_region_entry(CodeArena& arena, Emitter& emitter, const Trampolines& tramp, const HostRegs& regs,
                           RegionRunFn run, const void* region) {
  return emit_at_cursor(arena, emitter, [&](x86::Assembler& a, CodeHolder&) {
    Label leave = a.newLabel();
    // Region code is C++ semantics: the hart holds everything, as around a helper call. rsp is
    // aligned for calls here, as in a block.
    fold_fp_flags(a, x86::rdx, x86::rcx);
    a.mov(kInstret, kInstretReg);
    store_mapped(a, regs);
    a.mov(x86::rdi, kHart);
    a.mov(x86::rsi, Imm(reinterpret_cast<uint64_t>(region)));
    a.mov(x86::rax, Imm(reinterpret_cast<uint64_t>(run)));
    a.call(x86::rax);
    load_mapped(a, regs);
    a.mov(kInstretReg, kInstret);
    a.cmp(x86::eax, Imm(kExitRegionNext));
    a.jne(leave);
    a.mov(x86::rax, kPc);
    probe_lookup(a, false);  // region code runs in user mode only
    a.mov(x86::eax, Imm(kExitDispatch));
    a.bind(leave);
    a.jmp(Imm(reinterpret_cast<uint64_t>(tramp.exit)));
  });
}

}  // namespace brisk::x64
