// RV64GC and RV32GC (+ Zba, Zbb, Zbs, Zicond, Zicbom, Zicboz, Zihintpause) decoder.
// 32-bit encodings pick the op with a switch on the major opcode, then funct3/funct7; the operand fields
// follow the conventions of opcodes.def, kept in one place (with_fields). Compressed encodings are expanded
// to the op they stand for, with len = 2. The ops of extensions the hart lacks decode as ILLEGAL.
// RV32 differs in a few encodings (rev8, zext.h, the compressed loads, stores and c.jal) and then
// in the rv32_form of what was decoded (jit/opcodes.def).
#include "jit/insn.h"

#include "csr/ctr.h"

namespace brisk {
namespace {

constexpr uint32_t bits(uint32_t x, unsigned hi, unsigned lo) {
  return (x >> lo) & ((1u << (hi - lo + 1)) - 1);
}

constexpr int64_t sext(uint32_t x, unsigned width) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) << (64 - width)) >> (64 - width);
}

// funct7 and funct3 in one switchable value.
constexpr uint32_t key(uint32_t f7, uint32_t f3) { return f7 << 3 | f3; }

int64_t imm_i(uint32_t r) { return static_cast<int32_t>(r) >> 20; }
int64_t imm_s(uint32_t r) { return static_cast<int32_t>((r & 0xfe000000u) | bits(r, 11, 7) << 20) >> 20; }
int64_t imm_b(uint32_t r) {
  return sext(bits(r, 31, 31) << 12 | bits(r, 7, 7) << 11 | bits(r, 30, 25) << 5 | bits(r, 11, 8) << 1, 13);
}
int64_t imm_u(uint32_t r) { return static_cast<int32_t>(r & 0xfffff000u); }
int64_t imm_j(uint32_t r) {
  return sext(bits(r, 31, 31) << 20 | bits(r, 19, 12) << 12 | bits(r, 20, 20) << 11 | bits(r, 30, 21) << 1,
              21);
}

// Fills the operands of a 32-bit encoding as opcodes.def prescribes for format F. Each major opcode
// knows its format statically, which saves the decoder a second (and poorly predicted) dispatch.
template <Fmt F>
Insn with_fields(Op op, uint32_t raw) {
  Insn i;
  i.raw = raw;
  if (op == Op::ILLEGAL) return i;
  i.op = op;
  const uint8_t rd = bits(raw, 11, 7), rs1 = bits(raw, 19, 15), rs2 = bits(raw, 24, 20);
  if constexpr (F == Fmt::R) {
    i.rd = rd, i.rs1 = rs1, i.rs2 = rs2;
  } else if constexpr (F == Fmt::I) {
    i.rd = rd, i.rs1 = rs1, i.imm = imm_i(raw);
  } else if constexpr (F == Fmt::SH) {
    // Bit 25 is shamt[5] for the 64-bit shifts and is required zero for the W forms.
    i.rd = rd, i.rs1 = rs1, i.imm = bits(raw, 25, 20);
  } else if constexpr (F == Fmt::S) {
    i.rs1 = rs1, i.rs2 = rs2, i.imm = imm_s(raw);
  } else if constexpr (F == Fmt::B) {
    i.rs1 = rs1, i.rs2 = rs2, i.imm = imm_b(raw);
  } else if constexpr (F == Fmt::U) {
    i.rd = rd, i.imm = imm_u(raw);
  } else if constexpr (F == Fmt::J) {
    i.rd = rd, i.imm = imm_j(raw);
  } else if constexpr (F == Fmt::A) {
    i.rd = rd, i.rs1 = rs1, i.rs2 = rs2, i.rm = bits(raw, 26, 25);
  } else if constexpr (F == Fmt::FR) {
    i.rd = rd, i.rs1 = rs1, i.rs2 = rs2, i.rm = bits(raw, 14, 12);
  } else if constexpr (F == Fmt::FR4) {
    i.rd = rd, i.rs1 = rs1, i.rs2 = rs2, i.rs3 = bits(raw, 31, 27), i.rm = bits(raw, 14, 12);
  } else if constexpr (F == Fmt::CSR || F == Fmt::CSRI) {
    i.rd = rd, i.rs1 = rs1, i.imm = raw >> 20;
  } else if constexpr (F == Fmt::FENCE) {
    i.imm = raw >> 20;  // fm, pred, succ are adjacent in bits 31:20
  } else if constexpr (F == Fmt::CBO) {
    i.rs1 = rs1;
  }
  return i;
}

