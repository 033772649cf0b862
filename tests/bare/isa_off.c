/* An extension `--cpu rv64,EXT=off` turns off raises illegal-instruction in system mode too: mcause 2
 * with the instruction's bits in mtval (machine.adoc, "Machine Trap Value Register"), and the
 * destination keeps its value. Built with EXTS_OFF for a run with zba, zbb, zbs and zicond off;
 * without it, the same instructions run on the default CPU and their results are checked. */
#include "bare.h"
#include "check.h"

/* Runs the instruction `word` (binutils 2.40 lacks Zicond: all four are given as bits) with
 * a1 = 6, a2 = 7 and a3 = 0x55; returns its address, and a3 in *rd. */
#define RUN(word, rd)                                                                         \
  ({                                                                                          \
    uint64_t pc_;                                                                             \
    register uint64_t a1_ __asm__("a1") = 6, a2_ __asm__("a2") = 7, a3_ __asm__("a3") = 0x55; \
    __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: .word " #word "\n.option pop" \
                     : "=&r"(pc_), "+r"(a3_) : "r"(a1_), "r"(a2_) : "memory");                \
    *(rd) = a3_;                                                                              \
    pc_;                                                                                      \
  })

static void expect(uint64_t pc, uint32_t bits, uint64_t rd, uint64_t on_result) {
#ifdef EXTS_OFF
  (void)on_result;
  expect_m(CAUSE_ILLEGAL, pc, bits);
  CHECK(0x55, rd);
#else
  (void)pc;
  (void)bits;
  CHECK(0, m_rec.count);
  CHECK(on_result, rd);
#endif
}

int main(void) {
  set_m_handler(record_m);
  uint64_t rd, pc;
  pc = RUN(0x20c5a6b3, &rd);  /* sh1add a3, a1, a2 (zba) */
  expect(pc, 0x20c5a6b3, rd, 19);
  pc = RUN(0x40b676b3, &rd);  /* andn a3, a2, a1 (zbb) */
  expect(pc, 0x40b676b3, rd, 1);
  pc = RUN(0x480616b3, &rd);  /* bclr a3, a2, zero (zbs) */
  expect(pc, 0x480616b3, rd, 6);
  pc = RUN(0x0ec5d6b3, &rd);  /* czero.eqz a3, a1, a2 (zicond) */
  expect(pc, 0x0ec5d6b3, rd, 6);
  return 0;
}
