/* Loads and stores that the inline software-TLB probe of translated code misses run out of line
 * through one shared access thunk (jit/x64/translator.cpp, Trampolines::access): every size,
 * signed and unsigned, integer and FP, in one straight-line block right after sfence.vma emptied
 * the TLBs, each to a page of its own so that each misses. Their values, and instret across the
 * block (the thunk takes back the pending count it added), must be exact, the second time the
 * translated block runs too; so must a load and a store that fault in such a block under Sv39. */
#include "bare.h"
#include "check.h"

#define MSTATUS_FS_DIRTY (3ul << 13)
#define PAGES 15
#define VA_UNMAPPED 0x10000000ul

static uint8_t pages[PAGES][PAGE_SIZE] __attribute__((aligned(4096)));

/* The next page of t2 (t0 = the page size), between the accesses. */
#define NEXT "add t2, t2, t0\n"

/* Runs the block with t2 = pages; v[] gets the loaded values, and the result is instret's step
 * across the block (the 29 instructions between the reads and the first read). */
static uint64_t run_block(uint64_t v[9]) {
  uint64_t before, after;
  __asm__ volatile(
      "mv t2, %[p]\n li t0, 4096\n"
      "sfence.vma\n"
      "csrr %[before], instret\n"
      "lb a0, 1(t2)\n" NEXT "lbu a1, 1(t2)\n" NEXT "lh a2, 2(t2)\n" NEXT "lhu a3, 2(t2)\n" NEXT
      "lw a4, 4(t2)\n" NEXT "lwu a5, 4(t2)\n" NEXT "ld a6, 8(t2)\n" NEXT "flw fa0, 4(t2)\n" NEXT
      "fld fa1, 8(t2)\n" NEXT "sb a0, 1(t2)\n" NEXT "sh a2, 2(t2)\n" NEXT "sw a4, 4(t2)\n" NEXT
      "sd a6, 8(t2)\n" NEXT "fsw fa0, 4(t2)\n" NEXT "fsd fa1, 8(t2)\n"
      "csrr %[after], instret\n"
      "sd a0, 0(%[v])\n sd a1, 8(%[v])\n sd a2, 16(%[v])\n sd a3, 24(%[v])\n sd a4, 32(%[v])\n"
      "sd a5, 40(%[v])\n sd a6, 48(%[v])\n fmv.x.d t0, fa0\n sd t0, 56(%[v])\n fsd fa1, 64(%[v])\n"
      : [before] "=&r"(before), [after] "=&r"(after)
      : [p] "r"(pages), [v] "r"(v)
      : "t0", "t2", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "fa0", "fa1", "memory");
  return after - before;
}

static uint64_t at(unsigned page, unsigned off, unsigned size) {
  uint64_t x = 0;
  for (unsigned k = 0; k < size; k++) x |= (uint64_t)pages[page][off + k] << (8 * k);
  return x;
}

/* A load, then a store, that miss and fault, each after instructions the block has not counted yet. */
static uint64_t s_faults(uint64_t read_only) {
  uint64_t pc, v = 5;
  __asm__ volatile(".option push\n.option norvc\n sfence.vma\n addi %1, %1, 1\n addi %1, %1, 1\n la %0, 1f\n"
                   "1: ld %1, 0(%2)\n addi %1, %1, 1\n.option pop"
                   : "=&r"(pc), "+r"(v) : "r"(VA_UNMAPPED) : "memory");
  expect_s(CAUSE_LOAD_PAGE, pc, VA_UNMAPPED);
  CHECK(8, v); /* the load left v as it was */
  __asm__ volatile(".option push\n.option norvc\n sfence.vma\n addi %1, %1, 1\n la %0, 1f\n"
                   "1: sd %1, 8(%2)\n addi %1, %1, 1\n.option pop"
                   : "=&r"(pc), "+r"(v) : "r"(read_only) : "memory");
  expect_s(CAUSE_STORE_PAGE, pc, read_only + 8);
  CHECK(10, v);
  return 1;
}

int main(void) {
  set_m_handler(record_m);
  set_s_handler(record_s);
  csr_set(mstatus, MSTATUS_FS_DIRTY); /* so that FP loads and stores are inline too */

  for (int round = 0; round < 2; round++) {
    for (unsigned p = 0; p < PAGES; p++)
      for (unsigned k = 0; k < 16; k++) pages[p][k] = p < 9 ? 0xf0 + k : 0;
    uint64_t v[9];
#ifndef QEMU_REF /* QEMU 7.2 without -icount counts host ticks */
    CHECK(30, run_block(v));
#else
    run_block(v);
#endif
    CHECK(-15, v[0]);                    /* lb 0xf1 */
    CHECK(0xf1, v[1]);                   /* lbu */
    CHECK(0xfffffffffffff3f2ul, v[2]);   /* lh */
    CHECK(0xf3f2, v[3]);                 /* lhu */
    CHECK(0xfffffffff7f6f5f4ul, v[4]);   /* lw */
    CHECK(0xf7f6f5f4, v[5]);             /* lwu */
    CHECK(0xfffefdfcfbfaf9f8ul, v[6]);   /* ld */
    CHECK(0xfffffffff7f6f5f4ul, v[7]);   /* flw, NaN-boxed */
    CHECK(0xfffefdfcfbfaf9f8ul, v[8]);   /* fld */
    CHECK(0xf1, at(9, 1, 1));            /* sb */
    CHECK(0xf3f2, at(10, 2, 2));         /* sh */
    CHECK(0xf7f6f5f4, at(11, 4, 4));     /* sw */
    CHECK(0xfffefdfcfbfaf9f8ul, at(12, 8, 8)); /* sd */
    CHECK(0xf7f6f5f4, at(13, 4, 4));     /* fsw */
    CHECK(0xfffefdfcfbfaf9f8ul, at(14, 8, 8)); /* fsd */
    CHECK(0, at(9, 0, 1) | at(10, 0, 2) | at(11, 0, 4) | at(12, 0, 8) | at(13, 0, 4) | at(14, 0, 8));
  }

  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A, PTE_R | PTE_W | PTE_AD);
  pt_map((uint64_t)pages[0] + VA_UNMAPPED * 2, (uint64_t)pages[0], 0, PTE_R | PTE_A);
  vm_on();
  csr_write(medeleg, 1ul << CAUSE_LOAD_PAGE | 1ul << CAUSE_STORE_PAGE);
  CHECK(1, run_in(PRIV_S, s_faults, (uint64_t)pages[0] + VA_UNMAPPED * 2));
  csr_write(medeleg, 0);
  vm_off();
  CHECK(0, m_rec.count);
  return 0;
}
