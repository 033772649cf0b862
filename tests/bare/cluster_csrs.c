/* The Snitch cluster's CSRs exist only on -M snitch (csr/snitch.cpp): on virt, 0x7C0 (SSR enable),
 * 0x7C1 (fpmode) and 0x7C2 (barrier) are illegal instructions, and mie bit 19 (MCIE) is read-only 0.
 * Nor is there the DMA core's Xdma (runtime/sem_xdma.cpp): DMSTATI is illegal too, also with
 * `--cpu ...,xdma=on` (cluster_csrs_xdma), as no DMA engine is behind it. */
#include "bare.h"
#include "check.h"
#include "csr_access.h"

CSR_ACCESSORS(ssr, 0x7c0)
CSR_ACCESSORS(fpmode, 0x7c1)
CSR_ACCESSORS(barrier, 0x7c2)

/* DMSTATI t0, 1 (next id): opcode 0x2B, funct7 4. */
static uint64_t at_dmstati(uint64_t u) {
  uint64_t pc;
  (void)u;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: .insn r 0x2b, 0, 4, t0, x0, x1\n.option pop"
                   : "=&r"(pc)::"t0", "memory");
  return pc;
}

static const csr_fn accesses[] = {at_read_ssr,     at_write_ssr,     at_read_fpmode, at_write_fpmode,
                                  at_read_barrier, at_write_barrier, at_dmstati};

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
