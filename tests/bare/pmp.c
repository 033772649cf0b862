/* PMP registers are accepted and read back but not enforced (README, system mode): pmpaddrN keeps
 * bits 53:0 (the spec's bits 55:2 of the address, machine.adoc "Physical Memory Protection CSRs"),
 * an even pmpcfg keeps what was written, and the odd pmpcfg registers are RV32's only (illegal on
 * RV64). A locked entry that grants nothing over all of memory still lets M, S and U load and store,
 * where a PMP that enforced it would fault every access. QEMU enforces PMP, so there is no QEMU run. */
#include "bare.h"
#include "check.h"

#define PMPADDR_MASK ((1ul << 54) - 1)

static volatile uint64_t word = 0x1234;

static uint64_t load_store(uint64_t v) {
  uint64_t old = word;
  word = v;
  return old;
}

int main(void) {
  set_m_handler(record_m);
  csr_write(pmpaddr1, ~0ul);
  CHECK(PMPADDR_MASK, csr_read(pmpaddr1));
  csr_write(pmpaddr1, 0x0123456789abcdeful);
  CHECK(0x0123456789abcdeful & PMPADDR_MASK, csr_read(pmpaddr1));
  csr_write(pmpaddr15, 0x20000000ul >> 2);
  CHECK(0x20000000ul >> 2, csr_read(pmpaddr15));
  csr_write(pmpaddr63, 0xfedcba9876543210ul);
  CHECK(0xfedcba9876543210ul & PMPADDR_MASK, csr_read(pmpaddr63));
  CHECK(0x0123456789abcdeful & PMPADDR_MASK, csr_read(pmpaddr1));  /* each its own */

  csr_write(pmpcfg2, 0x0f0e0d0c0b0a0908ul);
  CHECK(0x0f0e0d0c0b0a0908ul, csr_read(pmpcfg2));
  csr_write(pmpcfg14, 0x1f1b1a1918171615ul);
  CHECK(0x1f1b1a1918171615ul, csr_read(pmpcfg14));
  CHECK(0x0f0e0d0c0b0a0908ul, csr_read(pmpcfg2));
  CHECK(0, m_rec.count);
  const uint64_t pc = AT("csrrs zero, 0x3a1, zero");  /* pmpcfg1 */
  expect_m(CAUSE_ILLEGAL, pc, 0x3a102073u);

  /* Entry 0: locked (L, bit 7), NAPOT over everything, no R, W or X. */
  csr_write(pmpaddr0, ~0ul);
  csr_write(pmpcfg0, 0x98);
  CHECK(0x98, csr_read(pmpcfg0));
  CHECK(0x1234, load_store(0x5678));
  CHECK(0x5678, run_in(PRIV_S, load_store, 0x9abc));
  CHECK(0x9abc, run_in(PRIV_U, load_store, 0xdef0));
  CHECK(0xdef0, word);
  CHECK(0, m_rec.count);
  return 0;
}
