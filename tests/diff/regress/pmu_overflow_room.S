/* With an mhpmevent counting TLB misses (0x10, csr/pmu.h) at 1, 2^64 - 1 misses are left before it
 * wraps: next_overflow (csr/pmu.cpp) computed the room that leaves as (left + 1) / 2, which wrapped
 * to 0 instructions, and the JIT spun at its deadline forever. Loads and stores to a page the TLB
 * already holds must then run, and miss nothing. */
#include "exit.h"
    .section .text.init, "ax"
    .globl _start
_start:
    li t0, 0x10
    csrw mhpmevent3, t0
    csrw mcountinhibit, zero
    lla s0, data
    ld t1, 0(s0) /* the data page is in the TLB from here on, for loads and stores */
    sd t1, 8(s0)
    li t0, 1
    csrw mhpmcounter3, t0
    .rept 64
    ld t1, 0(s0)
    sd t1, 8(s0)
    .endr
    csrr t2, mhpmcounter3
    li a0, 1
    li t0, 1
    bne t2, t0, done
    li a0, 0
done:
    exit_a0

    .data
    .balign 4096
data: .dword 0, 0

    tohost_section
