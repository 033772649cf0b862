/* Counters: mcounteren/scounteren gate cycle, time, instret and hpmcounter3 for S and U (an
 * illegal instruction when the bit is clear); minstret/mcycle writes; mcountinhibit. */
#include "bare.h"
#include "check.h"

#define CY 1
#define TM 2
#define IR 4
#define HPM3 8

static uint64_t rd_cycle(uint64_t u) { return (void)u, AT("csrr t0, cycle"); }
static uint64_t rd_time(uint64_t u) { return (void)u, AT("csrr t0, time"); }
static uint64_t rd_instret(uint64_t u) { return (void)u, AT("csrr t0, instret"); }
static uint64_t rd_hpm3(uint64_t u) { return (void)u, AT("csrr t0, hpmcounter3"); }

static uint64_t (*const readers[])(uint64_t) = {rd_cycle, rd_time, rd_instret, rd_hpm3};

/* Each counter read from `priv`: allowed exactly when its bit is in `allowed`. */
static void expect_gating(unsigned priv, unsigned allowed) {
  for (unsigned k = 0; k < 4; k++) {
    uint64_t pc = run_in(priv, readers[k], 0);
    if (allowed & (1u << k)) {
      CHECK(0, m_rec.count);
    } else {
      expect_m(CAUSE_ILLEGAL, pc, *(volatile uint32_t *)pc);
    }
  }
}

static void gating(void) {
  csr_write(mcounteren, 0);
  csr_write(scounteren, 0);
  expect_gating(PRIV_S, 0);
  expect_gating(PRIV_U, 0);
  csr_write(mcounteren, TM);
  expect_gating(PRIV_S, TM);
  expect_gating(PRIV_U, 0);
  csr_write(mcounteren, CY | TM | IR | HPM3);
  expect_gating(PRIV_S, CY | TM | IR | HPM3);
  expect_gating(PRIV_U, 0);
  csr_write(scounteren, IR | CY);
  expect_gating(PRIV_U, IR | CY);
  /* U needs both: scounteren alone is not enough. */
  csr_write(mcounteren, CY);
  expect_gating(PRIV_U, CY);
  csr_write(mcounteren, 0);
  csr_write(scounteren, 0);
  /* M reads them all regardless. */
  csr_read(cycle);
  csr_read(time);
  csr_read(instret);
  csr_read(hpmcounter3);
}

/* mcountinhibit.IR / CY stop minstret / mcycle (machine.adoc, "Machine Counter-Inhibit"). */
static void inhibit(void) {
  uint64_t a, b;
  csr_write(mcountinhibit, IR | CY);
  CHECK(IR | CY, csr_read(mcountinhibit) & (IR | CY));
  __asm__ volatile("csrr %0, minstret\n nop\n nop\n nop\n csrr %1, minstret" : "=&r"(a), "=&r"(b)::"memory");
  CHECK(a, b);
  __asm__ volatile("csrr %0, mcycle\n nop\n nop\n nop\n csrr %1, mcycle" : "=&r"(a), "=&r"(b)::"memory");
  CHECK(a, b);
  csr_write(mcountinhibit, 0);
  __asm__ volatile("csrr %0, minstret\n nop\n nop\n nop\n csrr %1, minstret" : "=&r"(a), "=&r"(b)::"memory");
#ifndef QEMU_REF /* QEMU 7.2 without -icount counts host ticks */
  CHECK(4, b - a);
  __asm__ volatile("csrr %0, mcycle\n nop\n nop\n nop\n csrr %1, mcycle" : "=&r"(a), "=&r"(b)::"memory");
  CHECK(4, b - a); /* one cycle per retired instruction */
#endif
  CHECK(1, b > a);
}

/* A write is what the next instruction reads: it "takes effect after the writing instruction has
   otherwise completed" (machine.adoc), so the writer's own retirement does not add to it. */
static void writes(void) {
  uint64_t a;
  __asm__ volatile("csrw mcycle, %1\n csrr %0, mcycle" : "=&r"(a) : "r"(1ul << 40) : "memory");
#ifndef QEMU_REF /* brisk's cycle model: one cycle per retired instruction (README, "Cycle model") */
  CHECK(1ul << 40, a);
#endif
  CHECK(1, a >= (1ul << 40) && a < (1ul << 40) + 1000000);
  __asm__ volatile("csrw minstret, %1\n csrr %0, minstret" : "=&r"(a) : "r"(1000ul) : "memory");
#ifndef QEMU_REF
  CHECK(1000, a);
#endif
}

int main(void) {
  set_m_handler(record_m);
  gating();
  inhibit();
  writes();
  return 0;
}
