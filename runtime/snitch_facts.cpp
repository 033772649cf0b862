#include "runtime/snitch_facts.h"

namespace brisk {

using snitch::Exec;
using snitch::InsnFacts;

namespace {

constexpr uint8_t fpr(uint8_t r) { return InsnFacts::kFp + r; }

// Where an F/D operation (other than a load or store) executes and what its registers are.
struct FpShape {
  Exec exec;
  bool rd_int = false;   // rd is a GPR
  bool rs1_int = false;  // rs1 is a GPR
  bool rs2 = true;       // rs2 names a register (for the unary ones it selects a variant)
};

FpShape fp_shape(Op op) {
  switch (op) {
    case Op::FMADD_D: case Op::FMSUB_D: case Op::FNMSUB_D: case Op::FNMADD_D:
    case Op::FADD_D: case Op::FSUB_D: case Op::FMUL_D:
      return {Exec::FpComp64};
    case Op::FMADD_S: case Op::FMSUB_S: case Op::FNMSUB_S: case Op::FNMADD_S:
    case Op::FADD_S: case Op::FSUB_S: case Op::FMUL_S:
      return {Exec::FpComp32};
    case Op::FDIV_S: case Op::FDIV_D:
      return {Exec::FpDivSqrt};
    case Op::FSQRT_S: case Op::FSQRT_D:
      return {Exec::FpDivSqrt, false, false, false};
    case Op::FEQ_S: case Op::FLT_S: case Op::FLE_S: case Op::FEQ_D: case Op::FLT_D: case Op::FLE_D:
      return {Exec::FpNonComp, true};
    case Op::FCLASS_S: case Op::FCLASS_D: case Op::FMV_X_W: case Op::FMV_X_D:
      return {Exec::FpNonComp, true, false, false};
    case Op::FMV_W_X: case Op::FMV_D_X:
      return {Exec::FpNonComp, false, true, false};
    case Op::FCVT_W_S: case Op::FCVT_WU_S: case Op::FCVT_L_S: case Op::FCVT_LU_S:
    case Op::FCVT_W_D: case Op::FCVT_WU_D: case Op::FCVT_L_D: case Op::FCVT_LU_D:
      return {Exec::FpConv, true, false, false};
    case Op::FCVT_S_W: case Op::FCVT_S_WU: case Op::FCVT_S_L: case Op::FCVT_S_LU:
    case Op::FCVT_D_W: case Op::FCVT_D_WU: case Op::FCVT_D_L: case Op::FCVT_D_LU:
      return {Exec::FpConv, false, true, false};
    case Op::FCVT_S_D: case Op::FCVT_D_S:
      return {Exec::FpConv, false, false, false};
    default:  // sign injection, min/max
      return {Exec::FpNonComp};
  }
}

Exec int_exec(Op op, uint16_t flags) {
  switch (op) {
    case Op::MUL: case Op::MULH: case Op::MULHSU: case Op::MULHU: case Op::MULW:
      return Exec::Mul;
    case Op::DIV: case Op::DIVU: case Op::REM: case Op::REMU:
    case Op::DIVW: case Op::DIVUW: case Op::REMW: case Op::REMUW:
      return Exec::Div;
    default:
      // AMOs and SC write rd from the memory system, as loads do.
      if (flags & (kLoad | kAmo)) return Exec::Load;
      return (flags & kStore) ? Exec::Store : Exec::Alu;
  }
}

}  // namespace

InsnFacts snitch_facts(const Insn& in) {
  const OpInfo& info = op_info(in.op);
  InsnFacts f;
  if (info.flags & kFp) {
    f.fp_subsystem = true;
    if (info.flags & (kLoad | kStore)) {
      f.exec = (info.flags & kLoad) ? Exec::Load : Exec::Store;
      f.src[0] = in.rs1;
      if (info.flags & kLoad) f.dst = fpr(in.rd);
      else f.src[1] = fpr(in.rs2);
      return f;
    }
    const FpShape shape = fp_shape(in.op);
    f.exec = shape.exec;
    f.dst = shape.rd_int ? in.rd : fpr(in.rd);
    f.src[0] = shape.rs1_int ? in.rs1 : fpr(in.rs1);
    if (shape.rs2) f.src[1] = fpr(in.rs2);
    if (info.fmt == Fmt::FR4) f.src[2] = fpr(in.rs3);
    return f;
  }
  f.exec = int_exec(in.op, info.flags);
  switch (in.op) {
    case Op::DMCPY: case Op::DMCPYI: case Op::DMSTAT: case Op::DMSTATI: case Op::SCFGR: case Op::SCFGRI:
      f.accelerator = true;
      break;
    default:
      f.accelerator = f.exec == Exec::Mul || f.exec == Exec::Div;
  }
  switch (info.fmt) {
    case Fmt::R: case Fmt::A:
      f.dst = in.rd;
      f.src = {in.rs1, in.rs2, InsnFacts::kNone};
      break;
    case Fmt::I: case Fmt::SH: case Fmt::CSR:
      f.dst = in.rd;
      f.src[0] = in.rs1;
      break;
    case Fmt::S: case Fmt::B:
      f.src = {in.rs1, in.rs2, InsnFacts::kNone};
      break;
    case Fmt::U: case Fmt::J: case Fmt::CSRI:
      f.dst = in.rd;
      break;
    case Fmt::CBO:
      f.src[0] = in.rs1;
      break;
    default:
      break;
  }
  // Their rs2 field is an immediate.
  if (in.op == Op::DMCPYI || in.op == Op::DMSTATI) f.src[1] = InsnFacts::kNone;
  // Xssr and Xfrep are integer instructions to the core. Fixed fields: SCFGR's rs1 (1) and
  // SCFGW's rd (1) name no register; FREP's rd field holds the stagger mask and FREP.O's bit.
  if (in.op == Op::SCFGR) f.src[0] = InsnFacts::kNone;
  if (in.op == Op::SCFGW || in.op == Op::FREP_O || in.op == Op::FREP_I) f.dst = InsnFacts::kNone;
  return f;
}

}  // namespace brisk
