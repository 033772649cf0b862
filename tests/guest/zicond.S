/* Zicond: czero.eqz / czero.nez, any non-zero bit of the condition, register aliasing,
 * and the select idiom they are made for. */
#include "check.h"

#ifdef GUEST_QEMU_REF
/* QEMU 7.2 lacks Zicond: its reference build gets the same results from base instructions. */
.macro CZERO_EQZ rd, rs1, rs2
    snez t4, \rs2
    neg t4, t4
    and \rd, \rs1, t4
.endm
.macro CZERO_NEZ rd, rs1, rs2
    seqz t4, \rs2
    neg t4, t4
    and \rd, \rs1, t4
.endm
#else
/* binutils 2.40 has no Zicond mnemonics. */
.macro CZERO_EQZ rd, rs1, rs2
    .insn r 0x33, 5, 7, \rd, \rs1, \rs2
.endm
.macro CZERO_NEZ rd, rs1, rs2
    .insn r 0x33, 7, 7, \rd, \rs1, \rs2
.endm
#endif

TEST_BEGIN
    TEST_RR CZERO_EQZ, 0, 5, 0
    TEST_RR CZERO_EQZ, 5, 5, 1
    TEST_RR CZERO_EQZ, -1, -1, 0x8000000000000000
    TEST_RR CZERO_EQZ, 0x1234, 0x1234, 0x100000000
    TEST_RR CZERO_NEZ, 5, 5, 0
    TEST_RR CZERO_NEZ, 0, 5, 1
    TEST_RR CZERO_NEZ, 0, -1, 0x100000000
    TEST_RR CZERO_NEZ, -1, -1, 0

    /* rd aliasing the condition or the value. */
    li a0, 7
    li a1, 3
    CZERO_EQZ a1, a0, a1
    CHECK_REG a1, 7
    li a1, 0
    CZERO_EQZ a1, a0, a1
    CHECK_REG a1, 0
    li a0, 9
    li a1, 0
    CZERO_NEZ a0, a0, a1
    CHECK_REG a0, 9
    /* rs2 = x0 always zeroes for eqz, never for nez. */
    li a0, 11
    CZERO_EQZ a1, a0, x0
    CHECK_REG a1, 0
    CZERO_NEZ a1, a0, x0
    CHECK_REG a1, 11

    /* c ? a : b as czero.eqz + czero.nez + or. */
    li a0, 100
    li a1, 200
    li a2, 1
    CZERO_EQZ t0, a0, a2
    CZERO_NEZ t1, a1, a2
    or a3, t0, t1
    CHECK_REG a3, 100
    li a2, 0
    CZERO_EQZ t0, a0, a2
    CZERO_NEZ t1, a1, a2
    or a3, t0, t1
    CHECK_REG a3, 200
TEST_END
