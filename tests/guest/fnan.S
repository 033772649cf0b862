/* Translated code leaves the NaN check of a double op to the next op when that one reads its
 * result (jit/x64/translator.cpp, defers_nan_check): a NaN there makes the next result NaN too,
 * whose out-of-line path then makes the first one canonical. The first three pairs below are such pairs
 * (with an integer op between the first, which the check looks past), the fourth is not; each
 * register is read back from its copy (fmv.x.d) and through memory (fsd). Last, a deferred
 * result whose copy the next op's rd takes. */
#include "check.h"

#define ZERO  0x0000000000000000
#define ONE   0x3ff0000000000000
#define TWO   0x4000000000000000
#define PINF  0x7ff0000000000000
#define QNAN  0x7ff8000000000000        /* the canonical NaN */
#define QNANP 0x7ff8000000012345        /* a quiet NaN with a payload x86 would carry on */

TEST_BEGIN
    addi sp, sp, -64
    __fp_load d, fa0, ONE
    __fp_load d, fa1, PINF
    __fp_load d, fa2, QNANP
    /* inf - inf (invalid: x86's NaN is negative), then read by the next op, into another rd. */
    fsub.d fa3, fa1, fa1
    addi t1, zero, 1
    fadd.d fa4, fa3, fa0
    /* A payload NaN carried through, then read by an op that writes the same register. */
    fmul.d fa5, fa2, fa0
    fmul.d fa5, fa5, fa0
    /* A number, then an op that makes a NaN of it on its own (0 * inf): the number stays. */
    fsub.d fa6, fa0, fa0
    fmul.d fa7, fa6, fa1
    /* A NaN the next op does not read: checked on its own. */
    fsub.d ft0, fa1, fa1
    fadd.d ft1, fa0, fa0
    fmv.x.d s5, ft0
    fmv.x.d s6, ft1
    fsd fa3, 24(sp)
    fsd fa4, 32(sp)
    fsd fa5, 40(sp)
    fsd fa6, 48(sp)
    fsd fa7, 56(sp)
    fmv.x.d s0, fa3
    fmv.x.d s1, fa4
    fmv.x.d s2, fa5
    fmv.x.d s3, fa6
    fmv.x.d s4, fa7
    CHECK_REG s0, QNAN
    CHECK_REG s1, QNAN
    CHECK_REG s2, QNAN
    CHECK_REG s3, ZERO
    CHECK_REG s4, QNAN
    CHECK_REG s5, QNAN
    CHECK_REG s6, TWO
    CHECK_MEM ld, 24, sp, QNAN
    CHECK_MEM ld, 32, sp, QNAN
    CHECK_MEM ld, 40, sp, QNAN
    CHECK_MEM ld, 48, sp, ZERO
    CHECK_MEM ld, 56, sp, QNAN
    CHECK_REG t1, 1
    CHECK_FFLAGS 0x10                   /* invalid, from inf - inf and 0 * inf */

    /* A deferred NaN whose copy the next op's rd takes: fourteen fld fill the fourteen copies from
     * a block's start, so the round robin comes back to fa0's, which fadd.d takes for fa2 after
     * fsub.d made fa0 x86's NaN; fa0 then lives in the hart alone, where it must be canonical. */
    li t0, PINF
    sd t0, 0(sp)
    j 1f
1:  fld fa0, 0(sp)
    fld fa1, 0(sp)
    fld fa3, 0(sp)
    fld fa4, 0(sp)
    fld fa5, 0(sp)
    fld fa6, 0(sp)
    fld fa7, 0(sp)
    fld ft0, 0(sp)
    fld ft1, 0(sp)
    fld ft2, 0(sp)
    fld ft3, 0(sp)
    fld ft4, 0(sp)
    fld ft5, 0(sp)
    fld ft6, 0(sp)
    fsub.d fa0, fa1, fa1                /* inf - inf, checked by the next op */
    fadd.d fa2, fa0, fa1
    fmv.x.d s0, fa0
    fmv.x.d s1, fa2
    CHECK_REG s0, QNAN
    CHECK_REG s1, QNAN
    addi sp, sp, 64
TEST_END
