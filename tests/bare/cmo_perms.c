/* The access rules of the CMO instructions under Sv39 (the CMO chapter, "Cache-Block Management
 * Instructions"): cbo.clean, cbo.flush and cbo.inval may access a block wherever a load or a store
 * may, so a read-only page is enough; where neither may, they raise a store page fault, or a store
 * access fault where no memory is. cbo.zero is a store and needs write permission. (QEMU 7.2 lacks
 * Zicbo*.) */
#include "bare.h"
#include "check.h"

#define CBIE_INVAL (3ul << 4)
#define CBCFE (1ul << 6)
#define CBZE (1ul << 7)

#define VA(n) (0x40000000ul + (n) * PAGE_SIZE)
#define VA_R VA(0)     /* read-only */
#define VA_RW VA(1)
#define VA_NONE VA(2)  /* V but not R/W/X at the last level */
#define VA_U VA(3)     /* a U page, for S without SUM */
#define NO_MEMORY 0x100000000000ul /* an M-mode physical address with nothing behind it */

static uint64_t data[512] __attribute__((aligned(4096)));

/* Runs `insn (va)` and returns the instruction's address. */
#define CBO(insn, va)                                                                    \
  ({                                                                                     \
    uint64_t pc_;                                                                        \
    __asm__ volatile(".option push\n.option norvc\n.option arch, +zicbom, +zicboz\n"    \
                     "la %0, 1f\n1: " insn " (%1)\n.option pop"                        \
                     : "=&r"(pc_) : "r"(va) : "memory");                                 \
    pc_;                                                                                 \
  })

static void manage_ok(uint64_t va) {
  clear_recs();
  CBO("cbo.clean", va);
  CBO("cbo.flush", va);
  CBO("cbo.inval", va);
  CHECK(0, s_rec.count);
  CHECK(0, m_rec.count);
}

/* Each management instruction faults alone, with the store's cause. */
static void manage_faults(uint64_t va, int in_s, uint64_t cause) {
  uint64_t pc;
  pc = CBO("cbo.clean", va);
  if (in_s) expect_s(cause, pc, va); else expect_m(cause, pc, va);
  pc = CBO("cbo.flush", va);
  if (in_s) expect_s(cause, pc, va); else expect_m(cause, pc, va);
  pc = CBO("cbo.inval", va);
  if (in_s) expect_s(cause, pc, va); else expect_m(cause, pc, va);
}

static uint64_t s_body(uint64_t unused) {
  (void)unused;
  manage_ok(VA_R);
  manage_ok(VA_RW + 64);
  clear_recs();
  uint64_t pc = CBO("cbo.zero", VA_R);
  expect_s(CAUSE_STORE_PAGE, pc, VA_R);
  CHECK(0x1234, data[0]);
  manage_faults(VA_NONE, 1, CAUSE_STORE_PAGE);
  manage_faults(VA_U, 1, CAUSE_STORE_PAGE);
  csr_set(sstatus, MSTATUS_SUM);
  manage_ok(VA_U);
  csr_clear(sstatus, MSTATUS_SUM);
  return 0;
}

int main(void) {
  set_m_handler(record_m);
  set_s_handler(record_s);
  data[0] = 0x1234;
  csr_write(menvcfg, CBIE_INVAL | CBCFE | CBZE);

  manage_faults(NO_MEMORY, 0, CAUSE_STORE_ACCESS);

  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A, PTE_R | PTE_W | PTE_AD);
  pt_map(VA_R, (uint64_t)data, 0, PTE_R | PTE_A);
  pt_map(VA_RW, (uint64_t)data, 0, PTE_R | PTE_W | PTE_AD);
  pt_map(VA_NONE, (uint64_t)data, 0, 0);
  pt_map(VA_U, (uint64_t)data, 0, PTE_R | PTE_W | PTE_U | PTE_AD);
  vm_on();
  csr_write(medeleg, 1ul << CAUSE_STORE_PAGE);
  run_in(PRIV_S, s_body, 0);
  csr_write(medeleg, 0);
  vm_off();
  return 0;
}
