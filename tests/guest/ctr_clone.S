/* Known control transfers around the creation of a thread: calls, returns and taken branches, then a
 * raw clone of a thread that exits at once, then more transfers and exit_group. The parent's records
 * made before the clone must reach its CTR buffer (runtime/linux_threads.cpp syncs the ring there):
 * tests/integration/ctr_thread.sh compares the --ctr-dump with a model worked out from these labels.
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

    /* clone(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD, child_stack_top) */
    li a0, 0x10f00
    la a1, child_stack_top
    li a2, 0
    li a3, 0
    li a4, 0
    li a7, 220
    ecall
clone_br:   beqz a0, child                /* not taken in the parent */
    bltz a0, bad                          /* not taken: the clone worked */
after_call: jal ra, f
after_ret:  la a1, g
after_ind:  jalr ra, 0(a1)
after_ind_ret:
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
    .skip 4096
child_stack_top:
