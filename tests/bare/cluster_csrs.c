/* The Snitch cluster's CSRs exist only on -M snitch (csr/snitch.cpp): on virt, 0x7C0 (SSR enable),
 * 0x7C1 (fpmode) and 0x7C2 (barrier) are illegal instructions, and mie bit 19 (MCIE) is read-only 0. */
#include "bare.h"
#include "check.h"
#include "csr_access.h"

CSR_ACCESSORS(ssr, 0x7c0)
CSR_ACCESSORS(fpmode, 0x7c1)
CSR_ACCESSORS(barrier, 0x7c2)

static const csr_fn accesses[] = {at_read_ssr, at_write_ssr, at_read_fpmode, at_write_fpmode, at_read_barrier,
                                  at_write_barrier};

int main(void) {
  set_m_handler(record_m);
  for (unsigned k = 0; k < sizeof accesses / sizeof accesses[0]; k++) {
    const uint64_t pc = accesses[k](1);
    expect_m(CAUSE_ILLEGAL, pc, *(volatile uint32_t *)pc);
  }
  csr_write(mie, 1ul << 19);
  CHECK(0, csr_read(mie));
  return 0;
}
