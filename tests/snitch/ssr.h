/* Xssr and Xfrep for the Snitch cluster tests (docs/snitch.md, "SSRs" and "FREP"), written with
 * .insn as stock GCC has no mnemonics for them. A config address is {word[6:0], ssr[4:0]}. */
#ifndef SNITCH_SSR_H
#define SNITCH_SSR_H

#include "snitch.h"

#define SSR_ADDR(word, ssr) ((word) << 5 | (ssr))
#define SSR_ALL 31
#define SSR_REPEAT 1
#define SSR_BOUND(d) (2 + (d))
#define SSR_STRIDE(d) (6 + (d))
#define SSR_READ(dims) (24 + (dims) - 1)
#define SSR_WRITE(dims) (28 + (dims) - 1)
#define SSR_DONE (1u << 31)

/* SCFGWI value, imm */
#define scfgwi(value, word, ssr) \
  __asm__ volatile(".insn i 0x2b, 2, x0, %0, %1" ::"r"(value), "i"(SSR_ADDR(word, ssr)) : "memory")
/* SCFGRI rd, imm */
#define scfgri(word, ssr)                                                                     \
  ({                                                                                          \
    uint32_t v_;                                                                              \
    __asm__ volatile(".insn i 0x2b, 1, %0, x0, %1" : "=r"(v_) : "i"(SSR_ADDR(word, ssr)) : "memory"); \
    v_;                                                                                       \
  })
/* SCFGW value, addr (rd = 1, funct7 0) and SCFGR rd, addr (rs1 = 1) */
static inline void scfgw(uint32_t value, uint32_t addr) {
  __asm__ volatile(".insn r 0x2b, 2, 0, x1, %0, %1" ::"r"(value), "r"(addr) : "memory");
}
static inline uint32_t scfgr(uint32_t addr) {
  uint32_t v;
  __asm__ volatile(".insn r 0x2b, 1, 0, %0, x1, %1" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

static inline void ssr_enable(void) { __asm__ volatile("csrsi 0x7c0, 1" ::: "memory"); }
static inline void ssr_disable(void) { __asm__ volatile("csrci 0x7c0, 1" ::: "memory"); }

/* While SSRs are enabled the runtime's trap entry (which saves the FP registers, ft0-ft2 among
 * them) would stream too: a test whose streams may trap installs this handler, which touches no FP
 * register, counts the traps in raw_count (the last cause in raw_cause) and skips the instruction. */
static volatile uint32_t raw_count __attribute__((used)), raw_cause __attribute__((used));
__attribute__((naked, aligned(4), unused)) static void raw_handler(void) {
  __asm__ volatile(
      "addi sp, sp, -16\n"
      "sw t0, 0(sp)\n"
      "sw t1, 4(sp)\n"
      "csrr t0, mepc\n"
      "addi t0, t0, 4\n"
      "csrw mepc, t0\n"
      "la t0, raw_count\n"
      "lw t1, 0(t0)\n"
      "addi t1, t1, 1\n"
      "sw t1, 0(t0)\n"
      "la t0, raw_cause\n"
      "csrr t1, mcause\n"
      "sw t1, 0(t0)\n"
      "lw t0, 0(sp)\n"
      "lw t1, 4(sp)\n"
      "addi sp, sp, 16\n"
      "mret\n");
}

#define ISSUE_FPU 0x03
#define ISSUE_FPU_SEQ 0x04
#define ISSUE_CORE_TO_FPU 0x05

#endif
