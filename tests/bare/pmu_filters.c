/* Mode filters: Sscofpmf's MINH/SINH/UINH in mhpmevent and Smcntrpmf's mcyclecfg/minstretcfg
 * count only in the modes they allow while the same loop runs in M, S and U; mcountinhibit freezes
 * counters; which filter fields exist.
 *
 * run_in(priv, count_loop, n) retires in the lower mode: run_trampoline's jalr t0, the loop's
 * 2n + 2, then li a7, RUN_MAGIC (lui, addiw): 2n + 5. Its closing ecall does not retire (zicntr.adoc:
 * instructions that raise exceptions do not retire), and the mret that entered the lower mode
 * retires in M: an xRET increments instret "only if the originating privilege mode is not
 * inhibited" (smcntrpmf.adoc, "Counter Behavior"); the instruction event of mhpmevent counts the
 * same retirements. The checks that depend on that rule come last. */
#include "check.h"
#include "pmu.h"

#define LOWER_RETIRED(n) (2 * (n) + 5)

/* count_loop(n): 2n + 2 instructions, n branches. three_ecalls(): li a7, 0, three ecalls, ret. */
uint64_t count_loop(uint64_t n);
uint64_t three_ecalls(uint64_t unused);
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl count_loop\n"
    "count_loop:\n"
    "  mv t0, a0\n"
    "1: addi t0, t0, -1\n"
    "  bnez t0, 1b\n"
    "  ret\n"
    "  .globl three_ecalls\n"
    "three_ecalls:\n"
    "  li a7, 0\n"
    "  ecall\n"
    "  ecall\n"
    "  ecall\n"
    "  ret\n"
    "  .option pop\n");

static uint64_t read_hpm3(uint64_t u) {
  (void)u;
  return csr_read(hpmcounter3);
}

#define HPM_WINDOW (CTR_HPM(3) | CTR_HPM(4) | CTR_HPM(5) | CTR_HPM(6) | CTR_HPM(7) | CTR_HPM(8) | CTR_HPM(9))

struct counts {
  uint64_t all, m, s, u;     /* instructions */
  uint64_t br_m, br_s, br_u; /* branches */
};

/* One window of the hpm counters: count_loop(ns) in S, count_loop(nu) in U, count_loop(nm) in M. */
static struct counts window(uint64_t ns, uint64_t nu, uint64_t nm) {
  csr_set(mcountinhibit, HPM_WINDOW);
  csr_write(mhpmevent3, EV_INSTRUCTIONS);
  csr_write(mhpmevent4, EV_INSTRUCTIONS | ONLY_M);
  csr_write(mhpmevent5, EV_INSTRUCTIONS | ONLY_S);
  csr_write(mhpmevent6, EV_INSTRUCTIONS | ONLY_U);
  csr_write(mhpmevent7, EV_BRANCHES | ONLY_M);
  csr_write(mhpmevent8, EV_BRANCHES | ONLY_S);
  csr_write(mhpmevent9, EV_BRANCHES | ONLY_U);
  csr_write(mhpmcounter3, 0);
  csr_write(mhpmcounter4, 0);
  csr_write(mhpmcounter5, 0);
  csr_write(mhpmcounter6, 0);
  csr_write(mhpmcounter7, 0);
  csr_write(mhpmcounter8, 0);
  csr_write(mhpmcounter9, 0);
  csr_clear(mcountinhibit, HPM_WINDOW);
  run_in(PRIV_S, count_loop, ns);
  run_in(PRIV_U, count_loop, nu);
  count_loop(nm);
  csr_set(mcountinhibit, HPM_WINDOW);
  struct counts c = {csr_read(mhpmcounter3), csr_read(mhpmcounter4), csr_read(mhpmcounter5),
                     csr_read(mhpmcounter6), csr_read(mhpmcounter7), csr_read(mhpmcounter8),
                     csr_read(mhpmcounter9)};
  return c;
}

