/* Indirect SSR streams (docs/snitch.md, "SSRs"), on hart 0: gathers through ft0 and ft1 with 8-,
 * 16- and 32-bit indices (element address idx_base + index * 8 << shift), a sub-word start, repeat,
 * a scatter through ft1, an FREP gather copied by an affine write stream, an FREP sum whose TCDM
 * requests are the index words plus the elements, status word 0 (bit 27) before and after, idx_cfg
 * and idx_base read back, a fault on an index word, and the starts that stay illegal: SSR 2 (the
 * intersector's slave), SSR 31's broadcast, dims 3 and 4 (intersection). */
#include "ssr.h"

#define D ((volatile double *)(TCDM_BASE + 0x1000)) /* 64 doubles */
#define IDX16 ((volatile uint16_t *)(TCDM_BASE + 0x2000))
#define IDX8 ((volatile uint8_t *)(TCDM_BASE + 0x2100))
#define IDX32 ((volatile uint32_t *)(TCDM_BASE + 0x2200))
#define IDXC ((volatile uint16_t *)(TCDM_BASE + 0x2400))
#define OUT ((volatile double *)(TCDM_BASE + 0x3000))
#define OUT2 ((volatile double *)(TCDM_BASE + 0x3800))

#define SSR_IDX_CFG 10
#define SSR_IDX_BASE 11
#define SSR_IREAD(dims) (16 + (dims) - 1)
#define SSR_IWRITE(dims) (20 + (dims) - 1)
#define SSR_INDIR (1u << 27)
#define PTR(p) ((uintptr_t)(p) & 0x07ffffff)
#define IDX_CFG(size, shift) ((size) | (shift) << 8)

static volatile unsigned illegal_count;
static uint64_t on_illegal(uint64_t cause, uint64_t epc) {
  if (cause == CAUSE_ILLEGAL) illegal_count++;
  return epc + 4;
}

static double value(unsigned i) { return 1000 + 3 * i; }

/* One element of ft0's (ft1's) stream, stored by fsd (its data operand reads the register). */
static inline double pop0(void) {
  double v;
  __asm__ volatile("fsd ft0, 0(%1)\nfld %0, 0(%1)" : "=&f"(v) : "r"(OUT + 200) : "ft0", "ft1", "ft2", "memory");
  return v;
}
static inline double pop1(void) {
  double v;
  __asm__ volatile("fsd ft1, 0(%1)\nfld %0, 0(%1)" : "=&f"(v) : "r"(OUT + 200) : "ft0", "ft1", "ft2", "memory");
  return v;
}

static const uint16_t i16[10] = {5, 0, 63, 7, 7, 12, 3, 62, 1, 9};
static const uint8_t i8[7] = {4, 31, 0, 2, 2, 17, 30};
static const uint32_t i32[20] = {11, 22, 33, 44, 55, 0, 1, 2, 3, 60, 61, 62, 63, 9, 8, 7, 6, 5, 4, 13};
static const uint32_t scatter[6] = {9, 3, 40, 0, 17, 4};

