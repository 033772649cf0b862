/* printf for the bench kernels built bare-metal (bench/ete-system): the format's text, with each
 * conversion printed as a hex number by tests/bare/puthex.h, through tests/bare/runtime.c's putstr. */
#include <stdarg.h>
#include <stdint.h>

#include "puthex.h"

int printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char c[2] = {0, 0};
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') {
      c[0] = *p;
      putstr(c);
      continue;
    }
    while (*p && *p != 'x' && *p != 'd' && *p != 'u') p++;
    if (!*p) break;
    puthex(va_arg(ap, unsigned long long));
  }
  va_end(ap);
  return 0;
}
