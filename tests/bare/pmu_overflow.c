/* Sscofpmf counter overflow: a counter that wraps from all ones to 0 with OF clear sets OF and raises
 * LCOFI (interrupt 13) at that very instruction, in M or delegated to S (mideleg bit 13); scountovf
 * shows OF (all bits in M, those in mcounteren in S); with OF set a wrap raises nothing; clearing
 * OF re-arms; writes set OF but never overflow (sscofpmf.adoc).
 *
 * The sleds are runs of addi a0, a0, 1 from a0 = 0: where the interrupt arrives, a0 is the number
 * of sled instructions that retired and epc the next one's address, so any skid shows. */
#include "check.h"
#include "pmu.h"

#define SLED 256 /* the .rept count below */

/* sled_m(v): writes v to mhpmcounter3, runs the sled from the next instruction; returns a0.
 * sled_lower(): reads hpmcounter3 into a1, runs the sled from the next instruction; returns a0.
 * branch_loop(v): writes v to mhpmcounter3, then loops 1000 times (addi a0; bne) from a0 = 0. */
uint64_t sled_m(uint64_t v);
uint64_t sled_lower(uint64_t unused);
uint64_t branch_loop(uint64_t v);
uint64_t read_scountovf(uint64_t unused);
extern char sled_m_start[], sled_lower_start[], branch_loop_head[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl sled_m\n"
    "sled_m:\n"
    "  mv t0, a0\n"
    "  li a0, 0\n"
    "  csrw mhpmcounter3, t0\n"
    "sled_m_start:\n"
    "  .rept 256\n"
    "  addi a0, a0, 1\n"
    "  .endr\n"
    "  ret\n"
    "  .globl sled_lower\n"
    "sled_lower:\n"
    "  li a0, 0\n"
    "  csrr a1, hpmcounter3\n"
    "sled_lower_start:\n"
    "  .rept 256\n"
    "  addi a0, a0, 1\n"
    "  .endr\n"
    "  ret\n"
    "  .globl branch_loop\n"
    "branch_loop:\n"
    "  mv t0, a0\n"
    "  li a0, 0\n"
    "  li t1, 1000\n"
    "  csrw mhpmcounter3, t0\n"
    "branch_loop_head:\n"
    "  addi a0, a0, 1\n"
    "  bne a0, t1, branch_loop_head\n"
    "  ret\n"
    "  .globl read_scountovf\n"
    "read_scountovf:\n"
    "  csrr a0, scountovf\n"
    "  ret\n"
    "  .option pop\n");

/* What the LCOFI handlers saw, and which took it (PRIV_M or PRIV_S). */
static volatile struct {
  uint64_t count, cause, epc, a0, a1, ovf, by;
} irq;

static void note(struct frame *f, uint64_t ovf, uint64_t by) {
  irq.count++;
  irq.by = by;
  irq.cause = f->cause;
  irq.epc = f->epc;
  irq.a0 = f->x[10];
  irq.a1 = f->x[11];
  irq.ovf = ovf;
}

/* Notes an LCOFI and clears its pending bit; other traps are recorded. */
static void m_handler(struct frame *f) {
  if (f->cause != (CAUSE_INTERRUPT | IRQ_LCOF)) {
    record_m(f);
    return;
  }
  note(f, csr_read(scountovf), PRIV_M);
  csr_clear(mip, MIP_LCOFIP);
}

static void s_handler(struct frame *f) {
  if (f->cause != (CAUSE_INTERRUPT | IRQ_LCOF)) {
    record_s(f);
    return;
  }
  note(f, csr_read(scountovf), PRIV_S);
  csr_clear(sip, MIP_LCOFIP);
}

static void clear_irq(void) { irq.count = irq.cause = irq.epc = irq.a0 = irq.a1 = irq.ovf = irq.by = 0; }

/* mhpmcounter3 counts `config` (OF clear) from 0, mhpmcounter4 the interrupts taken. */
static void arm(uint64_t config) {
  csr_set(mcountinhibit, CTR_HPM(3) | CTR_HPM(4));
  csr_write(mhpmevent3, config);
  csr_write(mhpmcounter3, 0);
  csr_write(mhpmevent4, EV_INTERRUPTS);
  csr_write(mhpmcounter4, 0);
  csr_clear(mcountinhibit, CTR_HPM(3) | CTR_HPM(4));
  csr_clear(mip, MIP_LCOFIP);
  clear_irq();
}

