// Disassembler for traces and error messages. The text follows `objdump -d -M no-aliases` (no pseudo-ops,
// compressed forms shown as the op they expand to) with ", " between operands and branch targets as 0x hex.
#include <fmt/format.h>

#include "jit/insn.h"

namespace brisk {
namespace {

constexpr const char* kXName[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
                                    "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                    "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
constexpr const char* kFName[32] = {"ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",
                                    "fs0", "fs1", "fa0",  "fa1",  "fa2", "fa3", "fa4",  "fa5",
                                    "fa6", "fa7", "fs2",  "fs3",  "fs4", "fs5", "fs6",  "fs7",
                                    "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
// objdump's words, 5 and 6 being reserved.
constexpr const char* kRmName[8] = {"rne", "rtz", "rdn", "rup", "rmm", "unknown", "unknown", "dyn"};

const char* reg(bool fp, unsigned r) { return fp ? kFName[r] : kXName[r]; }

// The register classes and operands of an FR op, which its format alone does not tell.
struct FrShape {
  bool rd_fp, rs1_fp;
  bool binary;     // reads rs2
  int default_rm;  // the rm the assembler emits when none is written; -1: rm selects the op
};

FrShape fr_shape(Op op) {
  switch (op) {
    case Op::FADD_S: case Op::FSUB_S: case Op::FMUL_S: case Op::FDIV_S:
    case Op::FADD_D: case Op::FSUB_D: case Op::FMUL_D: case Op::FDIV_D:
      return {true, true, true, 7};
    case Op::FSGNJ_S: case Op::FSGNJN_S: case Op::FSGNJX_S: case Op::FMIN_S: case Op::FMAX_S:
    case Op::FSGNJ_D: case Op::FSGNJN_D: case Op::FSGNJX_D: case Op::FMIN_D: case Op::FMAX_D:
      return {true, true, true, -1};
    case Op::FEQ_S: case Op::FLT_S: case Op::FLE_S: case Op::FEQ_D: case Op::FLT_D: case Op::FLE_D:
      return {false, true, true, -1};
    case Op::FSQRT_S: case Op::FSQRT_D: case Op::FCVT_S_D:
      return {true, true, false, 7};
    case Op::FCVT_D_S:  // exact: the assembler writes rm = 0
      return {true, true, false, 0};
    case Op::FCVT_W_S: case Op::FCVT_WU_S: case Op::FCVT_L_S: case Op::FCVT_LU_S:
    case Op::FCVT_W_D: case Op::FCVT_WU_D: case Op::FCVT_L_D: case Op::FCVT_LU_D:
      return {false, true, false, 7};
    case Op::FCVT_S_W: case Op::FCVT_S_WU: case Op::FCVT_S_L: case Op::FCVT_S_LU:
    case Op::FCVT_D_L: case Op::FCVT_D_LU:
      return {true, false, false, 7};
    case Op::FCVT_D_W: case Op::FCVT_D_WU:  // exact
      return {true, false, false, 0};
    case Op::FMV_X_W: case Op::FMV_X_D: case Op::FCLASS_S: case Op::FCLASS_D:
      return {false, true, false, -1};
    default:  // FMV_W_X, FMV_D_X
      return {true, false, false, -1};
  }
}

std::string rm_suffix(int default_rm, unsigned rm) {
  if (default_rm < 0 || static_cast<int>(rm) == default_rm) return {};
  return fmt::format(", {}", kRmName[rm & 7]);
}

bool is_unary_sh(Op op) {
  switch (op) {
    case Op::CLZ: case Op::CLZW: case Op::CTZ: case Op::CTZW: case Op::CPOP: case Op::CPOPW:
    case Op::SEXT_B: case Op::SEXT_H: case Op::ZEXT_H: case Op::ORC_B: case Op::REV8:
      return true;
    default:
      return false;
  }
}

std::string fence_set(unsigned set) {
  if (set == 0) return "unknown";  // what objdump prints for an empty set
  std::string s;
  for (unsigned b = 0; b < 4; b++)
    if (set & (8 >> b)) s += "iorw"[b];
  return s;
}

// RV32's add, sll, div, ... decode to the W op that computes them (jit/opcodes.def): the name is
// the encoding's, which RV64's decoder gives (for RV64's own W ops, the same op).
const char* mnemonic(const Insn& i) {
  return op_info(i.flags() & kRv64 ? decode(i.raw, IsaConfig{}).op : i.op).mnemonic;
}

}  // namespace

const char* x_register_name(unsigned r) { return kXName[r]; }

std::string disassemble(const Insn& i, uint64_t pc) {
  const OpInfo& info = op_info(i.op);
  const char* m = mnemonic(i);
  const bool fp = info.flags & kFp;
  // Xssr and Xfrep keep fixed fields where their formats have registers: the operands the Snitch
  // toolchain writes (SCFGRI/SCFGWI: the 12-bit config address; FREP: rs1 = max_iter, max_inst,
  // stagger_max, stagger_mask, all as encoded).
  switch (i.op) {
    case Op::SCFGRI: return fmt::format("{} {}, {}", m, kXName[i.rd], i.raw >> 20);
    case Op::SCFGWI: return fmt::format("{} {}, {}", m, kXName[i.rs1], i.raw >> 20);
    case Op::SCFGR: return fmt::format("{} {}, {}", m, kXName[i.rd], kXName[i.rs2]);
    case Op::SCFGW: return fmt::format("{} {}, {}", m, kXName[i.rs1], kXName[i.rs2]);
    case Op::FREP_O: case Op::FREP_I:
      return fmt::format("{} {}, {}, {}, {:#x}", m, kXName[i.rs1], i.raw >> 20, (i.raw >> 12) & 7, (i.raw >> 8) & 15);
    default: break;
  }
  switch (info.fmt) {
    case Fmt::R:
      if (i.op == Op::SFENCE_VMA) return fmt::format("{} {}, {}", m, kXName[i.rs1], kXName[i.rs2]);
      return fmt::format("{} {}, {}, {}", m, kXName[i.rd], kXName[i.rs1], kXName[i.rs2]);
    case Fmt::I:
      if (info.flags & (kLoad | kJump))
        return fmt::format("{} {}, {}({})", m, reg(fp, i.rd), i.imm, kXName[i.rs1]);
      return fmt::format("{} {}, {}, {}", m, kXName[i.rd], kXName[i.rs1], i.imm);
    case Fmt::SH:
      if (is_unary_sh(i.op)) return fmt::format("{} {}, {}", m, kXName[i.rd], kXName[i.rs1]);
      return fmt::format("{} {}, {}, {:#x}", m, kXName[i.rd], kXName[i.rs1], i.imm);
    case Fmt::S:
      return fmt::format("{} {}, {}({})", m, reg(fp, i.rs2), i.imm, kXName[i.rs1]);
    case Fmt::B:
      return fmt::format("{} {}, {}, {:#x}", m, kXName[i.rs1], kXName[i.rs2], pc + i.imm);
    case Fmt::U:
      return fmt::format("{} {}, {:#x}", m, kXName[i.rd], (i.imm >> 12) & 0xfffff);
    case Fmt::J:
      return fmt::format("{} {}, {:#x}", m, kXName[i.rd], pc + i.imm);
    case Fmt::A: {
      static constexpr const char* kOrder[4] = {"", ".rl", ".aq", ".aqrl"};
      if (i.op == Op::LR_W || i.op == Op::LR_D)
        return fmt::format("{}{} {}, ({})", m, kOrder[i.rm & 3], kXName[i.rd], kXName[i.rs1]);
      return fmt::format("{}{} {}, {}, ({})", m, kOrder[i.rm & 3], kXName[i.rd], kXName[i.rs2],
                         kXName[i.rs1]);
    }
    case Fmt::FR: {
      const FrShape s = fr_shape(i.op);
      std::string text = fmt::format("{} {}, {}", m, reg(s.rd_fp, i.rd), reg(s.rs1_fp, i.rs1));
      if (s.binary) text += fmt::format(", {}", kFName[i.rs2]);
      return text + rm_suffix(s.default_rm, i.rm);
    }
    case Fmt::FR4:
      return fmt::format("{} {}, {}, {}, {}{}", m, kFName[i.rd], kFName[i.rs1], kFName[i.rs2], kFName[i.rs3],
                         rm_suffix(7, i.rm));
    case Fmt::CSR:
      return fmt::format("{} {}, {:#05x}, {}", m, kXName[i.rd], i.imm, kXName[i.rs1]);
    case Fmt::CSRI:
      return fmt::format("{} {}, {:#05x}, {}", m, kXName[i.rd], i.imm, i.rs1);
    case Fmt::FENCE:
      if (i.imm == 0x833) return "fence.tso";
      return fmt::format("{} {}, {}", m, fence_set((i.imm >> 4) & 15), fence_set(i.imm & 15));
    case Fmt::CBO:
      return fmt::format("{} ({})", m, kXName[i.rs1]);
    case Fmt::N:
      if (i.op == Op::ILLEGAL) return fmt::format("illegal {:#0{}x}", i.raw, i.len == 2 ? 6 : 10);
      return m;
  }
  return m;
}

}  // namespace brisk
