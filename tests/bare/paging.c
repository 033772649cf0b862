/* Sv39/Sv48/Sv57 (LEVELS = 3/4/5): S and U running under translation with 4 KiB pages, the top and
 * bottom of the address space, code run through an alias, non-canonical addresses, unmapped
 * addresses, and a leaf PTE naming memory that does not exist. */
#include "bare.h"
#include "check.h"

#if LEVELS == 3
#define VA_TOP 0x0000003ffffff000ul  /* the last page below the hole */
#define VA_BOTTOM 0xffffffc000000000ul /* the first page above it */
#define NONCANON 0x0000004000000000ul
#elif LEVELS == 4
#define VA_TOP 0x00007ffffffff000ul
#define VA_BOTTOM 0xffff800000000000ul
#define NONCANON 0x0000800000000000ul
#elif LEVELS == 5
#define VA_TOP 0x00fffffffffff000ul
#define VA_BOTTOM 0xff00000000000000ul
#define NONCANON 0x0100000000000000ul
#else
#error "LEVELS must be 3, 4 or 5"
#endif
#define NONCANON_HIGH 0x8000000000000000ul
#define VA_UNMAPPED (VA_TOP - 16 * PAGE_SIZE)
#define VA_NOWHERE (VA_TOP - 2 * PAGE_SIZE)      /* a valid PTE to a physical address with no memory */
#define VA_ALIAS (VA_BOTTOM + 0x200000ul)        /* two code pages, executable */
#define VA_EDGE (VA_BOTTOM + 0x400000ul)         /* an executable page with nothing after it */
#define VA_BADTABLE (VA_BOTTOM + 0x40000000ul)   /* its level-1 table is at a PA with no memory */

static uint64_t pages[4][512] __attribute__((aligned(4096)));

static uint64_t __attribute__((noinline)) leaf(uint64_t x) { return 3 * x + 1; }

static uint64_t s_body(uint64_t alias_leaf) {
  volatile uint64_t *top = (uint64_t *)VA_TOP, *bottom = (uint64_t *)VA_BOTTOM;
  *top = 0xabcd;
  CHECK(0xabcd, *top);
  CHECK(0x1111, *bottom);

  uint64_t pc = store64_at(VA_BOTTOM, 1); /* read-only */
  expect_s(CAUSE_STORE_PAGE, pc, VA_BOTTOM);
  CHECK(0x1111, *bottom);

  uint64_t v = 5;
  pc = load64_at(NONCANON, &v);
  expect_s(CAUSE_LOAD_PAGE, pc, NONCANON);
  pc = load64_at(NONCANON_HIGH, &v);
  expect_s(CAUSE_LOAD_PAGE, pc, NONCANON_HIGH);
  pc = store64_at(NONCANON + 8, 0);
  expect_s(CAUSE_STORE_PAGE, pc, NONCANON + 8);
  pc = load64_at(VA_UNMAPPED + 16, &v);
  expect_s(CAUSE_LOAD_PAGE, pc, VA_UNMAPPED + 16);
  CHECK(5, v);

  jump_to(NONCANON);
  expect_s(CAUSE_FETCH_PAGE, NONCANON, NONCANON);
  jump_to(VA_UNMAPPED);
  expect_s(CAUSE_FETCH_PAGE, VA_UNMAPPED, VA_UNMAPPED);
  jump_to(VA_TOP); /* mapped, but not executable */
  expect_s(CAUSE_FETCH_PAGE, VA_TOP, VA_TOP);

  /* The translation works, the access does not: an access fault, with the virtual address. */
  pc = load64_at(VA_NOWHERE + 8, &v);
  expect_s(CAUSE_LOAD_ACCESS, pc, VA_NOWHERE + 8);
  CHECK(5, v);
  /* So does a page-table walk that reaches for memory that is not there (supervisor.adoc,
     "Virtual Address Translation Process", step 2); QEMU 7.2 raises a page fault. */
  pc = load64_at(VA_BADTABLE, &v);
#ifdef QEMU_REF
  expect_s(CAUSE_LOAD_PAGE, pc, VA_BADTABLE);
#else
  expect_s(CAUSE_LOAD_ACCESS, pc, VA_BADTABLE);
#endif

  /* A 4-byte instruction whose second half is on an unmapped page: epc is the instruction,
     tval the part that faulted (machine.adoc, "mtval"). */
  jump_to(VA_EDGE + PAGE_SIZE - 2);
  expect_s(CAUSE_FETCH_PAGE, VA_EDGE + PAGE_SIZE - 2, VA_EDGE + PAGE_SIZE);
  /* Likewise a misaligned load that runs into the unmapped page. */
  v = 5;
  pc = load64_at(VA_EDGE + PAGE_SIZE - 4, &v);
  expect_s(CAUSE_LOAD_PAGE, pc, VA_EDGE + PAGE_SIZE);
  CHECK(5, v);

  return ((uint64_t(*)(uint64_t))alias_leaf)(20);
}

