/* --smp-threads=1 runs the harts in turns of 2^20 instructions and drops every LR/SC reservation at
 * each turn (README, "-smp N"). Hart 1 stays parked in crt0's WFI, so hart 0 runs turn after turn,
 * each starting with its reservation dropped:
 *   - an SC right after its LR stores;
 *   - LR/SC pairs, each holding its reservation across a spin of about WINDOW instructions and the
 *     next LR right after each SC: within a turn's worth of instructions plus a pair, one SC fails
 *     (the turn ended between its LR and it), and every SC before it stored;
 *   - the next turn began inside that pair, so an LR/SC pair almost 2^20 instructions apart that
 *     follows at once stays inside it: the SC stores;
 *   - an LR/SC pair more than 2^20 instructions apart holds a turn's end: the SC fails, storing nothing.
 * Built with ONE_HART, for -smp 1 (and QEMU): there are no turns, every SC stores. */
#include "bare.h"
#include "check.h"

#define SLICE (1ul << 20)
/* Spin iterations (two instructions each) between a pair's LR and SC. */
#define SPIN 10000
#define WINDOW (2 * SPIN + 8)
/* The most pairs tried: a few turns' worth. */
#define PAIRS_LIMIT (3 * SLICE / WINDOW)

static volatile uint64_t word __attribute__((aligned(64)));

/* LR/SC pairs incrementing *p, until an SC fails or `limit` pairs are done; returns the pairs done
   (the failed one among them) and sets *failed. Only a turn's end right after an SC, before the next
   LR, would go unseen. */
static uint64_t pairs_until_failure(volatile uint64_t *p, uint64_t limit, uint64_t *failed) {
  uint64_t n = 0, v, fail, k;
  __asm__ volatile("lr.d %[v], (%[p])\n"
                   "1: li %[k], %[spin]\n"
                   "2: addi %[k], %[k], -1\n"
                   "bnez %[k], 2b\n"
                   "addi %[n], %[n], 1\n"
                   "addi %[v], %[v], 1\n"
                   "sc.d %[fail], %[v], (%[p])\n"
                   "lr.d %[v], (%[p])\n"
                   "bnez %[fail], 3f\n"
                   "bltu %[n], %[limit], 1b\n"
                   "3:"
                   : [n] "+&r"(n), [v] "=&r"(v), [fail] "=&r"(fail), [k] "=&r"(k)
                   : [p] "r"(p), [limit] "r"(limit), [spin] "i"(SPIN)
                   : "memory");
  *failed = fail;
  return n;
}

static uint64_t instret(void) { return csr_read(minstret); }

/* Retires instructions, touching no memory, until minstret reaches `until`. */
static void spin_until(uint64_t until) {
  while (instret() < until) {
  }
}

int main(void) {
  word = 1;
  CHECK(1, lr_d(&word));
  CHECK(0, sc_d(&word, 2));
  CHECK(2, word);

  word = 0;
  uint64_t failed;
  const uint64_t t0 = instret();
  const uint64_t pairs = pairs_until_failure(&word, PAIRS_LIMIT, &failed);
  const uint64_t t1 = instret();
#ifdef ONE_HART
  (void)t0;
  CHECK(PAIRS_LIMIT, pairs);
  CHECK(0, failed);
  CHECK(PAIRS_LIMIT, word);
#else
  CHECK(1, failed);
  CHECK(1, t1 - t0 <= SLICE + WINDOW); /* the first turn's end after t0, in the pair after it */
  CHECK(pairs - 1, word);              /* the pairs before stored, the failed one did not */
#endif

  /* The turn that ended in the failed pair's window began there: it lasts until at least
     t1 - WINDOW + SLICE. */
  lr_d(&word);
  spin_until(t1 + SLICE - 2 * WINDOW);
  CHECK(0, sc_d(&word, 7));
  CHECK(7, word);

  lr_d(&word);
  spin_until(instret() + SLICE + 1000);
#ifdef ONE_HART
  CHECK(0, sc_d(&word, 8));
  CHECK(8, word);
#else
  CHECK(1, sc_d(&word, 8));
  CHECK(7, word);
#endif
  return 0;
}
