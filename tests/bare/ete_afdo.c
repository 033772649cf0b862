/* A workload for AutoFDO from ETE trace (tests/bare/ete_afdo.sh): hot_loop runs an LCG and
 * calls slow_path when its top byte is below 26 (about a tenth of the turns), fast_path
 * otherwise; cold_setup runs once. About six million instructions. */
#include "bare.h"

#define NOINLINE __attribute__((noinline))

volatile uint64_t ete_afdo_sink;
static uint64_t state = 1;

NOINLINE uint64_t slow_path(uint64_t x) {
  for (int i = 0; i < 8; i++) x = x * 31 + (uint64_t)i;
  return x;
}

NOINLINE uint64_t fast_path(uint64_t x) { return x ^ (x >> 3); }

NOINLINE uint64_t hot_loop(unsigned n) {
  uint64_t acc = 0;
  for (unsigned i = 0; i < n; i++) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    if ((state >> 56) < 26)
      acc += slow_path(state);
    else
      acc += fast_path(state);
  }
  return acc;
}

NOINLINE uint64_t cold_setup(void) {
  uint64_t s = 0;
  for (int i = 0; i < 4; i++) s += (uint64_t)i * 7;
  return s;
}

int main(void) {
  ete_afdo_sink = cold_setup();
  ete_afdo_sink = hot_loop(300000);
  return 0;
}
