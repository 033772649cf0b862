/* A extension: every AMO in .w and .d form (old value in rd, sign-extended for .w; memory result),
 * signed versus unsigned min/max, aq/rl variants, and the LR/SC outcomes the spec guarantees. */
#include "check.h"

#define GUARD 0x5a5a5a5a

/* The word's neighbour holds GUARD, which a .w AMO must not touch. */
.macro TEST_AMO_W op, init, src, old, new
    la s0, cell
    li t0, (GUARD << 32) | \init
    sd t0, 0(s0)
    li a1, \src
    \op a0, a1, (s0)
    CHECK_REG a0, \old
    CHECK_MEM ld, 0, s0, (GUARD << 32) | \new
.endm

.macro TEST_AMO_D op, init, src, old, new
    la s0, cell
    li t0, \init
    sd t0, 0(s0)
    li a1, \src
    \op a0, a1, (s0)
    CHECK_REG a0, \old
    CHECK_MEM ld, 0, s0, \new
.endm

TEST_BEGIN
    /* With no LR executed yet there is no reservation: SC fails with 1 and stores nothing. */
    la s0, cell
    li t0, 0x1111
    sd t0, 0(s0)
    li a1, 0x2222
    sc.d a0, a1, (s0)
    CHECK_REG a0, 1
    CHECK_MEM ld, 0, s0, 0x1111
    sc.w a0, a1, (s0)
    CHECK_REG a0, 1
    CHECK_MEM ld, 0, s0, 0x1111

    TEST_AMO_W amoswap.w, 0x80000000, 0x12345678, 0xffffffff80000000, 0x12345678
    TEST_AMO_W amoswap.w, 0x7fffffff, 0xffffffff89abcdef, 0x7fffffff, 0x89abcdef
    TEST_AMO_W amoadd.w, 0x7fffffff, 1, 0x7fffffff, 0x80000000
    TEST_AMO_W amoadd.w, 0xffffffff, 0xffffffff00000002, 0xffffffffffffffff, 1
    TEST_AMO_W amoxor.w, 0xf0f0f0f0, 0xff00ff00, 0xfffffffff0f0f0f0, 0x0ff00ff0
    TEST_AMO_W amoand.w, 0xf0f0f0f0, 0x0ff00ff0, 0xfffffffff0f0f0f0, 0x00f000f0
    TEST_AMO_W amoor.w,  0xf0f0f0f0, 0x0ff00ff0, 0xfffffffff0f0f0f0, 0xfff0fff0
    TEST_AMO_W amomin.w, 0x80000000, 1, 0xffffffff80000000, 0x80000000
    TEST_AMO_W amomin.w, 1, 0xffffffff, 1, 0xffffffff           /* 32-bit signed: -1 < 1 */
    TEST_AMO_W amomin.w, 5, 0x100000003, 5, 3                   /* only the low 32 bits count */
    TEST_AMO_W amomax.w, 0x80000000, 1, 0xffffffff80000000, 1
    TEST_AMO_W amomax.w, 1, 0xffffffff, 1, 1
    TEST_AMO_W amominu.w, 0x80000000, 1, 0xffffffff80000000, 1
    TEST_AMO_W amominu.w, 1, 0xffffffff, 1, 1
    TEST_AMO_W amomaxu.w, 0x80000000, 1, 0xffffffff80000000, 0x80000000
    TEST_AMO_W amomaxu.w, 1, 0xffffffff, 1, 0xffffffff
    TEST_AMO_W amomaxu.w, 7, 0xffffffff00000002, 7, 7

    TEST_AMO_D amoswap.d, 0x8000000000000000, 0x123456789abcdef0, 0x8000000000000000, 0x123456789abcdef0
    TEST_AMO_D amoadd.d, 0x7fffffffffffffff, 1, 0x7fffffffffffffff, 0x8000000000000000
    TEST_AMO_D amoadd.d, 0x00000000ffffffff, 1, 0xffffffff, 0x100000000
    TEST_AMO_D amoxor.d, 0xf0f0f0f0f0f0f0f0, 0xff00ff00ff00ff00, 0xf0f0f0f0f0f0f0f0, 0x0ff00ff00ff00ff0
    TEST_AMO_D amoand.d, 0xf0f0f0f0f0f0f0f0, 0x0ff00ff00ff00ff0, 0xf0f0f0f0f0f0f0f0, 0x00f000f000f000f0
    TEST_AMO_D amoor.d,  0xf0f0f0f0f0f0f0f0, 0x0ff00ff00ff00ff0, 0xf0f0f0f0f0f0f0f0, 0xfff0fff0fff0fff0
    TEST_AMO_D amomin.d, 0x8000000000000000, 1, 0x8000000000000000, 0x8000000000000000
    TEST_AMO_D amomin.d, 0x80000000, 0xffffffffffffffff, 0x80000000, 0xffffffffffffffff
    TEST_AMO_D amomax.d, 0x8000000000000000, 1, 0x8000000000000000, 1
    TEST_AMO_D amomax.d, 0x80000000, 0xffffffffffffffff, 0x80000000, 0x80000000
    TEST_AMO_D amominu.d, 0x8000000000000000, 1, 0x8000000000000000, 1
    TEST_AMO_D amominu.d, 0x80000000, 0xffffffffffffffff, 0x80000000, 0x80000000
    TEST_AMO_D amomaxu.d, 0x8000000000000000, 1, 0x8000000000000000, 0x8000000000000000
    TEST_AMO_D amomaxu.d, 0x80000000, 0xffffffffffffffff, 0x80000000, 0xffffffffffffffff

    /* Ordering bits do not change the result. */
    TEST_AMO_W amoadd.w.aq, 1, 2, 1, 3
    TEST_AMO_W amoor.w.rl, 1, 2, 1, 3
    TEST_AMO_D amoswap.d.aqrl, 1, 2, 1, 2
    TEST_AMO_D amomaxu.d.aq, 1, 2, 1, 2

    /* rd = x0 still updates memory; rd = rs2 receives the old value after rs2 is read. */
    la s0, cell
    li t0, 10
    sd t0, 0(s0)
    li a1, 5
    amoadd.d x0, a1, (s0)
    CHECK_MEM ld, 0, s0, 15
    li a1, 99
    amoswap.d a1, a1, (s0)
    CHECK_REG a1, 15
    CHECK_MEM ld, 0, s0, 99

    /* LR.W sign-extends. */
    la s0, cell
    li t0, (GUARD << 32) | 0x80000000
    sd t0, 0(s0)
    lr.w a0, (s0)
    CHECK_REG a0, 0xffffffff80000000

    /* LR/SC succeeds in a constrained loop; SC.W writes 32 bits. */
    li s1, 100
