/* Page permissions under Sv39: R/W/X, the reserved W-without-R, execute-only pages with and
 * without MXR, U pages from S with and without SUM (never executable by S), S pages from U, and
 * PTEs with reserved bits or a non-leaf at the last level. */
#include "bare.h"
#include "check.h"

#define VA(n) (0x40000000ul + (n) * PAGE_SIZE)
#define VA_R VA(0)
#define VA_RW VA(1)
#define VA_X VA(2)     /* execute-only, holding code */
#define VA_W VA(3)     /* W without R: reserved */
#define VA_U VA(4)     /* a U data page */
#define VA_UX VA(5)    /* U code */
#define VA_S VA(6)     /* an S data page, for U */
#define VA_RSV VA(7)   /* reserved bits 60:54 set */
#define VA_PBMT VA(8)  /* PBMT set without Svpbmt */
#define VA_LEAF0 VA(9) /* V but not R/W/X at the last level */

static uint64_t data[512] __attribute__((aligned(4096)));

static uint64_t __attribute__((noinline, aligned(8))) seven(uint64_t unused) {
  (void)unused;
  return 7;
}

/* Address of seven() as seen through a mapping of its page at va. */
static uint64_t alias(uint64_t va) { return va + ((uint64_t)seven & (PAGE_SIZE - 1)); }
static uint64_t first_word(void) { return *(volatile uint64_t *)seven; }

static uint64_t load_ok(uint64_t va) {
  uint64_t v = 0;
  load64_at(va, &v);
  CHECK(0, s_rec.count);
  return v;
}

static void load_faults(uint64_t va) {
  uint64_t v = 0;
  uint64_t pc = load64_at(va, &v);
  expect_s(CAUSE_LOAD_PAGE, pc, va);
}

static void store_faults(uint64_t va) {
  uint64_t pc = store64_at(va, 0);
  expect_s(CAUSE_STORE_PAGE, pc, va);
}

static void fetch_faults(uint64_t va) {
  jump_to(va);
  expect_s(CAUSE_FETCH_PAGE, va, va);
}

static uint64_t s_body(uint64_t unused) {
  (void)unused;
  CHECK(0x1234, load_ok(VA_R));
  store_faults(VA_R);
  fetch_faults(VA_R);
  CHECK(0x1234, load_ok(VA_RW));
  store64_at(VA_RW + 8, 99);
  CHECK(0, s_rec.count);
  CHECK(99, load_ok(VA_RW + 8));

  /* Execute-only: runs, but reads only with MXR. */
  CHECK(7, ((uint64_t(*)(uint64_t))alias(VA_X))(0));
  load_faults(alias(VA_X));
  csr_set(sstatus, MSTATUS_MXR);
  CHECK(first_word(), load_ok(alias(VA_X)));
  store_faults(alias(VA_X));
  csr_clear(sstatus, MSTATUS_MXR);

  load_faults(VA_W);
  store_faults(VA_W);

  /* U pages: data only with SUM, code never. */
  load_faults(VA_U);
  store_faults(VA_U);
  csr_set(sstatus, MSTATUS_SUM);
  CHECK(0x1234, load_ok(VA_U));
  store64_at(VA_U + 16, 5);
  CHECK(0, s_rec.count);
  fetch_faults(alias(VA_UX));
  csr_clear(sstatus, MSTATUS_SUM);
  load_faults(VA_U + 16);

  load_faults(VA_RSV);
  load_faults(VA_PBMT);
  load_faults(VA_LEAF0);
  return 0;
}

/* U runs on the U-mapped image; its faults go to M. */
static void u_load_faults(uint64_t va) {
  uint64_t v = 0;
  uint64_t pc = load64_at(va, &v);
  expect_m(CAUSE_LOAD_PAGE, pc, va);
}

static uint64_t u_body(uint64_t unused) {
  (void)unused;
  uint64_t v = 0;
  load64_at(VA_U, &v);
  CHECK(0x1234, v);
  CHECK(0, m_rec.count);
  u_load_faults(VA_S);
  uint64_t pc = store64_at(VA_S, 0);
  expect_m(CAUSE_STORE_PAGE, pc, VA_S);
  jump_to(alias(VA_X)); /* S code */
  expect_m(CAUSE_FETCH_PAGE, alias(VA_X), alias(VA_X));
  CHECK(7, ((uint64_t(*)(uint64_t))alias(VA_UX))(0));
  u_load_faults(alias(VA_UX)); /* execute-only, and no MXR */
  return 0;
}

/* MXR applies to U too. */
static uint64_t u_mxr_read(uint64_t unused) {
  (void)unused;
  uint64_t v = 0;
  load64_at(alias(VA_UX), &v);
  CHECK(0, m_rec.count);
  return v;
}

static void map_test_pages(uint64_t user_image) {
  const uint64_t code = (uint64_t)seven & ~(PAGE_SIZE - 1);
  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A | user_image, PTE_R | PTE_W | PTE_AD | user_image);
  pt_map(VA_R, (uint64_t)data, 0, PTE_R | PTE_A);
  pt_map(VA_RW, (uint64_t)data, 0, PTE_R | PTE_W | PTE_AD);
  pt_map(VA_X, code, 0, PTE_X | PTE_A);
  pt_map(VA_W, (uint64_t)data, 0, PTE_W | PTE_AD);
  pt_map(VA_U, (uint64_t)data, 0, PTE_R | PTE_W | PTE_U | PTE_AD);
  pt_map(VA_UX, code, 0, PTE_X | PTE_U | PTE_A);
  pt_map(VA_S, (uint64_t)data, 0, PTE_R | PTE_W | PTE_AD);
  *pt_map(VA_RSV, (uint64_t)data, 0, PTE_R | PTE_A) |= 1ul << 54;
  *pt_map(VA_PBMT, (uint64_t)data, 0, PTE_R | PTE_A) |= 1ul << 61;
  pt_map(VA_LEAF0, (uint64_t)data, 0, 0);
  vm_on();
}

int main(void) {
  /* seven() and the instruction after it must share a page with no other test's code. */
  CHECK((uint64_t)seven & ~(PAGE_SIZE - 1), ((uint64_t)seven + 16) & ~(PAGE_SIZE - 1));
  set_m_handler(record_m);
  set_s_handler(record_s);
  data[0] = 0x1234;

  map_test_pages(0);
  csr_write(medeleg, 1ul << CAUSE_FETCH_PAGE | 1ul << CAUSE_LOAD_PAGE | 1ul << CAUSE_STORE_PAGE);
  run_in(PRIV_S, s_body, 0);
  CHECK(99, data[1]);
  CHECK(5, data[2]);
  csr_write(medeleg, 0);

  map_test_pages(PTE_U);
  run_in(PRIV_U, u_body, 0);
  csr_set(mstatus, MSTATUS_MXR);
  CHECK(first_word(), run_in(PRIV_U, u_mxr_read, 0));
  csr_clear(mstatus, MSTATUS_MXR);
  vm_off();
  return 0;
}
