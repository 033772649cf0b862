/* The barrier CSR 0x7C2: the 9 harts arrive at different times (hart h spins 50 * h iterations
 * first); none passes before the last has arrived, and they meet again at a second barrier. */
#include "snitch.h"

static volatile uint32_t arrived;
static volatile uint64_t seen[HARTS], after[HARTS];

int main(unsigned hart) {
  for (volatile unsigned i = 0; i < 50 * hart; i++) {
  }
  __atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
  barrier();
  seen[hart] = arrived;
  barrier();
  __atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
  barrier();
  after[hart] = arrived;
  barrier();
  if (hart == 0) {
    for (unsigned h = 0; h < HARTS; h++) {
      CHECK(HARTS, seen[h]);
      CHECK(2 * HARTS, after[h]);
    }
  }
  return 0;
}