/* What does not depend on how mode changes are attributed: the modes add up to the whole, the
   lower modes' branches are exactly their loops', and M's share does not grow with their work. */
static void hpm_filters(void) {
  struct counts a = window(10, 20, 30), b = window(1000, 3000, 30);
  CHECK(a.all, a.m + a.s + a.u);
  CHECK(b.all, b.m + b.s + b.u);
  CHECK(10, a.br_s);
  CHECK(20, a.br_u);
  CHECK(1000, b.br_s);
  CHECK(3000, b.br_u);
  CHECK(1, a.br_m >= 30);
  CHECK(a.br_m, b.br_m);
  CHECK(1, a.m >= 2 * 30 + 2);
  CHECK(a.m, b.m);
  CHECK(2 * (1000 - 10), b.s - a.s);
  CHECK(2 * (3000 - 20), b.u - a.u);
}

/* mcountinhibit stops a counter where it is, a written value included, whatever runs meanwhile;
   reading it is still allowed (machine.adoc, "Machine Counter-Inhibit"). */
static void inhibit(void) {
  const uint64_t bits = CTR_CY | CTR_IR | CTR_HPM(3) | CTR_HPM(4);
  csr_write(mhpmevent3, EV_INSTRUCTIONS);
  csr_write(mhpmevent4, EV_BRANCHES);
  csr_set(mcountinhibit, bits);
  csr_write(mhpmcounter3, 12345);
  csr_write(mhpmcounter4, 678);
  const uint64_t cycle = csr_read(mcycle), instret = csr_read(minstret);
  count_loop(100);
  run_in(PRIV_S, count_loop, 100);
  run_in(PRIV_U, count_loop, 100);
  CHECK(12345, csr_read(mhpmcounter3));
  CHECK(678, csr_read(mhpmcounter4));
  CHECK(cycle, csr_read(mcycle));
  CHECK(instret, csr_read(minstret));
  csr_write(mcounteren, CTR_HPM(3));
  CHECK(12345, run_in(PRIV_S, read_hpm3, 0));
  CHECK(0, m_rec.count);
  csr_write(mcounteren, 0);

  csr_clear(mcountinhibit, bits);
  count_loop(100);
  csr_set(mcountinhibit, bits);
  CHECK(1, csr_read(mhpmcounter3) >= 12345 + 202);
  CHECK(1, csr_read(mhpmcounter4) >= 678 + 100);
  CHECK(1, csr_read(mcycle) >= cycle + 202);
  CHECK(1, csr_read(minstret) >= instret + 202);
  csr_clear(mcountinhibit, CTR_CY | CTR_IR);
}

/* mcycle over run_in(priv, count_loop, n) with mcyclecfg = cfg. */
static uint64_t cycles_over(uint64_t cfg, unsigned priv, uint64_t n) {
  write_mcyclecfg(cfg);
  const uint64_t a = csr_read(mcycle);
  run_in(priv, count_loop, n);
  const uint64_t b = csr_read(mcycle);
  write_mcyclecfg(0);
  return b - a;
}

/* mcyclecfg: brisk's cycle is one per retired instruction, and "the change of privilege mode may be
   reported as occurring in any one of" a transition's cycles (smcntrpmf.adoc): U alone sees its
   2n + 5 instructions, give or take the mret that entered it. */
static void cycle_filter(void) {
  for (uint64_t n = 10; n <= 1000; n *= 10) {
    const uint64_t u = cycles_over(ONLY_U, PRIV_U, n);
    CHECK(1, u >= LOWER_RETIRED(n) && u <= LOWER_RETIRED(n) + 1);
    CHECK(0, cycles_over(ONLY_U, PRIV_S, n));
  }
  CHECK(cycles_over(ONLY_M, PRIV_U, 10), cycles_over(ONLY_M, PRIV_U, 1000));
  CHECK(2 * (1000 - 10), cycles_over(ONLY_S, PRIV_S, 1000) - cycles_over(ONLY_S, PRIV_S, 10));
}

