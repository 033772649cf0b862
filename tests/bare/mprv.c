/* mstatus.MPRV: M-mode loads and stores translated and checked as MPP's mode (S or U, with SUM
 * and MXR), never fetches; MPP = M means no translation; mret to a lower mode clears MPRV. */
#include "bare.h"
#include "check.h"

#define VA_S 0x40000000ul    /* an S page */
#define VA_U 0x40001000ul    /* a U page */
#define VA_RO 0x40002000ul   /* an S read-only page */
#define VA_XO 0x40003000ul   /* an S execute-only page */
#define PA_UNMAPPED (RAM_BASE + (8ul << 20)) /* RAM that no PTE maps */

static uint64_t s_page[512] __attribute__((aligned(4096)));
static uint64_t u_page[512] __attribute__((aligned(4096)));

/* Loads (or stores `v`) at va with MPRV set and MPP = mpp, in registers only: with MPP = U even
 * the stack would be out of reach. Returns the value; *pc gets the access's address. */
static uint64_t mprv_access(uint64_t mpp, uint64_t va, int store, uint64_t v, uint64_t *pc) {
  uint64_t at, set = mpp << MSTATUS_MPP_SHIFT | MSTATUS_MPRV;
  if (store) {
    __asm__ volatile(".option push\n.option norvc\n"
                     "csrc mstatus, %2\n csrs mstatus, %3\n la %0, 1f\n1: sd %1, 0(%4)\n csrc mstatus, %5\n"
                     ".option pop"
                     : "=&r"(at), "+r"(v) : "r"(MSTATUS_MPP), "r"(set), "r"(va), "r"(MSTATUS_MPRV) : "memory");
  } else {
    __asm__ volatile(".option push\n.option norvc\n"
                     "csrc mstatus, %2\n csrs mstatus, %3\n la %0, 1f\n1: ld %1, 0(%4)\n csrc mstatus, %5\n"
                     ".option pop"
                     : "=&r"(at), "+r"(v) : "r"(MSTATUS_MPP), "r"(set), "r"(va), "r"(MSTATUS_MPRV) : "memory");
  }
  *pc = at;
  return v;
}

static uint64_t load_as(uint64_t mpp, uint64_t va) {
  uint64_t pc;
  uint64_t v = mprv_access(mpp, va, 0, 0xdead, &pc);
  CHECK(0, m_rec.count);
  return v;
}

static void load_faults_as(uint64_t mpp, uint64_t va) {
  uint64_t pc;
  CHECK(0xdead, mprv_access(mpp, va, 0, 0xdead, &pc));
  /* The trap itself leaves MPRV alone and sets MPP = M, so the handler is not translated. */
  CHECK(MSTATUS_MPRV | MSTATUS_MPP, m_rec.status & (MSTATUS_MPRV | MSTATUS_MPP));
  expect_m(CAUSE_LOAD_PAGE, pc, va);
}

static uint64_t s_nothing(uint64_t unused) {
  (void)unused;
  return 1;
}

int main(void) {
  set_m_handler(record_m);
  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A, PTE_R | PTE_W | PTE_AD);
  pt_map(VA_S, (uint64_t)s_page, 0, PTE_R | PTE_W | PTE_AD);
  pt_map(VA_U, (uint64_t)u_page, 0, PTE_R | PTE_W | PTE_U | PTE_AD);
  pt_map(VA_RO, (uint64_t)s_page, 0, PTE_R | PTE_A);
  pt_map(VA_XO, (uint64_t)s_page, 0, PTE_X | PTE_A);
  vm_on();
  s_page[0] = 0x5555;
  u_page[0] = 0x7777;

  /* MPP = S */
  CHECK(0x5555, load_as(PRIV_S, VA_S));
  load_faults_as(PRIV_S, VA_U);
  csr_set(mstatus, MSTATUS_SUM);
  CHECK(0x7777, load_as(PRIV_S, VA_U));
  csr_clear(mstatus, MSTATUS_SUM);
  uint64_t pc;
  mprv_access(PRIV_S, VA_S + 8, 1, 0x66, &pc);
  CHECK(0, m_rec.count);
  CHECK(0x66, s_page[1]);
  mprv_access(PRIV_S, VA_RO + 16, 1, 0x66, &pc);
  expect_m(CAUSE_STORE_PAGE, pc, VA_RO + 16);
  CHECK(0, s_page[2]);
  load_faults_as(PRIV_S, VA_XO);
  csr_set(mstatus, MSTATUS_MXR);
  CHECK(0x5555, load_as(PRIV_S, VA_XO));
  csr_clear(mstatus, MSTATUS_MXR);
  load_faults_as(PRIV_S, PA_UNMAPPED);

  /* MPP = U */
  CHECK(0x7777, load_as(PRIV_U, VA_U));
  load_faults_as(PRIV_U, VA_S);

  /* MPP = M: physical addresses */
  *(volatile uint64_t *)PA_UNMAPPED = 0x4242;
  CHECK(0x4242, load_as(PRIV_M, PA_UNMAPPED));

  /* Without MPRV nothing is translated. */
  CHECK(0x4242, *(volatile uint64_t *)PA_UNMAPPED);

  /* mret to S clears MPRV (machine.adoc, "xRET also sets MPRV=0"): the closing ecall finds it
     clear. QEMU 7.2 leaves it set. */
  csr_set(mstatus, MSTATUS_MPRV);
  CHECK(1, run_in(PRIV_S, s_nothing, 0));
#ifdef QEMU_REF
  csr_clear(mstatus, MSTATUS_MPRV);
#else
  CHECK(0, run_exit.status & MSTATUS_MPRV);
#endif
  CHECK(0, csr_read(mstatus) & MSTATUS_MPRV);

  vm_off();
  return 0;
}
