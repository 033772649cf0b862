// Architectural state of one hart, shared by the interpreter and the JIT tiers.
// The JIT addresses fields at fixed offsets from a pinned host register, so keep the hot fields first.
#pragma once

#include <cstdint>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "csr/csr.h"
#include "jit/insn.h"
#include "csr/causes.h"

namespace brisk {

// What a semantic function tells its caller.
enum class Status : uint32_t {
  Next = 0,  // fall through: pc += insn.len
  Jump = 1,  // the function wrote hart.pc
  Trap = 2,  // an exception was raised: hart.trap says which; pc still names the instruction
  Exit = 3,  // leave the exec loop (the machine asked to stop)
};
// Only from the LLVM tier's bitcode (runtime/sem_int.cpp): an access the inline flat path cannot
// make, nothing of the instruction done. Region code returns it as it is (x64::kExitRegionStep).
inline constexpr Status kStatusSlowAccess = static_cast<Status>(20);

enum class Priv : uint8_t { U = 0, S = 1, M = 3 };

struct Hart;

// Sees the instructions a hart retires while its trace unit observes it (runtime/ete_trace.h).
struct RetireObserver {
  virtual ~RetireObserver() = default;
  // `in` at `pc` retired and h.pc is the next instruction; `jumped`: its semantics wrote pc (a
  // taken branch, a jump or an xRET); `before`: instret before it (a write of minstret may have
  // changed instret since).
  virtual void retired(Hart& h, const Insn& in, uint64_t pc, bool jumped, uint64_t before) = 0;
  // Translated code retired the instructions before h.instret, with their branches and jumps in
  // h.ctr_ring (ctr::record_instret, ctr::mark_synced), before anything else reads the ring or the hart's state.
  virtual void catch_up(Hart& h) = 0;
  // What the observer decides from the pc alone at `pc` (0: nothing): part of the translation key.
  // A block holds instructions of one view, and translated code runs only blocks of the view
  // Hart::trace_view names.
  virtual uint64_t view(uint64_t pc) const = 0;
  // Views of different epochs may be equal and mean different things: translations with views
  // are for the epoch of the views they were made under.
  virtual uint64_t view_epoch() const = 0;
};

struct PendingTrap {
  uint64_t cause = 0;
  uint64_t tval = 0;
};

struct Hart;
// The Snitch cluster's DMA engine as the DMA core's Xdma instructions drive it (docs/snitch.md,
// "DMA"); the -M snitch machine gives it to the harts with Xdma.
struct XdmaPort {
  virtual ~XdmaPort() = default;
  virtual void set_source(uint64_t addr) = 0;
  virtual void set_destination(uint64_t addr) = 0;
  virtual void set_strides(uint64_t src_stride, uint64_t dst_stride) = 0;
  virtual void set_repetitions(uint32_t reps) = 0;
  // DMCPY: queues the copy; returns its id.
  virtual uint32_t copy(uint32_t size, uint32_t config) = 0;
  // DMSTAT: completed id, next id, busy, would block.
  virtual uint32_t status(uint32_t which) = 0;
};

// A Snitch compute core's stream registers and FREP sequencer (docs/snitch.md, "SSRs" and "FREP");
// the -M snitch machine gives it to the harts with Xssr or Xfrep.
struct SnitchCorePort {
  virtual ~SnitchCorePort() = default;
  // SCFGR(I): config word `addr` ({reg[6:0], ssr[4:0]}). SCFGW(I): false if the write is illegal.
  virtual uint32_t ssr_read(uint32_t addr) = 0;
  virtual bool ssr_write(uint32_t addr, uint32_t value) = 0;
  // FREP: the machine runs the body that follows (after the FREP retires).
  struct Frep {
    bool outer;
    uint32_t max_inst, max_iter, stagger_max, stagger_mask;
  };
  virtual void frep(const Frep& f) = 0;
};

// What a hart's surroundings (user-mode Linux, or a system machine) provide beyond its own state:
// memory outside the flat fast path, and the notifications that keep fast paths coherent.
struct HartEnv {
  virtual ~HartEnv() = default;
  // Memory outside the flat fast path: system-mode translation, MMIO, or a user-mode fault.
  // Each returns false (nullptr) after raising an exception in hart.trap.
  virtual bool load(Hart& h, uint64_t va, void* out, unsigned size) = 0;
  virtual bool store(Hart& h, uint64_t va, const void* in, unsigned size) = 0;
  // Host pointer to `size` bytes at va for an atomic read-modify-write.
  virtual void* amo(Hart& h, uint64_t va, unsigned size) = 0;
  // Fetches the 16-bit parcel at va, checking execute permission.
  virtual bool fetch16(Hart& h, uint64_t va, uint16_t& out) = 0;
  // The physical address instruction fetch at va reads (user mode: va itself); translated code is
  // keyed by it. False after raising the fetch fault.
  virtual bool fetch_address(Hart& h, uint64_t va, uint64_t& pa) = 0;
  // Translated code now depends on the page at `page`: stores to it must reach the engine's
  // on_code_write (see HostFaultHooks) until unwatch_code.
  virtual void watch_code(uint64_t page) = 0;
  virtual void unwatch_code(uint64_t page) = 0;
  // Whether stores to the page fault into on_code_write although this engine has no code there:
  // another thread's engine watches it (user mode, runtime/linux_threads.cpp).
  virtual bool watches_code(uint64_t page) { return false; }
  // Address translation changed (satp, mstatus.MXR, sfence.vma): drop cached translations of the
  // page at va, or all of them.
  static constexpr uint64_t kFlushAll = ~0ull;
  virtual void flush_tlb(Hart& h, uint64_t va = kFlushAll) {}
  // stimecmp was written: re-evaluate the supervisor timer.
  virtual void timer_changed(Hart& h) {}
  // Where a data access of `size` bytes at va would go, found without side effects (nothing raised,
  // cached or counted): the lockstep checker (runtime/check_engine.cpp) logs RAM it will write and
  // must not reach a device twice. `host` is RAM's host address when the access lies in one page,
  // else nullptr. Outside flat memory user mode has nothing but faults.
  enum class Target { Ram, Device, Fault };
  virtual Target probe(Hart& h, uint64_t va, unsigned size, bool write, uint8_t*& host) { return Target::Fault; }
};

// Software TLB (docs/architecture.md, "Where each concern lives"), one per access type and MMU index, checked inline by the JIT:
// an access of `size` bytes at va hits when (va & ~0xfff) | (va & (size - 1)) == tag, and then reads
// host memory at va + addend. Misaligned accesses always miss. 1024 entries, direct-mapped: the main
// job (README) took 6-10% less time than with 256, and 512 was between; 2048 and 4096 gained nothing
// more. Each hart's four then take 200 KiB, which a user-mode thread, whose hart has no use for
// them, still touches as it starts (45 more host page faults, about 0.6 ms on this VM).
struct TlbEntry {
  uint64_t tag = ~0ull;
  uint64_t addend = 0;
};
struct Tlb {
  static constexpr unsigned kSize = 1024;
  TlbEntry read[kSize], write[kSize], exec[kSize];
  // Page-table level each entry came from (0: a 4 KiB page): sfence.vma of an address inside a
  // superpage must drop every entry the superpage filled. [super_lo, super_hi) bounds the superpages
  // filled since the last full flush, so that other addresses need not look.
  uint8_t level[3][kSize] = {};
  uint64_t super_lo = ~0ull, super_hi = 0;
};
// Which TLB: the privilege an access is checked against, with SUM for S-mode data.
enum MmuIndex : unsigned { kMmuU = 0, kMmuS = 1, kMmuSSum = 2, kMmuM = 3, kMmuCount = 4 };

struct Hart {
  // --- hot state (fixed offsets used by the JIT) ---
  uint64_t x[32] = {};
  uint64_t f[32] = {};  // NaN-boxed: single-precision values hold all ones in bits 63:32
  uint64_t pc = 0;
  uint64_t instret = 0;
  uint8_t* mem_base = nullptr;  // flat guest memory: host address = mem_base + va when va < mem_limit
  uint64_t mem_limit = 0;
  uint8_t frm = 0;     // fcsr.frm
  uint8_t fflags = 0;  // fcsr.fflags (accrued; translated code also accrues in MXCSR, see runtime/fp.h)
  uint32_t mxcsr_scratch = 0;  // where translated code stores MXCSR to read its flags
  Priv priv = Priv::M;
  bool waiting = false;  // in WFI: the machine resumes it when an interrupt becomes pending
  uint8_t ialign_mask = 1;  // pc bits that must be zero: 1 with C (IALIGN=16), 3 without
  // XLEN = 32 (docs/architecture.md, "XLEN"): x registers hold values sign-extended from bit 31,
  // pc and addresses are zero-extended from bit 31. Fixed by csr::set_isa, with misa.MXL.
  bool rv32 = false;
  uint64_t reservation = ~0ull;  // LR/SC reservation address; ~0 when none
  uint64_t reservation_value = 0;  // what LR loaded there: SC stores only if memory still holds it
  // The exec loop regains control before instret would pass this: the mechanism for exact events
  // (docs/architecture.md, "Exact events") and for noticing interrupts. Translated code checks it only where enabled.
  uint64_t deadline = UINT64_MAX;
  void* jit_lookup = nullptr;    // the JIT's pc -> host code table for indirect jumps
  uint64_t jit_exit_site = 0;    // host address of the direct exit that asked to be linked
  // A store overwrote code of the block running now: translated code looks at this after every
  // store it runs out of line and then leaves the block right after the store (jit/x64).
  bool code_written = false;
  // Instruction classes a machine defines (EngineOptions::insn_events): translated code counts the
  // retired instructions of the classes in the mask, class k into insn_events[k] (the -M snitch
  // machine's retired metrics).
  uint8_t insn_event_mask = 0;
  static constexpr unsigned kInsnEventClasses = 8;
  uint64_t insn_events[kInsnEventClasses] = {};

