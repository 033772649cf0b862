/* mstatus.FS = Off makes the F and D instructions and the FP CSRs illegal (machine.adoc, "Extension
 * Context Status in mstatus"): mcause 2 with the instruction in mtval, also in code that already ran
 * (and was translated) with FS on; with FS on again they run. */
#include "bare.h"
#include "check.h"

#define MSTATUS_FS (3ul << 13)
#define MSTATUS_FS_INITIAL (1ul << 13)

static const double one = 1.0;

static void expect_illegal(uint64_t pc) { expect_m(CAUSE_ILLEGAL, pc, *(volatile uint32_t *)pc); }

/* Each runs one FP instruction and returns its address. */
static uint64_t fadd(void) { return AT("fadd.d ft0, ft1, ft2"); }
static uint64_t fmv(void) { return AT("fmv.x.d a0, ft0"); }
static uint64_t frcsr(void) { return AT("frcsr a0"); }
static uint64_t fld(void) {
  uint64_t pc;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: fld ft3, 0(%1)\n.option pop"
                   : "=&r"(pc) : "r"(&one) : "memory");
  return pc;
}
static uint64_t (*const ops[])(void) = {fadd, fmv, frcsr, fld};

int main(void) {
  set_m_handler(record_m);
  for (int round = 0; round < 3; round++) {
    csr_set(mstatus, MSTATUS_FS_INITIAL);
    for (unsigned k = 0; k < 4; k++) {
      ops[k]();
      CHECK(0, m_rec.count);
    }
    csr_clear(mstatus, MSTATUS_FS);
    CHECK(0, csr_read(mstatus) & MSTATUS_FS);
    for (unsigned k = 0; k < 4; k++) expect_illegal(ops[k]());
  }
  return 0;
}
