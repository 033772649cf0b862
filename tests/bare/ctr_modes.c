/* Smctr privilege-mode rules (smctr.adoc, "Privilege Mode Transitions", "External Traps"): traps
 * and trap returns between enabled modes are recorded whole; a trap from a disabled mode into an
 * enabled one has ctrsource.PC 0; a trap from an enabled mode into a disabled one (external) is
 * recorded only with the target's xTE and those of the modes in between (S->M: MTE; U->M: MTE and
 * STE; U->S: STE), with ctrtarget.PC 0 and whatever EXCINH/INTRINH say; a trap return into a
 * disabled mode has ctrtarget.PC 0, one from a disabled mode is not recorded; EXCINH, INTRINH and
 * TRETINH drop their types. Exceptions are ecalls and illegal instructions, interrupts SSIP,
 * delegated to S or not, pending when the mret of ctr_run enters the lower mode; a trap's target
 * is where it goes, the vector slot when vectored. */
#include "ctr.h"

/* Snippets for ctr_run (see ctr.h), 4-byte instructions only:
 *   sn_ecall: a direct jump, an ecall with a7 = 0, the exit ecall;
 *   sn_ill: a direct jump, an illegal instruction (a write of cycle), the exit ecall;
 *   sn_irq: a direct jump, where a pending interrupt is taken first, then the exit ecall;
 *   sn_sret_u / sn_sret_s (in S): an sret to U / to S at the next label, then the exit ecall. */
extern char sn_ecall[], sn_ecall_ec[], sn_ecall_exit[], sn_ill[], sn_ill_ins[], sn_ill_exit[], sn_irq[],
    sn_irq_exit[], sn_sret_u[], sn_sret_u_ins[], sn_sret_u_t[], sn_sret_s[], sn_sret_s_ins[], sn_sret_s_t[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "sn_ecall:\n"
    "  j 1f\n"
    "1: li a7, 0\n"
    "sn_ecall_ec: ecall\n"
    "  li a7, " CTR_STR(CTR_EXIT) "\n"
    "sn_ecall_exit: ecall\n"

    "sn_ill:\n"
    "  j 1f\n"
    "1:\n"
    "sn_ill_ins: csrrw zero, cycle, zero\n"
    "  li a7, " CTR_STR(CTR_EXIT) "\n"
    "sn_ill_exit: ecall\n"

    "sn_irq:\n"
    "  j 1f\n"
    "1: li a7, " CTR_STR(CTR_EXIT) "\n"
    "sn_irq_exit: ecall\n"

    "sn_sret_u:\n"
    "  la t1, sn_sret_u_t\n"
    "  csrw sepc, t1\n"
    "  li t1, 0x100\n" /* SPP */
    "  csrc sstatus, t1\n"
    "sn_sret_u_ins: sret\n"
    "sn_sret_u_t: li a7, " CTR_STR(CTR_EXIT) "\n"
    "  ecall\n"

    "sn_sret_s:\n"
    "  la t1, sn_sret_s_t\n"
    "  csrw sepc, t1\n"
    "  li t1, 0x100\n"
    "  csrs sstatus, t1\n"
    "sn_sret_s_ins: sret\n"
    "sn_sret_s_t: li a7, " CTR_STR(CTR_EXIT) "\n"
    "  ecall\n"
    "  .option pop\n");

/* The handlers' branches must not show (ctr.h). */
#define BASE CTRCTL_TKBRINH
#define MR ctr_run_mret
#define MV ctr_mvec
#define SV ctr_svec
#define J(sn) REC(sn, sn + 4, CTR_DIR_JUMP)
#define EXC CTR_EXCEPTION
#define IRQ CTR_INTERRUPT
#define RET CTR_TRAP_RETURN

/* A fresh buffer, then fn in priv with mctrctl = BASE | ctl, which it leaves as it was; the run ends
   with the exit ecall from exit_priv. */
static void run(unsigned priv, void (*fn)(void), uint64_t ctl, unsigned exit_priv) {
  ctr_reset(4);
  ctr_clear_traps();
  ctr_run(priv, fn, BASE | ctl);
  CHECKN("mctrctl as the run set it", BASE | ctl, ctr_exit_ctl);
  uint64_t last = (ctr_mtrap_n - 1) % CTR_TRAP_LOG;
  CHECKN("the run ended with its exit ecall", CAUSE_ECALL_U + exit_priv, ctr_mtraps[last].cause);
}
#define SN(f) ((void (*)(void))(f))

