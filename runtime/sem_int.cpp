// Semantics of the integer instructions: RV64I and RV32I, M, Zba, Zbb, Zbs, Zicond, Zifencei, Zicsr,
// Zicbom/Zicboz. RV32's own forms test h.rv32 (jit/opcodes.def).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "csr/csr.h"
#include "csr/privileged.h"
#include "runtime/semantics.h"

namespace brisk {

namespace {

inline uint64_t rs1(const Hart& h, const Insn& i) { return h.x[i.rs1]; }
inline uint64_t rs2(const Hart& h, const Insn& i) { return h.x[i.rs2]; }
inline uint64_t sext32(uint64_t v) { return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))); }
inline int64_t s(uint64_t v) { return static_cast<int64_t>(v); }

inline Status write_rd(Hart& h, const Insn& i, uint64_t v) {
  set_x(h, i.rd, v);
  return Status::Next;
}

// Control transfer to `target`, checking IALIGN (only reachable without C, where ialign_mask = 3).
inline Status jump_to(Hart& h, uint64_t target) {
  target = xlen_addr(h, target);
  if (target & h.ialign_mask) [[unlikely]]
    return h.raise(cause::kInstructionAddressMisaligned, target);
  h.pc = target;
  return Status::Jump;
}

inline Status branch(Hart& h, const Insn& i, bool taken) {
  return taken ? jump_to(h, h.pc + i.imm) : Status::Next;
}

#ifdef BRISK_TIER2_BITCODE
// Region code (jit/llvm/region.cpp) makes the flat access inline, with the baseline's check (no
// trigger armed, va below the limit), and leaves before anything else (kStatusSlowAccess), for the
// exec loop to run the instruction: a call of the accessor there would join the inline path again,
// after which LLVM reloads every register the call might have changed. A host fault on flat memory
// (an unmapped page, a watched code page) must still find the state before the instruction in the
// hart, as the accessor does: the base comes through an empty asm that reads the hart, so LLVM
// stores what the region changed, pc and instret included, before the access.
constexpr bool kRegionCode = true;
inline bool flat_inline(const Hart& h, uint64_t va) { return !h.csr.triggers.memory && va < h.mem_limit; }
inline uint8_t* flat_synced(Hart& h, uint64_t va) {
  uint8_t* base = h.mem_base;
  asm("" : "+r"(base) : "m"(h));
  return base + va;
}
#else
// Elsewhere the accessor is inline, its flat path with it.
constexpr bool kRegionCode = false;
inline bool flat_inline(const Hart&, uint64_t) { return false; }
inline uint8_t* flat_synced(Hart&, uint64_t) { return nullptr; }
#endif

template <typename T>
inline Status load(Hart& h, const Insn& i) {
  T v;
  const uint64_t va = xlen_addr(h, rs1(h, i) + i.imm);
  if (flat_inline(h, va)) [[likely]]
    std::memcpy(&v, flat_synced(h, va), sizeof v);
  else if (kRegionCode)
    return kStatusSlowAccess;
  else if (!mem_load(h, va, v))
    return Status::Trap;
  // Sign- or zero-extends according to T.
  if constexpr (std::is_signed_v<T>)
    return write_rd(h, i, static_cast<uint64_t>(static_cast<int64_t>(v)));
  else
    return write_rd(h, i, static_cast<uint64_t>(v));
}

template <typename T>
inline Status store(Hart& h, const Insn& i) {
  const uint64_t va = xlen_addr(h, rs1(h, i) + i.imm);
  const T v = static_cast<T>(rs2(h, i));
  if (flat_inline(h, va)) [[likely]] {
    std::memcpy(flat_synced(h, va), &v, sizeof v);
    return Status::Next;
  }
  if (kRegionCode) return kStatusSlowAccess;
  return mem_store(h, va, v) ? Status::Next : Status::Trap;
}

// RISC-V division never traps: x/0 = all ones, x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0.
template <typename T>
inline T div_s(T a, T b) {
  if (b == 0) return -1;
  if (b == -1) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(a));
  return a / b;
}
template <typename T>
inline T rem_s(T a, T b) {
  if (b == 0) return a;
  if (b == -1) return 0;
  return a % b;
}
template <typename T>
inline T div_u(T a, T b) { return b == 0 ? static_cast<T>(~T(0)) : a / b; }
template <typename T>
inline T rem_u(T a, T b) { return b == 0 ? a : a % b; }

