/* Start-up common to the RV64 (crt0.S) and RV32 (rv32/crt0.S) bare-metal runtimes: BARE_START
 * parks every hart but 0 and gives hart 0 its stacks; after the trap vectors are set,
 * PMP_OPEN_BSS_CLEAR_MAIN opens PMP, zeroes .bss and runs main, whose return value goes to
 * bare_exit. TOHOST_MAILBOX is HTIF's, found by the tohost symbol. */
#ifndef BARE_START_H
#define BARE_START_H

#if __riscv_xlen == 64
#define SREG sd
#else
#define SREG sw
#endif

.macro BARE_START trap_stack
    .section .text.init, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    /* Hart 0 runs the tests; any other parks. */
    bnez a0, park
    la sp, main_stack_top
    la t0, \trap_stack
    csrw mscratch, t0
.endm

.macro TOHOST_MAILBOX
    .section .tohost, "aw", @progbits
    .balign 64
    .globl tohost
tohost: .dword 0
    .balign 64
    .globl fromhost
fromhost: .dword 0
.endm

/* QEMU enforces PMP: without a matching entry S and U could touch nothing. One NAPOT entry grants
   everything. */
.macro PMP_OPEN_BSS_CLEAR_MAIN
    li t0, -1
    csrw pmpaddr0, t0
    li t0, 0x1f
    csrw pmpcfg0, t0
    la t0, _bss_start
    la t1, _bss_end
1:  bgeu t0, t1, 2f
    SREG zero, 0(t0)
    addi t0, t0, __riscv_xlen / 8
    j 1b
2:  call main
    call bare_exit
.endm

#endif
