/* F extension (single precision): arithmetic in every rounding mode, exact fflags, NaN
 * canonicalisation, NaN-boxing of inputs and results, min/max, compares, classify, fused
 * multiply-add, sqrt, sign injection, moves, loads and stores. */
#include "check.h"

#define PZERO 0x00000000
#define NZERO 0x80000000
#define ONE   0x3f800000
#define NONE  0xbf800000
#define TWO   0x40000000
#define THREE 0x40400000
#define HALF  0x3f000000
#define PINF  0x7f800000
#define NINF  0xff800000
#define QNAN  0x7fc00000                /* the canonical NaN */
#define QNANP 0x7fc12345                /* quiet, with a payload */
#define NQNAN 0xffc00000
#define SNAN  0x7f800001
#define MAXF  0x7f7fffff
#define NMAXF 0xff7fffff
#define MINN  0x00800000                /* smallest normal */
#define MAXS  0x007fffff                /* largest subnormal */
#define MINS  0x00000001                /* smallest subnormal */
#define ULP1  0x3f800001                /* 1 + 2^-23 */
#define EPSH  0x33800000                /* 2^-24, half an ulp of 1 */

/* Whole 64-bit register images, for inputs that are not properly NaN-boxed. */
.macro TEST_RAW op, result, flags, a, b
    li t5, \a
    fmv.d.x fa1, t5
    li t5, \b
    fmv.d.x fa2, t5
    fsflags x0
    \op fa0, fa1, fa2
    __fp_check d, \result, \flags, "\op raw \a, \b"
.endm

