/* A fetch from where nothing answers is one TLB miss (event 0x10, csr/pmu.h). The JIT counted two: after
 * a direct jump's failed lookup of its target (JitEngine::run, kExitLink) it fetched again before taking
 * the trap. */
#include "bare.h"
#include "check.h"

int main(void) {
  set_m_handler(record_m);
  csr_write(mcountinhibit, 0);
  csr_write(mhpmevent3, 0x10);
  for (int i = 0; i < 2; i++) {
    /* The first round brings the pages of the jump, the handler and its stack into the TLB. */
    csr_write(mhpmcounter3, 0);
    jump_to(UNMAPPED_PA);
    uint64_t misses = csr_read(mhpmcounter3);
    expect_m(CAUSE_FETCH_ACCESS, UNMAPPED_PA, UNMAPPED_PA);
    if (i == 1) CHECK(1, misses);
  }
  return 0;
}
