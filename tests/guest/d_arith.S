/* D extension (double precision): arithmetic in every rounding mode, exact fflags, NaN
 * canonicalisation, min/max, compares, classify, fused multiply-add, sqrt, sign injection,
 * moves, loads and stores. */
#include "check.h"

#define PZERO 0x0000000000000000
#define NZERO 0x8000000000000000
#define ONE   0x3ff0000000000000
#define NONE  0xbff0000000000000
#define TWO   0x4000000000000000
#define THREE 0x4008000000000000
#define SIX   0x4018000000000000
#define HALF  0x3fe0000000000000
#define PINF  0x7ff0000000000000
#define NINF  0xfff0000000000000
#define QNAN  0x7ff8000000000000        /* the canonical NaN */
#define QNANP 0x7ff8000000012345
#define NQNAN 0xfff8000000000000
#define SNAN  0x7ff0000000000001
#define MAXD  0x7fefffffffffffff
#define NMAXD 0xffefffffffffffff
#define MINN  0x0010000000000000
#define MAXS  0x000fffffffffffff
#define MINS  0x0000000000000001
#define ULP1  0x3ff0000000000001        /* 1 + 2^-52 */
#define EPSH  0x3ca0000000000000        /* 2^-53 */
#define NEPSH 0xbca0000000000000

