/* CSR accesses by number (binutils 2.40 names few of the Smstateen/Smcsrind/Smcdeleg CSRs), as
 * functions run_in can call in S or U, and the checks the stateen, csrind and cdeleg programs make.
 *
 * CSR_ACCESSORS(name, num), with num a literal, defines for that CSR:
 *   at_read_<name>(u), at_write_<name>(v): csrr t0 / csrw v, returning the instruction's address;
 *   get_<name>(u), put_<name>(v): the value read; a write of v, returning 0.
 */
#ifndef BARE_CSR_ACCESS_H
#define BARE_CSR_ACCESS_H

#include "bare.h"
#include "check.h"

#define CSR_ACCESSORS(name, num)                                                                     \
  __attribute__((unused)) static uint64_t at_read_##name(uint64_t u) {                               \
    uint64_t pc;                                                                                     \
    (void)u;                                                                                         \
    __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: csrr t0, " #num "\n.option pop"     \
                     : "=&r"(pc)::"t0", "memory");                                                   \
    return pc;                                                                                       \
  }                                                                                                  \
  __attribute__((unused)) static uint64_t at_write_##name(uint64_t v) {                              \
    uint64_t pc;                                                                                     \
    __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: csrw " #num ", %1\n.option pop"     \
                     : "=&r"(pc)                                                                     \
                     : "r"(v)                                                                        \
                     : "memory");                                                                    \
    return pc;                                                                                       \
  }                                                                                                  \
  __attribute__((unused)) static uint64_t get_##name(uint64_t u) {                                   \
    (void)u;                                                                                         \
    return csr_read(num);                                                                            \
  }                                                                                                  \
  __attribute__((unused)) static uint64_t put_##name(uint64_t v) {                                   \
    csr_write(num, v);                                                                               \
    return 0;                                                                                        \
  }

typedef uint64_t (*csr_fn)(uint64_t);

/* mstateen0.CSRIND and menvcfg.CDE, and the Sscsrind window the stateen, csrind and cdeleg programs
 * share: siselect and sireg..sireg6 (0x151-0x153, 0x155-0x157). */
#define CSRIND (1ul << 60) /* mstateen0 */
#define MENVCFG_CDE (1ul << 60)

CSR_ACCESSORS(mstateen0, 0x30c)
CSR_ACCESSORS(siselect, 0x150)
CSR_ACCESSORS(sireg, 0x151)
CSR_ACCESSORS(sireg2, 0x152)
CSR_ACCESSORS(sireg3, 0x153)
CSR_ACCESSORS(sireg4, 0x155)
CSR_ACCESSORS(sireg5, 0x156)
CSR_ACCESSORS(sireg6, 0x157)

__attribute__((unused)) static const csr_fn read_sireg[] = {at_read_sireg,  at_read_sireg2, at_read_sireg3,
                                                            at_read_sireg4, at_read_sireg5, at_read_sireg6};
__attribute__((unused)) static const csr_fn write_sireg[] = {at_write_sireg,  at_write_sireg2, at_write_sireg3,
                                                             at_write_sireg4, at_write_sireg5, at_write_sireg6};

static inline uint64_t call_in(unsigned priv, csr_fn fn, uint64_t arg) {
  return priv == PRIV_M ? fn(arg) : run_in(priv, fn, arg);
}

/* at_* function fn, run in priv, raises illegal-instruction with mtval = the instruction. Needs
 * record_m as the M handler and nothing delegated. Failures report the caller's line. */
static inline void expect_illegal(unsigned priv, csr_fn fn, uint64_t arg, uint64_t line) {
  uint64_t pc = call_in(priv, fn, arg);
  uint64_t word = *(volatile uint32_t *)pc;
  if (m_rec.count != 1) bare_fail(line, 1, m_rec.count);
  if (m_rec.cause != CAUSE_ILLEGAL) bare_fail(line, CAUSE_ILLEGAL, m_rec.cause);
  if (m_rec.epc != pc) bare_fail(line, pc, m_rec.epc);
  if (m_rec.tval != word) bare_fail(line, word, m_rec.tval);
  clear_recs();
}

/* fn, run in priv, raises nothing; returns what fn returned. */
static inline uint64_t expect_allowed(unsigned priv, csr_fn fn, uint64_t arg, uint64_t line) {
  uint64_t r = call_in(priv, fn, arg);
  if (m_rec.count) bare_fail(line, 0, m_rec.cause);
  return r;
}

#define ILLEGAL(priv, fn, arg) expect_illegal(priv, fn, arg, __LINE__)
#define ALLOWED(priv, fn, arg) expect_allowed(priv, fn, arg, __LINE__)

#endif
