/* A TLB-miss counter (event 0x10, csr/pmu.h) at 1 has 2^64 - 1 events left before it wraps.
 * next_overflow (csr/pmu.cpp) halved that room as (left + 1) / 2, which wrapped to 0 instructions, and
 * the JIT spun at its deadline forever. The same for page walks (0x0f).
 * Loads and stores to a page the TLB holds miss nothing: the interpreter used to count every access
 * as a miss (SystemMemory::access_one, runtime/mmu.cpp). */
#include "bare.h"
#include "check.h"

static volatile uint64_t cell;

int main(void) {
  const uint64_t events[] = {0x10, 0x0f};
  csr_write(mcountinhibit, 0);
  cell = cell; /* cell's page is in the TLB for loads and stores from here on */
  for (int i = 0; i < 2; i++) {
    csr_write(mhpmevent3, events[i]);
    csr_write(mhpmcounter3, 1);
    for (int k = 0; k < 100; k++) cell += (uint64_t)k;
    /* No page walks without paging, and no TLB misses from loads and stores to a page already in use. */
    CHECK(1, csr_read(mhpmcounter3));
  }
  CHECK(4950 * 2, cell);
  return 0;
}
