/* F/D conversions: float to integer in every rounding mode with saturation and flags (NaN,
 * infinities, out of range, negative to unsigned), integer to float rounding, W-form input and
 * output extension, and single <-> double including NaNs, overflow and underflow. */
#include "check.h"

#define S_ONE  0x3f800000
#define S_NONE 0xbf800000
#define S_2_5  0x40200000
#define S_N2_5 0xc0200000
#define S_1_5  0x3fc00000
#define S_0_5  0x3f000000
#define S_N0_5 0xbf000000
#define S_PINF 0x7f800000
#define S_NINF 0xff800000
#define S_QNAN 0x7fc00000
#define S_SNAN 0x7f800001
#define D_ONE  0x3ff0000000000000
#define D_NONE 0xbff0000000000000
#define D_2_5  0x4004000000000000
#define D_N2_5 0xc004000000000000
#define D_PINF 0x7ff0000000000000
#define D_NINF 0xfff0000000000000
#define D_QNAN 0x7ff8000000000000
#define D_SNAN 0x7ff0000000000001

#define I32_MAX 0x7fffffff
#define I32_MIN 0xffffffff80000000      /* as the sign-extended register value */
#define U32_MAX 0xffffffffffffffff      /* 2^32 - 1, sign-extended */
#define I64_MAX 0x7fffffffffffffff
#define I64_MIN 0x8000000000000000
#define U64_MAX 0xffffffffffffffff

