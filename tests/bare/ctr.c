/* Smctr/Ssctr (smctr.adoc): the CTR CSRs' access rules and mstateen0.CTR, sctrdepth and sctrstatus,
 * the siselect 0x200-0x2FF entry window, SCTRCLR, and the recording of traps and trap returns, the
 * external-trap rule (MTE) with mstateen0.CTR = 0, and the BPFRZ freeze. While CTR records, every
 * branch and jump type is inhibited, so only traps and xRETs qualify (csr/trap.cpp records those for
 * every engine). */
#include "csr_access.h"

#define CTR (1ul << 54) /* mstateen0 */
#define CTRCTL_S (1ul << 1)
#define CTRCTL_M (1ul << 2)
#define CTRCTL_MTE (1ul << 9)
#define CTRCTL_BPFRZ (1ul << 11)
/* TKBRINH and INDCALLINH..DIRLJMPINH: no branch or jump is recorded. */
#define NO_JUMPS ((1ul << 37) | (0xfful << 40))
#define FROZEN (1ul << 31)
#define VALID 1ul
#define TYPE_EXCEPTION 1
#define TYPE_TRAP_RETURN 3
#define ENTRY0 0x200

CSR_ACCESSORS(mctrctl, 0x34e)
CSR_ACCESSORS(sctrctl, 0x14e)
CSR_ACCESSORS(sctrstatus, 0x14f)
CSR_ACCESSORS(sctrdepth, 0x15f)
CSR_ACCESSORS(vsctrctl, 0x24e)

/* SCTRCLR (binutils 2.40 does not know it), returning its address. */
static uint64_t at_sctrclr(uint64_t u) {
  uint64_t pc;
  (void)u;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: .word 0x10400073\n.option pop"
                   : "=&r"(pc)::"memory");
  return pc;
}

static uint64_t ebreak_at(void) {
  uint64_t pc;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: ebreak\n.option pop" : "=&r"(pc)::"memory");
  return pc;
}

/* sireg<k> (1..3) of logical entry n, from M. */
static uint64_t entry(unsigned n, unsigned k) {
  put_siselect(ENTRY0 + n);
  return k == 1 ? get_sireg(0) : k == 2 ? get_sireg2(0) : get_sireg3(0);
}

static void access_rules(void) {
  put_mstateen0(CSRIND);
  ILLEGAL(PRIV_S, at_read_sctrctl, 0);
  ILLEGAL(PRIV_S, at_write_sctrstatus, 0);
  ILLEGAL(PRIV_S, at_read_sctrdepth, 0);
  ILLEGAL(PRIV_S, at_sctrclr, 0);
  put_siselect(ENTRY0);
  ILLEGAL(PRIV_S, at_read_sireg, 0); /* the entry window: CTR on top of CSRIND */
  ILLEGAL(PRIV_S, at_read_sireg3, 0);
  ILLEGAL(PRIV_S, at_read_mctrctl, 0);
  ALLOWED(PRIV_M, at_read_sctrctl, 0);
  ALLOWED(PRIV_M, at_sctrclr, 0);
  ILLEGAL(PRIV_M, at_read_vsctrctl, 0); /* an H CSR */
  put_mstateen0(CSRIND | CTR);
  ALLOWED(PRIV_S, at_read_sctrctl, 0);
  ALLOWED(PRIV_S, at_write_sctrstatus, 0);
  ALLOWED(PRIV_S, at_read_sctrdepth, 0);
  ALLOWED(PRIV_S, at_sctrclr, 0);
  ALLOWED(PRIV_S, at_read_sireg, 0);
  ALLOWED(PRIV_S, at_read_sireg6, 0);
  ILLEGAL(PRIV_U, at_read_sctrctl, 0);
  ILLEGAL(PRIV_U, at_sctrclr, 0);
  ILLEGAL(PRIV_S, at_read_mctrctl, 0);
}

static void fields(void) {
  put_mctrctl(~0ul);
  CHECK(0x0000ff3e00001b87ul, get_mctrctl(0));
  CHECK(0x0000ff3e00001983ul, get_sctrctl(0)); /* M and MTE read-only 0 */
  put_sctrctl(0);
  CHECK(CTRCTL_M | CTRCTL_MTE, get_mctrctl(0));
  put_mctrctl(0);
  CHECK(4, get_sctrdepth(0)); /* all five depths: 256 at reset */
  put_sctrdepth(0);
  CHECK(0, get_sctrdepth(0));
  put_sctrdepth(7); /* beyond the deepest: WARL gives the deepest, as Linux's driver expects */
  CHECK(4, get_sctrdepth(0));
  put_sctrdepth(0);
  put_sctrstatus(~0ul);
  CHECK(FROZEN | 0xf, get_sctrstatus(0)); /* WRPTR bits beyond depth 16 read 0 */
  put_sctrdepth(4);
  put_sctrstatus(0x85);
  CHECK(0x85, get_sctrstatus(0));
}