// For ops whose rs2 or shamt field selects the op instead of naming an operand: the field must not
// leak into the Insn.
template <Fmt F>
Insn unary(Op op, uint32_t raw) {
  Insn i = with_fields<F>(op, raw);
  i.rs2 = 0, i.imm = 0;
  return i;
}

Insn illegal32(uint32_t raw) { return with_fields<Fmt::N>(Op::ILLEGAL, raw); }

Op pick(bool dbl, Op s, Op d) { return dbl ? d : s; }

Insn decode_op_imm(uint32_t raw, bool rv32) {
  const uint32_t f3 = bits(raw, 14, 12), rs2 = bits(raw, 24, 20);
  switch (f3) {
    case 0: return with_fields<Fmt::I>(Op::ADDI, raw);
    case 2: return with_fields<Fmt::I>(Op::SLTI, raw);
    case 3: return with_fields<Fmt::I>(Op::SLTIU, raw);
    case 4: return with_fields<Fmt::I>(Op::XORI, raw);
    case 6: return with_fields<Fmt::I>(Op::ORI, raw);
    case 7: return with_fields<Fmt::I>(Op::ANDI, raw);
    case 1:
      switch (raw >> 26) {
        case 0x00: return with_fields<Fmt::SH>(Op::SLLI, raw);
        case 0x0a: return with_fields<Fmt::SH>(Op::BSETI, raw);
        case 0x12: return with_fields<Fmt::SH>(Op::BCLRI, raw);
        case 0x1a: return with_fields<Fmt::SH>(Op::BINVI, raw);
        case 0x18:
          if (bits(raw, 25, 25)) break;
          switch (rs2) {
            case 0: return unary<Fmt::SH>(Op::CLZ, raw);
            case 1: return unary<Fmt::SH>(Op::CTZ, raw);
            case 2: return unary<Fmt::SH>(Op::CPOP, raw);
            case 4: return unary<Fmt::SH>(Op::SEXT_B, raw);
            case 5: return unary<Fmt::SH>(Op::SEXT_H, raw);
          }
          break;
      }
      break;
    case 5:
      switch (raw >> 26) {
        case 0x00: return with_fields<Fmt::SH>(Op::SRLI, raw);
        case 0x10: return with_fields<Fmt::SH>(Op::SRAI, raw);
        case 0x12: return with_fields<Fmt::SH>(Op::BEXTI, raw);
        case 0x18: return with_fields<Fmt::SH>(Op::RORI, raw);
        case 0x0a:
          if ((raw >> 20) == 0x287) return unary<Fmt::SH>(Op::ORC_B, raw);
          break;
        case 0x1a:
          if ((raw >> 20) == (rv32 ? 0x698u : 0x6b8u)) return unary<Fmt::SH>(Op::REV8, raw);  // shamt = XLEN - 8
          break;
      }
      break;
  }
  return illegal32(raw);
}

Insn decode_op_imm_32(uint32_t raw) {
  const uint32_t f3 = bits(raw, 14, 12), f7 = raw >> 25, rs2 = bits(raw, 24, 20);
  if (f3 == 0) return with_fields<Fmt::I>(Op::ADDIW, raw);
  if (f3 == 1) {
    if (f7 == 0x00) return with_fields<Fmt::SH>(Op::SLLIW, raw);
    if ((raw >> 26) == 0x02) return with_fields<Fmt::SH>(Op::SLLI_UW, raw);
    if (f7 == 0x30) {
      if (rs2 == 0) return unary<Fmt::SH>(Op::CLZW, raw);
      if (rs2 == 1) return unary<Fmt::SH>(Op::CTZW, raw);
      if (rs2 == 2) return unary<Fmt::SH>(Op::CPOPW, raw);
    }
  } else if (f3 == 5) {
    if (f7 == 0x00) return with_fields<Fmt::SH>(Op::SRLIW, raw);
    if (f7 == 0x20) return with_fields<Fmt::SH>(Op::SRAIW, raw);
    if (f7 == 0x30) return with_fields<Fmt::SH>(Op::RORIW, raw);
  }
  return illegal32(raw);
}