  // --- cold state ---
  PendingTrap trap;
  HartEnv* env = nullptr;
  XdmaPort* xdma = nullptr;  // with Ext::Xdma
  SnitchCorePort* snitch_core = nullptr;  // with Ext::Xssr or Ext::Xfrep
  csr::State csr;
  uint64_t hartid = 0;
  uint64_t mem_guard = 0;  // bytes past mem_limit reserved on the host with no access (GuestVm::kGuard)

  // --- caches last, so that the architectural state before them copies in one piece (copy_state) ---
  Tlb tlb[kMmuCount];  // system mode only
  // What translated code recorded and csr.ctr does not hold yet (ctr::sync_ring): a copy of the
  // state is taken after a sync.
  ctr::Ring ctr_ring;
  // A trace unit's fast path observes the hart (runtime/ete_trace.h): every engine reports to it what
  // retires outside translated code, translated code the block-ending instructions it runs out of
  // line, and while it is set, the ring's records are its own, which hands CTR its types (ctr::sync_ring).
  RetireObserver* retire_observer = nullptr;
  // Translated code records every branch and jump into ctr_ring for the observer (a key bit).
  bool record_transfers = false;
  // The view (RetireObserver::view) of the instructions translated code may run now: at a block of
  // another one it returns to the exec loop.
  uint64_t trace_view = 0;

