/* Interrupts (docs/snitch.md, "The -M snitch machine"): CL_CLINT_SET/CLEAR drive mip.MCIP (bit
 * 19) of the harts their bits name; with mie.MCIE and mstatus.MIE the interrupt is taken with
 * mcause = interrupt | 19 (0x80000013); a hart in wfi stops retiring instructions until it is set, then wakes.
 * The CLINT at 0xFFFF0000 drives MSIP and keeps mtimecmp. */
#include "snitch.h"

static volatile uint64_t taken_cause, taken_count, ready, woke, hart1_mip;

static uint64_t on_interrupt(uint64_t cause, uint64_t epc) {
  taken_cause = cause;
  taken_count++;
  write64(CL_CLINT_CLEAR, 1);  /* lowers hart 0's line */
  return epc;
}

int main(unsigned hart) {
  if (hart == 1) {
    csr_set(mie, MIP_MCIP);  /* wfi wakes on it; mstatus.MIE stays 0, so nothing is taken */
    ready = 1;
    __asm__ volatile("wfi");
    hart1_mip = csr_read(mip);
    woke = 1;
    return 0;
  }
  if (hart != 0) return 0;
  CHECK(0, csr_read(mip) & MIP_MCIP);
  write64(CL_CLINT_SET, 1);
  CHECK(MIP_MCIP, csr_read(mip) & MIP_MCIP);
  write64(CL_CLINT_CLEAR, 1);
  CHECK(0, csr_read(mip) & MIP_MCIP);
  /* A 32-bit write works too; bits of other harts leave hart 0's alone. */
  write32(CL_CLINT_SET, 1 | 1u << 4);
  CHECK(MIP_MCIP, csr_read(mip) & MIP_MCIP);
  write32(CL_CLINT_CLEAR, 1u << 4);
  CHECK(MIP_MCIP, csr_read(mip) & MIP_MCIP);
  write32(CL_CLINT_CLEAR, 1);
  CHECK(0, csr_read(mip) & MIP_MCIP);

  /* Taken. */
  trap_handler = on_interrupt;
  csr_set(mie, MIP_MCIP);
  csr_set(mstatus, MSTATUS_MIE);
  write64(CL_CLINT_SET, 1);
  __asm__ volatile("nop");
  CHECK(1, taken_count);
  CHECK(0x80000013, taken_cause); /* RV32: the interrupt bit is bit 31 */
  CHECK(0, csr_read(mip) & MIP_MCIP);
  csr_clear(mstatus, MSTATUS_MIE);

  /* Waking hart 1 from wfi: while it waits it retires nothing. */
  while (!ready) {
  }
  write64(PERF_CNT_SEL(2), SEL(RETIRED_INSTR, 1));
  for (volatile int i = 0; i < 50; i++) {
  }
  const uint64_t before = read64(PERF_CNT(2));
  for (volatile int i = 0; i < 50; i++) {
  }
  CHECK(before, read64(PERF_CNT(2)));
  CHECK(0, woke);
  write64(CL_CLINT_SET, 1u << 1);
  while (!woke) {
  }
  CHECK(MIP_MCIP, hart1_mip & MIP_MCIP);
  CHECK(1, read64(PERF_CNT(2)) > before);
  write64(CL_CLINT_CLEAR, 1u << 1);

  /* The CLINT: msip drives MSIP; mtimecmp reads back. */
  write32(CLINT_MSIP(0), 1);
  CHECK(MIP_MSIP, csr_read(mip) & MIP_MSIP);
  write32(CLINT_MSIP(0), 0);
  CHECK(0, csr_read(mip) & MIP_MSIP);
  write64(CLINT_MTIMECMP(8), 0x123456789ul);
  CHECK(0x123456789ul, read64(CLINT_MTIMECMP(8)));
  trap_handler = 0;
  return 0;
}