Op op_amo(uint32_t raw) {
  const uint32_t f3 = bits(raw, 14, 12);
  if (f3 != 2 && f3 != 3) return Op::ILLEGAL;
  const bool dbl = f3 == 3;
  switch (raw >> 27) {
    case 0x02: return bits(raw, 24, 20) == 0 ? pick(dbl, Op::LR_W, Op::LR_D) : Op::ILLEGAL;
    case 0x03: return pick(dbl, Op::SC_W, Op::SC_D);
    case 0x01: return pick(dbl, Op::AMOSWAP_W, Op::AMOSWAP_D);
    case 0x00: return pick(dbl, Op::AMOADD_W, Op::AMOADD_D);
    case 0x04: return pick(dbl, Op::AMOXOR_W, Op::AMOXOR_D);
    case 0x0c: return pick(dbl, Op::AMOAND_W, Op::AMOAND_D);
    case 0x08: return pick(dbl, Op::AMOOR_W, Op::AMOOR_D);
    case 0x10: return pick(dbl, Op::AMOMIN_W, Op::AMOMIN_D);
    case 0x14: return pick(dbl, Op::AMOMAX_W, Op::AMOMAX_D);
    case 0x18: return pick(dbl, Op::AMOMINU_W, Op::AMOMINU_D);
    case 0x1c: return pick(dbl, Op::AMOMAXU_W, Op::AMOMAXU_D);
  }
  return Op::ILLEGAL;
}

Op op_op(uint32_t raw, bool rv32) {
  switch (key(raw >> 25, bits(raw, 14, 12))) {
    case key(0x04, 4):  // pack with rs2 = x0 on RV32 (RV64's is packw); pack itself (Zbkb) is not implemented
      return rv32 && bits(raw, 24, 20) == 0 ? Op::ZEXT_H : Op::ILLEGAL;
    case key(0x00, 0): return Op::ADD;
    case key(0x00, 1): return Op::SLL;
    case key(0x00, 2): return Op::SLT;
    case key(0x00, 3): return Op::SLTU;
    case key(0x00, 4): return Op::XOR;
    case key(0x00, 5): return Op::SRL;
    case key(0x00, 6): return Op::OR;
    case key(0x00, 7): return Op::AND;
    case key(0x20, 0): return Op::SUB;
    case key(0x20, 5): return Op::SRA;
    case key(0x20, 4): return Op::XNOR;
    case key(0x20, 6): return Op::ORN;
    case key(0x20, 7): return Op::ANDN;
    case key(0x01, 0): return Op::MUL;
    case key(0x01, 1): return Op::MULH;
    case key(0x01, 2): return Op::MULHSU;
    case key(0x01, 3): return Op::MULHU;
    case key(0x01, 4): return Op::DIV;
    case key(0x01, 5): return Op::DIVU;
    case key(0x01, 6): return Op::REM;
    case key(0x01, 7): return Op::REMU;
    case key(0x10, 2): return Op::SH1ADD;
    case key(0x10, 4): return Op::SH2ADD;
    case key(0x10, 6): return Op::SH3ADD;
    case key(0x05, 4): return Op::MIN;
    case key(0x05, 5): return Op::MINU;
    case key(0x05, 6): return Op::MAX;
    case key(0x05, 7): return Op::MAXU;
    case key(0x30, 1): return Op::ROL;
    case key(0x30, 5): return Op::ROR;
    case key(0x24, 1): return Op::BCLR;
    case key(0x24, 5): return Op::BEXT;
    case key(0x34, 1): return Op::BINV;
    case key(0x14, 1): return Op::BSET;
    case key(0x07, 5): return Op::CZERO_EQZ;
    case key(0x07, 7): return Op::CZERO_NEZ;
  }
  return Op::ILLEGAL;
}

Insn decode_op_32(uint32_t raw) {
  switch (key(raw >> 25, bits(raw, 14, 12))) {
    case key(0x00, 0): return with_fields<Fmt::R>(Op::ADDW, raw);
    case key(0x00, 1): return with_fields<Fmt::R>(Op::SLLW, raw);
    case key(0x00, 5): return with_fields<Fmt::R>(Op::SRLW, raw);
    case key(0x20, 0): return with_fields<Fmt::R>(Op::SUBW, raw);
    case key(0x20, 5): return with_fields<Fmt::R>(Op::SRAW, raw);
    case key(0x01, 0): return with_fields<Fmt::R>(Op::MULW, raw);
    case key(0x01, 4): return with_fields<Fmt::R>(Op::DIVW, raw);
    case key(0x01, 5): return with_fields<Fmt::R>(Op::DIVUW, raw);
    case key(0x01, 6): return with_fields<Fmt::R>(Op::REMW, raw);
    case key(0x01, 7): return with_fields<Fmt::R>(Op::REMUW, raw);
    case key(0x04, 0): return with_fields<Fmt::R>(Op::ADD_UW, raw);
    case key(0x04, 4):  // packw with rs2 = x0; packw itself (Zbkb) is not implemented
      if (bits(raw, 24, 20) == 0) return unary<Fmt::SH>(Op::ZEXT_H, raw);
      break;
    case key(0x10, 2): return with_fields<Fmt::R>(Op::SH1ADD_UW, raw);
    case key(0x10, 4): return with_fields<Fmt::R>(Op::SH2ADD_UW, raw);
    case key(0x10, 6): return with_fields<Fmt::R>(Op::SH3ADD_UW, raw);
    case key(0x30, 1): return with_fields<Fmt::R>(Op::ROLW, raw);
    case key(0x30, 5): return with_fields<Fmt::R>(Op::RORW, raw);
  }
  return illegal32(raw);
}

