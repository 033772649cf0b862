/* RV32's privileged differences: misa.MXL = 1, mstatus with SD in bit 31 and mstatush, the high
 * halves of the 64-bit counters and registers (cycleh, mcycleh, minstreth, hpmcounterNh,
 * mhpmeventNh, menvcfgh, mstateen0h, stimecmph, medelegh, Smcdeleg's sireg4), the odd pmpcfg
 * registers, and the interrupt bit of mcause in bit 31. */
#include "../check.h"
#include "rv32.h"

#define MENVCFGH_STCE (1u << 31) /* menvcfg bit 63 */
#define MENVCFGH_CDE (1u << 28)  /* menvcfg bit 60 (Smcdeleg) */
#define MSTATEEN0H_SE0 (1u << 31) /* mstateen0 bit 63 */
#define MHPMEVENTH_OF (1u << 31) /* mhpmevent bit 63 (Sscofpmf) */

int main(void) {
  const uint32_t misa = csr_read(misa);
  CHECK(1, misa >> 30);
  const uint32_t letters = 1u << ('A' - 'A') | 1u << ('C' - 'A') | 1u << ('D' - 'A') | 1u << ('F' - 'A') |
                           1u << ('I' - 'A') | 1u << ('M' - 'A') | 1u << ('S' - 'A') | 1u << ('U' - 'A');
  CHECK(letters, misa & 0x3ffffff);

  /* mstatus: SD is bit 31 (and the value is negative), mstatush holds MBE/SBE (brisk: zero) */
  csr_clear(mstatus, MSTATUS_FS);
  CHECK(0, csr_read(mstatus) & MSTATUS_SD);
  csr_set(mstatus, MSTATUS_FS);
  CHECK(MSTATUS_SD, csr_read(mstatus) & MSTATUS_SD);
  CHECK(1, neg(csr_read(mstatus)));
  CHECK(MSTATUS_SD, csr_read(sstatus) & MSTATUS_SD);
  CHECK(0, csr_read(mstatush));
  csr_write(mstatush, 0xffffffffu);
  CHECK(0, csr_read(mstatush));
  CHECK(0, csr_read(0x312)); /* medelegh */

  /* minstret/minstreth: a write to the low half keeps the high one; the carry reaches it */
  csr_write(minstreth, 7);
  csr_write(minstret, 0xfffffff0u);
  CHECK(7, csr_read(minstreth));
  for (volatile int i = 0; i < 8; i++) {
  }
  CHECK(8, csr_read(minstreth));
  CHECK(8, csr_read(instreth));
  CHECK(1, csr_read(minstret) < 0x1000);
  csr_write(mcycleh, 0x12345678u);
  CHECK(0x12345678u, csr_read(mcycleh));
  CHECK(0x12345678u, csr_read(cycleh));
  csr_write(mcycle, 0);
  CHECK(0x12345678u, csr_read(mcycleh));
  CHECK(0, csr_read(timeh)); /* mtime starts at zero and runs at 10 MHz */

  /* hpmcounter3 and its event, halves apart */
  csr_write(mhpmcounter3h, 0xa5a5a5a5u);
  csr_write(mhpmcounter3, 0x5a5a5a5au);
  CHECK(0xa5a5a5a5u, csr_read(mhpmcounter3h));
  CHECK(0xa5a5a5a5u, csr_read(hpmcounter3h));
  csr_write(mhpmevent3, 0);
  csr_write(mhpmevent3h, MHPMEVENTH_OF);
  CHECK(MHPMEVENTH_OF, csr_read(mhpmevent3h) & MHPMEVENTH_OF);
  CHECK(0, csr_read(mhpmevent3));
  csr_write(mhpmevent3, 0);
  CHECK(MHPMEVENTH_OF, csr_read(mhpmevent3h) & MHPMEVENTH_OF);
  csr_write(mhpmevent3h, 0);
  CHECK(0, csr_read(mhpmevent3h));

  /* Smcdeleg: sireg4 is the high half of a delegated counter, sireg its low half */
  csr_write(menvcfgh, MENVCFGH_CDE);
  csr_write(mcounteren, 1u << 3);
  csr_write(0x150, 0x43); /* siselect: hpmcounter3 */
  CHECK(0x5a5a5a5au, csr_read(0x151));
  CHECK(0xa5a5a5a5u, csr_read(0x155));
  csr_write(0x155, 0x1234u);
  CHECK(0x1234u, csr_read(mhpmcounter3h));
  CHECK(0x5a5a5a5au, csr_read(mhpmcounter3));
  csr_write(0x151, 7);
  CHECK(0x1234u, csr_read(mhpmcounter3h));
  CHECK(7, csr_read(mhpmcounter3));
  csr_write(mcounteren, 0);
  csr_write(menvcfgh, 0);

  /* menvcfgh.STCE, mstateen0h.SE0, stimecmph */
  csr_write(menvcfgh, MENVCFGH_STCE);
  CHECK(MENVCFGH_STCE, csr_read(menvcfgh));
  csr_write(menvcfg, 0);
  CHECK(MENVCFGH_STCE, csr_read(menvcfgh));
  csr_write(mstateen0h, MSTATEEN0H_SE0);
  CHECK(MSTATEEN0H_SE0, csr_read(mstateen0h) & MSTATEEN0H_SE0);
  csr_write(stimecmph, 0x1234u);
  csr_write(stimecmp, 0xffffffffu);
  CHECK(0x1234u, csr_read(stimecmph));
  CHECK(0xffffffffu, csr_read(stimecmp));
  csr_write(stimecmph, 0xffffffffu);
  csr_write(menvcfgh, 0);

  /* Odd pmpcfg registers exist on RV32 */
  csr_write(pmpcfg1, 0x0d0c0b0au);
  CHECK(0x0d0c0b0au, csr_read(pmpcfg1));
  csr_write(pmpcfg1, 0);

  /* mcause's interrupt bit is bit 31: a machine software interrupt */
  clear_recs();
  csr_set(mie, MIP_MSIP);
  mmio_write32(CLINT_MSIP0, 1);
  csr_set(mstatus, MSTATUS_MIE);
  for (volatile int i = 0; i < 100 && !m_rec.count; i++) {
  }
  csr_clear(mstatus, MSTATUS_MIE);
  CHECK(1, m_rec.count);
  CHECK(CAUSE_INTERRUPT | IRQ_MSI, m_rec.cause);
  /* and an exception's is clear */
  EXPECT_TRAP("ecall", CAUSE_ECALL_M, 0u);
  return 0;
}
