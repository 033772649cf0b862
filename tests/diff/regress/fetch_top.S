/* A jump to the last page of the address space, where nothing answers, must raise an instruction
 * access fault. The JIT used to hang there, walking the pages of the faulting block with a page
 * number that wrapped past 2^64 (runtime/jit_engine.cpp, block_for). */
#include "exit.h"
    .section .text.init, "ax"
    .globl _start
_start:
    lla t0, trap
    csrw mtvec, t0
    lla s0, back
    li s1, 0xfffffffffffff010
    jalr ra, 0(s1)
back:
    li a0, 1
    li t0, 1 /* instruction access fault */
    bne s2, t0, done
    li a0, 2
    bne s3, s1, done
    li a0, 3
    bne ra, s0, done
    li a0, 0
done:
    exit_a0

    .balign 4
trap:
    csrr s2, mcause
    csrr s3, mtval
    csrw mepc, s0
    mret

    tohost_section