inline uint64_t orc_b(uint64_t v) {
  uint64_t r = 0;
  for (unsigned b = 0; b < 64; b += 8)
    if ((v >> b) & 0xff) r |= 0xffull << b;
  return r;
}

Status csr_op(Hart& h, const Insn& i, csr::CsrOp op, bool read, bool write, uint64_t src) {
  uint64_t old = 0;
  Status st = csr::access(h, i, op, read, write, src, old);
  if (st != Status::Next) return st;
  set_x(h, i.rd, xlen_value(h, old));
  return Status::Next;
}

}  // namespace

// --- RV64I ---
Status sem_LUI(Hart& h, const Insn& i) { return write_rd(h, i, i.imm); }
Status sem_AUIPC(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, h.pc + i.imm)); }

Status sem_JAL(Hart& h, const Insn& i) {
  uint64_t link = xlen_value(h, h.pc + i.len);
  Status st = jump_to(h, h.pc + i.imm);
  if (st == Status::Jump) set_x(h, i.rd, link);
  return st;
}

Status sem_JALR(Hart& h, const Insn& i) {
  uint64_t link = xlen_value(h, h.pc + i.len);
  Status st = jump_to(h, (rs1(h, i) + i.imm) & ~1ull);
  if (st == Status::Jump) set_x(h, i.rd, link);
  return st;
}

Status sem_BEQ(Hart& h, const Insn& i) { return branch(h, i, rs1(h, i) == rs2(h, i)); }
Status sem_BNE(Hart& h, const Insn& i) { return branch(h, i, rs1(h, i) != rs2(h, i)); }
Status sem_BLT(Hart& h, const Insn& i) { return branch(h, i, s(rs1(h, i)) < s(rs2(h, i))); }
Status sem_BGE(Hart& h, const Insn& i) { return branch(h, i, s(rs1(h, i)) >= s(rs2(h, i))); }
Status sem_BLTU(Hart& h, const Insn& i) { return branch(h, i, rs1(h, i) < rs2(h, i)); }
Status sem_BGEU(Hart& h, const Insn& i) { return branch(h, i, rs1(h, i) >= rs2(h, i)); }

Status sem_LB(Hart& h, const Insn& i) { return load<int8_t>(h, i); }
Status sem_LH(Hart& h, const Insn& i) { return load<int16_t>(h, i); }
Status sem_LW(Hart& h, const Insn& i) { return load<int32_t>(h, i); }
Status sem_LD(Hart& h, const Insn& i) { return load<int64_t>(h, i); }
Status sem_LBU(Hart& h, const Insn& i) { return load<uint8_t>(h, i); }
Status sem_LHU(Hart& h, const Insn& i) { return load<uint16_t>(h, i); }
Status sem_LWU(Hart& h, const Insn& i) { return load<uint32_t>(h, i); }
Status sem_SB(Hart& h, const Insn& i) { return store<uint8_t>(h, i); }
Status sem_SH(Hart& h, const Insn& i) { return store<uint16_t>(h, i); }
Status sem_SW(Hart& h, const Insn& i) { return store<uint32_t>(h, i); }
Status sem_SD(Hart& h, const Insn& i) { return store<uint64_t>(h, i); }

Status sem_ADDI(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) + i.imm); }
Status sem_SLTI(Hart& h, const Insn& i) { return write_rd(h, i, s(rs1(h, i)) < i.imm); }
Status sem_SLTIU(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) < static_cast<uint64_t>(i.imm)); }
Status sem_XORI(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) ^ i.imm); }
Status sem_ORI(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) | i.imm); }
Status sem_ANDI(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) & i.imm); }
Status sem_SLLI(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) << (i.imm & 63)); }
Status sem_SRLI(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) >> (i.imm & 63)); }
Status sem_SRAI(Hart& h, const Insn& i) { return write_rd(h, i, s(rs1(h, i)) >> (i.imm & 63)); }

