/* Zifencei: code written into an executable mapping runs after fence.i, including after it was
 * already executed (a translation cache must drop it), a store that rewrites an instruction of
 * the block doing the store, compressed code, code replaced by a fresh mapping, and the
 * riscv_flush_icache system call that compilers' __builtin___clear_cache uses. */
#include "check.h"

#define SYS_munmap 215
#define SYS_riscv_flush_icache 259

/* Copies \len bytes (a multiple of 2) from \src to \dst with t0/t1/t2. */
.macro COPY dst, src, len
    la t0, \src
    mv t1, \dst
    li t2, \len
.Lcopy\@:
    lhu t3, 0(t0)
    sh t3, 0(t1)
    addi t0, t0, 2
    addi t1, t1, 2
    addi t2, t2, -2
    bnez t2, .Lcopy\@
.endm

/* s1 = sum of 50 calls of the code at s0. */
.macro CALL50
    li s1, 0
    li s2, 50
.Lcall\@:
    jalr ra, 0(s0)
    add s1, s1, a0
    addi s2, s2, -1
    bnez s2, .Lcall\@
.endm

TEST_BEGIN
    MMAP_RWX zero, 8192, MAP_PRIVATE_ANON
    li t0, -4096
    CHECK_LTU a0, t0                    /* not an error return */
    mv s0, a0

    /* New code runs after fence.i, many times. */
    COPY s0, ret42, 8
    fence.i
    CALL50
    CHECK_REG s1, 50 * 42

    /* Rewrite the first instruction of code that already ran. */
    la t0, li43
    lw t0, 0(t0)
    sw t0, 0(s0)
    fence.i
    CALL50
    CHECK_REG s1, 50 * 43

    /* Replace it with compressed code. */
    COPY s0, c_ret5, 4
    fence.i
    jalr ra, 0(s0)
    CHECK_REG a0, 5

    /* The code rewrites one of its own later instructions, then fence.i, then runs it.
     * First make it hot while it rewrites the instruction with itself. */
    COPY s0, smc, 20
    fence.i
    li s1, 0
    li s2, 20
1:  mv a0, s0
    la t0, li1
    lw a1, 0(t0)
    jalr ra, 0(s0)
    add s1, s1, a0
    addi s2, s2, -1
    bnez s2, 1b
    CHECK_REG s1, 20
    mv a0, s0
    la t0, li2
    lw a1, 0(t0)
    jalr ra, 0(s0)
    CHECK_REG a0, 2
    mv a0, s0
    la t0, li1
    lw a1, 0(t0)
    jalr ra, 0(s0)
    CHECK_REG a0, 1

    /* Code that spans both pages of the mapping. */
    li s3, 4096 - 4
    add s3, s0, s3
    COPY s3, ret42, 8
    la t0, li43
    lw t0, 0(t0)
    sw t0, 0(s3)
    fence.i
    jalr ra, 0(s3)
    CHECK_REG a0, 43

    /* A fresh mapping at the same address holds different code. */
    mv a0, s0
    li a1, 8192
    li a7, SYS_munmap
    ecall
    CHECK_REG a0, 0
    MMAP_RWX s0, 8192, MAP_PRIVATE_ANON | MAP_FIXED
    CHECK_EQ a0, s0
    COPY s0, ret44, 8
    fence.i
    CALL50
    CHECK_REG s1, 50 * 44

    /* riscv_flush_icache(start, end, 0) instead of fence.i. */
    COPY s0, ret42, 8
    mv a0, s0
    addi a1, s0, 8
    li a2, 0
    li a7, SYS_riscv_flush_icache
    ecall
    CHECK_REG a0, 0
    CALL50
    CHECK_REG s1, 50 * 42
TEST_END

/* Code templates, copied into the mapping; assembled uncompressed unless marked. */
    .section .rodata
    .balign 4
    .option push
    .option norvc
ret42:
    li a0, 42
    ret
ret44:
    li a0, 44
    ret
li43:
    li a0, 43
li1:
    li a0, 1
li2:
    li a0, 2
smc:                                    /* 20 bytes; a0 = its address, a1 = insn for offset 12 */
    sw a1, 12(a0)
    fence.i
    nop
    li a0, 1
    ret
    .option rvc
c_ret5:
    c.li a0, 5
    c.jr ra
    .option pop