static void s_to_m(void) {
  run(PRIV_S, SN(sn_ecall), CTRCTL_S | CTRCTL_M, PRIV_S);
  EXPECT_RECS("S->M ecall, both enabled: mret, jump, ecall, mret, ecall",
              REC(MR, sn_ecall, RET), J(sn_ecall), REC(sn_ecall_ec, MV, EXC), REC(ctr_mret, sn_ecall_ec + 4, RET),
              REC(sn_ecall_exit, MV, EXC));
  run(PRIV_S, SN(sn_ecall), CTRCTL_S, PRIV_S);
  EXPECT_RECS("S->M, M disabled: an external trap, not recorded by default", J(sn_ecall));
  run(PRIV_S, SN(sn_ecall), CTRCTL_S | CTRCTL_STE, PRIV_S);
  EXPECT_RECS("S->M external trap: STE is not M's enable", J(sn_ecall));
  run(PRIV_S, SN(sn_ecall), CTRCTL_S | CTRCTL_MTE, PRIV_S);
  EXPECT_RECS("S->M external trap with MTE: target 0; the mret from disabled M is not recorded", J(sn_ecall),
              REC(sn_ecall_ec, 0, EXC), REC(sn_ecall_exit, 0, EXC));
  run(PRIV_S, SN(sn_ecall), CTRCTL_S | CTRCTL_MTE | CTRCTL_EXCINH, PRIV_S);
  EXPECT_RECS("external traps do not depend on EXCINH", J(sn_ecall), REC(sn_ecall_ec, 0, EXC),
              REC(sn_ecall_exit, 0, EXC));
  run(PRIV_S, SN(sn_ecall), CTRCTL_M, PRIV_S);
  EXPECT_RECS("only M enabled: xRET to S has target 0, traps from S source 0", REC(MR, 0, RET), REC(0, MV, EXC),
              REC(ctr_mret, 0, RET), REC(0, MV, EXC));
  run(PRIV_S, SN(sn_ecall), CTRCTL_S | CTRCTL_M | CTRCTL_EXCINH, PRIV_S);
  EXPECT_RECS("EXCINH drops the exceptions", REC(MR, sn_ecall, RET), J(sn_ecall),
              REC(ctr_mret, sn_ecall_ec + 4, RET));
  run(PRIV_S, SN(sn_ecall), CTRCTL_S | CTRCTL_M | CTRCTL_TRETINH, PRIV_S);
  EXPECT_RECS("TRETINH drops the trap returns", J(sn_ecall), REC(sn_ecall_ec, MV, EXC),
              REC(sn_ecall_exit, MV, EXC));
}

static void u_to_m(void) {
  run(PRIV_U, SN(sn_ecall), CTRCTL_U | CTRCTL_MTE, PRIV_U);
  EXPECT_RECS("U->M external trap: MTE alone is not enough", J(sn_ecall));
  run(PRIV_U, SN(sn_ecall), CTRCTL_U | CTRCTL_STE, PRIV_U);
  EXPECT_RECS("U->M external trap: STE alone is not enough", J(sn_ecall));
  run(PRIV_U, SN(sn_ecall), CTRCTL_U | CTRCTL_S | CTRCTL_MTE, PRIV_U);
  EXPECT_RECS("U->M external trap: S enabled still needs STE", J(sn_ecall));
  run(PRIV_U, SN(sn_ecall), CTRCTL_U | CTRCTL_MTE | CTRCTL_STE, PRIV_U);
  EXPECT_RECS("U->M external trap with MTE and STE: target 0", J(sn_ecall), REC(sn_ecall_ec, 0, EXC),
              REC(sn_ecall_exit, 0, EXC));
  run(PRIV_U, SN(sn_ecall), CTRCTL_U | CTRCTL_M, PRIV_U);
  EXPECT_RECS("U->M ecall, both enabled (S between them disabled)", REC(MR, sn_ecall, RET), J(sn_ecall),
              REC(sn_ecall_ec, MV, EXC), REC(ctr_mret, sn_ecall_ec + 4, RET), REC(sn_ecall_exit, MV, EXC));
}