TEST_BEGIN
    /* fcvt.w.s: 2.5 and -2.5 in each mode. */
    TEST_FP_TO_X s, fcvt.w.s, rne, 2, FF_NX, S_2_5
    TEST_FP_TO_X s, fcvt.w.s, rtz, 2, FF_NX, S_2_5
    TEST_FP_TO_X s, fcvt.w.s, rdn, 2, FF_NX, S_2_5
    TEST_FP_TO_X s, fcvt.w.s, rup, 3, FF_NX, S_2_5
    TEST_FP_TO_X s, fcvt.w.s, rmm, 3, FF_NX, S_2_5
    TEST_FP_TO_X s, fcvt.w.s, rne, -2, FF_NX, S_N2_5
    TEST_FP_TO_X s, fcvt.w.s, rtz, -2, FF_NX, S_N2_5
    TEST_FP_TO_X s, fcvt.w.s, rdn, -3, FF_NX, S_N2_5
    TEST_FP_TO_X s, fcvt.w.s, rup, -2, FF_NX, S_N2_5
    TEST_FP_TO_X s, fcvt.w.s, rmm, -3, FF_NX, S_N2_5
    TEST_FP_TO_X s, fcvt.w.s, rne, 2, FF_NX, S_1_5
    TEST_FP_TO_X s, fcvt.w.s, rne, 4, FF_NX, 0x40600000          /* 3.5 */
    TEST_FP_TO_X s, fcvt.w.s, rne, 0, FF_NX, S_0_5
    TEST_FP_TO_X s, fcvt.w.s, rmm, 1, FF_NX, S_0_5
    TEST_FP_TO_X s, fcvt.w.s, rne, 0, FF_NX, S_N0_5
    TEST_FP_TO_X s, fcvt.w.s, rmm, -1, FF_NX, S_N0_5
    TEST_FP_TO_X s, fcvt.w.s, rtz, 1, 0, S_ONE
    TEST_FP_TO_X s, fcvt.w.s, rtz, 0, 0, 0x80000000
    TEST_FP_TO_X s, fcvt.w.s, rtz, 0x7fffff80, 0, 0x4effffff
    /* Saturation: NaN of either sign gives the maximum. */
    TEST_FP_TO_X s, fcvt.w.s, rtz, I32_MIN, 0, 0xcf000000          /* -2^31 is in range */
    TEST_FP_TO_X s, fcvt.w.s, rtz, I32_MAX, FF_NV, 0x4f000000      /* 2^31 is not */
    TEST_FP_TO_X s, fcvt.w.s, rtz, I32_MIN, FF_NV, 0xcf000001
    TEST_FP_TO_X s, fcvt.w.s, rtz, I32_MAX, FF_NV, S_PINF
    TEST_FP_TO_X s, fcvt.w.s, rtz, I32_MIN, FF_NV, S_NINF
    TEST_FP_TO_X s, fcvt.w.s, rtz, I32_MAX, FF_NV, S_QNAN
    TEST_FP_TO_X s, fcvt.w.s, rtz, I32_MAX, FF_NV, 0xffc00000
    TEST_FP_TO_X s, fcvt.w.s, rtz, I32_MAX, FF_NV, S_SNAN
    /* fcvt.wu.s sign-extends its 32-bit result. */
    TEST_FP_TO_X s, fcvt.wu.s, rtz, 0xffffffffb2d05e00, 0, 0x4f32d05e  /* 3e9 */
    TEST_FP_TO_X s, fcvt.wu.s, rtz, 0xffffffffffffff00, 0, 0x4f7fffff
    TEST_FP_TO_X s, fcvt.wu.s, rtz, U32_MAX, FF_NV, 0x4f800000     /* 2^32 */
    TEST_FP_TO_X s, fcvt.wu.s, rtz, 0, FF_NV, S_NONE
    TEST_FP_TO_X s, fcvt.wu.s, rtz, 0, FF_NX, S_N0_5               /* rounds to 0: valid */
    TEST_FP_TO_X s, fcvt.wu.s, rne, 0, FF_NX, S_N0_5
    TEST_FP_TO_X s, fcvt.wu.s, rdn, 0, FF_NV, S_N0_5               /* rounds to -1 */
    TEST_FP_TO_X s, fcvt.wu.s, rmm, 0, FF_NV, S_N0_5
    TEST_FP_TO_X s, fcvt.wu.s, rup, 3, FF_NX, S_2_5
    TEST_FP_TO_X s, fcvt.wu.s, rtz, 0, 0, 0x80000000
    TEST_FP_TO_X s, fcvt.wu.s, rtz, U32_MAX, FF_NV, S_PINF
    TEST_FP_TO_X s, fcvt.wu.s, rtz, 0, FF_NV, S_NINF
    TEST_FP_TO_X s, fcvt.wu.s, rtz, U32_MAX, FF_NV, S_QNAN
    TEST_FP_TO_X s, fcvt.wu.s, rtz, U32_MAX, FF_NV, 0xff800001
    TEST_FP_TO_X s, fcvt.l.s, rtz, 10000000000, 0, 0x501502f9
    TEST_FP_TO_X s, fcvt.l.s, rtz, I64_MIN, 0, 0xdf000000
    TEST_FP_TO_X s, fcvt.l.s, rtz, I64_MAX, FF_NV, 0x5f000000
    TEST_FP_TO_X s, fcvt.l.s, rtz, I64_MIN, FF_NV, 0xdf000001
    TEST_FP_TO_X s, fcvt.l.s, rmm, -3, FF_NX, S_N2_5
    TEST_FP_TO_X s, fcvt.l.s, rdn, -3, FF_NX, S_N2_5
    TEST_FP_TO_X s, fcvt.l.s, rtz, I64_MAX, FF_NV, S_PINF
    TEST_FP_TO_X s, fcvt.l.s, rtz, I64_MIN, FF_NV, S_NINF
    TEST_FP_TO_X s, fcvt.l.s, rtz, I64_MAX, FF_NV, 0xffc00000
    TEST_FP_TO_X s, fcvt.lu.s, rtz, 0x8000000000000000, 0, 0x5f000000
    TEST_FP_TO_X s, fcvt.lu.s, rtz, 0xffffff0000000000, 0, 0x5f7fffff
    TEST_FP_TO_X s, fcvt.lu.s, rtz, U64_MAX, FF_NV, 0x5f800000
    TEST_FP_TO_X s, fcvt.lu.s, rtz, 0, FF_NV, S_NONE
    TEST_FP_TO_X s, fcvt.lu.s, rtz, 0, FF_NX, 0xbf400000           /* -0.75 */
    TEST_FP_TO_X s, fcvt.lu.s, rup, 0, FF_NX, 0xbf400000
    TEST_FP_TO_X s, fcvt.lu.s, rne, 0, FF_NV, 0xbf400000
    TEST_FP_TO_X s, fcvt.lu.s, rne, 2, FF_NX, S_2_5
    TEST_FP_TO_X s, fcvt.lu.s, rtz, U64_MAX, FF_NV, S_PINF
    TEST_FP_TO_X s, fcvt.lu.s, rtz, 0, FF_NV, S_NINF
    TEST_FP_TO_X s, fcvt.lu.s, rtz, U64_MAX, FF_NV, S_SNAN

    /* From double. */
    TEST_FP_TO_X d, fcvt.w.d, rne, 2, FF_NX, D_2_5
    TEST_FP_TO_X d, fcvt.w.d, rtz, 2, FF_NX, D_2_5
    TEST_FP_TO_X d, fcvt.w.d, rdn, 2, FF_NX, D_2_5
    TEST_FP_TO_X d, fcvt.w.d, rup, 3, FF_NX, D_2_5
    TEST_FP_TO_X d, fcvt.w.d, rmm, 3, FF_NX, D_2_5
    TEST_FP_TO_X d, fcvt.w.d, rne, -2, FF_NX, D_N2_5
    TEST_FP_TO_X d, fcvt.w.d, rtz, -2, FF_NX, D_N2_5
    TEST_FP_TO_X d, fcvt.w.d, rdn, -3, FF_NX, D_N2_5
    TEST_FP_TO_X d, fcvt.w.d, rup, -2, FF_NX, D_N2_5
    TEST_FP_TO_X d, fcvt.w.d, rmm, -3, FF_NX, D_N2_5
    TEST_FP_TO_X d, fcvt.w.d, rtz, I32_MAX, 0, 0x41dfffffffc00000
    TEST_FP_TO_X d, fcvt.w.d, rtz, I32_MAX, FF_NX, 0x41dfffffffe00000    /* 2^31 - 0.5 */
    TEST_FP_TO_X d, fcvt.w.d, rdn, I32_MAX, FF_NX, 0x41dfffffffe00000
    TEST_FP_TO_X d, fcvt.w.d, rne, I32_MAX, FF_NV, 0x41dfffffffe00000    /* rounds to 2^31 */
    TEST_FP_TO_X d, fcvt.w.d, rup, I32_MAX, FF_NV, 0x41dfffffffe00000
    TEST_FP_TO_X d, fcvt.w.d, rtz, I32_MIN, FF_NX, 0xc1e0000000100000    /* -2^31 - 0.5 */
    TEST_FP_TO_X d, fcvt.w.d, rne, I32_MIN, FF_NX, 0xc1e0000000100000
    TEST_FP_TO_X d, fcvt.w.d, rdn, I32_MIN, FF_NV, 0xc1e0000000100000
    TEST_FP_TO_X d, fcvt.w.d, rmm, I32_MIN, FF_NV, 0xc1e0000000100000
    TEST_FP_TO_X d, fcvt.w.d, rtz, I32_MIN, FF_NV, 0xc1e0000000200000
    TEST_FP_TO_X d, fcvt.w.d, rtz, I32_MAX, FF_NV, D_QNAN
    TEST_FP_TO_X d, fcvt.w.d, rtz, I32_MAX, FF_NV, 0xfff8000000000000
    TEST_FP_TO_X d, fcvt.w.d, rtz, I32_MAX, FF_NV, D_PINF
    TEST_FP_TO_X d, fcvt.w.d, rtz, I32_MIN, FF_NV, D_NINF
    TEST_FP_TO_X d, fcvt.wu.d, rtz, U32_MAX, 0, 0x41efffffffe00000        /* 2^32 - 1 */
    TEST_FP_TO_X d, fcvt.wu.d, rtz, U32_MAX, FF_NX, 0x41effffffff00000
    TEST_FP_TO_X d, fcvt.wu.d, rne, U32_MAX, FF_NV, 0x41effffffff00000    /* rounds to 2^32 */
    TEST_FP_TO_X d, fcvt.wu.d, rtz, 0x7fffffff, 0, 0x41dfffffffc00000
    TEST_FP_TO_X d, fcvt.wu.d, rtz, 0xffffffff80000000, 0, 0x41e0000000000000
    TEST_FP_TO_X d, fcvt.wu.d, rtz, 0, FF_NX, 0x80000000000000ff
    TEST_FP_TO_X d, fcvt.wu.d, rdn, 0, FF_NV, 0x80000000000000ff
    TEST_FP_TO_X d, fcvt.wu.d, rtz, 0, FF_NV, D_NONE
    TEST_FP_TO_X d, fcvt.wu.d, rtz, U32_MAX, FF_NV, D_SNAN
    TEST_FP_TO_X d, fcvt.wu.d, rtz, 0, FF_NV, D_NINF
    TEST_FP_TO_X d, fcvt.l.d, rtz, 0x7ffffffffffffc00, 0, 0x43dfffffffffffff
    TEST_FP_TO_X d, fcvt.l.d, rtz, I64_MAX, FF_NV, 0x43e0000000000000
    TEST_FP_TO_X d, fcvt.l.d, rtz, I64_MIN, 0, 0xc3e0000000000000
    TEST_FP_TO_X d, fcvt.l.d, rtz, I64_MIN, FF_NV, 0xc3e0000000000001
    TEST_FP_TO_X d, fcvt.l.d, rmm, 3, FF_NX, D_2_5
    TEST_FP_TO_X d, fcvt.l.d, rup, -2, FF_NX, D_N2_5
    TEST_FP_TO_X d, fcvt.l.d, rtz, I64_MAX, FF_NV, D_QNAN
    TEST_FP_TO_X d, fcvt.l.d, rtz, I64_MIN, FF_NV, D_NINF
    TEST_FP_TO_X d, fcvt.lu.d, rtz, 0xfffffffffffff800, 0, 0x43efffffffffffff
    TEST_FP_TO_X d, fcvt.lu.d, rtz, U64_MAX, FF_NV, 0x43f0000000000000
    TEST_FP_TO_X d, fcvt.lu.d, rtz, 0x8000000000000000, 0, 0x43e0000000000000
    TEST_FP_TO_X d, fcvt.lu.d, rtz, 0, 0, 0x8000000000000000
    TEST_FP_TO_X d, fcvt.lu.d, rtz, 0, FF_NV, D_NONE
    TEST_FP_TO_X d, fcvt.lu.d, rup, 0, FF_NX, 0xbfe8000000000000    /* -0.75 */
    TEST_FP_TO_X d, fcvt.lu.d, rtz, U64_MAX, FF_NV, D_PINF
    TEST_FP_TO_X d, fcvt.lu.d, rtz, 0, FF_NV, D_NINF
    TEST_FP_TO_X d, fcvt.lu.d, rtz, U64_MAX, FF_NV, D_QNAN

    /* Integer to single: rounding of values wider than 24 bits; W forms read bits 31:0. */
    TEST_X_TO_FP s, fcvt.s.w, rne, 0x4b800000, FF_NX, 16777217
    TEST_X_TO_FP s, fcvt.s.w, rtz, 0x4b800000, FF_NX, 16777217
    TEST_X_TO_FP s, fcvt.s.w, rdn, 0x4b800000, FF_NX, 16777217
    TEST_X_TO_FP s, fcvt.s.w, rup, 0x4b800001, FF_NX, 16777217
    TEST_X_TO_FP s, fcvt.s.w, rmm, 0x4b800001, FF_NX, 16777217
    TEST_X_TO_FP s, fcvt.s.w, rne, 0x4b800002, FF_NX, 16777219      /* tie to even goes up */
    TEST_X_TO_FP s, fcvt.s.w, rne, 0xcb800000, FF_NX, -16777217
    TEST_X_TO_FP s, fcvt.s.w, rdn, 0xcb800001, FF_NX, -16777217
    TEST_X_TO_FP s, fcvt.s.w, rup, 0xcb800000, FF_NX, -16777217
    TEST_X_TO_FP s, fcvt.s.w, rne, 0x00000000, 0, 0
    TEST_X_TO_FP s, fcvt.s.w, rne, S_ONE, 0, 0xffffffff00000001
    TEST_X_TO_FP s, fcvt.s.w, rne, 0xcf000000, 0, 0x80000000
    TEST_X_TO_FP s, fcvt.s.w, rne, 0x4f000000, FF_NX, 0x7fffffff
    TEST_X_TO_FP s, fcvt.s.w, rtz, 0x4effffff, FF_NX, 0x7fffffff
    TEST_X_TO_FP s, fcvt.s.wu, rne, 0x4f800000, FF_NX, -1
    TEST_X_TO_FP s, fcvt.s.wu, rtz, 0x4f7fffff, FF_NX, 0xffffffff
    TEST_X_TO_FP s, fcvt.s.wu, rne, 0x4f000000, 0, 0xffffffff80000000
    TEST_X_TO_FP s, fcvt.s.wu, rne, S_ONE, 0, 0x1200000001
    TEST_X_TO_FP s, fcvt.s.l, rne, S_NONE, 0, -1
    TEST_X_TO_FP s, fcvt.s.l, rne, 0xdf000000, 0, 0x8000000000000000
    TEST_X_TO_FP s, fcvt.s.l, rne, 0x5f000000, FF_NX, 0x7fffffffffffffff
    TEST_X_TO_FP s, fcvt.s.l, rtz, 0x5effffff, FF_NX, 0x7fffffffffffffff
    TEST_X_TO_FP s, fcvt.s.l, rne, 0x4f800000, 0, 0x100000000
    TEST_X_TO_FP s, fcvt.s.lu, rne, 0x5f800000, FF_NX, -1
    TEST_X_TO_FP s, fcvt.s.lu, rtz, 0x5f7fffff, FF_NX, -1
    TEST_X_TO_FP s, fcvt.s.lu, rne, 0x5f000000, 0, 0x8000000000000000
    /* fcvt.s.w rd, x0 makes +0 and never raises flags. */
    fsflags x0
    fcvt.s.w fa0, x0
    CHECK_FREG fa0, BOX(0)
    CHECK_FFLAGS 0

    /* Integer to double: 32-bit sources are exact; 64-bit ones round. */
    TEST_X_TO_FP d, fcvt.d.w, , 0xc1e0000000000000, 0, 0x80000000
    TEST_X_TO_FP d, fcvt.d.w, , D_NONE, 0, 0x12345678ffffffff
    TEST_X_TO_FP d, fcvt.d.w, , 0x41dfffffffc00000, 0, 0x7fffffff
    TEST_X_TO_FP d, fcvt.d.wu, , 0x41efffffffe00000, 0, 0xabcdef00ffffffff
    TEST_X_TO_FP d, fcvt.d.wu, , 0x41e0000000000000, 0, 0xffffffff80000000
    TEST_X_TO_FP d, fcvt.d.l, rne, 0x4340000000000000, FF_NX, 0x20000000000001
    TEST_X_TO_FP d, fcvt.d.l, rup, 0x4340000000000001, FF_NX, 0x20000000000001
    TEST_X_TO_FP d, fcvt.d.l, rmm, 0x4340000000000001, FF_NX, 0x20000000000001
    TEST_X_TO_FP d, fcvt.d.l, rne, 0x4340000000000002, FF_NX, 0x20000000000003
    TEST_X_TO_FP d, fcvt.d.l, rdn, 0xc340000000000001, FF_NX, -0x20000000000001
    TEST_X_TO_FP d, fcvt.d.l, rne, D_NONE, 0, -1
    TEST_X_TO_FP d, fcvt.d.l, rne, 0xc3e0000000000000, 0, 0x8000000000000000
    TEST_X_TO_FP d, fcvt.d.l, rne, 0x43e0000000000000, FF_NX, 0x7fffffffffffffff
    TEST_X_TO_FP d, fcvt.d.l, rtz, 0x43dfffffffffffff, FF_NX, 0x7fffffffffffffff
    TEST_X_TO_FP d, fcvt.d.lu, rne, 0x43f0000000000000, FF_NX, -1
    TEST_X_TO_FP d, fcvt.d.lu, rtz, 0x43efffffffffffff, FF_NX, -1
    TEST_X_TO_FP d, fcvt.d.lu, rne, 0x43e0000000000000, 0, 0x8000000000000000
    TEST_X_TO_FP d, fcvt.d.lu, rne, 0, 0, 0

    /* Double to single. */
    TEST_FP_CVT s, d, fcvt.s.d, rne, S_ONE, 0, D_ONE
    TEST_FP_CVT s, d, fcvt.s.d, rne, 0x80000000, 0, 0x8000000000000000
    TEST_FP_CVT s, d, fcvt.s.d, rne, 0x3dcccccd, FF_NX, 0x3fb999999999999a      /* 0.1 */
    TEST_FP_CVT s, d, fcvt.s.d, rtz, 0x3dcccccc, FF_NX, 0x3fb999999999999a
    TEST_FP_CVT s, d, fcvt.s.d, rdn, 0xbdcccccd, FF_NX, 0xbfb999999999999a
    TEST_FP_CVT s, d, fcvt.s.d, rne, S_PINF, FF_OF | FF_NX, 0x7e37e43c8800759c  /* 1e300 */
    TEST_FP_CVT s, d, fcvt.s.d, rtz, 0x7f7fffff, FF_OF | FF_NX, 0x7e37e43c8800759c
    TEST_FP_CVT s, d, fcvt.s.d, rup, 0xff7fffff, FF_OF | FF_NX, 0xfe37e43c8800759c
    TEST_FP_CVT s, d, fcvt.s.d, rne, S_NINF, 0, D_NINF
    TEST_FP_CVT s, d, fcvt.s.d, rne, 0, FF_UF | FF_NX, 0x358dee7a4ad4b81f      /* 1e-50 */
    TEST_FP_CVT s, d, fcvt.s.d, rup, 1, FF_UF | FF_NX, 0x358dee7a4ad4b81f
    TEST_FP_CVT s, d, fcvt.s.d, rne, 1, 0, 0x36a0000000000000                  /* 2^-149 */
    /* 2^-126 - 2^-151: tiny before rounding, not after, so no UF; tiny after under rtz. */
    TEST_FP_CVT s, d, fcvt.s.d, rne, 0x00800000, FF_NX, 0x380ffffff0000000
    TEST_FP_CVT s, d, fcvt.s.d, rtz, 0x007fffff, FF_UF | FF_NX, 0x380ffffff0000000
    TEST_FP_CVT s, d, fcvt.s.d, rne, S_QNAN, 0, 0x7ff8000000012345
    TEST_FP_CVT s, d, fcvt.s.d, rne, S_QNAN, 0, 0xfff8000000000000
    TEST_FP_CVT s, d, fcvt.s.d, rne, S_QNAN, FF_NV, D_SNAN

    /* Single to double: exact; NaNs canonicalised; an unboxed input is the canonical NaN. */
    TEST_FP_CVT d, s, fcvt.d.s, , D_ONE, 0, S_ONE
    TEST_FP_CVT d, s, fcvt.d.s, , 0x8000000000000000, 0, 0x80000000
    TEST_FP_CVT d, s, fcvt.d.s, , 0x47efffffe0000000, 0, 0x7f7fffff
    TEST_FP_CVT d, s, fcvt.d.s, , 0x36a0000000000000, 0, 0x00000001
    TEST_FP_CVT d, s, fcvt.d.s, , D_NINF, 0, S_NINF
    TEST_FP_CVT d, s, fcvt.d.s, , D_QNAN, 0, 0x7fc12345
    TEST_FP_CVT d, s, fcvt.d.s, , D_QNAN, 0, 0xffc00000
    TEST_FP_CVT d, s, fcvt.d.s, , D_QNAN, FF_NV, S_SNAN
    TEST_FP_CVT d, d, fcvt.d.s, , D_QNAN, 0, 0x000000003f800000

    /* Dynamic rounding for conversions. */
    fsrmi 4                             /* rmm */
    TEST_FP_TO_X s, fcvt.w.s, dyn, -3, FF_NX, S_N2_5
    TEST_X_TO_FP s, fcvt.s.w, , 0x4b800001, FF_NX, 16777217
    fsrmi 2                             /* rdn */
    TEST_FP_TO_X d, fcvt.l.d, , -3, FF_NX, D_N2_5
    fsrmi 0
TEST_END
