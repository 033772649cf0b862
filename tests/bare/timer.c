/* Time and timers: time advances and agrees with the CLINT's mtime, which M may write; Sstc's
 * stimecmp raises STIP and a supervisor timer interrupt in S; WFI returns once a locally enabled
 * interrupt is pending even with interrupts globally disabled (in M and in S), and retires like
 * any instruction. */
#include "bare.h"
#include "check.h"

#define TICKS_PER_MS 10000 /* 10 MHz */

static volatile uint64_t s_timer_irqs, s_timer_time;

static void s_timer(struct frame *f) {
  CHECK(CAUSE_INTERRUPT | IRQ_STI, f->cause);
  s_timer_time = rdtime();
  csr_write(stimecmp, ~0ul);
  s_timer_irqs++;
}

static void time_advances(void) {
  uint64_t t0 = rdtime();
  uint64_t m = mmio_read64(CLINT_MTIME);
  uint64_t t1 = rdtime();
  CHECK(1, t0 <= m && m <= t1);
  uint64_t deadline = t0 + TICKS_PER_MS * 1000;
  while (rdtime() == t1 && rdtime() < deadline) {
  }
  CHECK(1, rdtime() > t1);
  /* Two 32-bit halves read the same 64-bit mtime. */
  uint64_t lo = mmio_read32(CLINT_MTIME), hi = mmio_read32(CLINT_MTIME + 4);
  CHECK(1, (hi << 32 | lo) >= m);
}

/* Sets stimecmp a little ahead, waits with SIE set; returns the time stimecmp was set for. */
static uint64_t s_wait_timer(uint64_t unused) {
  (void)unused;
  /* Far enough ahead that a loaded host cannot pass it before the check below (QEMU's time is the host's). */
  uint64_t when = rdtime() + TICKS_PER_MS * 100;
  csr_write(stimecmp, when);
  CHECK(0, csr_read(sip) & MIP_STIP);
  csr_set(sstatus, MSTATUS_SIE);
  /* Bounded for when the interrupt never comes, generously: a loaded host can take seconds. */
  while (!s_timer_irqs && rdtime() < when + TICKS_PER_MS * 30000) {
  }
  csr_clear(sstatus, MSTATUS_SIE);
  CHECK(1, s_timer_irqs);
  CHECK(0, csr_read(sip) & MIP_STIP);
  return when;
}

static uint64_t s_read_stimecmp(uint64_t unused) {
  (void)unused;
  return AT("csrr t0, stimecmp");
}

/* WFI in S with the timer enabled in sie but SIE clear: it returns with STIP pending, untaken. */
static uint64_t s_wfi(uint64_t unused) {
  (void)unused;
  uint64_t when = rdtime() + TICKS_PER_MS / 2;
  csr_write(stimecmp, when);
  __asm__ volatile("wfi" ::: "memory");
  uint64_t pending = csr_read(sip) & MIP_STIP;
  csr_write(stimecmp, ~0ul);
  CHECK(0, s_timer_irqs);
  return pending;
}

static void sstc(void) {
  csr_set(menvcfg, MENVCFG_STCE);
  CHECK(MENVCFG_STCE, csr_read(menvcfg) & MENVCFG_STCE);
  /* STIP follows stimecmp, whatever M writes to mip. */
  csr_write(stimecmp, 0);
  CHECK(MIP_STIP, csr_read(mip) & MIP_STIP);
  csr_clear(mip, MIP_STIP);
  CHECK(MIP_STIP, csr_read(mip) & MIP_STIP);
  csr_write(stimecmp, ~0ul);
  CHECK(0, csr_read(mip) & MIP_STIP);
  csr_set(mip, MIP_STIP);
  CHECK(0, csr_read(mip) & MIP_STIP);

  /* S may use stimecmp only with mcounteren.TM. */
  set_m_handler(record_m);
  csr_write(mcounteren, 0);
  uint64_t pc = run_in(PRIV_S, s_read_stimecmp, 0);
  expect_m(CAUSE_ILLEGAL, pc, *(volatile uint32_t *)pc);
  csr_write(mcounteren, 2);
  run_in(PRIV_S, s_read_stimecmp, 0);
  CHECK(0, m_rec.count);

  set_s_handler(s_timer);
  csr_write(mideleg, MIP_STIP);
  csr_write(mie, MIP_STIP);
  uint64_t when = run_in(PRIV_S, s_wait_timer, 0);
  CHECK(1, s_timer_time >= when);

  s_timer_irqs = 0;
  CHECK(MIP_STIP, run_in(PRIV_S, s_wfi, 0));
  CHECK(0, s_timer_irqs);
  CHECK(0, m_rec.count);

  /* Without STCE, S may not touch stimecmp at all. */
  csr_clear(menvcfg, MENVCFG_STCE);
  pc = run_in(PRIV_S, s_read_stimecmp, 0);
  expect_m(CAUSE_ILLEGAL, pc, *(volatile uint32_t *)pc);
  csr_write(mie, 0);
  csr_write(mideleg, 0);
  csr_write(mcounteren, 0);
}

/* WFI in M with MIE clear and MTIE set: it waits for the timer, then goes on without a trap. */
static void wfi_m(void) {
  set_m_handler(record_m);
  csr_clear(mstatus, MSTATUS_MIE);
  csr_write(mie, MIP_MTIP);
  const uint64_t when = mmio_read64(CLINT_MTIME) + TICKS_PER_MS / 2;
  mmio_write64(CLINT_MTIMECMP(0), when);
  uint64_t i0, i1, c0, c1;
  __asm__ volatile("csrr %0, instret\n csrr %1, cycle\n wfi\n csrr %2, instret\n csrr %3, cycle"
                   : "=&r"(i0), "=&r"(c0), "=&r"(i1), "=&r"(c1)::"memory");
  CHECK(MIP_MTIP, csr_read(mip) & MIP_MTIP);
  CHECK(1, rdtime() >= when);
  CHECK(0, m_rec.count);
#ifndef QEMU_REF /* QEMU 7.2 without -icount counts host ticks in instret */
  /* A csrr reads the count before its own retirement: i1 - i0 covers two csrr and the wfi. */
  CHECK(3, i1 - i0);
  CHECK(3, c1 - c0); /* one cycle per retired instruction, wfi's wait none */
#endif
  CHECK(1, c1 - c0 >= 3);
  mmio_write64(CLINT_MTIMECMP(0), ~0ul);
  csr_write(mie, 0);
}

/* mtime is a read-write register (machine.adoc, "Machine Timer Registers"); time follows it. */
static void mtime_write(void) {
  const uint64_t later = mmio_read64(CLINT_MTIME) + TICKS_PER_MS * 10000ul;
  mmio_write64(CLINT_MTIME, later);
  uint64_t m = mmio_read64(CLINT_MTIME);
  CHECK(1, m >= later && m < later + TICKS_PER_MS * 1000);
  CHECK(1, rdtime() >= later);
}

int main(void) {
  time_advances();
  sstc();
  wfi_m();
  mtime_write();
  return 0;
}
