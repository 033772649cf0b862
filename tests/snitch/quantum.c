/* Quantum mode (`brisk system -M snitch --quantum N`, docs/snitch.md): while no enabled counter
 * selects a timing metric, each hart runs up to N instructions a turn, one cycle each, and the
 * retired events still count exactly. quantum.sh runs this with and without --quantum: both pass,
 * and the quantum run takes fewer cluster cycles, having no stalls.
 *
 * Hart 1 runs counters.c's window with counters 0-2 (RETIRED_INSTR, RETIRED_LOAD and RETIRED_I of
 * hart 1): 13, 3 and 5. Hart 2 runs the mix with counter 5 (RETIRED_INSTR of hart 2) alone, which
 * translated code may count: 11, the enabling store and the 10. Then hart 0 selects CYCLE, which
 * brings cycle order back, and checks that the cycles of a stretch of work are at least its
 * instructions. Every hart runs a dependent load chain in between (a load-use stall per load in
 * cycle order). */
#include "snitch.h"

static volatile uint32_t chain[64];

static uint32_t walk(unsigned rounds) {
  uint32_t at = 0;
  for (unsigned r = 0; r < rounds; r++)
    for (unsigned i = 0; i < 64; i++) at = chain[(at + i) & 63];
  return at;
}

int main(unsigned hart) {
  if (hart == 0) {
    for (unsigned i = 0; i < 16; i++) write64(PERF_CNT_EN(i), 0);
    const uint64_t sel[6] = {SEL(RETIRED_INSTR, 1), SEL(RETIRED_LOAD, 1), SEL(RETIRED_I, 1), 0, 0,
                             SEL(RETIRED_INSTR, 2)};
    for (unsigned i = 0; i < 6; i++) {
      write64(PERF_CNT_SEL(i), sel[i]);
      write64(PERF_CNT(i), 0);
    }
    for (unsigned i = 0; i < 64; i++) chain[i] = (i * 7) & 63;
  }
  barrier();
  if (hart == 1) {
    uint64_t scratch[2] = {1, 2};
    const uintptr_t base = PERIPH_BASE;
    __asm__ volatile(
        "sw %[one], 0x00(%[b])\n" /* en0 */
        "sw %[one], 0x08(%[b])\n" /* en1 */
        "sw %[one], 0x10(%[b])\n" /* en2 */
        COUNTED_MIX
        "sw zero, 0x00(%[b])\n" /* dis0 */
        "sw zero, 0x08(%[b])\n"
        "sw zero, 0x10(%[b])\n"
        :
        : [b] "r"(base), [one] "r"(1ul), [s] "r"(scratch)
        : "t0", "t1", "memory");
  }
  if (hart == 2) {
    uint64_t scratch[2] = {1, 2};
    __asm__ volatile(
        "sw %[one], 0(%[en])\n"
        COUNTED_MIX
        "sw zero, 0(%[en])\n"
        :
        : [en] "r"(PERF_CNT_EN(5)), [one] "r"(1ul), [s] "r"(scratch)
        : "t0", "t1", "memory");
  }
  const uint32_t end = walk(20);
  barrier();
  if (hart == 0) {
    CHECK(13, read64(PERF_CNT(0)));
    CHECK(3, read64(PERF_CNT(1)));
    CHECK(5, read64(PERF_CNT(2)));
    CHECK(11, read64(PERF_CNT(5)));
    /* CYCLE and RETIRED_INSTR of hart 0: cycle order again, a cycle or more per instruction. */
    write64(PERF_CNT_SEL(3), SEL(CYCLE, 0));
    write64(PERF_CNT_SEL(4), SEL(RETIRED_INSTR, 0));
    write64(PERF_CNT(3), 0);
    write64(PERF_CNT(4), 0);
    write64(PERF_CNT_EN(3), 1);
    write64(PERF_CNT_EN(4), 1);
    CHECK(end, walk(4));
    write64(PERF_CNT_EN(4), 0);
    write64(PERF_CNT_EN(3), 0);
    const uint64_t cycles = read64(PERF_CNT(3)), insns = read64(PERF_CNT(4));
    CHECK(1, insns > 4 * 64 * 3);
    CHECK(1, cycles >= insns);
  }
  return 0;
}