Insn decode_op_fp(uint32_t raw) {
  if (bits(raw, 26, 25) > 1) return illegal32(raw);  // only S and D; H and Q are not implemented
  const uint32_t f3 = bits(raw, 14, 12), rs2 = bits(raw, 24, 20);
  const bool dbl = bits(raw, 25, 25);
  switch (raw >> 27) {
    case 0x00: return with_fields<Fmt::FR>(pick(dbl, Op::FADD_S, Op::FADD_D), raw);
    case 0x01: return with_fields<Fmt::FR>(pick(dbl, Op::FSUB_S, Op::FSUB_D), raw);
    case 0x02: return with_fields<Fmt::FR>(pick(dbl, Op::FMUL_S, Op::FMUL_D), raw);
    case 0x03: return with_fields<Fmt::FR>(pick(dbl, Op::FDIV_S, Op::FDIV_D), raw);
    case 0x0b:
      if (rs2 == 0) return unary<Fmt::FR>(pick(dbl, Op::FSQRT_S, Op::FSQRT_D), raw);
      break;
    case 0x04:
      if (f3 == 0) return with_fields<Fmt::FR>(pick(dbl, Op::FSGNJ_S, Op::FSGNJ_D), raw);
      if (f3 == 1) return with_fields<Fmt::FR>(pick(dbl, Op::FSGNJN_S, Op::FSGNJN_D), raw);
      if (f3 == 2) return with_fields<Fmt::FR>(pick(dbl, Op::FSGNJX_S, Op::FSGNJX_D), raw);
      break;
    case 0x05:
      if (f3 == 0) return with_fields<Fmt::FR>(pick(dbl, Op::FMIN_S, Op::FMIN_D), raw);
      if (f3 == 1) return with_fields<Fmt::FR>(pick(dbl, Op::FMAX_S, Op::FMAX_D), raw);
      break;
    case 0x08:  // the destination format is in fmt, the source format in rs2
      if (!dbl && rs2 == 1) return unary<Fmt::FR>(Op::FCVT_S_D, raw);
      if (dbl && rs2 == 0) return unary<Fmt::FR>(Op::FCVT_D_S, raw);
      break;
    case 0x14:
      if (f3 == 0) return with_fields<Fmt::FR>(pick(dbl, Op::FLE_S, Op::FLE_D), raw);
      if (f3 == 1) return with_fields<Fmt::FR>(pick(dbl, Op::FLT_S, Op::FLT_D), raw);
      if (f3 == 2) return with_fields<Fmt::FR>(pick(dbl, Op::FEQ_S, Op::FEQ_D), raw);
      break;
    case 0x18: {
      static constexpr Op kToInt[4][2] = {{Op::FCVT_W_S, Op::FCVT_W_D},
                                          {Op::FCVT_WU_S, Op::FCVT_WU_D},
                                          {Op::FCVT_L_S, Op::FCVT_L_D},
                                          {Op::FCVT_LU_S, Op::FCVT_LU_D}};
      if (rs2 < 4) return unary<Fmt::FR>(kToInt[rs2][dbl], raw);
      break;
    }
    case 0x1a: {
      static constexpr Op kFromInt[4][2] = {{Op::FCVT_S_W, Op::FCVT_D_W},
                                            {Op::FCVT_S_WU, Op::FCVT_D_WU},
                                            {Op::FCVT_S_L, Op::FCVT_D_L},
                                            {Op::FCVT_S_LU, Op::FCVT_D_LU}};
      if (rs2 < 4) return unary<Fmt::FR>(kFromInt[rs2][dbl], raw);
      break;
    }
    case 0x1c:
      if (rs2 != 0) break;
      if (f3 == 0) return unary<Fmt::FR>(pick(dbl, Op::FMV_X_W, Op::FMV_X_D), raw);
      if (f3 == 1) return unary<Fmt::FR>(pick(dbl, Op::FCLASS_S, Op::FCLASS_D), raw);
      break;
    case 0x1e:
      if (rs2 == 0 && f3 == 0) return unary<Fmt::FR>(pick(dbl, Op::FMV_W_X, Op::FMV_D_X), raw);
      break;
  }
  return illegal32(raw);
}

