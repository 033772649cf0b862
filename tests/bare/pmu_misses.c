/* branches and branch-misses, exactly: a loop of a branch on a pseudo-random bit and the loop branch runs with
 * mhpmevent3 counting branch misses, and the count must equal what a model of brisk's predictor
 * (csr/pmu.h, pmu::Gshare: 4096 two-bit counters indexed by pc[12:1] xor a 12-bit global history,
 * predicting taken from 2 up) computes here for the same branches. Nothing before the first loop
 * runs the predictor (no event counted, no CTR), so it starts from all counters 0; the second loop
 * starts where the first left it. The loop's branches are counted too: two per round. */
#include "bare.h"
#include "check.h"
#include "pmu.h"

/* branchy(bits, n, seed): n rounds; clobbers t0-t2. The branches are at branch_bit and branch_loop. */
void branchy(uint64_t bits, uint64_t n, uint64_t seed);
extern const char branch_bit[], branch_loop[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl branchy, branch_bit, branch_loop\n"
    "branchy:\n"
    "  mv t1, a2\n"
    "  csrc mcountinhibit, a0\n"
    "1: slli t0, t1, 13\n"
    "  xor t1, t1, t0\n"
    "  srli t0, t1, 7\n"
    "  xor t1, t1, t0\n"
    "  slli t0, t1, 17\n"
    "  xor t1, t1, t0\n"
    "  andi t0, t1, 1\n"
    "branch_bit:\n"
    "  beqz t0, 2f\n"
    "  addi t2, t2, 1\n"
    "2: addi a1, a1, -1\n"
    "branch_loop:\n"
    "  bnez a1, 1b\n"
    "  csrs mcountinhibit, a0\n"
    "  ret\n"
    "  .option pop\n");

/* The reference: gshare as described above, with no code in common with brisk's. */
static uint8_t counters[4096];
static unsigned history;
static uint64_t model_branch(uint64_t pc, int taken) {
  const unsigned k = ((unsigned)(pc >> 1) ^ history) & 4095;
  const int predicted_taken = counters[k] >= 2;
  if (taken && counters[k] < 3) counters[k]++;
  if (!taken && counters[k] > 0) counters[k]--;
  history = ((history << 1) | (taken ? 1u : 0u)) & 4095;
  return predicted_taken != taken;
}
static uint64_t model_branchy(uint64_t n, uint64_t seed) {
  uint64_t misses = 0, x = seed;
  for (uint64_t i = n; i > 0; i--) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    misses += model_branch((uint64_t)branch_bit, (x & 1) == 0);
    misses += model_branch((uint64_t)branch_loop, i - 1 != 0);
  }
  return misses;
}

static uint64_t count_branchy(uint64_t event, uint64_t n, uint64_t seed) {
  csr_set(mcountinhibit, CTR_HPM(3));
  csr_write(mhpmevent3, event);
  csr_write(mhpmcounter3, 0);
  branchy(CTR_HPM(3), n, seed);
  return csr_read(mhpmcounter3);
}

int main(void) {
  const uint64_t first = model_branchy(1000, 0x2545f4914f6cdd1dul);
  CHECK(first, count_branchy(EV_BRANCH_MISSES, 1000, 0x2545f4914f6cdd1dul));
  /* A trained predictor: the same sequence again misses less, by the model's count. */
  const uint64_t again = model_branchy(1000, 0x2545f4914f6cdd1dul);
  CHECK(1, again < first);
  CHECK(again, count_branchy(EV_BRANCH_MISSES, 1000, 0x2545f4914f6cdd1dul));
  const uint64_t other = model_branchy(3000, 0x9e3779b97f4a7c15ul);
  CHECK(other, count_branchy(EV_BRANCH_MISSES, 3000, 0x9e3779b97f4a7c15ul));
  CHECK(2 * 1000, count_branchy(EV_BRANCHES, 1000, 0x2545f4914f6cdd1dul));
  return 0;
}