  Status raise(uint64_t cause, uint64_t tval) {
    trap.cause = cause;
    trap.tval = tval;
    return Status::Trap;
  }
  Status illegal(const Insn& i) { return raise(cause::kIllegalInstruction, i.raw); }
  // Something the exec loop must look at (an interrupt, WFI, a stop) happened: leave translated code
  // at the next block boundary.
  void request_exit() { deadline = 0; }
  bool deadline_reached() const { return instret >= deadline; }
};

static_assert(std::is_trivially_copyable_v<Hart>);

// An address or pc formed from a register value: its low XLEN bits.
inline uint64_t xlen_addr(const Hart& h, uint64_t v) { return h.rv32 ? static_cast<uint32_t>(v) : v; }
// A value written to an x register: its low XLEN bits, sign-extended.
inline uint64_t xlen_value(const Hart& h, uint64_t v) {
  return h.rv32 ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))) : v;
}

// Copies what the interpreter and the JIT compute (registers, CSRs with the CTR buffer, counters) but
// not the TLBs, which are caches.
inline void copy_state(Hart& to, const Hart& from) { std::memcpy(static_cast<void*>(&to), &from, offsetof(Hart, tlb)); }

// --- guest memory access, one inline fast path (docs/architecture.md, "Where each concern lives") ---
// Sdtrig's load and store triggers (csr/trigger.h), before anything else the access checks: false
// after raising their breakpoint. mem_amo's callers ask themselves: an AMO is a load and a store,
// SC only a store, and a cache-block operation a store to the whole block.
inline bool access_triggers(Hart& h, uint64_t va, unsigned size, uint8_t access) {
  return !h.csr.triggers.memory || trigger::check_access(h, va, size, access);
}

// In the bitcode of the LLVM tier (jit/llvm/region.cpp) the semantics that access memory through
// the accessor themselves (cache-block operations) stay calls: a host fault on flat memory inside
// them then finds pc, instret and the registers written back to the hart, as a helper's does, while
// region code keeps them in SSA values everywhere else.
#ifdef BRISK_TIER2_BITCODE
#define BRISK_GUEST_ACCESS [[gnu::noinline]]
#else
#define BRISK_GUEST_ACCESS
#endif

template <typename T>
inline bool mem_load(Hart& h, uint64_t va, T& out) {
  if (!access_triggers(h, va, sizeof(T), trigger::kLoad)) [[unlikely]]
    return false;
  if (va < h.mem_limit) [[likely]] {
    std::memcpy(&out, h.mem_base + va, sizeof(T));
    return true;
  }
  return h.env->load(h, va, &out, sizeof(T));
}

template <typename T>
inline bool mem_store(Hart& h, uint64_t va, T value) {
  if (!access_triggers(h, va, sizeof(T), trigger::kStore)) [[unlikely]]
    return false;
  if (va < h.mem_limit) [[likely]] {
    std::memcpy(h.mem_base + va, &value, sizeof(T));
    return true;
  }
  return h.env->store(h, va, &value, sizeof(T));
}

// Host pointer for an aligned atomic access of `size` bytes, or nullptr with a trap raised.
inline void* mem_amo(Hart& h, uint64_t va, unsigned size) {
  if (va < h.mem_limit) [[likely]] return h.mem_base + va;
  return h.env->amo(h, va, size);
}

// Reads *p with lock cmpxchg, a write access whether or not it compares equal, so that a host fault
// on flat memory is a store/AMO fault (runtime/host_fault.cpp tells them apart by the x86 write bit).
// An idempotent locked add would not do: clang lowers it to a fenced load.
template <typename T>
inline T read_as_write(T* p) {
  T old = 0;
  __atomic_compare_exchange_n(p, &old, old, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return old;
}

}  // namespace brisk