/* Illegal instructions delegated to S; the exit ecall from U still goes to M. */
static void to_s(void) {
  csr_write(medeleg, 1ul << CAUSE_ILLEGAL);
  run(PRIV_U, SN(sn_ill), CTRCTL_U, PRIV_U);
  EXPECT_RECS("U->S, S disabled: external, and the sret from disabled S is not recorded", J(sn_ill));
  run(PRIV_U, SN(sn_ill), CTRCTL_U | CTRCTL_STE, PRIV_U);
  EXPECT_RECS("U->S external trap with STE: target 0 (U->M still needs MTE)", J(sn_ill), REC(sn_ill_ins, 0, EXC));
  run(PRIV_U, SN(sn_ill), CTRCTL_U | CTRCTL_STE | CTRCTL_MTE, PRIV_U);
  EXPECT_RECS("U->S and U->M external traps with STE and MTE", J(sn_ill), REC(sn_ill_ins, 0, EXC),
              REC(sn_ill_exit, 0, EXC));
  run(PRIV_U, SN(sn_ill), CTRCTL_U | CTRCTL_S, PRIV_U);
  EXPECT_RECS("U->S, both enabled: trap and sret", J(sn_ill), REC(sn_ill_ins, SV, EXC),
              REC(ctr_sret, sn_ill_ins + 4, RET));
  CHECKN("the illegal instruction trapped to S", 1, ctr_strap_n);
  CHECKN("S saw the illegal instruction", (uint64_t)sn_ill_ins, ctr_straps[0].epc);
  run(PRIV_U, SN(sn_ill), CTRCTL_S, PRIV_U);
  EXPECT_RECS("U disabled -> S enabled: source 0; sret to disabled U: target 0", REC(0, SV, EXC),
              REC(ctr_sret, 0, RET));
  run(PRIV_U, SN(sn_ill), CTRCTL_U | CTRCTL_S | CTRCTL_EXCINH, PRIV_U);
  EXPECT_RECS("EXCINH drops the U->S exception", J(sn_ill), REC(ctr_sret, sn_ill_ins + 4, RET));
  run(PRIV_U, SN(sn_ill), CTRCTL_U | CTRCTL_S | CTRCTL_TRETINH, PRIV_U);
  EXPECT_RECS("TRETINH drops the sret", J(sn_ill), REC(sn_ill_ins, SV, EXC));
  run(PRIV_S, SN(sn_ill), CTRCTL_S, PRIV_S);
  EXPECT_RECS("S->S exception and sret, S enabled", J(sn_ill), REC(sn_ill_ins, SV, EXC),
              REC(ctr_sret, sn_ill_ins + 4, RET));
  csr_write(medeleg, 0);
}

/* SSIP pending as ctr_run enters the lower mode: taken before sn_irq's first instruction. */
static void pend_ssip(int delegated) {
  csr_write(mideleg, delegated ? MIP_SSIP : 0);
  csr_write(mie, MIP_SSIP);
  csr_set(mip, MIP_SSIP);
}

/* For ctr_run, in S: makes stvec vectored at sv_table, pends SSIP, sets SIE; the interrupt comes
   after that csrs, at sv_at, and goes to slot 1, whose jump leads on to ctr_svec. */
extern char sv_sn[], sv_at[], sv_table[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "sv_sn:\n"
    "  la t1, sv_table + 1\n"
    "  csrw stvec, t1\n"
    "  csrsi sip, 2\n"
    "  csrsi sstatus, 2\n"
    "sv_at: j 1f\n"
    "1: li a7, " CTR_STR(CTR_EXIT) "\n"
    "  ecall\n"
    "  .balign 4\n"
    "sv_table:\n"
    "  j ctr_svec\n"
    "  j ctr_svec\n"
    "  .option pop\n");

