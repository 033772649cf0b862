/* The machine timer runs at 10 MHz of host time (README, "The machine timer"): WFI until mtimecmp =
 * mtime + 10^7, one second at 10 MHz. timer_rate.sh checks that the run took at least one second of
 * the host's time; here, that WFI returned only once mtime had reached mtimecmp, with the timer
 * interrupt pending, and that the time CSR agrees with mtime. */
#include "bare.h"
#include "check.h"

#define ONE_SECOND 10000000ul /* ticks at 10 MHz */

int main(void) {
  const uint64_t start = mmio_read64(CLINT_MTIME);
  const uint64_t until = start + ONE_SECOND;
  mmio_write64(CLINT_MTIMECMP(0), until);
  csr_write(mie, MIP_MTIP); /* mstatus.MIE stays 0: WFI returns without a trap */
  uint64_t wfis = 0;
  while (!(csr_read(mip) & MIP_MTIP)) {
    __asm__ volatile("wfi");
    wfis++;
  }
  const uint64_t end = mmio_read64(CLINT_MTIME);
  CHECK(1, end >= until);
  CHECK(1, rdtime() >= until);
  CHECK(1, wfis >= 1);
  mmio_write64(CLINT_MTIMECMP(0), ~0ul);
  csr_write(mie, 0);
  return 0;
}