Insn decode_misc_mem(uint32_t raw) {
  switch (bits(raw, 14, 12)) {
    case 0:
      // Reserved fm values and nonzero rd/rs1 must be executed as a plain fence, so they stay FENCE.
      if (raw == 0x0100000f) return with_fields<Fmt::N>(Op::PAUSE, raw);
      return with_fields<Fmt::FENCE>(Op::FENCE, raw);
    case 1:
      return with_fields<Fmt::N>(Op::FENCE_I, raw);  // imm, rs1 and rd are reserved and must be ignored
    case 2:
      if (bits(raw, 11, 7) != 0) break;
      switch (raw >> 20) {
        case 0: return with_fields<Fmt::CBO>(Op::CBO_INVAL, raw);
        case 1: return with_fields<Fmt::CBO>(Op::CBO_CLEAN, raw);
        case 2: return with_fields<Fmt::CBO>(Op::CBO_FLUSH, raw);
        case 4: return with_fields<Fmt::CBO>(Op::CBO_ZERO, raw);
      }
      break;
  }
  return illegal32(raw);
}

Insn decode_system(uint32_t raw) {
  switch (bits(raw, 14, 12)) {
    case 0:
      switch (raw) {
        case 0x00000073: return with_fields<Fmt::N>(Op::ECALL, raw);
        case 0x00100073: return with_fields<Fmt::N>(Op::EBREAK, raw);
        case 0x10200073: return with_fields<Fmt::N>(Op::SRET, raw);
        case 0x30200073: return with_fields<Fmt::N>(Op::MRET, raw);
        case 0x10500073: return with_fields<Fmt::N>(Op::WFI, raw);
        case ctr::kSctrclrRaw: return with_fields<Fmt::N>(Op::SCTRCLR, raw);
      }
      if ((raw >> 25) == 0x09 && bits(raw, 11, 7) == 0) return with_fields<Fmt::R>(Op::SFENCE_VMA, raw);
      break;
    case 1: return with_fields<Fmt::CSR>(Op::CSRRW, raw);
    case 2: return with_fields<Fmt::CSR>(Op::CSRRS, raw);
    case 3: return with_fields<Fmt::CSR>(Op::CSRRC, raw);
    case 5: return with_fields<Fmt::CSRI>(Op::CSRRWI, raw);
    case 6: return with_fields<Fmt::CSRI>(Op::CSRRSI, raw);
    case 7: return with_fields<Fmt::CSRI>(Op::CSRRCI, raw);
  }
  return illegal32(raw);
}

