/* The CLINT's timer on -M snitch: mtime counts cluster cycles; hart 0 sets mtimecmp 5000 cycles
 * ahead and waits in wfi while every other hart waits too, so the machine moves time on to the
 * deadline, where MTIP wakes it. */
#include "snitch.h"

#define MIP_MTIP (1ul << 7)

int main(unsigned hart) {
  if (hart != 0) return 0;
  const uint64_t start = csr_read(time);
  write64(CLINT_MTIMECMP(0), start + 5000);
  CHECK(0, csr_read(mip) & MIP_MTIP);
  csr_set(mie, MIP_MTIP);
  __asm__ volatile("wfi");
  const uint64_t now = csr_read(time);
  CHECK(MIP_MTIP, csr_read(mip) & MIP_MTIP);
  CHECK(1, now >= start + 5000);
  CHECK(1, now < start + 5100);
  write64(CLINT_MTIMECMP(0), ~0ull);
  CHECK(0, csr_read(mip) & MIP_MTIP);
  return 0;
}
