/* HTIF alone (brisk and spike, not QEMU virt): characters through the console device and the
 * exit through tohost, with no UART and no finisher. CTest matches the text. */
#include "bare.h"
#include "check.h"

extern volatile uint64_t tohost;

static void htif_putc(char c) {
  while (tohost) {
  }
  tohost = 1ul << 56 | 1ul << 48 | (uint8_t)c;
}

int main(void) {
  for (const char *s = "htif: console works\n"; *s; s++) htif_putc(*s);
  while (tohost) {
  }
  tohost = 1; /* exit code 0 */
  for (;;) {
  }
}
