/* CHECK(expected, got): on a mismatch, prints
 *   FAIL <test>: check <line>: expected 0x... got 0x...
 * on the UART and exits with status 1. It works in M, S and U: the report goes to M by an ecall. */
#ifndef BARE_CHECK_H
#define BARE_CHECK_H

#include <stdint.h>

__attribute__((noreturn)) void bare_fail(uint64_t line, uint64_t expected, uint64_t got);

#define CHECK(expected, got)                               \
  do {                                                     \
    uint64_t e_ = (uint64_t)(expected), g_ = (uint64_t)(got); \
    if (e_ != g_) bare_fail(__LINE__, e_, g_);             \
  } while (0)

/* The single exception that record_m/record_s saw since the last clear_recs(). */
#define expect_m(c, pc, tv) expect_rec(m_rec, c, pc, tv)
#define expect_s(c, pc, tv) expect_rec(s_rec, c, pc, tv)
#define expect_rec(rec, c, pc, tv) \
  do {                             \
    CHECK(1, rec.count);           \
    CHECK(c, rec.cause);           \
    CHECK(pc, rec.epc);            \
    CHECK(tv, rec.tval);           \
    clear_recs();                  \
  } while (0)

#endif
