/* Xdma on the DMA core, hart 8 (docs/snitch.md, "DMA"): DMSTAT before and after a copy; a 64 B
 * aligned TCDM -> DRAM copy (AR_DONE = AW_DONE = R_DONE = W_DONE = 1); the source 32 B off alignment
 * (two read beats for one write beat); a copy across a 4 KiB boundary (two bursts on each side); a
 * 2-D copy gathering rows of a strided source; the bytes arrive every time; a full queue (would
 * block) and the wait of a DMCPY into it, until the running one completes. The compute cores have
 * no Xdma: DMSTATI on hart 0 is an illegal instruction. Hart 0 waits for hart 8 and exits. */
#include "snitch.h"

#define DMA_AW_DONE 0x10
#define DMA_AR_DONE 0x12
#define DMA_R_DONE 0x14
#define DMA_W_DONE 0x16
#define STAT_COMPLETED "x0"
#define STAT_NEXT "x1"
#define STAT_BUSY "x2"
#define STAT_WOULD_BLOCK "x3"
#define CONFIG_2D "x2"

/* Xdma: opcode 0x2B, funct3 0, by funct7; DMCPYI's and DMSTATI's rs2 field is an immediate. */
static inline void dm_src(uintptr_t a) { __asm__ volatile(".insn r 0x2b, 0, 0, x0, %0, x0" ::"r"(a)); }
static inline void dm_dst(uintptr_t a) { __asm__ volatile(".insn r 0x2b, 0, 1, x0, %0, x0" ::"r"(a)); }
#define dm_cpyi(size, config)                                                                     \
  ({                                                                                              \
    uint32_t id_;                                                                                 \
    __asm__ volatile(".insn r 0x2b, 0, 2, %0, %1, " config : "=r"(id_) : "r"(size) : "memory"); \
    id_;                                                                                          \
  })
static inline uint32_t dm_cpy(uint32_t size, uint32_t config) {
  uint32_t id;
  __asm__ volatile(".insn r 0x2b, 0, 3, %0, %1, %2" : "=r"(id) : "r"(size), "r"(config) : "memory");
  return id;
}
#define dm_stati(which)                                                                \
  ({                                                                                   \
    uint32_t v_;                                                                       \
    __asm__ volatile(".insn r 0x2b, 0, 4, %0, x0, " which : "=r"(v_)::"memory"); \
    v_;                                                                                \
  })
static inline uint32_t dm_stat(uint32_t which) {
  uint32_t v;
  __asm__ volatile(".insn r 0x2b, 0, 5, %0, x0, %1" : "=r"(v) : "r"(which) : "memory");
  return v;
}
static inline void dm_str(uint32_t src, uint32_t dst) {
  __asm__ volatile(".insn r 0x2b, 0, 6, x0, %0, %1" ::"r"(src), "r"(dst));
}
static inline void dm_rep(uint32_t n) { __asm__ volatile(".insn r 0x2b, 0, 7, x0, %0, x0" ::"r"(n)); }

static uint8_t dram[8192] __attribute__((aligned(4096)));
static volatile uint32_t done;
static volatile uint64_t illegal_cause, illegal_count;

static void wait_for(uint32_t id) {
  while (dm_stati(STAT_COMPLETED) < id) {
  }
}

/* The TCDM source: byte i of it holds i * 7 + 1. */
#define SRC (TCDM_BASE + 0x1000)
static uint8_t src_byte(uint32_t i) { return (uint8_t)(i * 7 + 1); }

static void reset_counters(void) {
  for (unsigned i = 0; i < 4; i++) write64(PERF_CNT(i), 0);
}

/* Copies n bytes from SRC + s_off to dram + d_off, waits, and checks them. */
static uint32_t copy_and_check(uint32_t s_off, uint32_t d_off, uint32_t n) {
  for (uint32_t i = 0; i < sizeof dram; i++) dram[i] = 0;
  reset_counters();
  dm_src(SRC + s_off);
  dm_dst((uintptr_t)dram + d_off);
  const uint32_t id = dm_cpyi(n, "x0");
  wait_for(id);
  for (uint32_t i = 0; i < n; i++) CHECK(src_byte(s_off + i), dram[d_off + i]);
  CHECK(0, dram[d_off + n]);
  return id;
}

static uint64_t on_illegal(uint64_t cause, uint64_t epc) {
  illegal_cause = cause;
  illegal_count++;
  return epc + 4;
}