Insn decode32(uint32_t raw, bool rv32) {
  const uint32_t f3 = bits(raw, 14, 12);
  switch (raw & 0x7f) {
    case 0x03: {
      static constexpr Op kLoads[8] = {Op::LB,  Op::LH,  Op::LW,  Op::LD,
                                       Op::LBU, Op::LHU, Op::LWU, Op::ILLEGAL};
      return with_fields<Fmt::I>(kLoads[f3], raw);
    }
    case 0x07:
      if (f3 == 2) return with_fields<Fmt::I>(Op::FLW, raw);
      if (f3 == 3) return with_fields<Fmt::I>(Op::FLD, raw);
      break;
    case 0x0f: return decode_misc_mem(raw);
    case 0x13: return decode_op_imm(raw, rv32);
    case 0x17: return with_fields<Fmt::U>(Op::AUIPC, raw);
    case 0x1b: return rv32 ? illegal32(raw) : decode_op_imm_32(raw);
    case 0x23: {
      static constexpr Op kStores[8] = {Op::SB,      Op::SH,      Op::SW,      Op::SD,
                                        Op::ILLEGAL, Op::ILLEGAL, Op::ILLEGAL, Op::ILLEGAL};
      return with_fields<Fmt::S>(kStores[f3], raw);
    }
    case 0x27:
      if (f3 == 2) return with_fields<Fmt::S>(Op::FSW, raw);
      if (f3 == 3) return with_fields<Fmt::S>(Op::FSD, raw);
      break;
    case 0x2b:
      if (f3 == 0 && bits(raw, 31, 25) < 8) {
        static constexpr Op kXdma[8] = {Op::DMSRC,   Op::DMDST,  Op::DMCPYI, Op::DMCPY,
                                        Op::DMSTATI, Op::DMSTAT, Op::DMSTR,  Op::DMREP};
        return with_fields<Fmt::R>(kXdma[bits(raw, 31, 25)], raw);
      }
      // Xssr: SCFGRI rd, imm (rs1 = 0); SCFGR rd, rs2 (funct7 0, rs1 = 1); SCFGWI rs1, imm (rd = 0);
      // SCFGW rs1, rs2 (funct7 0, rd = 1).
      if (f3 == 1 && bits(raw, 19, 15) == 0) return with_fields<Fmt::I>(Op::SCFGRI, raw);
      if (f3 == 1 && bits(raw, 19, 15) == 1 && bits(raw, 31, 25) == 0) return with_fields<Fmt::R>(Op::SCFGR, raw);
      if (f3 == 2 && bits(raw, 11, 7) == 0) return with_fields<Fmt::I>(Op::SCFGWI, raw);
      if (f3 == 2 && bits(raw, 11, 7) == 1 && bits(raw, 31, 25) == 0) return with_fields<Fmt::R>(Op::SCFGW, raw);
      break;
    case 0x0b:  // Xfrep: bit 7 tells FREP.O from FREP.I
      return with_fields<Fmt::I>(bits(raw, 7, 7) ? Op::FREP_O : Op::FREP_I, raw);
    case 0x2f: return with_fields<Fmt::A>(op_amo(raw), raw);
    case 0x33: return with_fields<Fmt::R>(op_op(raw, rv32), raw);
    case 0x37: return with_fields<Fmt::U>(Op::LUI, raw);
    case 0x3b: return rv32 ? illegal32(raw) : decode_op_32(raw);
    case 0x43:
    case 0x47:
    case 0x4b:
    case 0x4f: {
      const uint32_t fmt = bits(raw, 26, 25);  // 0 = S, 1 = D; H and Q are not implemented
      if (fmt > 1) break;
      static constexpr Op kFma[4][2] = {{Op::FMADD_S, Op::FMADD_D},
                                        {Op::FMSUB_S, Op::FMSUB_D},
                                        {Op::FNMSUB_S, Op::FNMSUB_D},
                                        {Op::FNMADD_S, Op::FNMADD_D}};
      return with_fields<Fmt::FR4>(kFma[bits(raw, 3, 2)][fmt], raw);
    }
    case 0x53: return decode_op_fp(raw);
    case 0x63: {
      static constexpr Op kBranches[8] = {Op::BEQ, Op::BNE, Op::ILLEGAL, Op::ILLEGAL,
                                          Op::BLT, Op::BGE, Op::BLTU,    Op::BGEU};
      return with_fields<Fmt::B>(kBranches[f3], raw);
    }
    case 0x67:
      if (f3 == 0) return with_fields<Fmt::I>(Op::JALR, raw);
      break;
    case 0x6f: return with_fields<Fmt::J>(Op::JAL, raw);
    case 0x73: return decode_system(raw);
  }
  return illegal32(raw);
}

Insn compressed(Op op, uint32_t raw, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm) {
  Insn i;
  i.op = op;
  i.rd = rd, i.rs1 = rs1, i.rs2 = rs2;
  i.imm = imm;
  i.len = 2;
  i.raw = raw;
  return i;
}

Insn illegal16(uint32_t raw) { return compressed(Op::ILLEGAL, raw, 0, 0, 0, 0); }

// The offset of c.j and c.jal.
int64_t c_j_offset(uint32_t c) {
  return sext(bits(c, 12, 12) << 11 | bits(c, 11, 11) << 4 | bits(c, 10, 9) << 8 | bits(c, 8, 8) << 10 |
                  bits(c, 7, 7) << 6 | bits(c, 6, 6) << 7 | bits(c, 5, 3) << 1 | bits(c, 2, 2) << 5,
              12);
}