static void interrupts(void) {
  pend_ssip(1);
  run(PRIV_U, SN(sn_irq), CTRCTL_U | CTRCTL_S, PRIV_U);
  EXPECT_RECS("U->S interrupt, both enabled", REC(sn_irq, SV, IRQ), REC(ctr_sret, sn_irq, RET), J(sn_irq));
  CHECKN("the interrupt went to S", CAUSE_INTERRUPT | IRQ_SSI, ctr_straps[0].cause);
  pend_ssip(1);
  run(PRIV_U, SN(sn_irq), CTRCTL_U | CTRCTL_S | CTRCTL_INTRINH, PRIV_U);
  EXPECT_RECS("INTRINH drops the interrupt", REC(ctr_sret, sn_irq, RET), J(sn_irq));
  pend_ssip(1);
  run(PRIV_U, SN(sn_irq), CTRCTL_U | CTRCTL_S | CTRCTL_EXCINH, PRIV_U);
  EXPECT_RECS("EXCINH leaves interrupts alone", REC(sn_irq, SV, IRQ), REC(ctr_sret, sn_irq, RET), J(sn_irq));
  pend_ssip(1);
  run(PRIV_U, SN(sn_irq), CTRCTL_U | CTRCTL_STE | CTRCTL_INTRINH, PRIV_U);
  EXPECT_RECS("U->S external interrupt with STE, whatever INTRINH says", REC(sn_irq, 0, IRQ), J(sn_irq));

  pend_ssip(0);
  run(PRIV_S, SN(sn_irq), CTRCTL_S | CTRCTL_MTE | CTRCTL_INTRINH, PRIV_S);
  EXPECT_RECS("S->M external interrupt with MTE, whatever INTRINH says", REC(sn_irq, 0, IRQ), J(sn_irq),
              REC(sn_irq_exit, 0, EXC));
  CHECKN("the interrupt went to M", CAUSE_INTERRUPT | IRQ_SSI, ctr_mtraps[0].cause);
  pend_ssip(0);
  run(PRIV_S, SN(sn_irq), CTRCTL_S | CTRCTL_M, PRIV_S);
  EXPECT_RECS("S->M interrupt, both enabled", REC(MR, sn_irq, RET), REC(sn_irq, MV, IRQ),
              REC(ctr_mret, sn_irq, RET), J(sn_irq), REC(sn_irq_exit, MV, EXC));
  pend_ssip(0);
  run(PRIV_S, SN(sn_irq), CTRCTL_S | CTRCTL_M | CTRCTL_INTRINH, PRIV_S);
  EXPECT_RECS("INTRINH drops the S->M interrupt", REC(MR, sn_irq, RET), REC(ctr_mret, sn_irq, RET), J(sn_irq),
              REC(sn_irq_exit, MV, EXC));

  /* A vectored interrupt is recorded with the vector it goes to as its target. */
  csr_write(mideleg, MIP_SSIP);
  csr_write(mie, MIP_SSIP);
  run(PRIV_S, SN(sv_sn), CTRCTL_S, PRIV_S);
  EXPECT_RECS("vectored S->S interrupt: target the SSI slot", REC(sv_at, sv_table + 4, IRQ),
              REC(sv_table + 4, SV, CTR_DIR_JUMP), REC(ctr_sret, sv_at, RET), J(sv_at));
  csr_clear(mstatus, MSTATUS_SIE);
  csr_write(mie, 0);
  csr_write(mideleg, 0);
}

/* mm_run(ctl): in M, with ctr_mvec as the handler and mctrctl = ctl, an ecall at mm_ec. */
void mm_run(uint64_t ctl);
extern char mm_ec[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl mm_run\n"
    "mm_run:\n"
    "  la t0, ctr_mvec\n"
    "  csrw mtvec, t0\n"
    "  li a7, 0\n"
    "  csrw 0x34e, a0\n"
    "mm_ec: ecall\n"
    "  csrw 0x34e, zero\n"
    "  la t0, m_direct\n"
    "  csrw mtvec, t0\n"
    "  ret\n"
    "  .option pop\n");

static void m_to_m(void) {
  ctr_reset(4);
  ctr_clear_traps();
  mm_run(BASE | CTRCTL_M);
  EXPECT_RECS("M->M ecall and mret, M enabled", REC(mm_ec, MV, EXC), REC(ctr_mret, mm_ec + 4, RET));
  CHECKN("the ecall from M", CAUSE_ECALL_M, ctr_mtraps[0].cause);
  ctr_reset(4);
  mm_run(BASE | CTRCTL_M | CTRCTL_EXCINH);
  EXPECT_RECS("M->M with EXCINH: the mret only", REC(ctr_mret, mm_ec + 4, RET));
}

static void trap_returns(void) {
  run(PRIV_S, SN(sn_sret_u), CTRCTL_S, PRIV_U);
  EXPECT_RECS("sret from enabled S to disabled U: target 0", REC(sn_sret_u_ins, 0, RET));
  run(PRIV_S, SN(sn_sret_u), CTRCTL_S | CTRCTL_U, PRIV_U);
  EXPECT_RECS("sret between enabled modes", REC(sn_sret_u_ins, sn_sret_u_t, RET));
  run(PRIV_S, SN(sn_sret_u), CTRCTL_U, PRIV_U);
  EXPECT_NO_RECS("sret from disabled S to enabled U: not recorded");
  run(PRIV_S, SN(sn_sret_u), CTRCTL_S | CTRCTL_U | CTRCTL_TRETINH, PRIV_U);
  EXPECT_NO_RECS("TRETINH drops the sret");
  run(PRIV_S, SN(sn_sret_s), CTRCTL_S, PRIV_S);
  EXPECT_RECS("sret from S to S", REC(sn_sret_s_ins, sn_sret_s_t, RET));
}

int main(void) {
  put_mstateen0(STATEEN_CTR | CSRIND); /* ctr_svec reads sctrstatus */
  s_to_m();
  u_to_m();
  to_s();
  interrupts();
  trap_returns();
  m_to_m();
  ctr_reset(4);
  return 0;
}
