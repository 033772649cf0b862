/* Two harts at once (-smp 2, each on a host thread of its own unless --smp-threads=1):
 *   - AMO and LR/SC increments of shared counters, also of one counter by both kinds at once,
 *     end exactly at the sum;
 *   - message passing: data, fence w,w, then a flag; the reader sees the flag, fence r,r, and
 *     must see the data;
 *   - code one hart writes, the other runs after fence.i: never the old instruction;
 *   - IPIs through the CLINT's msip wake the other hart from WFI, many times in a row (a lost
 *     wake-up hangs the test until its timeout).
 * Hart 1 has no trap handling: it records what it saw, and hart 0 checks it. */
#include "bare.h"
#include "check.h"

#define INCREMENTS 100000
#define MESSAGES 20000
#define PATCHES 300
#define PINGS 2000

static volatile uint64_t amo_counter __attribute__((aligned(64)));
static volatile uint64_t lrsc_counter __attribute__((aligned(64)));
static volatile uint64_t mixed_counter __attribute__((aligned(64)));
static volatile uint64_t start, hart1_done __attribute__((aligned(64)));
static volatile uint64_t flag __attribute__((aligned(64)));
static volatile uint64_t data[MESSAGES + 1];
static volatile uint64_t patch_round, patch_seen, patch_wrong;
static volatile uint64_t patch_result; /* keeps the calls before the patch */
static volatile uint64_t ping, pong;
/* A function hart 0 rewrites: `addi a0, zero, imm; ret`. */
static volatile uint32_t code[1024] __attribute__((aligned(4096)));

#define ADDI_A0_ZERO(imm) (0x00000513u | ((uint32_t)(imm) << 20))
#define RET 0x00008067u

static void amo_add(volatile uint64_t *p) { __asm__ volatile("amoadd.d zero, %1, (%0)" ::"r"(p), "r"(1ul) : "memory"); }

static void lrsc_add(volatile uint64_t *p) {
  uint64_t v, fail;
  __asm__ volatile("1: lr.d %0, (%2)\n"
                   "addi %0, %0, 1\n"
                   "sc.d %1, %0, (%2)\n"
                   "bnez %1, 1b"
                   : "=&r"(v), "=&r"(fail) : "r"(p) : "memory");
}

static void set_msip(unsigned hart, uint32_t on) {
  __asm__ volatile("fence" ::: "memory");
  mmio_write32(CLINT_MSIP(hart), on);
}

/* Until *p == v, sleeping in WFI: msip is cleared before each look, so an IPI after the look
 * keeps WFI from sleeping. */
static void wait_ipi(unsigned me, volatile uint64_t *p, uint64_t v) {
  for (;;) {
    set_msip(me, 0);
    __asm__ volatile("fence" ::: "memory");
    if (*p == v) return;
    __asm__ volatile("wfi");
  }
}

static uint64_t call_code(void) {
  uint64_t (*f)(void) = (uint64_t (*)(void))(uintptr_t)code;
  return f();
}

static void hart1(void) {
  set_msip(1, 0);
  while (!start) {
  }
  for (long k = 0; k < INCREMENTS; k++) {
    amo_add(&amo_counter);
    lrsc_add(&lrsc_counter);
    lrsc_add(&mixed_counter);
  }
  /* Messages, one after another, nobody waiting for the reader. */
  for (uint64_t k = 1; k <= MESSAGES; k++) {
    data[k] = k * 7 + 1;
    __asm__ volatile("fence w, w" ::: "memory");
    flag = k;
  }
  /* Code: run what hart 0 wrote, after fence.i; the old function stays translated in between. */
  for (uint64_t k = 1; k <= PATCHES; k++) {
    for (;;) {
      set_msip(1, 0);
      __asm__ volatile("fence" ::: "memory");
      if (patch_round == k) break;
      patch_result = call_code();
      __asm__ volatile("wfi");
    }
    __asm__ volatile("fence.i" ::: "memory");
    if (call_code() != k) patch_wrong++;
    patch_seen = k;
    set_msip(0, 1);
  }
  /* IPIs: hart 0 pings, hart 1 answers. */
  for (uint64_t k = 1; k <= PINGS; k++) {
    wait_ipi(1, &ping, k);
    pong = k;
    set_msip(0, 1);
  }
  hart1_done = 1;
  for (;;) __asm__ volatile("wfi"); /* not back to crt0, whose WFI loop would call hart1 again */
}

int main(void) {
  set_m_handler(record_m);
  code[0] = ADDI_A0_ZERO(0);
  code[1] = RET;
  __asm__ volatile("fence.i" ::: "memory");

  secondary_entry = hart1;
  set_msip(1, 1); /* out of crt0's WFI loop */

  start = 1;
  for (long k = 0; k < INCREMENTS; k++) {
    amo_add(&amo_counter);
    lrsc_add(&lrsc_counter);
    amo_add(&mixed_counter);
  }

  uint64_t wrong = 0, seen = 0;
  while (seen != MESSAGES) {
    const uint64_t f = flag;
    __asm__ volatile("fence r, r" ::: "memory");
    if (f && data[f] != f * 7 + 1) wrong++;
    seen = f;
  }
  CHECK(0, wrong);

  csr_set(mie, MIP_MSIP); /* WFI wakes on it; mstatus.MIE stays 0, so no trap is taken */
  for (uint64_t k = 1; k <= PATCHES; k++) {
    code[0] = ADDI_A0_ZERO(k);
    __asm__ volatile("fence w, w" ::: "memory");
    patch_round = k;
    set_msip(1, 1);
    wait_ipi(0, &patch_seen, k);
  }
  CHECK(0, patch_wrong);

  for (uint64_t k = 1; k <= PINGS; k++) {
    ping = k;
    set_msip(1, 1);
    wait_ipi(0, &pong, k);
  }
  while (!hart1_done) {
  }
  csr_clear(mie, MIP_MSIP);
  CHECK(2 * INCREMENTS, amo_counter);
  CHECK(2 * INCREMENTS, lrsc_counter);
  CHECK(2 * INCREMENTS, mixed_counter);
  return 0;
}
