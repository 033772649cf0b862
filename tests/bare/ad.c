/* Accessed and dirty bits under Sv39. brisk implements Svade: a clear A, or a clear D on a store,
 * raises a page fault, and the access succeeds once the handler has set the bit and fenced.
 * QEMU 7.2 sets them in hardware instead (the reference build checks that). */
#include "bare.h"
#include "check.h"

#define VA_DATA 0x40000000ul
#define VA_CODE 0x40200000ul

static uint64_t page[512] __attribute__((aligned(4096)));
static uint64_t *volatile pte; /* the PTE that the fault handler repairs */
static volatile uint64_t faults, fault_cause, fault_tval;

/* Sets A (and D for a store fault) and retries the access. */
static void s_fix_ad(struct frame *f) {
  CHECK(1, f->cause == CAUSE_LOAD_PAGE || f->cause == CAUSE_STORE_PAGE || f->cause == CAUSE_FETCH_PAGE);
  faults++;
  fault_cause = f->cause;
  fault_tval = f->tval;
  *pte |= PTE_A | (f->cause == CAUSE_STORE_PAGE ? PTE_D : 0);
  sfence_vma();
}

static uint64_t s_load(uint64_t va) { return *(volatile uint64_t *)va; }
static uint64_t s_store(uint64_t va) {
  *(volatile uint64_t *)va = 0x5a5a;
  return *(volatile uint64_t *)va;
}
static uint64_t s_call(uint64_t fn) { return ((uint64_t(*)(uint64_t))fn)(4); }
static uint64_t __attribute__((noinline)) twice(uint64_t x) { return 2 * x; }

/* Runs fn in S against a PTE that starts as `flags`; checks the fault (if Svade) and the bits. */
static void expect_ad(uint64_t (*fn)(uint64_t), uint64_t arg, uint64_t flags, uint64_t cause, uint64_t va,
                      uint64_t result, uint64_t bits_after) {
  *pte = (*pte & ~(PTE_A | PTE_D | 0x3ff)) | flags | PTE_V;
  sfence_vma();
  faults = 0;
  CHECK(result, run_in(PRIV_S, fn, arg));
#ifdef QEMU_REF
  (void)cause;
  (void)va;
  CHECK(0, faults);
#else
  CHECK(1, faults);
  CHECK(cause, fault_cause);
  CHECK(va, fault_tval);
#endif
  CHECK(bits_after, *pte & (PTE_A | PTE_D));
}

int main(void) {
  set_s_handler(s_fix_ad);
  csr_write(medeleg, 1ul << CAUSE_FETCH_PAGE | 1ul << CAUSE_LOAD_PAGE | 1ul << CAUSE_STORE_PAGE);
  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A, PTE_R | PTE_W | PTE_AD);
  pte = pt_map(VA_DATA, (uint64_t)page, 0, 0);
  vm_on();

  page[0] = 0x77;
  /* A clear: a load faults; D stays clear. */
  expect_ad(s_load, VA_DATA, PTE_R | PTE_W, CAUSE_LOAD_PAGE, VA_DATA, 0x77, PTE_A);
  /* D clear: a store faults once; the retry stores. */
  expect_ad(s_store, VA_DATA + 8, PTE_R | PTE_W | PTE_A, CAUSE_STORE_PAGE, VA_DATA + 8, 0x5a5a, PTE_A | PTE_D);
  CHECK(0x5a5a, page[1]);
  /* Both clear, a store: one store page fault sets both. */
  expect_ad(s_store, VA_DATA + 16, PTE_R | PTE_W, CAUSE_STORE_PAGE, VA_DATA + 16, 0x5a5a, PTE_A | PTE_D);
  /* Loads with A set and D clear need nothing. */
  *pte = (*pte & ~PTE_D) | PTE_A;
  sfence_vma();
  faults = 0;
  CHECK(0x77, run_in(PRIV_S, s_load, VA_DATA));
  CHECK(0, faults);
  CHECK(PTE_A, *pte & (PTE_A | PTE_D));

  /* Fetch from a code page with A clear. */
  const uint64_t code = (uint64_t)twice & ~(PAGE_SIZE - 1);
  pte = pt_map(VA_CODE, code, 0, 0);
  pt_map(VA_CODE + PAGE_SIZE, code + PAGE_SIZE, 0, PTE_X | PTE_A);
  const uint64_t fn = VA_CODE + ((uint64_t)twice - code);
  expect_ad(s_call, fn, PTE_X, CAUSE_FETCH_PAGE, fn, 8, PTE_A);

  vm_off();
  return 0;
}
