/* sstatus/sie as views of mstatus/mie, delegation to S (medeleg, mideleg), the S and M status
 * stacks on trap entry and after sret/mret, xRET from the wrong mode, and the TSR/TW/TVM traps.
 * No paging. */
#include "bare.h"
#include "check.h"

#define ILLEGAL_WORD 0x0000500b /* custom-0: nothing implements it */
#define SRET_WORD 0x10200073
#define MRET_WORD 0x30200073
#define WFI_WORD 0x10500073
#define SFENCE_WORD 0x12000073

static uint64_t do_ecall(uint64_t unused) {
  (void)unused;
  return ecall_at();
}
static uint64_t do_illegal(uint64_t unused) {
  (void)unused;
  return AT(".word 0x0000500b");
}
static uint64_t do_sret(uint64_t unused) {
  (void)unused;
  return AT("sret");
}
static uint64_t do_mret(uint64_t unused) {
  (void)unused;
  return AT("mret");
}
static uint64_t do_wfi(uint64_t unused) {
  (void)unused;
  return AT("wfi");
}
static uint64_t do_sfence(uint64_t unused) {
  (void)unused;
  return AT("sfence.vma");
}
static uint64_t do_read_satp(uint64_t unused) {
  (void)unused;
  return AT("csrr t0, satp");
}

static void exceptions(void) {
#ifndef QEMU_REF /* QEMU 7.2 lets the bit be set */
  csr_write(medeleg, ~0ul);
  CHECK(0, csr_read(medeleg) & (1ul << CAUSE_ECALL_M)); /* machine.adoc: medeleg[11] is read-only 0 */
#endif
  csr_write(medeleg, 1ul << CAUSE_ECALL_U | 1ul << CAUSE_ILLEGAL);

  /* U ecall goes to S: SPP = U, SPIE = the old SIE, SIE cleared; sret undoes it. */
  csr_set(mstatus, MSTATUS_SIE);
  uint64_t pc = run_in(PRIV_U, do_ecall, 0);
  uint64_t entry = s_rec.status;
  expect_s(CAUSE_ECALL_U, pc, 0);
  CHECK(0, entry & (MSTATUS_SPP | MSTATUS_SIE));
  CHECK(MSTATUS_SPIE, entry & MSTATUS_SPIE);
  /* run_in's closing ecall from U went to S too (which passed it on to M by its own ecall): on
     that second entry SPIE caught the SIE = 1 that the first sret had restored. */
  CHECK(CAUSE_ECALL_S, run_exit.cause);
  CHECK(MSTATUS_SPIE, run_exit.status & (MSTATUS_SPIE | MSTATUS_SIE | MSTATUS_SPP));
  CHECK(0, m_rec.count);

  /* S's own illegal instruction goes to S with SPP = S. */
  csr_clear(mstatus, MSTATUS_SIE);
  pc = run_in(PRIV_S, do_illegal, 0);
  entry = s_rec.status;
  expect_s(CAUSE_ILLEGAL, pc, ILLEGAL_WORD);
  CHECK(MSTATUS_SPP, entry & MSTATUS_SPP);
  CHECK(0, entry & (MSTATUS_SIE | MSTATUS_SPIE));
  /* The handler's sret back to S set SIE = SPIE (0), SPIE = 1 and SPP = U; run_exit.status is
     mstatus at the closing ecall from S. */
  CHECK(MSTATUS_SPIE, run_exit.status & (MSTATUS_SPIE | MSTATUS_SIE | MSTATUS_SPP));
  CHECK((uint64_t)PRIV_S << MSTATUS_MPP_SHIFT, run_exit.status & MSTATUS_MPP);
  CHECK(CAUSE_ECALL_S, run_exit.cause);

  /* Delegated or not, exceptions in M stay in M. */
  pc = AT(".word 0x0000500b");
  expect_m(CAUSE_ILLEGAL, pc, ILLEGAL_WORD);

  /* ecall from S is not delegated: M, with MPP = S. */
  pc = run_in(PRIV_S, do_ecall, 0);
  CHECK((uint64_t)PRIV_S << MSTATUS_MPP_SHIFT, m_rec.status & MSTATUS_MPP);
  expect_m(CAUSE_ECALL_S, pc, 0);
  csr_write(medeleg, 0);
}