/* Only existing modes have filter bits: without the H extension VSINH and VUINH are read-only
   zero (sscofpmf.adoc, "For each xINH bit ..."; smcntrpmf.adoc, bits 61:58), and the cfg CSRs'
   bit 63 (OF) is read-only zero. Bits 57:0 of the cfg CSRs are WPRI, not checked. */
static void filter_fields(void) {
  const uint64_t inh = EVENT_MINH | EVENT_SINH | EVENT_UINH | EVENT_VSINH | EVENT_VUINH;
  const uint64_t top = EVENT_OF | inh;
  csr_set(mcountinhibit, CTR_HPM(3));
  csr_write(mhpmevent3, top | EV_INSTRUCTIONS);
  write_mcyclecfg(~0ul);
  write_minstretcfg(~0ul);
  CHECK(0, read_mcyclecfg() & EVENT_OF);
  CHECK(0, read_minstretcfg() & EVENT_OF);
  CHECK(EVENT_OF | EVENT_MINH | EVENT_SINH | EVENT_UINH | EV_INSTRUCTIONS, csr_read(mhpmevent3) & (top | 0xffff));
  CHECK(EVENT_MINH | EVENT_SINH | EVENT_UINH, read_mcyclecfg() & top);
  CHECK(EVENT_MINH | EVENT_SINH | EVENT_UINH, read_minstretcfg() & top);
  write_mcyclecfg(0);
  write_minstretcfg(0);
  csr_write(mhpmevent3, 0);
}

/* minstret over run_in(priv, count_loop, n) with minstretcfg = cfg. */
static uint64_t instret_over(uint64_t cfg, unsigned priv, uint64_t n) {
  write_minstretcfg(cfg);
  const uint64_t a = csr_read(minstret);
  run_in(priv, count_loop, n);
  const uint64_t b = csr_read(minstret);
  write_minstretcfg(0);
  return b - a;
}

/* minstretcfg: each mode counts only its own retirements. */
static void instret_filter(void) {
  CHECK(instret_over(ONLY_M, PRIV_U, 10), instret_over(ONLY_M, PRIV_U, 1000));
  CHECK(0, instret_over(ONLY_U, PRIV_S, 1000));
  CHECK(2 * (1000 - 10), instret_over(ONLY_U, PRIV_U, 1000) - instret_over(ONLY_U, PRIV_U, 10));
  CHECK(LOWER_RETIRED(1000), instret_over(ONLY_U, PRIV_U, 1000));
  CHECK(LOWER_RETIRED(1000), instret_over(ONLY_S, PRIV_S, 1000));
}

/* The xRET rule on exact counts: the lower mode does not count the mrets that enter it, nor its
   ecalls; with three ecalls in U, only li a7, 0 and ret retire there besides run_in's three. */
static void xret_rule(void) {
  struct counts c = window(10, 20, 30);
  CHECK(LOWER_RETIRED(10), c.s);
  CHECK(LOWER_RETIRED(20), c.u);

  csr_set(mcountinhibit, CTR_HPM(3));
  csr_write(mhpmevent3, EV_INSTRUCTIONS | ONLY_U);
  csr_write(mhpmcounter3, 0);
  csr_clear(mcountinhibit, CTR_HPM(3));
  run_in(PRIV_U, three_ecalls, 0);
  csr_set(mcountinhibit, CTR_HPM(3));
  CHECK(3, m_rec.count);
  clear_recs();
  CHECK(3 + 2, csr_read(mhpmcounter3));

  write_minstretcfg(ONLY_U);
  const uint64_t a = csr_read(minstret);
  run_in(PRIV_U, three_ecalls, 0);
  const uint64_t b = csr_read(minstret);
  write_minstretcfg(0);
  clear_recs();
  CHECK(3 + 2, b - a);
}

int main(void) {
  set_m_handler(record_m);
  hpm_filters();
  inhibit();
  cycle_filter();
  filter_fields();
  instret_filter();
  xret_rule();
  return 0;
}
