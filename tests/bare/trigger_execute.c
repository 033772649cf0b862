/* Sdtrig execute triggers (mcontrol6, action 0): a breakpoint before the instruction at an address
 * (mepc = mtval = its address, hit = 1) and not at its neighbours; every match mode, alone or in
 * chains; instruction sizes; priority over fetch faults and illegal instructions; and translated
 * code that must change when a trigger is set on an instruction of a block that already ran, and
 * again when it is cleared or moved. M-mode triggers need mstatus.MIE (csr/trigger.cpp, enabled_in_mode). */
#include "bare.h"
#include "check.h"
#include "trigger.h"

#define X (MC6 | MC6_M | MC6_EXECUTE)
#define XT ((uint64_t)xt_fn)

static void address(void) {
  CHECK(X, trig_set(0, X, (uint64_t)xt_1));
  expect_xt(15 - 2, 1, (uint64_t)xt_1); /* neither xt_fn before it nor xt_2 after it */
  CHECK(X | MC6_HIT0, trig_tdata1(0));  /* hit = 1: before the instruction */
  csr_clear(tdata1, MC6_HIT0);
  CHECK(X, csr_read(tdata1));
  /* An address between instructions matches none (the compare value is the pc). */
  trig_set(0, X, (uint64_t)xt_1 + 2);
  expect_xt(15, 0, 0);
  trig_clear_all();
  expect_xt(15, 0, 0);
}

static void match_modes(void) {
  /* NAPOT: 8 bytes at xt_fn, then 16. */
  trig_set(0, X | MC6_MATCH(MATCH_NAPOT), XT | 3);
  expect_xt(15 - 1 - 2, 2, (uint64_t)xt_1);
  trig_set(0, X | MC6_MATCH(MATCH_NAPOT), XT | 7);
  expect_xt(0, 4, (uint64_t)xt_3);
  /* [xt_1, xt_3): >= chained with <. */
  trig_set(0, X | MC6_CHAIN | MC6_MATCH(MATCH_GE), (uint64_t)xt_1);
  trig_set(1, X | MC6_MATCH(MATCH_LT), (uint64_t)xt_3);
  expect_xt(15 - 2 - 4, 2, (uint64_t)xt_2);
  CHECK(X | MC6_CHAIN | MC6_MATCH(MATCH_GE) | MC6_HIT0, trig_tdata1(0)); /* every trigger of the chain */
  CHECK(X | MC6_MATCH(MATCH_LT) | MC6_HIT0, trig_tdata1(1));
  /* The 16 bytes but xt_1: NAPOT chained with not-equal. */
  trig_set(0, X | MC6_CHAIN | MC6_MATCH(MATCH_NAPOT), XT | 7);
  trig_set(1, X | MC6_MATCH(MATCH_NOT_EQ), (uint64_t)xt_1);
  expect_xt(2, 3, (uint64_t)xt_3);
  /* The 16 bytes but the first 8: not-NAPOT. */
  trig_set(1, X | MC6_MATCH(MATCH_NOT_NAPOT), XT | 3);
  expect_xt(15 - 4 - 8, 2, (uint64_t)xt_3);
  /* Mask low: the low 32 bits, bits 2 and 3 ignored (all four addis). */
  trig_set(1, 0, 0);
  trig_set(0, X | MC6_MATCH(MATCH_MASK_LOW), 0xfffffff3ul << 32 | (XT & 0xfffffff3));
  expect_xt(0, 4, (uint64_t)xt_3);
  /* Not mask low with all 32 bits of xt_1, within the 16 bytes. */
  trig_set(0, X | MC6_CHAIN | MC6_MATCH(MATCH_NAPOT), XT | 7);
  trig_set(1, X | MC6_MATCH(MATCH_NOT_MASK_LOW), 0xfffffffful << 32 | ((uint64_t)xt_1 & 0xffffffff));
  expect_xt(2, 3, (uint64_t)xt_3);
  /* Mask high: bits 63:32 are those of RAM (zero), with xt_2 alone; negated, never. (Chains are
   * set last trigger first: one matching every instruction would fire on the test itself.) */
  trig_set(1, X, (uint64_t)xt_2);
  trig_set(0, X | MC6_CHAIN | MC6_MATCH(MATCH_MASK_HIGH), 0xfffffffful << 32 | (XT >> 32));
  expect_xt(15 - 4, 1, (uint64_t)xt_2);
  trig_set(0, X | MC6_CHAIN | MC6_MATCH(MATCH_NOT_MASK_HIGH), 0xfffffffful << 32 | (XT >> 32));
  expect_xt(15, 0, 0);
  /* A chain fires only when all of its triggers match: xt_1 and xt_2 never both. */
  trig_set(0, X | MC6_CHAIN, (uint64_t)xt_1);
  trig_set(1, X, (uint64_t)xt_2);
  expect_xt(15, 0, 0);
  CHECK(X | MC6_CHAIN, trig_tdata1(0));
  CHECK(X, trig_tdata1(1));
  /* A trigger watching loads only never matches an execute. */
  trig_set(0, MC6 | MC6_M | MC6_LOAD, (uint64_t)xt_1);
  trig_set(1, 0, 0);
  expect_xt(15, 0, 0);
  trig_clear_all();
}

