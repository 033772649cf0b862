/* Sdtrig's CSRs: reset values, tselect and tdata1.type WARL, the mcontrol6 fields brisk keeps and
 * the configurations it disables, tdata2 and NAPOT's maskmax6, tdata3, tinfo, the debugger's
 * enumeration, and the trigger CSRs brisk does not have (illegal instruction). */
#include "bare.h"
#include "check.h"
#include "trigger.h"

#define TINFO_V1_MC6 ((1ul << 24) | (1ul << 6) | (1ul << 15))

static void reset_values(void) {
  CHECK(0, csr_read(tselect));
  for (unsigned n = 0; n < NTRIGGERS; n++) {
    csr_write(tselect, n);
    CHECK(n, csr_read(tselect));
    CHECK(TDATA1_DISABLED, csr_read(tdata1));
    CHECK(0, csr_read(tdata2));
    CHECK(0, csr_read(tdata3));
    CHECK(TINFO_V1_MC6, csr_read(tinfo));
  }
}

/* The enumeration of Sdtrig.adoc: write an index, read it back, stop where it does not stick. */
static void enumeration(void) {
  unsigned n = 0;
  for (;; n++) {
    csr_write(tselect, n);
    if (csr_read(tselect) != n) break;
    CHECK(TINFO_V1_MC6, csr_read(tinfo));
  }
  CHECK(NTRIGGERS, n);
  CHECK(NTRIGGERS - 1, csr_read(tselect)); /* WARL: an index past the last keeps the old one */
  csr_write(tselect, ~0ul);
  CHECK(NTRIGGERS - 1, csr_read(tselect));
  csr_write(tselect, 1);
  CHECK(1, csr_read(tselect));
}

static void tdata1_warl(void) {
  /* Every kept field at once. */
  const uint64_t all = MC6 | MC6_HIT0 | MC6_SIZE(SIZE_64) | MC6_CHAIN | MC6_MATCH(MATCH_NOT_MASK_HIGH) | MC6_M | MC6_S |
                       MC6_U | MC6_EXECUTE | MC6_STORE | MC6_LOAD;
  CHECK(all, trig_set(0, all, 0));
  /* dmode (Debug Mode only), uncertain, hit1, vs, vu (no H) and uncertainen read 0. */
  CHECK(MC6 | MC6_LOAD | MC6_M,
        trig_set(0, MC6 | DMODE | MC6_UNCERTAIN | MC6_HIT1 | MC6_VS | MC6_VU | MC6_UNCERTAINEN | MC6_LOAD | MC6_M, 0));
  /* Sizes 48 and 128 bits are kept (nothing that size matches); 7 is reserved. */
  CHECK(MC6 | MC6_SIZE(4) | MC6_LOAD, trig_set(0, MC6 | MC6_SIZE(4) | MC6_LOAD, 0));
  CHECK(MC6 | MC6_SIZE(6) | MC6_LOAD, trig_set(0, MC6 | MC6_SIZE(6) | MC6_LOAD, 0));
  /* Unsupported configurations disable the trigger: size 7, a reserved match, a data match,
   * action 1 (Debug Mode: dmode is 0) and the other actions, and every other type. */
  CHECK(TDATA1_DISABLED, trig_set(0, MC6 | MC6_SIZE(7) | MC6_LOAD, 0));
  for (unsigned m = 0; m < 16; m++) {
    const int supported = m <= 5 || m == 8 || m == 9 || m == 12 || m == 13;
    CHECK(supported ? MC6 | MC6_MATCH(m) | MC6_LOAD : TDATA1_DISABLED, trig_set(0, MC6 | MC6_MATCH(m) | MC6_LOAD, 0));
  }
  CHECK(TDATA1_DISABLED, trig_set(0, MC6 | MC6_SELECT | MC6_LOAD, 0));
  for (unsigned a = 1; a < 16; a++) CHECK(TDATA1_DISABLED, trig_set(0, MC6 | MC6_ACTION(a) | MC6_LOAD, 0));
  for (unsigned t = 0; t < 16; t++)
    if (t != 6) CHECK(TDATA1_DISABLED, trig_set(0, TYPE(t) | MC6_LOAD | MC6_M, 0));
  /* The last trigger has no next one to chain to. */
  CHECK(MC6 | MC6_LOAD, trig_set(NTRIGGERS - 1, MC6 | MC6_CHAIN | MC6_LOAD, 0));
  CHECK(MC6 | MC6_CHAIN | MC6_LOAD, trig_set(NTRIGGERS - 2, MC6 | MC6_CHAIN | MC6_LOAD, 0));
  /* hit0 is the trigger user's to set and clear. */
  csr_write(tselect, 1);
  csr_write(tdata1, MC6 | MC6_HIT0 | MC6_STORE);
  CHECK(MC6 | MC6_HIT0 | MC6_STORE, csr_read(tdata1));
  csr_clear(tdata1, MC6_HIT0);
  CHECK(MC6 | MC6_STORE, csr_read(tdata1));
  /* Writes reach the selected trigger only. */
  CHECK(MC6 | MC6_CHAIN | MC6_LOAD | MC6_M, trig_set(0, MC6 | MC6_CHAIN | MC6_LOAD | MC6_M, 0x1000));
  trig_set(1, MC6 | MC6_STORE | MC6_U, 0x2000);
  csr_write(tselect, 0);
  CHECK(MC6 | MC6_CHAIN | MC6_LOAD | MC6_M, csr_read(tdata1));
  CHECK(0x1000, csr_read(tdata2));
  /* Writing 0 disables. */
  csr_write(tdata1, 0);
  CHECK(TDATA1_DISABLED, csr_read(tdata1));
  CHECK(0x1000, csr_read(tdata2));
  trig_clear_all();
}

