/* Zicboz / Zicbom (64-byte blocks) and Zihintpause: cbo.zero clears exactly the block holding
 * its address; cbo.clean and cbo.flush leave the data as it is; pause does nothing visible. */
#include "check.h"

#define BLOCK 64

#ifdef GUEST_QEMU_REF
/* QEMU 7.2 lacks Zicbo*: its reference build writes the zeros with stores. */
.macro CBO_ZERO base
    andi t4, \base, -BLOCK
    .irp off, 0, 8, 16, 24, 32, 40, 48, 56
    sd x0, \off(t4)
    .endr
.endm
.macro CBO_CLEAN base
.endm
.macro CBO_FLUSH base
.endm
#else
.macro CBO_ZERO base
    cbo.zero (\base)
.endm
.macro CBO_CLEAN base
    cbo.clean (\base)
.endm
.macro CBO_FLUSH base
    cbo.flush (\base)
.endm
#endif

/* Fills blocks 0..3 of buf with 0xff bytes. */
.macro FILL
    la t0, buf
    li t1, -1
    li t2, 4 * BLOCK / 8
.Lfill\@:
    sd t1, 0(t0)
    addi t0, t0, 8
    addi t2, t2, -1
    bnez t2, .Lfill\@
.endm

/* s1 = number of zero bytes in block \n of buf. */
.macro COUNT_ZEROS n
    la t0, buf + \n * BLOCK
    li t2, BLOCK
    li s1, 0
.Lcnt\@:
    lbu t1, 0(t0)
    seqz t1, t1
    add s1, s1, t1
    addi t0, t0, 1
    addi t2, t2, -1
    bnez t2, .Lcnt\@
.endm

TEST_BEGIN
    /* An address in the middle of block 1. */
    FILL
    la a0, buf + BLOCK + 13
    CBO_ZERO a0
    COUNT_ZEROS 0
    CHECK_REG s1, 0
    COUNT_ZEROS 1
    CHECK_REG s1, BLOCK
    COUNT_ZEROS 2
    CHECK_REG s1, 0

    /* The last byte of block 2, and the first of block 3. */
    FILL
    la a0, buf + 3 * BLOCK - 1
    CBO_ZERO a0
    COUNT_ZEROS 1
    CHECK_REG s1, 0
    COUNT_ZEROS 2
    CHECK_REG s1, BLOCK
    COUNT_ZEROS 3
    CHECK_REG s1, 0
    FILL
    la a0, buf + 3 * BLOCK
    CBO_ZERO a0
    COUNT_ZEROS 2
    CHECK_REG s1, 0
    COUNT_ZEROS 3
    CHECK_REG s1, BLOCK

    /* Stores after cbo.zero land normally. */
    la a0, buf
    CBO_ZERO a0
    li t0, 0x1122334455667788
    sd t0, 24(a0)
    CHECK_MEM ld, 24, a0, 0x1122334455667788
    CHECK_MEM ld, 16, a0, 0
    CHECK_MEM ld, 32, a0, 0

    /* Clean and flush keep the data. */
    FILL
    la a0, buf + BLOCK + 5
    CBO_CLEAN a0
    CBO_FLUSH a0
    COUNT_ZEROS 1
    CHECK_REG s1, 0

    /* pause is a hint: nothing changes. */
    li a0, 5
    pause
    pause
    CHECK_REG a0, 5
TEST_END

    .data
    .balign BLOCK
buf:
    .space 4 * BLOCK
