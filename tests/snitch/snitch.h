/* Runtime of the Snitch cluster tests (crt0.S, runtime.c) on brisk's -M snitch machine
 * (docs/snitch.md). main(hart) runs on every hart; hart 0's return value is the exit status. */
#ifndef SNITCH_TEST_H
#define SNITCH_TEST_H

#include <stdint.h>

#include "check.h"    /* tests/bare: CHECK(expected, got), reported by bare_fail (runtime.c) */
#include "csr_ops.h"  /* tests/bare */

#define HARTS 9
#define TCDM_BASE 0x10000000ul
#define PERIPH_BASE 0x10020000ul
#define PERF_CNT_EN(i) (PERIPH_BASE + 0x000 + 8 * (i))
#define PERF_CNT_SEL(i) (PERIPH_BASE + 0x080 + 8 * (i))
#define PERF_CNT(i) (PERIPH_BASE + 0x100 + 8 * (i))
#define CL_CLINT_SET (PERIPH_BASE + 0x180)
#define CL_CLINT_CLEAR (PERIPH_BASE + 0x188)
#define ICACHE_PREFETCH_ENABLE (PERIPH_BASE + 0x190)
#define ZERO_MEM 0x10030000ul
#define CLINT_BASE 0xffff0000ul
#define CLINT_MSIP(h) (CLINT_BASE + 4 * (h))
#define CLINT_MTIMECMP(h) (CLINT_BASE + 0x4000 + 8 * (h))

/* PERF_CNT_SEL.METRIC values */
#define CYCLE 0x00
#define TCDM_ACCESSED 0x01
#define TCDM_CONGESTED 0x02
#define RETIRED_INSTR 0x06
#define RETIRED_LOAD 0x07
#define RETIRED_I 0x08
#define ICACHE_MISS 0x1a
#define ICACHE_HIT 0x1b
#define ICACHE_PREFETCH 0x1c
#define ICACHE_STALL 0x1e
#define SEL(metric, hart) ((uint64_t)(metric) << 16 | (hart))

#define MIP_MSIP (1ul << 3)
#define MIP_MCIP (1ul << 19)
#define MSTATUS_MIE (1ul << 3)
#define CAUSE_LOAD_ACCESS 5
#define CAUSE_STORE_ACCESS 7
#define CAUSE_ILLEGAL 2


/* The cluster barrier: the access of CSR 0x7C2 waits until every hart has made one. */
static inline void barrier(void) { __asm__ volatile("csrr zero, 0x7c2" ::: "memory"); }

/* On RV32 a 64-bit access is two 32-bit ones, lower half first; the peripherals take both. */
/* A known mix of 10 instructions for counting tests, with operand %[s] the address of two 64-bit
 * words: 5 addi to t0 (RETIRED_I), 3 lw to t1 (RETIRED_LOAD), 2 add to zero (neither). */
#define COUNTED_MIX                                                                                   \
  "addi t0, t0, 1\n"                                                                                  \
  "lw t1, 0(%[s])\n"                                                                                  \
  "addi t0, t0, 1\n"                                                                                  \
  "lw t1, 8(%[s])\n"                                                                                  \
  "add zero, t0, t1\n"                                                                                \
  "addi t0, t0, 1\n"                                                                                  \
  "lw t1, 0(%[s])\n"                                                                                  \
  "addi t0, t0, 1\n"                                                                                  \
  "add zero, t0, t1\n"                                                                                \
  "addi t0, t0, 1\n"

static inline void write32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint32_t read32(uintptr_t a) { return *(volatile uint32_t *)a; }
static inline void write64(uintptr_t a, uint64_t v) { *(volatile uint64_t *)a = v; }
static inline uint64_t read64(uintptr_t a) { return *(volatile uint64_t *)a; }

void putstr(const char *s);
__attribute__((noreturn)) void snitch_exit(int code);

/* Traps: the handler gets mcause and mepc and returns the pc to resume at. Without one, a trap is
 * a failure. */
typedef uint64_t (*trap_fn)(uint64_t cause, uint64_t epc);
extern volatile trap_fn trap_handler;

#endif
