// The baseline tier: emits a block plan (jit/block_plan.h) as x86-64 code with asmjit
// (docs/architecture.md, "Engines and tiers").
//
// Register convention inside translated code:
//   rbp = Hart*, r15 = instret, rax/rcx/rdx = scratch,
//   up to ten hot guest registers live in rbx, r12-r14 (callee-saved) and rsi, rdi, r8-r11 for the
//   whole time translated code runs, across chained blocks; hart.x[] holds them only outside it and
//   around helper calls. Which ten is the engine's (HostRegs::order): every translation and
//   trampoline of a code cache has the same, and changing it flushes the cache.
//   When the translation records CTR (ctr::record_mask is non-zero), r10 holds ctr::Ring::next
//   and r11 pmu::Gshare::history instead of the last two guest registers; under RASEMU r10 holds
//   ctr::State::wrptr_off and r9 -ctr::State::cycle_base too, in place of the last three. All on the
//   same terms: the record mask is in the translation key, and links and lookups stay within one
//   key, so every block of a chain agrees, and the trampolines, helper calls and fault recovery write
//   them back to the hart wherever they write the guest registers (HostRegs).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "csr/ctr.h"
#include "jit/block_plan.h"
#include "jit/insn.h"
#include "jit/x64/code_arena.h"

namespace brisk {
struct Hart;
}

