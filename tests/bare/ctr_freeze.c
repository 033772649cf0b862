/* Smctr freeze (smctr.adoc, "Freeze"): with BPFRZ a breakpoint exception that traps to M or S sets
 * sctrstatus.FROZEN and is not itself recorded; with LCOFIFRZ a local-counter-overflow interrupt
 * (Sscofpmf) that traps to M or S does the same. While FROZEN nothing is recorded, external traps
 * included; software clearing FROZEN resumes recording. Other traps do not freeze. */
#include "ctr.h"
#include "pmu.h"

/* Snippets for ctr_run (ctr.h):
 *   fz_bp: a jump, ebreak, a jump, the exit ecall;
 *   fz_ec: the same with an ecall (a7 = 0) for the ebreak;
 *   fz_resume (S): a jump, ebreak, a jump, clears FROZEN, a jump, the exit ecall;
 *   fz_sled: SLED direct jumps in a row, then the exit ecall.
 * fz_m(ctl): in M, with mctrctl = ctl: a jump, ebreak (to the runtime's C handler), a jump.
 * fz_sw(ctl): in M, with mctrctl = ctl: jump a, sets FROZEN, jump b, clears FROZEN, jump c. */
#define SLED 64
extern char fz_bp[], fz_bp_ins[], fz_bp_j2[], fz_bp_exit[], fz_ec[], fz_ec_ins[], fz_ec_j2[], fz_ec_exit[],
    fz_resume[], fz_resume_j2[], fz_resume_j3[], fz_resume_exit[], fz_sled[], fz_sled_exit[], fz_m_j1[],
    fz_sw_a[], fz_sw_c[];
void fz_m(uint64_t ctl);
void fz_sw(uint64_t ctl);
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "fz_bp:\n"
    "  j 1f\n"
    "1:\n"
    "fz_bp_ins: ebreak\n"
    "fz_bp_j2: j 1f\n"
    "1: li a7, " CTR_STR(CTR_EXIT) "\n"
    "fz_bp_exit: ecall\n"

    "fz_ec:\n"
    "  j 1f\n"
    "1: li a7, 0\n"
    "fz_ec_ins: ecall\n"
    "fz_ec_j2: j 1f\n"
    "1: li a7, " CTR_STR(CTR_EXIT) "\n"
    "fz_ec_exit: ecall\n"

    "fz_resume:\n"
    "  j 1f\n"
    "1: ebreak\n"
    "fz_resume_j2: j 1f\n"
    "1: li t1, 1\n"
    "  slli t1, t1, 31\n"
    "  csrc 0x14f, t1\n"
    "fz_resume_j3: j 1f\n"
    "1: li a7, " CTR_STR(CTR_EXIT) "\n"
    "fz_resume_exit: ecall\n"

    "fz_sled:\n"
    "  .rept 64\n"
    "  j 1f\n"
    "1:\n"
    "  .endr\n"
    "  li a7, " CTR_STR(CTR_EXIT) "\n"
    "fz_sled_exit: ecall\n"

    "  .globl fz_m\n"
    "fz_m:\n"
    "  csrw 0x34e, a0\n"
    "fz_m_j1: j 1f\n"
    "1: ebreak\n"
    "  j 1f\n"
    "1: csrw 0x34e, zero\n"
    "  ret\n"

    "  .globl fz_sw\n"
    "fz_sw:\n"
    "  csrw 0x34e, a0\n"
    "fz_sw_a: j 1f\n"
    "1: li t1, 1\n"
    "  slli t1, t1, 31\n"
    "  csrs 0x14f, t1\n"
    "  j 1f\n"
    "1: csrc 0x14f, t1\n"
    "fz_sw_c: j 1f\n"
    "1: csrw 0x34e, zero\n"
    "  ret\n"
    "  .option pop\n");

