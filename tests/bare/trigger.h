/* Sdtrig helpers for the trigger_* tests of both XLENs (rv32/triggers.c too): the trigger CSRs,
 * mcontrol6 fields (hwbp_registers.xml; type and dmode are at the top of XLEN, the rest at the
 * same bits), and xt_fn, a function whose instructions the execute tests put triggers on. */
#ifndef BARE_TRIGGER_H
#define BARE_TRIGGER_H

#include "csr_ops.h"

#define NTRIGGERS 4

#define TYPE(t) ((unsigned long)(t) << (__riscv_xlen - 4))
#define TDATA1_DISABLED TYPE(15)
#define DMODE (1ul << (__riscv_xlen - 5))
#define MC6_UNCERTAIN (1ul << 26)
#define MC6_HIT1 (1ul << 25)
#define MC6_VS (1ul << 24)
#define MC6_VU (1ul << 23)
#define MC6_HIT0 (1ul << 22)
#define MC6_SELECT (1ul << 21)
#define MC6_SIZE(n) ((unsigned long)(n) << 16)
#define MC6_ACTION(n) ((unsigned long)(n) << 12)
#define MC6_CHAIN (1ul << 11)
#define MC6_MATCH(n) ((unsigned long)(n) << 7)
#define MC6_M (1ul << 6)
#define MC6_UNCERTAINEN (1ul << 5)
#define MC6_S (1ul << 4)
#define MC6_U (1ul << 3)
#define MC6_EXECUTE (1ul << 2)
#define MC6_STORE (1ul << 1)
#define MC6_LOAD (1ul << 0)
#define MC6 TYPE(6)

#define MATCH_EQ 0
#define MATCH_NAPOT 1
#define MATCH_GE 2
#define MATCH_LT 3
#define MATCH_MASK_LOW 4
#define MATCH_MASK_HIGH 5
#define MATCH_NOT_EQ 8
#define MATCH_NOT_NAPOT 9
#define MATCH_NOT_MASK_LOW 12
#define MATCH_NOT_MASK_HIGH 13

#define SIZE_ANY 0
#define SIZE_8 1
#define SIZE_16 2
#define SIZE_32 3
#define SIZE_64 5

/* Sets trigger n the way the spec says a debugger must (tdata1 = 0 first), and returns what tdata1
 * reads back. */
static inline unsigned long trig_set(unsigned n, unsigned long tdata1, unsigned long tdata2) {
  csr_write(tselect, n);
  csr_write(tdata1, 0);
  csr_write(tdata2, tdata2);
  csr_write(tdata1, tdata1);
  return csr_read(tdata1);
}
static inline unsigned long trig_tdata1(unsigned n) {
  csr_write(tselect, n);
  return csr_read(tdata1);
}
static inline void trig_clear_all(void) {
  for (unsigned n = 0; n < NTRIGGERS; n++) {
    csr_write(tselect, n);
    csr_write(tdata1, 0);
  }
}

/* xt_fn(a) returns a + 15, one addi per bit (32-bit encodings, 32-byte aligned): an execute
 * breakpoint that record_m steps over takes that bit away. xc_fn(a) is the same with c.addi,
 * returning a + 3. */
unsigned long xt_fn(unsigned long a);
unsigned long xc_fn(unsigned long a);
extern char xt_1[], xt_2[], xt_3[], xt_ret[], xc_1[];
__asm__(".text\n.option push\n.option norvc\n.balign 32\n.globl xt_fn, xt_1, xt_2, xt_3, xt_ret\n"
        "xt_fn: addi a0, a0, 1\nxt_1: addi a0, a0, 2\nxt_2: addi a0, a0, 4\nxt_3: addi a0, a0, 8\nxt_ret: ret\n"
        ".option rvc\n.balign 4\n.globl xc_fn, xc_1\nxc_fn: c.addi a0, 1\nxc_1: c.addi a0, 2\nc.jr ra\n"
        ".option pop\n");

/* Runs xt_fn(0) and checks its result and the breakpoints it took: `count` of them, the last at
 * `last` (its address in mepc and mtval). Include after the runtime's header (m_rec, clear_recs)
 * and check.h. */
static inline void expect_xt(unsigned long result, unsigned long count, unsigned long last) {
  clear_recs();
  CHECK(result, xt_fn(0));
  CHECK(count, m_rec.count);
  if (count) {
    CHECK(CAUSE_BREAKPOINT, m_rec.cause);
    CHECK(last, m_rec.epc);
    CHECK(last, m_rec.tval);
  }
  clear_recs();
}

#endif
