/* Shared macros for the self-checking assembly guest programs.
 *
 * A program is   #include "check.h"   TEST_BEGIN   <checks>   TEST_END.
 * It exits 0 when every check holds. The first failing check prints
 *   FAIL <source>: check #N (<what>): expected 0x..., got 0x...
 * to stderr and exits with status N (255 if N > 255).
 *
 * The macros use t5 and t6 as scratch, so checked values must not live there.
 * TEST_RR/TEST_RI/TEST_R compute in a0 from a1, a2; FP tests use fa0..fa3.
 */
#ifndef GUEST_CHECK_H
#define GUEST_CHECK_H

#define SYS_write 64
#define SYS_exit 93
#define SYS_mmap 222
#define PROT_RWX 7
#define MAP_PRIVATE_ANON 0x22
#define MAP_FIXED 0x10

/* fflags bits */
#define FF_NX 0x01
#define FF_UF 0x02
#define FF_OF 0x04
#define FF_DZ 0x08
#define FF_NV 0x10

/* Single-precision results are checked as 64-bit register images: a correct result is NaN-boxed. */
#define BOX(x) (0xffffffff00000000 | (x))

.macro TEST_BEGIN
    .text
    .globl _start
_start:
    .set __check_n, 0
.endm

/* Exit 0, then the shared failure reporter. */
.macro TEST_END
    li a0, 0
    li a7, SYS_exit
    ecall
__check_fail_impl
.endm

/* Jumps to the reporter with a2 = \exp and a3 = \got, whichever registers those are. */
.macro __ck_report got, exp, what
    .ifc \exp, a3
    .ifc \got, a2
    mv t5, a2
    mv a2, a3
    mv a3, t5
    .else
    mv a2, a3
    mv a3, \got
    .endif
    .else
    mv a3, \got
    mv a2, \exp
    .endif
    li a0, __check_n
    la a1, .Lck_what\@
    j __check_fail
    .pushsection .rodata.check, "a"
.Lck_what\@: .asciz "\what"
    .popsection
.endm

/* Branches to the reporter unless \got == \exp (both registers); \what names the check. */
.macro __check_eq got, exp, what
    .set __check_n, __check_n + 1
    beq \got, \exp, .Lck_ok\@
    __ck_report \got, \exp, "\what"
.Lck_ok\@:
.endm

.macro CHECK_REG reg, expected
    .ifc \reg, t6
    li t5, \expected
    __check_eq \reg, t5, "\reg == \expected"
    .else
    li t6, \expected
    __check_eq \reg, t6, "\reg == \expected"
    .endif
.endm

.macro CHECK_EQ reg, reg2
    __check_eq \reg, \reg2, "\reg == \reg2"
.endm

/* Checks \lo < \hi (unsigned); reports got=\hi, expected=\lo. */
.macro CHECK_LTU lo, hi
    .set __check_n, __check_n + 1
    bltu \lo, \hi, .Lck_ok\@
    __ck_report \hi, \lo, "\lo <u \hi"
.Lck_ok\@:
.endm

/* Checks \lo <= \hi (unsigned). */
.macro CHECK_LEU lo, hi
    .set __check_n, __check_n + 1
    bgeu \hi, \lo, .Lck_ok\@
    __ck_report \hi, \lo, "\lo <=u \hi"
.Lck_ok\@:
.endm

/* a0 = mmap(\addr, \len, PROT_RWX, \flags, -1, 0) for code the program writes. */
.macro MMAP_RWX addr, len, flags
    mv a0, \addr
    li a1, \len
    li a2, PROT_RWX
    li a3, \flags
    li a4, -1
    li a5, 0
    li a7, SYS_mmap
    ecall
.endm

/* Memory checks: load with \load from \off(\base), compare with \expected. */
.macro CHECK_MEM load, off, base, expected
    \load t5, \off(\base)
    li t6, \expected
    __check_eq t5, t6, "\load \off(\base) == \expected"
.endm

