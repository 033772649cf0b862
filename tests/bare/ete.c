/* The hart's ETE trace unit through its memory-mapped external debug interface (docs/ete.md):
 * the ID registers, the OS lock's error response (an access fault with the address in mtval),
 * read-back, writes outside the Idle state (ignored), and TRCRSCTLR<n> being RES0 beyond
 * TRCIDR4.NUMRSPAIR, branch broadcasting's registers (TRCBBCTLR.RANGE RES0 for the pairs beyond
 * TRCIDR4.NUMACPAIRS). RSPAIRS is the number of selector pairs brisk runs with (--cpu
 * ete-rspairs), ACPAIRS the address comparator pairs (--cpu ete-acpairs).
 */
#include "bare.h"
#include "check.h"

#ifndef RSPAIRS
#define RSPAIRS 16
#endif
#ifndef ACPAIRS
#define ACPAIRS 8
#endif

#define ETE_BASE 0x11000000ul
#define ETE(off) (ETE_BASE + (off))
#define TRCPRGCTLR ETE(0x004)
#define TRCSTATR ETE(0x00c)
#define TRCCONFIGR ETE(0x010)
#define TRCBBCTLR ETE(0x03c)
#define TRCVICTLR ETE(0x080)
#define TRCCNTVR0 ETE(0x160)
#define TRCIDR(n) ETE(0x1e0 + 4 * (n))
#define TRCRSCTLR(n) ETE(0x200 + 4 * (n))
#define TRCOSLAR ETE(0x300)
#define TRCOSLSR ETE(0x304)
#define TRCACVR(n) ETE(0x400 + 8 * (n))
#define TRCCLAIMSET ETE(0xfa0)
#define TRCCLAIMCLR ETE(0xfa4)
#define TRCDEVAFF ETE(0xfa8)
#define TRCDEVARCH ETE(0xfbc)
#define TRCCIDR1 ETE(0xff4)

/* A 1-byte load that may fault. */
static inline uint64_t load8_at(uint64_t addr) {
  uint64_t pc, r;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: lbu %1, 0(%2)\n.option pop"
                   : "=&r"(pc), "=&r"(r) : "r"(addr) : "memory");
  (void)r;
  return pc;
}

static void os_lock(void) {
  /* A cold reset sets the OS lock: trace registers give an error response, an access fault. */
  CHECK(0xa, mmio_read32(TRCOSLSR));
  CHECK(0x47705a13, mmio_read32(TRCDEVARCH)); /* the management registers answer */
  CHECK(0x90, mmio_read32(TRCCIDR1));
  uint32_t v = 0x5a5a;
  uint64_t pc = load32_at(TRCPRGCTLR, &v);
  expect_m(CAUSE_LOAD_ACCESS, pc, TRCPRGCTLR);
  CHECK(0x5a5a, v);
  pc = store32_at(TRCRSCTLR(2), 0x10001);
  expect_m(CAUSE_STORE_ACCESS, pc, TRCRSCTLR(2));
  uint64_t w = 0;
  pc = load64_at(TRCACVR(0), &w);
  expect_m(CAUSE_LOAD_ACCESS, pc, TRCACVR(0));
  mmio_write32(TRCOSLAR, 0);
  CHECK(0x8, mmio_read32(TRCOSLSR));
  CHECK(0x3, mmio_read32(TRCSTATR)); /* IDLE, PMSTABLE */
}

static void id_registers(void) {
  CHECK(0x28000ca1, mmio_read32(TRCIDR(0))); /* TRCBB (bit 5) among them */
  CHECK(0x4100fff0, mmio_read32(TRCIDR(1)));
  CHECK(0x10001088, mmio_read32(TRCIDR(2)));
  CHECK(0x00380004, mmio_read32(TRCIDR(3)));
  /* NUMACPAIRS, NUMPC 4, NUMRSPAIR, NUMSSCC 8, NUMCIDC 8, NUMVMIDC 8 */
  CHECK(0x88804000u | (RSPAIRS - 1) << 16 | ACPAIRS, mmio_read32(TRCIDR(4)));
  CHECK(0x48070820, mmio_read32(TRCIDR(5)));
  CHECK(0x80000000, mmio_read32(TRCDEVAFF));
}

