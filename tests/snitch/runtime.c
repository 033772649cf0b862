/* Console, exit and trap entry of the Snitch cluster tests (see snitch.h). */
#include "snitch.h"

#ifndef TEST_NAME
#error "compile with -DTEST_NAME=\"name\""
#endif

/* HTIF's mailbox, alone in its section (link.ld): brisk finds it by the symbol. */
volatile uint64_t tohost __attribute__((section(".tohost"), aligned(64)));
volatile trap_fn trap_handler;

/* A request is one 8-byte store, so that brisk never sees half of one: RV32 has no such integer
 * store, D's fsd is one. */
static void htif_request(uint64_t request) {
  while (tohost) {
  }
  __asm__ volatile("fld ft0, %1\n\tfsd ft0, %0" : "=m"(tohost) : "m"(request) : "ft0", "memory");
}

static void htif_putc(char c) { htif_request(1ull << 56 | 1ull << 48 | (uint8_t)c); }

void putstr(const char *s) {
  while (*s) htif_putc(*s++);
}

#include "puthex.h" /* tests/bare */

void snitch_exit(int code) {
  if (code == 0) putstr("PASS " TEST_NAME "\n");
  htif_request((uint64_t)code << 1 | 1);
  for (;;) {
  }
}

/* CHECK's report: "FAIL <test>: hart <h> check <line>: expected 0x.. got 0x..", then status 1. */
void bare_fail(uint64_t line, uint64_t expected, uint64_t got) {
  putstr("FAIL " TEST_NAME ": hart ");
  puthex(csr_read(mhartid));
  putstr(" ");
  put_check(line, expected, got);
  snitch_exit(1);
}

/* GCC saves what the handler uses and returns with mret. */
__attribute__((interrupt("machine"), aligned(4))) void trap_entry(void) {
  const uint64_t cause = csr_read(mcause), epc = csr_read(mepc);
  if (!trap_handler) {
    putstr("FAIL " TEST_NAME ": unexpected trap, mcause ");
    puthex(cause);
    putstr(" mepc ");
    puthex(epc);
    putstr("\n");
    snitch_exit(1);
  }
  csr_write(mepc, trap_handler(cause, epc));
}