Status sem_ADD(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) + rs2(h, i)); }
Status sem_SUB(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) - rs2(h, i)); }
Status sem_SLL(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) << (rs2(h, i) & 63)); }
Status sem_SLT(Hart& h, const Insn& i) { return write_rd(h, i, s(rs1(h, i)) < s(rs2(h, i))); }
Status sem_SLTU(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) < rs2(h, i)); }
Status sem_XOR(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) ^ rs2(h, i)); }
Status sem_SRL(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) >> (rs2(h, i) & 63)); }
Status sem_SRA(Hart& h, const Insn& i) { return write_rd(h, i, s(rs1(h, i)) >> (rs2(h, i) & 63)); }
Status sem_OR(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) | rs2(h, i)); }
Status sem_AND(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) & rs2(h, i)); }

Status sem_ADDIW(Hart& h, const Insn& i) { return write_rd(h, i, sext32(rs1(h, i) + i.imm)); }
Status sem_SLLIW(Hart& h, const Insn& i) { return write_rd(h, i, sext32(rs1(h, i) << (i.imm & 31))); }
Status sem_SRLIW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(static_cast<uint32_t>(rs1(h, i)) >> (i.imm & 31)));
}
Status sem_SRAIW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(static_cast<uint32_t>(static_cast<int32_t>(rs1(h, i)) >> (i.imm & 31))));
}
Status sem_ADDW(Hart& h, const Insn& i) { return write_rd(h, i, sext32(rs1(h, i) + rs2(h, i))); }
Status sem_SUBW(Hart& h, const Insn& i) { return write_rd(h, i, sext32(rs1(h, i) - rs2(h, i))); }
Status sem_SLLW(Hart& h, const Insn& i) { return write_rd(h, i, sext32(rs1(h, i) << (rs2(h, i) & 31))); }
Status sem_SRLW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(static_cast<uint32_t>(rs1(h, i)) >> (rs2(h, i) & 31)));
}
Status sem_SRAW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(static_cast<uint32_t>(static_cast<int32_t>(rs1(h, i)) >> (rs2(h, i) & 31))));
}

// Guest threads run on host threads, whose x86-TSO orders everything but a store before a later load.
Status sem_FENCE(Hart&, const Insn& i) {
  if (fence_orders_store_load(i)) std::atomic_thread_fence(std::memory_order_seq_cst);
  return Status::Next;
}
Status sem_PAUSE(Hart&, const Insn&) { return Status::Next; }

// The exec loop owns translated code: it sees kEnd on fence.i and drops stale translations there.
Status sem_FENCE_I(Hart&, const Insn&) { return Status::Next; }

Status sem_ECALL(Hart& h, const Insn&) {
  switch (h.priv) {
    case Priv::U: return h.raise(cause::kEcallFromU, 0);
    case Priv::S: return h.raise(cause::kEcallFromS, 0);
    case Priv::M: break;
  }
  return h.raise(cause::kEcallFromM, 0);
}

Status sem_EBREAK(Hart& h, const Insn&) { return h.raise(cause::kBreakpoint, h.pc); }

// --- Zicsr ---
Status sem_CSRRW(Hart& h, const Insn& i) { return csr_op(h, i, csr::CsrOp::RW, i.rd != 0, true, rs1(h, i)); }
Status sem_CSRRS(Hart& h, const Insn& i) { return csr_op(h, i, csr::CsrOp::RS, true, i.rs1 != 0, rs1(h, i)); }
Status sem_CSRRC(Hart& h, const Insn& i) { return csr_op(h, i, csr::CsrOp::RC, true, i.rs1 != 0, rs1(h, i)); }
Status sem_CSRRWI(Hart& h, const Insn& i) { return csr_op(h, i, csr::CsrOp::RW, i.rd != 0, true, i.rs1); }
Status sem_CSRRSI(Hart& h, const Insn& i) { return csr_op(h, i, csr::CsrOp::RS, true, i.rs1 != 0, i.rs1); }
Status sem_CSRRCI(Hart& h, const Insn& i) { return csr_op(h, i, csr::CsrOp::RC, true, i.rs1 != 0, i.rs1); }

// --- M ---
Status sem_MUL(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) * rs2(h, i)); }
// RV32's products fit in 64 bits; their high half is bits 63:32.
inline Status mulh32(Hart& h, const Insn& i, uint64_t product) { return write_rd(h, i, sext32(product >> 32)); }

