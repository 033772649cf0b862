/* The register and W ALU ops in every operand shape translated code distinguishes: guest registers
 * kept in host registers (a0-a2) or in the hart (s2-s4; jit/x64/translator.h, kMappedGuestOrder),
 * rd equal to rs1 or rs2, rs1 equal to rs2, and x0. Sources hold other bits above bit 31, which
 * the W forms must ignore. */
#include "check.h"

/* rd = \op(rs1 = \a, rs2 = \b) must be \result in each shape. */
.macro TEST_REGS op, rd, rs1, rs2, result, a, b
    li \rs1, \a
    li \rs2, \b
    \op \rd, \rs1, \rs2
    CHECK_REG \rd, \result
.endm

.macro TEST_SHAPES op, result, a, b
    TEST_REGS \op, s2, s3, s4, \result, \a, \b    /* all in the hart */
    TEST_REGS \op, a0, s3, s4, \result, \a, \b    /* sources in the hart */
    TEST_REGS \op, s2, a1, a2, \result, \a, \b    /* rd in the hart */
    TEST_REGS \op, a0, a0, s4, \result, \a, \b    /* rd = rs1, rs2 in the hart */
    TEST_REGS \op, a0, a1, a0, \result, \a, \b    /* rd = rs2 */
    TEST_REGS \op, a0, s3, a0, \result, \a, \b    /* rd = rs2, rs1 in the hart */
    TEST_REGS \op, s2, s3, s2, \result, \a, \b    /* rd = rs2, all in the hart */
    TEST_REGS \op, s2, s2, a2, \result, \a, \b    /* rd = rs1 in the hart */
    TEST_REGS \op, s2, s2, s4, \result, \a, \b    /* rd = rs1, all in the hart */
    TEST_REGS \op, a0, a0, a2, \result, \a, \b    /* rd = rs1 */
.endm

/* rd = \op(rs1 = \a, \imm) must be \result in each shape. */
.macro TEST_IMM op, rd, rs1, result, a, imm
    li \rs1, \a
    \op \rd, \rs1, \imm
    CHECK_REG \rd, \result
.endm

.macro TEST_SHAPES_I op, result, a, imm
    TEST_IMM \op, s2, s3, \result, \a, \imm
    TEST_IMM \op, a0, s3, \result, \a, \imm
    TEST_IMM \op, s2, a1, \result, \a, \imm
    TEST_IMM \op, a0, a0, \result, \a, \imm
    TEST_IMM \op, s2, s2, \result, \a, \imm
    TEST_IMM \op, a0, a1, \result, \a, \imm
.endm

/* zext.w and zext.h without Zba and Zbb, slli rd, rs1, k then srli rd, rd, k, which translated code
 * makes one move. */
.macro TEST_ZEXT rd, rs1
    li \rs1, 0xfedcba98f0e1d2c3
    slli \rd, \rs1, 32
    srli \rd, \rd, 32
    CHECK_REG \rd, 0xf0e1d2c3
    li \rs1, 0xfedcba98f0e1d2c3
    slli \rd, \rs1, 48
    srli \rd, \rd, 48
    CHECK_REG \rd, 0xd2c3
.endm