1:  lr.w a0, (s0)
    li a1, 0xabcdef0012345678
    sc.w a2, a1, (s0)
    beqz a2, 2f
    addi s1, s1, -1
    bnez s1, 1b
2:  CHECK_REG a2, 0
    CHECK_MEM ld, 0, s0, (GUARD << 32) | 0x12345678

    li s1, 100
1:  lr.d.aq a0, (s0)
    addi a1, a0, 1
    sc.d.rl a2, a1, (s0)
    beqz a2, 2f
    addi s1, s1, -1
    bnez s1, 1b
2:  CHECK_REG a2, 0
    CHECK_REG a0, (GUARD << 32) | 0x12345678
    CHECK_MEM ld, 0, s0, (GUARD << 32) | 0x12345679

    /* Any SC invalidates the reservation, so a second SC fails. */
    li a1, 0x77
    sc.d a2, a1, (s0)
    CHECK_REG a2, 1
    CHECK_MEM ld, 0, s0, (GUARD << 32) | 0x12345679

    /* ...also when the first SC stored the value memory already held: the reservation is gone, not
       the value changed. */
    lr.d a0, (s0)
    sc.d a2, a0, (s0)
    CHECK_REG a2, 0
    sc.d a2, a0, (s0)
    CHECK_REG a2, 1

    /* SC to an address outside the reservation set fails and stores nothing. */
    la s1, other
    li t0, 0x33
    sd t0, 0(s1)
    lr.d a0, (s0)
    li a1, 0x44
    sc.d a2, a1, (s1)
    CHECK_REG a2, 1
    CHECK_MEM ld, 0, s1, 0x33
    /* ...and the failed SC also consumed the reservation on cell. */
    sc.d a2, a1, (s0)
    CHECK_REG a2, 1
    CHECK_MEM ld, 0, s0, (GUARD << 32) | 0x12345679
TEST_END

    .data
    .balign 64
cell:
    .dword 0
    .balign 4096
other:
    .dword 0