Insn decode16(uint32_t c, bool rv32) {
  constexpr unsigned kSp = 2, kRa = 1;
  const unsigned rd = bits(c, 11, 7), rs2 = bits(c, 6, 2);
  // The 3-bit register fields of the CIW/CL/CS/CA/CB forms name x8..x15 (or f8..f15).
  const unsigned rd_p = 8 + bits(c, 4, 2), rs1_p = 8 + bits(c, 9, 7);
  const int64_t imm6 = sext(bits(c, 12, 12) << 5 | bits(c, 6, 2), 6);
  const uint32_t shamt = bits(c, 12, 12) << 5 | bits(c, 6, 2);
  // Scaled offsets of the doubleword and word forms.
  const uint32_t off_d = bits(c, 12, 10) << 3 | bits(c, 6, 5) << 6;
  const uint32_t off_w = bits(c, 12, 10) << 3 | bits(c, 6, 6) << 2 | bits(c, 5, 5) << 6;
  const uint32_t off_dsp = bits(c, 12, 12) << 5 | bits(c, 6, 5) << 3 | bits(c, 4, 2) << 6;
  const uint32_t off_wsp = bits(c, 12, 12) << 5 | bits(c, 6, 4) << 2 | bits(c, 3, 2) << 6;
  const uint32_t off_swsp = bits(c, 12, 9) << 2 | bits(c, 8, 7) << 6;
  const uint32_t off_sdsp = bits(c, 12, 10) << 3 | bits(c, 9, 7) << 6;

  switch (bits(c, 1, 0) << 3 | bits(c, 15, 13)) {
    // Quadrant 0
    case 0b00'000: {
      const uint32_t nzuimm =
          bits(c, 12, 11) << 4 | bits(c, 10, 7) << 6 | bits(c, 6, 6) << 2 | bits(c, 5, 5) << 3;
      if (nzuimm == 0) return illegal16(c);  // also covers the all-zero parcel
      return compressed(Op::ADDI, c, rd_p, kSp, 0, nzuimm);
    }
    case 0b00'001: return compressed(Op::FLD, c, rd_p, rs1_p, 0, off_d);
    case 0b00'010: return compressed(Op::LW, c, rd_p, rs1_p, 0, off_w);
    case 0b00'011:  // c.flw on RV32
      return rv32 ? compressed(Op::FLW, c, rd_p, rs1_p, 0, off_w) : compressed(Op::LD, c, rd_p, rs1_p, 0, off_d);
    case 0b00'101: return compressed(Op::FSD, c, 0, rs1_p, rd_p, off_d);
    case 0b00'110: return compressed(Op::SW, c, 0, rs1_p, rd_p, off_w);
    case 0b00'111:  // c.fsw on RV32
      return rv32 ? compressed(Op::FSW, c, 0, rs1_p, rd_p, off_w) : compressed(Op::SD, c, 0, rs1_p, rd_p, off_d);

    // Quadrant 1
    case 0b01'000: return compressed(Op::ADDI, c, rd, rd, 0, imm6);
    case 0b01'001:
      if (rv32) return compressed(Op::JAL, c, kRa, 0, 0, c_j_offset(c));  // c.jal
      if (rd == 0) return illegal16(c);
      return compressed(Op::ADDIW, c, rd, rd, 0, imm6);
    case 0b01'010: return compressed(Op::ADDI, c, rd, 0, 0, imm6);
    case 0b01'011:
      if (rd == kSp) {
        const int64_t imm = sext(bits(c, 12, 12) << 9 | bits(c, 6, 6) << 4 | bits(c, 5, 5) << 6 |
                                     bits(c, 4, 3) << 7 | bits(c, 2, 2) << 5,
                                 10);
        if (imm == 0) return illegal16(c);
        return compressed(Op::ADDI, c, kSp, kSp, 0, imm);
      }
      if (imm6 == 0) return illegal16(c);
      return compressed(Op::LUI, c, rd, 0, 0, imm6 * 4096);
    case 0b01'100: {
      const unsigned rsd = rs1_p;
      switch (bits(c, 11, 10)) {
        case 0: return compressed(Op::SRLI, c, rsd, rsd, 0, shamt);
        case 1: return compressed(Op::SRAI, c, rsd, rsd, 0, shamt);
        case 2: return compressed(Op::ANDI, c, rsd, rsd, 0, imm6);
      }
      static constexpr Op kAlu[8] = {Op::SUB,  Op::XOR,  Op::OR,      Op::AND,
                                     Op::SUBW, Op::ADDW, Op::ILLEGAL, Op::ILLEGAL};
      const Op op = kAlu[bits(c, 12, 12) << 2 | bits(c, 6, 5)];
      if (op == Op::ILLEGAL) return illegal16(c);  // Zcb's c.mul and c.zext.* live here
      return compressed(op, c, rsd, rsd, rd_p, 0);
    }
    case 0b01'101: return compressed(Op::JAL, c, 0, 0, 0, c_j_offset(c));
    case 0b01'110:
    case 0b01'111: {
      const int64_t off = sext(bits(c, 12, 12) << 8 | bits(c, 11, 10) << 3 | bits(c, 6, 5) << 6 |
                                   bits(c, 4, 3) << 1 | bits(c, 2, 2) << 5,
                               9);
      return compressed(bits(c, 13, 13) ? Op::BNE : Op::BEQ, c, 0, rs1_p, 0, off);
    }

    // Quadrant 2
    case 0b10'000: return compressed(Op::SLLI, c, rd, rd, 0, shamt);
    case 0b10'001: return compressed(Op::FLD, c, rd, kSp, 0, off_dsp);
    case 0b10'010:
      if (rd == 0) return illegal16(c);
      return compressed(Op::LW, c, rd, kSp, 0, off_wsp);
    case 0b10'011:
      if (rv32) return compressed(Op::FLW, c, rd, kSp, 0, off_wsp);  // c.flwsp
      if (rd == 0) return illegal16(c);
      return compressed(Op::LD, c, rd, kSp, 0, off_dsp);
    case 0b10'100:
      if (bits(c, 12, 12) == 0) {
        if (rs2 != 0) return compressed(Op::ADD, c, rd, 0, rs2, 0);  // c.mv
        if (rd == 0) return illegal16(c);
        return compressed(Op::JALR, c, 0, rd, 0, 0);  // c.jr
      }
      if (rs2 != 0) return compressed(Op::ADD, c, rd, rd, rs2, 0);
      if (rd == 0) return compressed(Op::EBREAK, c, 0, 0, 0, 0);
      return compressed(Op::JALR, c, kRa, rd, 0, 0);  // c.jalr
    case 0b10'101: return compressed(Op::FSD, c, 0, kSp, rs2, off_sdsp);
    case 0b10'110: return compressed(Op::SW, c, 0, kSp, rs2, off_swsp);
    case 0b10'111:  // c.fswsp on RV32
      return rv32 ? compressed(Op::FSW, c, 0, kSp, rs2, off_swsp) : compressed(Op::SD, c, 0, kSp, rs2, off_sdsp);
  }
  return illegal16(c);  // quadrant 0 funct3 = 100 (reserved, Zcb)
}

