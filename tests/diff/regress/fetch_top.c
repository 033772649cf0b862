/* Code in the last page of the address space (Sv39 maps it: the address is canonical) runs, and a jump to
 * where nothing answers there raises an access fault. The JIT used to hang on both: block_for
 * (runtime/jit_engine.cpp) walked the pages of a block until the page address, which wrapped past 2^64,
 * reached the block's end. */
#include "bare.h"
#include "check.h"

#define VA_LAST 0xfffffffffffff000ul

static uint64_t __attribute__((noinline, aligned(4096))) top_leaf(uint64_t x) { return 3 * x + 1; }

int main(void) {
  set_m_handler(record_m);
  const uint64_t nowhere[] = {0xfffffffffffff010ul, 0xfffffffffffffffcul};
  for (int i = 0; i < 2; i++) {
    jump_to(nowhere[i]);
    expect_m(CAUSE_FETCH_ACCESS, nowhere[i], nowhere[i]);
  }

  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A, PTE_R | PTE_W | PTE_AD);
  pt_map(VA_LAST, (uint64_t)top_leaf, 0, PTE_R | PTE_X | PTE_A);
  vm_on();
  for (int i = 0; i < 2; i++) CHECK(61, run_in(PRIV_S, (uint64_t(*)(uint64_t))VA_LAST, 20));
  vm_off();
  return 0;
}
