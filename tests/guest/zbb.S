/* Zbb: logic with negation, counts (including of zero), min/max, extension, rotates,
 * orc.b and rev8, and the W forms. */
#include "check.h"

TEST_BEGIN
    TEST_RR andn, 0xf0f0f0f0f0f0f000, 0xf0f0f0f0f0f0f0ff, 0xff
    TEST_RR orn, 0xffffffffffffff0f, 0x0f, 0xf0
    TEST_RR xnor, 0xfff0fff0fff0fff0, 0x0ff00ff00ff00ff0, 0x0fff0fff0fff0fff
    TEST_R clz, 64, 0
    TEST_R clz, 0, -1
    TEST_R clz, 63, 1
    TEST_R clz, 31, 0x100000000
    TEST_R clzw, 32, 0
    TEST_R clzw, 32, 0xffffffff00000000
    TEST_R clzw, 0, 0x80000000
    TEST_R clzw, 31, 0xabcdef0000000001
    TEST_R ctz, 64, 0
    TEST_R ctz, 63, 0x8000000000000000
    TEST_R ctz, 0, -1
    TEST_R ctz, 32, 0xffffffff00000000
    TEST_R ctzw, 32, 0
    TEST_R ctzw, 32, 0xffffffff00000000
    TEST_R ctzw, 31, 0x80000000
    TEST_R ctzw, 4, 0x10
    TEST_R cpop, 0, 0
    TEST_R cpop, 64, -1
    TEST_R cpop, 32, 0x5555555555555555
    TEST_R cpopw, 0, 0
    TEST_R cpopw, 0, 0xffffffff00000000
    TEST_R cpopw, 32, -1
    TEST_R cpopw, 1, 0x8000000080000000
    TEST_RR max, 1, -1, 1
    TEST_RR max, 0x7fffffffffffffff, 0x8000000000000000, 0x7fffffffffffffff
    TEST_RR maxu, -1, -1, 1
    TEST_RR maxu, 0x8000000000000000, 0x8000000000000000, 0x7fffffffffffffff
    TEST_RR min, -1, -1, 1
    TEST_RR min, 0x8000000000000000, 0x8000000000000000, 0x7fffffffffffffff
    TEST_RR minu, 1, -1, 1
    TEST_RR minu, 5, 5, 5
    TEST_R sext.b, 0xffffffffffffff80, 0x1234567890abcd80
    TEST_R sext.b, 0x7f, 0xffffffffffffff7f
    TEST_R sext.h, 0xffffffffffff8000, 0x1234567890ab8000
    TEST_R sext.h, 0x7fff, 0xffffffffffff7fff
    TEST_R zext.h, 0x8000, 0xffffffffffff8000
    TEST_R zext.h, 0xcdef, 0x0123456789abcdef

    /* Rotates use the shift amount modulo the width. */
    TEST_RR rol, 0x123456789abcdef0, 0x0123456789abcdef, 4
    TEST_RR rol, 0x123456789abcdef0, 0x0123456789abcdef, 68
    TEST_RR rol, 0x0123456789abcdef, 0x0123456789abcdef, 64
    TEST_RR ror, 0xf0123456789abcde, 0x0123456789abcdef, 4
    TEST_RR ror, 0x02468acf13579bde, 0x0123456789abcdef, 63
    TEST_RR ror, 0x0123456789abcdef, 0x0123456789abcdef, 0
    TEST_RI rori, 0xf0123456789abcde, 0x0123456789abcdef, 4
    TEST_RI rori, 0x02468acf13579bde, 0x0123456789abcdef, 63
    TEST_RI rori, 0x0123456789abcdef, 0x0123456789abcdef, 0
    TEST_RR rolw, 3, 0x80000001, 1
    TEST_RR rolw, 0x23456781, 0xffffffff12345678, 36
    TEST_RR rolw, 0xffffffff80000000, 0x80000000, 0      /* sign-extends even unrotated */
    TEST_RR rorw, 0xffffffff80000000, 1, 1
    TEST_RR rorw, 1, 0xffffffff00000002, 1
    TEST_RR rorw, 0x78123456, 0x12345678, 40
    TEST_RI roriw, 0x78123456, 0x12345678, 8
    TEST_RI roriw, 0xffffffff87654321, 0x87654321, 0
    TEST_RI roriw, 0xffffffff80000000, 0xabcdef0000000001, 1

    TEST_R orc.b, 0xff00ff0000ff00ff, 0x0100a00000ff0001
    TEST_R orc.b, 0, 0
    TEST_R orc.b, -1, 0x0101010101010101
    TEST_R rev8, 0xefcdab8967452301, 0x0123456789abcdef
    TEST_R rev8, 0x80, 0x8000000000000000
TEST_END
