/* Runtime of the RV32 bare-metal tests (crt0.S, runtime.c): main() runs in M-mode and returns 0
 * when every CHECK (../check.h) held. Every M-mode trap is recorded in m_rec and resumes after the
 * trapping instruction (or at resume_at), with mstatus.MPRV cleared; interrupts are recorded and
 * their source silenced. */
#ifndef RV32_H
#define RV32_H

#include <stdint.h>

#include "../csr_ops.h"

#define CAUSE_INTERRUPT 0x80000000u /* bit XLEN-1 */
#define CAUSE_ILLEGAL 2
#define CAUSE_BREAKPOINT 3
#define CAUSE_LOAD_ACCESS 5
#define CAUSE_STORE_ACCESS 7
#define CAUSE_ECALL_M 11
#define CAUSE_LOAD_PAGE 13
#define CAUSE_STORE_PAGE 15
#define IRQ_MSI 3

#define MSTATUS_MIE (1u << 3)
#define MSTATUS_MPRV (1u << 17)
#define MSTATUS_MPP (3u << 11)
#define MSTATUS_FS_INITIAL (1u << 13)
#define MSTATUS_FS (3u << 13)
#define MSTATUS_SD (1u << 31)
#define MIP_MSIP (1u << IRQ_MSI)

#define CLINT_MSIP0 0x2000000u
#define RAM_BASE 0x80000000u

static inline void mmio_write32(uint32_t a, uint32_t v) { *(volatile uint32_t *)a = v; }

/* The last trap since clear_recs(). */
struct trap_rec {
  uint32_t count, cause, epc, tval;
};
extern volatile struct trap_rec m_rec;
extern volatile uint32_t resume_at; /* 0: resume after the trapping instruction */
void clear_recs(void);

/* Calls fn in S-mode and returns its result. */
uint32_t run_in_s(uint32_t (*fn)(void));

void putstr(const char *s);
__attribute__((noreturn)) void bare_exit(int code);

/* Runs `insn` (norvc; %1 is `arg`, a0 may be clobbered) and checks that it raised exactly one
 * exception, of `cause_`, at its address, with mtval `tval_`. */
#define EXPECT_TRAP_AT(insn, arg, cause_, tval_)                                                  \
  do {                                                                                          \
    uint32_t pc_;                                                                               \
    clear_recs();                                                                               \
    __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: " insn "\n.option pop"         \
                     : "=&r"(pc_)                                                               \
                     : "r"(arg)                                                                 \
                     : "a0", "memory");                                                         \
    CHECK(1, m_rec.count);                                                                      \
    CHECK(cause_, m_rec.cause);                                                                 \
    CHECK(pc_, m_rec.epc);                                                                      \
    CHECK(tval_, m_rec.tval);                                                                   \
  } while (0)
#define EXPECT_TRAP(insn, cause, tval) EXPECT_TRAP_AT(insn, 0u, cause, tval)

/* One instruction `op rd, rs1, rs2` (R2), `op rd, rs1, imm` (RI) or `op rd, rs1` (R1) on register
 * operands, so that the compiler folds nothing. */
#define R2(op, a, b)                                                          \
  ({                                                                          \
    uint32_t r_;                                                              \
    __asm__ volatile(op " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b));           \
    r_;                                                                       \
  })
#define RI(op, a, imm)                                                        \
  ({                                                                          \
    uint32_t r_;                                                              \
    __asm__ volatile(op " %0, %1, " #imm : "=r"(r_) : "r"(a));                \
    r_;                                                                       \
  })
#define R1(op, a)                                                             \
  ({                                                                          \
    uint32_t r_;                                                              \
    __asm__ volatile(op " %0, %1" : "=r"(r_) : "r"(a));                       \
    r_;                                                                       \
  })

/* slt r, v, x0: 1 when v is negative as the hart holds it, which a value kept wider than 32 bits
 * without sign extension would get wrong. */
static inline uint32_t neg(uint32_t v) { return R2("slt", v, 0u); }

#endif
