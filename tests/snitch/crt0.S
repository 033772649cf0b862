/* Start-up of the Snitch cluster tests: every hart starts here with a0 = its hart id, takes a
 * stack of its own and runs main(hart); hart 0's return value is the exit status (HTIF), the
 * others wait in wfi. Traps go to trap_entry (runtime.c). */
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
    call main
    bnez s0, 1f
    call snitch_exit
1:  wfi
    j 1b

    .bss
    .balign 16
stacks: .skip STACK_SIZE * HARTS
