/* A hot loop whose registers are all outside jit/x64/translator.h's kMappedGuestOrder (s2-s11,
 * and t3 once in 1024 iterations): the JIT's adaptive mapping (JitEngine::adapt) moves s2-s11 into
 * host registers while it runs, and the results must stay exact across inline loads and stores,
 * the helper calls of div and rem, and chained blocks, and in the state a fault in an inline load
 * leaves (JitEngine::recover), which the SIGSEGV handler sees in s2-s11 (the kernel leaves them as
 * they were). */
#include "check.h"

#define SYS_rt_sigaction 134
#define SIGSEGV 11

    .data
    .balign 8
buf: .zero 256 * 8
/* The kernel's struct sigaction on riscv64: handler, flags, mask. */
segv_action: .dword on_segv, 0, 0

TEST_BEGIN
    la s11, buf
    li s2, 0x0123456789abcdef
    li s3, 1
    li s4, 0
    li s5, 300000
    li s6, 0x9e3779b97f4a7c15
    li t3, 0
1:
    mul s3, s3, s6
    addi s3, s3, 2
    xor s2, s2, s3
    srli s7, s2, 29
    andi s8, s7, 0x7f8
    add s9, s11, s8
    ld s10, 0(s9)
    add s10, s10, s2
    sd s10, 0(s9)
    add s4, s4, s10
    divu s7, s4, s3
    xor s2, s2, s7
    remu s8, s2, s6
    add s4, s4, s8
    andi s7, s5, 1023
    bnez s7, 2f
    add t3, t3, s4
2:
    addi s5, s5, -1
    bnez s5, 1b
    CHECK_REG s4, 0xd465fe8498c4d867
    CHECK_REG t3, 0xee2d3125ccec5196
    /* The buffer's sum */
    li s5, 256
    li s10, 0
3:
    ld s7, 0(s11)
    add s10, s10, s7
    addi s11, s11, 8
    addi s5, s5, -1
    bnez s5, 3b
    CHECK_REG s10, 0x492a722232fd1598

    li a0, SIGSEGV
    la a1, segv_action
    li a2, 0
    li a3, 8
    li a7, SYS_rt_sigaction
    ecall
    CHECK_REG a0, 0
    /* Written in one block up to the load, which faults: nothing wrote them back to the hart. */
    li s2, 102
    li s3, 103
    li s4, 104
    li s5, 105
    li s6, 106
    li s7, 107
    li s8, 108
    li s9, 109
    li s10, 110
    li s11, 111
    li t0, 0x10000000
    ld t1, 0(t0)
    CHECK_REG zero, 1  /* not reached */

on_segv:
    CHECK_REG s2, 102
    CHECK_REG s3, 103
    CHECK_REG s4, 104
    CHECK_REG s5, 105
    CHECK_REG s6, 106
    CHECK_REG s7, 107
    CHECK_REG s8, 108
    CHECK_REG s9, 109
    CHECK_REG s10, 110
    CHECK_REG s11, 111
TEST_END
