// Decoder, op table and disassembler tests. The encodings and the objdump text were produced by GNU as/objdump
// 2.40 (-march=rv64gc_zba_zbb_zbs_zicbom_zicboz_zihintpause, objdump -M no-aliases) from the assembly shown
// in each row's comment; binutils 2.40 lacks Zicond, so czero.* was assembled with .insn.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "jit/block_plan.h"
#include "jit/insn.h"

namespace brisk {

// Lets gtest print ops by mnemonic in failure messages (found by argument-dependent lookup).
static void PrintTo(Op op, std::ostream* os) { *os << op_info(op).mnemonic; }

namespace {

// Every extension brisk implements, as the default CPU has them.
const IsaConfig kAll;
Insn decode(uint32_t raw) { return brisk::decode(raw, kAll); }
// The Snitch DMA core's ISA: the default one and Xdma.
IsaConfig with_xdma() {
  IsaConfig isa;
  isa.on.set(static_cast<size_t>(Ext::Xdma));
  return isa;
}

// The Snitch compute cores' ISA: the default one and Xssr, Xfrep.
IsaConfig with_snitch_core() {
  IsaConfig isa;
  isa.on.set(static_cast<size_t>(Ext::Xssr)).set(static_cast<size_t>(Ext::Xfrep));
  return isa;
}

struct Expect {
  uint32_t raw;
  Op op;
  unsigned rd, rs1, rs2, rs3, rm;
  int64_t imm;
  unsigned len;
};

void check(const Expect& e, const char* what) {
  const Insn i = decode(e.raw);
  SCOPED_TRACE(::testing::Message() << what << " 0x" << std::hex << e.raw << ": decoded as "
                                    << op_info(i.op).mnemonic);
  EXPECT_EQ(i.op, e.op);
  EXPECT_EQ(i.rd, e.rd);
  EXPECT_EQ(i.rs1, e.rs1);
  EXPECT_EQ(i.rs2, e.rs2);
  EXPECT_EQ(i.rs3, e.rs3);
  EXPECT_EQ(i.rm, e.rm);
  EXPECT_EQ(i.imm, e.imm);
  EXPECT_EQ(i.len, e.len);
  EXPECT_EQ(i.raw, e.raw);
}

// Unused operand fields are expected to be zero: the rs2 of a unary FP op, the imm of a unary Zbb op.
// rm holds aq<<1|rl for A-format ops.
const Expect kBase[] = {
    {0x12345537, Op::LUI, 10, 0, 0, 0, 0, 305418240, 4},  // lui a0, 0x12345
    {0xffffffb7, Op::LUI, 31, 0, 0, 0, 0, -4096, 4},  // lui t6, 0xfffff
    {0x80000db7, Op::LUI, 27, 0, 0, 0, 0, -2147483648, 4},  // lui s11, 0x80000
    {0x00001097, Op::AUIPC, 1, 0, 0, 0, 0, 4096, 4},  // auipc ra, 0x1
    {0xfffff517, Op::AUIPC, 10, 0, 0, 0, 0, -4096, 4},  // auipc a0, 0xfffff
    {0x001000ef, Op::JAL, 1, 0, 0, 0, 0, 2048, 4},  // jal ra, .+2048
    {0xffdff06f, Op::JAL, 0, 0, 0, 0, 0, -4, 4},  // jal zero, .-4
    {0x7ffff46f, Op::JAL, 8, 0, 0, 0, 0, 1048574, 4},  // jal s0, .+0xffffe
    {0x8000056f, Op::JAL, 10, 0, 0, 0, 0, -1048576, 4},  // jal a0, .-0x100000
    {0x000500e7, Op::JALR, 1, 10, 0, 0, 0, 0, 4},  // jalr ra, 0(a0)
    {0x80028067, Op::JALR, 0, 5, 0, 0, 0, -2048, 4},  // jalr zero, -2048(t0)
    {0x7ff605e7, Op::JALR, 11, 12, 0, 0, 0, 2047, 4},  // jalr a1, 2047(a2)
    {0x00b50463, Op::BEQ, 0, 10, 11, 0, 0, 8, 4},  // beq a0, a1, .+8
    {0xfe629ee3, Op::BNE, 0, 5, 6, 0, 0, -4, 4},  // bne t0, t1, .-4
    {0x7e944fe3, Op::BLT, 0, 8, 9, 0, 0, 4094, 4},  // blt s0, s1, .+4094
    {0x80d65063, Op::BGE, 0, 12, 13, 0, 0, -4096, 4},  // bge a2, a3, .-4096
    {0x00f760e3, Op::BLTU, 0, 14, 15, 0, 0, 2048, 4},  // bltu a4, a5, .+2048
    {0xffde7fe3, Op::BGEU, 0, 28, 29, 0, 0, -2, 4},  // bgeu t3, t4, .-2
    {0x00058503, Op::LB, 10, 11, 0, 0, 0, 0, 4},  // lb a0, 0(a1)
    {0xfff59503, Op::LH, 10, 11, 0, 0, 0, -1, 4},  // lh a0, -1(a1)
    {0x7ff12903, Op::LW, 18, 2, 0, 0, 0, 2047, 4},  // lw s2, 2047(sp)
    {0x8001b983, Op::LD, 19, 3, 0, 0, 0, -2048, 4},  // ld s3, -2048(gp)
    {0x01024283, Op::LBU, 5, 4, 0, 0, 0, 16, 4},  // lbu t0, 16(tp)
    {0xff03d303, Op::LHU, 6, 7, 0, 0, 0, -16, 4},  // lhu t1, -16(t2)
    {0x064eee03, Op::LWU, 28, 29, 0, 0, 0, 100, 4},  // lwu t3, 100(t4)
    {0x00a58023, Op::SB, 0, 11, 10, 0, 0, 0, 4},  // sb a0, 0(a1)
    {0xffef9fa3, Op::SH, 0, 31, 30, 0, 0, -1, 4},  // sh t5, -1(t6)
    {0x7f412fa3, Op::SW, 0, 2, 20, 0, 0, 2047, 4},  // sw s4, 2047(sp)
    {0x815b3023, Op::SD, 0, 22, 21, 0, 0, -2048, 4},  // sd s5, -2048(s6)
    {0xffb58513, Op::ADDI, 10, 11, 0, 0, 0, -5, 4},  // addi a0, a1, -5
    {0x00000013, Op::ADDI, 0, 0, 0, 0, 0, 0, 4},  // addi zero, zero, 0
    {0x7ff10113, Op::ADDI, 2, 2, 0, 0, 0, 2047, 4},  // addi sp, sp, 2047
    {0x8005a513, Op::SLTI, 10, 11, 0, 0, 0, -2048, 4},  // slti a0, a1, -2048
    {0x0015b513, Op::SLTIU, 10, 11, 0, 0, 0, 1, 4},  // sltiu a0, a1, 1
    {0xfff5c513, Op::XORI, 10, 11, 0, 0, 0, -1, 4},  // xori a0, a1, -1
    {0x5555e513, Op::ORI, 10, 11, 0, 0, 0, 1365, 4},  // ori a0, a1, 1365
    {0x0ff5f513, Op::ANDI, 10, 11, 0, 0, 0, 255, 4},  // andi a0, a1, 255
    {0x00059513, Op::SLLI, 10, 11, 0, 0, 0, 0, 4},  // slli a0, a1, 0
    {0x03f59513, Op::SLLI, 10, 11, 0, 0, 0, 63, 4},  // slli a0, a1, 63
    {0x020c5b93, Op::SRLI, 23, 24, 0, 0, 0, 32, 4},  // srli s7, s8, 32
    {0x401d5c93, Op::SRAI, 25, 26, 0, 0, 0, 1, 4},  // srai s9, s10, 1
    {0x43f5d513, Op::SRAI, 10, 11, 0, 0, 0, 63, 4},  // srai a0, a1, 63
    {0x00c58533, Op::ADD, 10, 11, 12, 0, 0, 0, 4},  // add a0, a1, a2
    {0x406002b3, Op::SUB, 5, 0, 6, 0, 0, 0, 4},  // sub t0, zero, t1
    {0x00c59533, Op::SLL, 10, 11, 12, 0, 0, 0, 4},  // sll a0, a1, a2
    {0x00f726b3, Op::SLT, 13, 14, 15, 0, 0, 0, 4},  // slt a3, a4, a5
    {0x0128b833, Op::SLTU, 16, 17, 18, 0, 0, 0, 4},  // sltu a6, a7, s2
    {0x015a49b3, Op::XOR, 19, 20, 21, 0, 0, 0, 4},  // xor s3, s4, s5
    {0x018bdb33, Op::SRL, 22, 23, 24, 0, 0, 0, 4},  // srl s6, s7, s8
    {0x41bd5cb3, Op::SRA, 25, 26, 27, 0, 0, 0, 4},  // sra s9, s10, s11
    {0x01eeee33, Op::OR, 28, 29, 30, 0, 0, 0, 4},  // or t3, t4, t5
    {0x0020ffb3, Op::AND, 31, 1, 2, 0, 0, 0, 4},  // and t6, ra, sp
    {0xfff5851b, Op::ADDIW, 10, 11, 0, 0, 0, -1, 4},  // addiw a0, a1, -1
    {0x7ff5851b, Op::ADDIW, 10, 11, 0, 0, 0, 2047, 4},  // addiw a0, a1, 2047
    {0x01f5951b, Op::SLLIW, 10, 11, 0, 0, 0, 31, 4},  // slliw a0, a1, 31
    {0x0005d51b, Op::SRLIW, 10, 11, 0, 0, 0, 0, 4},  // srliw a0, a1, 0
    {0x4115d51b, Op::SRAIW, 10, 11, 0, 0, 0, 17, 4},  // sraiw a0, a1, 17
    {0x00c5853b, Op::ADDW, 10, 11, 12, 0, 0, 0, 4},  // addw a0, a1, a2
    {0x40c5853b, Op::SUBW, 10, 11, 12, 0, 0, 0, 4},  // subw a0, a1, a2
    {0x00c5953b, Op::SLLW, 10, 11, 12, 0, 0, 0, 4},  // sllw a0, a1, a2
    {0x00c5d53b, Op::SRLW, 10, 11, 12, 0, 0, 0, 4},  // srlw a0, a1, a2
    {0x40c5d53b, Op::SRAW, 10, 11, 12, 0, 0, 0, 4},  // sraw a0, a1, a2
    {0x0ff0000f, Op::FENCE, 0, 0, 0, 0, 0, 255, 4},  // fence iorw, iorw
    {0x0210000f, Op::FENCE, 0, 0, 0, 0, 0, 33, 4},  // fence r, w
    {0x0c30000f, Op::FENCE, 0, 0, 0, 0, 0, 195, 4},  // fence io, rw
    {0x8330000f, Op::FENCE, 0, 0, 0, 0, 0, 2099, 4},  // fence.tso
    {0x0100000f, Op::PAUSE, 0, 0, 0, 0, 0, 0, 4},  // pause
    {0x0000100f, Op::FENCE_I, 0, 0, 0, 0, 0, 0, 4},  // fence.i
    {0x00000073, Op::ECALL, 0, 0, 0, 0, 0, 0, 4},  // ecall
    {0x00100073, Op::EBREAK, 0, 0, 0, 0, 0, 0, 4},  // ebreak
    {0x7c059573, Op::CSRRW, 10, 11, 0, 0, 0, 1984, 4},  // csrrw a0, 0x7c0, a1
    {0xbc02a073, Op::CSRRS, 0, 5, 0, 0, 0, 3008, 4},  // csrrs zero, 0xbc0, t0
    {0x80003473, Op::CSRRC, 8, 0, 0, 0, 0, 2048, 4},  // csrrc s0, 0x800, zero
    {0x7c0fd573, Op::CSRRWI, 10, 31, 0, 0, 0, 1984, 4},  // csrrwi a0, 0x7c0, 31
    {0x5c006573, Op::CSRRSI, 10, 0, 0, 0, 0, 1472, 4},  // csrrsi a0, 0x5c0, 0
    {0x7c10f073, Op::CSRRCI, 0, 1, 0, 0, 0, 1985, 4},  // csrrci zero, 0x7c1, 1
    {0x02c58533, Op::MUL, 10, 11, 12, 0, 0, 0, 4},  // mul a0, a1, a2
    {0x02c59533, Op::MULH, 10, 11, 12, 0, 0, 0, 4},  // mulh a0, a1, a2
    {0x02c5a533, Op::MULHSU, 10, 11, 12, 0, 0, 0, 4},  // mulhsu a0, a1, a2
    {0x02c5b533, Op::MULHU, 10, 11, 12, 0, 0, 0, 4},  // mulhu a0, a1, a2
    {0x02c5c533, Op::DIV, 10, 11, 12, 0, 0, 0, 4},  // div a0, a1, a2
    {0x02c5d533, Op::DIVU, 10, 11, 12, 0, 0, 0, 4},  // divu a0, a1, a2
    {0x02c5e533, Op::REM, 10, 11, 12, 0, 0, 0, 4},  // rem a0, a1, a2
    {0x02c5f533, Op::REMU, 10, 11, 12, 0, 0, 0, 4},  // remu a0, a1, a2
    {0x02c5853b, Op::MULW, 10, 11, 12, 0, 0, 0, 4},  // mulw a0, a1, a2
    {0x02c5c53b, Op::DIVW, 10, 11, 12, 0, 0, 0, 4},  // divw a0, a1, a2
    {0x02c5d53b, Op::DIVUW, 10, 11, 12, 0, 0, 0, 4},  // divuw a0, a1, a2
    {0x02c5e53b, Op::REMW, 10, 11, 12, 0, 0, 0, 4},  // remw a0, a1, a2
    {0x02c5f53b, Op::REMUW, 10, 11, 12, 0, 0, 0, 4},  // remuw a0, a1, a2
    {0x1005a52f, Op::LR_W, 10, 11, 0, 0, 0, 0, 4},  // lr.w a0, (a1)
    {0x1405a52f, Op::LR_W, 10, 11, 0, 0, 2, 0, 4},  // lr.w.aq a0, (a1)
    {0x18c5a52f, Op::SC_W, 10, 11, 12, 0, 0, 0, 4},  // sc.w a0, a2, (a1)
    {0x1ac5a52f, Op::SC_W, 10, 11, 12, 0, 1, 0, 4},  // sc.w.rl a0, a2, (a1)
    {0x08c5a52f, Op::AMOSWAP_W, 10, 11, 12, 0, 0, 0, 4},  // amoswap.w a0, a2, (a1)
    {0x06c5a52f, Op::AMOADD_W, 10, 11, 12, 0, 3, 0, 4},  // amoadd.w.aqrl a0, a2, (a1)
    {0x2063a2af, Op::AMOXOR_W, 5, 7, 6, 0, 0, 0, 4},  // amoxor.w t0, t1, (t2)
    {0x6063a2af, Op::AMOAND_W, 5, 7, 6, 0, 0, 0, 4},  // amoand.w t0, t1, (t2)
    {0x4063a2af, Op::AMOOR_W, 5, 7, 6, 0, 0, 0, 4},  // amoor.w t0, t1, (t2)
    {0x8063a2af, Op::AMOMIN_W, 5, 7, 6, 0, 0, 0, 4},  // amomin.w t0, t1, (t2)
    {0xa063a2af, Op::AMOMAX_W, 5, 7, 6, 0, 0, 0, 4},  // amomax.w t0, t1, (t2)
    {0xc063a2af, Op::AMOMINU_W, 5, 7, 6, 0, 0, 0, 4},  // amominu.w t0, t1, (t2)
    {0xe063a2af, Op::AMOMAXU_W, 5, 7, 6, 0, 0, 0, 4},  // amomaxu.w t0, t1, (t2)
    {0x1605b52f, Op::LR_D, 10, 11, 0, 0, 3, 0, 4},  // lr.d.aqrl a0, (a1)
    {0x18c5b52f, Op::SC_D, 10, 11, 12, 0, 0, 0, 4},  // sc.d a0, a2, (a1)
    {0x0cc5b52f, Op::AMOSWAP_D, 10, 11, 12, 0, 2, 0, 4},  // amoswap.d.aq a0, a2, (a1)
    {0x0091342f, Op::AMOADD_D, 8, 2, 9, 0, 0, 0, 4},  // amoadd.d s0, s1, (sp)
    {0x2091342f, Op::AMOXOR_D, 8, 2, 9, 0, 0, 0, 4},  // amoxor.d s0, s1, (sp)
    {0x6091342f, Op::AMOAND_D, 8, 2, 9, 0, 0, 0, 4},  // amoand.d s0, s1, (sp)
    {0x4091342f, Op::AMOOR_D, 8, 2, 9, 0, 0, 0, 4},  // amoor.d s0, s1, (sp)
    {0x8091342f, Op::AMOMIN_D, 8, 2, 9, 0, 0, 0, 4},  // amomin.d s0, s1, (sp)
    {0xa091342f, Op::AMOMAX_D, 8, 2, 9, 0, 0, 0, 4},  // amomax.d s0, s1, (sp)
    {0xc091342f, Op::AMOMINU_D, 8, 2, 9, 0, 0, 0, 4},  // amominu.d s0, s1, (sp)
    {0xe291342f, Op::AMOMAXU_D, 8, 2, 9, 0, 1, 0, 4},  // amomaxu.d.rl s0, s1, (sp)
    {0xffc12507, Op::FLW, 10, 2, 0, 0, 0, -4, 4},  // flw fa0, -4(sp)
    {0x7ff52e27, Op::FSW, 0, 10, 31, 0, 0, 2044, 4},  // fsw ft11, 2044(a0)
    {0x68c5f543, Op::FMADD_S, 10, 11, 12, 13, 7, 0, 4},  // fmadd.s fa0, fa1, fa2, fa3
    {0x18208047, Op::FMSUB_S, 0, 1, 2, 3, 0, 0, 4},  // fmsub.s ft0, ft1, ft2, ft3, rne
    {0x9924944b, Op::FNMSUB_S, 8, 9, 18, 19, 1, 0, 4},  // fnmsub.s fs0, fs1, fs2, fs3, rtz
    {0xf9eece4f, Op::FNMADD_S, 28, 29, 30, 31, 4, 0, 4},  // fnmadd.s ft8, ft9, ft10, ft11, rmm
    {0x00c5f553, Op::FADD_S, 10, 11, 12, 0, 7, 0, 4},  // fadd.s fa0, fa1, fa2
    {0x00c58553, Op::FADD_S, 10, 11, 12, 0, 0, 0, 4},  // fadd.s fa0, fa1, fa2, rne
    {0x08c59553, Op::FSUB_S, 10, 11, 12, 0, 1, 0, 4},  // fsub.s fa0, fa1, fa2, rtz
    {0x10c5a553, Op::FMUL_S, 10, 11, 12, 0, 2, 0, 4},  // fmul.s fa0, fa1, fa2, rdn
    {0x18c5b553, Op::FDIV_S, 10, 11, 12, 0, 3, 0, 4},  // fdiv.s fa0, fa1, fa2, rup
    {0x5805f553, Op::FSQRT_S, 10, 11, 0, 0, 7, 0, 4},  // fsqrt.s fa0, fa1
    {0x20c58553, Op::FSGNJ_S, 10, 11, 12, 0, 0, 0, 4},  // fsgnj.s fa0, fa1, fa2
    {0x20c59553, Op::FSGNJN_S, 10, 11, 12, 0, 1, 0, 4},  // fsgnjn.s fa0, fa1, fa2
    {0x20c5a553, Op::FSGNJX_S, 10, 11, 12, 0, 2, 0, 4},  // fsgnjx.s fa0, fa1, fa2
    {0x28c58553, Op::FMIN_S, 10, 11, 12, 0, 0, 0, 4},  // fmin.s fa0, fa1, fa2
    {0x28c59553, Op::FMAX_S, 10, 11, 12, 0, 1, 0, 4},  // fmax.s fa0, fa1, fa2
    {0xc005f553, Op::FCVT_W_S, 10, 11, 0, 0, 7, 0, 4},  // fcvt.w.s a0, fa1
    {0xc0059553, Op::FCVT_W_S, 10, 11, 0, 0, 1, 0, 4},  // fcvt.w.s a0, fa1, rtz
    {0xc015f553, Op::FCVT_WU_S, 10, 11, 0, 0, 7, 0, 4},  // fcvt.wu.s a0, fa1
    {0xc025f553, Op::FCVT_L_S, 10, 11, 0, 0, 7, 0, 4},  // fcvt.l.s a0, fa1
    {0xc035c553, Op::FCVT_LU_S, 10, 11, 0, 0, 4, 0, 4},  // fcvt.lu.s a0, fa1, rmm
    {0xe0058553, Op::FMV_X_W, 10, 11, 0, 0, 0, 0, 4},  // fmv.x.w a0, fa1
    {0xa0c5a553, Op::FEQ_S, 10, 11, 12, 0, 2, 0, 4},  // feq.s a0, fa1, fa2
    {0xa0c59553, Op::FLT_S, 10, 11, 12, 0, 1, 0, 4},  // flt.s a0, fa1, fa2
    {0xa0c58553, Op::FLE_S, 10, 11, 12, 0, 0, 0, 4},  // fle.s a0, fa1, fa2
    {0xe0059553, Op::FCLASS_S, 10, 11, 0, 0, 1, 0, 4},  // fclass.s a0, fa1
    {0xd005f553, Op::FCVT_S_W, 10, 11, 0, 0, 7, 0, 4},  // fcvt.s.w fa0, a1
    {0xd015f553, Op::FCVT_S_WU, 10, 11, 0, 0, 7, 0, 4},  // fcvt.s.wu fa0, a1
    {0xd025a553, Op::FCVT_S_L, 10, 11, 0, 0, 2, 0, 4},  // fcvt.s.l fa0, a1, rdn
    {0xd035f553, Op::FCVT_S_LU, 10, 11, 0, 0, 7, 0, 4},  // fcvt.s.lu fa0, a1
    {0xf0058553, Op::FMV_W_X, 10, 11, 0, 0, 0, 0, 4},  // fmv.w.x fa0, a1
    {0xff813507, Op::FLD, 10, 2, 0, 0, 0, -8, 4},  // fld fa0, -8(sp)
    {0x7fbfbc27, Op::FSD, 0, 31, 27, 0, 0, 2040, 4},  // fsd fs11, 2040(t6)
    {0x6ac5b543, Op::FMADD_D, 10, 11, 12, 13, 3, 0, 4},  // fmadd.d fa0, fa1, fa2, fa3, rup
    {0x6ac5f547, Op::FMSUB_D, 10, 11, 12, 13, 7, 0, 4},  // fmsub.d fa0, fa1, fa2, fa3
    {0x6ac5f54b, Op::FNMSUB_D, 10, 11, 12, 13, 7, 0, 4},  // fnmsub.d fa0, fa1, fa2, fa3
    {0x6ac5f54f, Op::FNMADD_D, 10, 11, 12, 13, 7, 0, 4},  // fnmadd.d fa0, fa1, fa2, fa3
    {0x02c5f553, Op::FADD_D, 10, 11, 12, 0, 7, 0, 4},  // fadd.d fa0, fa1, fa2
    {0x0ac5f553, Op::FSUB_D, 10, 11, 12, 0, 7, 0, 4},  // fsub.d fa0, fa1, fa2
    {0x12c5f553, Op::FMUL_D, 10, 11, 12, 0, 7, 0, 4},  // fmul.d fa0, fa1, fa2
    {0x1ac5f553, Op::FDIV_D, 10, 11, 12, 0, 7, 0, 4},  // fdiv.d fa0, fa1, fa2
    {0x5a05f553, Op::FSQRT_D, 10, 11, 0, 0, 7, 0, 4},  // fsqrt.d fa0, fa1
    {0x22c58553, Op::FSGNJ_D, 10, 11, 12, 0, 0, 0, 4},  // fsgnj.d fa0, fa1, fa2
    {0x22c59553, Op::FSGNJN_D, 10, 11, 12, 0, 1, 0, 4},  // fsgnjn.d fa0, fa1, fa2
    {0x22b5a553, Op::FSGNJX_D, 10, 11, 11, 0, 2, 0, 4},  // fsgnjx.d fa0, fa1, fa1
    {0x2ac58553, Op::FMIN_D, 10, 11, 12, 0, 0, 0, 4},  // fmin.d fa0, fa1, fa2
    {0x2ac59553, Op::FMAX_D, 10, 11, 12, 0, 1, 0, 4},  // fmax.d fa0, fa1, fa2
    {0x4015f553, Op::FCVT_S_D, 10, 11, 0, 0, 7, 0, 4},  // fcvt.s.d fa0, fa1
    {0x42058553, Op::FCVT_D_S, 10, 11, 0, 0, 0, 0, 4},  // fcvt.d.s fa0, fa1
    {0xa2c5a553, Op::FEQ_D, 10, 11, 12, 0, 2, 0, 4},  // feq.d a0, fa1, fa2
    {0xa2c59553, Op::FLT_D, 10, 11, 12, 0, 1, 0, 4},  // flt.d a0, fa1, fa2
    {0xa2c58553, Op::FLE_D, 10, 11, 12, 0, 0, 0, 4},  // fle.d a0, fa1, fa2
    {0xe2059553, Op::FCLASS_D, 10, 11, 0, 0, 1, 0, 4},  // fclass.d a0, fa1
    {0xc205f553, Op::FCVT_W_D, 10, 11, 0, 0, 7, 0, 4},  // fcvt.w.d a0, fa1
    {0xc215f553, Op::FCVT_WU_D, 10, 11, 0, 0, 7, 0, 4},  // fcvt.wu.d a0, fa1
    {0xc225f553, Op::FCVT_L_D, 10, 11, 0, 0, 7, 0, 4},  // fcvt.l.d a0, fa1
    {0xc235a553, Op::FCVT_LU_D, 10, 11, 0, 0, 2, 0, 4},  // fcvt.lu.d a0, fa1, rdn
    {0xe2058553, Op::FMV_X_D, 10, 11, 0, 0, 0, 0, 4},  // fmv.x.d a0, fa1
    {0xd2058553, Op::FCVT_D_W, 10, 11, 0, 0, 0, 0, 4},  // fcvt.d.w fa0, a1
    {0xd2158553, Op::FCVT_D_WU, 10, 11, 0, 0, 0, 0, 4},  // fcvt.d.wu fa0, a1
    {0xd225f553, Op::FCVT_D_L, 10, 11, 0, 0, 7, 0, 4},  // fcvt.d.l fa0, a1
    {0xd235f553, Op::FCVT_D_LU, 10, 11, 0, 0, 7, 0, 4},  // fcvt.d.lu fa0, a1
    {0xf2058553, Op::FMV_D_X, 10, 11, 0, 0, 0, 0, 4},  // fmv.d.x fa0, a1
    {0x08c5853b, Op::ADD_UW, 10, 11, 12, 0, 0, 0, 4},  // add.uw a0, a1, a2
    {0x0805853b, Op::ADD_UW, 10, 11, 0, 0, 0, 0, 4},  // add.uw a0, a1, zero
    {0x20c5a533, Op::SH1ADD, 10, 11, 12, 0, 0, 0, 4},  // sh1add a0, a1, a2
    {0x20c5c533, Op::SH2ADD, 10, 11, 12, 0, 0, 0, 4},  // sh2add a0, a1, a2
    {0x20c5e533, Op::SH3ADD, 10, 11, 12, 0, 0, 0, 4},  // sh3add a0, a1, a2
    {0x20c5a53b, Op::SH1ADD_UW, 10, 11, 12, 0, 0, 0, 4},  // sh1add.uw a0, a1, a2
    {0x20c5c53b, Op::SH2ADD_UW, 10, 11, 12, 0, 0, 0, 4},  // sh2add.uw a0, a1, a2
    {0x20c5e53b, Op::SH3ADD_UW, 10, 11, 12, 0, 0, 0, 4},  // sh3add.uw a0, a1, a2
    {0x0805951b, Op::SLLI_UW, 10, 11, 0, 0, 0, 0, 4},  // slli.uw a0, a1, 0
    {0x0bf5951b, Op::SLLI_UW, 10, 11, 0, 0, 0, 63, 4},  // slli.uw a0, a1, 63
    {0x40c5f533, Op::ANDN, 10, 11, 12, 0, 0, 0, 4},  // andn a0, a1, a2
    {0x40c5e533, Op::ORN, 10, 11, 12, 0, 0, 0, 4},  // orn a0, a1, a2
    {0x40c5c533, Op::XNOR, 10, 11, 12, 0, 0, 0, 4},  // xnor a0, a1, a2
    {0x60059513, Op::CLZ, 10, 11, 0, 0, 0, 0, 4},  // clz a0, a1
    {0x6005951b, Op::CLZW, 10, 11, 0, 0, 0, 0, 4},  // clzw a0, a1
    {0x60159513, Op::CTZ, 10, 11, 0, 0, 0, 0, 4},  // ctz a0, a1
    {0x6015951b, Op::CTZW, 10, 11, 0, 0, 0, 0, 4},  // ctzw a0, a1
    {0x60259513, Op::CPOP, 10, 11, 0, 0, 0, 0, 4},  // cpop a0, a1
    {0x6025951b, Op::CPOPW, 10, 11, 0, 0, 0, 0, 4},  // cpopw a0, a1
    {0x0ac5e533, Op::MAX, 10, 11, 12, 0, 0, 0, 4},  // max a0, a1, a2
    {0x0ac5f533, Op::MAXU, 10, 11, 12, 0, 0, 0, 4},  // maxu a0, a1, a2
    {0x0ac5c533, Op::MIN, 10, 11, 12, 0, 0, 0, 4},  // min a0, a1, a2
    {0x0ac5d533, Op::MINU, 10, 11, 12, 0, 0, 0, 4},  // minu a0, a1, a2
    {0x60459513, Op::SEXT_B, 10, 11, 0, 0, 0, 0, 4},  // sext.b a0, a1
    {0x60559513, Op::SEXT_H, 10, 11, 0, 0, 0, 0, 4},  // sext.h a0, a1
    {0x0805c53b, Op::ZEXT_H, 10, 11, 0, 0, 0, 0, 4},  // zext.h a0, a1
    {0x60c59533, Op::ROL, 10, 11, 12, 0, 0, 0, 4},  // rol a0, a1, a2
    {0x60c5953b, Op::ROLW, 10, 11, 12, 0, 0, 0, 4},  // rolw a0, a1, a2
    {0x60c5d533, Op::ROR, 10, 11, 12, 0, 0, 0, 4},  // ror a0, a1, a2
    {0x60c5d53b, Op::RORW, 10, 11, 12, 0, 0, 0, 4},  // rorw a0, a1, a2
    {0x63f5d513, Op::RORI, 10, 11, 0, 0, 0, 63, 4},  // rori a0, a1, 63
    {0x61f5d51b, Op::RORIW, 10, 11, 0, 0, 0, 31, 4},  // roriw a0, a1, 31
    {0x2875d513, Op::ORC_B, 10, 11, 0, 0, 0, 0, 4},  // orc.b a0, a1
    {0x6b85d513, Op::REV8, 10, 11, 0, 0, 0, 0, 4},  // rev8 a0, a1
    {0x48c59533, Op::BCLR, 10, 11, 12, 0, 0, 0, 4},  // bclr a0, a1, a2
    {0x4bf59513, Op::BCLRI, 10, 11, 0, 0, 0, 63, 4},  // bclri a0, a1, 63
    {0x48c5d533, Op::BEXT, 10, 11, 12, 0, 0, 0, 4},  // bext a0, a1, a2
    {0x4805d513, Op::BEXTI, 10, 11, 0, 0, 0, 0, 4},  // bexti a0, a1, 0
    {0x68c59533, Op::BINV, 10, 11, 12, 0, 0, 0, 4},  // binv a0, a1, a2
    {0x6a859513, Op::BINVI, 10, 11, 0, 0, 0, 40, 4},  // binvi a0, a1, 40
    {0x28c59533, Op::BSET, 10, 11, 12, 0, 0, 0, 4},  // bset a0, a1, a2
    {0x29f59513, Op::BSETI, 10, 11, 0, 0, 0, 31, 4},  // bseti a0, a1, 31
    {0x0ec5d533, Op::CZERO_EQZ, 10, 11, 12, 0, 0, 0, 4},  // czero.eqz a0, a1, a2
    {0x0e7372b3, Op::CZERO_NEZ, 5, 6, 7, 0, 0, 0, 4},  // czero.nez t0, t1, t2
    {0x0015200f, Op::CBO_CLEAN, 0, 10, 0, 0, 0, 0, 4},  // cbo.clean (a0)
    {0x0021200f, Op::CBO_FLUSH, 0, 2, 0, 0, 0, 0, 4},  // cbo.flush (sp)
    {0x0002a00f, Op::CBO_INVAL, 0, 5, 0, 0, 0, 0, 4},  // cbo.inval (t0)
    {0x004fa00f, Op::CBO_ZERO, 0, 31, 0, 0, 0, 0, 4},  // cbo.zero (t6)
    {0x10200073, Op::SRET, 0, 0, 0, 0, 0, 0, 4},  // sret
    {0x30200073, Op::MRET, 0, 0, 0, 0, 0, 0, 4},  // mret
    {0x10500073, Op::WFI, 0, 0, 0, 0, 0, 0, 4},  // wfi
    {0x12000073, Op::SFENCE_VMA, 0, 0, 0, 0, 0, 0, 4},  // sfence.vma zero, zero
    {0x10400073, Op::SCTRCLR, 0, 0, 0, 0, 0, 0, 4},  // sctrclr
    {0x12050073, Op::SFENCE_VMA, 0, 10, 0, 0, 0, 0, 4},  // sfence.vma a0, zero
    {0x12b50073, Op::SFENCE_VMA, 0, 10, 11, 0, 0, 0, 4},  // sfence.vma a0, a1
};

// Each compressed form, checked against its expansion as given in the C extension chapter.
const Expect kCompressed[] = {
    {0x0040, Op::ADDI, 8, 2, 0, 0, 0, 4, 2},  // c.addi4spn s0, sp, 4
    {0x1ffc, Op::ADDI, 15, 2, 0, 0, 0, 1020, 2},  // c.addi4spn a5, sp, 1020
    {0x0408, Op::ADDI, 10, 2, 0, 0, 0, 512, 2},  // c.addi4spn a0, sp, 512
    {0x2588, Op::FLD, 10, 11, 0, 0, 0, 8, 2},  // c.fld fa0, 8(a1)
    {0x3fe0, Op::FLD, 8, 15, 0, 0, 0, 248, 2},  // c.fld fs0, 248(a5)
    {0x5de8, Op::LW, 10, 11, 0, 0, 0, 124, 2},  // c.lw a0, 124(a1)
    {0x4044, Op::LW, 9, 8, 0, 0, 0, 4, 2},  // c.lw s1, 4(s0)
    {0x42b0, Op::LW, 12, 13, 0, 0, 0, 64, 2},  // c.lw a2, 64(a3)
    {0x7de8, Op::LD, 10, 11, 0, 0, 0, 248, 2},  // c.ld a0, 248(a1)
    {0x60c0, Op::LD, 8, 9, 0, 0, 0, 128, 2},  // c.ld s0, 128(s1)
    {0xaa0c, Op::FSD, 0, 12, 11, 0, 0, 16, 2},  // c.fsd fa1, 16(a2)
    {0xa364, Op::FSD, 0, 14, 9, 0, 0, 192, 2},  // c.fsd fs1, 192(a4)
    {0xdde8, Op::SW, 0, 11, 10, 0, 0, 124, 2},  // c.sw a0, 124(a1)
    {0xc3b8, Op::SW, 0, 15, 14, 0, 0, 64, 2},  // c.sw a4, 64(a5)
    {0xc0c0, Op::SW, 0, 9, 8, 0, 0, 4, 2},  // c.sw s0, 4(s1)
    {0xfde8, Op::SD, 0, 11, 10, 0, 0, 248, 2},  // c.sd a0, 248(a1)
    {0xe234, Op::SD, 0, 12, 13, 0, 0, 64, 2},  // c.sd a3, 64(a2)
    {0x0001, Op::ADDI, 0, 0, 0, 0, 0, 0, 2},  // c.nop
    {0x1501, Op::ADDI, 10, 10, 0, 0, 0, -32, 2},  // c.addi a0, -32
    {0x04fd, Op::ADDI, 9, 9, 0, 0, 0, 31, 2},  // c.addi s1, 31
    {0x357d, Op::ADDIW, 10, 10, 0, 0, 0, -1, 2},  // c.addiw a0, -1
    {0x2281, Op::ADDIW, 5, 5, 0, 0, 0, 0, 2},  // c.addiw t0, 0
    {0x5501, Op::ADDI, 10, 0, 0, 0, 0, -32, 2},  // c.li a0, -32
    {0x4ffd, Op::ADDI, 31, 0, 0, 0, 0, 31, 2},  // c.li t6, 31
    {0x7101, Op::ADDI, 2, 2, 0, 0, 0, -512, 2},  // c.addi16sp sp, -512
    {0x617d, Op::ADDI, 2, 2, 0, 0, 0, 496, 2},  // c.addi16sp sp, 496
    {0x6141, Op::ADDI, 2, 2, 0, 0, 0, 16, 2},  // c.addi16sp sp, 16
    {0x6105, Op::ADDI, 2, 2, 0, 0, 0, 32, 2},  // c.addi16sp sp, 32
    {0x6121, Op::ADDI, 2, 2, 0, 0, 0, 64, 2},  // c.addi16sp sp, 64
    {0x6109, Op::ADDI, 2, 2, 0, 0, 0, 128, 2},  // c.addi16sp sp, 128
    {0x6505, Op::LUI, 10, 0, 0, 0, 0, 4096, 2},  // c.lui a0, 0x1
    {0x7501, Op::LUI, 10, 0, 0, 0, 0, -131072, 2},  // c.lui a0, 0xfffe0
    {0x6ffd, Op::LUI, 31, 0, 0, 0, 0, 126976, 2},  // c.lui t6, 0x1f
    {0x70fd, Op::LUI, 1, 0, 0, 0, 0, -4096, 2},  // c.lui ra, 0xfffff
    {0x917d, Op::SRLI, 10, 10, 0, 0, 0, 63, 2},  // c.srli a0, 63
    {0x8005, Op::SRLI, 8, 8, 0, 0, 0, 1, 2},  // c.srli s0, 1
    {0x9481, Op::SRAI, 9, 9, 0, 0, 0, 32, 2},  // c.srai s1, 32
    {0x997d, Op::ANDI, 10, 10, 0, 0, 0, -1, 2},  // c.andi a0, -1
    {0x8bfd, Op::ANDI, 15, 15, 0, 0, 0, 31, 2},  // c.andi a5, 31
    {0x8d0d, Op::SUB, 10, 10, 11, 0, 0, 0, 2},  // c.sub a0, a1
    {0x8c3d, Op::XOR, 8, 8, 15, 0, 0, 0, 2},  // c.xor s0, a5
    {0x8e55, Op::OR, 12, 12, 13, 0, 0, 0, 2},  // c.or a2, a3
    {0x8f65, Op::AND, 14, 14, 9, 0, 0, 0, 2},  // c.and a4, s1
    {0x9d0d, Op::SUBW, 10, 10, 11, 0, 0, 0, 2},  // c.subw a0, a1
    {0x9fa1, Op::ADDW, 15, 15, 8, 0, 0, 0, 2},  // c.addw a5, s0
    {0xaffd, Op::JAL, 0, 0, 0, 0, 0, 2046, 2},  // c.j .+2046
    {0xb001, Op::JAL, 0, 0, 0, 0, 0, -2048, 2},  // c.j .-2048
    {0xbffd, Op::JAL, 0, 0, 0, 0, 0, -2, 2},  // c.j .-2
    {0xa02d, Op::JAL, 0, 0, 0, 0, 0, 42, 2},  // c.j .+0x2a
    {0xae81, Op::JAL, 0, 0, 0, 0, 0, 848, 2},  // c.j .+0x350
    {0xcd7d, Op::BEQ, 0, 10, 0, 0, 0, 254, 2},  // c.beqz a0, .+254
    {0xf081, Op::BNE, 0, 9, 0, 0, 0, -256, 2},  // c.bnez s1, .-256
    {0xdffd, Op::BEQ, 0, 15, 0, 0, 0, -2, 2},  // c.beqz a5, .-2
    {0xe01d, Op::BNE, 0, 8, 0, 0, 0, 38, 2},  // c.bnez s0, .+0x26
    {0x157e, Op::SLLI, 10, 10, 0, 0, 0, 63, 2},  // c.slli a0, 63
    {0x0f86, Op::SLLI, 31, 31, 0, 0, 0, 1, 2},  // c.slli t6, 1
    {0x357e, Op::FLD, 10, 2, 0, 0, 0, 504, 2},  // c.fldsp fa0, 504(sp)
    {0x2022, Op::FLD, 0, 2, 0, 0, 0, 8, 2},  // c.fldsp ft0, 8(sp)
    {0x557e, Op::LW, 10, 2, 0, 0, 0, 252, 2},  // c.lwsp a0, 252(sp)
    {0x4f92, Op::LW, 31, 2, 0, 0, 0, 4, 2},  // c.lwsp t6, 4(sp)
    {0x5402, Op::LW, 8, 2, 0, 0, 0, 32, 2},  // c.lwsp s0, 32(sp)
    {0x70fe, Op::LD, 1, 2, 0, 0, 0, 504, 2},  // c.ldsp ra, 504(sp)
    {0x7422, Op::LD, 8, 2, 0, 0, 0, 40, 2},  // c.ldsp s0, 40(sp)
    {0x8082, Op::JALR, 0, 1, 0, 0, 0, 0, 2},  // c.jr ra
    {0x8f82, Op::JALR, 0, 31, 0, 0, 0, 0, 2},  // c.jr t6
    {0x852e, Op::ADD, 10, 0, 11, 0, 0, 0, 2},  // c.mv a0, a1
    {0x9002, Op::EBREAK, 0, 0, 0, 0, 0, 0, 2},  // c.ebreak
    {0x9502, Op::JALR, 1, 10, 0, 0, 0, 0, 2},  // c.jalr a0
    {0x952e, Op::ADD, 10, 10, 11, 0, 0, 0, 2},  // c.add a0, a1
    {0x917e, Op::ADD, 2, 2, 31, 0, 0, 0, 2},  // c.add sp, t6
    {0xbfaa, Op::FSD, 0, 2, 10, 0, 0, 504, 2},  // c.fsdsp fa0, 504(sp)
    {0xa47e, Op::FSD, 0, 2, 31, 0, 0, 8, 2},  // c.fsdsp ft11, 8(sp)
    {0xdfaa, Op::SW, 0, 2, 10, 0, 0, 252, 2},  // c.swsp a0, 252(sp)
    {0xc206, Op::SW, 0, 2, 1, 0, 0, 4, 2},  // c.swsp ra, 4(sp)
    {0xff86, Op::SD, 0, 2, 1, 0, 0, 504, 2},  // c.sdsp ra, 504(sp)
    {0xe426, Op::SD, 0, 2, 9, 0, 0, 8, 2},  // c.sdsp s1, 8(sp)
};

TEST(Decode, BaseEncodings) {
  for (const Expect& e : kBase) check(e, "base");
}

TEST(Decode, CompressedExpansions) {
  for (const Expect& e : kCompressed) check(e, "compressed");
}

TEST(Decode, EveryOpIsCovered) {
  std::set<Op> seen;
  for (const Expect& e : kBase) seen.insert(e.op);
  for (const Expect& e : kCompressed) seen.insert(e.op);
  for (uint32_t funct7 = 0; funct7 < 8; funct7++) seen.insert(brisk::decode(funct7 << 25 | 0x2b, with_xdma()).op);
  for (uint32_t raw : {0x0200152bu, 0x3ff5202bu, 0x00b0952bu, 0x00b520abu, 0x003e008bu, 0x001e000bu})
    seen.insert(brisk::decode(raw, with_snitch_core()).op);
  for (unsigned k = 0; k < kOpCount; k++) {
    const Op op = static_cast<Op>(k);
    if (op == Op::ILLEGAL) continue;
    EXPECT_TRUE(seen.count(op)) << op_info(op).mnemonic;
  }
}

TEST(Decode, CompressedUsesOnlyTheLowParcel) {
  const Insn i = decode(0xdead'0001);  // c.nop followed by whatever comes next in memory
  EXPECT_EQ(i.op, Op::ADDI);
  EXPECT_EQ(i.len, 2);
  EXPECT_EQ(i.raw, 0x0001u);
}

// HINT encodings are ordinary ops whose only effect is a discarded write to x0 (or a no-op shift).
TEST(Decode, HintsDecodeToTheirOp) {
  const Expect hints[] = {
      {0x0005, Op::ADDI, 0, 0, 0, 0, 0, 1, 2},      // c.nop with imm 1
      {0x0501, Op::ADDI, 10, 10, 0, 0, 0, 0, 2},    // c.addi a0, 0
      {0x4005, Op::ADDI, 0, 0, 0, 0, 0, 1, 2},      // c.li x0, 1
      {0x6005, Op::LUI, 0, 0, 0, 0, 0, 4096, 2},    // c.lui x0, 1
      {0x802e, Op::ADD, 0, 0, 11, 0, 0, 0, 2},      // c.mv x0, a1
      {0x902e, Op::ADD, 0, 0, 11, 0, 0, 0, 2},      // c.add x0, a1
      {0x0006, Op::SLLI, 0, 0, 0, 0, 0, 1, 2},      // c.slli x0, 1
      {0x0502, Op::SLLI, 10, 10, 0, 0, 0, 0, 2},    // c.slli a0, 0
      {0x8001, Op::SRLI, 8, 8, 0, 0, 0, 0, 2},      // c.srli s0, 0
      {0x8401, Op::SRAI, 8, 8, 0, 0, 0, 0, 2},      // c.srai s0, 0
      {0x00359013, Op::SLLI, 0, 11, 0, 0, 0, 3, 4},  // slli x0, a1, 3
      {0x00056013, Op::ORI, 0, 10, 0, 0, 0, 0, 4},  // ori x0, a0, 0 (prefetch.i)
      {0x0ff5850f, Op::FENCE, 0, 0, 0, 0, 0, 0x0ff, 4},  // fence iorw, iorw with rd and rs1 set
      {0x8100000f, Op::FENCE, 0, 0, 0, 0, 0, 0x810, 4},  // fence r, 0 with a reserved fm
      {0x0100800f, Op::FENCE, 0, 0, 0, 0, 0, 0x010, 4},  // pause with rs1 != 0 is a plain fence w, 0
      {0x1235950f, Op::FENCE_I, 0, 0, 0, 0, 0, 0, 4},    // fence.i with its reserved fields set
  };
  for (const Expect& e : hints) check(e, "hint");
}

// Rounding-mode fields stay as encoded; the semantics reject 5, 6 and an invalid frm at execution time.
TEST(Decode, ReservedRoundingModesAreLeftToTheSemantics) {
  EXPECT_EQ(decode(0x00c5d553).op, Op::FADD_S);  // fadd.s with rm 5
  EXPECT_EQ(decode(0x00c5d553).rm, 5);
  EXPECT_EQ(decode(0x4205f553).op, Op::FCVT_D_S);  // fcvt.d.s with rm 7
  EXPECT_EQ(decode(0x4205f553).rm, 7);
}

TEST(Decode, ReservedAndUnknownEncodingsAreIllegal) {
  struct Case {
    uint32_t raw;
    const char* what;
  };
  const Case compressed[] = {
      {0x0000, "all-zero parcel"},
      {0x0004, "c.addi4spn with nzuimm 0"},
      {0x6501, "c.lui a0, 0"},
      {0x6101, "c.addi16sp with imm 0"},
      {0x8002, "c.jr x0"},
      {0x4002, "c.lwsp x0"},
      {0x6002, "c.ldsp x0"},
      {0x2001, "c.addiw x0 (RV64)"},
      {0x2005, "c.addiw x0, 1"},
      {0x8000, "quadrant 0 funct3 100 (Zcb)"},
      {0x9c41, "c.mul (Zcb)"},
      {0x9c61, "c.zext.b group (Zcb)"},
  };
  for (const Case& c : compressed) {
    const Insn i = decode(c.raw);
    EXPECT_EQ(i.op, Op::ILLEGAL) << c.what << " decoded as " << op_info(i.op).mnemonic;
    EXPECT_EQ(i.raw, c.raw) << c.what;
    EXPECT_EQ(i.len, 2) << c.what;
  }
  const Case base[] = {
      {0x03f5951b, "slliw with shamt[5] set"},
      {0x0205d51b, "srliw with shamt[5] set"},
      {0x4315d51b, "sraiw with shamt[5] set"},
      {0x63f5d51b, "roriw with shamt[5] set"},
      {0x6205951b, "clzw with funct7 0x31"},
      {0x60359513, "clz group, rs2 = 3"},
      {0x60659513, "clz group, rs2 = 6"},
      {0x6065951b, "clzw group, rs2 = 6"},
      {0x40059513, "OP-IMM funct3 1, funct6 0x10"},
      {0x460c5b93, "OP-IMM funct3 5, funct6 0x11"},
      {0x2865d513, "orc.b group with imm 0x286"},
      {0x6985d513, "rev8 as encoded on RV32 (0x698)"},
      {0xfff5a51b, "OP-IMM-32 funct3 2"},
      {0x0005f503, "LOAD funct3 7"},
      {0x00a5c023, "STORE funct3 4"},
      {0x00b52463, "BRANCH funct3 2"},
      {0x00b53463, "BRANCH funct3 3"},
      {0x000510e7, "JALR funct3 1"},
      {0x04c58533, "OP funct7 0x02"},
      {0x0ac59533, "clmul (Zbc)"},
      {0x095a49b3, "pack (Zbkb)"},
      {0x40c5953b, "OP-32 funct7 0x20, funct3 1"},
      {0x08b5c53b, "packw (Zbkb) with rs2 != 0"},
      {0x1015a52f, "lr.w with rs2 != 0"},
      {0x1625b52f, "lr.d with rs2 != 0"},
      {0x06c5852f, "AMO funct3 0 (Zabha amoadd.b)"},
      {0x06c5e52f, "AMO funct3 6"},
      {0x2ec5a52f, "amocas.w (Zacas)"},
      {0x20c5b553, "fsgnj.s with rm 3"},
      {0x22c5f553, "fsgnj.d with rm 7"},
      {0x28c5a553, "fmin.s with rm 2"},
      {0xa0c5b553, "feq.s with rm 3"},
      {0x5815f553, "fsqrt.s with rs2 1"},
      {0x5b05f553, "fsqrt.d with rs2 16"},
      {0xc045f553, "fcvt.w.s with rs2 4"},
      {0xd055f553, "fcvt.s.w with rs2 5"},
      {0x4005f553, "fcvt.s.s"},
      {0x42158553, "fcvt.d.d"},
      {0x4025f553, "fcvt.s.h (Zfh)"},
      {0xe005b553, "fclass.s with rm 3"},
      {0xe0158553, "fmv.x.w with rs2 1"},
      {0xf0059553, "fmv.w.x with rm 1"},
      {0xf0158553, "fli.s (Zfa)"},
      {0x04c5f553, "fadd.h"},
      {0x06c5f553, "fadd.q"},
      {0x48c5f553, "OP-FP funct5 0x09"},
      {0x6cc5f543, "fmadd.h"},
      {0x6ec5f54f, "fnmadd.q"},
      {0xffc11507, "flh (LOAD-FP funct3 1)"},
      {0xffc14507, "flq (LOAD-FP funct3 4)"},
      {0xffc10507, "vector load (LOAD-FP funct3 0)"},
      {0x7ff51e27, "fsh"},
      {0x0015250f, "cbo.clean with rd != 0"},
      {0x0035200f, "cbo with imm 3"},
      {0x005fa00f, "cbo with imm 5"},
      {0x0000300f, "MISC-MEM funct3 3"},
      {0x00004073, "SYSTEM funct3 4"},
      {0x00200073, "uret"},
      {0x7b200073, "dret"},
      {0x000000f3, "ecall with rd != 0"},
      {0x00108073, "ebreak with rs1 != 0"},
      {0x10508073, "wfi with rs1 != 0"},
      {0x302000f3, "mret with rd != 0"},
      {0x12b50573, "sfence.vma with rd != 0"},
      {0x22b50073, "hfence.vvma"},
      {0x16b50073, "sinval.vma"},
      {0x0000000b, "custom-0"},
      {0x0000002b, "custom-1"},
      {0x00000057, "OP-V"},
      {0x00000077, "OP-VE"},
      {0x0000001f, "48-bit encoding"},
      {0x0000003f, "64-bit encoding"},
      {0x0000007f, "80-bit and longer"},
      {0xffffffff, "all ones"},
  };
  for (const Case& c : base) {
    const Insn i = decode(c.raw);
    EXPECT_EQ(i.op, Op::ILLEGAL) << c.what << " decoded as " << op_info(i.op).mnemonic;
    EXPECT_EQ(i.raw, c.raw) << c.what;
    EXPECT_EQ(i.len, 4) << c.what;
  }
}

void check_sane(const Insn& i, uint32_t raw) {
  ASSERT_LT(static_cast<unsigned>(i.op), kOpCount);
  // The unprivileged spec's length encoding: 16 bits unless bits 1:0 are 11 (and brisk treats every
  // longer encoding as a 32-bit illegal instruction, as in IllegalEncodings).
  ASSERT_EQ(i.len, (raw & 3) == 3 ? 4u : 2u);
  ASSERT_EQ(i.raw, i.len == 2 ? (raw & 0xffff) : raw);
  ASSERT_LT(i.rd, 32);
  ASSERT_LT(i.rs1, 32);
  ASSERT_LT(i.rs2, 32);
  ASSERT_LT(i.rs3, 32);
  ASSERT_LT(i.rm, 8);
  ASSERT_FALSE(disassemble(i, 0x8000'0000).empty());
}

TEST(Decode, EveryCompressedParcel) {
  unsigned legal = 0;
  for (uint32_t p = 0; p < 0x10000; p++) {
    if ((p & 3) == 3) continue;
    const Insn i = decode(p);
    check_sane(i, p);
    legal += i.op != Op::ILLEGAL;
  }
  // Sanity bound rather than an exact count: most of the 49152 parcels are defined.
  EXPECT_GT(legal, 40000u);
}

TEST(Decode, RandomWords) {
  std::mt19937 rng(12345);
  for (unsigned n = 0; n < 2'000'000; n++) {
    const uint32_t raw = rng();
    check_sane(decode(raw), raw);
    const uint32_t word = raw | 3;  // force the 32-bit path too
    check_sane(decode(word), word);
  }
}

TEST(OpInfo, TableMatchesOpcodesDef) {
  EXPECT_STREQ(op_info(Op::LUI).mnemonic, "lui");
  EXPECT_EQ(op_info(Op::LUI).fmt, Fmt::U);
  EXPECT_STREQ(op_info(Op::AMOMAXU_D).mnemonic, "amomaxu.d");
  EXPECT_EQ(op_info(Op::AMOMAXU_D).flags, kLoad | kStore | kAmo | kRv64);
  EXPECT_EQ(op_info(Op::JAL).flags, kJump | kEnd);
  EXPECT_EQ(op_info(Op::FLD).flags, kLoad | kFp);
  EXPECT_EQ(op_info(Op::FMADD_D).fmt, Fmt::FR4);
  EXPECT_EQ(op_info(Op::CSRRCI).fmt, Fmt::CSRI);
  EXPECT_EQ(op_info(Op::CBO_ZERO).flags, kStore);
  EXPECT_STREQ(op_info(Op::ILLEGAL).mnemonic, "illegal");
  EXPECT_EQ(op_info(Op::ILLEGAL).flags, kEnd);
  EXPECT_EQ(op_info(Op::FCVT_S_D).ext, Ext::D);
  EXPECT_EQ(op_info(Op::ZEXT_H).ext, Ext::Zbb);
  EXPECT_EQ(op_info(Op::CBO_ZERO).ext, Ext::Zicboz);
  EXPECT_EQ(op_info(Op::FENCE_I).ext, Ext::Zifencei);
  EXPECT_EQ(op_info(Op::MRET).ext, Ext::I);
  for (unsigned k = 0; k < kOpCount; k++) ASSERT_NE(kOpInfo[k].mnemonic, nullptr);
}

IsaConfig without(std::initializer_list<Ext> off) {
  IsaConfig isa;
  for (Ext e : off) isa.on.reset(static_cast<size_t>(e));
  return isa;
}

// An extension switched off (--cpu rv64,EXT=off) makes its encodings illegal, with the bits and
// length kept for mtval and the pc; everything else decodes as before.
TEST(Decode, ExtensionsSwitchedOffAreIllegal) {
  struct Case {
    uint32_t raw;
    Ext off;
    unsigned len;
  };
  const Case cases[] = {
      {0x02b50533, Ext::M, 4},        // mul a0, a0, a1
      {0x02b5453b, Ext::M, 4},        // divw a0, a0, a1
      {0x100527af, Ext::A, 4},        // lr.w a5, (a0)
      {0x00b5302f, Ext::A, 4},        // amoadd.d zero, a1, (a0)
      {0x00052507, Ext::F, 4},        // flw fa0, 0(a0)
      {0x00c5f553, Ext::F, 4},        // fadd.s fa0, fa1, fa2
      {0x00053507, Ext::D, 4},        // fld fa0, 0(a0)
      {0x02c5f553, Ext::D, 4},        // fadd.d fa0, fa1, fa2
      {0x4015f553, Ext::D, 4},        // fcvt.s.d fa0, fa1
      {0x357e, Ext::D, 2},            // c.fldsp fa0, 504(sp)
      {0x0505, Ext::C, 2},            // c.addi a0, 1
      {0x8082, Ext::C, 2},            // c.jr ra
      {0x20b52533, Ext::Zba, 4},      // sh1add a0, a0, a1
      {0x0805053b, Ext::Zba, 4},      // add.uw a0, a0, zero
      {0x40b57533, Ext::Zbb, 4},      // andn a0, a0, a1
      {0x6b855513, Ext::Zbb, 4},      // rev8 a0, a0
      {0x0805453b, Ext::Zbb, 4},      // zext.h a0, a0
      {0x48b51533, Ext::Zbs, 4},      // bclr a0, a0, a1
      {0x0eb55533, Ext::Zicond, 4},   // czero.eqz a0, a0, a1
      {0x0025200f, Ext::Zicbom, 4},   // cbo.flush (a0)
      {0x0005200f, Ext::Zicbom, 4},   // cbo.inval (a0)
      {0x0045200f, Ext::Zicboz, 4},   // cbo.zero (a0)
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "0x" << std::hex << c.raw << " without " << ext_name(c.off));
    ASSERT_NE(decode(c.raw).op, Op::ILLEGAL);
    const Insn i = brisk::decode(c.raw, without({c.off}));
    EXPECT_EQ(i.op, Op::ILLEGAL);
    EXPECT_EQ(i.raw, c.raw);
    EXPECT_EQ(i.len, c.len);
  }
  // What the switched-off extension does not define stays.
  EXPECT_EQ(brisk::decode(0x00052507, without({Ext::D})).op, Op::FLW);
  EXPECT_EQ(brisk::decode(0x00b50533, without({Ext::M, Ext::A, Ext::F, Ext::D, Ext::C, Ext::Zba, Ext::Zbb, Ext::Zbs,
                                               Ext::Zicond, Ext::Zicbom, Ext::Zicboz})).op,
            Op::ADD);
  EXPECT_EQ(brisk::decode(0x0000100f, without({Ext::Zicbom})).op, Op::FENCE_I);
  EXPECT_EQ(brisk::decode(0x0100000f, without({Ext::Zihintpause})).op, Op::PAUSE);  // a FENCE hint anyway
  EXPECT_EQ(brisk::decode(0x4501, without({Ext::M})).op, Op::ADDI);                    // c.li a0, 0
}

IsaConfig rv32() {
  IsaConfig isa;
  isa.apply("rv32");
  return isa;
}

// Xdma (opcode 0x2B, funct3 0, by funct7; `.insn r 0x2b, 0, FUNCT7, rd, rs1, rs2`) is the Snitch DMA
// core's alone: illegal unless the hart's IsaConfig has it, which no default one does.
TEST(Decode, Xdma) {
  const IsaConfig xdma = with_xdma();
  struct Case {
    uint32_t raw;
    Op op;
    unsigned rd, rs1, rs2;
  };
  const Case cases[] = {
      {0x00b5002b, Op::DMSRC, 0, 10, 11},     // dmsrc a0, a1
      {0x0425852b, Op::DMCPYI, 10, 11, 2},    // dmcpyi a0, a1, 2 (2-D)
      {0x0ab0052b, Op::DMSTAT, 10, 0, 11},    // dmstat a0, a1
      {0x0e05002b, Op::DMREP, 0, 10, 0},      // dmrep a0
      {0x0215002b, Op::DMDST, 0, 10, 1},      // dmdst a0, ra
      {0x06b5852b, Op::DMCPY, 10, 11, 11},    // dmcpy a0, a1, a1
      {0x0830052b, Op::DMSTATI, 10, 0, 3},    // dmstati a0, 3 (would block)
      {0x0cb5002b, Op::DMSTR, 0, 10, 11},     // dmstr a0, a1
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "0x" << std::hex << c.raw);
    EXPECT_EQ(decode(c.raw).op, Op::ILLEGAL);
    EXPECT_EQ(brisk::decode(c.raw, rv32()).op, Op::ILLEGAL);
    const Insn i = brisk::decode(c.raw, xdma);
    EXPECT_EQ(i.op, c.op);
    EXPECT_EQ(i.rd, c.rd);
    EXPECT_EQ(i.rs1, c.rs1);
    EXPECT_EQ(i.rs2, c.rs2);
  }
  EXPECT_EQ(brisk::decode(0x10c5852b, xdma).op, Op::ILLEGAL);  // funct7 8
  EXPECT_EQ(brisk::decode(0x00b5102b, xdma).op, Op::ILLEGAL);  // funct3 1 (Xssr's)
}

// Xssr (opcode 0x2B, funct3 1 and 2) and Xfrep (opcode 0x0B) are the Snitch compute cores': illegal
// unless the hart's IsaConfig has them (no default one does). Encodings from GNU as's `.insn`.
TEST(Decode, XssrXfrep) {
  const IsaConfig core = with_snitch_core();
  struct Case {
    uint32_t raw;
    Op op;
    unsigned rd, rs1, rs2;
    const char* text;
  };
  const Case cases[] = {
      {0x0200152bu, Op::SCFGRI, 10, 0, 0, "scfgri a0, 32"},          // .insn i 0x2b, 1, a0, x0, 32
      {0x3ff5202bu, Op::SCFGWI, 0, 10, 0, "scfgwi a0, 1023"},        // .insn i 0x2b, 2, x0, a0, 1023
      {0x00b0952bu, Op::SCFGR, 10, 1, 11, "scfgr a0, a1"},           // .insn r 0x2b, 1, 0, a0, x1, a1
      {0x00b520abu, Op::SCFGW, 1, 10, 11, "scfgw a0, a1"},           // .insn r 0x2b, 2, 0, x1, a0, a1
      {0x003e008bu, Op::FREP_O, 1, 28, 0, "frep.o t3, 3, 0, 0x0"},   // NOTES.md's example
      {0x000e378bu, Op::FREP_O, 15, 28, 0, "frep.o t3, 0, 3, 0x7"},  // .insn i 0x0b, 3, x15, t3, 0
      {0x001e000bu, Op::FREP_I, 0, 28, 0, "frep.i t3, 1, 0, 0x0"},   // .insn i 0x0b, 0, x0, t3, 1
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "0x" << std::hex << c.raw);
    EXPECT_EQ(decode(c.raw).op, Op::ILLEGAL);
    EXPECT_EQ(brisk::decode(c.raw, rv32()).op, Op::ILLEGAL);
    EXPECT_EQ(brisk::decode(c.raw, with_xdma()).op, Op::ILLEGAL);
    const Insn i = brisk::decode(c.raw, core);
    EXPECT_EQ(i.op, c.op);
    EXPECT_EQ(i.rd, c.rd);
    EXPECT_EQ(i.rs1, c.rs1);
    EXPECT_EQ(i.rs2, c.rs2);
    EXPECT_EQ(disassemble(i, 0), c.text);
  }
  EXPECT_EQ(brisk::decode(0x00b1152bu, core).op, Op::ILLEGAL);  // funct3 1, rs1 2: neither read
  EXPECT_EQ(brisk::decode(0x02b0952bu, core).op, Op::ILLEGAL);  // SCFGR with funct7 1
  EXPECT_EQ(brisk::decode(0x00b5212bu, core).op, Op::ILLEGAL);  // funct3 2, rd 2: neither write
  EXPECT_EQ(brisk::decode(0x00b5302bu, core).op, Op::ILLEGAL);  // funct3 3
  EXPECT_EQ(brisk::decode(0x00b5002bu, core).op, Op::ILLEGAL);  // dmsrc: Xdma's, not the core's
}

// RV32 (GNU as 2.40, -march=rv32gc_zba_zbb_zbs): its own encodings decode to their ops, the RV32
// forms a W op computes exactly decode to the W op (jit/opcodes.def) and disassemble by their own
// names, and the encodings only RV64 has are illegal.
TEST(Decode, Rv32) {
  const IsaConfig isa = rv32();
  struct Case {
    uint32_t raw;
    Op op;
    unsigned rd, rs1, rs2;
    int64_t imm;
    const char* text;
  };
  const Case cases[] = {
      {0x2201, Op::JAL, 1, 0, 0, 0x100, "jal ra, 0x100"},              // c.jal .+0x100
      {0x61c8, Op::FLW, 10, 11, 0, 4, "flw fa0, 4(a1)"},               // c.flw fa0, 4(a1)
      {0xfc7c, Op::FSW, 0, 8, 15, 124, "fsw fa5, 124(s0)"},            // c.fsw fa5, 124(s0)
      {0x70fe, Op::FLW, 1, 2, 0, 252, "flw ft1, 252(sp)"},             // c.flwsp ft1, 252(sp)
      {0xe40a, Op::FSW, 0, 2, 2, 8, "fsw ft2, 8(sp)"},                 // c.fswsp ft2, 8(sp)
      {0x6985d513, Op::REV8, 10, 11, 0, 0, "rev8 a0, a1"},             // rev8 a0, a1
      {0x0805c533, Op::ZEXT_H, 10, 11, 0, 0, "zext.h a0, a1"},         // zext.h a0, a1
      {0x00c58533, Op::ADDW, 10, 11, 12, 0, "add a0, a1, a2"},         // add a0, a1, a2
      {0x41f5d513, Op::SRAIW, 10, 11, 0, 31, "srai a0, a1, 0x1f"},     // srai a0, a1, 0x1f
      {0x02c59533, Op::MULH, 10, 11, 12, 0, "mulh a0, a1, a2"},        // mulh a0, a1, a2
      {0x29f59513, Op::BSETI, 10, 11, 0, 31, "bseti a0, a1, 0x1f"},    // bseti a0, a1, 0x1f
      {0x050d, Op::ADDIW, 10, 10, 0, 3, "addi a0, a0, 3"},             // c.addi a0, 3
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "0x" << std::hex << c.raw);
    const Insn i = brisk::decode(c.raw, isa);
    EXPECT_EQ(i.op, c.op);
    EXPECT_EQ(i.rd, c.rd);
    EXPECT_EQ(i.rs1, c.rs1);
    EXPECT_EQ(i.rs2, c.rs2);
    EXPECT_EQ(i.imm, c.imm);
    EXPECT_EQ(disassemble(i, 0), c.text);
  }
  const uint32_t rv64_only[] = {
      0x0015051b,  // addiw a0, a0, 1
      0x00b5053b,  // addw a0, a0, a1
      0x00053503,  // ld a0, 0(a0)
      0x00056503,  // lwu a0, 0(a0)
      0x00a53023,  // sd a0, 0(a0)
      0x02051513,  // slli a0, a0, 32
      0x0205d513,  // srli a0, a1, 32
      0x6205d513,  // rori a0, a1, 32
      0x2a059513,  // bseti a0, a1, 32
      0x1005352f,  // lr.d a0, (a0)
      0xc0257553,  // fcvt.l.s a0, fa0
      0xd2257553,  // fcvt.s.l fa0, a0
      0xe2050553,  // fmv.x.d a0, fa0
      0xf2050553,  // fmv.d.x fa0, a0
      0x6b855513,  // rev8 a0, a0 (RV64's)
      0x0805453b,  // zext.h a0, a0 (RV64's)
      0x9d2d,      // c.addw a0, a1
      0x9d0d,      // c.subw a0, a1
      0x1502,      // c.slli a0, 32
      0x9101,      // c.srli a0, 32
  };
  for (uint32_t raw : rv64_only) {
    SCOPED_TRACE(::testing::Message() << "0x" << std::hex << raw);
    EXPECT_NE(decode(raw).op, Op::ILLEGAL);
    const Insn i = brisk::decode(raw, isa);
    EXPECT_EQ(i.op, Op::ILLEGAL);
    EXPECT_EQ(i.raw, raw);
  }
  // RV32's zext.h is RV64's (unimplemented) pack.
  EXPECT_EQ(decode(0x0805c533).op, Op::ILLEGAL);
}

// objdump -M no-aliases text, normalized: ", " between operands, the " <symbol>" after a target dropped and
// targets written with 0x. For czero.* (unknown to objdump 2.40) the assembly source stands in.
TEST(Disassemble, MatchesObjdump) {
  struct Case {
    uint32_t raw;
    uint64_t pc;
    const char* text;
  };
  const Case cases[] = {
      {0x12345537, 0x0, "lui a0, 0x12345"},
      {0xffffffb7, 0x4, "lui t6, 0xfffff"},
      {0x80000db7, 0x8, "lui s11, 0x80000"},
      {0x00001097, 0xc, "auipc ra, 0x1"},
      {0xfffff517, 0x10, "auipc a0, 0xfffff"},
      {0x001000ef, 0x14, "jal ra, 0x814"},
      {0xffdff06f, 0x18, "jal zero, 0x14"},
      {0x7ffff46f, 0x1c, "jal s0, 0x10001a"},
      {0x8000056f, 0x20, "jal a0, 0xfffffffffff00020"},
      {0x000500e7, 0x24, "jalr ra, 0(a0)"},
      {0x80028067, 0x28, "jalr zero, -2048(t0)"},
      {0x7ff605e7, 0x2c, "jalr a1, 2047(a2)"},
      {0x00b50463, 0x30, "beq a0, a1, 0x38"},
      {0xfe629ee3, 0x34, "bne t0, t1, 0x30"},
      {0x7e944fe3, 0x38, "blt s0, s1, 0x1036"},
      {0x80d65063, 0x3c, "bge a2, a3, 0xfffffffffffff03c"},
      {0x00f760e3, 0x40, "bltu a4, a5, 0x840"},
      {0xffde7fe3, 0x44, "bgeu t3, t4, 0x42"},
      {0x00058503, 0x48, "lb a0, 0(a1)"},
      {0xfff59503, 0x4c, "lh a0, -1(a1)"},
      {0x7ff12903, 0x50, "lw s2, 2047(sp)"},
      {0x8001b983, 0x54, "ld s3, -2048(gp)"},
      {0x01024283, 0x58, "lbu t0, 16(tp)"},
      {0xff03d303, 0x5c, "lhu t1, -16(t2)"},
      {0x064eee03, 0x60, "lwu t3, 100(t4)"},
      {0x00a58023, 0x64, "sb a0, 0(a1)"},
      {0xffef9fa3, 0x68, "sh t5, -1(t6)"},
      {0x7f412fa3, 0x6c, "sw s4, 2047(sp)"},
      {0x815b3023, 0x70, "sd s5, -2048(s6)"},
      {0xffb58513, 0x74, "addi a0, a1, -5"},
      {0x00000013, 0x78, "addi zero, zero, 0"},
      {0x7ff10113, 0x7c, "addi sp, sp, 2047"},
      {0x8005a513, 0x80, "slti a0, a1, -2048"},
      {0x0015b513, 0x84, "sltiu a0, a1, 1"},
      {0xfff5c513, 0x88, "xori a0, a1, -1"},
      {0x5555e513, 0x8c, "ori a0, a1, 1365"},
      {0x0ff5f513, 0x90, "andi a0, a1, 255"},
      {0x00059513, 0x94, "slli a0, a1, 0x0"},
      {0x03f59513, 0x98, "slli a0, a1, 0x3f"},
      {0x020c5b93, 0x9c, "srli s7, s8, 0x20"},
      {0x401d5c93, 0xa0, "srai s9, s10, 0x1"},
      {0x43f5d513, 0xa4, "srai a0, a1, 0x3f"},
      {0x00c58533, 0xa8, "add a0, a1, a2"},
      {0x406002b3, 0xac, "sub t0, zero, t1"},
      {0x00c59533, 0xb0, "sll a0, a1, a2"},
      {0x00f726b3, 0xb4, "slt a3, a4, a5"},
      {0x0128b833, 0xb8, "sltu a6, a7, s2"},
      {0x015a49b3, 0xbc, "xor s3, s4, s5"},
      {0x018bdb33, 0xc0, "srl s6, s7, s8"},
      {0x41bd5cb3, 0xc4, "sra s9, s10, s11"},
      {0x01eeee33, 0xc8, "or t3, t4, t5"},
      {0x0020ffb3, 0xcc, "and t6, ra, sp"},
      {0xfff5851b, 0xd0, "addiw a0, a1, -1"},
      {0x7ff5851b, 0xd4, "addiw a0, a1, 2047"},
      {0x01f5951b, 0xd8, "slliw a0, a1, 0x1f"},
      {0x0005d51b, 0xdc, "srliw a0, a1, 0x0"},
      {0x4115d51b, 0xe0, "sraiw a0, a1, 0x11"},
      {0x00c5853b, 0xe4, "addw a0, a1, a2"},
      {0x40c5853b, 0xe8, "subw a0, a1, a2"},
      {0x00c5953b, 0xec, "sllw a0, a1, a2"},
      {0x00c5d53b, 0xf0, "srlw a0, a1, a2"},
      {0x40c5d53b, 0xf4, "sraw a0, a1, a2"},
      {0x0ff0000f, 0xf8, "fence iorw, iorw"},
      {0x0210000f, 0xfc, "fence r, w"},
      {0x0c30000f, 0x100, "fence io, rw"},
      {0x8330000f, 0x104, "fence.tso"},
      {0x0100000f, 0x108, "pause"},
      {0x0000100f, 0x10c, "fence.i"},
      {0x00000073, 0x110, "ecall"},
      {0x00100073, 0x114, "ebreak"},
      {0x7c059573, 0x118, "csrrw a0, 0x7c0, a1"},
      {0xbc02a073, 0x11c, "csrrs zero, 0xbc0, t0"},
      {0x80003473, 0x120, "csrrc s0, 0x800, zero"},
      {0x7c0fd573, 0x124, "csrrwi a0, 0x7c0, 31"},
      {0x5c006573, 0x128, "csrrsi a0, 0x5c0, 0"},
      {0x7c10f073, 0x12c, "csrrci zero, 0x7c1, 1"},
      {0x02c58533, 0x130, "mul a0, a1, a2"},
      {0x02c59533, 0x134, "mulh a0, a1, a2"},
      {0x02c5a533, 0x138, "mulhsu a0, a1, a2"},
      {0x02c5b533, 0x13c, "mulhu a0, a1, a2"},
      {0x02c5c533, 0x140, "div a0, a1, a2"},
      {0x02c5d533, 0x144, "divu a0, a1, a2"},
      {0x02c5e533, 0x148, "rem a0, a1, a2"},
      {0x02c5f533, 0x14c, "remu a0, a1, a2"},
      {0x02c5853b, 0x150, "mulw a0, a1, a2"},
      {0x02c5c53b, 0x154, "divw a0, a1, a2"},
      {0x02c5d53b, 0x158, "divuw a0, a1, a2"},
      {0x02c5e53b, 0x15c, "remw a0, a1, a2"},
      {0x02c5f53b, 0x160, "remuw a0, a1, a2"},
      {0x1005a52f, 0x164, "lr.w a0, (a1)"},
      {0x1405a52f, 0x168, "lr.w.aq a0, (a1)"},
      {0x18c5a52f, 0x16c, "sc.w a0, a2, (a1)"},
      {0x1ac5a52f, 0x170, "sc.w.rl a0, a2, (a1)"},
      {0x08c5a52f, 0x174, "amoswap.w a0, a2, (a1)"},
      {0x06c5a52f, 0x178, "amoadd.w.aqrl a0, a2, (a1)"},
      {0x2063a2af, 0x17c, "amoxor.w t0, t1, (t2)"},
      {0x6063a2af, 0x180, "amoand.w t0, t1, (t2)"},
      {0x4063a2af, 0x184, "amoor.w t0, t1, (t2)"},
      {0x8063a2af, 0x188, "amomin.w t0, t1, (t2)"},
      {0xa063a2af, 0x18c, "amomax.w t0, t1, (t2)"},
      {0xc063a2af, 0x190, "amominu.w t0, t1, (t2)"},
      {0xe063a2af, 0x194, "amomaxu.w t0, t1, (t2)"},
      {0x1605b52f, 0x198, "lr.d.aqrl a0, (a1)"},
      {0x18c5b52f, 0x19c, "sc.d a0, a2, (a1)"},
      {0x0cc5b52f, 0x1a0, "amoswap.d.aq a0, a2, (a1)"},
      {0x0091342f, 0x1a4, "amoadd.d s0, s1, (sp)"},
      {0x2091342f, 0x1a8, "amoxor.d s0, s1, (sp)"},
      {0x6091342f, 0x1ac, "amoand.d s0, s1, (sp)"},
      {0x4091342f, 0x1b0, "amoor.d s0, s1, (sp)"},
      {0x8091342f, 0x1b4, "amomin.d s0, s1, (sp)"},
      {0xa091342f, 0x1b8, "amomax.d s0, s1, (sp)"},
      {0xc091342f, 0x1bc, "amominu.d s0, s1, (sp)"},
      {0xe291342f, 0x1c0, "amomaxu.d.rl s0, s1, (sp)"},
      {0xffc12507, 0x1c4, "flw fa0, -4(sp)"},
      {0x7ff52e27, 0x1c8, "fsw ft11, 2044(a0)"},
      {0x68c5f543, 0x1cc, "fmadd.s fa0, fa1, fa2, fa3"},
      {0x18208047, 0x1d0, "fmsub.s ft0, ft1, ft2, ft3, rne"},
      {0x9924944b, 0x1d4, "fnmsub.s fs0, fs1, fs2, fs3, rtz"},
      {0xf9eece4f, 0x1d8, "fnmadd.s ft8, ft9, ft10, ft11, rmm"},
      {0x00c5f553, 0x1dc, "fadd.s fa0, fa1, fa2"},
      {0x00c58553, 0x1e0, "fadd.s fa0, fa1, fa2, rne"},
      {0x08c59553, 0x1e4, "fsub.s fa0, fa1, fa2, rtz"},
      {0x10c5a553, 0x1e8, "fmul.s fa0, fa1, fa2, rdn"},
      {0x18c5b553, 0x1ec, "fdiv.s fa0, fa1, fa2, rup"},
      {0x5805f553, 0x1f0, "fsqrt.s fa0, fa1"},
      {0x20c58553, 0x1f4, "fsgnj.s fa0, fa1, fa2"},
      {0x20c59553, 0x1f8, "fsgnjn.s fa0, fa1, fa2"},
      {0x20c5a553, 0x1fc, "fsgnjx.s fa0, fa1, fa2"},
      {0x28c58553, 0x200, "fmin.s fa0, fa1, fa2"},
      {0x28c59553, 0x204, "fmax.s fa0, fa1, fa2"},
      {0xc005f553, 0x208, "fcvt.w.s a0, fa1"},
      {0xc0059553, 0x20c, "fcvt.w.s a0, fa1, rtz"},
      {0xc015f553, 0x210, "fcvt.wu.s a0, fa1"},
      {0xc025f553, 0x214, "fcvt.l.s a0, fa1"},
      {0xc035c553, 0x218, "fcvt.lu.s a0, fa1, rmm"},
      {0xe0058553, 0x21c, "fmv.x.w a0, fa1"},
      {0xa0c5a553, 0x220, "feq.s a0, fa1, fa2"},
      {0xa0c59553, 0x224, "flt.s a0, fa1, fa2"},
      {0xa0c58553, 0x228, "fle.s a0, fa1, fa2"},
      {0xe0059553, 0x22c, "fclass.s a0, fa1"},
      {0xd005f553, 0x230, "fcvt.s.w fa0, a1"},
      {0xd015f553, 0x234, "fcvt.s.wu fa0, a1"},
      {0xd025a553, 0x238, "fcvt.s.l fa0, a1, rdn"},
      {0xd035f553, 0x23c, "fcvt.s.lu fa0, a1"},
      {0xf0058553, 0x240, "fmv.w.x fa0, a1"},
      {0xff813507, 0x244, "fld fa0, -8(sp)"},
      {0x7fbfbc27, 0x248, "fsd fs11, 2040(t6)"},
      {0x6ac5b543, 0x24c, "fmadd.d fa0, fa1, fa2, fa3, rup"},
      {0x6ac5f547, 0x250, "fmsub.d fa0, fa1, fa2, fa3"},
      {0x6ac5f54b, 0x254, "fnmsub.d fa0, fa1, fa2, fa3"},
      {0x6ac5f54f, 0x258, "fnmadd.d fa0, fa1, fa2, fa3"},
      {0x02c5f553, 0x25c, "fadd.d fa0, fa1, fa2"},
      {0x0ac5f553, 0x260, "fsub.d fa0, fa1, fa2"},
      {0x12c5f553, 0x264, "fmul.d fa0, fa1, fa2"},
      {0x1ac5f553, 0x268, "fdiv.d fa0, fa1, fa2"},
      {0x5a05f553, 0x26c, "fsqrt.d fa0, fa1"},
      {0x22c58553, 0x270, "fsgnj.d fa0, fa1, fa2"},
      {0x22c59553, 0x274, "fsgnjn.d fa0, fa1, fa2"},
      {0x22b5a553, 0x278, "fsgnjx.d fa0, fa1, fa1"},
      {0x2ac58553, 0x27c, "fmin.d fa0, fa1, fa2"},
      {0x2ac59553, 0x280, "fmax.d fa0, fa1, fa2"},
      {0x4015f553, 0x284, "fcvt.s.d fa0, fa1"},
      {0x42058553, 0x288, "fcvt.d.s fa0, fa1"},
      {0xa2c5a553, 0x28c, "feq.d a0, fa1, fa2"},
      {0xa2c59553, 0x290, "flt.d a0, fa1, fa2"},
      {0xa2c58553, 0x294, "fle.d a0, fa1, fa2"},
      {0xe2059553, 0x298, "fclass.d a0, fa1"},
      {0xc205f553, 0x29c, "fcvt.w.d a0, fa1"},
      {0xc215f553, 0x2a0, "fcvt.wu.d a0, fa1"},
      {0xc225f553, 0x2a4, "fcvt.l.d a0, fa1"},
      {0xc235a553, 0x2a8, "fcvt.lu.d a0, fa1, rdn"},
      {0xe2058553, 0x2ac, "fmv.x.d a0, fa1"},
      {0xd2058553, 0x2b0, "fcvt.d.w fa0, a1"},
      {0xd2158553, 0x2b4, "fcvt.d.wu fa0, a1"},
      {0xd225f553, 0x2b8, "fcvt.d.l fa0, a1"},
      {0xd235f553, 0x2bc, "fcvt.d.lu fa0, a1"},
      {0xf2058553, 0x2c0, "fmv.d.x fa0, a1"},
      {0x08c5853b, 0x2c4, "add.uw a0, a1, a2"},
      {0x0805853b, 0x2c8, "add.uw a0, a1, zero"},
      {0x20c5a533, 0x2cc, "sh1add a0, a1, a2"},
      {0x20c5c533, 0x2d0, "sh2add a0, a1, a2"},
      {0x20c5e533, 0x2d4, "sh3add a0, a1, a2"},
      {0x20c5a53b, 0x2d8, "sh1add.uw a0, a1, a2"},
      {0x20c5c53b, 0x2dc, "sh2add.uw a0, a1, a2"},
      {0x20c5e53b, 0x2e0, "sh3add.uw a0, a1, a2"},
      {0x0805951b, 0x2e4, "slli.uw a0, a1, 0x0"},
      {0x0bf5951b, 0x2e8, "slli.uw a0, a1, 0x3f"},
      {0x40c5f533, 0x2ec, "andn a0, a1, a2"},
      {0x40c5e533, 0x2f0, "orn a0, a1, a2"},
      {0x40c5c533, 0x2f4, "xnor a0, a1, a2"},
      {0x60059513, 0x2f8, "clz a0, a1"},
      {0x6005951b, 0x2fc, "clzw a0, a1"},
      {0x60159513, 0x300, "ctz a0, a1"},
      {0x6015951b, 0x304, "ctzw a0, a1"},
      {0x60259513, 0x308, "cpop a0, a1"},
      {0x6025951b, 0x30c, "cpopw a0, a1"},
      {0x0ac5e533, 0x310, "max a0, a1, a2"},
      {0x0ac5f533, 0x314, "maxu a0, a1, a2"},
      {0x0ac5c533, 0x318, "min a0, a1, a2"},
      {0x0ac5d533, 0x31c, "minu a0, a1, a2"},
      {0x60459513, 0x320, "sext.b a0, a1"},
      {0x60559513, 0x324, "sext.h a0, a1"},
      {0x0805c53b, 0x328, "zext.h a0, a1"},
      {0x60c59533, 0x32c, "rol a0, a1, a2"},
      {0x60c5953b, 0x330, "rolw a0, a1, a2"},
      {0x60c5d533, 0x334, "ror a0, a1, a2"},
      {0x60c5d53b, 0x338, "rorw a0, a1, a2"},
      {0x63f5d513, 0x33c, "rori a0, a1, 0x3f"},
      {0x61f5d51b, 0x340, "roriw a0, a1, 0x1f"},
      {0x2875d513, 0x344, "orc.b a0, a1"},
      {0x6b85d513, 0x348, "rev8 a0, a1"},
      {0x48c59533, 0x34c, "bclr a0, a1, a2"},
      {0x4bf59513, 0x350, "bclri a0, a1, 0x3f"},
      {0x48c5d533, 0x354, "bext a0, a1, a2"},
      {0x4805d513, 0x358, "bexti a0, a1, 0x0"},
      {0x68c59533, 0x35c, "binv a0, a1, a2"},
      {0x6a859513, 0x360, "binvi a0, a1, 0x28"},
      {0x28c59533, 0x364, "bset a0, a1, a2"},
      {0x29f59513, 0x368, "bseti a0, a1, 0x1f"},
      {0x0ec5d533, 0x36c, "czero.eqz a0, a1, a2"},
      {0x0e7372b3, 0x370, "czero.nez t0, t1, t2"},
      {0x0015200f, 0x374, "cbo.clean (a0)"},
      {0x0021200f, 0x378, "cbo.flush (sp)"},
      {0x0002a00f, 0x37c, "cbo.inval (t0)"},
      {0x004fa00f, 0x380, "cbo.zero (t6)"},
      {0x10200073, 0x384, "sret"},
      {0x30200073, 0x388, "mret"},
      {0x10500073, 0x38c, "wfi"},
      {0x12000073, 0x390, "sfence.vma zero, zero"},
      {0x12050073, 0x394, "sfence.vma a0, zero"},
      {0x12b50073, 0x398, "sfence.vma a0, a1"},
  };
  for (const Case& c : cases) EXPECT_EQ(disassemble(decode(c.raw), c.pc), c.text);
}

TEST(Disassemble, CompressedShowsTheExpansion) {
  EXPECT_EQ(disassemble(decode(0x852e), 0), "add a0, zero, a1");            // c.mv a0, a1
  EXPECT_EQ(disassemble(decode(0x70fe), 0), "ld ra, 504(sp)");              // c.ldsp
  EXPECT_EQ(disassemble(decode(0x8082), 0), "jalr zero, 0(ra)");            // c.jr ra
  EXPECT_EQ(disassemble(decode(0xb001), 0x1000), "jal zero, 0x800");        // c.j .-2048
  EXPECT_EQ(disassemble(decode(0xcd7d), 0x1000), "beq a0, zero, 0x10fe");   // c.beqz a0, .+254
  EXPECT_EQ(disassemble(decode(0x7501), 0), "lui a0, 0xfffe0");             // c.lui a0, 0xfffe0
  EXPECT_EQ(disassemble(decode(0x357e), 0), "fld fa0, 504(sp)");            // c.fldsp
}

TEST(Disassemble, Corners) {
  EXPECT_EQ(disassemble(decode(0x0000), 0), "illegal 0x0000");
  EXPECT_EQ(disassemble(decode(0xffffffff), 0), "illegal 0xffffffff");
  EXPECT_EQ(disassemble(decode(0x00302573), 0), "csrrs a0, 0x003, zero");  // objdump says "frm"
  EXPECT_EQ(disassemble(decode(0x0000000f), 0), "fence unknown, unknown");  // as objdump prints it
  EXPECT_EQ(disassemble(decode(0x00c5d553), 0), "fadd.s fa0, fa1, fa2, unknown");
  EXPECT_EQ(disassemble(decode(0x4205f553), 0), "fcvt.d.s fa0, fa1, dyn");
  EXPECT_EQ(disassemble(decode(0x00158863), 0xfffffffffffffff0), "beq a1, ra, 0x0");  // wraps around
}

}  // namespace
// Which instructions end a translated block: fflags accesses and reads of frm and fcsr do not
// (jit::ends_block), other CSR accesses and system instructions do, ALU ops never.
TEST(Decode, CsrAccessesThatKeepTheBlockGoing) {
  const struct {
    uint32_t raw;
    bool ends;
    const char* text;
  } rows[] = {
      {0x00102773, false, "csrrs a4, fflags, zero (frflags)"},
      {0x00171073, false, "csrrw zero, fflags, a4 (fsflags)"},
      {0x00106773, false, "csrrsi a4, fflags, 0"},
      {0x0010d073, false, "csrrwi zero, fflags, 1"},
      {0x00202773, false, "csrrs a4, frm, zero (frrm)"},
      {0x00303773, false, "csrrc a4, fcsr, zero"},
      {0x00271073, true, "csrrw zero, frm, a4: frm is in the translation key"},
      {0x0027a773, true, "csrrs a4, frm, a5: a write"},
      {0x0030e773, true, "csrrsi a4, fcsr, 1: a write"},
      {0x30002773, true, "csrrs a4, mstatus, zero"},
      {0xc0002773, true, "csrrs a4, cycle, zero"},
      {0x00000073, true, "ecall"},
      {0x0505, false, "c.addi a0, 1"},
  };
  for (const auto& r : rows) EXPECT_EQ(jit::ends_block(decode(r.raw)), r.ends) << r.text;
}

}  // namespace brisk
