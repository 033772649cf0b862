/* Sdtrig mode filtering: mcontrol6's m, s and u bits, and the rule that keeps triggers of action 0
 * out of trap handlers (Sdtrig.adoc, "Native Triggers", the first option, which brisk implements
 * instead of tcontrol): none fire in M-mode while mstatus.MIE is 0, nor in S-mode while
 * sstatus.SIE is 0 when medeleg delegates breakpoints; delegated, they trap into S. */
#include "bare.h"
#include "check.h"
#include "trigger.h"

static volatile uint64_t word;

static uint64_t call_xt(uint64_t unused) {
  (void)unused;
  return xt_fn(0);
}
/* The load of word, or `preset` if it did not happen. */
static uint64_t load_word(uint64_t preset) {
  uint64_t v = preset;
  load64_at((uint64_t)&word, &v);
  return v;
}

/* xt_fn(0) in each mode: 15 where the trigger on xt_1 does not fire, 13 (one breakpoint, taken in
 * M) where it does. */
static void expect_modes(uint64_t m, uint64_t s, uint64_t u) {
  const uint64_t expect[3] = {m, s, u};
  for (int k = 0; k < 3; k++) {
    csr_set(mstatus, MSTATUS_MIE); /* run_in returns with it clear (its ecall's trap) */
    clear_recs();
    const uint64_t r = k == 0 ? xt_fn(0) : run_in(k == 1 ? PRIV_S : PRIV_U, call_xt, 0);
    CHECK(expect[k], r);
    CHECK(expect[k] == 15 ? 0 : 1, m_rec.count);
    if (m_rec.count) {
      CHECK(CAUSE_BREAKPOINT, m_rec.cause);
      CHECK((uint64_t)xt_1, m_rec.epc);
    }
  }
  clear_recs();
}

static void mode_bits(void) {
  trig_set(0, MC6 | MC6_U | MC6_EXECUTE, (uint64_t)xt_1);
  expect_modes(15, 15, 13);
  trig_set(0, MC6 | MC6_S | MC6_EXECUTE, (uint64_t)xt_1);
  expect_modes(15, 13, 15);
  trig_set(0, MC6 | MC6_M | MC6_EXECUTE, (uint64_t)xt_1);
  expect_modes(13, 15, 15);
  trig_set(0, MC6 | MC6_M | MC6_S | MC6_U | MC6_EXECUTE, (uint64_t)xt_1);
  expect_modes(13, 13, 13);
  /* A U-only load trigger. */
  trig_set(0, MC6 | MC6_U | MC6_LOAD, (uint64_t)&word);
  word = 42;
  CHECK(42, load_word(0));
  CHECK(42, run_in(PRIV_S, load_word, 0));
  CHECK(0, m_rec.count);
  CHECK(0x5a5a, run_in(PRIV_U, load_word, 0x5a5a));
  CHECK(1, m_rec.count);
  CHECK(CAUSE_BREAKPOINT, m_rec.cause);
  CHECK((uint64_t)&word, m_rec.tval);
  clear_recs();
  trig_clear_all();
}

/* In M-mode only while mstatus.MIE is set; the M-mode trap handler runs with it clear. */
static void machine_rule(void) {
  trig_set(0, MC6 | MC6_M | MC6_EXECUTE, (uint64_t)xt_1);
  csr_clear(mstatus, MSTATUS_MIE);
  clear_recs();
  CHECK(15, xt_fn(0));
  CHECK(0, m_rec.count);
  CHECK(MC6 | MC6_M | MC6_EXECUTE, trig_tdata1(0)); /* no hit either: it did not match */
  csr_set(mstatus, MSTATUS_MIE);
  CHECK(13, xt_fn(0));
  expect_m(CAUSE_BREAKPOINT, (uint64_t)xt_1, (uint64_t)xt_1);
  /* A trigger on the handler's first instruction does not fire in the handler. */
  trig_set(1, MC6 | MC6_M | MC6_EXECUTE, (uint64_t)m_vectors);
  CHECK(13, xt_fn(0));
  expect_m(CAUSE_BREAKPOINT, (uint64_t)xt_1, (uint64_t)xt_1);
  trig_clear_all();
}

/* Delegated breakpoints (medeleg[3]) go to S, and then S-mode triggers need sstatus.SIE. */
static void supervisor_rule(void) {
  set_s_handler(record_s);
  csr_write(medeleg, 1ul << CAUSE_BREAKPOINT);
  trig_set(0, MC6 | MC6_S | MC6_EXECUTE, (uint64_t)xt_1);
  csr_clear(mstatus, MSTATUS_SIE);
  clear_recs();
  CHECK(15, run_in(PRIV_S, call_xt, 0));
  CHECK(0, s_rec.count);
  csr_set(mstatus, MSTATUS_SIE);
  CHECK(13, run_in(PRIV_S, call_xt, 0));
  CHECK(0, m_rec.count);
  expect_s(CAUSE_BREAKPOINT, (uint64_t)xt_1, (uint64_t)xt_1);
  /* U-mode triggers do not depend on SIE. */
  trig_set(0, MC6 | MC6_U | MC6_EXECUTE, (uint64_t)xt_1);
  csr_clear(mstatus, MSTATUS_SIE);
  CHECK(13, run_in(PRIV_U, call_xt, 0));
  expect_s(CAUSE_BREAKPOINT, (uint64_t)xt_1, (uint64_t)xt_1);
  /* Not delegated, SIE does not matter. */
  csr_write(medeleg, 0);
  trig_set(0, MC6 | MC6_S | MC6_EXECUTE, (uint64_t)xt_1);
  CHECK(13, run_in(PRIV_S, call_xt, 0));
  expect_m(CAUSE_BREAKPOINT, (uint64_t)xt_1, (uint64_t)xt_1);
  trig_clear_all();
}

int main(void) {
  set_m_handler(record_m);
  csr_set(mstatus, MSTATUS_MIE); /* mie is 0: no interrupt is taken */
  mode_bits();
  machine_rule();
  supervisor_rule();
  return 0;
}
