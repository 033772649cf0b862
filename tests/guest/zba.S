/* Zba: address generation, including the .uw forms that zero-extend rs1[31:0]. */
#include "check.h"

TEST_BEGIN
    TEST_RR sh1add, 7, 1, 5
    TEST_RR sh1add, 0x0000000000000003, 0x8000000000000001, 1
    TEST_RR sh2add, 7, 0x8000000000000001, 3
    TEST_RR sh2add, 0, -1, 4
    TEST_RR sh3add, 0x1018, 3, 0x1000
    TEST_RR sh3add, 0xfffffffffffffffd, -1, 5
    TEST_RR add.uw, 0x80000005, 0xffffffff80000000, 5
    TEST_RR add.uw, 0, 0xffffffff00000000, 0
    TEST_RR add.uw, 0x0100000ffffffffe, 0x12345678ffffffff, 0x0100000effffffff
    TEST_RR sh1add.uw, 0x100000007, 0xffffffff80000001, 5
    TEST_RR sh2add.uw, 0x3fffffffc, 0xffffffffffffffff, 0
    TEST_RR sh3add.uw, 0x1018, 0x1234567800000003, 0x1000
    TEST_RR sh3add.uw, 0x7fffffff0, 0x80000000ffffffff, -8
    TEST_RI slli.uw, 0x800000010, 0xffffffff80000001, 4
    TEST_RI slli.uw, 0x8000000000000000, -1, 63
    TEST_RI slli.uw, 0xffffffff, 0xabcdef01ffffffff, 0
    TEST_RI slli.uw, 0, 0xffffffff00000000, 12
    /* zext.w is add.uw rd, rs, x0. */
    TEST_R zext.w, 0x87654321, 0x1234567887654321
TEST_END