static void dma_core(void) {
  for (uint32_t i = 0; i < 8192; i++) *(volatile uint8_t *)(SRC + i) = src_byte(i);
  static const uint64_t sel[4] = {SEL(DMA_AW_DONE, 0), SEL(DMA_AR_DONE, 0), SEL(DMA_R_DONE, 0),
                                  SEL(DMA_W_DONE, 0)};
  for (unsigned i = 0; i < 4; i++) write64(PERF_CNT_SEL(i), sel[i]);

  /* Nothing queued yet: ids count from 1. */
  CHECK(0, dm_stati(STAT_COMPLETED));
  CHECK(1, dm_stati(STAT_NEXT));
  CHECK(0, dm_stati(STAT_BUSY));

  /* A 4 KiB copy keeps the engine busy for a while. */
  dm_src(SRC);
  dm_dst((uintptr_t)dram);
  const uint32_t big = dm_cpy(4096, 0);
  CHECK(1, big);
  CHECK(1, dm_stat(2)); /* busy, through the register form */
  CHECK(2, dm_stat(1));
  CHECK(0, dm_stati(STAT_COMPLETED));
  wait_for(big);
  CHECK(big, dm_stati(STAT_COMPLETED));
  CHECK(0, dm_stati(STAT_BUSY));
  for (uint32_t i = 0; i < 4096; i++) CHECK(src_byte(i), dram[i]);

  /* 64 B, both sides aligned: one beat each way. */
  CHECK(2, copy_and_check(0, 0, 64));
  CHECK(1, read64(PERF_CNT(0)));
  CHECK(1, read64(PERF_CNT(1)));
  CHECK(1, read64(PERF_CNT(2)));
  CHECK(1, read64(PERF_CNT(3)));

  /* The source 32 B off: the 64 bytes span two read beats, one write beat. */
  copy_and_check(32, 0, 64);
  CHECK(1, read64(PERF_CNT(0)));
  CHECK(1, read64(PERF_CNT(1)));
  CHECK(2, read64(PERF_CNT(2)));
  CHECK(1, read64(PERF_CNT(3)));

  /* 128 B across a 4 KiB boundary on both sides (SRC is page-aligned in the TCDM): two bursts each. */
  copy_and_check(4096 - 64, 4096 - 64, 128);
  CHECK(2, read64(PERF_CNT(0)));
  CHECK(2, read64(PERF_CNT(1)));
  CHECK(2, read64(PERF_CNT(2)));
  CHECK(2, read64(PERF_CNT(3)));

  /* 2-D: 4 rows of 16 B from every 256th byte of the source, packed at a 32 B stride. */
  for (uint32_t i = 0; i < sizeof dram; i++) dram[i] = 0;
  dm_src(SRC);
  dm_dst((uintptr_t)dram);
  dm_str(256, 32);
  dm_rep(4);
  wait_for(dm_cpyi(16, CONFIG_2D));
  for (uint32_t r = 0; r < 4; r++) {
    for (uint32_t i = 0; i < 16; i++) CHECK(src_byte(256 * r + i), dram[32 * r + i]);
    for (uint32_t i = 16; i < 32; i++) CHECK(0, dram[32 * r + i]);
  }
  CHECK(0, dram[128]);

  /* Four 4 KiB copies fill the queue (the first one is still running): DMSTAT 3, would block. A
   * fifth DMCPY is taken, and the DMA core waits until the first has completed. */
  dm_src(SRC);
  dm_dst((uintptr_t)dram);
  const uint32_t first = dm_cpy(4096, 0);
  for (unsigned k = 1; k < 4; k++) dm_cpy(4096, 0);
  CHECK(1, dm_stati(STAT_WOULD_BLOCK));
  const uint32_t fifth = dm_cpy(4096, 0);
  CHECK(first + 4, fifth);
  CHECK(first, dm_stati(STAT_COMPLETED));
  CHECK(1, dm_stati(STAT_WOULD_BLOCK)); /* full again: 2..5 */
  wait_for(fifth);
  done = 1;
}

int main(unsigned hart) {
  if (hart == 8) {
    dma_core();
    return 0;
  }
  if (hart != 0) return 0;
  trap_handler = on_illegal;
  (void)dm_stati(STAT_NEXT);
  CHECK(1, illegal_count);
  CHECK(CAUSE_ILLEGAL, illegal_cause);
  trap_handler = 0;
  while (!done) {
  }
  return 0;
}
