/* Zbs: single-bit clear/extract/invert/set, register index taken modulo 64. */
#include "check.h"

TEST_BEGIN
    TEST_RR bclr, 0x7fffffffffffffff, -1, 63
    TEST_RR bclr, 0xfffffffffffffffe, -1, 64
    TEST_RR bclr, 0, 0x100, 8
    TEST_RR bclr, 0x100, 0x100, 9
    TEST_RI bclri, 0x7fffffffffffffff, -1, 63
    TEST_RI bclri, 0xfffffffffffffffe, -1, 0
    TEST_RI bclri, 0xfffffffeffffffff, -1, 32
    TEST_RR bext, 1, 0x8000000000000000, 63
    TEST_RR bext, 0, 0x8000000000000000, 62
    TEST_RR bext, 1, 0x8000000000000001, 0xc0
    TEST_RI bexti, 1, 0x8000000000000000, 63
    TEST_RI bexti, 1, 0x100000000, 32
    TEST_RI bexti, 0, 0x100000000, 31
    TEST_RR binv, 0x8000000000000000, 0, 63
    TEST_RR binv, 0, 0x8000000000000000, 127
    TEST_RR binv, 0x11, 0x10, 64
    TEST_RI binvi, 0x8000000000000001, 1, 63
    TEST_RI binvi, 0xfffffffeffffffff, -1, 32
    TEST_RI binvi, 0, 1, 0
    TEST_RR bset, 0x8000000000000000, 0, 63
    TEST_RR bset, 0x8000000000000000, 0x8000000000000000, 63
    TEST_RR bset, 0x4, 0, 0x42
    TEST_RI bseti, 0x8000000000000000, 0, 63
    TEST_RI bseti, 0x100000000, 0, 32
    TEST_RI bseti, 1, 0, 0
TEST_END