Status sem_MULH(Hart& h, const Insn& i) {
  if (h.rv32) return mulh32(h, i, s(rs1(h, i)) * s(rs2(h, i)));
  return write_rd(h, i, static_cast<uint64_t>((static_cast<__int128>(s(rs1(h, i))) * s(rs2(h, i))) >> 64));
}
Status sem_MULHSU(Hart& h, const Insn& i) {
  if (h.rv32) return mulh32(h, i, s(rs1(h, i)) * static_cast<int64_t>(static_cast<uint32_t>(rs2(h, i))));
  __int128 p = static_cast<__int128>(s(rs1(h, i))) * static_cast<__int128>(static_cast<unsigned __int128>(rs2(h, i)));
  return write_rd(h, i, static_cast<uint64_t>(p >> 64));
}
Status sem_MULHU(Hart& h, const Insn& i) {
  if (h.rv32) return mulh32(h, i, uint64_t(static_cast<uint32_t>(rs1(h, i))) * static_cast<uint32_t>(rs2(h, i)));
  return write_rd(h, i, static_cast<uint64_t>((static_cast<unsigned __int128>(rs1(h, i)) * rs2(h, i)) >> 64));
}
Status sem_DIV(Hart& h, const Insn& i) { return write_rd(h, i, div_s(s(rs1(h, i)), s(rs2(h, i)))); }
Status sem_DIVU(Hart& h, const Insn& i) { return write_rd(h, i, div_u(rs1(h, i), rs2(h, i))); }
Status sem_REM(Hart& h, const Insn& i) { return write_rd(h, i, rem_s(s(rs1(h, i)), s(rs2(h, i)))); }
Status sem_REMU(Hart& h, const Insn& i) { return write_rd(h, i, rem_u(rs1(h, i), rs2(h, i))); }
Status sem_MULW(Hart& h, const Insn& i) { return write_rd(h, i, sext32(rs1(h, i) * rs2(h, i))); }
Status sem_DIVW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(div_s(static_cast<int32_t>(rs1(h, i)), static_cast<int32_t>(rs2(h, i)))));
}
Status sem_DIVUW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(div_u(static_cast<uint32_t>(rs1(h, i)), static_cast<uint32_t>(rs2(h, i)))));
}
Status sem_REMW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(rem_s(static_cast<int32_t>(rs1(h, i)), static_cast<int32_t>(rs2(h, i)))));
}
Status sem_REMUW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(rem_u(static_cast<uint32_t>(rs1(h, i)), static_cast<uint32_t>(rs2(h, i)))));
}

// --- Zba ---
Status sem_ADD_UW(Hart& h, const Insn& i) { return write_rd(h, i, static_cast<uint32_t>(rs1(h, i)) + rs2(h, i)); }
Status sem_SH1ADD(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, (rs1(h, i) << 1) + rs2(h, i))); }
Status sem_SH2ADD(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, (rs1(h, i) << 2) + rs2(h, i))); }
Status sem_SH3ADD(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, (rs1(h, i) << 3) + rs2(h, i))); }
Status sem_SH1ADD_UW(Hart& h, const Insn& i) {
  return write_rd(h, i, (static_cast<uint64_t>(static_cast<uint32_t>(rs1(h, i))) << 1) + rs2(h, i));
}
Status sem_SH2ADD_UW(Hart& h, const Insn& i) {
  return write_rd(h, i, (static_cast<uint64_t>(static_cast<uint32_t>(rs1(h, i))) << 2) + rs2(h, i));
}
Status sem_SH3ADD_UW(Hart& h, const Insn& i) {
  return write_rd(h, i, (static_cast<uint64_t>(static_cast<uint32_t>(rs1(h, i))) << 3) + rs2(h, i));
}
Status sem_SLLI_UW(Hart& h, const Insn& i) {
  return write_rd(h, i, static_cast<uint64_t>(static_cast<uint32_t>(rs1(h, i))) << (i.imm & 63));
}

