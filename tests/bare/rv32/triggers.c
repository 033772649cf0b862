/* Sdtrig on an RV32 hart (docs/architecture.md, "Triggers"): tdata1.type in bits 31:28 and dmode
 * in bit 27, tdata2 of 32 bits with NAPOT up to 2^31 bytes, the mask matches on 16-bit halves
 * (tdata2[31:16] the mask, tdata2[15:0] the value), compare values that wrap at 2^32, and execute,
 * load and store breakpoints (mcause 3, mepc the instruction, mtval the address, hit0 set). M-mode
 * triggers need mstatus.MIE (csr/trigger.cpp, enabled_in_mode). */
#include "../check.h"
#include "rv32.h"
#include "../trigger.h"

#define TINFO_V1_MC6 ((1u << 24) | (1u << 6) | (1u << 15))

#define X (MC6 | MC6_M | MC6_EXECUTE)
#define L (MC6 | MC6_M | MC6_LOAD)
#define S (MC6 | MC6_M | MC6_STORE)
#define XT ((uint32_t)xt_fn)

static volatile uint32_t buf[8] __attribute__((aligned(64)));
#define B ((uint32_t)buf)

/* FIRES: `insn` (%1 is `addr`) raises a breakpoint at its address with mtval `tval`. QUIET: `insn`
 * (%0 is `addr`) raises nothing. */
#define FIRES(insn, addr, tval) EXPECT_TRAP_AT(insn, addr, CAUSE_BREAKPOINT, tval)
#define QUIET(insn, addr)                                                                              \
  do {                                                                                                 \
    clear_recs();                                                                                      \
    __asm__ volatile(".option push\n.option norvc\n" insn "\n.option pop" ::"r"(addr) : "a0", "memory"); \
    CHECK(0, m_rec.count);                                                                             \
  } while (0)

static void csrs(void) {
  for (unsigned n = 0; n < NTRIGGERS; n++) {
    CHECK(0xf0000000u, trig_tdata1(n)); /* type 15 at reset */
    CHECK(TINFO_V1_MC6, csr_read(tinfo));
  }
  CHECK(0x60000000u | MC6_M | MC6_LOAD, trig_set(0, L, B));
  CHECK(6, trig_tdata1(0) >> 28);
  /* dmode (bit 27) is Debug Mode's: it reads 0. */
  CHECK(0x60000000u | MC6_M | MC6_LOAD, trig_set(0, L | DMODE, B));
  CHECK(0x60000000u | MC6_S | MC6_STORE | MC6_CHAIN | MC6_MATCH(MATCH_NOT_MASK_HIGH) | MC6_SIZE(SIZE_32),
        trig_set(0, MC6 | MC6_S | MC6_STORE | MC6_CHAIN | MC6_MATCH(MATCH_NOT_MASK_HIGH) | MC6_SIZE(SIZE_32), 0));
  CHECK(0xf0000000u, trig_set(0, TYPE(2) | MC6_M | MC6_LOAD, B));
  csr_write(tdata1, 0);
  CHECK(0xf0000000u, csr_read(tdata1));
  csr_write(tdata2, 0xdeadbeefu);
  CHECK(0xdeadbeefu, csr_read(tdata2));
  /* maskmax6 is 31: with NAPOT selected, 31 low ones keep bit 30 clear. (An S-mode trigger: one
   * over all of RAM would fire on the test's own loads.) */
  csr_write(tdata1, MC6 | MC6_S | MC6_LOAD | MC6_MATCH(MATCH_NAPOT));
  csr_write(tdata2, 0xffffffffu);
  CHECK(0xbfffffffu, csr_read(tdata2));
  csr_write(tdata2, 0x7fffffffu);
  CHECK(0x3fffffffu, csr_read(tdata2));
  csr_write(tdata2, 0x3fffffffu);
  CHECK(0x3fffffffu, csr_read(tdata2));
  trig_clear_all();
}

static void execute(void) {
  CHECK(X, trig_set(0, X, (uint32_t)xt_1));
  expect_xt(15 - 2, 1, (uint32_t)xt_1);
  CHECK(X | MC6_HIT0, trig_tdata1(0));
  trig_set(0, X, (uint32_t)xt_1 + 2);
  expect_xt(15, 0, 0);
  /* NAPOT over the 16 bytes at xt_fn. */
  trig_set(0, X | MC6_MATCH(MATCH_NAPOT), XT | 7);
  expect_xt(0, 4, (uint32_t)xt_3);
  /* Mask low: tdata2[31:16] masks the pc's low 16 bits, bits 2 and 3 ignored (all four addis). */
  trig_set(0, X | MC6_MATCH(MATCH_MASK_LOW), 0xfff3u << 16 | (XT & 0xfff3));
  expect_xt(0, 4, (uint32_t)xt_3);
  /* Chain: [xt_1, xt_3). */
  trig_set(0, X | MC6_CHAIN | MC6_MATCH(MATCH_GE), (uint32_t)xt_1);
  trig_set(1, X | MC6_MATCH(MATCH_LT), (uint32_t)xt_3);
  expect_xt(15 - 2 - 4, 2, (uint32_t)xt_2);
  CHECK(X | MC6_CHAIN | MC6_MATCH(MATCH_GE) | MC6_HIT0, trig_tdata1(0));
  CHECK(X | MC6_MATCH(MATCH_LT) | MC6_HIT0, trig_tdata1(1));
  trig_clear_all();
  expect_xt(15, 0, 0);
}