/* Whole 64-bit image of an FP register (so single results must be NaN-boxed). */
.macro CHECK_FREG freg, expected
    fmv.x.d t5, \freg
    li t6, \expected
    __check_eq t5, t6, "\freg bits == \expected"
.endm

.macro CHECK_FFLAGS expected
    frflags t5
    li t6, \expected
    __check_eq t5, t6, "fflags == \expected"
.endm

/* Integer ALU: a0 = \op(a1, a2) / (a1, imm) / (a1). */
.macro TEST_RR op, result, a, b
    li a1, \a
    li a2, \b
    \op a0, a1, a2
    li t6, \result
    __check_eq a0, t6, "\op \a, \b -> \result"
.endm

.macro TEST_RI op, result, a, imm
    li a1, \a
    \op a0, a1, \imm
    li t6, \result
    __check_eq a0, t6, "\op \a, \imm -> \result"
.endm

.macro TEST_R op, result, a
    li a1, \a
    \op a0, a1
    li t6, \result
    __check_eq a0, t6, "\op \a -> \result"
.endm

/* FP operands are given as bit patterns; \w is s or d. A blank \rm omits the operand. */
.macro __fp_load w, freg, bits
    li t5, \bits
    .ifc \w, s
    fmv.w.x \freg, t5
    .else
    fmv.d.x \freg, t5
    .endif
.endm

.macro __fp_check w, result, flags, what
    fmv.x.d t5, fa0
    .ifc \w, s
    li t6, BOX(\result)
    .else
    li t6, \result
    .endif
    __check_eq t5, t6, "\what -> \result"
    frflags t5
    li t6, \flags
    __check_eq t5, t6, "\what: fflags == \flags"
.endm

/* Integer-result FP ops (compare, classify, fp->int): checks a0 and fflags. */
.macro __fp_check_x result, flags, what
    li t6, \result
    __check_eq a0, t6, "\what -> \result"
    frflags t5
    li t6, \flags
    __check_eq t5, t6, "\what: fflags == \flags"
.endm

/* fa0 = \op(fa1) */
.macro TEST_FP_R w, op, rm, result, flags, a
    __fp_load \w, fa1, \a
    fsflags x0
    .ifb \rm
    \op fa0, fa1
    .else
    \op fa0, fa1, \rm
    .endif
    __fp_check \w, \result, \flags, "\op \a \rm"
.endm

/* fa0 = \op(fa1, fa2) */
.macro TEST_FP_RR w, op, rm, result, flags, a, b
    __fp_load \w, fa1, \a
    __fp_load \w, fa2, \b
    fsflags x0
    .ifb \rm
    \op fa0, fa1, fa2
    .else
    \op fa0, fa1, fa2, \rm
    .endif
    __fp_check \w, \result, \flags, "\op \a, \b \rm"
.endm

/* fa0 = \op(fa1, fa2, fa3) */
.macro TEST_FP_RRR w, op, rm, result, flags, a, b, c
    __fp_load \w, fa1, \a
    __fp_load \w, fa2, \b
    __fp_load \w, fa3, \c
    fsflags x0
    .ifb \rm
    \op fa0, fa1, fa2, fa3
    .else
    \op fa0, fa1, fa2, fa3, \rm
    .endif
    __fp_check \w, \result, \flags, "\op \a, \b, \c \rm"
.endm

/* a0 = \op(fa1, fa2): feq/flt/fle */
.macro TEST_FP_CMP w, op, result, flags, a, b
    __fp_load \w, fa1, \a
    __fp_load \w, fa2, \b
    fsflags x0
    \op a0, fa1, fa2
    __fp_check_x \result, \flags, "\op \a, \b"
.endm

/* a0 = \op(fa1): fclass, fcvt.{w,wu,l,lu}.{s,d}, fmv.x.{w,d}; \w is the source format */
.macro TEST_FP_TO_X w, op, rm, result, flags, a
    __fp_load \w, fa1, \a
    fsflags x0
    .ifb \rm
    \op a0, fa1
    .else
    \op a0, fa1, \rm
    .endif
    __fp_check_x \result, \flags, "\op \a \rm"
.endm

