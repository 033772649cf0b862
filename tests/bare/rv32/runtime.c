/* Trap recording, console and exit of the RV32 bare-metal tests (rv32.h). */
#include "rv32.h"

#include "../check.h"

#ifndef TEST_NAME
#error "compile with -DTEST_NAME=\"name\""
#endif

#define UART_BASE 0x10000000u
#define UART_LSR 5
#define LSR_THRE 0x20
#define TEST_FINISHER 0x100000u

extern volatile uint64_t tohost;
volatile struct trap_rec m_rec;
volatile uint32_t resume_at;

void clear_recs(void) {
  m_rec.count = m_rec.cause = m_rec.epc = m_rec.tval = 0;
  resume_at = 0;
}

static void putc_uart(char c) {
  while (!(*(volatile uint8_t *)(UART_BASE + UART_LSR) & LSR_THRE)) {
  }
  *(volatile uint8_t *)UART_BASE = (uint8_t)c;
}

void putstr(const char *s) {
  while (*s) putc_uart(*s++);
}

#include "../puthex.h"

void bare_exit(int code) {
  if (code == 0) putstr("PASS " TEST_NAME "\n");
  tohost = ((uint64_t)code << 1) | 1;  /* brisk's HTIF; QEMU virt stops at the finisher below */
  for (volatile uint32_t i = 0; i < 2000000; i++) {
  }
  mmio_write32(TEST_FINISHER, code ? ((uint32_t)code << 16) | 0x3333 : 0x5555);
  for (;;) __asm__ volatile("wfi");
}

/* Checks run in M-mode only, so a failure reports directly (M's own accesses: MPRV off). */
void bare_fail(uint64_t line, uint64_t expected, uint64_t got) {
  csr_clear(mstatus, MSTATUS_MPRV);
  putstr("FAIL " TEST_NAME ": ");
  put_check(line, expected, got);
  bare_exit(1);
}

void rv32_trap(void) {
  const uint32_t cause = csr_read(mcause), epc = csr_read(mepc);
  m_rec.count++;
  m_rec.cause = cause;
  m_rec.epc = epc;
  m_rec.tval = csr_read(mtval);
  /* mret leaves MPRV set with MPP = U: the code after a trap gets M's own accesses back. */
  csr_clear(mstatus, MSTATUS_MPRV);
  if (cause & CAUSE_INTERRUPT) {
    if ((cause & ~CAUSE_INTERRUPT) == IRQ_MSI) mmio_write32(CLINT_MSIP0, 0);
    return;
  }
  if (resume_at) {
    csr_write(mepc, resume_at);
    resume_at = 0;
    return;
  }
  /* The trapping instruction's length: MPP is M in the handler, so even with MPRV this reads M's view. */
  const uint16_t lo = *(volatile uint16_t *)epc;
  csr_write(mepc, epc + ((lo & 3) == 3 ? 4 : 2));
}
