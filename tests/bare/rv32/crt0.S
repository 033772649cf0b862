/* Start-up and trap entry of the RV32 bare-metal tests (rv32.h).
 *
 * M-mode traps enter on the stack in mscratch and call rv32_trap (runtime.c) with the caller-saved
 * registers saved, then mret to the mepc it leaves. An ecall from S (cause 9) is run_in_s's
 * return instead: it resumes run_in_s's caller in M with the S function's a0.
 */
#include "../start.h"

#define CAUSE_ECALL_S 9
#define STACK_SIZE 8192

    BARE_START trap_stack_top
    la t0, trap_entry
    csrw mtvec, t0
    PMP_OPEN_BSS_CLEAR_MAIN
park:
    wfi
    j park
    .option pop

/* The caller-saved registers but t0, which trap_entry saves first, 4 bytes each from 4(sp). */
.macro CALLER_SAVED op
    .set off, 4
    .irp r, ra, t1, t2, a0, a1, a2, a3, a4, a5, a6, a7, t3, t4, t5, t6
    \op \r, off(sp)
    .set off, off + 4
    .endr
.endm

/* What run_in_s's caller keeps: ra, sp and s0-s11, in run_ctx. */
.macro RUN_CTX op
    la t0, run_ctx
    \op ra, 0(t0)
    \op sp, 4(t0)
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11
    \op s\n, (8 + 4*\n)(t0)
    .endr
.endm

    .balign 4
trap_entry:
    csrrw sp, mscratch, sp
    addi sp, sp, -64
    sw t0, 0(sp)
    csrr t0, mcause
    addi t0, t0, -CAUSE_ECALL_S
    beqz t0, s_returned
    CALLER_SAVED sw
    call rv32_trap
    CALLER_SAVED lw
    lw t0, 0(sp)
    addi sp, sp, 64
    csrrw sp, mscratch, sp
    mret
s_returned:
    addi sp, sp, 64
    csrrw sp, mscratch, sp
    RUN_CTX lw
    ret

/* uint32_t run_in_s(uint32_t (*fn)(void)): calls fn in S-mode (entered by mret) on the same stack;
 * fn's closing ecall brings its result back. */
    .globl run_in_s
run_in_s:
    RUN_CTX sw
    li t1, 3 << 11
    csrc mstatus, t1
    li t1, 1 << 11
    csrs mstatus, t1
    la t1, s_trampoline
    csrw mepc, t1
    mv t0, a0
    mret
s_trampoline:
    jalr t0
    ecall
1:  j 1b

    .bss
    .balign 16
run_ctx: .skip 4 * 20
    .balign 16
    .skip STACK_SIZE
main_stack_top:
    .skip STACK_SIZE
trap_stack_top:

    TOHOST_MAILBOX
