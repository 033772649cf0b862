/* M extension: multiply high halves, division by zero, signed overflow, and the W forms. */
#include "check.h"

TEST_BEGIN
    TEST_RR mul, 6, 2, 3
    TEST_RR mul, -6, -2, 3
    TEST_RR mul, 0x236d88fe5618cf00, 0x123456789abcdef0, 0xfedcba9876543210
    TEST_RR mul, 0x8000000000000000, 0x8000000000000000, -1
    TEST_RR mulh, 0xffeb49923cc09532, 0x123456789abcdef0, 0xfedcba9876543210
    TEST_RR mulh, 0, -1, -1
    TEST_RR mulh, 0x4000000000000000, 0x8000000000000000, 0x8000000000000000
    TEST_RR mulh, -1, -1, 1
    TEST_RR mulhu, 0x121fa00ad77d7422, 0x123456789abcdef0, 0xfedcba9876543210
    TEST_RR mulhu, 0xfffffffffffffffe, -1, -1
    TEST_RR mulhu, 0, -1, 1
    TEST_RR mulhsu, 0xffeb49923cc09532, 0xfedcba9876543210, 0x123456789abcdef0
    TEST_RR mulhsu, 0x121fa00ad77d7422, 0x123456789abcdef0, 0xfedcba9876543210
    TEST_RR mulhsu, -1, -1, -1
    TEST_RR mulhsu, 0, 1, -1

    TEST_RR div, 3, 20, 6
    TEST_RR div, -3, -20, 6
    TEST_RR div, -3, 20, -6
    TEST_RR div, 3, -20, -6
    TEST_RR div, -1, 7, 0
    TEST_RR div, 0x8000000000000000, 0x8000000000000000, -1
    TEST_RR divu, 3, 20, 6
    TEST_RR divu, 0x2aaaaaaaaaaaaaa7, -20, 6
    TEST_RR divu, 0xffffffffffffffff, 7, 0
    TEST_RR divu, 0, 0x8000000000000000, -1
    TEST_RR rem, 2, 20, 6
    TEST_RR rem, -2, -20, 6
    TEST_RR rem, 2, 20, -6
    TEST_RR rem, -2, -20, -6
    TEST_RR rem, 7, 7, 0
    TEST_RR rem, -7, -7, 0
    TEST_RR rem, 0, 0x8000000000000000, -1
    TEST_RR remu, 2, 20, 6
    TEST_RR remu, 2, -20, 6
    TEST_RR remu, -7, -7, 0
    TEST_RR remu, 0x8000000000000000, 0x8000000000000000, -1

    /* W forms read the low 32 bits and sign-extend the 32-bit result. */
    TEST_RR mulw, 0xfffffffffffffffe, 0x7fffffff, 2
    TEST_RR mulw, 0x242d2080, 0x12345678, 0x9abcdef0
    TEST_RR mulw, 6, 0xffffffff00000002, 0x1234567800000003
    TEST_RR mulw, 0xffffffff80000000, 0x80000000, 1
    TEST_RR divw, 3, 20, 6
    TEST_RR divw, -3, 0xffffffec, 6
    TEST_RR divw, 5, 0x100000014, 4
    TEST_RR divw, -1, 7, 0x100000000
    TEST_RR divw, 0xffffffff80000000, 0x80000000, -1
    TEST_RR divuw, 0x7ffffff6, 0xffffffec, 2
    TEST_RR divuw, 0xffffffffffffffff, 7, 0
    TEST_RR divuw, 0xffffffff80000000, 0x80000000, 1
    TEST_RR divuw, 0, 0x80000000, -1
    TEST_RR remw, 2, 20, 6
    TEST_RR remw, -2, 0xffffffec, 6
    TEST_RR remw, 0, 0x80000000, -1
    TEST_RR remw, 0xffffffff80000001, 0x1280000001, 0
    TEST_RR remw, 7, 0xffffffff00000007, 0xffffffff00000000
    TEST_RR remuw, 2, 0xffffffec, 6
    TEST_RR remuw, 0xffffffff80000001, 0x1280000001, 0
    TEST_RR remuw, 0xffffffffffffffec, 0xffffffec, -16
    TEST_RR remuw, 0x12345678, 0x12345678, 0x80000000
TEST_END
