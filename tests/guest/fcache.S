/* Translated code keeps copies of double f registers in host registers within a block
 * (jit/x64/translator.cpp, fcache_): a copy must follow every write of its register, by the
 * operations that keep copies, by those that write the hart alone, and by the helper behind a
 * fused op's NaN result, whose C++ also clobbers every other copy, and the hart must have every
 * register a copy alone holds before C++ runs. One block, no branch, then the checks.
 * With AVX an operation computes straight into its rd's copy: in the second part its sources
 * include rd without a copy, and the register of the round robin that holds a source's copy;
 * fmv.d copies a copy. */
#include "check.h"

#define ONE   0x3ff0000000000000
#define TWO   0x4000000000000000
#define THREE 0x4008000000000000
#define PINF  0x7ff0000000000000
#define QNAN  0x7ff8000000000000        /* the canonical NaN */

TEST_BEGIN
    addi sp, sp, -32
    li t0, ONE
    sd t0, 0(sp)
    li t0, PINF
    sd t0, 8(sp)
    fld fa0, 0(sp)                      /* 1.0 */
    fld fa1, 8(sp)                      /* +inf */
    fadd.d fa2, fa0, fa0                /* 2.0 */
    fmsub.d fa3, fa1, fa0, fa1          /* inf * 1 - inf: the helper makes the canonical NaN */
    fadd.d fa4, fa2, fa0                /* 3.0 from copies made before the helper ran */
    fmv.x.d s0, fa4
    fsd fa3, 16(sp)
    ld s1, 16(sp)
    fmv.x.d s2, fa3
    fsgnjn.d fa0, fa0, fa0              /* -1.0, written to the hart alone */
    fadd.d fa5, fa0, fa2                /* 1.0 */
    fmv.x.d s3, fa5
    li t0, 0x40400000                   /* 3.0f */
    fmv.w.x fa2, t0
    fadd.s fa4, fa2, fa2                /* 6.0f over fa4's double */
    fmv.x.d s4, fa4
    li t0, 7
    fcvt.d.l fa5, t0                    /* 7.0 over fa5's */
    fadd.d fa6, fa5, fa5                /* 14.0 */
    fmv.x.d s5, fa6
    flt.d s6, fa0, fa6
    fcvt.l.d s7, fa6, rtz
    li t0, ONE
    fmv.d.x fa6, t0                     /* 1.0 over fa6's */
    fadd.d fa7, fa6, fa6                /* 2.0 */
    fsd fa7, 24(sp)
    ld s8, 24(sp)
    fld fa7, 0(sp)                      /* 1.0 over fa7's */
    fadd.d fa1, fa7, fa7                /* 2.0 */
    fmv.x.d s10, fa1
    fmul.d fa1, fa7, fa4                /* fa4 holds a single: a double op reads its bits */
    fmv.x.d s9, fa1
    CHECK_REG s0, THREE
    CHECK_REG s1, QNAN
    CHECK_REG s2, QNAN
    CHECK_REG s3, ONE
    CHECK_REG s4, 0xffffffff40c00000
    CHECK_REG s5, 0x402c000000000000
    CHECK_REG s6, 1
    CHECK_REG s7, 14
    CHECK_REG s8, TWO
    CHECK_REG s9, QNAN                  /* a boxed single is a NaN as a double: canonical */
    CHECK_REG s10, TWO
    CHECK_FFLAGS 0x10

    /* rd is a source and has no copy: fcvt wrote the hart alone. */
    li t0, 7
    fcvt.d.l fa5, t0
    fsub.d fa5, fa5, fa7                /* 7 - 1 = 6.0 */
    fcvt.d.l fa6, t0
    fdiv.d fa6, fa7, fa6                /* 1.0 / 7.0, rs2 = rd */
    fcvt.d.l fa3, t0
    fsqrt.d fa3, fa3
    fmv.x.d s0, fa5
    fmv.x.d s1, fa6
    fmv.x.d s2, fa3
    /* Fourteen copies (xmm2-xmm15, in order), then an rd without one: the round robin takes the
     * register of ft0's copy, a source. */
    fld ft0, 24(sp)                     /* 2.0, stored for s8 above */
    fld ft1, 0(sp)                      /* 1.0 */
    fld ft2, 0(sp)
    fld ft3, 0(sp)
    fld ft4, 0(sp)
    fld ft5, 0(sp)
    fld ft6, 0(sp)
    fld ft7, 0(sp)
    fld fs0, 0(sp)
    fld fs1, 0(sp)
    fld fs2, 0(sp)
    fld fs3, 0(sp)
    fld fs4, 0(sp)
    fld fs5, 0(sp)
    fsub.d fs6, ft0, ft1                /* 2 - 1 = 1.0 */
    fadd.d fs7, ft0, ft0                /* ft0 from the hart now: 4.0 */
    fmv.x.d s3, fs6
    fmv.x.d s4, fs7
    fmv.x.d s5, ft0
    /* fmv.d moves copy to copy, and writes the hart, where fsgnjn.d reads. */
    fadd.d fs8, ft1, ft1                /* 2.0, in a copy */
    fmv.d fs8, fs7                      /* 4.0 over it */
    fadd.d fs9, fs8, fs6                /* 5.0 */
    fsgnjn.d fs10, fs8, fs8             /* -4.0 */
    fmv.x.d s6, fs9
    fmv.x.d s7, fs10
    CHECK_REG s0, 0x4018000000000000
    CHECK_REG s1, 0x3fc2492492492492
    CHECK_REG s2, 0x40052a7fa9d2f8ea  /* sqrt(7) */
    CHECK_REG s3, ONE
    CHECK_REG s4, 0x4010000000000000
    CHECK_REG s5, TWO
    CHECK_REG s6, 0x4014000000000000
    CHECK_REG s7, 0xc010000000000000
    addi sp, sp, 32
TEST_END