TEST_BEGIN
    TEST_SHAPES addw, 0xffffffff9234567d, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES subw, 0xffffffff92345673, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES mulw, 0x000000005b05b058, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES sllw, 0xffffffffd5e6f780, 0x0123456789abcdef, 0xffffffffffffffe7
    TEST_SHAPES srlw, 0x000000000113579b, 0x0123456789abcdef, 0xffffffffffffffe7
    TEST_SHAPES sraw, 0xffffffffff13579b, 0x0123456789abcdef, 0xffffffffffffffe7
    TEST_SHAPES rolw, 0xffffffffd5e6f7c4, 0x0123456789abcdef, 0xffffffffffffffe7
    TEST_SHAPES rorw, 0xffffffffdf13579b, 0x0123456789abcdef, 0xffffffffffffffe7
    TEST_SHAPES xor, 0xfffffff09234567d, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES or, 0xffffffff9234567d, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES and, 0x0000000f00000000, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES sub, 0x13579bcf92345673, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES add, 0x0000000e9234567d, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES mul, 0x560f196f5b05b058, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES xnor, 0x0000000f6dcba982, 0x89abcdef12345678, 0x7654321f80000005
    TEST_SHAPES_I slliw, 0x000000003a586000, 0xfedcba98f0e1d2c3, 13
    TEST_SHAPES_I srliw, 0x00000000007870e9, 0xfedcba98f0e1d2c3, 9
    TEST_SHAPES_I srliw, 0xfffffffff0e1d2c3, 0xfedcba98f0e1d2c3, 0
    TEST_SHAPES_I sraiw, 0xffffffffff870e96, 0xfedcba98f0e1d2c3, 5
    TEST_SHAPES_I roriw, 0x00000000587e1c3a, 0xfedcba98f0e1d2c3, 11
    TEST_SHAPES_I addiw, 0xfffffffff0e1cac3, 0xfedcba98f0e1d2c3, -2048
    TEST_SHAPES_I addiw, 0xfffffffff0e1d2c3, 0xfedcba98f0e1d2c3, 0    /* sext.w */
    TEST_SHAPES_I addiw, 0x0000000070e1d2c3, 0xfedcba9870e1d2c3, 0
    TEST_SHAPES_I xori, 0x012345670f1e2d3c, 0xfedcba98f0e1d2c3, -1
    TEST_SHAPES_I addi, 0xfedcba98f0e1cac3, 0xfedcba98f0e1d2c3, -2048
    TEST_SHAPES_I andi, 0xfedcba98f0e1d2c0, 0xfedcba98f0e1d2c3, -16
    TEST_SHAPES_I ori, 0xfedcba98f0e1d7f3, 0xfedcba98f0e1d2c3, 2032
    TEST_SHAPES_I slli, 0x97531e1c3a586000, 0xfedcba98f0e1d2c3, 13
    TEST_SHAPES_I srli, 0x007f6e5d4c7870e9, 0xfedcba98f0e1d2c3, 9
    TEST_SHAPES_I srai, 0xfff6e5d4c7870e96, 0xfedcba98f0e1d2c3, 5

    /* rs1 = rs2. */
    TEST_REGS addw, s2, s3, s3, 0x2468acf0, 0x89abcdef12345678, 0x89abcdef12345678
    TEST_REGS addw, a0, s3, s3, 0x2468acf0, 0x89abcdef12345678, 0x89abcdef12345678
    TEST_REGS mulw, a0, a1, a1, 0x1df4d840, 0x89abcdef12345678, 0x89abcdef12345678
    TEST_REGS subw, s3, s3, s3, 0, 0x89abcdef12345678, 0x89abcdef12345678
    TEST_REGS xor, a0, s3, s3, 0, 0x89abcdef12345678, 0x89abcdef12345678
    TEST_REGS mul, s2, s3, s3, 0xc5d10aec1df4d840, 0x89abcdef12345678, 0x89abcdef12345678
    TEST_REGS xor, s3, s3, s3, 0, 0x89abcdef12345678, 0x89abcdef12345678
    TEST_REGS add, s3, s3, s3, 0x13579bde2468acf0, 0x89abcdef12345678, 0x89abcdef12345678

    /* x0 as rs1 or rs2. */
    li s4, 0x7654321f80000005
    subw s2, x0, s4
    CHECK_REG s2, 0x7ffffffb
    addw a0, x0, s4
    CHECK_REG a0, 0xffffffff80000005
    sllw s2, x0, s4
    CHECK_REG s2, 0
    or a0, x0, s4
    CHECK_REG a0, 0x7654321f80000005
    li s3, 0x89abcdef12345678
    addw s2, s3, x0
    CHECK_REG s2, 0x12345678
    subw a0, s3, x0
    CHECK_REG a0, 0x12345678
    sraw s2, s3, x0
    CHECK_REG s2, 0x12345678
    and a0, s3, x0
    CHECK_REG a0, 0
    slliw s2, x0, 5
    CHECK_REG s2, 0

    TEST_ZEXT s2, s3
    TEST_ZEXT a0, s3
    TEST_ZEXT s2, a1
    TEST_ZEXT a0, a0
    TEST_ZEXT s2, s2
    TEST_ZEXT a0, a1
    slli a0, x0, 32
    srli a0, a0, 32
    CHECK_REG a0, 0
    /* Shapes like it that are no zext.w: the srli into another register, or by another amount. */
    li s3, 0xfedcba98f0e1d2c3
    slli a0, s3, 32
    srli a1, a0, 32
    CHECK_REG a0, 0xf0e1d2c300000000
    CHECK_REG a1, 0xf0e1d2c3
    slli s2, s3, 32
    srli s2, s2, 31
    CHECK_REG s2, 0x1e1c3a586
    slli a0, s3, 32
    srli a0, a1, 32
    CHECK_REG a0, 0
    slli s2, s3, 48
    srli s2, s2, 32
    CHECK_REG s2, 0xd2c30000
    slli a0, s3, 40
    srli a0, a0, 40
    CHECK_REG a0, 0xe1d2c3

    /* A result in the hart read by the next instruction, which translated code takes from the
     * register it was stored from, also where the instruction's slow path rejoined (rax_holds in
     * jit/x64/translator.cpp): division by zero, then an addi and a sext.w of it. */
    li s3, 7
    li s4, 0
    div s2, s3, s4
    addi s5, s2, 2
    CHECK_REG s5, 1
    divuw s2, s3, s4
    sext.w s5, s2
    CHECK_REG s5, -1
    li s3, 0x80000000
    subw s2, x0, s3
    srliw s5, s2, 4
    CHECK_REG s5, 0x8000000
    li s4, 0x100000000
    addi s2, s3, 5
    addi s2, s2, 1
    add s2, s2, s4
    slli s2, s2, 32
    srli s2, s2, 32
    CHECK_REG s2, 0x80000006
    lw s2, 0(sp)
    slli s5, s2, 48
    srli s5, s5, 48
    lw s3, 0(sp)
    zext.h s3, s3
    sub s5, s5, s3
    CHECK_REG s5, 0
    /* ... and a branch's or a store's operand. */
    li s3, 40
    addi s2, s3, 2
    li a1, 42
    bne a1, s2, 1f
    addi s2, s3, 3
    sd s2, 0(sp)
    addi s2, sp, -8
    sd s2, 0(s2)
    ld s4, 0(sp)
    ld s5, -8(sp)
    sub s5, s5, sp
    CHECK_REG s4, 43
    CHECK_REG s5, -8
    j 2f
1:  CHECK_REG s2, 42
2:
TEST_END
