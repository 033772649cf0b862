/* Smcdeleg/Ssccfg: the counter-delegation exception matrix from M and S (siselect 0x40 + i, with
 * menvcfg.CDE and mcounteren), a delegated counter written from S, MINH hidden from S, scountinhibit
 * as a masked alias of mcountinhibit (smcdeleg.adoc), and Sscofpmf's scountovf (sscofpmf.adoc). */
#include "csr_access.h"

#define EVENT_OF (1ul << 63)
#define EVENT_MINH (1ul << 62)
#define EVENT_SINH (1ul << 61)
#define EVENT_UINH (1ul << 60)
#define CY (1ul << 0)
#define TM (1ul << 1)
#define IR (1ul << 2)
#define HPM(i) (1ul << (i))

CSR_ACCESSORS(scountinhibit, 0x120)
CSR_ACCESSORS(scountovf, 0xda0)
CSR_ACCESSORS(mhpmevent3, 0x323)
CSR_ACCESSORS(mhpmevent4, 0x324)
CSR_ACCESSORS(mhpmevent5, 0x325)
CSR_ACCESSORS(mhpmevent31, 0x33f)
CSR_ACCESSORS(mhpmcounter3, 0xb03)


static const unsigned modes[] = {PRIV_M, PRIV_S};

/* sireg<k> (k = 1..6) at select sel raises illegal-instruction from M and S, reading and writing. */
static void illegal_from_m_and_s(uint64_t sel, int k, uint64_t line) {
  put_siselect(sel);
  for (int m = 0; m < 2; m++) {
    expect_illegal(modes[m], read_sireg[k - 1], 0, line);
    expect_illegal(modes[m], write_sireg[k - 1], 0, line);
  }
}
#define ILLEGAL_SIREG(sel, k) illegal_from_m_and_s(sel, k, __LINE__)

static void enable(uint64_t counters) {
  csr_write(menvcfg, MENVCFG_CDE);
  csr_write(mcounteren, counters);
}

/* --- The exception matrix (illegal-instruction rows; the VS rows need H) --- */

static void cde_zero(void) {
  csr_write(menvcfg, 0);
  csr_write(mcounteren, ~0ul);
  CHECK(0, csr_read(menvcfg) & MENVCFG_CDE);
  for (int k = 1; k <= 2; k++) {
    ILLEGAL_SIREG(0x40, k);
    ILLEGAL_SIREG(0x43, k);
    ILLEGAL_SIREG(0x5f, k);
  }
  ILLEGAL(PRIV_M, at_read_scountinhibit, 0);
  ILLEGAL(PRIV_S, at_read_scountinhibit, 0);
  ILLEGAL(PRIV_S, at_write_scountinhibit, 0);
  csr_write(menvcfg, MENVCFG_CDE);
  CHECK(MENVCFG_CDE, csr_read(menvcfg) & MENVCFG_CDE);
}

static void unused_and_rv32_iregs(void) {
  enable(~0ul);
  static const uint64_t sels[] = {0x40, 0x42, 0x43, 0x5f};
  for (int s = 0; s < 4; s++) {
    ILLEGAL_SIREG(sels[s], 3);
    ILLEGAL_SIREG(sels[s], 6);
    ILLEGAL_SIREG(sels[s], 4); /* the RV32 high halves, absent at XLEN = 64 */
    ILLEGAL_SIREG(sels[s], 5);
  }
}

/* 0x41 would be time: never delegated, even with mcounteren.TM set. */
static void hole(void) {
  enable(~0ul);
  for (int k = 1; k <= 6; k++) ILLEGAL_SIREG(0x41, k);
}

static void not_delegated(void) {
  enable(HPM(3) | TM);
  ILLEGAL_SIREG(0x40, 1);
  ILLEGAL_SIREG(0x42, 2);
  ILLEGAL_SIREG(0x44, 1);
  ILLEGAL_SIREG(0x5f, 2);
  put_siselect(0x43);
  ALLOWED(PRIV_S, at_read_sireg, 0);
  ALLOWED(PRIV_S, at_read_sireg2, 0);
}

/* --- What a delegated counter looks like from S --- */

