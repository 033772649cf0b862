/* mip.SEIP is the OR of a software-writable bit and the PLIC's S-mode external interrupt line, and
 * only the software bit takes part in a CSR read-modify-write of mip (machine.adoc, "mip"):
 * setting another mip bit while the line is high must not latch SEIP. */
#include "bare.h"
#include "check.h"

/* Raises or drops the S external interrupt line. Dropping it also claims and completes the
   source, since a PLIC may keep it pending until claimed (QEMU's does). */
static void line(int high) {
  mmio_write8(UART_IER, high ? IER_ETBEI : 0);
  if (high) return;
  uint32_t src = mmio_read32(PLIC_CLAIM(PLIC_CTX_S));
  if (src) mmio_write32(PLIC_CLAIM(PLIC_CTX_S), src);
}

int main(void) {
  mmio_write32(PLIC_PRIORITY(UART_IRQ), 1);
  mmio_write32(PLIC_THRESHOLD(PLIC_CTX_S), 0);
  mmio_write32(PLIC_ENABLE(PLIC_CTX_S), 1u << UART_IRQ);

  /* The software bit alone. */
  csr_set(mip, MIP_SEIP);
  CHECK(MIP_SEIP, csr_read(mip) & MIP_SEIP);
  csr_clear(mip, MIP_SEIP);
  CHECK(0, csr_read(mip) & MIP_SEIP);

  /* The line alone: visible in mip, not cleared by software. */
  line(1);
  CHECK(MIP_SEIP, csr_read(mip) & MIP_SEIP);
  csr_clear(mip, MIP_SEIP);
  CHECK(MIP_SEIP, csr_read(mip) & MIP_SEIP);

  /* Read-modify-writes of other bits while the line is high. */
  csr_set(mip, MIP_SSIP);
  csr_clear(mip, MIP_SSIP);
  line(0);
  CHECK(0, csr_read(mip) & MIP_SEIP);

  mmio_write32(PLIC_ENABLE(PLIC_CTX_S), 0);
  return 0;
}