#define BASE CTRCTL_TKBRINH /* hides the handlers' branches (ctr.h) */
#define J(sn) REC(sn, (sn) + 4, CTR_DIR_JUMP)
#define SV ctr_svec
#define SN(f) ((void (*)(void))(f))

/* A fresh buffer with sctrstatus = status, then fn in priv with mctrctl = BASE | ctl. */
static void run(unsigned priv, void (*fn)(void), uint64_t ctl, uint64_t status) {
  ctr_reset(4);
  put_sctrstatus(status);
  ctr_clear_traps();
  ctr_run(priv, fn, BASE | ctl);
}
static uint64_t frozen(void) { return get_sctrstatus(0) & SCTRSTATUS_FROZEN; }

static void breakpoints(void) {
  run(PRIV_S, SN(fz_bp), CTRCTL_S | CTRCTL_MTE, 0);
  EXPECT_RECS("without BPFRZ the breakpoint is an external trap like any", J(fz_bp), REC(fz_bp_ins, 0, CTR_EXCEPTION),
              J(fz_bp_j2), REC(fz_bp_exit, 0, CTR_EXCEPTION));
  CHECKN("without BPFRZ: not frozen", 0, frozen());

  run(PRIV_S, SN(fz_bp), CTRCTL_S | CTRCTL_MTE | CTRCTL_BPFRZ, 0);
  EXPECT_RECS("BPFRZ, S->M breakpoint: not recorded, and nothing after it", J(fz_bp));
  CHECKN("BPFRZ: the breakpoint went to M", CAUSE_BREAKPOINT, ctr_mtraps[0].cause);
  CHECKN("BPFRZ: FROZEN as the M handler starts", SCTRSTATUS_FROZEN, ctr_mtraps[0].sctrstatus & SCTRSTATUS_FROZEN);
  CHECKN("BPFRZ: still FROZEN", SCTRSTATUS_FROZEN, frozen());

  run(PRIV_S, SN(fz_ec), CTRCTL_S | CTRCTL_MTE | CTRCTL_BPFRZ, 0);
  EXPECT_RECS("BPFRZ ignores other exceptions", J(fz_ec), REC(fz_ec_ins, 0, CTR_EXCEPTION), J(fz_ec_j2),
              REC(fz_ec_exit, 0, CTR_EXCEPTION));
  CHECKN("BPFRZ, ecall: not frozen", 0, frozen());

  run(PRIV_S, SN(fz_resume), CTRCTL_S | CTRCTL_MTE | CTRCTL_BPFRZ, 0);
  EXPECT_RECS("clearing FROZEN resumes recording", J(fz_resume), J(fz_resume_j3),
              REC(fz_resume_exit, 0, CTR_EXCEPTION));
  CHECKN("FROZEN cleared by S", 0, frozen());

  run(PRIV_S, SN(fz_ec), CTRCTL_S | CTRCTL_MTE, SCTRSTATUS_FROZEN);
  EXPECT_NO_RECS("FROZEN set by software: nothing recorded, external traps included");
  ctr_reset(4);
  fz_sw(CTRCTL_M);
  EXPECT_RECS("FROZEN set and cleared by software between two jumps", J(fz_sw_a), J(fz_sw_c));

  /* To S. */
  csr_write(medeleg, 1ul << CAUSE_BREAKPOINT);
  run(PRIV_U, SN(fz_bp), CTRCTL_U | CTRCTL_S, 0);
  EXPECT_RECS("without BPFRZ: U->S breakpoint and sret recorded", J(fz_bp), REC(fz_bp_ins, SV, CTR_EXCEPTION),
              REC(ctr_sret, fz_bp_ins + 4, CTR_TRAP_RETURN), J(fz_bp_j2));
  run(PRIV_U, SN(fz_bp), CTRCTL_U | CTRCTL_S | CTRCTL_BPFRZ, 0);
  EXPECT_RECS("BPFRZ, U->S breakpoint: neither it nor the sret nor what follows", J(fz_bp));
  CHECKN("BPFRZ: the breakpoint went to S", CAUSE_BREAKPOINT, ctr_straps[0].cause);
  CHECKN("BPFRZ: FROZEN as the S handler starts", SCTRSTATUS_FROZEN, ctr_straps[0].sctrstatus & SCTRSTATUS_FROZEN);
  CHECKN("BPFRZ to S: still FROZEN", SCTRSTATUS_FROZEN, frozen());
  run(PRIV_U, SN(fz_bp), CTRCTL_S | CTRCTL_BPFRZ, 0);
  EXPECT_NO_RECS("BPFRZ, from disabled U into enabled S: no partial record");
  CHECKN("BPFRZ, from disabled U: FROZEN", SCTRSTATUS_FROZEN, frozen());
  csr_write(medeleg, 0);
  /* The freeze has no condition on the modes enabled. */
  run(PRIV_S, SN(fz_bp), CTRCTL_BPFRZ, 0);
  CHECKN("BPFRZ with no mode enabled: FROZEN all the same", SCTRSTATUS_FROZEN, frozen());

  /* M to M: the runtime's handler runs C code, all of it while frozen. */
  ctr_reset(4);
  clear_recs();
  fz_m(CTRCTL_M | CTRCTL_BPFRZ);
  expect_m(CAUSE_BREAKPOINT, (uint64_t)fz_m_j1 + 4, (uint64_t)fz_m_j1 + 4);
  EXPECT_RECS("BPFRZ, M->M breakpoint: the handler's transfers are not recorded", J(fz_m_j1));
  CHECKN("BPFRZ in M: FROZEN", SCTRSTATUS_FROZEN, frozen());
}