static uint64_t u_body(uint64_t unused) {
  (void)unused;
  volatile uint64_t *top = (uint64_t *)VA_TOP;
  CHECK(0x2222, *top);
  *top = 0x3333;
  uint64_t v = 0;
  uint64_t pc = load64_at(NONCANON, &v);
  expect_m(CAUSE_LOAD_PAGE, pc, NONCANON);
  return 77;
}

int main(void) {
  set_m_handler(record_m);
  set_s_handler(record_s);

  pt_init(LEVELS);
  pt_map_image(PTE_R | PTE_X | PTE_A, PTE_R | PTE_W | PTE_AD);
  pt_map(VA_TOP, (uint64_t)pages[0], 0, PTE_R | PTE_W | PTE_AD);
  pt_map(VA_BOTTOM, (uint64_t)pages[1], 0, PTE_R | PTE_A);
  pt_map(VA_NOWHERE, UNMAPPED_PA, 0, PTE_R | PTE_W | PTE_AD);
  /* addi a0, a0, 1 in the page's last two bytes and the (unmapped) next page's first two. */
  *(volatile uint16_t *)((uint64_t)pages[3] + PAGE_SIZE - 2) = 0x0513;
  pt_map(VA_EDGE, (uint64_t)pages[3], 0, PTE_R | PTE_X | PTE_A);
  *pt_map(VA_BADTABLE, 0, 1, 0) = (UNMAPPED_PA >> 12) << 10 | PTE_V;
  const uint64_t leaf_page = (uint64_t)leaf & ~(PAGE_SIZE - 1);
  pt_map(VA_ALIAS, leaf_page, 0, PTE_X | PTE_A);
  pt_map(VA_ALIAS + PAGE_SIZE, leaf_page + PAGE_SIZE, 0, PTE_X | PTE_A);
  vm_on();
  const uint64_t satp = csr_read(satp);
  CHECK(LEVELS + 5ul, satp >> 60); /* the mode is supported */
  csr_write(satp, 7ul << 60 | 1); /* a reserved mode: the whole write is ignored */
  CHECK(satp, csr_read(satp));

  pages[1][0] = 0x1111;
  csr_write(medeleg, 1ul << CAUSE_FETCH_PAGE | 1ul << CAUSE_LOAD_PAGE | 1ul << CAUSE_STORE_PAGE |
                         1ul << CAUSE_LOAD_ACCESS);
  CHECK(61, run_in(PRIV_S, s_body, VA_ALIAS + ((uint64_t)leaf - leaf_page)));
  CHECK(0, m_rec.count);
  CHECK(0xabcd, pages[0][0]);
  csr_write(medeleg, 0);

  /* U: everything a U page; its faults go to M. */
  pt_init(LEVELS);
  pt_map_image(PTE_R | PTE_X | PTE_U | PTE_A, PTE_R | PTE_W | PTE_U | PTE_AD);
  pt_map(VA_TOP, (uint64_t)pages[2], 0, PTE_R | PTE_W | PTE_U | PTE_AD);
  vm_on();
  pages[2][0] = 0x2222;
  CHECK(77, run_in(PRIV_U, u_body, 0));
  CHECK(0x3333, pages[2][0]);

  /* M itself is never translated. */
  CHECK(0x3333, *(volatile uint64_t *)pages[2]);
  vm_off();
  return 0;
}