// What an RV32 hart runs for i (jit/opcodes.def): nothing for the RV64-only ops and the shifts by
// 32 or more (shamt[5] = 1 is reserved, or custom for the compressed ones), the W op where it
// computes the same as the RV32 op on sign-extended registers.
Insn rv32_form(Insn i) {
  if ((i.flags() & kRv64) || (op_info(i.op).fmt == Fmt::SH && (i.imm & 32))) return i.as_illegal();
  switch (i.op) {
    case Op::ADDI: i.op = Op::ADDIW; break;
    case Op::SLLI: i.op = Op::SLLIW; break;
    case Op::SRLI: i.op = Op::SRLIW; break;
    case Op::SRAI: i.op = Op::SRAIW; break;
    case Op::ADD: i.op = Op::ADDW; break;
    case Op::SUB: i.op = Op::SUBW; break;
    case Op::SLL: i.op = Op::SLLW; break;
    case Op::SRL: i.op = Op::SRLW; break;
    case Op::SRA: i.op = Op::SRAW; break;
    case Op::MUL: i.op = Op::MULW; break;
    case Op::DIV: i.op = Op::DIVW; break;
    case Op::DIVU: i.op = Op::DIVUW; break;
    case Op::REM: i.op = Op::REMW; break;
    case Op::REMU: i.op = Op::REMUW; break;
    case Op::CLZ: i.op = Op::CLZW; break;
    case Op::CTZ: i.op = Op::CTZW; break;
    case Op::CPOP: i.op = Op::CPOPW; break;
    case Op::ROL: i.op = Op::ROLW; break;
    case Op::ROR: i.op = Op::RORW; break;
    case Op::RORI: i.op = Op::RORIW; break;
    default: break;
  }
  return i;
}

}  // namespace

Insn decode(uint32_t raw, const IsaConfig& isa) {
  const bool compressed = (raw & 3) != 3;
  const bool rv32 = isa.rv32();
  Insn i = compressed ? decode16(raw & 0xffff, rv32) : decode32(raw, rv32);
  if (rv32) i = rv32_form(i);
  // The extension gate, in one place for every engine: c.fld needs C and D, fld only D.
  if (!isa.has(op_info(i.op).ext) || (compressed && !isa.has(Ext::C))) return i.as_illegal();
  return i;
}

}  // namespace brisk
