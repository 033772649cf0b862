// The decoded-instruction record shared by every engine (docs/architecture.md, "Engines and tiers").
#pragma once

#include <cstdint>
#include <string>

#include "csr/extensions.h"

namespace brisk {

enum class Op : uint16_t {
#define OP(name, mnem, fmt, flags, ext) name,
#include "jit/opcodes.def"
#undef OP
  Count
};

constexpr unsigned kOpCount = static_cast<unsigned>(Op::Count);

enum class Fmt : uint8_t { R, I, SH, S, B, U, J, A, FR, FR4, CSR, CSRI, FENCE, CBO, N };

enum OpFlags : uint16_t {
  kBranch = 1 << 0,
  kJump = 1 << 1,
  kLoad = 1 << 2,
  kStore = 1 << 3,
  kAmo = 1 << 4,
  kFp = 1 << 5,
  kFpArith = 1 << 6,
  kCsr = 1 << 7,
  kEnd = 1 << 8,
  kRv64 = 1 << 9,
};

struct OpInfo {
  const char* mnemonic;
  Fmt fmt;
  uint16_t flags;
  Ext ext;  // the extension that defines the op
};

extern const OpInfo kOpInfo[kOpCount];

inline const OpInfo& op_info(Op op) { return kOpInfo[static_cast<unsigned>(op)]; }

struct Insn {
  Op op = Op::ILLEGAL;
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;
  uint8_t len = 4;   // 2 for compressed encodings
  uint8_t rm = 0;    // FP rounding mode field; aq<<1|rl for A
  int64_t imm = 0;
  uint32_t raw = 0;  // the encoding as fetched (16 bits for compressed)

  uint16_t flags() const { return op_info(op).flags; }
  // The same encoding as an instruction that raises illegal-instruction.
  Insn as_illegal() const {
    Insn i;
    i.raw = raw;
    i.len = len;
    return i;
  }
};

// Length of the instruction whose first 16-bit parcel is `lo`: 2 or 4.
// (Longer encodings do not exist in any extension brisk implements; they decode as ILLEGAL.)
inline unsigned insn_length(uint16_t lo) { return (lo & 3) == 3 ? 4 : 2; }

// Decodes one instruction for a hart with the extensions in `isa`. For a compressed encoding only
// the low 16 bits of `raw` are used. Never fails: unknown or reserved encodings, and those of an
// extension `isa` lacks, give Op::ILLEGAL with raw and len set.
Insn decode(uint32_t raw, const IsaConfig& isa);

// x register r's ABI name ("a0").
const char* x_register_name(unsigned r);

// "addi a0, a0, 1" style text, for traces and error messages.
std::string disassemble(const Insn& insn, uint64_t pc);

}  // namespace brisk
