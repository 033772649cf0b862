/* LR/SC with two harts (-smp 2): a store by the other hart to the reserved doubleword makes
 * this hart's SC fail, and a counter both harts increment with LR/SC loops ends exactly at
 * the sum. brisk runs harts in turns on one thread; the interleaving here is fixed by flags
 * and WFI: hart 0 reserves, then sleeps until hart 1 has stored and sent it an IPI. */
#include "bare.h"
#include "check.h"

#define INCREMENTS 200000

static volatile uint64_t word __attribute__((aligned(64)));
static volatile uint64_t counter __attribute__((aligned(64)));
static volatile uint64_t step, hart1_done;

static void ipi(unsigned hart, uint32_t on) {
  __asm__ volatile("fence" ::: "memory");
  mmio_write32(CLINT_MSIP(hart), on);
}

/* n increments, each a constrained LR/SC loop with a wide window between LR and SC, so that a
 * hart switch often falls inside it. */
static void increment(volatile uint64_t *p, long n) {
  for (long k = 0; k < n; k++) {
    uint64_t v, fail;
    __asm__ volatile("1: lr.d %0, (%2)\n"
                     "addi %0, %0, 1\n"
                     ".rept 10\n nop\n .endr\n"
                     "sc.d %1, %0, (%2)\n"
                     "bnez %1, 1b"
                     : "=&r"(v), "=&r"(fail) : "r"(p) : "memory");
  }
}

/* Hart 1: no CHECKs here (it has no trap handling); hart 0 checks what it did. */
static void hart1(void) {
  ipi(1, 0);
  while (step != 1) {
  }
  word = 2; /* a different value: QEMU's SC compares the value LR read */
  step = 2;
  ipi(0, 1);
  while (step != 3) {
  }
  increment(&counter, INCREMENTS);
  hart1_done = 1;
}

int main(void) {
  set_m_handler(record_m);

  /* One hart alone: SC after LR stores. */
  word = 1;
  CHECK(1, lr_d(&word));
  CHECK(0, sc_d(&word, 5));
  CHECK(5, word);
  /* SC without a reservation (the successful SC used it up) fails and stores nothing. */
  CHECK(1, sc_d(&word, 6));
  CHECK(5, word);

  secondary_entry = hart1;
  ipi(1, 1);
  csr_set(mie, MIP_MSIP);

  word = 1;
  CHECK(1, lr_d(&word));
  step = 1;
  while (step != 2) __asm__ volatile("wfi");
  ipi(0, 0);
  CHECK(1, sc_d(&word, 7)); /* hart 1 stored to the reserved doubleword: SC fails */
  CHECK(2, word);

  step = 3;
  increment(&counter, INCREMENTS);
  while (!hart1_done) {
  }
  CHECK(2 * INCREMENTS, counter);
  return 0;
}
