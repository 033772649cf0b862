/* puthex(v): "0x" and v's hex digits without leading zeros, through the including runtime's
 * putstr (tests/bare/runtime.c, tests/bare/rv32/runtime.c, tests/snitch/runtime.c,
 * tests/bare/flat_kernel.c). */
#ifndef BARE_PUTHEX_H
#define BARE_PUTHEX_H

#include <stdint.h>

void putstr(const char *s);

static void puthex(uint64_t v) {
  char buf[19];
  int n = 0, shift = 60;
  buf[n++] = '0';
  buf[n++] = 'x';
  while (shift > 0 && ((v >> shift) & 0xf) == 0) shift -= 4;
  for (; shift >= 0; shift -= 4) buf[n++] = "0123456789abcdef"[(v >> shift) & 0xf];
  buf[n] = 0;
  putstr(buf);
}

/* The tail of a failed CHECK's report: "check LINE: expected X got Y" and a newline. */
static inline void put_check(uint64_t line, uint64_t expected, uint64_t got) {
  putstr("check ");
  puthex(line);
  putstr(": expected ");
  puthex(expected);
  putstr(" got ");
  puthex(got);
  putstr("\n");
}

#endif
