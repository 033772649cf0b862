/* Start-up, trap entry/exit and privilege switching for the bare-metal tests.
 *
 * Traps into M enter on the stack in mscratch (csrrw swaps it with the interrupted sp), traps
 * into S on the stack in sscratch. Both save every register into a struct frame and call
 * m_trap/s_trap (runtime.c); on return they restore the frame, including epc and status, so a
 * handler steers the return by editing the frame.
 */
#include "frame.h"
#include "start.h"

#define MSTATUS_MPP (3 << 11)
#define STACK_SIZE 16384

    BARE_START m_trap_stack_top
    la t0, s_trap_stack_top
    csrw sscratch, t0
    la t0, m_direct
    csrw mtvec, t0
    la t0, s_direct
    csrw stvec, t0
    PMP_OPEN_BSS_CLEAR_MAIN
    /* Until an IPI brings a secondary_entry (bare.h) to call on its own stack. */
park:
    li t0, 1 << 3 /* MSIE: wfi wakes on the IPI; mstatus.MIE stays 0, so no trap is taken */
    csrs mie, t0
1:  wfi
    la t0, secondary_entry
    ld t0, 0(t0)
    beqz t0, 1b
    la sp, secondary_stack_top
    jalr t0
    j 1b
    .option pop

/* Entry stubs: switch to the trap stack, free t0 to carry the vector slot, join the common path. */
.macro ENTRY scratch, slot, common
    csrrw sp, \scratch, sp
    addi sp, sp, -FRAME_SIZE
    sd t0, 5*8(sp)
    li t0, \slot
    j \common
.endm

.macro SAVE_REST scratch, epc, cause, tval, status
    sd t0, FRAME_SLOT(sp)
    sd x1, 1*8(sp)
    .irp r, 3,4,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    sd x\r, \r*8(sp)
    .endr
    csrr t0, \scratch
    sd t0, 2*8(sp)
    csrr t0, \epc
    sd t0, FRAME_EPC(sp)
    csrr t0, \cause
    sd t0, FRAME_CAUSE(sp)
    csrr t0, \tval
    sd t0, FRAME_TVAL(sp)
    csrr t0, \status
    sd t0, FRAME_STATUS(sp)
.endm

.macro RESTORE scratch, epc, status, ret
    ld t0, FRAME_EPC(sp)
    csrw \epc, t0
    ld t0, FRAME_STATUS(sp)
    csrw \status, t0
    addi t0, sp, FRAME_SIZE
    csrw \scratch, t0
    ld x1, 1*8(sp)
    .irp r, 3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    ld x\r, \r*8(sp)
    .endr
    ld sp, 2*8(sp)
    \ret
.endm

    .text
    .option push
    /* Vector slots must be 4 bytes each, and vector bases 4-byte aligned. */
    .option norvc

    .balign 256
    .globl m_vectors
m_vectors:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    j m_slot\n
    .endr
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
m_slot\n: ENTRY mscratch, \n, m_common
    .endr

    .balign 256
    .globl s_vectors
s_vectors:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    j s_slot\n
    .endr
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
s_slot\n: ENTRY sscratch, \n, s_common
    .endr

    .balign 4
    .globl m_direct
m_direct:
    ENTRY mscratch, SLOT_DIRECT, m_common
m_common:
    SAVE_REST mscratch, mepc, mcause, mtval, mstatus
    mv a0, sp
    call m_trap
    RESTORE mscratch, mepc, mstatus, mret

    .balign 4
    .globl s_direct
s_direct:
    ENTRY sscratch, SLOT_DIRECT, s_common
s_common:
    SAVE_REST sscratch, sepc, scause, stval, sstatus
    mv a0, sp
    call s_trap
    RESTORE sscratch, sepc, sstatus, sret
    .option pop

/* uint64_t run_in(unsigned priv, uint64_t (*fn)(uint64_t), uint64_t arg): calls fn(arg) in
 * privilege `priv` (entered by mret) on the lower stack, and returns its result once fn's
 * closing ecall (RUN_MAGIC) reaches m_trap, which calls run_return. */
    .globl run_in
run_in:
    la t0, run_ctx
    sd ra, 0(t0)
    sd sp, 8(t0)
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11
    sd s\n, (16 + 8*\n)(t0)
    .endr
    li t1, MSTATUS_MPP
    csrc mstatus, t1
    slli t1, a0, 11
    csrs mstatus, t1
    la t1, run_trampoline
    csrw mepc, t1
    la sp, lower_stack_top
    mv t0, a1
    mv a0, a2
    mret
    .globl run_trampoline
run_trampoline:
    jalr t0
    li a7, RUN_MAGIC
    ecall
1:  j 1b

/* Resumes run_in's caller in M with result a0; the trap stack is given back to mscratch. */
    .globl run_return
run_return:
    la t0, m_trap_stack_top
    csrw mscratch, t0
    la t0, run_ctx
    ld ra, 0(t0)
    ld sp, 8(t0)
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11
    ld s\n, (16 + 8*\n)(t0)
    .endr
    ret

    .bss
    .balign 16
run_ctx: .skip 8 * 14
    .balign 16
    .skip STACK_SIZE
main_stack_top:
    .skip STACK_SIZE
    .globl m_trap_stack_top
m_trap_stack_top:
    .skip STACK_SIZE
s_trap_stack_top:
    .skip STACK_SIZE
    .globl lower_stack_top
lower_stack_top:
    .skip 4096
secondary_stack_top:

    TOHOST_MAILBOX