static void delegated_counters(void) {
  enable(CY | IR | HPM(3));
  put_mhpmevent3(0); /* counts nothing: holds still */
  csr_write(mhpmcounter3, 1000);
  put_siselect(0x43);
  CHECK(1000, ALLOWED(PRIV_S, get_sireg, 0));
  ALLOWED(PRIV_S, put_sireg, 77);
  CHECK(77, csr_read(mhpmcounter3));
  ALLOWED(PRIV_S, put_sireg2, EVENT_OF | EVENT_UINH);
  CHECK(EVENT_OF | EVENT_UINH, get_mhpmevent3(0));
  ALLOWED(PRIV_S, put_sireg2, 0);
  CHECK(0, get_mhpmevent3(0));

  /* cycle and instret, frozen by mcountinhibit so that a write reads back exactly. */
  csr_write(mcountinhibit, CY | IR);
  put_siselect(0x40);
  ALLOWED(PRIV_S, put_sireg, 12345);
  CHECK(12345, csr_read(mcycle));
  put_siselect(0x42);
  ALLOWED(PRIV_S, put_sireg, 678);
  CHECK(678, csr_read(minstret));
  CHECK(678, ALLOWED(PRIV_S, get_sireg, 0));
  csr_write(mcountinhibit, 0);
  /* Their configurations (Smcntrpmf's mcyclecfg and minstretcfg). */
  ALLOWED(PRIV_S, put_sireg2, EVENT_SINH);
  CHECK(EVENT_SINH, ALLOWED(PRIV_S, get_sireg2, 0));
  ALLOWED(PRIV_S, put_sireg2, 0);
}

/* MINH (bit 62) is M-mode's own filter: read-only zero through sireg2, and kept as M set it. */
static void minh(void) {
  enable(HPM(3));
  put_mhpmevent3(EVENT_MINH | EVENT_SINH);
  put_siselect(0x43);
  CHECK(EVENT_SINH, ALLOWED(PRIV_S, get_sireg2, 0));
  CHECK(EVENT_SINH, get_sireg2(0)); /* the sireg view, even from M */
  ALLOWED(PRIV_S, put_sireg2, 0);
  CHECK(EVENT_MINH, get_mhpmevent3(0));
  put_mhpmevent3(0);
  ALLOWED(PRIV_S, put_sireg2, EVENT_MINH | EVENT_UINH);
  CHECK(EVENT_UINH, get_mhpmevent3(0));
  put_mhpmevent3(0);
}

/* scountinhibit: mcountinhibit's bits of delegated counters; the rest read-only zero. */
static void scountinhibit(void) {
  enable(CY | TM | HPM(3) | HPM(30));
  const uint64_t delegated = CY | HPM(3) | HPM(30);
  csr_write(mcountinhibit, ~TM & 0xffffffff);
  CHECK(delegated, ALLOWED(PRIV_S, get_scountinhibit, 0));
  ALLOWED(PRIV_S, put_scountinhibit, 0);
  CHECK(~(TM | delegated) & 0xffffffff, csr_read(mcountinhibit));
  csr_write(mcountinhibit, 0);
  ALLOWED(PRIV_S, put_scountinhibit, ~0ul);
  CHECK(delegated, csr_read(mcountinhibit));
  CHECK(delegated, get_scountinhibit(0));
  csr_write(mcountinhibit, 0);
  ILLEGAL(PRIV_U, at_read_scountinhibit, 0);
}

/* scountovf: the OF bits of mhpmevent3..31; below M only those mcounteren grants. Independent of
   delegation. */
static void scountovf(void) {
  csr_write(menvcfg, 0);
  put_mhpmevent4(EVENT_OF);
  put_mhpmevent5(EVENT_OF);
  put_mhpmevent31(EVENT_OF);
  csr_write(mcounteren, HPM(4) | HPM(31));
  CHECK(HPM(4) | HPM(5) | HPM(31), get_scountovf(0));
  CHECK(HPM(4) | HPM(31), ALLOWED(PRIV_S, get_scountovf, 0));
  ILLEGAL(PRIV_U, at_read_scountovf, 0);
  ILLEGAL(PRIV_M, at_write_scountovf, 0); /* read-only */
  put_mhpmevent4(0);
  put_mhpmevent5(0);
  put_mhpmevent31(0);
  CHECK(0, get_scountovf(0));
}

int main(void) {
  set_m_handler(record_m);
  put_mstateen0(CSRIND);
  cde_zero();
  unused_and_rv32_iregs();
  hole();
  not_delegated();
  delegated_counters();
  minh();
  scountinhibit();
  scountovf();
  return 0;
}
