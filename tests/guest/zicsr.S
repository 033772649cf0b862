/* Zicsr on the user CSRs: fflags/frm/fcsr through every csrr* form and their aliases, the
 * reserved fcsr bits, and the cycle/time/instret counters. */
#include "check.h"

TEST_BEGIN
    /* csrrw returns the old value and writes the new; fcsr = frm << 5 | fflags. */
    csrrw a0, fcsr, x0
    li a1, 0xe5                         /* frm = 7, fflags = OF | NX */
    csrrw a0, fcsr, a1
    CHECK_REG a0, 0
    csrr a0, fcsr
    CHECK_REG a0, 0xe5
    csrr a0, frm
    CHECK_REG a0, 7
    csrr a0, fflags
    CHECK_REG a0, 0x05
    /* Bits above 7 of fcsr, 3 of frm and 5 of fflags read as zero whatever is written. */
    li a1, -1
    csrw fcsr, a1
    csrr a0, fcsr
    CHECK_REG a0, 0xff
    li a1, 0xfa
    csrw frm, a1
    csrr a0, frm
    CHECK_REG a0, 2
    csrr a0, fcsr
    CHECK_REG a0, 0x5f
    li a1, 0xe3
    csrw fflags, a1
    csrr a0, fflags
    CHECK_REG a0, 0x03
    csrr a0, fcsr
    CHECK_REG a0, 0x43

    /* csrrs / csrrc set and clear bits and return the old value. */
    li a1, 0x10
    csrrs a0, fflags, a1
    CHECK_REG a0, 0x03
    csrr a0, fflags
    CHECK_REG a0, 0x13
    li a1, 0x01
    csrrc a0, fflags, a1
    CHECK_REG a0, 0x13
    csrr a0, fflags
    CHECK_REG a0, 0x12
    /* rs1 = x0 reads without writing. */
    csrrs a0, fcsr, x0
    CHECK_REG a0, 0x52
    csrrc a0, fcsr, x0
    CHECK_REG a0, 0x52

    /* Immediate forms. */
    csrrwi a0, fflags, 0x1f
    CHECK_REG a0, 0x12
    csrrci a0, fflags, 0x0a
    CHECK_REG a0, 0x1f
    csrr a0, fflags
    CHECK_REG a0, 0x15
    csrrsi a0, frm, 0x1
    CHECK_REG a0, 2
    csrr a0, frm
    CHECK_REG a0, 3
    csrrwi a0, frm, 4
    CHECK_REG a0, 3
    csrrci a0, frm, 0
    CHECK_REG a0, 4
    csrrsi a0, fcsr, 0
    CHECK_REG a0, 0x95

    /* The F-extension aliases. */
    fsrm a0, x0
    CHECK_REG a0, 4
    li a1, 1
    fsrm a0, a1
    CHECK_REG a0, 0
    frrm a0
    CHECK_REG a0, 1
    fsflags a0, x0
    CHECK_REG a0, 0x15
    frflags a0
    CHECK_REG a0, 0
    fsrmi a0, 3
    CHECK_REG a0, 1
    fsflagsi a0, 0x8
    CHECK_REG a0, 0
    frcsr a0
    CHECK_REG a0, 0x68
    fscsr a0, x0
    CHECK_REG a0, 0x68
    frcsr a0
    CHECK_REG a0, 0

    /* An FP op accrues flags on top of those already set, and uses frm when rm = dyn. */
    fsflagsi 0x8
    fsrmi 1                             /* rtz */
    li t0, 0x3f800000                   /* 1.0f */
    fmv.w.x fa1, t0
    li t0, 0x40400000                   /* 3.0f */
    fmv.w.x fa2, t0
    fdiv.s fa0, fa1, fa2, dyn
    CHECK_FREG fa0, BOX(0x3eaaaaaa)
    frcsr a0
    CHECK_REG a0, 0x29
    fsrmi 3                             /* rup */
    fdiv.s fa0, fa1, fa2
    CHECK_FREG fa0, BOX(0x3eaaaaab)
    fscsr x0

    /* Writing rd = x0 with csrrw does not read, but still writes. */
    li a1, 0x07
    csrrw x0, fflags, a1
    csrr a0, fflags
    CHECK_REG a0, 0x07
    fscsr x0

    /* Flags that FP arithmetic raises meet every form of fflags access, in one block (translated
     * code keeps them in the host's MXCSR and runs these accesses inline). */
    li t0, 0x3ff0000000000000           /* 1.0 */
    fmv.d.x fa1, t0
    fmv.d.x fa2, x0
    li t0, 0x4008000000000000           /* 3.0 */
    fmv.d.x fa3, t0
    fdiv.d fa0, fa1, fa2                /* DZ */
    frflags a0
    CHECK_REG a0, 0x08
    csrrci a0, fflags, 0x08
    CHECK_REG a0, 0x08
    fdiv.d fa0, fa1, fa3                /* NX */
    csrrsi a0, fflags, 0x10
    CHECK_REG a0, 0x01
    fdiv.d fa0, fa1, fa2
    li a1, 0x3f                         /* bit 5 is not fflags' */
    csrrw a0, fflags, a1
    CHECK_REG a0, 0x19
    li a1, 0x10
    csrrc a0, fflags, a1
    CHECK_REG a0, 0x1f
    fadd.d fa0, fa1, fa1                /* exact: no flag */
    csrrs a0, fflags, x0
    CHECK_REG a0, 0x0f
    frcsr a0
    CHECK_REG a0, 0x0f
    fsflagsi 0x04                       /* OF only: the flags before it are gone */
    fdiv.d fa0, fa1, fa3
    fsflags a0, x0
    CHECK_REG a0, 0x05
    fdiv.d fa0, fa1, fa2
    frflags a0
    CHECK_REG a0, 0x08
    fsflags a0                          /* the flags it already has */
    fdiv.d fa0, fa1, fa3
    frflags a0
    CHECK_REG a0, 0x09
    fscsr x0

    /* libm brackets a signalling compare with frflags and fsflags to make it quiet. Translated code
     * reads MXCSR once for a run of fflags accesses and compares, so one block (no branch) checks
     * that the invalid flag a compare raises in between is still seen, and that fsflags drops it. */
    li t0, 0x3ff0000000000000           /* 1.0 */
    fmv.d.x fa1, t0
    li t0, 0x7ff8000000000000           /* quiet NaN */
    fmv.d.x fa4, t0
    li t0, 0x7ff4000000000000           /* signalling NaN */
    fmv.d.x fa5, t0
    fsflagsi 0x01                       /* NX */
    frflags a2
    flt.d a3, fa4, fa1                  /* NaN: NV, and false */
    frflags a4
    fsflags a2                          /* NX only again */
    fle.d a5, fa1, fa1                  /* ordered: no flag */
    frflags a6
    feq.d a7, fa4, fa4                  /* quiet NaN: no flag for feq */
    frflags t1
    feq.d t2, fa5, fa1                  /* signalling NaN: NV even for feq */
    frflags t3
    fsflags x0
    fle.d t4, fa1, fa4                  /* NV outside a bracket accrues */
    frflags s6
    li t0, 0x20000000000001             /* 2^53 + 1 */
    fcvt.d.l fa6, t0                    /* inexact: NX, from the host without a slow path */
    frflags s7
    CHECK_REG a2, 0x01
    CHECK_REG a3, 0
    CHECK_REG a4, 0x11
    CHECK_REG a5, 1
    CHECK_REG a6, 0x01
    CHECK_REG a7, 0
    CHECK_REG t1, 0x01
    CHECK_REG t2, 0
    CHECK_REG t3, 0x11
    CHECK_REG t4, 0
    CHECK_REG s6, 0x10
    CHECK_REG s7, 0x11
    fscsr x0

    /* Counters: cycle increases, time does not go backwards. */
    rdcycle s0
    rdtime s1
    li t0, 1000
