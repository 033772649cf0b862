/* SSR streams (docs/snitch.md, "SSRs"), on hart 0: a 2-D read stream with repeat on ft0 checked
 * element by element, a write stream on ft2 with a stride, the config words read back with SCFGRI
 * and SCFGR, SSR 31's broadcast, and the illegal cases: an FP read of a stream that ran out, a
 * write to a read stream's register, an indirect stream on SSR 2 (tests/snitch/ssr_indirect.c
 * has the others). */
#include "ssr.h"

#define M ((volatile double *)(TCDM_BASE + 0x2000)) /* 4 rows of 6 */
#define OUT ((volatile double *)(TCDM_BASE + 0x3000))

static volatile unsigned illegal_count;
static volatile uint64_t illegal_cause;

static uint64_t on_illegal(uint64_t cause, uint64_t epc) {
  illegal_cause = cause;
  illegal_count++;
  return epc + 4;
}

/* One element of ft0's stream, stored by fsd (its data operand reads ft0). */
static inline double pop0(void) {
  double v;
  __asm__ volatile("fsd ft0, 0(%1)\nfld %0, 0(%1)" : "=&f"(v) : "r"(OUT + 64) : "ft0", "ft1", "ft2", "memory");
  return v;
}

int main(unsigned hart) {
  if (hart != 0) return 0;
  for (unsigned r = 0; r < 4; r++)
    for (unsigned c = 0; c < 6; c++) M[r * 6 + c] = r * 10 + c;
  for (unsigned k = 0; k < 32; k++) OUT[k] = -1;

  /* Config words read back, by SCFGRI and SCFGR; SSR 31 writes all three. Repeat keeps 4 bits,
   * strides and idx_base are word addresses. */
  scfgwi(0x15, SSR_REPEAT, 2);
  scfgwi(11, SSR_BOUND(0), 2);
  scfgwi(12, SSR_BOUND(3), 2);
  scfgwi(-8, SSR_STRIDE(0), 2);
  scfgw(0x123, SSR_ADDR(SSR_STRIDE(3), 2));
  scfgw(0x10777, SSR_ADDR(10, 2));
  scfgw(0x88, SSR_ADDR(11, 2));
  CHECK(5, scfgri(SSR_REPEAT, 2));
  CHECK(11, scfgri(SSR_BOUND(0), 2));
  CHECK(12, scfgr(SSR_ADDR(SSR_BOUND(3), 2)));
  CHECK((uint32_t)-8, scfgri(SSR_STRIDE(0), 2));
  CHECK(0x120, scfgri(SSR_STRIDE(3), 2));
  CHECK(0x10703, scfgri(10, 2)); /* size 1:0, shift 10:8, merge 16 */
  CHECK(0x88, scfgr(SSR_ADDR(11, 2)));
  CHECK(0, scfgri(SSR_REPEAT, 1));
  CHECK(SSR_DONE, scfgri(0, 1)); /* nothing started: done */
  CHECK(0, scfgri(SSR_REPEAT, 5)); /* no SSR 5 */
  scfgwi(7, SSR_REPEAT, SSR_ALL);
  CHECK(7, scfgri(SSR_REPEAT, 0));
  CHECK(7, scfgri(SSR_REPEAT, 1));
  CHECK(7, scfgr(SSR_ADDR(SSR_REPEAT, 2)));
  scfgwi(0, SSR_REPEAT, SSR_ALL);
  CHECK(0, scfgri(SSR_REPEAT, 2));

  /* 2-D read with repeat: rows 0-3, columns 1-3, each element twice. Strides are relative: the
   * row step is 48 minus the 2 x 8 the columns walked. */
  scfgwi(1, SSR_REPEAT, 0);
  scfgwi(2, SSR_BOUND(0), 0);
  scfgwi(3, SSR_BOUND(1), 0);
  scfgwi(8, SSR_STRIDE(0), 0);
  scfgwi(48 - 2 * 8, SSR_STRIDE(1), 0);
  scfgwi((uintptr_t)&M[1], SSR_READ(2), 0);
  CHECK(((uintptr_t)&M[1] & 0x07ffffff) | 1u << 28, scfgri(0, 0)); /* running, read, 2 dims */
  /* Checked after ssr_disable(): a failing CHECK's exit path uses FP registers. */
  unsigned got[24];
  const uintptr_t mtvec = csr_read(mtvec);
  csr_write(mtvec, (uintptr_t)raw_handler); /* a stream that ran out early: a clean failure */
  ssr_enable();
  for (unsigned k = 0; k < 24; k++) got[k] = (unsigned)pop0();
  ssr_disable();
  csr_write(mtvec, mtvec);
  CHECK(0, raw_count);
  unsigned k = 0;
  for (unsigned r = 0; r < 4; r++)
    for (unsigned c = 1; c < 4; c++)
      for (unsigned rep = 0; rep < 2; rep++) CHECK(r * 10 + c, got[k++]);
  CHECK(SSR_DONE | ((uintptr_t)&M[3 * 6 + 3] & 0x07ffffff) | 1u << 28, scfgri(0, 0));
  scfgwi(0, SSR_REPEAT, 0);

  /* Write stream on ft2: 8 elements every other slot of OUT; repeat does not apply to writes. */
  scfgwi(3, SSR_REPEAT, 2);
  scfgwi(7, SSR_BOUND(0), 2);
  scfgwi(16, SSR_STRIDE(0), 2);
  scfgwi((uintptr_t)OUT, SSR_WRITE(1), 2);
  CHECK(((uintptr_t)OUT & 0x07ffffff) | 1u << 30, scfgri(0, 2));
  csr_write(mtvec, (uintptr_t)raw_handler);
  ssr_enable();
  for (int i = 0; i < 8; i++) __asm__ volatile("fcvt.d.w ft2, %0" ::"r"(i * 3 + 1) : "ft2", "memory");
  ssr_disable();
  csr_write(mtvec, mtvec);
  CHECK(0, raw_count);
  for (unsigned i = 0; i < 16; i++) CHECK(i % 2 ? -1 : (int)(i / 2 * 3 + 1), (int)OUT[i]);
  CHECK(1, (scfgri(0, 2) & SSR_DONE) != 0);
  scfgwi(0, SSR_REPEAT, 2);

  /* Illegal: a read of ft0 whose stream is done, a write of ft0 (a read stream's register), ft2
   * with no write stream; the indirect start words 16-23 on SSR 2. With SSRs disabled ft0 is a
   * register. */
  unsigned n[3];
  csr_write(mtvec, (uintptr_t)raw_handler);
  ssr_enable();
  __asm__ volatile("fsd ft0, 0(%0)" ::"r"(OUT + 40) : "memory");
  n[0] = raw_count;
  scfgwi(0, SSR_BOUND(0), 0);
  scfgwi((uintptr_t)OUT, SSR_READ(1), 0);
  __asm__ volatile("fcvt.d.w ft0, zero" ::: "ft0", "memory");
  n[1] = raw_count;
  __asm__ volatile("fcvt.d.w ft2, zero" ::: "ft2", "memory");
  n[2] = raw_count;
  ssr_disable();
  csr_write(mtvec, mtvec);
  CHECK(1, n[0]);
  CHECK(CAUSE_ILLEGAL, raw_cause);
  CHECK(2, n[1]);
  CHECK(3, n[2]);
  CHECK(1, (scfgri(0, 0) & SSR_DONE) == 0); /* the fcvt.d.w to ft0 moved nothing */
  trap_handler = on_illegal;
  scfgwi((uintptr_t)OUT, 16, 2);
  CHECK(1, illegal_count);
  CHECK(CAUSE_ILLEGAL, illegal_cause);
  __asm__ volatile("fcvt.d.w ft0, %0\nfsd ft0, 0(%1)" ::"r"(99), "r"(OUT + 41) : "ft0", "memory");
  CHECK(1, illegal_count);
  CHECK(99, (int)OUT[41]);
  trap_handler = 0;
  return 0;
}
