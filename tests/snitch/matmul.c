/* An integer matrix multiply on the 8 compute cores (the DMA core only meets them at the barriers):
 * A and B in DRAM, C in the TCDM, hart h computing rows h, h + 8, ...; hart 0 checks every element
 * against the closed form. ROUNDS repeats it, for measuring speed (docs/snitch.md, bench/snitch). */
#include "snitch.h"

#ifndef N
#define N 32
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif
#define CORES 8

/* Words, as the RV32 cores compute in (the closed form below is 64-bit). */
static int32_t a[N][N], b[N][N];
#define C ((volatile int32_t(*)[N])TCDM_BASE)

int main(unsigned hart) {
  if (hart == 0)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        a[i][j] = i + j;
        b[i][j] = i - j;
      }
  barrier();
  for (int round = 0; round < ROUNDS; round++) {
    if (hart < CORES)
      for (int i = hart; i < N; i += CORES)
        for (int j = 0; j < N; j++) {
          int32_t sum = 0;
          for (int k = 0; k < N; k++) sum += a[i][k] * b[k][j];
          C[i][j] = sum;
        }
    barrier();
  }
  if (hart == 0) {
    /* sum_k (i + k)(k - j) = S2 + (i - j) S1 - i j N, S1 = sum k, S2 = sum k^2. */
    const int64_t s1 = (int64_t)N * (N - 1) / 2, s2 = (int64_t)(N - 1) * N * (2 * N - 1) / 6;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) CHECK(s2 + (i - j) * s1 - (int64_t)i * j * N, C[i][j]);
  }
  return 0;
}
