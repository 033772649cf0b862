// Architectural state of one hart, shared by the interpreter and the JIT tiers.
// The JIT addresses fields at fixed offsets from a pinned host register, so keep the hot fields first.
#pragma once

#include <cstdint>
#include <cstring>

#include "csr/csr.h"
#include "jit/insn.h"
#include "jit/transfer.h"
#include "csr/causes.h"

namespace brisk {

// What a semantic function tells its caller.
enum class Status : uint32_t {
  Next = 0,  // fall through: pc += insn.len
  Jump = 1,  // the function wrote hart.pc
  Trap = 2,  // an exception was raised: hart.trap says which; pc still names the instruction
  Exit = 3,  // leave the exec loop (the machine asked to stop)
};

enum class Priv : uint8_t { U = 0, S = 1, M = 3 };

struct PendingTrap {
  uint64_t cause = 0;
  uint64_t tval = 0;
};

struct Hart;
// Memory outside the flat fast path: system-mode translation, MMIO, or a user-mode fault.
// Returns false when it raised an exception in hart.trap.
struct MemorySlowPath {
  virtual ~MemorySlowPath() = default;
  virtual bool load(Hart& h, uint64_t va, void* out, unsigned size) = 0;
  virtual bool store(Hart& h, uint64_t va, const void* in, unsigned size) = 0;
  // Host pointer to `size` bytes at va for an atomic read-modify-write, or nullptr after raising a trap.
  virtual void* amo(Hart& h, uint64_t va, unsigned size) = 0;
  // Fetches the 16-bit parcel at va, checking execute permission; false after raising an
  // instruction fault.
  virtual bool fetch16(Hart& h, uint64_t va, uint16_t& out) = 0;
  // Translated code now depends on the page at `page`: stores to it must reach the engine's
  // on_code_write (see HostFaultHooks) until unwatch_code.
  virtual void watch_code(uint64_t page) = 0;
  virtual void unwatch_code(uint64_t page) = 0;
};

struct Hart {
  // --- hot state (fixed offsets used by the JIT) ---
  uint64_t x[32] = {};
  uint64_t f[32] = {};  // NaN-boxed: single-precision values hold all ones in bits 63:32
  uint64_t pc = 0;
  uint64_t instret = 0;
  uint8_t* mem_base = nullptr;  // flat guest memory: host address = mem_base + va when va < mem_limit
  uint64_t mem_limit = 0;
  uint8_t frm = 0;     // fcsr.frm
  uint8_t fflags = 0;  // fcsr.fflags (accrued)
  Priv priv = Priv::M;
  uint8_t ialign_mask = 1;  // pc bits that must be zero: 1 with C (IALIGN=16), 3 without
  uint64_t reservation = ~0ull;  // LR/SC reservation address; ~0 when none
  // Instructions translated code may still start before it must return to the exec loop: the
  // deadline mechanism for exact events (DESIGN.md principle 3). Only checked where enabled.
  int64_t budget = INT64_MAX;
  void* jit_lookup = nullptr;    // the JIT's pc -> host code table for indirect jumps
  uint64_t jit_exit_site = 0;    // host address of the direct exit that asked to be linked

  // --- cold state ---
  PendingTrap trap;
  MemorySlowPath* slow = nullptr;
  csr::State csr;
  uint64_t hartid = 0;
  // Control-transfer sink: when on, every engine appends each branch and jump to `transfers`.
  bool transfer_sink = false;
  TransferRing transfers;

  Status raise(uint64_t cause, uint64_t tval) {
    trap.cause = cause;
    trap.tval = tval;
    return Status::Trap;
  }
  Status illegal(const Insn& i) { return raise(cause::kIllegalInstruction, i.raw); }
};

// --- guest memory access, one inline fast path (DESIGN.md principle 4) ---
template <typename T>
inline bool mem_load(Hart& h, uint64_t va, T& out) {
  if (va < h.mem_limit) [[likely]] {
    std::memcpy(&out, h.mem_base + va, sizeof(T));
    return true;
  }
  return h.slow->load(h, va, &out, sizeof(T));
}

template <typename T>
inline bool mem_store(Hart& h, uint64_t va, T value) {
  if (va < h.mem_limit) [[likely]] {
    std::memcpy(h.mem_base + va, &value, sizeof(T));
    return true;
  }
  return h.slow->store(h, va, &value, sizeof(T));
}

// Host pointer for an aligned atomic access of `size` bytes, or nullptr with a trap raised.
inline void* mem_amo(Hart& h, uint64_t va, unsigned size) {
  if (va < h.mem_limit) [[likely]] return h.mem_base + va;
  return h.slow->amo(h, va, size);
}

}  // namespace brisk