static void loads_and_stores(void) {
  for (int k = 0; k < 8; k++) buf[k] = 0x11111111u * (k + 1);
  /* A 32-bit load trigger: lw at its address, not lh or lb there, nor lw of the word before. */
  trig_set(0, L | MC6_SIZE(SIZE_32), B + 4);
  FIRES("lw a0, 0(%1)", B + 4, B + 4);
  CHECK(L | MC6_SIZE(SIZE_32) | MC6_HIT0, trig_tdata1(0));
  QUIET("lh a0, 0(%0)", B + 4);
  QUIET("lb a0, 0(%0)", B + 4);
  QUIET("lw a0, 0(%0)", B);
  QUIET("sw a0, 4(%0)", B); /* a store: not watched */
  /* An 8-bit store trigger: sb at its address before the store, not sw over it. */
  trig_set(0, S | MC6_SIZE(SIZE_8), B + 9);
  FIRES("sb %1, 0(%1)", B + 9, B + 9);
  CHECK(0x33333333u, buf[2]);
  QUIET("sh zero, 0(%0)", B + 8);
  QUIET("sb zero, 0(%0)", B + 10);
  CHECK(0x33000000u, buf[2]);
  /* Any size: every byte is a compare value, mtval the lowest. */
  trig_set(0, S, B + 15);
  FIRES("sw %1, 0(%1)", B + 12, B + 12);
  CHECK(0x44444444u, buf[3]);
  trig_clear_all();
}

/* The masks compare 16-bit halves: with 32-bit halves of a 32-bit tdata2 the mask would be 0 and
 * the value all of tdata2, which no nonzero tdata2 matches. Each trigger 0 below chains to trigger
 * 1 on the access's own address or buf's 64 bytes, so that the test's other loads never fire. */
static void masks(void) {
  CHECK(1, (B >> 16) != (B & 0xffff)); /* a half in the other's place cannot match */
  trig_set(1, L | MC6_MATCH(MATCH_NAPOT), B | 31);
  /* Mask low, bits 4:0 ignored: buf[0..7] match, buf + 32 does not. */
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_MASK_LOW), 0xffe0u << 16 | (B & 0xffe0));
  FIRES("lw a0, 0(%1)", B, B);
  FIRES("lw a0, 0(%1)", B + 16, B + 16);
  CHECK(L | MC6_CHAIN | MC6_MATCH(MATCH_MASK_LOW) | MC6_HIT0, trig_tdata1(0));
  QUIET("lw a0, 32(%0)", B);
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_MASK_LOW), 0xffffu << 16 | B >> 16);
  QUIET("lw a0, 0(%0)", B);
  /* Mask high: RAM's high half. */
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_MASK_HIGH), 0xffffu << 16 | B >> 16);
  FIRES("lw a0, 0(%1)", B + 4, B + 4);
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_MASK_HIGH), 0xffffu << 16 | (B & 0xffff));
  QUIET("lw a0, 0(%0)", B);
  /* Negated: not mask high of RAM's half never fires in RAM; not mask low of buf[0..7] fires past them. */
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_NOT_MASK_HIGH), 0xffffu << 16 | B >> 16);
  QUIET("lw a0, 0(%0)", B);
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_NOT_MASK_LOW), 0xffe0u << 16 | (B & 0xffe0));
  QUIET("lw a0, 0(%0)", B);
  FIRES("lw a0, 0(%1)", B + 32, B + 32);
  trig_clear_all();
}

/* NAPOT ranges of 32-bit addresses (chained to trigger 1 on the access's address, as above), and
 * compare values that wrap past 2^32. */
static void napot(void) {
  /* 2^31 bytes at 0x80000000, the largest range: RAM, not the CLINT. */
  trig_set(1, L, B);
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_NAPOT), 0xbfffffffu);
  FIRES("lw a0, 0(%1)", B, B);
  trig_set(1, L, CLINT_MSIP0);
  QUIET("lw a0, 0(%0)", CLINT_MSIP0);
  /* 2^30 bytes at 0x80000000: not 0xc0000000, whose access fault comes instead. */
  trig_set(1, L, B);
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_NAPOT), 0x9fffffffu);
  FIRES("lw a0, 0(%1)", B, B);
  trig_set(1, L, 0xc0000000u);
  EXPECT_TRAP_AT("lw a0, 0(%1)", 0xc0000000u, CAUSE_LOAD_ACCESS, 0xc0000000u);
  trig_clear_all();
  /* 16 bytes at 0: a word at 0xfffffffe has bytes 0 and 1 among its compare values; one at
   * 0xfffffff8 none. */
  trig_set(0, L | MC6_MATCH(MATCH_NAPOT), 7);
  FIRES("lw a0, 0(%1)", 0xfffffffeu, 0xfffffffeu);
  EXPECT_TRAP_AT("lw a0, 0(%1)", 0xfffffff8u, CAUSE_LOAD_ACCESS, 0xfffffff8u);
  trig_clear_all();
}

int main(void) {
  csr_set(mstatus, MSTATUS_MIE); /* mie is 0: no interrupt is taken */
  csrs();
  execute();
  loads_and_stores();
  masks();
  napot();
  return 0;
}
