/* Smcsrind/Sscsrind: miselect/siselect hold what is written, and mireg* and sireg* reach a register
 * only where an implemented extension defines the select value (smcsrind.adoc). brisk implements the
 * counter-delegation range 0x40..0x5F at supervisor level and nothing at machine level; everything
 * else raises illegal-instruction, as the spec recommends. */
#include "csr_access.h"

#define CUSTOM (1ul << 63) /* select values with the top bit set are custom */

CSR_ACCESSORS(miselect, 0x350)
CSR_ACCESSORS(mireg, 0x351)
CSR_ACCESSORS(mireg2, 0x352)
CSR_ACCESSORS(mireg3, 0x353)
CSR_ACCESSORS(mireg4, 0x355)
CSR_ACCESSORS(mireg5, 0x356)
CSR_ACCESSORS(mireg6, 0x357)
CSR_ACCESSORS(mhpmcounter3, 0xb03)
CSR_ACCESSORS(mhpmevent3, 0x323)
CSR_ACCESSORS(mhpmcounter31, 0xb1f)

static const csr_fn read_mireg[] = {at_read_mireg, at_read_mireg2, at_read_mireg3,
                                    at_read_mireg4, at_read_mireg5, at_read_mireg6};
static const csr_fn write_mireg[] = {at_write_mireg, at_write_mireg2, at_write_mireg3,
                                     at_write_mireg4, at_write_mireg5, at_write_mireg6};

static void selects_hold_every_bit(void) {
  static const uint64_t values[] = {0, 0x43, 0xfff, 0x1000, CUSTOM | 0x43, ~0ul};
  for (int k = 0; k < 6; k++) {
    put_miselect(values[k]);
    CHECK(values[k], get_miselect(0));
    put_siselect(values[k]);
    CHECK(values[k], get_siselect(0));
  }
  ALLOWED(PRIV_S, put_siselect, CUSTOM | 0x40);
  CHECK(CUSTOM | 0x40, ALLOWED(PRIV_S, get_siselect, 0));
  /* miselect/mireg* are machine-level; no sireg-family CSR is reachable from U. */
  ILLEGAL(PRIV_S, at_read_miselect, 0);
  ILLEGAL(PRIV_S, at_read_mireg, 0);
  ILLEGAL(PRIV_U, at_read_siselect, 0);
  for (int k = 0; k < 6; k++) ILLEGAL(PRIV_U, read_sireg[k], 0);
}

static void mireg_has_nothing(void) {
  static const uint64_t values[] = {0, 0x30, 0x40, 0x43, 0x70, 0x200, CUSTOM};
  for (int v = 0; v < 7; v++) {
    put_miselect(values[v]);
    for (int k = 0; k < 6; k++) {
      ILLEGAL(PRIV_M, read_mireg[k], 0);
      ILLEGAL(PRIV_M, write_mireg[k], 0);
    }
  }
}

/* Reserved standard values and custom ones, including a custom value whose low bits name a counter. */
static void unimplemented_selects(void) {
  static const uint64_t values[] = {0, 0x3f, 0x60, 0x1ff, 0x300, 0xfff, 0x1000, CUSTOM | 0x43};
  for (int v = 0; v < 8; v++) {
    put_siselect(values[v]);
    for (int k = 0; k < 6; k++) {
      ILLEGAL(PRIV_M, read_sireg[k], 0);
      ILLEGAL(PRIV_S, read_sireg[k], 0);
      ILLEGAL(PRIV_S, write_sireg[k], 0);
    }
  }
}

/* 0x40..0x5F, at both ends: sireg is the counter, sireg2 its event selector. */
static void counter_range(void) {
  put_mhpmevent3(0); /* counts nothing, so it holds still */
  put_mhpmcounter3(0x1234);
  put_mhpmcounter31(0x3131);
  put_siselect(0x43);
  CHECK(0x1234, ALLOWED(PRIV_S, get_sireg, 0));
  CHECK(0, ALLOWED(PRIV_S, get_sireg2, 0));
  ALLOWED(PRIV_S, put_sireg, 0x4321);
  CHECK(0x4321, get_mhpmcounter3(0));
  put_siselect(0x5f);
  CHECK(0x3131, ALLOWED(PRIV_M, get_sireg, 0));
}

int main(void) {
  set_m_handler(record_m);
  put_mstateen0(CSRIND);
  csr_write(menvcfg, MENVCFG_CDE);
  csr_write(mcounteren, ~0ul);
  selects_hold_every_bit();
  mireg_has_nothing();
  unimplemented_selects();
  counter_range();
  return 0;
}
