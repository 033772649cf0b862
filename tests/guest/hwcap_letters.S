/* AT_HWCAP's letters follow --cpu with any of m, a, f, d, c switched off:
 *   hwcap_letters LETTERS
 * exits 0 when the auxv's AT_HWCAP, masked to the 26 letter bits, is exactly LETTERS (e.g. IMAFD),
 * and riscv_hwprobe's IMA_EXT_0 has IMA_FD set exactly when F and D are and IMA_C exactly when C is.
 * glibc's start-up needs c, f and d, so this reads the auxv from the initial stack itself; it is
 * built for RV64I alone (tests/guest/CMakeLists.txt), so it runs on every --cpu it is given. */
#include "check.h"

#define AT_NULL 0
#define AT_HWCAP 16
#define SYS_riscv_hwprobe 258
#define KEY_IMA_EXT_0 4
#define IMA_FD 1
#define IMA_C 2

TEST_BEGIN
    ld t0, 0(sp)            /* argc */
    li t1, 2
    CHECK_EQ t0, t1
    ld a0, 16(sp)           /* argv[1]: the letters expected */
    li s0, 0                /* their bits */
1:  lbu t0, 0(a0)
    beqz t0, 2f
    addi t0, t0, -'A'
    li t1, 1
    sll t1, t1, t0
    or s0, s0, t1
    addi a0, a0, 1
    j 1b
2:
    /* sp: argc, argv[0..argc-1], NULL, envp..., NULL, then (type, value) pairs. */
    addi a0, sp, 32         /* past argc, argv[0], argv[1] and argv's NULL */
3:  ld t0, 0(a0)
    addi a0, a0, 8
    bnez t0, 3b
    li s1, -1               /* AT_HWCAP's value; -1 if absent */
    li t2, AT_HWCAP
4:  ld t0, 0(a0)
    ld t1, 8(a0)
    addi a0, a0, 16
    beqz t0, 5f             /* AT_NULL */
    bne t0, t2, 4b
    mv s1, t1
    j 4b
5:  li t0, (1 << 26) - 1
    and s1, s1, t0
    CHECK_EQ s1, s0

#ifndef GUEST_QEMU_REF  /* qemu-riscv64 7.2 has no riscv_hwprobe */
    /* hwprobe's FD and C bits from the same letters. */
    li s2, 0
    srli t0, s0, 'F' - 'A'
    srli t1, s0, 'D' - 'A'
    and t0, t0, t1
    andi t0, t0, 1
    beqz t0, 6f
    ori s2, s2, IMA_FD
6:  srli t0, s0, 'C' - 'A'
    andi t0, t0, 1
    beqz t0, 7f
    ori s2, s2, IMA_C
7:  addi sp, sp, -16
    li t0, KEY_IMA_EXT_0
    sd t0, 0(sp)
    sd zero, 8(sp)
    mv a0, sp
    li a1, 1
    li a2, 0
    li a3, 0
    li a4, 0
    li a7, SYS_riscv_hwprobe
    ecall
    CHECK_REG a0, 0
    ld t0, 0(sp)
    CHECK_REG t0, KEY_IMA_EXT_0
    ld s3, 8(sp)
    andi s3, s3, IMA_FD | IMA_C
    CHECK_EQ s3, s2
    addi sp, sp, 16
#endif
TEST_END
