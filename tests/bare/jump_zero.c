/* A jump to address 0 faults where nothing is there: an instruction access fault in M and in S
 * without paging, an instruction page fault in S when 0 is unmapped; the trap handler sees
 * mepc = mtval = 0. (It must never run through an empty slot of the JIT's indirect-jump table,
 * whose pc once read as 0.) */
#include "bare.h"
#include "check.h"

static uint64_t jump_zero(uint64_t unused) {
  (void)unused;
  jump_to(0);
  return 0;
}

int main(void) {
  set_m_handler(record_m);
  for (int k = 0; k < 3; k++) { /* the first jump, and those after the table has entries */
    jump_to(0);
    expect_m(CAUSE_FETCH_ACCESS, 0, 0);
  }
  run_in(PRIV_S, jump_zero, 0);
  expect_m(CAUSE_FETCH_ACCESS, 0, 0);

  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A, PTE_R | PTE_W | PTE_AD);
  vm_on();
  run_in(PRIV_S, jump_zero, 0);
  expect_m(CAUSE_FETCH_PAGE, 0, 0);
  vm_off();
  return 0;
}
