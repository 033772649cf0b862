/* The cluster CSRs (0x7C0 SSR enable, 0x7C1 fpmode) and mie's MCIP, on every hart. */
#include "snitch.h"

int main(unsigned hart) {
  CHECK(hart, csr_read(mhartid));
  CHECK(0, csr_read(0x7c0));
  CHECK(0, csr_read(0x7c1));
  csr_write(0x7c0, -1);
  CHECK(1, csr_read(0x7c0));
  csr_write(0x7c0, 2);
  CHECK(0, csr_read(0x7c0));
  csr_write(0x7c1, -1);
  CHECK(1, csr_read(0x7c1));
  csr_write(0x7c1, 0);
  CHECK(0, csr_read(0x7c1));
  /* mie: MSIE, MTIE, MEIE, the S-level ones and, on this machine, MCIE (bit 19). */
  csr_write(mie, -1);
  CHECK(MIP_MCIP, csr_read(mie) & MIP_MCIP);
  csr_write(mie, 0);
  CHECK(0, csr_read(mie));
  /* The barrier reads 0. */
  unsigned long v;
  __asm__ volatile("csrr %0, 0x7c2" : "=r"(v));
  CHECK(0, v);
  return 0;
}