int main(unsigned hart) {
  if (hart != 0) return 0;
  for (unsigned i = 0; i < 64; i++) D[i] = value(i);
  for (unsigned i = 0; i < 10; i++) IDX16[i] = i16[i];
  for (unsigned i = 0; i < 7; i++) IDX8[3 + i] = i8[i];
  for (unsigned i = 0; i < 20; i++) IDX32[i] = i32[i];
  for (unsigned i = 0; i < 48; i++) IDXC[i] = (i * 7) % 64;
  for (unsigned i = 0; i < 64; i++) OUT[i] = OUT2[i] = -1;
  const uintptr_t mtvec = csr_read(mtvec);
  csr_write(mtvec, (uintptr_t)raw_handler);

  /* idx_cfg keeps size 1:0, shift 10:8 and the merge flag 16; idx_base is a word address. */
  scfgwi(0x12345, SSR_IDX_CFG, 0);
  CHECK(0x10301, scfgri(SSR_IDX_CFG, 0));
  scfgwi(0x1000008c, SSR_IDX_BASE, 0);
  CHECK(0x10000088, scfgri(SSR_IDX_BASE, 0));
  scfgwi(IDX_CFG(1, 0), SSR_IDX_CFG, SSR_ALL);
  CHECK(1, scfgri(SSR_IDX_CFG, 2));

  /* A gather with 16-bit indices on ft0: D[i16[k]], shift 0 (8-byte elements). Bound 0 is the
   * index count - 1. Status: indirection (bit 27), the pointer at the current index word. */
  scfgwi(0, SSR_REPEAT, 0);
  scfgwi(9, SSR_BOUND(0), 0);
  scfgwi((uintptr_t)D, SSR_IDX_BASE, 0);
  scfgwi((uintptr_t)IDX16, SSR_IREAD(1), 0);
  CHECK(SSR_INDIR | PTR(IDX16), scfgri(0, 0));
  double got[24];
  ssr_enable();
  for (unsigned k = 0; k < 5; k++) got[k] = pop0();
  ssr_disable();
  CHECK(SSR_INDIR | PTR(IDX16 + 4), scfgri(0, 0)); /* index 5 is in the second word */
  ssr_enable();
  for (unsigned k = 5; k < 10; k++) got[k] = pop0();
  ssr_disable();
  for (unsigned k = 0; k < 10; k++) CHECK((int)value(i16[k]), (int)got[k]);
  CHECK(SSR_DONE | SSR_INDIR | PTR(IDX16 + 8), scfgri(0, 0));

  /* 8-bit indices from a sub-word start (byte 3 of a word) on ft1, shift 1: D[2 * i8[k]]. */
  scfgwi(IDX_CFG(0, 1), SSR_IDX_CFG, 1);
  scfgwi(6, SSR_BOUND(0), 1);
  scfgwi((uintptr_t)D, SSR_IDX_BASE, 1);
  scfgwi((uintptr_t)(IDX8 + 3), SSR_IREAD(1), 1);
  CHECK(SSR_INDIR | PTR(IDX8 + 3), scfgri(0, 1));
  ssr_enable();
  for (unsigned k = 0; k < 7; k++) got[k] = pop1();
  ssr_disable();
  for (unsigned k = 0; k < 7; k++) CHECK((int)value(2 * i8[k]), (int)got[k]);
  CHECK(SSR_DONE | SSR_INDIR | PTR(IDX8 + 3 + 8), scfgri(0, 1));

  /* 32-bit indices with repeat 1 on ft0: each element twice; a 2-D start (word 17) is the same
   * walk with dims 1 in the status. */
  scfgwi(IDX_CFG(2, 0), SSR_IDX_CFG, 0);
  scfgwi(1, SSR_REPEAT, 0);
  scfgwi(4, SSR_BOUND(0), 0);
  scfgwi(7, SSR_BOUND(1), 0); /* ignored by indirect streams */
  scfgwi((uintptr_t)IDX32, SSR_IREAD(2), 0);
  CHECK(SSR_INDIR | 1u << 28 | PTR(IDX32), scfgri(0, 0));
  ssr_enable();
  for (unsigned k = 0; k < 10; k++) got[k] = pop0();
  ssr_disable();
  for (unsigned k = 0; k < 10; k++) CHECK((int)value(i32[k / 2]), (int)got[k]);
  CHECK(SSR_DONE | SSR_INDIR | 1u << 28 | PTR(IDX32 + 4), scfgri(0, 0));
  scfgwi(0, SSR_REPEAT, 0);
  scfgwi(0, SSR_BOUND(1), 0);

  /* A scatter through ft1: OUT[scatter[k]] = 10 k + 1; repeat does not apply to writes. */
  for (unsigned i = 0; i < 6; i++) IDX32[32 + i] = scatter[i];
  scfgwi(IDX_CFG(2, 0), SSR_IDX_CFG, 1);
  scfgwi(3, SSR_REPEAT, 1);
  scfgwi(5, SSR_BOUND(0), 1);
  scfgwi((uintptr_t)OUT, SSR_IDX_BASE, 1);
  scfgwi((uintptr_t)(IDX32 + 32), SSR_IWRITE(1), 1);
  CHECK(1u << 30 | SSR_INDIR | PTR(IDX32 + 32), scfgri(0, 1));
  ssr_enable();
  for (int k = 0; k < 6; k++) __asm__ volatile("fcvt.d.w ft1, %0" ::"r"(10 * k + 1) : "ft1", "memory");
  ssr_disable();
  for (unsigned i = 0; i < 48; i++) {
    int want = -1;
    for (unsigned k = 0; k < 6; k++)
      if (scatter[k] == i) want = 10 * k + 1;
    CHECK(want, (int)OUT[i]);
  }
  CHECK(SSR_DONE | 1u << 30 | SSR_INDIR | PTR(IDX32 + 36), scfgri(0, 1));
  scfgwi(0, SSR_REPEAT, 1);

  /* The hardware's own test, smaller: FREP copies a gather (16-bit, IDXC[i] = 7i mod 64) on ft0
   * into an affine write stream on ft2. */
  scfgwi(IDX_CFG(1, 0), SSR_IDX_CFG, 0);
  scfgwi(47, SSR_BOUND(0), 0);
  scfgwi((uintptr_t)D, SSR_IDX_BASE, 0);
  scfgwi(47, SSR_BOUND(0), 2);
  scfgwi(8, SSR_STRIDE(0), 2);
  scfgwi((uintptr_t)IDXC, SSR_IREAD(1), 0);
  scfgwi((uintptr_t)OUT2, SSR_WRITE(1), 2);
  ssr_enable();
  __asm__ volatile(".insn i 0x0b, 0, x1, %0, 0\n" /* frep.o n - 1, 1 instruction */
                   "fmv.d ft2, ft0\n" ::"r"(47)
                   : "ft0", "ft2", "memory");
  ssr_disable();
  for (unsigned i = 0; i < 48; i++) CHECK((int)value((i * 7) % 64), (int)OUT2[i]);
  CHECK(SSR_DONE | SSR_INDIR | PTR(IDXC + 44), scfgri(0, 0));

  /* An FREP sum over 20 32-bit indices: 10 index words and 20 elements are 30 TCDM requests
   * (ACCESSED - CONGESTED counts requests). */
  for (unsigned i = 0; i < 16; i++) write64(PERF_CNT_EN(i), 0);
  write64(PERF_CNT_SEL(0), SEL(TCDM_ACCESSED, 0));
  write64(PERF_CNT_SEL(1), SEL(TCDM_CONGESTED, 0));
  write64(PERF_CNT(0), 0);
  write64(PERF_CNT(1), 0);
  scfgwi(IDX_CFG(2, 0), SSR_IDX_CFG, 0);
  scfgwi(19, SSR_BOUND(0), 0);
  scfgwi((uintptr_t)IDX32, SSR_IREAD(1), 0);
  double acc = 0;
  const uintptr_t base = PERIPH_BASE;
  __asm__ volatile(
      "sw %[one], 0x00(%[b])\n"
      "sw %[one], 0x08(%[b])\n"
      "csrsi 0x7c0, 1\n"
      ".insn i 0x0b, 0, x1, %[iters], 0\n"
      "fadd.d %[acc], ft0, %[acc]\n"
      "csrci 0x7c0, 1\n"
      "sw zero, 0x00(%[b])\n"
      "sw zero, 0x08(%[b])\n"
      : [acc] "+f"(acc)
      : [b] "r"(base), [one] "r"(1ul), [iters] "r"(19)
      : "ft0", "ft1", "ft2", "memory");
  int sum = 0;
  for (unsigned k = 0; k < 20; k++) sum += (int)value(i32[k]);
  CHECK(sum, (int)acc);
  CHECK(30, read64(PERF_CNT(0)) - read64(PERF_CNT(1)));
  CHECK(SSR_DONE | SSR_INDIR | PTR(IDX32 + 18), scfgri(0, 0));

  CHECK(0, raw_count);

  /* An index word where there is no memory: the pop is a load access fault and the walk does
   * not move (with 64-bit indices a step would move the pointer to the next word). */
  scfgwi(IDX_CFG(3, 0), SSR_IDX_CFG, 0);
  scfgwi(3, SSR_BOUND(0), 0);
  scfgwi(0x1000, SSR_IREAD(1), 0);
  ssr_enable();
  pop0();
  ssr_disable();
  CHECK(1, raw_count);
  CHECK(CAUSE_LOAD_ACCESS, raw_cause);
  CHECK(SSR_INDIR | 0x1000, scfgri(0, 0));
  csr_write(mtvec, mtvec);

  /* Still illegal, and nothing changes: an indirect start on SSR 2 or through SSR 31 (SSR 2
   * has no indirect streams of its own), dims 3 and 4 (intersection). */
  trap_handler = on_illegal;
  const uint32_t st0 = scfgri(0, 0), st2 = scfgri(0, 2);
  scfgwi((uintptr_t)IDX16, SSR_IREAD(1), 2);
  scfgwi((uintptr_t)IDX16, SSR_IWRITE(1), 2);
  scfgwi((uintptr_t)IDX16, SSR_IREAD(1), SSR_ALL);
  scfgwi((uintptr_t)IDX16, SSR_IREAD(3), 0);
  scfgwi((uintptr_t)IDX16, SSR_IREAD(4), 0);
  scfgwi((uintptr_t)IDX16, SSR_IWRITE(3), 1);
  scfgw((uintptr_t)IDX16, SSR_ADDR(SSR_IWRITE(4), 1));
  trap_handler = 0;
  CHECK(7, illegal_count);
  CHECK(st0, scfgri(0, 0));
  CHECK(st2, scfgri(0, 2));
  return 0;
}
