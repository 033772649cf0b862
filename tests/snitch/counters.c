/* Counting (docs/snitch.md, "Events of a retired instruction"): RETIRED_INSTR, RETIRED_LOAD and
 * RETIRED_I of hart 0 over a known instruction mix, CYCLE at least the instructions, HART % 9
 * selecting hart 0 (9) and hart 1 (10, waiting in wfi: nothing), a reserved METRIC counting
 * nothing, and a disabled counter keeping its value. Only hart 0 runs; the others wait in wfi.
 *
 * A counter counts the instruction that enables it (its store retires after the write) and not
 * the one that disables it. In the window below:
 *   en4, en3, en6, en0, en1, en2 | 5 addi, 3 lw, 2 add to x0 | dis0, dis1, dis2, dis3, dis6, dis4, dis5
 * counter 0 (RETIRED_INSTR, hart 0) = en0, en1, en2 + 10 = 13; counter 1 (RETIRED_LOAD) = 3;
 * counter 2 (RETIRED_I) = 5; counter 4 (RETIRED_INSTR, HART 9) = 6 + 10 + 5 = 21; counter 5
 * (RETIRED_INSTR, HART 10), enabled first, = 0; counter 3 (CYCLE) >= 13; counter 6 (METRIC 0x1f) = 0. */
#include "snitch.h"

int main(unsigned hart) {
  if (hart != 0) return 0;
  const uint64_t sel[7] = {SEL(RETIRED_INSTR, 0), SEL(RETIRED_LOAD, 0), SEL(RETIRED_I, 0), SEL(CYCLE, 0),
                           SEL(RETIRED_INSTR, 9), SEL(RETIRED_INSTR, 10), SEL(0x1f, 0)};
  for (unsigned i = 0; i < 16; i++) write64(PERF_CNT_EN(i), 0);
  for (unsigned i = 0; i < 7; i++) {
    write64(PERF_CNT_SEL(i), sel[i]);
    write64(PERF_CNT(i), 0);
  }
  uint64_t scratch[2] = {1, 2};
  const uintptr_t base = PERIPH_BASE;
  __asm__ volatile(
      "sw %[one], 0x28(%[b])\n"  /* en5 */
      "sw %[one], 0x20(%[b])\n"  /* en4 */
      "sw %[one], 0x18(%[b])\n"  /* en3 */
      "sw %[one], 0x30(%[b])\n"  /* en6 */
      "sw %[one], 0x00(%[b])\n"  /* en0 */
      "sw %[one], 0x08(%[b])\n"  /* en1 */
      "sw %[one], 0x10(%[b])\n"  /* en2 */
      COUNTED_MIX
      "sw zero, 0x00(%[b])\n" /* dis0 */
      "sw zero, 0x08(%[b])\n"
      "sw zero, 0x10(%[b])\n"
      "sw zero, 0x18(%[b])\n"
      "sw zero, 0x30(%[b])\n"
      "sw zero, 0x20(%[b])\n"
      "sw zero, 0x28(%[b])\n"
      :
      : [b] "r"(base), [one] "r"(1ul), [s] "r"(scratch)
      : "t0", "t1", "memory");
  CHECK(13, read64(PERF_CNT(0)));
  CHECK(3, read64(PERF_CNT(1)));
  CHECK(5, read64(PERF_CNT(2)));
  CHECK(1, read64(PERF_CNT(3)) >= 13);
  CHECK(21, read64(PERF_CNT(4)));
  CHECK(0, read64(PERF_CNT(5)));
  CHECK(0, read64(PERF_CNT(6)));
  /* Disabled counters keep their values while hart 0 goes on. */
  for (volatile int i = 0; i < 100; i++) {
  }
  CHECK(13, read64(PERF_CNT(0)));
  CHECK(21, read64(PERF_CNT(4)));
  /* 32-bit reads see the same value. */
  CHECK(13, read32(PERF_CNT(0)));
  CHECK(0, read32(PERF_CNT(0) + 4));
  return 0;
}