/* xRET below its mode, and the TSR/TW/TVM traps, each taken into M. */
static void expect_illegal_in(unsigned priv, uint64_t (*fn)(uint64_t), uint64_t word) {
  uint64_t pc = run_in(priv, fn, 0);
  expect_m(CAUSE_ILLEGAL, pc, word);
}

static uint64_t sret_to_s(uint64_t unused) {
  (void)unused;
  uint64_t r;
  __asm__ volatile("la %0, 1f\n csrw sepc, %0\n csrs sstatus, %1\n sret\n1: li %0, 42"
                   : "=&r"(r) : "r"(MSTATUS_SPP) : "memory");
  return r;
}

static uint64_t harmless(uint64_t v) {
  __asm__ volatile("csrr t0, satp\n sfence.vma" ::: "t0", "memory");
  return v + 1;
}

static void trapped_instructions(void) {
  expect_illegal_in(PRIV_U, do_sret, SRET_WORD);
  expect_illegal_in(PRIV_U, do_mret, MRET_WORD);
  expect_illegal_in(PRIV_S, do_mret, MRET_WORD);
  expect_illegal_in(PRIV_U, do_wfi, WFI_WORD);

  csr_set(mstatus, MSTATUS_TSR);
  expect_illegal_in(PRIV_S, do_sret, SRET_WORD);
  csr_clear(mstatus, MSTATUS_TSR);
  CHECK(42, run_in(PRIV_S, sret_to_s, 0));
  CHECK(0, m_rec.count);

  csr_set(mstatus, MSTATUS_TW);
  expect_illegal_in(PRIV_S, do_wfi, WFI_WORD);
  csr_clear(mstatus, MSTATUS_TW);

  csr_set(mstatus, MSTATUS_TVM);
  expect_illegal_in(PRIV_S, do_sfence, SFENCE_WORD);
  uint64_t pc = run_in(PRIV_S, do_read_satp, 0);
  expect_m(CAUSE_ILLEGAL, pc, *(volatile uint32_t *)pc);
  /* TVM is for S only: M still reads satp and runs sfence.vma. */
  csr_read(satp);
  sfence_vma();
  csr_clear(mstatus, MSTATUS_TVM);
  CHECK(8, run_in(PRIV_S, harmless, 7));
  CHECK(0, m_rec.count);
}

/* Supervisor software interrupts through mideleg. */
static volatile uint64_t ssi_count;
static void s_ssi(struct frame *f) {
  CHECK(CAUSE_INTERRUPT | IRQ_SSI, f->cause);
  csr_clear(sip, MIP_SSIP);
  ssi_count++;
  s_rec.epc = f->epc;
  s_rec.status = f->status;
}

/* Raises SSIP from S with SIE set; returns the address the interrupt should report. */
static uint64_t s_raise_ssi(uint64_t unused) {
  (void)unused;
  csr_set(sstatus, MSTATUS_SIE);
  uint64_t pc;
  __asm__ volatile("la %0, 1f\n csrs sip, %1\n1: nop" : "=&r"(pc) : "r"(MIP_SSIP) : "memory");
  csr_clear(sstatus, MSTATUS_SIE);
  return pc;
}

/* A U function that only spins until S has taken the interrupt. */
static uint64_t u_wait(uint64_t unused) {
  (void)unused;
  while (!ssi_count) {
  }
  return 0;
}

/* WFI in S with the interrupt pending and enabled in sie but SIE clear: it must not stall. */
static uint64_t s_wfi_masked(uint64_t unused) {
  (void)unused;
  csr_clear(sstatus, MSTATUS_SIE);
  csr_set(sip, MIP_SSIP);
  __asm__ volatile("wfi" ::: "memory");
  uint64_t pending = csr_read(sip) & MIP_SSIP;
  csr_clear(sip, MIP_SSIP);
  return pending;
}