/* Entries through sireg*: logical n is physical (WRPTR - n - 1) % depth; sireg4-6 and entries at
   or beyond the depth read 0; SCTRCLR zeroes them all, beyond the depth too. */
static void entries(void) {
  put_sctrstatus(3);
  put_siselect(ENTRY0 + 200);
  put_sireg(0x80001235);
  put_sireg2(0x80002001);
  put_sireg3(0x12345ul << 16 | 0x8000 | 9);
  CHECK(0x80001235, entry(200, 1));
  CHECK(0x80002001, entry(200, 2));
  CHECK(0x2345ul << 16 | 0x8000 | 9, entry(200, 3)); /* bits 63:32 and 14:4 read 0 */
  put_sireg4(~0ul);
  CHECK(0, get_sireg4(0));
  CHECK(0, get_sireg6(0));
  put_sctrdepth(0);
  CHECK(0, entry(200, 1));
  put_sireg(1); /* read-only */
  ALLOWED(PRIV_M, at_sctrclr, 0);
  put_sctrdepth(4);
  CHECK(0, entry(200, 1));
  CHECK(0, entry(200, 3));
}

/* Traps and xRETs in M with M enabled: an ecall is an exception from its pc to the handler, the
   mret back a trap return to the next instruction. */
static void m_traps(void) {
  ALLOWED(PRIV_M, at_sctrclr, 0);
  put_sctrstatus(0);
  put_mctrctl(CTRCTL_M | NO_JUMPS);
  uint64_t pc = ecall_at();
  put_mctrctl(0);
  expect_m(CAUSE_ECALL_M, pc, 0);
  clear_recs();
  CHECK(2, get_sctrstatus(0));
  CHECK(pc | VALID, entry(1, 1));
  CHECK(csr_read(mtvec) & ~3ul, entry(1, 2));
  CHECK(TYPE_EXCEPTION, entry(1, 3) & 0xf);
  CHECK(0, entry(1, 3) & 0x8000); /* the first record after an mctrctl write: CCV = 0 */
  CHECK(pc + 4, entry(0, 2));
  CHECK(TYPE_TRAP_RETURN, entry(0, 3) & 0xf);
  CHECK(0x8000, entry(0, 3) & 0x8000);
}

/* S records with mstateen0.CTR = 0: its illegal sctrstatus access traps to M, disabled, which MTE
   records as an external trap with target 0; so is the closing ecall of run_in. mret into S, from
   a disabled mode, is not recorded. */
static void s_external_traps(void) {
  ALLOWED(PRIV_M, at_sctrclr, 0);
  put_sctrstatus(0);
  put_mstateen0(CSRIND);
  put_mctrctl(CTRCTL_S | CTRCTL_MTE | NO_JUMPS);
  uint64_t pc = call_in(PRIV_S, at_read_sctrstatus, 0);
  put_mctrctl(0);
  CHECK(1, m_rec.count);
  CHECK(CAUSE_ILLEGAL, m_rec.cause);
  clear_recs();
  CHECK(2, get_sctrstatus(0));
  CHECK(pc | VALID, entry(1, 1));
  CHECK(0, entry(1, 2));
  CHECK(TYPE_EXCEPTION, entry(1, 3) & 0xf);
  CHECK(run_exit.epc | VALID, entry(0, 1));
  CHECK(0, entry(0, 2));
  put_mstateen0(CSRIND | CTR);
}

/* BPFRZ: a breakpoint freezes CTR and is not recorded, nor is anything after it until FROZEN is
   cleared. */
static void breakpoint_freeze(void) {
  ALLOWED(PRIV_M, at_sctrclr, 0);
  put_sctrstatus(0);
  put_mctrctl(CTRCTL_M | CTRCTL_BPFRZ | NO_JUMPS);
  ebreak_at();
  ecall_at();
  put_mctrctl(0);
  CHECK(2, m_rec.count);
  CHECK(CAUSE_ECALL_M, m_rec.cause);
  clear_recs();
  CHECK(FROZEN, get_sctrstatus(0));
  CHECK(0, entry(0, 1));
  put_sctrstatus(0);
}

int main(void) {
  set_m_handler(record_m);
  access_rules();
  fields();
  entries();
  m_traps();
  s_external_traps();
  breakpoint_freeze();
  return 0;
}
