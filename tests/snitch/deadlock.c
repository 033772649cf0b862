/* Every hart waits in wfi with no interrupt enabled: brisk must say so and stop, not hang. */
#include "snitch.h"

int main(unsigned hart) {
  (void)hart;
  for (;;) __asm__ volatile("wfi");
}
