/* A device interrupt wakes a hart asleep in WFI (-smp 2; on host threads for jit and interp, in
 * turns for check): the UART's "transmitter empty" interrupt, routed by the PLIC to hart 1 alone,
 * alternately to its M context (mip.MEIP) and its S context (mip.SEIP). In each round hart 1
 * enables just that bit in mie (mstatus.MIE stays 0: WFI wakes without a trap), says it is ready
 * and sleeps in WFI until the bit is pending; hart 0 waits a while, so that hart 1 is asleep, then
 * sets the UART's IER. Hart 1 claims the source from its context, clears IER and completes it. A
 * lost wake-up leaves hart 1 asleep: hart 0 gives up after WAIT_TICKS and fails. Hart 1 has no trap
 * handling: it records what it saw, and hart 0 checks it. */
#include "bare.h"
#include "check.h"

#define ROUNDS 6
#define SLEEP_TICKS 50000ul  /* 5 ms at 10 MHz: hart 1 reaches its WFI meanwhile */
#define WAIT_TICKS 50000000ul /* 5 s */
#define PLIC_CTX_HART1_M 2
#define PLIC_CTX_HART1_S 3

static volatile uint64_t go, ready, done;
static volatile uint64_t claimed[ROUNDS + 1], wfis[ROUNDS + 1], hart0_ext[ROUNDS + 1];

static unsigned round_ctx(uint64_t r) { return r % 2 ? PLIC_CTX_HART1_M : PLIC_CTX_HART1_S; }
static uint64_t round_bit(uint64_t r) { return r % 2 ? MIP_MEIP : MIP_SEIP; }

static void hart1(void) {
  mmio_write32(CLINT_MSIP(1), 0);
  for (uint64_t r = 1; r <= ROUNDS; r++) {
    while (go != r) {
    }
    const uint64_t bit = round_bit(r);
    csr_write(mie, bit);
    __asm__ volatile("fence" ::: "memory");
    ready = r;
    uint64_t n = 0;
    while (!(csr_read(mip) & bit)) {
      __asm__ volatile("wfi");
      n++;
    }
    const uint32_t src = mmio_read32(PLIC_CLAIM(round_ctx(r)));
    mmio_write8(UART_IER, 0);
    mmio_write32(PLIC_CLAIM(round_ctx(r)), src);
    claimed[r] = src;
    wfis[r] = n;
    csr_write(mie, 0);
    __asm__ volatile("fence" ::: "memory");
    done = r;
  }
  for (;;) __asm__ volatile("wfi"); /* nothing enabled: not back to crt0, whose loop would call hart1 again */
}

static void wait_ticks(uint64_t ticks) {
  const uint64_t until = rdtime() + ticks;
  while (rdtime() < until) {
  }
}

int main(void) {
  mmio_write32(PLIC_PRIORITY(UART_IRQ), 1);
  for (unsigned ctx = 0; ctx < 4; ctx++) {
    mmio_write32(PLIC_THRESHOLD(ctx), 0);
    mmio_write32(PLIC_ENABLE(ctx), 0);
  }
  secondary_entry = hart1;
  mmio_write32(CLINT_MSIP(1), 1); /* out of crt0's WFI loop */

  uint64_t slept = 0;
  for (uint64_t r = 1; r <= ROUNDS; r++) {
    mmio_write32(PLIC_ENABLE(PLIC_CTX_HART1_M), 0);
    mmio_write32(PLIC_ENABLE(PLIC_CTX_HART1_S), 0);
    mmio_write32(PLIC_ENABLE(round_ctx(r)), 1u << UART_IRQ);
    __asm__ volatile("fence" ::: "memory");
    go = r;
    while (ready != r) {
    }
    wait_ticks(SLEEP_TICKS);
    mmio_write8(UART_IER, IER_ETBEI);
    hart0_ext[r] = csr_read(mip) & (MIP_MEIP | MIP_SEIP); /* hart 0's own lines stay low */
    const uint64_t give_up = rdtime() + WAIT_TICKS;
    while (done != r && rdtime() < give_up) {
    }
    mmio_write8(UART_IER, 0); /* so that a failed round does not keep the line up */
    CHECK(r, done);
    CHECK(UART_IRQ, claimed[r]);
    CHECK(0, hart0_ext[r]);
    slept += wfis[r] != 0;
  }
  /* Hart 1 may reach a WFI late, after the interrupt, on a busy host; but not every time. */
  CHECK(1, slept >= ROUNDS / 2);
  return 0;
}
