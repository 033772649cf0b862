/* The peripheral block from a guest (docs/snitch.md, "The peripheral block"): every register's
 * reset value, its writable bits, 64-bit and 32-bit accesses (the upper half at +4), the
 * write-only registers reading 0, the offsets past the registers, and 1-byte accesses faulting.
 * Only hart 0 runs it; the others wait in wfi. */
#include "snitch.h"

static const uint64_t kResetSel[16] = {SEL(CYCLE, 0),          SEL(RETIRED_INSTR, 0), SEL(TCDM_ACCESSED, 0),
                                       SEL(ICACHE_MISS, 0),    SEL(ICACHE_HIT, 0),    SEL(ICACHE_PREFETCH, 0),
                                       SEL(ICACHE_STALL, 0),   SEL(CYCLE, 0),         SEL(CYCLE, 0),
                                       SEL(CYCLE, 0),          SEL(CYCLE, 0),         SEL(CYCLE, 0),
                                       SEL(CYCLE, 0),          SEL(CYCLE, 0),         SEL(CYCLE, 0),
                                       SEL(CYCLE, 0)};

static volatile uint64_t faults, fault_cause;

static uint64_t skip(uint64_t cause, uint64_t epc) {
  faults++;
  fault_cause = cause;
  return epc + 4;
}

int main(unsigned hart) {
  if (hart != 0) return 0;
  /* Reset: every counter enabled, the hardware's selections; counting since reset. */
  for (unsigned i = 0; i < 16; i++) {
    CHECK(1, read64(PERF_CNT_EN(i)));
    CHECK(1, read32(PERF_CNT_EN(i)));
    CHECK(0, read32(PERF_CNT_EN(i) + 4));
    CHECK(kResetSel[i], read64(PERF_CNT_SEL(i)));
    CHECK(kResetSel[i] & 0xffffffff, read32(PERF_CNT_SEL(i)));
  }
  /* Counter 0 (CYCLE) and 1 (RETIRED_INSTR of hart 0) have counted since reset. */
  CHECK(1, read64(PERF_CNT(0)) > 0);
  CHECK(1, read64(PERF_CNT(1)) > 0);
  CHECK(0, read64(CL_CLINT_SET));
  CHECK(0, read64(CL_CLINT_CLEAR));
  CHECK(0, read64(ICACHE_PREFETCH_ENABLE));

  /* Writable bits: EN bit 0, SEL 31:0, PERF_CNT 47:0; a disabled counter keeps its value. */
  for (unsigned i = 0; i < 16; i++) {
    write64(PERF_CNT_EN(i), ~0ull);
    CHECK(1, read64(PERF_CNT_EN(i)));
    write64(PERF_CNT_EN(i), 0xfffffffffffffffeul);
    CHECK(0, read64(PERF_CNT_EN(i)));
    write64(PERF_CNT_SEL(i), ~0ull);
    CHECK(0xffffffff, read64(PERF_CNT_SEL(i)));
    write64(PERF_CNT(i), ~0ull);
    CHECK(0xffffffffffff, read64(PERF_CNT(i)));
    CHECK(0xffff, read32(PERF_CNT(i) + 4));
    write64(PERF_CNT(i), 0);
    CHECK(0, read64(PERF_CNT(i)));
  }
  /* 32-bit writes replace their half and keep the other. */
  write64(PERF_CNT(3), 0x123456789abcul);
  write32(PERF_CNT(3), 0xdeadbeef);
  CHECK(0x1234deadbeeful, read64(PERF_CNT(3)));
  write32(PERF_CNT(3) + 4, 0xffff0042);
  CHECK(0x0042deadbeeful, read64(PERF_CNT(3)));
  CHECK(0x42, read32(PERF_CNT(3) + 4));
  write32(PERF_CNT_SEL(5) + 4, 0xffffffff);
  write32(PERF_CNT_SEL(5), SEL(RETIRED_LOAD, 7));
  CHECK(SEL(RETIRED_LOAD, 7), read64(PERF_CNT_SEL(5)));
  write32(PERF_CNT_EN(5), 1);
  CHECK(1, read64(PERF_CNT_EN(5)));
  write64(PERF_CNT_EN(5), 0);
  /* Write-only registers read 0 at both halves; offsets past the registers read 0 and keep nothing. */
  write64(ICACHE_PREFETCH_ENABLE, 1);
  CHECK(0, read32(ICACHE_PREFETCH_ENABLE));
  CHECK(0, read32(CL_CLINT_SET + 4));
  write64(PERIPH_BASE + 0x198, ~0ull);
  CHECK(0, read64(PERIPH_BASE + 0x198));
  write64(PERIPH_BASE + 0xfff8, ~0ull);
  CHECK(0, read64(PERIPH_BASE + 0xfff8));

  /* 1-byte accesses are access faults. */
  trap_handler = skip;
  (void)*(volatile uint8_t *)PERF_CNT_EN(0);
  CHECK(1, faults);
  CHECK(CAUSE_LOAD_ACCESS, fault_cause);
  *(volatile uint8_t *)PERF_CNT_EN(0) = 1;
  CHECK(2, faults);
  CHECK(CAUSE_STORE_ACCESS, fault_cause);
  trap_handler = 0;
  /* The zero memory reads 0 and ignores writes. */
  write64(ZERO_MEM + 8, 0x55);
  CHECK(0, read64(ZERO_MEM + 8));
  return 0;
}
