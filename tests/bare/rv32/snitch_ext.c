/* The Snitch compute cores' Xssr and Xfrep (docs/snitch.md, "SSRs" and "FREP") are -M snitch's:
 * on virt they are illegal instructions (mtval the encoding), by default and also with
 * `--cpu rv32,xssr=on,xfrep=on` (snitch_ext_on), as no stream unit or sequencer is behind them. */
#include "rv32.h"
#include "../check.h"

#define AT(insn)                                                                     \
  ({                                                                                 \
    uint32_t pc_;                                                                    \
    __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: " insn "\n.option pop" \
                     : "=&r"(pc_)::"t0", "memory");                                  \
    pc_;                                                                             \
  })

static void expect_illegal(uint32_t pc) {
  CHECK(1, m_rec.count);
  CHECK(CAUSE_ILLEGAL, m_rec.cause);
  CHECK(pc, m_rec.epc);
  CHECK(*(volatile uint32_t *)pc, m_rec.tval);
  clear_recs();
}

int main(void) {
  clear_recs();
  expect_illegal(AT(".insn i 0x2b, 1, t0, x0, 32"));      /* scfgri t0, 32 */
  expect_illegal(AT(".insn i 0x2b, 2, x0, t0, 32"));      /* scfgwi t0, 32 */
  expect_illegal(AT(".insn r 0x2b, 1, 0, t0, x1, t0"));   /* scfgr t0, t0 */
  expect_illegal(AT(".insn r 0x2b, 2, 0, x1, t0, t0"));   /* scfgw t0, t0 */
  expect_illegal(AT(".insn i 0x0b, 0, x1, zero, 0\nnop")); /* frep.o zero, 1 */
  expect_illegal(AT(".insn i 0x0b, 3, x6, zero, 0\nnop")); /* frep.i, stagger */
  return 0;
}
