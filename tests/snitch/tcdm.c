/* TCDM bank conflicts (docs/snitch.md, "TCDM"): harts 0 and 1 leave a barrier in the same cycle
 * and each issue 8 back-to-back loads, to one bank (TCDM + 0 and TCDM + 256: bank = bits 7:3) or
 * to two (TCDM + 0 and TCDM + 8). One bank: every load but the first waits a cycle, CONGESTED =
 * 2n - 1 = 15 and ACCESSED = 4n - 1 = 31; two banks: 0 and 2n = 16. The other harts only meet at
 * the barriers. Each case runs twice and counts the second time, with the instruction cache warm. */
#include "snitch.h"

#define LOADS 8

static volatile uint64_t congested[2], accessed[2];

static void loads(unsigned hart, uint64_t offset, int measure) {
  uint64_t c0 = 0, a0 = 0;
  if (hart == 0 && measure) {
    c0 = read64(PERF_CNT(1));
    a0 = read64(PERF_CNT(0));
  }
  const uintptr_t addr = TCDM_BASE + (hart == 1 ? offset : 0);
  const unsigned go = hart < 2;
  __asm__ volatile(
      "csrr zero, 0x7c2\n"
      "beqz %[go], 1f\n"
      ".rept " "8" "\n"
      "lw t1, 0(%[a])\n"
      ".endr\n"
      "1: csrr zero, 0x7c2\n"
      :
      : [a] "r"(addr), [go] "r"(go)
      : "t1", "memory");
  if (hart == 0 && measure) {
    congested[offset == 8] = read64(PERF_CNT(1)) - c0;
    accessed[offset == 8] = read64(PERF_CNT(0)) - a0;
  }
}

int main(unsigned hart) {
  if (hart == 0) {
    write64(PERF_CNT_SEL(0), SEL(TCDM_ACCESSED, 0));
    write64(PERF_CNT_SEL(1), SEL(TCDM_CONGESTED, 0));
  }
  barrier();
  for (int measure = 0; measure < 2; measure++) loads(hart, 256, measure);
  for (int measure = 0; measure < 2; measure++) loads(hart, 8, measure);
  if (hart == 0) {
    CHECK(2 * LOADS - 1, congested[0]);
    CHECK(4 * LOADS - 1, accessed[0]);
    CHECK(0, congested[1]);
    CHECK(2 * LOADS, accessed[1]);
  }
  return 0;
}