// --- Zbb ---
Status sem_ANDN(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) & ~rs2(h, i)); }
Status sem_ORN(Hart& h, const Insn& i) { return write_rd(h, i, rs1(h, i) | ~rs2(h, i)); }
Status sem_XNOR(Hart& h, const Insn& i) { return write_rd(h, i, ~(rs1(h, i) ^ rs2(h, i))); }
Status sem_CLZ(Hart& h, const Insn& i) { return write_rd(h, i, std::countl_zero(rs1(h, i))); }
Status sem_CLZW(Hart& h, const Insn& i) { return write_rd(h, i, std::countl_zero(static_cast<uint32_t>(rs1(h, i)))); }
Status sem_CTZ(Hart& h, const Insn& i) { return write_rd(h, i, std::countr_zero(rs1(h, i))); }
Status sem_CTZW(Hart& h, const Insn& i) { return write_rd(h, i, std::countr_zero(static_cast<uint32_t>(rs1(h, i)))); }
Status sem_CPOP(Hart& h, const Insn& i) { return write_rd(h, i, std::popcount(rs1(h, i))); }
Status sem_CPOPW(Hart& h, const Insn& i) { return write_rd(h, i, std::popcount(static_cast<uint32_t>(rs1(h, i)))); }
Status sem_MAX(Hart& h, const Insn& i) { return write_rd(h, i, std::max(s(rs1(h, i)), s(rs2(h, i)))); }
Status sem_MAXU(Hart& h, const Insn& i) { return write_rd(h, i, std::max(rs1(h, i), rs2(h, i))); }
Status sem_MIN(Hart& h, const Insn& i) { return write_rd(h, i, std::min(s(rs1(h, i)), s(rs2(h, i)))); }
Status sem_MINU(Hart& h, const Insn& i) { return write_rd(h, i, std::min(rs1(h, i), rs2(h, i))); }
Status sem_SEXT_B(Hart& h, const Insn& i) {
  return write_rd(h, i, static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(rs1(h, i)))));
}
Status sem_SEXT_H(Hart& h, const Insn& i) {
  return write_rd(h, i, static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(rs1(h, i)))));
}
Status sem_ZEXT_H(Hart& h, const Insn& i) { return write_rd(h, i, static_cast<uint16_t>(rs1(h, i))); }
Status sem_ROL(Hart& h, const Insn& i) { return write_rd(h, i, std::rotl(rs1(h, i), rs2(h, i) & 63)); }
Status sem_ROLW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(std::rotl(static_cast<uint32_t>(rs1(h, i)), rs2(h, i) & 31)));
}
Status sem_ROR(Hart& h, const Insn& i) { return write_rd(h, i, std::rotr(rs1(h, i), rs2(h, i) & 63)); }
Status sem_RORW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(std::rotr(static_cast<uint32_t>(rs1(h, i)), rs2(h, i) & 31)));
}
Status sem_RORI(Hart& h, const Insn& i) { return write_rd(h, i, std::rotr(rs1(h, i), i.imm & 63)); }
Status sem_RORIW(Hart& h, const Insn& i) {
  return write_rd(h, i, sext32(std::rotr(static_cast<uint32_t>(rs1(h, i)), i.imm & 31)));
}
Status sem_ORC_B(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, orc_b(rs1(h, i)))); }
Status sem_REV8(Hart& h, const Insn& i) {
  if (h.rv32) return write_rd(h, i, sext32(__builtin_bswap32(static_cast<uint32_t>(rs1(h, i)))));
  return write_rd(h, i, __builtin_bswap64(rs1(h, i)));
}

// --- Zbs: the bit index is rs2 mod XLEN, or an immediate below XLEN ---
inline uint64_t bit_of(const Hart& h, uint64_t index) { return 1ull << (index & (h.rv32 ? 31 : 63)); }
Status sem_BCLR(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, rs1(h, i) & ~bit_of(h, rs2(h, i)))); }
Status sem_BCLRI(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, rs1(h, i) & ~bit_of(h, i.imm))); }
Status sem_BEXT(Hart& h, const Insn& i) { return write_rd(h, i, (rs1(h, i) & bit_of(h, rs2(h, i))) != 0); }
Status sem_BEXTI(Hart& h, const Insn& i) { return write_rd(h, i, (rs1(h, i) & bit_of(h, i.imm)) != 0); }
Status sem_BINV(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, rs1(h, i) ^ bit_of(h, rs2(h, i)))); }
Status sem_BINVI(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, rs1(h, i) ^ bit_of(h, i.imm))); }
Status sem_BSET(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, rs1(h, i) | bit_of(h, rs2(h, i)))); }
Status sem_BSETI(Hart& h, const Insn& i) { return write_rd(h, i, xlen_value(h, rs1(h, i) | bit_of(h, i.imm))); }

