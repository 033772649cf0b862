/* With c off, a jump to an address that is 2 mod 4 raises instruction-address-misaligned at the jump
 * (IALIGN 32), and the guest's SIGBUS handler gets what Linux gives it (arch/riscv/kernel/traps.c,
 * do_trap_insn_misaligned): si_code BUS_ADRALN and si_addr the jump's own address, its epc, not the
 * target. glibc's start-up is compressed, so this program is built for RV64I alone and installs its
 * handler with the raw rt_sigaction. Run with --cpu rv64,c=off. */
#include "check.h"

#define SYS_rt_sigaction 134
#define SIGBUS 7
#define SA_SIGINFO 4
#define BUS_ADRALN 1

TEST_BEGIN
    /* rt_sigaction(SIGBUS, {on_sigbus, SA_SIGINFO, mask 0}, NULL, 8) */
    addi sp, sp, -32
    la t0, on_sigbus
    sd t0, 0(sp)
    li t0, SA_SIGINFO
    sd t0, 8(sp)
    sd zero, 16(sp)
    li a0, SIGBUS
    mv a1, sp
    li a2, 0
    li a3, 8
    li a7, SYS_rt_sigaction
    ecall
    CHECK_REG a0, 0
    la t0, target
    addi t0, t0, 2
jump:
    jalr x0, 0(t0)
    li t0, 1                /* not reached: the jump must trap */
    CHECK_REG t0, 0
target:
    nop
    nop
    li t0, 2                /* not reached either */
    CHECK_REG t0, 0

on_sigbus:                  /* a0 = the signal, a1 = its siginfo */
    CHECK_REG a0, SIGBUS
    lw t0, 0(a1)            /* si_signo */
    CHECK_REG t0, SIGBUS
    lw t0, 8(a1)            /* si_code */
    CHECK_REG t0, BUS_ADRALN
    ld t0, 16(a1)           /* si_addr */
    la t1, jump
    CHECK_EQ t0, t1
TEST_END