/* mhpmcounter3 counts S-mode instructions from -n with OF clear; LCOFI to M, or to S when
   delegated, after the n-th. */
static void arm_lcofi(int to_s, uint64_t n) {
  csr_set(mcountinhibit, CTR_HPM(3));
  csr_write(mhpmevent3, EV_INSTRUCTIONS | ONLY_S);
  csr_write(mhpmcounter3, -n);
  csr_clear(mip, MIP_LCOFIP);
  csr_write(mideleg, to_s ? MIP_LCOFIP : 0);
  csr_write(mie, MIP_LCOFIP);
  if (to_s) csr_set(mstatus, MSTATUS_SIE);
  csr_clear(mcountinhibit, CTR_HPM(3));
}
static void disarm_lcofi(void) {
  csr_set(mcountinhibit, CTR_HPM(3));
  csr_write(mhpmevent3, 0);
  csr_write(mie, 0);
  csr_write(mideleg, 0);
  csr_clear(mstatus, MSTATUS_SIE);
  csr_clear(mip, MIP_LCOFIP);
}

static struct ctr_rec want[SLED + 2];

/* The sled's jumps [from, to) appended to want from *n. */
static void sled_jumps(unsigned from, unsigned to, unsigned *n) {
  for (unsigned i = from; i < to; i++) want[(*n)++] = (struct ctr_rec)J((uint64_t)fz_sled + 4 * i);
}

/* Where the LCOFI came: k sled jumps had retired. */
static unsigned lcofi_at(volatile struct ctr_trap *t, uint64_t line) {
  check_named("the LCOFI was the first trap", line, CAUSE_INTERRUPT | IRQ_LCOF, t->cause);
  uint64_t k = (t->epc - (uint64_t)fz_sled) / 4;
  check_named("the LCOFI came inside the sled", line, 1, k >= 1 && k < SLED && t->epc % 4 == 0);
  return k;
}