static void resource_selectors(void) {
  for (unsigned n = 0; n < 32; n++) mmio_write32(TRCRSCTLR(n), 0x00310003); /* PAIRINV, INV, PE inputs 0-1 */
  for (unsigned n = 0; n < 32; n++) {
    uint32_t expect = 0;
    if (n >= 2 && n < 2 * RSPAIRS) expect = n % 2 ? 0x00110003 : 0x00310003;
    CHECK(expect, mmio_read32(TRCRSCTLR(n)));
  }
}

static void read_back_and_idle(void) {
  mmio_write64(TRCACVR(3), 0x8000123456789abcul);
  CHECK(0x8000123456789abcul, mmio_read64(TRCACVR(3)));
  CHECK(0x56789abc, mmio_read32(TRCACVR(3)));
  mmio_write32(TRCVICTLR, 0xffffffff);
  CHECK(0x0038029f, mmio_read32(TRCVICTLR));
  mmio_write32(TRCCONFIGR, 0x40);
  mmio_write32(TRCCNTVR0, 0x1234);
  mmio_write32(TRCCLAIMSET, 0x3);
  CHECK(0xf, mmio_read32(TRCCLAIMSET));
  CHECK(0x3, mmio_read32(TRCCLAIMCLR));
  /* Enabled: writes to the configuration are ignored (brisk's CONSTRAINED UNPREDICTABLE choice). */
  mmio_write32(TRCPRGCTLR, 1);
  CHECK(0, mmio_read32(TRCSTATR));
  mmio_write32(TRCCONFIGR, 0x800);
  mmio_write32(TRCCNTVR0, 0x1);
  mmio_write32(TRCCLAIMCLR, 0x1);
  CHECK(0x40, mmio_read32(TRCCONFIGR));
  CHECK(0x1234, mmio_read32(TRCCNTVR0));
  CHECK(0x2, mmio_read32(TRCCLAIMCLR));
  mmio_write32(TRCPRGCTLR, 0);
  CHECK(0x3, mmio_read32(TRCSTATR));
  mmio_write32(TRCCONFIGR, 0x800);
  CHECK(0x800, mmio_read32(TRCCONFIGR));
  /* Only 4-byte accesses (8-byte to 64-bit registers); no unit for a hart that does not exist. */
  uint64_t pc = load8_at(TRCCONFIGR);
  expect_m(CAUSE_LOAD_ACCESS, pc, TRCCONFIGR);
  uint64_t w = 0;
  pc = load64_at(TRCCONFIGR, &w);
  expect_m(CAUSE_LOAD_ACCESS, pc, TRCCONFIGR);
  uint32_t v = 0;
  pc = load32_at(ETE_BASE + 0x1000, &v);
  expect_m(CAUSE_LOAD_ACCESS, pc, ETE_BASE + 0x1000);
}

static void branch_broadcast(void) {
  /* TRCCONFIGR.BB (bit 3) is kept; TRCBBCTLR keeps MODE (bit 8) and a RANGE bit per pair. */
  mmio_write32(TRCCONFIGR, 0x8);
  CHECK(0x8, mmio_read32(TRCCONFIGR));
  mmio_write32(TRCBBCTLR, 0xffffffff);
  CHECK(0x100u | ((1u << ACPAIRS) - 1), mmio_read32(TRCBBCTLR));
  mmio_write32(TRCBBCTLR, 0x1);
  CHECK(0x1, mmio_read32(TRCBBCTLR));
  mmio_write32(TRCCONFIGR, 0);
  mmio_write32(TRCBBCTLR, 0);
}

int main(void) {
  set_m_handler(record_m);
  os_lock();
  id_registers();
  resource_selectors();
  branch_broadcast();
  read_back_and_idle();
  return 0;
}