TEST_BEGIN
    TEST_FP_RR d, fadd.d, rne, THREE, 0, ONE, TWO
    TEST_FP_RR d, fadd.d, rne, ONE,  FF_NX, ONE, EPSH
    TEST_FP_RR d, fadd.d, rtz, ONE,  FF_NX, ONE, EPSH
    TEST_FP_RR d, fadd.d, rdn, ONE,  FF_NX, ONE, EPSH
    TEST_FP_RR d, fadd.d, rup, ULP1, FF_NX, ONE, EPSH
    TEST_FP_RR d, fadd.d, rmm, ULP1, FF_NX, ONE, EPSH
    TEST_FP_RR d, fadd.d, rne, NONE, FF_NX, NONE, NEPSH
    TEST_FP_RR d, fadd.d, rdn, 0xbff0000000000001, FF_NX, NONE, NEPSH
    TEST_FP_RR d, fadd.d, rup, NONE, FF_NX, NONE, NEPSH
    TEST_FP_RR d, fadd.d, rmm, 0xbff0000000000001, FF_NX, NONE, NEPSH
    TEST_FP_RR d, fadd.d, rne, 0x3ff0000000000002, FF_NX, ULP1, EPSH
    TEST_FP_RR d, fadd.d, rtz, ULP1, FF_NX, ULP1, EPSH
    TEST_FP_RR d, fadd.d, rne, PZERO, 0, ONE, NONE
    TEST_FP_RR d, fadd.d, rdn, NZERO, 0, ONE, NONE
    TEST_FP_RR d, fadd.d, rne, PZERO, 0, NZERO, PZERO
    TEST_FP_RR d, fadd.d, rdn, NZERO, 0, NZERO, PZERO
    TEST_FP_RR d, fadd.d, rne, PINF, FF_OF | FF_NX, MAXD, MAXD
    TEST_FP_RR d, fadd.d, rtz, MAXD, FF_OF | FF_NX, MAXD, MAXD
    TEST_FP_RR d, fadd.d, rdn, MAXD, FF_OF | FF_NX, MAXD, MAXD
    TEST_FP_RR d, fadd.d, rup, PINF, FF_OF | FF_NX, MAXD, MAXD
    TEST_FP_RR d, fadd.d, rmm, PINF, FF_OF | FF_NX, MAXD, MAXD
    TEST_FP_RR d, fadd.d, rup, NMAXD, FF_OF | FF_NX, NMAXD, NMAXD
    TEST_FP_RR d, fadd.d, rdn, NINF, FF_OF | FF_NX, NMAXD, NMAXD
    TEST_FP_RR d, fadd.d, rne, QNAN, FF_NV, PINF, NINF
    TEST_FP_RR d, fadd.d, rne, QNAN, 0, QNANP, ONE
    TEST_FP_RR d, fadd.d, rne, QNAN, 0, ONE, NQNAN
    TEST_FP_RR d, fadd.d, rne, QNAN, FF_NV, SNAN, ONE
    TEST_FP_RR d, fadd.d, rne, QNAN, FF_NV, QNANP, SNAN
    /* A NaN-boxed single is a (negative quiet) NaN as a double. */
    TEST_FP_RR d, fadd.d, rne, QNAN, 0, 0xffffffff3f800000, ONE
    TEST_FP_RR d, fsub.d, rne, TWO, 0, THREE, ONE
    TEST_FP_RR d, fsub.d, rdn, NZERO, 0, THREE, THREE
    TEST_FP_RR d, fsub.d, rne, QNAN, FF_NV, PINF, PINF

    TEST_FP_RR d, fmul.d, rne, SIX, 0, TWO, THREE
    TEST_FP_RR d, fmul.d, rne, QNAN, FF_NV, NZERO, NINF
    TEST_FP_RR d, fmul.d, rne, 0x0008000000000000, 0, MINN, HALF
    TEST_FP_RR d, fmul.d, rne, PZERO, FF_UF | FF_NX, MINS, HALF
    TEST_FP_RR d, fmul.d, rup, MINS, FF_UF | FF_NX, MINS, HALF
    TEST_FP_RR d, fmul.d, rmm, MINS, FF_UF | FF_NX, MINS, HALF
    TEST_FP_RR d, fmul.d, rdn, 0x8000000000000001, FF_UF | FF_NX, 0x8000000000000001, HALF
    TEST_FP_RR d, fmul.d, rtz, NZERO, FF_UF | FF_NX, 0x8000000000000001, HALF
    /* 2^-1022 - 2^-1075 rounds up to the smallest normal, yet is tiny even after rounding. */
    TEST_FP_RR d, fmul.d, rne, MINN, FF_UF | FF_NX, 0x3fefffffffffffff, MINN
    TEST_FP_RR d, fmul.d, rtz, MAXS, FF_UF | FF_NX, 0x3fefffffffffffff, MINN
    TEST_FP_RR d, fmul.d, rne, PINF, FF_OF | FF_NX, MAXD, TWO
    TEST_FP_RR d, fmul.d, rtz, MAXD, FF_OF | FF_NX, MAXD, TWO

    TEST_FP_RR d, fdiv.d, rne, 0x3fd5555555555555, FF_NX, ONE, THREE
    TEST_FP_RR d, fdiv.d, rup, 0x3fd5555555555556, FF_NX, ONE, THREE
    TEST_FP_RR d, fdiv.d, rtz, 0x3fd5555555555555, FF_NX, ONE, THREE
    TEST_FP_RR d, fdiv.d, rne, TWO, 0, SIX, THREE
    TEST_FP_RR d, fdiv.d, rne, PINF, FF_DZ, ONE, PZERO
    TEST_FP_RR d, fdiv.d, rne, NINF, FF_DZ, ONE, NZERO
    TEST_FP_RR d, fdiv.d, rne, QNAN, FF_NV, PZERO, NZERO
    TEST_FP_RR d, fdiv.d, rne, QNAN, FF_NV, NINF, PINF
    TEST_FP_RR d, fdiv.d, rne, NINF, 0, NINF, PZERO

    TEST_FP_R d, fsqrt.d, rne, TWO, 0, 0x4010000000000000
    TEST_FP_R d, fsqrt.d, rne, 0x3ff6a09e667f3bcd, FF_NX, TWO
    TEST_FP_R d, fsqrt.d, rtz, 0x3ff6a09e667f3bcc, FF_NX, TWO
    TEST_FP_R d, fsqrt.d, rne, QNAN, FF_NV, NONE
    TEST_FP_R d, fsqrt.d, rne, QNAN, FF_NV, 0x8000000000000001
    TEST_FP_R d, fsqrt.d, rne, NZERO, 0, NZERO
    TEST_FP_R d, fsqrt.d, rne, PINF, 0, PINF
    TEST_FP_R d, fsqrt.d, rne, QNAN, FF_NV, SNAN
    TEST_FP_R d, fsqrt.d, rne, QNAN, 0, QNANP

    TEST_FP_RRR d, fmadd.d,  rne, 0x401c000000000000, 0, TWO, THREE, ONE
    TEST_FP_RRR d, fmsub.d,  rne, 0x4014000000000000, 0, TWO, THREE, ONE
    TEST_FP_RRR d, fnmsub.d, rne, 0xc014000000000000, 0, TWO, THREE, ONE
    TEST_FP_RRR d, fnmadd.d, rne, 0xc01c000000000000, 0, TWO, THREE, ONE
    TEST_FP_RRR d, fmadd.d,  rne, 0xb970000000000000, 0, ULP1, 0x3feffffffffffffe, NONE
    TEST_FP_RRR d, fmadd.d,  rne, QNAN, FF_NV, PINF, PZERO, QNAN
    TEST_FP_RRR d, fmadd.d,  rne, QNAN, FF_NV, PZERO, PINF, QNANP
    TEST_FP_RRR d, fmsub.d,  rne, QNAN, FF_NV, PINF, ONE, PINF
    TEST_FP_RRR d, fmadd.d,  rne, QNAN, FF_NV, ONE, ONE, SNAN
    TEST_FP_RRR d, fmadd.d,  rne, QNAN, 0, QNANP, ONE, ONE
    TEST_FP_RRR d, fnmadd.d, rne, NZERO, 0, ONE, PZERO, PZERO
    TEST_FP_RRR d, fnmsub.d, rdn, NZERO, 0, ONE, PZERO, PZERO
    TEST_FP_RRR d, fmadd.d,  rup, ULP1, FF_NX, ONE, ONE, MINS
    TEST_FP_RRR d, fmadd.d,  rne, PINF, FF_OF | FF_NX, MAXD, TWO, NONE
    /* Tiny before rounding but not after: no UF. */
    TEST_FP_RRR d, fmadd.d,  rne, MINN, FF_NX, 0x3feffffffffffffe, 0x0010000000000002, 0x8000000000000001

    TEST_FP_RR d, fmin.d, , ONE, 0, ONE, TWO
    TEST_FP_RR d, fmax.d, , TWO, 0, TWO, ONE
    TEST_FP_RR d, fmin.d, , NZERO, 0, PZERO, NZERO
    TEST_FP_RR d, fmax.d, , PZERO, 0, NZERO, PZERO
    TEST_FP_RR d, fmin.d, , ONE, 0, QNAN, ONE
    TEST_FP_RR d, fmax.d, , NONE, 0, NONE, QNANP
    TEST_FP_RR d, fmin.d, , ONE, FF_NV, SNAN, ONE
    TEST_FP_RR d, fmax.d, , ONE, FF_NV, ONE, SNAN
    TEST_FP_RR d, fmin.d, , QNAN, 0, NQNAN, QNANP
    TEST_FP_RR d, fmax.d, , QNAN, FF_NV, SNAN, SNAN
    TEST_FP_RR d, fmax.d, , PINF, 0, PINF, MAXD

    TEST_FP_CMP d, feq.d, 1, 0, ONE, ONE
    TEST_FP_CMP d, feq.d, 1, 0, PZERO, NZERO
    TEST_FP_CMP d, feq.d, 0, 0, QNAN, ONE
    TEST_FP_CMP d, feq.d, 0, FF_NV, ONE, SNAN
    TEST_FP_CMP d, flt.d, 1, 0, NONE, ONE
    TEST_FP_CMP d, flt.d, 0, 0, NZERO, PZERO
    TEST_FP_CMP d, flt.d, 1, 0, MAXS, MINN
    TEST_FP_CMP d, flt.d, 0, FF_NV, QNAN, ONE
    TEST_FP_CMP d, flt.d, 0, FF_NV, SNAN, ONE
    TEST_FP_CMP d, fle.d, 1, 0, NZERO, PZERO
    TEST_FP_CMP d, fle.d, 1, 0, NINF, NINF
    TEST_FP_CMP d, fle.d, 0, 0, TWO, ONE
    TEST_FP_CMP d, fle.d, 0, FF_NV, ONE, QNANP

    TEST_FP_TO_X d, fclass.d, , 0x001, 0, NINF
    TEST_FP_TO_X d, fclass.d, , 0x002, 0, NMAXD
    TEST_FP_TO_X d, fclass.d, , 0x004, 0, 0x8000000000000001
    TEST_FP_TO_X d, fclass.d, , 0x008, 0, NZERO
    TEST_FP_TO_X d, fclass.d, , 0x010, 0, PZERO
    TEST_FP_TO_X d, fclass.d, , 0x020, 0, MAXS
    TEST_FP_TO_X d, fclass.d, , 0x040, 0, ONE
    TEST_FP_TO_X d, fclass.d, , 0x080, 0, PINF
    TEST_FP_TO_X d, fclass.d, , 0x100, 0, SNAN
    TEST_FP_TO_X d, fclass.d, , 0x100, 0, 0xfff7ffffffffffff
    TEST_FP_TO_X d, fclass.d, , 0x200, 0, QNAN
    TEST_FP_TO_X d, fclass.d, , 0x200, 0, 0xffffffff3f800000

    TEST_FP_RR d, fsgnj.d, , NONE, 0, ONE, NONE
    TEST_FP_RR d, fsgnjn.d, , NONE, 0, ONE, ONE
    TEST_FP_RR d, fsgnjx.d, , ONE, 0, NONE, NINF
    TEST_FP_RR d, fsgnj.d, , 0xfff0000000000001, 0, SNAN, NONE
    TEST_FP_RR d, fsgnjn.d, , 0xfff8000000012345, 0, QNANP, QNANP
    TEST_FP_RR d, fsgnjx.d, , PZERO, 0, NZERO, NZERO

    /* Moves and memory keep every bit. */
    TEST_FP_TO_X d, fmv.x.d, , SNAN, 0, SNAN
    TEST_FP_TO_X d, fmv.x.d, , 0xfff8000000012345, 0, 0xfff8000000012345
    la s0, buf
    li t0, 0x7ff0000000000001
    sd t0, 0(s0)
    li t0, 0x123456789abcdef0
    sd t0, 8(s0)
    fsflags x0
    fld fa0, 0(s0)
    CHECK_FREG fa0, SNAN
    fld fa1, 4(s0)                      /* misaligned */
    CHECK_FREG fa1, 0x9abcdef07ff00000
    fsd fa0, 17(s0)
    CHECK_MEM ld, 17, s0, SNAN
    fsd fa1, 24(s0)
    CHECK_MEM ld, 24, s0, 0x9abcdef07ff00000
    CHECK_FFLAGS 0

    /* Dynamic rounding mode. */
    fsrmi 3                             /* rup */
    TEST_FP_RR d, fadd.d, dyn, ULP1, FF_NX, ONE, EPSH
    fsrmi 2                             /* rdn */
    TEST_FP_RR d, fsub.d, , NZERO, 0, ONE, ONE
    fsrmi 4                             /* rmm */
    TEST_FP_RR d, fmul.d, , MINS, FF_UF | FF_NX, MINS, HALF
    fsrmi 0
TEST_END

    .data
    .balign 8
buf:
    .space 40