// --- Zicond ---
Status sem_CZERO_EQZ(Hart& h, const Insn& i) { return write_rd(h, i, rs2(h, i) == 0 ? 0 : rs1(h, i)); }
Status sem_CZERO_NEZ(Hart& h, const Insn& i) { return write_rd(h, i, rs2(h, i) != 0 ? 0 : rs1(h, i)); }

// --- Zicbom / Zicboz ---
// Below M, menvcfg enables each kind of CMO, and in U senvcfg too (the CMO chapter's "envcfg"
// pseudocode); with no H extension a disabled one is always illegal-instruction. `field` is
// CBIE, CBCFE or CBZE: any nonzero value enables (CBIE's reserved 0b10 is never stored).
static bool cmo_enabled(const Hart& h, uint64_t field) {
  if (h.priv == Priv::M) return true;
  return (h.csr.menvcfg & field) && (h.priv == Priv::S || (h.csr.senvcfg & field));
}
// The host byte at rs1 after the access check a store does; faults name rs1, not the block base.
// The block lies in rs1's page, so the check covers all of it.
static volatile uint8_t* cbo_access(Hart& h, const Insn& i) {
  return static_cast<volatile uint8_t*>(mem_amo(h, xlen_addr(h, rs1(h, i)), 1));
}
// Cache-block operations match triggers as stores to every byte of the block (Sdtrig.adoc, "Cache
// Operations", the first option); only triggers of any size see an access of a block's size.
static bool cbo_triggers(Hart& h, uint64_t va) {
  return access_triggers(h, va & ~uint64_t(kCacheBlock - 1), kCacheBlock, trigger::kStore);
}
// brisk has no data cache: clean, flush and invalidate (which CBIE = 01 turns into a flush) all
// leave memory as it is, and only check the access. They may access the block wherever a load or
// a store may; where neither may, they raise the store's fault (the CMO chapter, "Cache-Block
// Management Instructions"), as QEMU's check_zicbom_access does.
static Status cbo_manage(Hart& h, const Insn& i, uint64_t field) {
  if (!cmo_enabled(h, field)) return h.illegal(i);
  const uint64_t va = xlen_addr(h, rs1(h, i));
  if (!cbo_triggers(h, va)) return Status::Trap;
  if (va < h.mem_limit) {
    (void)*static_cast<volatile uint8_t*>(h.mem_base + va);  // faults here (user mode) when not mapped
    return Status::Next;
  }
  uint8_t* host;
  if (h.env->probe(h, va, 1, false, host) != HartEnv::Target::Fault) return Status::Next;
  return cbo_access(h, i) ? Status::Next : Status::Trap;
}
// They touch flat memory themselves: calls in region code, as the guest accessor (runtime/hart.h).
BRISK_GUEST_ACCESS Status sem_CBO_CLEAN(Hart& h, const Insn& i) { return cbo_manage(h, i, csr::ENVCFG_CBCFE); }
BRISK_GUEST_ACCESS Status sem_CBO_FLUSH(Hart& h, const Insn& i) { return cbo_manage(h, i, csr::ENVCFG_CBCFE); }
BRISK_GUEST_ACCESS Status sem_CBO_INVAL(Hart& h, const Insn& i) { return cbo_manage(h, i, csr::ENVCFG_CBIE); }
BRISK_GUEST_ACCESS Status sem_CBO_ZERO(Hart& h, const Insn& i) {
  if (!cmo_enabled(h, csr::ENVCFG_CBZE)) return h.illegal(i);
  if (!cbo_triggers(h, rs1(h, i))) return Status::Trap;
  volatile uint8_t* p = cbo_access(h, i);
  if (!p) return Status::Trap;
  *p = 0;  // user mode: a fault here names rs1, before any other byte changed
  // The whole block as one access, which the lockstep checker's undo log sees (runtime/check_engine.cpp).
  std::memset(mem_amo(h, xlen_addr(h, rs1(h, i)) & ~uint64_t(kCacheBlock - 1), kCacheBlock), 0, kCacheBlock);
  return Status::Next;
}

Status sem_ILLEGAL(Hart& h, const Insn& i) { return h.illegal(i); }

}  // namespace brisk
