/* An SSR + FREP dot product (docs/snitch.md, "SSRs" and "FREP"): 64 doubles a[i] = i and
 * b[i] = i + 1 in the TCDM stream through ft0 and ft1, and one fmadd.d, issued once by the core
 * and repeated 63 times by the sequencer, accumulates sum i(i+1) = 87360 in fa0.
 * Over the window (counters enabled by the asm's first store, disabled by its last), hart 0:
 * ISSUE_CORE_TO_FPU = 1 (the fmadd.d; FREP and SCFGW are integer instructions), ISSUE_FPU_SEQ =
 * ISSUE_FPU = 64 (the core's issue and the 63 repeats), RETIRED_INSTR (counter 3) = en3, en4, csrsi,
 * frep, fmadd.d, csrci, dis0, dis1, dis2 = 9 (the repeats retire nothing), TCDM_ACCESSED >= 128 (every element is a TCDM request). */
#include "ssr.h"

#define N 64
#define A ((volatile double *)(TCDM_BASE + 0x4000))
#define B ((volatile double *)(TCDM_BASE + 0x4000 + 8 * N + 8))

int main(unsigned hart) {
  if (hart != 0) return 0;
  for (unsigned i = 0; i < N; i++) {
    A[i] = i;
    B[i] = i + 1;
  }
  const uint64_t sel[5] = {SEL(ISSUE_CORE_TO_FPU, 0), SEL(ISSUE_FPU_SEQ, 0), SEL(ISSUE_FPU, 0),
                           SEL(RETIRED_INSTR, 0), SEL(TCDM_ACCESSED, 0)};
  for (unsigned i = 0; i < 16; i++) write64(PERF_CNT_EN(i), 0);
  for (unsigned i = 0; i < 5; i++) {
    write64(PERF_CNT_SEL(i), sel[i]);
    write64(PERF_CNT(i), 0);
  }
  scfgwi(N - 1, SSR_BOUND(0), 0);
  scfgwi(8, SSR_STRIDE(0), 0);
  scfgwi(N - 1, SSR_BOUND(0), 1);
  scfgwi(8, SSR_STRIDE(0), 1);
  scfgwi((uintptr_t)A, SSR_READ(1), 0);
  scfgwi((uintptr_t)B, SSR_READ(1), 1);
  double acc = 0;
  const uintptr_t base = PERIPH_BASE;
  __asm__ volatile(
      "sw %[one], 0x00(%[b])\n"
      "sw %[one], 0x08(%[b])\n"
      "sw %[one], 0x10(%[b])\n"
      "sw %[one], 0x18(%[b])\n"
      "sw %[one], 0x20(%[b])\n"
      "csrsi 0x7c0, 1\n"
      ".insn i 0x0b, 0, x1, %[iters], 0\n" /* frep.o iters, 1 instruction */
      "fmadd.d %[acc], ft0, ft1, %[acc]\n"
      "csrci 0x7c0, 1\n"
      "sw zero, 0x00(%[b])\n"
      "sw zero, 0x08(%[b])\n"
      "sw zero, 0x10(%[b])\n"
      "sw zero, 0x18(%[b])\n"
      "sw zero, 0x20(%[b])\n"
      : [acc] "+f"(acc)
      : [b] "r"(base), [one] "r"(1ul), [iters] "r"(N - 1)
      : "ft0", "ft1", "ft2", "memory");
  CHECK(87360, (long)acc);
  CHECK(1, acc == 87360.0);
  CHECK(1, read64(PERF_CNT(0)));
  CHECK(64, read64(PERF_CNT(1)));
  CHECK(64, read64(PERF_CNT(2)));
  CHECK(9, read64(PERF_CNT(3)));
  CHECK(1, read64(PERF_CNT(4)) >= 128);
  /* Both streams are done; their pointers stopped at the last element. */
  CHECK(SSR_DONE | ((uintptr_t)&A[N - 1] & 0x07ffffff), scfgri(0, 0));
  CHECK(SSR_DONE | ((uintptr_t)&B[N - 1] & 0x07ffffff), scfgri(0, 1));
  return 0;
}