static void lcofi(void) {
  unsigned n = 0, k;
  /* To M, external: recorded with MTE unless LCOFIFRZ. */
  arm_lcofi(0, 10);
  run(PRIV_S, SN(fz_sled), CTRCTL_S | CTRCTL_MTE, 0);
  k = lcofi_at(&ctr_mtraps[0], __LINE__);
  sled_jumps(0, k, &n);
  want[n++] = (struct ctr_rec)REC((uint64_t)fz_sled + 4 * k, 0, CTR_INTERRUPT);
  sled_jumps(k, SLED, &n);
  want[n++] = (struct ctr_rec)REC(fz_sled_exit, 0, CTR_EXCEPTION);
  EXPECT_BUFFER("without LCOFIFRZ the S->M LCOFI is recorded", want, n);
  CHECKN("without LCOFIFRZ: not frozen", 0, frozen());

  arm_lcofi(0, 10);
  run(PRIV_S, SN(fz_sled), CTRCTL_S | CTRCTL_MTE | CTRCTL_LCOFIFRZ, 0);
  k = lcofi_at(&ctr_mtraps[0], __LINE__);
  n = 0;
  sled_jumps(0, k, &n);
  EXPECT_BUFFER("LCOFIFRZ, S->M LCOFI: the jumps before it, nothing from it on", want, n);
  CHECKN("LCOFIFRZ: FROZEN as the M handler starts", SCTRSTATUS_FROZEN, ctr_mtraps[0].sctrstatus & SCTRSTATUS_FROZEN);
  CHECKN("LCOFIFRZ: FROZEN", SCTRSTATUS_FROZEN, frozen());

  /* To S, between enabled modes. */
  arm_lcofi(1, 10);
  run(PRIV_S, SN(fz_sled), CTRCTL_S, 0);
  k = lcofi_at(&ctr_straps[0], __LINE__);
  n = 0;
  sled_jumps(0, k, &n);
  want[n++] = (struct ctr_rec)REC((uint64_t)fz_sled + 4 * k, SV, CTR_INTERRUPT);
  want[n++] = (struct ctr_rec)REC(ctr_sret, (uint64_t)fz_sled + 4 * k, CTR_TRAP_RETURN);
  sled_jumps(k, SLED, &n);
  EXPECT_BUFFER("without LCOFIFRZ the S->S LCOFI and its sret are recorded", want, n);

  arm_lcofi(1, 10);
  run(PRIV_S, SN(fz_sled), CTRCTL_S | CTRCTL_LCOFIFRZ, 0);
  k = lcofi_at(&ctr_straps[0], __LINE__);
  n = 0;
  sled_jumps(0, k, &n);
  EXPECT_BUFFER("LCOFIFRZ, S->S LCOFI: the jumps before it, nothing from it on", want, n);
  CHECKN("LCOFIFRZ to S: FROZEN as the S handler starts", SCTRSTATUS_FROZEN,
         ctr_straps[0].sctrstatus & SCTRSTATUS_FROZEN);
  disarm_lcofi();

  /* Another interrupt does not freeze: SSIP pending at entry, delegated. */
  csr_write(mideleg, MIP_SSIP);
  csr_write(mie, MIP_SSIP);
  csr_set(mstatus, MSTATUS_SIE);
  csr_set(mip, MIP_SSIP);
  run(PRIV_S, SN(fz_sled), CTRCTL_S | CTRCTL_LCOFIFRZ | CTRCTL_BPFRZ, 0);
  n = 0;
  want[n++] = (struct ctr_rec)REC(fz_sled, SV, CTR_INTERRUPT);
  want[n++] = (struct ctr_rec)REC(ctr_sret, fz_sled, CTR_TRAP_RETURN);
  sled_jumps(0, SLED, &n);
  EXPECT_BUFFER("LCOFIFRZ ignores other interrupts", want, n);
  CHECKN("SSIP with LCOFIFRZ: not frozen", 0, frozen());
  disarm_lcofi();
}

int main(void) {
  set_m_handler(record_m);
  put_mstateen0(STATEEN_CTR | CSRIND); /* ctr_svec and fz_resume use sctrstatus from S */
  csr_write(mcounteren, CTR_HPM(3));
  breakpoints();
  lcofi();
  ctr_reset(4);
  return 0;
}
