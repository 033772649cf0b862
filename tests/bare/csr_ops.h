/* Zicsr from C for the bare-metal tests, RV64 (bare.h) and RV32 (rv32/rv32.h): the values are
 * XLEN bits wide, an unsigned long under both lp64 and ilp32. */
#ifndef BARE_CSR_OPS_H
#define BARE_CSR_OPS_H

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
