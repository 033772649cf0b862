/* Start-up and trap entry of the RV32 bare-metal tests (rv32.h).
 *
 * M-mode traps enter on the stack in mscratch and call rv32_trap (runtime.c) with the caller-saved
 * registers saved, then mret to the mepc it leaves. An ecall from S (cause 9) is run_in_s's
 * return instead: it resumes run_in_s's caller in M with the S function's a0.
 */
#define CAUSE_ECALL_S 9
#define STACK_SIZE 8192

    .section .text.init, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    /* Hart 0 runs the test; any other parks. */
    bnez a0, park
    la sp, main_stack_top
    la t0, trap_stack_top
    csrw mscratch, t0
    la t0, trap_entry
    csrw mtvec, t0
    /* QEMU enforces PMP: one NAPOT entry lets S touch everything. */
    li t0, -1
    csrw pmpaddr0, t0
    li t0, 0x1f
    csrw pmpcfg0, t0
    la t0, _bss_start
    la t1, _bss_end
1:  bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:  call main
    call bare_exit
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
    la t0, run_ctx
    lw ra, 0(t0)
    lw sp, 4(t0)
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11
    lw s\n, (8 + 4*\n)(t0)
    .endr
    ret

/* uint32_t run_in_s(uint32_t (*fn)(void)): calls fn in S-mode (entered by mret) on the same stack;
 * fn's closing ecall brings its result back. */
    .globl run_in_s
run_in_s:
    la t0, run_ctx
    sw ra, 0(t0)
    sw sp, 4(t0)
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11
    sw s\n, (8 + 4*\n)(t0)
    .endr
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

    .section .tohost, "aw", @progbits
    .balign 64
    .globl tohost
tohost: .dword 0
    .balign 64
    .globl fromhost
fromhost: .dword 0
