/* One instruction of each extension `--cpu rv64,EXT=off` can switch off, for the isa_off tests
 * (tests/guest/CMakeLists.txt): `isa_off NAME` runs only NAME's instruction and exits 0, so with
 * NAME's extension off brisk must end it with SIGILL at exactly that instruction. With no
 * argument it runs them all (every one is legal on the default CPU) and checks their results.
 * The program itself uses only RV64I (no C, no FP), so it runs on any --cpu.
 * `inval` runs cbo.inval, which Linux leaves disabled for user space: SIGILL on every CPU.
 * `jalr_ialign` and `branch_ialign` jump to an address 2 mod 4, which is misaligned without C. */
#include "check.h"

/* Each case: its name, then code that ends by jumping to `done`. */
.macro CASE name
    .pushsection .rodata.names, "a"
.Lname\@: .asciz "\name"
    .popsection
    .pushsection .data.cases, "aw"
    .dword .Lname\@, .Lcode\@
    .popsection
    .balign 4               /* 4-byte aligned even after the c case: IALIGN is 32 without C */
.Lcode\@:
.endm

    .pushsection .data.cases, "aw"
    .balign 8
cases:
    .popsection

TEST_BEGIN
    ld t0, 0(sp)            /* argc */
    li t1, 2
    li s0, 0                /* no argument: run every case */
    blt t0, t1, 1f
    ld s0, 16(sp)           /* argv[1] */
1:  la s1, cases
    la s2, cases_end
    li s3, 0                /* cases run */
next:
    bgeu s1, s2, finish
    ld a0, 0(s1)
    ld s4, 8(s1)
    addi s1, s1, 16
    beqz s0, run            /* all of them, except cbo.inval */
    mv a1, s0
    /* strcmp(a0, a1) == 0 ? */
2:  lbu t0, 0(a0)
    lbu t1, 0(a1)
    bne t0, t1, next
    addi a0, a0, 1
    addi a1, a1, 1
    bnez t0, 2b
    j run_one
run:
    la t0, inval_code
    beq s4, t0, next
run_one:
    la a0, buf
    li a1, 6
    li a2, 7
    jr s4
done:
    addi s3, s3, 1
    bnez s0, finish
    j next
finish:
    bnez s0, 3f
    CHECK_REG s3, 16          /* every case but inval ran */
3:  bnez s3, 4f
    CHECK_REG s0, 0           /* an unknown NAME: fail */
4:
TEST_END

    /* a0 = buf, a1 = 6, a2 = 7 on entry to each case. */
CASE m
    mul a0, a1, a2           /* 0x02c58533 */
    CHECK_REG a0, 42
    j done
CASE a
    amoadd.w a3, a1, (a0)    /* 0x00b526af */
    lw a4, 0(a0)
    CHECK_REG a4, 6
    sw zero, 0(a0)
    j done
/* a1 converted to FP with \to and back with \from. */
.macro ROUND_TRIP to, from
    \to fa1, a1
    \from a3, fa1, rtz
    CHECK_REG a3, 6
    j done
.endm
CASE f
    ROUND_TRIP fcvt.s.l, fcvt.l.s  /* fcvt.s.l fa1, a1: 0xd025f5d3 */
CASE fcsr
    frcsr a3                 /* csrrs a3, fcsr, zero: 0x003026f3 */
    j done
CASE d
    ROUND_TRIP fcvt.d.l, fcvt.l.d  /* fcvt.d.l fa1, a1: 0xd225f5d3 */
CASE c
    .option push
    .option rvc
    c.addi a1, 1             /* 0x0585 */
    .option pop
    CHECK_REG a1, 7
    j done
CASE zba
    sh1add a3, a1, a2        /* 0x20c5a6b3 */
    CHECK_REG a3, 19
    j done
CASE zbb
    andn a3, a2, a1          /* 0x40b676b3 */
    CHECK_REG a3, 1
    j done
CASE zbs
    bclr a3, a2, zero        /* 0x480616b3 */
    CHECK_REG a3, 6
    j done
CASE zicond
#ifdef GUEST_QEMU_REF
    mv a3, a1                /* QEMU 7.2 lacks Zicond */
#else
    .word 0x0ec5d6b3         /* czero.eqz a3, a1, a2 (binutils 2.40 lacks Zicond) */
#endif
    CHECK_REG a3, 6
    j done
CASE zicbom
#ifndef GUEST_QEMU_REF       /* QEMU 7.2 lacks Zicbom and Zicboz */
    cbo.flush (a0)           /* 0x0025200f */
#endif
    j done
CASE zicboz
    li t0, -1
    sd t0, 8(a0)
#ifdef GUEST_QEMU_REF
    sd zero, 8(a0)
#else
    cbo.zero (a0)            /* 0x0045200f */
#endif
    ld a3, 8(a0)
    CHECK_REG a3, 0
    j done
CASE zifencei
    fence.i                  /* 0x0000100f */
    j done
CASE zicsr
    csrr a3, cycle           /* 0xc00026f3 */
    j done
/* Jumps to an address that is 2 mod 4: legal with C, instruction-address-misaligned on the jump
 * without it (IALIGN = 32). */
CASE jalr_ialign
    la t0, .Ljalr_target
    jr t0
    .half 0x0001             /* c.nop, jumped over */
.Ljalr_target:
    j done
CASE branch_ialign
    beq zero, zero, .Lbranch_target
    .half 0x0001
.Lbranch_target:
    j done
inval_code:
CASE inval
    cbo.inval (a0)           /* 0x0005200f */
    j done

    .pushsection .data.cases, "aw"
cases_end:
    .popsection
    .bss
    .balign 64
buf: .skip 64