/* The interrupt came once, after exactly n sled instructions starting at `start`. */
#define EXPECT_LCOFI(start, n)                          \
  do {                                                  \
    CHECK(1, irq.count);                                \
    CHECK(CAUSE_INTERRUPT | IRQ_LCOF, irq.cause);       \
    CHECK((n), irq.a0);                                 \
    CHECK((uint64_t)(start) + 4 * (n), irq.epc);        \
  } while (0)

/* In M: mhpmcounter3 = -n counting instructions; the n-th sled instruction wraps it. */
static void in_m(void) {
  static const uint64_t ns[] = {1, 2, 3, 17, 100, 255};
  csr_set(mie, MIP_LCOFIP);
  csr_set(mstatus, MSTATUS_MIE);
  for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    arm(EV_INSTRUCTIONS);
    CHECK(SLED, sled_m(-ns[k]));
    EXPECT_LCOFI(sled_m_start, ns[k]);
    CHECK(CTR_HPM(3), irq.ovf & CTR_HPM(3));
    CHECK(EVENT_OF, csr_read(mhpmevent3) & EVENT_OF);
    CHECK(1, csr_read(mhpmcounter4));
  }

  /* OF still set: the next wrap sets nothing pending and raises nothing. */
  clear_irq();
  CHECK(SLED, sled_m(-10ul));
  CHECK(0, irq.count);
  CHECK(0, csr_read(mip) & MIP_LCOFIP);
  CHECK(EVENT_OF, csr_read(mhpmevent3) & EVENT_OF);
  CHECK(1, csr_read(mhpmcounter3) >= SLED - 10);

  /* Clearing OF re-arms it. */
  csr_clear(mhpmevent3, EVENT_OF);
  CHECK(0, csr_read(scountovf) & CTR_HPM(3));
  CHECK(SLED, sled_m(-20ul));
  EXPECT_LCOFI(sled_m_start, 20);
  CHECK(EVENT_OF, csr_read(mhpmevent3) & EVENT_OF);

  /* Any event: the 300th branch, taken back to the loop head. */
  arm(EV_BRANCHES);
  CHECK(1000, branch_loop(-300ul));
  CHECK(1, irq.count);
  CHECK(300, irq.a0);
  CHECK((uint64_t)branch_loop_head, irq.epc);

  /* With mstatus.MIE clear the overflow still sets OF and LCOFIP, and nothing is taken. */
  csr_clear(mstatus, MSTATUS_MIE);
  arm(EV_INSTRUCTIONS);
  CHECK(SLED, sled_m(-5ul));
  CHECK(0, irq.count);
  CHECK(MIP_LCOFIP, csr_read(mip) & MIP_LCOFIP);
  CHECK(EVENT_OF, csr_read(mhpmevent3) & EVENT_OF);
  csr_clear(mip, MIP_LCOFIP);
  csr_clear(mie, MIP_LCOFIP);
}

/* Below M, mhpmcounter3 counts only in `priv` from -n; the sled reads it just before starting, so
   the count at which it wraps is known exactly: read v, the csrr itself makes v + 1, and the
   sled's k-th instruction v + 1 + k, which is 0 for k = ~v. */
static void below_m(unsigned priv, int delegated, uint64_t n) {
  csr_write(mideleg, delegated ? MIP_LCOFIP : 0);
  csr_set(mie, MIP_LCOFIP);
  csr_set(mstatus, MSTATUS_SIE); /* S takes its interrupts in S; M's are always on below M */
  arm(EV_INSTRUCTIONS | (priv == PRIV_S ? ONLY_S : ONLY_U));
  csr_write(mhpmcounter3, -n);
  CHECK(SLED, run_in(priv, sled_lower, 0));
  CHECK(1, irq.count);
  CHECK(delegated ? PRIV_S : PRIV_M, irq.by); /* mideleg bit 13 chooses the handler */
  CHECK(1, ~irq.a1 < SLED);
  EXPECT_LCOFI(sled_lower_start, ~irq.a1);
  /* scountovf, read in the handler: M sees every bit, S those of mcounteren (bit 3 is set). */
  CHECK(CTR_HPM(3), irq.ovf & CTR_HPM(3));
  CHECK(EVENT_OF, csr_read(mhpmevent3) & EVENT_OF);
  CHECK(0, csr_read(mip) & MIP_LCOFIP);
  CHECK(0, m_rec.count + s_rec.count);
  csr_clear(mstatus, MSTATUS_SIE);
  csr_clear(mie, MIP_LCOFIP);
  csr_write(mideleg, 0);
}

