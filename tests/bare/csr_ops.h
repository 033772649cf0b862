/* CSR reads and writes by name, for the bare-metal tests of every machine (tests/bare, tests/snitch). */
#ifndef BARE_CSR_OPS_H
#define BARE_CSR_OPS_H

#include <stdint.h>

#define csr_read(c)                                            \
  ({                                                           \
    uint64_t v_;                                               \
    __asm__ volatile("csrr %0, " #c : "=r"(v_)::"memory");     \
    v_;                                                        \
  })
#define csr_write(c, v) __asm__ volatile("csrw " #c ", %0" ::"rK"((uint64_t)(v)) : "memory")
#define csr_set(c, v) __asm__ volatile("csrs " #c ", %0" ::"rK"((uint64_t)(v)) : "memory")
#define csr_clear(c, v) __asm__ volatile("csrc " #c ", %0" ::"rK"((uint64_t)(v)) : "memory")

#endif
