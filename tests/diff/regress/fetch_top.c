/* A jump to the last page of the address space, where nothing answers, raises an instruction access
 * fault. The JIT used to hang there: block_for (runtime/jit_engine.cpp) walked the pages of the faulting
 * block until the page address, which wrapped past 2^64, reached the block's end. */
#include "bare.h"
#include "check.h"

int main(void) {
  set_m_handler(record_m);
  const uint64_t targets[] = {0xfffffffffffff010ul, 0xfffffffffffffffcul};
  for (int i = 0; i < 2; i++) {
    jump_to(targets[i]);
    expect_m(CAUSE_FETCH_ACCESS, targets[i], targets[i]);
  }
  return 0;
}