/* fa0 = \op(a1): fcvt.{s,d}.{w,wu,l,lu}; \w is the result format */
.macro TEST_X_TO_FP w, op, rm, result, flags, a
    li a1, \a
    fsflags x0
    .ifb \rm
    \op fa0, a1
    .else
    \op fa0, a1, \rm
    .endif
    __fp_check \w, \result, \flags, "\op \a \rm"
.endm

/* fcvt.s.d / fcvt.d.s: source format \src, result format \w */
.macro TEST_FP_CVT w, src, op, rm, result, flags, a
    __fp_load \src, fa1, \a
    fsflags x0
    .ifb \rm
    \op fa0, fa1
    .else
    \op fa0, fa1, \rm
    .endif
    __fp_check \w, \result, \flags, "\op \a \rm"
.endm

/* Reporter: a0 = check number, a1 = description, a2 = expected, a3 = got.
 * Uses base RV64I only so it works while the extension under test is broken. */
.macro __check_fail_impl
__check_fail:
    mv s2, a0
    mv s3, a1
    mv s4, a2
    mv s5, a3
    addi sp, sp, -512
    andi sp, sp, -16
    mv s1, sp
    la a0, .Lck_s_fail
    jal __ck_puts
    la a0, .Lck_s_file
    jal __ck_puts
    la a0, .Lck_s_check
    jal __ck_puts
    mv a0, s2
    jal __ck_dec
    la a0, .Lck_s_open
    jal __ck_puts
    mv a0, s3
    jal __ck_puts
    la a0, .Lck_s_exp
    jal __ck_puts
    mv a0, s4
    jal __ck_hex
    la a0, .Lck_s_got
    jal __ck_puts
    mv a0, s5
    jal __ck_hex
    li t0, 10               /* newline */
    sb t0, 0(s1)
    addi s1, s1, 1
    li a0, 2
    mv a1, sp
    sub a2, s1, sp
    li a7, SYS_write
    ecall
    li a0, 255
    bltu s2, a0, 1f
    mv s2, a0
1:  mv a0, s2
    li a7, SYS_exit
    ecall

/* Appends the NUL-terminated string at a0 to the buffer at s1. */
__ck_puts:
    lbu t0, 0(a0)
    beqz t0, 1f
    sb t0, 0(s1)
    addi a0, a0, 1
    addi s1, s1, 1
    j __ck_puts
1:  ret

/* Appends a0 as 16 hex digits. */
__ck_hex:
    li t1, 60
    li t2, 10
1:  srl t0, a0, t1
    andi t0, t0, 15
    blt t0, t2, 2f
    addi t0, t0, 39         /* 'a' - '0' - 10 */
2:  addi t0, t0, 48         /* '0' */
    sb t0, 0(s1)
    addi s1, s1, 1
    addi t1, t1, -4
    bgez t1, 1b
    ret

/* Appends a0 (< 100000) in decimal, by repeated subtraction so that it needs no M. */
__ck_dec:
    la t3, .Lck_pow10
    li t4, 0                /* set once a non-zero digit was written */
1:  ld t1, 0(t3)
    beqz t1, 4f
    li t0, 0
2:  bltu a0, t1, 3f
    sub a0, a0, t1
    addi t0, t0, 1
    j 2b
3:  addi t3, t3, 8
    or t4, t4, t0
    li t2, 1
    beq t1, t2, 5f          /* always write the units digit */
    beqz t4, 1b
5:  addi t0, t0, 48
    sb t0, 0(s1)
    addi s1, s1, 1
    j 1b
4:  ret

    .pushsection .rodata.check, "a"
.Lck_s_fail:  .asciz "FAIL "
.Lck_s_file:  .asciz __BASE_FILE__
.Lck_s_check: .asciz ": check #"
.Lck_s_open:  .asciz " ("
.Lck_s_exp:   .asciz "): expected 0x"
.Lck_s_got:   .asciz ", got 0x"
    .balign 8
.Lck_pow10:   .dword 10000, 1000, 100, 10, 1, 0
    .popsection
.endm

#endif
