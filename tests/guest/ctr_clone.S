/* Known control transfers around the creation of a thread: calls, returns and taken branches, then a
 * raw clone of a thread that takes one branch and exits, then more transfers, a wait for the thread
 * and exit_group. The parent's records made before the clone must reach its CTR buffer and the
 * thread's copy of it (runtime/linux_threads.cpp syncs the ring there): tests/integration/ctr_thread.sh
 * compares both threads' --ctr-dump with a model worked out from these labels.
 * Straight-line code between labels and no compressed instructions, so that the model can count the
 * instructions between transfers from the disassembly. */
    .option norvc
    .text
    .globl _start
_start:
    li s1, 3
loop:       jal ra, f
loop_ret:   addi s1, s1, -1
loop_br:    bnez s1, loop                 /* taken twice, then not */

    /* clone(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_PARENT_SETTID |
     *       CLONE_CHILD_CLEARTID, child_stack_top, &child_tid, 0, &child_tid) */
    li a0, 0x310f00
    la a1, child_stack_top
    la a2, child_tid
    li a3, 0
    la a4, child_tid
    li a7, 220
    ecall
clone_br:   beqz a0, child                /* not taken in the parent */
    bltz a0, bad                          /* not taken: the clone worked */
    mv s2, a0
after_call: jal ra, f
after_ret:  la a1, g
after_ind:  jalr ra, 0(a1)
after_ind_ret:
    /* futex(&child_tid, FUTEX_WAIT, tid): back once the thread has exited (or at once if it has),
     * without a branch of its own, so that the thread's dump is always written and complete. */
    la a0, child_tid
    li a1, 0
    mv a2, s2
    li a3, 0
    li a7, 98
    ecall
    li a0, 0
    li a7, 94                             /* exit_group */
    ecall

child:
    li a0, 0
    li a7, 93                             /* exit: this thread only */
    ecall

f:          jalr x0, 0(ra)
g:          jalr x0, 0(ra)
bad:        unimp

    .bss
    .balign 16
child_tid: .skip 8
    .skip 4096
child_stack_top:
