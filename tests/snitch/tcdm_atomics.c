/* Atomics on the TCDM (docs/snitch.md, "Atomics"): all 9 harts add to one TCDM word with
 * amoadd.w and to another with an lr.w/sc.w loop, ROUNDS times each, and the sums are exact; amoswap
 * and amomax give the old value. LR/SC across harts: a reservation survives other harts' barriers
 * and loads, but another hart's store to the reserved word ends it, even a store of the value it
 * already holds (an SC that only compared values would succeed). */
#include "snitch.h"

#define ROUNDS 50
#define AMO_SUM ((volatile uint32_t *)(TCDM_BASE + 0x100))
#define LRSC_SUM ((volatile uint32_t *)(TCDM_BASE + 0x108))
#define WORD ((volatile uint32_t *)(TCDM_BASE + 0x200))

static uint32_t amoadd(volatile uint32_t *p, uint32_t v) {
  uint32_t old;
  __asm__ volatile("amoadd.w %0, %2, (%1)" : "=r"(old) : "r"(p), "r"(v) : "memory");
  return old;
}

static void lrsc_add(volatile uint32_t *p, uint32_t v) {
  uint32_t old, fail;
  do {
    __asm__ volatile("lr.w %0, (%2)\n"
                     "add %0, %0, %3\n"
                     "sc.w %1, %0, (%2)\n"
                     : "=&r"(old), "=&r"(fail)
                     : "r"(p), "r"(v)
                     : "memory");
  } while (fail);
}

/* Hart 0 reserves WORD, every hart meets at two barriers (hart 1 storing `value` at `at` between
 * them, unless at is 0), then hart 0's sc.w writes 7: its result, 0 for success. */
static uint32_t reserve_and_sc(unsigned hart, volatile uint32_t *at, uint32_t value) {
  uint32_t result = 0, loaded;
  if (hart == 0) __asm__ volatile("lr.w %0, (%1)" : "=r"(loaded) : "r"(WORD) : "memory");
  barrier();
  if (hart == 1 && at) *at = value;
  if (hart == 2) (void)*WORD;
  barrier();
  if (hart == 0) __asm__ volatile("sc.w %0, %2, (%1)" : "=r"(result) : "r"(WORD), "r"(7u) : "memory");
  barrier();
  return result;
}

int main(unsigned hart) {
  if (hart == 0) {
    *AMO_SUM = 0;
    *LRSC_SUM = 0;
    *WORD = 5;
  }
  barrier();
  for (unsigned i = 0; i < ROUNDS; i++) {
    amoadd(AMO_SUM, hart + 1);
    lrsc_add(LRSC_SUM, hart + 1);
  }
  barrier();
  /* 1 + 2 + ... + 9 = 45 per round */
  if (hart == 0) {
    CHECK(45 * ROUNDS, *AMO_SUM);
    CHECK(45 * ROUNDS, *LRSC_SUM);
    uint32_t old;
    __asm__ volatile("amoswap.w %0, %2, (%1)" : "=r"(old) : "r"(AMO_SUM), "r"(3u) : "memory");
    CHECK(45 * ROUNDS, old);
    __asm__ volatile("amomax.w %0, %2, (%1)" : "=r"(old) : "r"(AMO_SUM), "r"(-1) : "memory");
    CHECK(3, old);
    CHECK(3, *AMO_SUM);
  }
  /* Other harts' loads and barriers keep hart 0's reservation. */
  uint32_t sc = reserve_and_sc(hart, 0, 0);
  if (hart == 0) {
    CHECK(0, sc);
    CHECK(7, *WORD);
  }
  /* Hart 1 stores the value hart 0's LR loaded: the SC fails and memory keeps it. */
  sc = reserve_and_sc(hart, WORD, 7);
  if (hart == 0) {
    CHECK(1, sc);
    CHECK(7, *WORD);
  }
  /* A store to the next doubleword keeps it. */
  sc = reserve_and_sc(hart, WORD + 2, 1);
  if (hart == 0) {
    CHECK(0, sc);
    CHECK(7, *WORD);
    CHECK(1, WORD[2]);
  }
  return 0;
}