1:  addi t0, t0, -1
    bnez t0, 1b
    rdcycle s2
    rdtime s3
    CHECK_LTU s0, s2
    CHECK_LEU s1, s3
    csrr s4, cycle
    csrr s5, time
    CHECK_LEU s2, s4
    CHECK_LEU s3, s5

    /* instret counts retired instructions exactly. qemu-user reports host ticks for instret, so
     * its reference build checks only that it increases. */
    rdinstret s0
    nop
    nop
    rdinstret s1
#ifdef GUEST_QEMU_REF
    CHECK_LTU s0, s1
#else
    sub a0, s1, s0
    CHECK_REG a0, 3
    rdinstret s0
    rdinstret s1
    sub a0, s1, s0
    CHECK_REG a0, 1
    /* Across a loop: rdinstret, li, and 2 per iteration. */
    rdinstret s0
    li t0, 100
1:  addi t0, t0, -1
    bnez t0, 1b
    rdinstret s1
    sub a0, s1, s0
    CHECK_REG a0, 202
    /* Across a taken branch, a call and a return. */
    rdinstret s0
    j 1f
    nop
1:  call 2f
    rdinstret s1
    sub a0, s1, s0
    CHECK_REG a0, 6                     /* rdinstret, j, auipc, jalr, addi, ret */
    j 3f
2:  addi a0, a0, 1
    ret
3:
#endif
    csrr s2, instret
    CHECK_LTU s1, s2
TEST_END
