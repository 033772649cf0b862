/* RV64I control transfer: every branch taken and not taken, forward and backward; jal and jalr
 * link values, jalr offset and LSB clearing, rd == rs1, long jumps. */
#include "check.h"

/* a0 = 1 if "\op a1, a2" branches forward, 2 if it falls through. */
.macro TEST_BR_FWD op, a, b, taken
    li a1, \a
    li a2, \b
    li a0, 1
    \op a1, a2, .Lt\@
    li a0, 2
.Lt\@:
    .if \taken
    CHECK_REG a0, 1
    .else
    CHECK_REG a0, 2
    .endif
.endm

/* The same with a backward target. */
.macro TEST_BR_BWD op, a, b, taken
    li a1, \a
    li a2, \b
    li a0, 0
    j .Lb\@
.Lt\@:
    li a0, 1
    j .Ld\@
.Lb\@:
    \op a1, a2, .Lt\@
    li a0, 2
.Ld\@:
    .if \taken
    CHECK_REG a0, 1
    .else
    CHECK_REG a0, 2
    .endif
.endm

.macro TEST_BR op, a, b, taken
    TEST_BR_FWD \op, \a, \b, \taken
    TEST_BR_BWD \op, \a, \b, \taken
.endm

TEST_BEGIN
    TEST_BR beq, 5, 5, 1
    TEST_BR beq, 5, 6, 0
    TEST_BR beq, 0x100000000, 0, 0
    TEST_BR bne, 5, 6, 1
    TEST_BR bne, -1, -1, 0
    TEST_BR bne, 0x8000000000000000, 0, 1
    TEST_BR blt, -1, 0, 1
    TEST_BR blt, 0, -1, 0
    TEST_BR blt, 3, 3, 0
    TEST_BR blt, 0x8000000000000000, 0x7fffffffffffffff, 1
    TEST_BR bge, 0, -1, 1
    TEST_BR bge, 3, 3, 1
    TEST_BR bge, -1, 0, 0
    TEST_BR bltu, 0, -1, 1
    TEST_BR bltu, -1, 0, 0
    TEST_BR bltu, 3, 3, 0
    TEST_BR bltu, 0x7fffffffffffffff, 0x8000000000000000, 1
    TEST_BR bgeu, -1, 0, 1
    TEST_BR bgeu, 3, 3, 1
    TEST_BR bgeu, 0, -1, 0

    /* A register compared with itself. */
    li a1, -7
    li a0, 1
    bge a1, a1, 1f
    li a0, 2
1:  CHECK_REG a0, 1

    /* A counted loop. */
    li a0, 0
    li a1, 100
1:  addi a0, a0, 3
    addi a1, a1, -1
    bnez a1, 1b
    CHECK_REG a0, 300

    /* jal links the address of the next instruction. */
    jal ra, 1f
2:  j 3f
1:  la a1, 2b
    CHECK_EQ ra, a1
    jr ra
3:
    /* jal with another link register; jal x0 links nothing. */
    jal t0, 1f
2:  j 3f
1:  la a1, 2b
    CHECK_EQ t0, a1
    jr t0
3:  li a0, 0
    jal x0, 1f
    li a0, 1
1:  CHECK_REG a0, 0
    CHECK_REG x0, 0

    /* jalr adds the offset and clears bit 0 of the target. */
    la a1, target_a
    addi a1, a1, -16
    li a0, 0
    jalr ra, 16(a1)
2:  CHECK_REG a0, 0xa
    la a2, 2b
    CHECK_EQ ra, a2
    la a1, target_a
    addi a1, a1, 1
    li a0, 0
    jalr ra, 0(a1)
    CHECK_REG a0, 0xa
    la a1, target_a
    addi a1, a1, -3
    li a0, 0
    jalr ra, 4(a1)
    CHECK_REG a0, 0xa

    /* rd == rs1: the target uses the old value, then the link is written. */
    la a1, target_b
    jalr a1, 0(a1)
2:  la a2, 2b
    CHECK_EQ a1, a2
    CHECK_REG a0, 0xb

    /* jalr x0 (a plain indirect jump) and a negative offset. */
    la a1, 1f
    addi a1, a1, 8
    li a0, 0
    jalr x0, -8(a1)
    li a0, 1
1:  CHECK_REG a0, 0

    /* Jumps and branches across a large distance. */
    li a0, 0
    jal ra, far_func
    CHECK_REG a0, 0xf
    li a1, 1
    li a0, 0
    j far_fwd
far_back:
    CHECK_REG a0, 0x10

    /* Calls through a table, as a switch or virtual call does. */
    la s0, table
    li s1, 0
    li s2, 0
1:  slli t0, s1, 3
    add t0, s0, t0
    ld t0, 0(t0)
    jalr ra, t0
    add s2, s2, a0
    addi s1, s1, 1
    li t0, 3
    blt s1, t0, 1b
    CHECK_REG s2, 0xa + 0xb + 0xf
TEST_END

target_a:
    li a0, 0xa
    ret

target_b:
    li a0, 0xb
    jr a1

    .skip 0x40000
far_func:
    li a0, 0xf
    ret
far_fwd:
    li a0, 0x10
    beq a1, a1, 1f
    j far_func
1:  j far_back

    .section .rodata
    .balign 8
table:
    .dword target_a, target_b_ret, far_func
    .text
target_b_ret:
    li a0, 0xb
    ret