static void interrupts(void) {
  set_s_handler(s_ssi);
  csr_write(mideleg, MIP_SSIP);
  CHECK(MIP_SSIP, csr_read(mideleg) & MIP_SSIP);
  csr_write(mie, MIP_SSIP);

  /* Taken in S right after the csrs that raised it, with SPP = S and SPIE = 1. */
  uint64_t pc = run_in(PRIV_S, s_raise_ssi, 0);
  CHECK(1, ssi_count);
  CHECK(pc, s_rec.epc);
  CHECK(MSTATUS_SPP | MSTATUS_SPIE, s_rec.status & (MSTATUS_SPP | MSTATUS_SPIE | MSTATUS_SIE));

  /* In U, an S interrupt is enabled whatever SIE says. */
  ssi_count = 0;
  csr_clear(mstatus, MSTATUS_SIE);
  csr_set(mip, MIP_SSIP);
  run_in(PRIV_U, u_wait, 0);
  CHECK(1, ssi_count);
  CHECK(0, s_rec.status & MSTATUS_SPP);

  /* In M, a delegated interrupt is never taken, even with MIE and SIE set. */
  ssi_count = 0;
  csr_set(mstatus, MSTATUS_MIE | MSTATUS_SIE);
  csr_set(mip, MIP_SSIP);
  for (volatile int i = 0; i < 1000; i++) {
  }
  CHECK(0, ssi_count);
  CHECK(MIP_SSIP, csr_read(mip) & MIP_SSIP);
  csr_clear(mip, MIP_SSIP);
  csr_clear(mstatus, MSTATUS_MIE | MSTATUS_SIE);

  CHECK(MIP_SSIP, run_in(PRIV_S, s_wfi_masked, 0));
  CHECK(0, ssi_count);

  /* Not delegated: sip.SSIP is read-only zero for S, and an SSI pending in M's mip is taken into
     M as soon as S runs (at the trampoline's first instruction), even with MIE clear. */
  csr_write(mideleg, 0);
  run_in(PRIV_S, s_raise_ssi, 0);
  CHECK(0, m_rec.count);
  CHECK(0, csr_read(mip) & MIP_SSIP);
  csr_set(mip, MIP_SSIP);
  run_in(PRIV_S, harmless, 0);
  CHECK(1, m_rec.count);
  CHECK(CAUSE_INTERRUPT | IRQ_SSI, m_rec.cause);
  CHECK((uint64_t)run_trampoline, m_rec.epc);
  CHECK((uint64_t)PRIV_S << MSTATUS_MPP_SHIFT, m_rec.status & MSTATUS_MPP);
  clear_recs();
  csr_write(mie, 0);
}

/* Clears the S software interrupt that record_m sees, then records it. */
static void m_record_ssi(struct frame *f) {
  if (f->cause == (CAUSE_INTERRUPT | IRQ_SSI)) csr_clear(mip, MIP_SSIP);
  record_m(f);
}

/* sstatus and sie are views of mstatus and mie: M-only fields and undelegated bits stay hidden. */
static void views(void) {
  csr_set(mstatus, MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_TSR | MSTATUS_SPP);
  const uint64_t s = csr_read(sstatus);
  CHECK(0, s & (MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_MPP | MSTATUS_TSR | MSTATUS_MPRV));
  CHECK(MSTATUS_SPP, s & MSTATUS_SPP);
  csr_clear(sstatus, MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_TSR | MSTATUS_SPP);
  CHECK(MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_TSR, csr_read(mstatus) & (MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_TSR));
  CHECK(0, csr_read(mstatus) & MSTATUS_SPP);
  csr_clear(mstatus, MSTATUS_MIE | MSTATUS_MPIE | MSTATUS_TSR);

  csr_write(mideleg, MIP_SSIP);
  csr_write(mie, MIP_SSIP | MIP_STIP | MIP_MTIP);
  CHECK(MIP_SSIP, csr_read(sie));
  csr_write(sie, ~0ul);
  CHECK(MIP_SSIP | MIP_STIP | MIP_MTIP, csr_read(mie));
  csr_write(sie, 0);
  CHECK(MIP_STIP | MIP_MTIP, csr_read(mie));
  csr_write(mie, 0);
  csr_write(mideleg, 0);

#ifndef QEMU_REF /* QEMU 7.2 keeps MPP = 2 */
  /* MPP is WARL: 2 (reserved) is never read back. */
  csr_clear(mstatus, MSTATUS_MPP);
  csr_set(mstatus, 2ul << MSTATUS_MPP_SHIFT);
  CHECK(1, (csr_read(mstatus) & MSTATUS_MPP) != 2ul << MSTATUS_MPP_SHIFT);
#endif
}

int main(void) {
  set_m_handler(record_m);
  set_s_handler(record_s);
  views();
  exceptions();
  trapped_instructions();
  set_m_handler(m_record_ssi);
  interrupts();
  return 0;
}
