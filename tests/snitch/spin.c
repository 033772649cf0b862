/* Every hart spins forever: only --timeout ends the run (status 124). */
#include "snitch.h"

int main(unsigned hart) {
  (void)hart;
  for (volatile unsigned i = 0;; i++) {
  }
}
