/* CSR reads and writes by name, for the bare-metal tests of every machine (tests/bare, tests/snitch)
 * and XLEN: the values are XLEN bits wide, an unsigned long under both lp64 and ilp32. */
#ifndef BARE_CSR_OPS_H
#define BARE_CSR_OPS_H

#include <stdint.h>

#define csr_read(c)                                            \
  ({                                                           \
    unsigned long v_;                                          \
    __asm__ volatile("csrr %0, " #c : "=r"(v_)::"memory");     \
    v_;                                                        \
  })
#define csr_write(c, v) __asm__ volatile("csrw " #c ", %0" ::"rK"((unsigned long)(v)) : "memory")
#define csr_set(c, v) __asm__ volatile("csrs " #c ", %0" ::"rK"((unsigned long)(v)) : "memory")
#define csr_clear(c, v) __asm__ volatile("csrc " #c ", %0" ::"rK"((unsigned long)(v)) : "memory")

#endif