namespace brisk::x64 {

// What translated code returns (eax) to the exec loop. Trap and Stop equal Status::Trap/Exit.
enum JitExit : uint32_t {
  kExitDispatch = 0,  // continue at hart.pc
  kExitTrap = 2,      // hart.trap holds an exception raised at hart.pc
  kExitStop = 3,      // a helper asked the exec loop to stop
  kExitLink = 16,     // continue at hart.pc; the direct exit at hart.jit_exit_site may be linked to it
  kExitDeadline = 17, // the block at hart.pc could pass hart.deadline: it did not start
  kExitHot = 18,      // the block at hart.pc reached the tier-2 threshold (TranslateConfig::hot_counter): it did not start
  // Only from tier-2 region code (jit/llvm/region.h) to its entry stub: continue at hart.pc through
  // the lookup table, as an indirect exit does.
  kExitRegionNext = 19,
  // Only from region code: the instruction at hart.pc makes an access the region's inline path
  // cannot (kStatusSlowAccess, runtime/hart.h), nothing of it done; the exec loop runs it.
  kExitRegionStep = 20,
};

// hart.jit_lookup: kLookupEntries entries of {guest pc, host code}, in one of two orders. System
// mode's (`by_page`) puts the 256 slots of a page next to each other (six pc bits of the page number
// above eight of the offset), so forgetting one page's entries after sfence.vma touches 4 KiB
// instead of the whole table. User mode forgets no page, and takes the pc's bits 14:1, which an indirect
// exit computes in two host instructions instead of six.
struct LookupEntry {
  // Empty slots hold an odd pc, which no jump target has (jalr clears bit 0), so that no probe,
  // not even one for pc 0, can take an empty slot's null code for a translation.
  static constexpr uint64_t kNoPc = 1;
  uint64_t pc = kNoPc;
  const void* code = nullptr;
};
constexpr uint32_t kLookupPageBits = 6, kLookupSlotBits = 8;
constexpr uint32_t kLookupEntries = 1u << (kLookupPageBits + kLookupSlotBits);
constexpr uint32_t lookup_index(uint64_t pc, bool by_page) {
  if (!by_page) return static_cast<uint32_t>((pc >> 1) & (kLookupEntries - 1));
  return static_cast<uint32_t>(((pc >> 12) & ((1u << kLookupPageBits) - 1)) << kLookupSlotBits |
                               ((pc >> 1) & ((1u << kLookupSlotBits) - 1)));
}

constexpr unsigned kMaxMappedRegs = 10;
// Guest registers in the order they get host registers (the first mapped ones of them do).
using GuestOrder = std::array<uint8_t, kMaxMappedRegs>;
// The order a run starts with, until the engine finds another one covers clearly more of its
// register uses (JitEngine::adapt): the most used ones in the hot loops of the bench/ kernels,
// counted per executed instruction — a5, a4, a0, a3, a2, a6, a1, a7 lead by far, then sp and t1
// (s0, ra and s1 matter in call-heavy code, but less).
constexpr GuestOrder kMappedGuestOrder = {15, 14, 10, 13, 12, 16, 11, 17, 2, 6};

// Where translated code records CTR: nowhere (record mask zero), in ctr::Ring, or under RASEMU in
// the buffer itself (csr/ctr.h).
enum class CtrRecording : uint8_t { None, Ring, Buffer };
CtrRecording ctr_recording(uint32_t record_mask);

// What translated code keeps in host registers: the first `mapped` of `order`, and, in the
// place of the last one to three of them, the gshare history (r11) wherever the predictor runs (CTR
// records, or branch misses count); for CtrRecording::Ring the ring's record count (r10), for
// Buffer WRPTR and the negated cycle base (r10, r9); without CTR, the branch misses counted since
// the registers were loaded (r10), which go to the current privilege's count when they are stored,
// so that counting is not a read-modify-write of memory at every branch.
struct HostRegs {
  unsigned mapped = kMaxMappedRegs;
  CtrRecording ctr = CtrRecording::None;
  bool history = false;
  GuestOrder order = kMappedGuestOrder;
  bool misses() const { return history && ctr == CtrRecording::None; }
  // Translations of one layout share their trampolines.
  static constexpr unsigned kLayouts = 4;
  unsigned layout() const { return ctr == CtrRecording::None ? history : 1 + static_cast<unsigned>(ctr); }
};
// Those of translations with --jit-regs `jit_regs`, `record_mask`, branch misses counted or not, and
// the engine's order.
HostRegs host_regs(unsigned jit_regs, uint32_t record_mask, bool counts_misses, const GuestOrder& order);

struct TranslateConfig {
  HostRegs regs;
  bool deadlines = false;       // check hart.deadline at every block entry
  uint64_t flat_limit = 0;      // guest va < flat_limit is at host flat_base + va (user mode); 0: none
  uint64_t flat_base = 0;       // below 2 GiB: a displacement in every access
  // Bytes past flat_limit where the host faults (Hart::mem_guard): an access whose base register an
  // earlier one in the block checked, at an offset at most this much below, needs no check of its own.
  uint64_t flat_guard = 0;
  // An exit to the block's own start may go straight back into it (a loop in one block). Not in the
  // checker's shortened translations, which run unchained, up to an instruction count.
  bool loops = true;
  unsigned mmu_index = 0;       // without flat memory: which of the hart's TLBs data accesses use
  // FP arithmetic inline on SSE (needs mstatus.FS Dirty, so nothing has to mark it): when the rounding
  // mode resolves to RNE (frm_rne covers rm = DYN); fused multiply-adds also need the host's FMA3.
  bool fp_inline = false;
  bool frm_rne = false;
  bool host_fma = false;
  unsigned priv = 0;  // the plan's events count into this privilege's counts
  ctr::SiteTable* ctr_sites = nullptr;  // where CtrRecording::Ring records' sites go
  // The LLVM tier: every entry counts this down, and the one that reaches zero leaves with kExitHot
  // before the block starts. nullptr: no count (the tier is off, or the block never tiers up).
  uint32_t* hot_counter = nullptr;
};

// An inline memory access that may fault on the host: where it is and what state it stands for.
struct FaultSite {
  uint32_t host_off;  // offset of the faulting host instruction in the block's code
  uint16_t index;     // which guest instruction
  uint16_t pending;   // instructions before it not yet added to instret
  // A store's slow path (its helper, then the code_written check), which may run in its place
  // with the same host state; 0 for loads.
  uint32_t slow_off = 0;
  // 1 + the index in BlockCode::fcopies of the f registers whose value is only in an xmm register
  // here; 0: the hart has every f register.
  uint16_t fcopies = 0;
};

// f registers written in the block and not yet back in the hart (docs/architecture.md, "Register
// convention"): for each register of the mask, lowest first, 4 bits of `xmm` name its xmm register.
struct FCopies {
  uint32_t dirty = 0;
  uint64_t xmm = 0;
  bool operator==(const FCopies&) const = default;
};

// A direct exit: `jmp rel32` at jmp_off goes to the unlinked stub until the exec loop links it.
struct DirectExit {
  uint32_t jmp_off;
  uint32_t stub_off;
  uint64_t target;
};

struct BlockCode {
  jit::BlockPlan plan;
  uint8_t* code = nullptr;
  uint32_t size = 0;
  std::vector<FaultSite> faults;
  std::vector<FCopies> fcopies;
  std::vector<DirectExit> exits;
};

using EnterFn = uint32_t (*)(Hart* h, const void* code);

struct Trampolines {
  EnterFn enter = nullptr;  // loads the mapped registers and jumps to code
  uint8_t* exit = nullptr;  // translated code jumps here with the exit code in eax
  // Called with rdx = the jit::PlanInsn and ecx = how many instructions before it the block has
  // retired but not counted: syncs pc, instret and the mapped registers, runs the instruction's
  // semantics, reloads, and returns, or leaves translated code if it trapped. Both fold the FP
  // flags inline code accrued in MXCSR into fflags first.
  uint8_t* helper = nullptr;
  // The helper thunk for an access the inline fast path could not make, called as `helper` is: it
  // takes back the pending count it added, and leaves translated code right after the access
  // when that overwrote code of the running block (Hart::code_written).
  uint8_t* access = nullptr;
  // The stubs of direct exits jump here with rax = the target pc: `link` (rcx = the exit's jmp)
  // returns kExitLink, so that the exec loop links the exit; `dispatch` returns kExitDispatch.
  uint8_t* link = nullptr;
  uint8_t* dispatch = nullptr;
};

// Which of the mapped registers (the index of mapped_host_id) holds guest register r, or -1.
int mapped_host_reg(const HostRegs& regs, unsigned guest);
// Host register number (asmjit id) of the i-th mapped guest register.
unsigned mapped_host_id(unsigned i);
// Host register numbers of ctr::Ring::next (CtrRecording::Ring) or WRPTR's byte offset (Buffer),
// the gshare history, and -cycle_base (Buffer).
unsigned ctr_cursor_host_id();
unsigned gshare_history_host_id();
unsigned branch_misses_host_id();
unsigned ctr_neg_cycle_base_host_id();

// asmjit's assembler and code holder, kept from one emission into an arena to the next: the
// assembler writes straight into the arena, and its zone memory is reused, so that translating a
// block allocates and copies nothing.
class Emitter {
 public:
  Emitter();
  ~Emitter();
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;
  struct State;

 private:
  friend struct EmitterAccess;
  std::unique_ptr<State> state_;
};

// The trampolines of translations that keep `regs` in host registers.
Trampolines emit_trampolines(CodeArena& arena, Emitter& emitter, const HostRegs& regs);

// Emits out.plan into the arena; throws std::length_error when the arena is full.
void translate(CodeArena& arena, Emitter& emitter, const Trampolines& tramp, const TranslateConfig& cfg,
               BlockCode& out);

// The entry of a tier-2 region (jit/llvm/region.h), for chained code, the lookup table and the exec
// loop alike: writes back what translated code keeps in host registers, calls run(hart, region),
// reloads, and goes on through the lookup table for kExitRegionNext or leaves with any other exit
// code. Throws std::length_error when the arena is full.
using RegionRunFn = uint32_t (*)(Hart* h, const void* region);
uint8_t* emit_region_entry(CodeArena& arena, Emitter& emitter, const Trampolines& tramp, const HostRegs& regs,
                           RegionRunFn run, const void* region);

}  // namespace brisk::x64
