/* A bare program's failure must reach brisk's exit status (and QEMU's, for the qemu runs):
 *   EXIT_CHECK  a CHECK that fails in S mode: "FAIL exit_check: check <line>" and status 1;
 *   EXIT_HTIF=N tohost with exit code N, and nothing after it;
 *   EXIT_FINISHER=N the sifive_test finisher's FAIL with code N, HTIF untouched.
 * A code over 255 must not wrap to a status that reads as success. */
#include "bare.h"
#include "check.h"

extern volatile uint64_t tohost;

#ifdef EXIT_CHECK
static uint64_t wrong_in_s(uint64_t v) {
  CHECK(41, v);
  return 0;
}
#endif

int main(void) {
#if defined(EXIT_CHECK)
  run_in(PRIV_S, wrong_in_s, 42);
#elif defined(EXIT_HTIF)
  tohost = ((uint64_t)EXIT_HTIF << 1) | 1;
#elif defined(EXIT_FINISHER)
  mmio_write32(TEST_FINISHER, ((uint32_t)EXIT_FINISHER << 16) | 0x3333);
#endif
  for (;;) __asm__ volatile("wfi");
}