static void sizes(void) {
  /* size 16 bits: c.addi, not addi; size 32: the other way round. */
  trig_set(0, X | MC6_SIZE(SIZE_16), (uint64_t)xt_1);
  expect_xt(15, 0, 0);
  trig_set(0, X | MC6_SIZE(SIZE_32), (uint64_t)xt_1);
  expect_xt(13, 1, (uint64_t)xt_1);
  clear_recs();
  trig_set(0, X | MC6_SIZE(SIZE_32), (uint64_t)xc_1);
  CHECK(3, xc_fn(0));
  CHECK(0, m_rec.count);
  trig_set(0, X | MC6_SIZE(SIZE_16), (uint64_t)xc_1);
  CHECK(1, xc_fn(0));
  expect_m(CAUSE_BREAKPOINT, (uint64_t)xc_1, (uint64_t)xc_1);
  trig_set(0, X | MC6_SIZE(SIZE_64), (uint64_t)xc_1);
  CHECK(3, xc_fn(0));
  CHECK(0, m_rec.count);
  trig_clear_all();
}

/* xi_fn runs an instruction nothing implements (custom-0) and returns. */
void xi_fn(void);
__asm__(".text\n.option push\n.option norvc\n.globl xi_fn\nxi_fn: .word 0x0000500b\nret\n.option pop\n");

/* An execute address breakpoint comes before the fetch's access fault and before the illegal
 * instruction exception (Sdtrig.adoc, "Priority"). */
static void priority(void) {
  xi_fn();
  expect_m(CAUSE_ILLEGAL, (uint64_t)xi_fn, 0x500b);
  trig_set(0, X, (uint64_t)xi_fn);
  xi_fn();
  expect_m(CAUSE_BREAKPOINT, (uint64_t)xi_fn, (uint64_t)xi_fn);

  trig_set(0, X, UNMAPPED_PA);
  jump_to(UNMAPPED_PA);
  expect_m(CAUSE_BREAKPOINT, UNMAPPED_PA, UNMAPPED_PA);
  CHECK(X | MC6_HIT0, trig_tdata1(0));
  /* A size needs the instruction's length, which a failed fetch does not give. */
  trig_set(0, X | MC6_SIZE(SIZE_32), UNMAPPED_PA);
  jump_to(UNMAPPED_PA);
  expect_m(CAUSE_FETCH_ACCESS, UNMAPPED_PA, UNMAPPED_PA);
  trig_clear_all();
}

/* xt_fn has run many times as one translated block: a trigger on its third instruction must
 * still fire, stop firing when cleared, and follow a change of the armed configuration. */
static void translated(void) {
  for (int k = 0; k < 100; k++) CHECK(15, xt_fn(0));
  trig_set(0, X, (uint64_t)xt_2);
  for (int k = 0; k < 3; k++) expect_xt(11, 1, (uint64_t)xt_2);
  trig_clear_all();
  for (int k = 0; k < 3; k++) expect_xt(15, 0, 0);
  /* Trigger 0 stays armed elsewhere while trigger 1 moves from xt_2 to xt_3 and back. */
  trig_set(0, X, UNMAPPED_PA);
  expect_xt(15, 0, 0);
  trig_set(1, X, (uint64_t)xt_2);
  expect_xt(11, 1, (uint64_t)xt_2);
  trig_set(1, X, (uint64_t)xt_3);
  expect_xt(7, 1, (uint64_t)xt_3);
  csr_write(tdata2, (uint64_t)xt_2); /* tdata2 alone, with the trigger armed */
  expect_xt(11, 1, (uint64_t)xt_2);
  /* Trigger 0, no execute trigger now, chains to trigger 1: an execute never matches both. */
  trig_set(0, MC6 | MC6_M | MC6_LOAD | MC6_CHAIN, UNMAPPED_PA);
  expect_xt(15, 0, 0);
  trig_set(0, MC6 | MC6_M | MC6_LOAD, UNMAPPED_PA);
  expect_xt(11, 1, (uint64_t)xt_2);
  trig_clear_all();
  expect_xt(15, 0, 0);
}

int main(void) {
  set_m_handler(record_m);
  csr_set(mstatus, MSTATUS_MIE); /* mie is 0: no interrupt is taken */
  address();
  match_modes();
  sizes();
  priority();
  translated();
  return 0;
}
