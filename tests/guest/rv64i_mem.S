/* RV64I loads and stores: widths, sign/zero extension, offsets, misaligned accesses
 * (Linux user mode handles them invisibly) including across a page, a load into x0, fences. */
#include "check.h"

TEST_BEGIN
    la s0, src

    /* Each width and extension. */
    CHECK_MEM lb,  0, s0, 0x11
    CHECK_MEM lb,  7, s0, 0xffffffffffffff88
    CHECK_MEM lbu, 7, s0, 0x88
    CHECK_MEM lh,  0, s0, 0x2211
    CHECK_MEM lh,  6, s0, 0xffffffffffff8877
    CHECK_MEM lhu, 6, s0, 0x8877
    CHECK_MEM lw,  0, s0, 0x44332211
    CHECK_MEM lw,  4, s0, 0xffffffff88776655
    CHECK_MEM lwu, 4, s0, 0x88776655
    CHECK_MEM ld,  0, s0, 0x8877665544332211
    CHECK_MEM ld,  8, s0, 0x7f80ff00017ffe80
    CHECK_MEM lb, 8, s0, 0xffffffffffffff80
    CHECK_MEM lb, 9, s0, 0xfffffffffffffffe
    CHECK_MEM lbu, 9, s0, 0xfe
    CHECK_MEM lb, 10, s0, 0x7f
    CHECK_MEM lhu, 12, s0, 0xff00
    CHECK_MEM lh, 12, s0, 0xffffffffffffff00

    /* Negative and maximum offsets. */
    addi s1, s0, 2047
    CHECK_MEM lbu, -2046, s1, 0x22
    addi s1, s0, 8
    CHECK_MEM lw, -4, s1, 0xffffffff88776655
    la s1, far
    addi s1, s1, -2047
    CHECK_MEM ld, 2047, s1, 0x0123456789abcdef

    /* Stores write exactly their width. */
    la s1, dst
    li t0, -1
    sd t0, 0(s1)
    sd t0, 8(s1)
    li t0, 0x0102030405060708
    sb t0, 0(s1)
    CHECK_MEM ld, 0, s1, 0xffffffffffffff08
    sh t0, 2(s1)
    CHECK_MEM ld, 0, s1, 0xffffffff0708ff08
    sw t0, 4(s1)
    CHECK_MEM ld, 0, s1, 0x050607080708ff08
    sd t0, 8(s1)
    CHECK_MEM ld, 8, s1, 0x0102030405060708
    sd x0, 8(s1)
    CHECK_MEM ld, 8, s1, 0
    addi s2, s1, 16
    sw t0, -4(s2)
    CHECK_MEM ld, 8, s1, 0x0506070800000000

    /* Misaligned loads at every offset within and across an 8-byte boundary. */
    CHECK_MEM lh,  1, s0, 0x3322
    CHECK_MEM lhu, 7, s0, 0x8088
    CHECK_MEM lh,  7, s0, 0xffffffffffff8088
    CHECK_MEM lw,  1, s0, 0x55443322
    CHECK_MEM lw,  3, s0, 0x77665544
    CHECK_MEM lw,  5, s0, 0xffffffff80887766
    CHECK_MEM lwu, 5, s0, 0x80887766
    CHECK_MEM ld,  1, s0, 0x8088776655443322
    CHECK_MEM ld,  3, s0, 0x7ffe808877665544
    CHECK_MEM ld,  7, s0, 0x80ff00017ffe8088
    CHECK_MEM ld,  5, s0, 0x00017ffe80887766

    /* Misaligned stores. */
    la s1, dst
    sd x0, 0(s1)
    sd x0, 8(s1)
    li t0, 0x1122334455667788
    sd t0, 3(s1)
    CHECK_MEM ld, 0, s1, 0x4455667788000000
    CHECK_MEM ld, 8, s1, 0x0000000000112233
    sw t0, 9(s1)
    CHECK_MEM ld, 8, s1, 0x0000005566778833
    sh t0, 15(s1)
    CHECK_MEM ld, 8, s1, 0x8800005566778833
    CHECK_MEM lbu, 16, s1, 0x77

    /* A misaligned doubleword across a page boundary. */
    la s1, page_end
    li t0, 0xa1b2c3d4e5f60718
    sd t0, -3(s1)
    CHECK_MEM ld, -3, s1, 0xa1b2c3d4e5f60718
    CHECK_MEM lbu, -3, s1, 0x18
    CHECK_MEM lbu, 4, s1, 0xa1
    CHECK_MEM lw, -2, s1, 0xffffffffd4e5f607

    /* A load into x0 still happens but its value is discarded. */
    lw x0, 0(s0)
    CHECK_REG x0, 0
    ld x0, 1(s0)
    CHECK_REG x0, 0

    /* Fences order nothing visible to a single hart, but must decode and execute. */
    fence
    fence rw, rw
    fence r, w
    fence.tso
    CHECK_MEM ld, 0, s0, 0x8877665544332211

    /* The same register as base and destination. */
    mv a0, s0
    ld a0, 0(a0)
    CHECK_REG a0, 0x8877665544332211
TEST_END

    .data
    .balign 16
src:
    .dword 0x8877665544332211
    .dword 0x7f80ff00017ffe80
    .dword 0x0123456789abcdef
    .space 2048
far:
    .dword 0x0123456789abcdef

    .balign 16
dst:
    .space 32

    .balign 4096
    .space 4096
page_end:
    .space 64