TEST_BEGIN
    /* Additions in each rounding mode, including ties. */
    TEST_FP_RR s, fadd.s, rne, THREE, 0, ONE, TWO
    TEST_FP_RR s, fadd.s, rne, ONE,  FF_NX, ONE, EPSH
    TEST_FP_RR s, fadd.s, rtz, ONE,  FF_NX, ONE, EPSH
    TEST_FP_RR s, fadd.s, rdn, ONE,  FF_NX, ONE, EPSH
    TEST_FP_RR s, fadd.s, rup, ULP1, FF_NX, ONE, EPSH
    TEST_FP_RR s, fadd.s, rmm, ULP1, FF_NX, ONE, EPSH
    TEST_FP_RR s, fadd.s, rne, NONE,       FF_NX, NONE, 0xb3800000
    TEST_FP_RR s, fadd.s, rtz, NONE,       FF_NX, NONE, 0xb3800000
    TEST_FP_RR s, fadd.s, rdn, 0xbf800001, FF_NX, NONE, 0xb3800000
    TEST_FP_RR s, fadd.s, rup, NONE,       FF_NX, NONE, 0xb3800000
    TEST_FP_RR s, fadd.s, rmm, 0xbf800001, FF_NX, NONE, 0xb3800000
    TEST_FP_RR s, fadd.s, rne, 0x3f800002, FF_NX, ULP1, EPSH      /* tie to even goes up */
    TEST_FP_RR s, fadd.s, rtz, ULP1,       FF_NX, ULP1, EPSH
    TEST_FP_RR s, fadd.s, rmm, 0x3f800002, FF_NX, ULP1, EPSH
    /* Exact zero sums are +0 except when rounding down. */
    TEST_FP_RR s, fadd.s, rne, PZERO, 0, ONE, NONE
    TEST_FP_RR s, fadd.s, rdn, NZERO, 0, ONE, NONE
    TEST_FP_RR s, fadd.s, rne, PZERO, 0, PZERO, NZERO
    TEST_FP_RR s, fadd.s, rdn, NZERO, 0, PZERO, NZERO
    TEST_FP_RR s, fadd.s, rup, NZERO, 0, NZERO, NZERO
    /* Overflow: to infinity or to the largest finite value, by rounding mode. */
    TEST_FP_RR s, fadd.s, rne, PINF,  FF_OF | FF_NX, MAXF, MAXF
    TEST_FP_RR s, fadd.s, rtz, MAXF,  FF_OF | FF_NX, MAXF, MAXF
    TEST_FP_RR s, fadd.s, rdn, MAXF,  FF_OF | FF_NX, MAXF, MAXF
    TEST_FP_RR s, fadd.s, rup, PINF,  FF_OF | FF_NX, MAXF, MAXF
    TEST_FP_RR s, fadd.s, rmm, PINF,  FF_OF | FF_NX, MAXF, MAXF
    TEST_FP_RR s, fadd.s, rup, NMAXF, FF_OF | FF_NX, NMAXF, NMAXF
    TEST_FP_RR s, fadd.s, rdn, NINF,  FF_OF | FF_NX, NMAXF, NMAXF
    /* Infinities and NaNs: results are the canonical NaN; only signalling NaNs raise NV. */
    TEST_FP_RR s, fadd.s, rne, QNAN, FF_NV, PINF, NINF
    TEST_FP_RR s, fadd.s, rne, PINF, 0, PINF, ONE
    TEST_FP_RR s, fadd.s, rne, QNAN, 0, QNANP, ONE
    TEST_FP_RR s, fadd.s, rne, QNAN, 0, ONE, NQNAN
    TEST_FP_RR s, fadd.s, rne, QNAN, FF_NV, SNAN, ONE
    TEST_FP_RR s, fadd.s, rne, QNAN, FF_NV, QNAN, SNAN
    TEST_FP_RR s, fsub.s, rne, TWO, 0, THREE, ONE
    TEST_FP_RR s, fsub.s, rne, PZERO, 0, THREE, THREE
    TEST_FP_RR s, fsub.s, rdn, NZERO, 0, THREE, THREE
    TEST_FP_RR s, fsub.s, rne, QNAN, FF_NV, PINF, PINF
    TEST_FP_RR s, fsub.s, rne, NINF, 0, NINF, PINF

    /* Multiplication, underflow and tininess (detected after rounding). */
    TEST_FP_RR s, fmul.s, rne, 0x40c00000, 0, TWO, THREE
    TEST_FP_RR s, fmul.s, rne, NZERO, 0, NONE, PZERO
    TEST_FP_RR s, fmul.s, rne, QNAN, FF_NV, PINF, PZERO
    TEST_FP_RR s, fmul.s, rne, NINF, 0, PINF, NONE
    TEST_FP_RR s, fmul.s, rne, 0x00400000, 0, MINN, HALF                  /* exact subnormal */
    TEST_FP_RR s, fmul.s, rne, PZERO, FF_UF | FF_NX, MINS, HALF           /* tie to even: 0 */
    TEST_FP_RR s, fmul.s, rup, MINS,  FF_UF | FF_NX, MINS, HALF
    TEST_FP_RR s, fmul.s, rmm, MINS,  FF_UF | FF_NX, MINS, HALF
    TEST_FP_RR s, fmul.s, rdn, 0x80000001, FF_UF | FF_NX, 0x80000001, HALF
    TEST_FP_RR s, fmul.s, rtz, NZERO, FF_UF | FF_NX, 0x80000001, HALF
    TEST_FP_RR s, fmul.s, rne, 0x00400000, FF_UF | FF_NX, 0x00800001, HALF
    TEST_FP_RR s, fmul.s, rmm, 0x00400001, FF_UF | FF_NX, 0x00800001, HALF
    /* 2^-126 - 2^-150 rounds up to the smallest normal, yet is tiny even after rounding. */
    TEST_FP_RR s, fmul.s, rne, MINN, FF_UF | FF_NX, 0x3f7fffff, MINN
    TEST_FP_RR s, fmul.s, rtz, MAXS, FF_UF | FF_NX, 0x3f7fffff, MINN
    TEST_FP_RR s, fmul.s, rne, PINF, FF_OF | FF_NX, MAXF, TWO

    /* Division. */
    TEST_FP_RR s, fdiv.s, rne, 0x3eaaaaab, FF_NX, ONE, THREE
    TEST_FP_RR s, fdiv.s, rtz, 0x3eaaaaaa, FF_NX, ONE, THREE
    TEST_FP_RR s, fdiv.s, rdn, 0x3eaaaaaa, FF_NX, ONE, THREE
    TEST_FP_RR s, fdiv.s, rup, 0x3eaaaaab, FF_NX, ONE, THREE
    TEST_FP_RR s, fdiv.s, rdn, 0xbeaaaaab, FF_NX, NONE, THREE
    TEST_FP_RR s, fdiv.s, rne, TWO, 0, 0x40c00000, THREE
    TEST_FP_RR s, fdiv.s, rne, PINF, FF_DZ, ONE, PZERO
    TEST_FP_RR s, fdiv.s, rne, NINF, FF_DZ, ONE, NZERO
    TEST_FP_RR s, fdiv.s, rne, NINF, FF_DZ, NONE, PZERO
    TEST_FP_RR s, fdiv.s, rne, QNAN, FF_NV, PZERO, PZERO
    TEST_FP_RR s, fdiv.s, rne, QNAN, FF_NV, PINF, NINF
    TEST_FP_RR s, fdiv.s, rne, PINF, 0, PINF, PZERO                       /* no DZ */
    TEST_FP_RR s, fdiv.s, rne, NZERO, 0, NONE, PINF

    /* Square root. */
    TEST_FP_R s, fsqrt.s, rne, TWO, 0, 0x40800000
    TEST_FP_R s, fsqrt.s, rne, 0x3fb504f3, FF_NX, TWO
    TEST_FP_R s, fsqrt.s, rup, 0x3fb504f4, FF_NX, TWO
    TEST_FP_R s, fsqrt.s, rne, QNAN, FF_NV, NONE
    TEST_FP_R s, fsqrt.s, rne, NZERO, 0, NZERO
    TEST_FP_R s, fsqrt.s, rne, PINF, 0, PINF
    TEST_FP_R s, fsqrt.s, rne, QNAN, FF_NV, NINF
    TEST_FP_R s, fsqrt.s, rne, QNAN, 0, QNANP
    TEST_FP_R s, fsqrt.s, rne, QNAN, FF_NV, SNAN

    /* Fused multiply-add: one rounding, signs of each form, invalid cases. */
    TEST_FP_RRR s, fmadd.s,  rne, 0x40e00000, 0, TWO, THREE, ONE
    TEST_FP_RRR s, fmsub.s,  rne, 0x40a00000, 0, TWO, THREE, ONE
    TEST_FP_RRR s, fnmsub.s, rne, 0xc0a00000, 0, TWO, THREE, ONE
    TEST_FP_RRR s, fnmadd.s, rne, 0xc0e00000, 0, TWO, THREE, ONE
    TEST_FP_RRR s, fmadd.s,  rne, 0xa8800000, 0, ULP1, 0x3f7ffffe, NONE   /* -2^-46 exactly */
    TEST_FP_RRR s, fmadd.s,  rne, QNAN, FF_NV, PINF, PZERO, QNAN          /* inf * 0 + qNaN */
    TEST_FP_RRR s, fmadd.s,  rne, QNAN, FF_NV, PZERO, NINF, ONE
    TEST_FP_RRR s, fmadd.s,  rne, QNAN, FF_NV, PINF, ONE, NINF
    TEST_FP_RRR s, fmadd.s,  rne, QNAN, FF_NV, ONE, ONE, SNAN
    TEST_FP_RRR s, fmadd.s,  rne, QNAN, 0, ONE, QNANP, ONE
    TEST_FP_RRR s, fmadd.s,  rne, PZERO, 0, ONE, NZERO, PZERO
    TEST_FP_RRR s, fmadd.s,  rdn, NZERO, 0, ONE, NZERO, PZERO
    TEST_FP_RRR s, fnmadd.s, rne, NZERO, 0, ONE, PZERO, PZERO
    TEST_FP_RRR s, fnmsub.s, rne, PZERO, 0, ONE, PZERO, PZERO
    TEST_FP_RRR s, fmadd.s,  rne, PINF, FF_OF | FF_NX, MAXF, TWO, NONE
    TEST_FP_RRR s, fmadd.s,  rmm, 0x3f800001, FF_NX, ONE, ONE, EPSH
    /* Tiny before rounding but not after: no UF. */
    TEST_FP_RRR s, fmadd.s,  rne, MINN, FF_NX, 0x3f7ffffe, 0x00800002, 0x80000001

    /* fmin/fmax: -0 < +0, a single NaN operand is ignored, sNaN raises NV. */
    TEST_FP_RR s, fmin.s, , ONE, 0, ONE, TWO
    TEST_FP_RR s, fmax.s, , TWO, 0, ONE, TWO
    TEST_FP_RR s, fmin.s, , NONE, 0, ONE, NONE
    TEST_FP_RR s, fmin.s, , NZERO, 0, PZERO, NZERO
    TEST_FP_RR s, fmin.s, , NZERO, 0, NZERO, PZERO
    TEST_FP_RR s, fmax.s, , PZERO, 0, NZERO, PZERO
    TEST_FP_RR s, fmax.s, , PZERO, 0, PZERO, NZERO
    TEST_FP_RR s, fmin.s, , ONE, 0, QNAN, ONE
    TEST_FP_RR s, fmin.s, , ONE, 0, ONE, QNANP
    TEST_FP_RR s, fmax.s, , NINF, 0, NQNAN, NINF
    TEST_FP_RR s, fmin.s, , ONE, FF_NV, SNAN, ONE
    TEST_FP_RR s, fmax.s, , ONE, FF_NV, ONE, SNAN
    TEST_FP_RR s, fmin.s, , QNAN, 0, QNANP, NQNAN
    TEST_FP_RR s, fmax.s, , QNAN, FF_NV, SNAN, QNANP
    TEST_FP_RR s, fmin.s, , NINF, 0, NINF, MAXF
    TEST_FP_RR s, fmax.s, , PINF, 0, NINF, PINF

    /* Compares: feq is quiet (NV only for sNaN), flt/fle signal on any NaN. */
    TEST_FP_CMP s, feq.s, 1, 0, ONE, ONE
    TEST_FP_CMP s, feq.s, 0, 0, ONE, TWO
    TEST_FP_CMP s, feq.s, 1, 0, NZERO, PZERO
    TEST_FP_CMP s, feq.s, 0, 0, QNAN, QNAN
    TEST_FP_CMP s, feq.s, 0, 0, ONE, QNANP
    TEST_FP_CMP s, feq.s, 0, FF_NV, SNAN, ONE
    TEST_FP_CMP s, flt.s, 1, 0, ONE, TWO
    TEST_FP_CMP s, flt.s, 0, 0, TWO, ONE
    TEST_FP_CMP s, flt.s, 0, 0, ONE, ONE
    TEST_FP_CMP s, flt.s, 0, 0, NZERO, PZERO
    TEST_FP_CMP s, flt.s, 1, 0, NINF, PINF
    TEST_FP_CMP s, flt.s, 1, 0, NONE, MINS
    TEST_FP_CMP s, flt.s, 0, FF_NV, QNAN, ONE
    TEST_FP_CMP s, flt.s, 0, FF_NV, ONE, SNAN
    TEST_FP_CMP s, fle.s, 1, 0, ONE, ONE
    TEST_FP_CMP s, fle.s, 1, 0, PZERO, NZERO
    TEST_FP_CMP s, fle.s, 0, 0, TWO, ONE
    TEST_FP_CMP s, fle.s, 0, FF_NV, ONE, QNAN
    TEST_FP_CMP s, fle.s, 0, FF_NV, SNAN, SNAN

    /* fclass: one bit per class; never sets flags. */
    TEST_FP_TO_X s, fclass.s, , 0x001, 0, NINF
    TEST_FP_TO_X s, fclass.s, , 0x002, 0, NONE
    TEST_FP_TO_X s, fclass.s, , 0x004, 0, 0x807fffff
    TEST_FP_TO_X s, fclass.s, , 0x008, 0, NZERO
    TEST_FP_TO_X s, fclass.s, , 0x010, 0, PZERO
    TEST_FP_TO_X s, fclass.s, , 0x020, 0, MINS
    TEST_FP_TO_X s, fclass.s, , 0x040, 0, MINN
    TEST_FP_TO_X s, fclass.s, , 0x080, 0, PINF
    TEST_FP_TO_X s, fclass.s, , 0x100, 0, SNAN
    TEST_FP_TO_X s, fclass.s, , 0x100, 0, 0xffbfffff
    TEST_FP_TO_X s, fclass.s, , 0x200, 0, QNAN
    TEST_FP_TO_X s, fclass.s, , 0x200, 0, NQNAN

    /* Sign injection copies NaNs untouched and raises nothing. */
    TEST_FP_RR s, fsgnj.s, , NONE, 0, ONE, NONE
    TEST_FP_RR s, fsgnj.s, , ONE, 0, NONE, TWO
    TEST_FP_RR s, fsgnjn.s, , ONE, 0, ONE, NONE
    TEST_FP_RR s, fsgnjn.s, , NONE, 0, ONE, TWO
    TEST_FP_RR s, fsgnjx.s, , ONE, 0, NONE, NONE
    TEST_FP_RR s, fsgnjx.s, , NONE, 0, NONE, TWO
    TEST_FP_RR s, fsgnj.s, , 0xff800001, 0, SNAN, NONE
    TEST_FP_RR s, fsgnjn.s, , 0xffc12345, 0, QNANP, QNANP
    TEST_FP_RR s, fsgnjx.s, , PZERO, 0, NZERO, NZERO

    /* Inputs that are not NaN-boxed read as the canonical NaN; transfers ignore the upper half. */
    TEST_RAW fadd.s, BOX(QNAN), 0, 0x000000003f800000, BOX(ONE)
    TEST_RAW fadd.s, BOX(QNAN), 0, BOX(ONE), 0xfffffffe3f800000
    TEST_RAW fmul.s, BOX(QNAN), 0, 0x7ff0000000000000, BOX(ONE)
    TEST_RAW fsgnj.s, BOX(QNAN), 0, 0x123456783f800000, 0x123456783f800000
    TEST_RAW fsgnjn.s, BOX(NQNAN), 0, 0x123456783f800000, 0x123456783f800000
    TEST_RAW fsgnj.s, BOX(ONE), 0, BOX(NONE), 0x00000000bf800000
    TEST_RAW fsgnj.s, BOX(NQNAN), 0, 0x3ff0000000000000, BOX(NONE)
    TEST_RAW fmin.s, BOX(ONE), 0, 0x3ff0000000000000, BOX(ONE)
    TEST_RAW fadd.d, 0x4000000000000000, 0, 0x3ff0000000000000, 0x3ff0000000000000
    li t5, 0x12345678bf800000
    fmv.d.x fa1, t5
    fmv.x.w a0, fa1
    CHECK_REG a0, 0xffffffffbf800000
    fclass.s a0, fa1
    CHECK_REG a0, 0x200
    feq.s a0, fa1, fa1
    CHECK_REG a0, 0
    la s0, buf
    sd x0, 0(s0)
    fsw fa1, 0(s0)
    CHECK_MEM ld, 0, s0, 0xbf800000

    /* Moves: fmv.x.w sign-extends bit 31; fmv.w.x boxes; neither touches NaN payloads. */
    TEST_FP_TO_X s, fmv.x.w, , 0xffffffff80000000, 0, NZERO
    TEST_FP_TO_X s, fmv.x.w, , 0x7f800001, 0, SNAN
    TEST_FP_TO_X s, fmv.x.w, , 0xffffffffffc12345, 0, 0xffc12345
    li a1, 0x123456787f800001
    fmv.w.x fa0, a1
    CHECK_FREG fa0, BOX(SNAN)
    fmv.w.x fa0, x0
    CHECK_FREG fa0, BOX(PZERO)

    /* flw boxes and keeps signalling NaNs; fsw writes 4 bytes; neither raises flags. */
    la s0, buf
    li t0, 0x11111111ff800001
    sd t0, 0(s0)
    fsflags x0
    flw fa0, 0(s0)
    CHECK_FREG fa0, BOX(0xff800001)
    flw fa1, 4(s0)
    CHECK_FREG fa1, BOX(0x11111111)
    fsw fa0, 4(s0)
    CHECK_MEM ld, 0, s0, 0xff800001ff800001
    li t0, 0x3f800000
    sw t0, 9(s0)
    flw fa2, 9(s0)                      /* misaligned */
    CHECK_FREG fa2, BOX(ONE)
    fsw fa2, 13(s0)
    CHECK_MEM lwu, 13, s0, ONE
    CHECK_FFLAGS 0

    /* Dynamic rounding mode from frm. */
    fsrmi 4                             /* rmm */
    TEST_FP_RR s, fadd.s, dyn, ULP1, FF_NX, ONE, EPSH
    fsrmi 2                             /* rdn */
    TEST_FP_RR s, fadd.s, dyn, NZERO, 0, ONE, NONE
    TEST_FP_RR s, fadd.s, , NZERO, 0, ONE, NONE
    fsrmi 1                             /* rtz */
    TEST_FP_RR s, fmul.s, dyn, MAXF, FF_OF | FF_NX, MAXF, TWO
    fsrmi 0
    TEST_FP_RR s, fmul.s, dyn, PINF, FF_OF | FF_NX, MAXF, TWO

    /* Flags accrue until cleared. */
    fsflags x0
    li t0, ONE
    fmv.w.x fa1, t0
    fmv.w.x fa2, x0
    fdiv.s fa0, fa1, fa2
    li t0, THREE
    fmv.w.x fa2, t0
    fdiv.s fa0, fa1, fa2
    CHECK_FFLAGS FF_DZ | FF_NX
TEST_END

    .data
    .balign 8
buf:
    .space 32
