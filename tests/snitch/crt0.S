/* Start-up of the Snitch cluster tests: every hart starts here with a0 = its hart id, takes a
 * stack of its own and runs main(hart); hart 0's return value is the exit status (HTIF), the
 * others wait in wfi. Traps go to trap_entry (runtime.c). Built with COUNTERS_OFF, hart 0 first
 * disables the 16 performance counters, which lets --quantum run (docs/snitch.md, "Quantum mode"). */
#define STACK_SIZE 4096
#define HARTS 9
#define MSTATUS_FS_INITIAL (1 << 13)

    .section .text.init, "ax"
    .globl _start
_start:
    la sp, stacks + STACK_SIZE
    li t0, STACK_SIZE
    mul t0, t0, a0
    add sp, sp, t0
    la t0, trap_entry
    csrw mtvec, t0
    li t0, MSTATUS_FS_INITIAL /* the trap handler saves FP registers */
    csrs mstatus, t0
    mv s0, a0
#ifdef COUNTERS_OFF
    bnez a0, 9f
    li t0, 0x10020000 /* PERF_CNT_EN(0) */
    li t1, 16
8:  sw zero, 0(t0)
    sw zero, 4(t0)
    addi t0, t0, 8
    addi t1, t1, -1
    bnez t1, 8b
9:
#endif
    call main
    bnez s0, 1f
    call snitch_exit
1:  wfi
    j 1b

    .bss
    .balign 16
stacks: .skip STACK_SIZE * HARTS
