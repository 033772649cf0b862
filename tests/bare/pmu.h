/* The performance monitor as the pmu_* programs see it: brisk's event selectors (csr/pmu.h,
 * enum Event), the mhpmevent / mcyclecfg / minstretcfg fields (sscofpmf.adoc, smcntrpmf.adoc) and
 * the counter bits of mcountinhibit / mcounteren. */
#ifndef BARE_PMU_H
#define BARE_PMU_H

#include "bare.h"

#define EV_CYCLES 0x01
#define EV_INSTRUCTIONS 0x02
#define EV_BRANCHES 0x03
#define EV_BRANCH_MISSES 0x04
#define EV_TAKEN_BRANCHES 0x05
#define EV_JUMPS 0x06
#define EV_CALLS 0x07
#define EV_RETURNS 0x08
#define EV_LOADS 0x09
#define EV_STORES 0x0a
#define EV_ATOMICS 0x0b
#define EV_FP_OPS 0x0c
#define EV_EXCEPTIONS 0x0d
#define EV_INTERRUPTS 0x0e
#define EV_PAGE_WALKS 0x0f
#define EV_TLB_MISSES 0x10

#define EVENT_OF (1ul << 63)
#define EVENT_MINH (1ul << 62)
#define EVENT_SINH (1ul << 61)
#define EVENT_UINH (1ul << 60)
#define EVENT_VSINH (1ul << 59)
#define EVENT_VUINH (1ul << 58)
/* Count only in one mode. */
#define ONLY_M (EVENT_SINH | EVENT_UINH)
#define ONLY_S (EVENT_MINH | EVENT_UINH)
#define ONLY_U (EVENT_MINH | EVENT_SINH)

/* Bits of mcountinhibit, mcounteren, scounteren and scountovf. */
#define CTR_CY (1ul << 0)
#define CTR_IR (1ul << 2)
#define CTR_HPM(n) (1ul << (n))

#define IRQ_LCOF 13
#define MIP_LCOFIP (1ul << IRQ_LCOF)
#define MSTATUS_FS_INITIAL (1ul << 13)

/* Smcntrpmf's mcyclecfg and minstretcfg, by number: binutils 2.40 does not name them. */
#define read_mcyclecfg() csr_read(0x321)
#define write_mcyclecfg(v) csr_write(0x321, v)
#define read_minstretcfg() csr_read(0x322)
#define write_minstretcfg(v) csr_write(0x322, v)

#endif