/* OF through mhpmevent writes: scountovf follows, and no write raises an interrupt (sscofpmf.adoc,
   "Count overflow never results from writes to the mhpmcounter or mhpmevent registers"). */
static void writes(void) {
  csr_set(mcountinhibit, CTR_HPM(3) | CTR_HPM(4));
  csr_clear(mip, MIP_LCOFIP);
  csr_write(mhpmevent3, EV_INSTRUCTIONS | EVENT_OF);
  csr_write(mhpmevent4, EV_BRANCHES | EVENT_OF);
  CHECK(EVENT_OF | EV_INSTRUCTIONS, csr_read(mhpmevent3));
  CHECK(CTR_HPM(3) | CTR_HPM(4), csr_read(scountovf) & (CTR_HPM(3) | CTR_HPM(4)));
  CHECK(0, csr_read(mip) & MIP_LCOFIP);

  /* Below M, bit X reads as zero unless mcounteren bit X is set; U may not read it at all. */
  csr_write(mcounteren, CTR_HPM(3));
  CHECK(CTR_HPM(3), run_in(PRIV_S, read_scountovf, 0) & (CTR_HPM(3) | CTR_HPM(4)));
  csr_write(mcounteren, CTR_HPM(3) | CTR_HPM(4));
  CHECK(CTR_HPM(3) | CTR_HPM(4), run_in(PRIV_S, read_scountovf, 0) & (CTR_HPM(3) | CTR_HPM(4)));
  csr_write(mcounteren, 0);
  CHECK(0, run_in(PRIV_S, read_scountovf, 0));
  CHECK(0, m_rec.count);
  csr_write(mcounteren, ~0ul);
  csr_write(scounteren, ~0ul);
  run_in(PRIV_U, read_scountovf, 0);
  CHECK(1, m_rec.count);
  CHECK(CAUSE_ILLEGAL, m_rec.cause);
  clear_recs();
  csr_write(mcounteren, CTR_HPM(3));
  csr_write(scounteren, 0);

  csr_write(mhpmevent4, EV_BRANCHES);
  CHECK(CTR_HPM(3), csr_read(scountovf) & (CTR_HPM(3) | CTR_HPM(4)));
  csr_write(mhpmevent3, EV_INSTRUCTIONS);
  CHECK(0, csr_read(scountovf) & CTR_HPM(3));

  /* Writing 0 over all ones is no overflow, nor is writing 0 to a running counter of instructions:
     the writer's own retirement is not added to what it wrote (machine.adoc, "Any CSR write takes
     effect after the writing instruction has otherwise completed"). */
  csr_write(mhpmcounter3, -1ul);
  csr_write(mhpmcounter3, 0);
  CHECK(0, csr_read(mhpmevent3) & EVENT_OF);
  csr_clear(mcountinhibit, CTR_HPM(3));
  csr_write(mhpmcounter3, 0);
  csr_set(mcountinhibit, CTR_HPM(3));
  CHECK(0, csr_read(mhpmevent3) & EVENT_OF);
  CHECK(0, csr_read(mip) & MIP_LCOFIP);
}

int main(void) {
  set_m_handler(m_handler);
  set_s_handler(s_handler);
  csr_write(mcounteren, CTR_HPM(3));
  csr_write(scounteren, CTR_HPM(3));
  in_m();
  static const uint64_t ns[] = {4, 5, 6, 100};
  for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    below_m(PRIV_S, 0, ns[k]);
    below_m(PRIV_S, 1, ns[k]);
    below_m(PRIV_U, 0, ns[k]);
    below_m(PRIV_U, 1, ns[k]);
  }
  writes();
  return 0;
}
