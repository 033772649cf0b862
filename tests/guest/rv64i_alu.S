/* RV64I computational instructions: register and immediate forms, shifts, W forms, lui/auipc, x0. */
#include "check.h"

TEST_BEGIN

    TEST_RR add, 3, 1, 2
    TEST_RR add, 0, -1, 1
    TEST_RR add, 0x8000000000000000, 0x7fffffffffffffff, 1
    TEST_RR add, 0x00000000ffffffff, 0x7fffffff, 0x80000000
    TEST_RR sub, -1, 1, 2
    TEST_RR sub, 0x7fffffffffffffff, 0x8000000000000000, 1
    TEST_RR sub, 0, 0x123456789abcdef0, 0x123456789abcdef0
    TEST_RR xor, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0, 0xf0f0f0f0f0f0f0f0
    TEST_RR or,  0xfff0fff0fff0fff0, 0x0ff00ff00ff00ff0, 0xf0f0f0f0f0f0f0f0
    TEST_RR and, 0x00f000f000f000f0, 0x0ff00ff00ff00ff0, 0xf0f0f0f0f0f0f0f0
    TEST_RR slt,  1, -1, 0
    TEST_RR slt,  0, 0, -1
    TEST_RR slt,  0, 5, 5
    TEST_RR slt,  1, 0x8000000000000000, 0x7fffffffffffffff
    TEST_RR sltu, 0, -1, 0
    TEST_RR sltu, 1, 0, -1
    TEST_RR sltu, 0, 7, 7
    TEST_RR sltu, 0, 0x8000000000000000, 0x7fffffffffffffff

    /* Register shifts use rs2[5:0]. */
    TEST_RR sll, 0x8000000000000000, 1, 63
    TEST_RR sll, 2, 1, 65
    TEST_RR sll, 0x123456789abcdef0, 0x123456789abcdef0, 64
    TEST_RR srl, 1, 0x8000000000000000, 63
    TEST_RR srl, 0x0800000000000000, 0x8000000000000000, 0xffffffffffffffc4
    TEST_RR sra, -1, 0x8000000000000000, 63
    TEST_RR sra, 0xf800000000000000, 0x8000000000000000, 4
    TEST_RR sra, 0x0800000000000000, 0x4000000000000000, 3

    TEST_RI addi, 0x800, 0x7ff, 1
    TEST_RI addi, -1, 0, -1
    TEST_RI addi, 0xfffffffffffff800, 0, -2048
    TEST_RI addi, 0x80000000, 0x7fffffff, 1
    TEST_RI slti, 1, -5, -4
    TEST_RI slti, 0, 0, -2048
    TEST_RI slti, 1, 0x8000000000000000, 0
    TEST_RI sltiu, 1, 0, -1          /* immediate sign-extends, then compares unsigned */
    TEST_RI sltiu, 0, -1, 2047
    TEST_RI sltiu, 1, 0xfffffffffffff7ff, -2048
    TEST_RI xori, 0xffffffffffffff0f, 0xf0, -1
    TEST_RI xori, 0x00ff00ff00ff000f, 0x00ff00ff00ff00f0, 0xff
    TEST_RI ori, 0xfffffffffffff801, 1, -2048
    TEST_RI ori, 0x12345678000007ff, 0x1234567800000000, 0x7ff
    TEST_RI andi, 0x00ff00ff00ff0800, 0x00ff00ff00ff0fff, -2048
    TEST_RI andi, 0xf, 0x123456789abcdeff, 0xf
    TEST_RI slli, 0x8000000000000000, 1, 63
    TEST_RI slli, 0xabcdef0000000000, 0x0000000000abcdef, 40
    TEST_RI srli, 1, 0x8000000000000000, 63
    TEST_RI srli, 0x00ffffffffffffff, -1, 8
    TEST_RI srai, -1, 0x8000000000000000, 63
    TEST_RI srai, 0xffff800000000000, 0x8000000000000000, 16
    TEST_RI srai, 0x7fffffffffffffff, 0x7fffffffffffffff, 0

    /* W forms operate on the low 32 bits and sign-extend the 32-bit result. */
    TEST_RR addw, 0xffffffff80000000, 0x7fffffff, 1
    TEST_RR addw, 0, 0xffffffff, 1
    TEST_RR addw, 3, 0x1234567800000001, 0xabcdef0000000002
    TEST_RR subw, 0x7fffffff, 0xffffffff80000000, 1
    TEST_RR subw, 0xffffffffffffffff, 0x100000000, 1
    TEST_RR sllw, 0xffffffff80000000, 1, 31
    TEST_RR sllw, 2, 1, 33            /* rs2[4:0] */
    TEST_RR sllw, 0, 0x100000000, 0
    TEST_RR srlw, 1, 0x80000000, 31
    TEST_RR srlw, 0x7fffffff, 0xffffffffffffffff, 1
    TEST_RR srlw, 0xffffffff80000000, 0xffffffff80000000, 32
    TEST_RR sraw, 0xffffffffffffffff, 0x80000000, 31
    TEST_RR sraw, 0xfffffffff8000000, 0x0000000080000000, 4
    TEST_RR sraw, 0x07ffffff, 0xffffffff7fffffff, 36
    TEST_RI addiw, 0xffffffff80000000, 0x7fffffff, 1
    TEST_RI addiw, 0x7fffffff, 0x80000000, -1
    TEST_RI addiw, 0xffffffffffffffff, 0xffffffff00000000, -1
    TEST_RI addiw, 0x12345678, 0xffffffff12345678, 0    /* sext.w */
    TEST_RI slliw, 0xffffffff80000000, 1, 31
    TEST_RI slliw, 0x12340000, 0xabcd00001234, 16
    TEST_RI srliw, 0x0000000000000001, 0xffffffff80000000, 31
    TEST_RI srliw, 0xffffffff80000000, 0x80000000, 0
    TEST_RI srliw, 0x00ffffff, 0x12345678ffffffff, 8
    TEST_RI sraiw, 0xffffffffffffffff, 0x80000000, 31
    TEST_RI sraiw, 0xffffffffff800000, 0x80000000, 8
    TEST_RI sraiw, 0x01234567, 0xffffffff12345678, 4

    /* Destination equal to a source. */
    li a1, 5
    add a1, a1, a1
    CHECK_REG a1, 10
    li a1, 0x7fffffff
    addiw a1, a1, 1
    CHECK_REG a1, 0xffffffff80000000

    /* lui sign-extends bit 31 on RV64. */
    lui a0, 0x80000
    CHECK_REG a0, 0xffffffff80000000
    lui a0, 0x7ffff
    CHECK_REG a0, 0x7ffff000
    lui a0, 0xfffff
    CHECK_REG a0, 0xfffffffffffff000
    lui a0, 0
    CHECK_REG a0, 0

    /* auipc adds the sign-extended upper immediate to its own address. */
1:  auipc a0, 0
    la a1, 1b
    CHECK_EQ a0, a1
2:  auipc a0, 0x12345
    la a1, 2b
    li a2, 0x12345000
    add a1, a1, a2
    CHECK_EQ a0, a1
3:  auipc a0, 0x80000
    la a1, 3b
    li a2, 0xffffffff80000000
    add a1, a1, a2
    CHECK_EQ a0, a1

    /* Writes to x0 are discarded, whatever the instruction. */
    addi x0, x0, 5
    CHECK_REG x0, 0
    li a1, 77
    add x0, a1, a1
    CHECK_REG x0, 0
    lui x0, 0x12345
    CHECK_REG x0, 0
    auipc x0, 1
    CHECK_REG x0, 0
    addiw x0, a1, 1
    CHECK_REG x0, 0
    sltiu x0, x0, 1
    CHECK_REG x0, 0
    add a0, x0, x0
    CHECK_REG a0, 0
    ori a0, x0, -1
    CHECK_REG a0, -1

    /* nop and the HINT space (rd = x0) do nothing. */
    li a0, 9
    nop
    slli x0, a0, 3
    CHECK_REG a0, 9

TEST_END