static void tdata2_tdata3(void) {
  csr_write(tselect, 2);
  csr_write(tdata1, 0);
  const uint64_t values[] = {0, 1, 0xdeadbeefcafef00dul, ~0ul, 0x8000000000000000ul};
  for (unsigned k = 0; k < sizeof values / sizeof values[0]; k++) {
    csr_write(tdata2, values[k]);
    CHECK(values[k], csr_read(tdata2));
  }
  /* maskmax6, as Sdtrig's sequence finds it: 63 (NAPOT ranges up to 2^63 bytes). */
  csr_write(tdata1, 0);
  csr_write(tdata2, 0);
  csr_write(tdata1, MC6 | MC6_MATCH(MATCH_NAPOT) | MC6_LOAD);
  CHECK(MC6 | MC6_MATCH(MATCH_NAPOT) | MC6_LOAD, csr_read(tdata1));
  csr_write(tdata2, ~0ul);
  CHECK(~0ul & ~(1ul << 62), csr_read(tdata2));
  csr_write(tdata2, 0x80000fff);
  CHECK(0x80000fff, csr_read(tdata2));
  /* textra64: no context conditions, every field reads 0 (ignore). */
  csr_write(tdata3, ~0ul);
  CHECK(0, csr_read(tdata3));
  /* tinfo is read-only. */
  csr_write(tinfo, 0);
  CHECK(TINFO_V1_MC6, csr_read(tinfo));
  trig_clear_all();
}

static uint64_t word_at(uint64_t pc) { return *(volatile uint32_t *)pc; }

static uint64_t s_read_tselect(uint64_t unused) {
  (void)unused;
  return AT("csrr t0, tselect");
}

/* tcontrol, mcontext and scontext are optional and brisk has none (triggers follow mstatus.MIE
 * instead of tcontrol.mte); the trigger CSRs are M-mode only. */
static void missing_and_privileged(void) {
  uint64_t pc = AT("csrr t0, tcontrol");
  expect_m(CAUSE_ILLEGAL, pc, word_at(pc));
  pc = AT("csrr t0, mcontext");
  expect_m(CAUSE_ILLEGAL, pc, word_at(pc));
  pc = AT("csrr t0, scontext");
  expect_m(CAUSE_ILLEGAL, pc, word_at(pc));
  pc = run_in(PRIV_S, s_read_tselect, 0);
  expect_m(CAUSE_ILLEGAL, pc, word_at(pc));
}

int main(void) {
  set_m_handler(record_m);
  reset_values();
  enumeration();
  tdata1_warl();
  tdata2_tdata3();
  missing_and_privileged();
  return 0;
}
