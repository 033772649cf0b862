/* Sv39 superpages: code and data through 1 GiB and 2 MiB pages, misaligned superpages (page
 * fault), and sfence.vma after a PTE changes, for 4 KiB pages and for a 2 MiB page fenced by an
 * address inside it other than the one first used. */
#include "bare.h"
#include "check.h"

#define REGION_X (RAM_BASE + (16ul << 20)) /* two 2 MiB-aligned stretches of RAM */
#define REGION_Y (RAM_BASE + (18ul << 20))
#define VA_GIGA 0x40000000ul             /* -> RAM_BASE, 1 GiB */
#define VA_GIGA_TOP 0xffffffffc0000000ul /* -> RAM_BASE, 1 GiB */
#define VA_GIGA_BAD 0x0ul                /* 1 GiB page on a 2 MiB-aligned address */
#define VA_MEGA 0xc0000000ul             /* -> REGION_X, 2 MiB */
#define VA_MEGA_BAD 0xc0200000ul         /* 2 MiB page on a 4 KiB-aligned address */
#define VA_SMALL 0xc0400000ul            /* 4 KiB */

static uint64_t *mega_pte, *small_pte;

static uint64_t at(uint64_t a) { return *(volatile uint64_t *)a; }

static void load_faults(uint64_t va) {
  uint64_t v = 0;
  uint64_t pc = load64_at(va, &v);
  expect_s(CAUSE_LOAD_PAGE, pc, va);
}

static uint64_t s_body(uint64_t unused) {
  (void)unused;
  CHECK(0x11, at(VA_GIGA + (REGION_X - RAM_BASE)));
  CHECK(0x22, at(VA_GIGA + (REGION_Y - RAM_BASE) + 0x1008));
  CHECK(0x11, at(VA_GIGA_TOP + (REGION_X - RAM_BASE)));
  CHECK(0x11, at(VA_MEGA));
  CHECK(0x12, at(VA_MEGA + 0x1000));
  load_faults(VA_GIGA_BAD + 0x1000);
  load_faults(VA_MEGA_BAD);
  uint64_t pc = store64_at(VA_MEGA_BAD + 0x10, 1);
  expect_s(CAUSE_STORE_PAGE, pc, VA_MEGA_BAD + 0x10);

  /* A 4 KiB PTE rewritten, then fenced by its address, then by sfence.vma x0. */
  CHECK(0x11, at(VA_SMALL));
  *small_pte = (REGION_Y >> 12) << 10 | PTE_V | PTE_R | PTE_A;
  __asm__ volatile("sfence.vma %0" ::"r"(VA_SMALL) : "memory");
  CHECK(0x21, at(VA_SMALL));
  *small_pte = (REGION_X >> 12) << 10 | PTE_V | PTE_R | PTE_A;
  sfence_vma();
  CHECK(0x11, at(VA_SMALL));

  /* The 2 MiB page moved; a fence naming any address inside it covers the whole mapping
     (supervisor.adoc, SFENCE.VMA: "rs1 can specify a virtual address within that mapping"). */
  CHECK(0x12, at(VA_MEGA + 0x1000));
  *mega_pte = (REGION_Y >> 12) << 10 | PTE_V | PTE_R | PTE_A;
  __asm__ volatile("sfence.vma %0" ::"r"(VA_MEGA) : "memory");
  CHECK(0x21, at(VA_MEGA));
  CHECK(0x22, at(VA_MEGA + 0x1000));
  return 0;
}

int main(void) {
  set_s_handler(record_s);
  csr_write(medeleg, 1ul << CAUSE_LOAD_PAGE | 1ul << CAUSE_STORE_PAGE);
  *(volatile uint64_t *)REGION_X = 0x11;
  *(volatile uint64_t *)(REGION_X + 0x1000) = 0x12;
  *(volatile uint64_t *)REGION_Y = 0x21;
  *(volatile uint64_t *)(REGION_Y + 0x1000) = 0x22;
  *(volatile uint64_t *)(REGION_Y + 0x1008) = 0x22;

  pt_init(3);
  pt_map(RAM_BASE, RAM_BASE, 2, PTE_RWX | PTE_AD); /* the program itself: one 1 GiB page */
  pt_map(VA_GIGA, RAM_BASE, 2, PTE_R | PTE_AD);
  pt_map(VA_GIGA_TOP, RAM_BASE, 2, PTE_R | PTE_AD);
  pt_map(VA_GIGA_BAD, RAM_BASE + MEGAPAGE, 2, PTE_R | PTE_AD);
  mega_pte = pt_map(VA_MEGA, REGION_X, 1, PTE_R | PTE_A);
  pt_map(VA_MEGA_BAD, REGION_X + PAGE_SIZE, 1, PTE_R | PTE_W | PTE_AD);
  small_pte = pt_map(VA_SMALL, REGION_X, 0, PTE_R | PTE_A);
  vm_on();
  run_in(PRIV_S, s_body, 0);
  vm_off();
  return 0;
}
