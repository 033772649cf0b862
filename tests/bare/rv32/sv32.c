/* Sv32 (satp.MODE = 1, bit 31): two levels of 1024 4-byte PTEs, 4 MiB superpages, 34-bit physical
 * addresses. Data accesses are translated through mstatus.MPRV with MPP = S; a function run in
 * S-mode fetches through the same tables. */
#include "../check.h"
#include "rv32.h"

#define PTE_V (1u << 0)
#define PTE_R (1u << 1)
#define PTE_W (1u << 2)
#define PTE_X (1u << 3)
#define PTE_A (1u << 6)
#define PTE_D (1u << 7)
#define PTE_LEAF (PTE_V | PTE_R | PTE_W | PTE_A | PTE_D)
#define SATP_SV32 (1u << 31)
#define SUPERPAGE (1u << 22)

static uint32_t root[1024] __attribute__((aligned(4096)));
static uint32_t l2_top[1024] __attribute__((aligned(4096))), l2_bottom[1024] __attribute__((aligned(4096)));
static volatile uint32_t page_top[1024] __attribute__((aligned(4096)));
static volatile uint32_t page_bottom[1024] __attribute__((aligned(4096)));
static volatile uint32_t target = 0x600dcafe;

/* A PTE for the 34-bit physical address pa. */
static uint32_t pte(uint64_t pa, uint32_t flags) { return (uint32_t)(pa >> 12) << 10 | flags; }
static uint32_t vpn1(uint32_t va) { return va >> 22; }

/* Data accesses from here on are S-mode's, translated, until mprv_off or a trap (rv32.h). */
static void mprv_s(void) {
  csr_clear(mstatus, MSTATUS_MPP);
  csr_set(mstatus, (1u << 11) | MSTATUS_MPRV);
}
static void mprv_off(void) { csr_clear(mstatus, MSTATUS_MPRV); }

static uint32_t load(uint32_t va) {
  uint32_t v;
  mprv_s();
  __asm__ volatile("lw %0, 0(%1)" : "=r"(v) : "r"(va) : "memory");
  mprv_off();
  return v;
}

#define ALIAS 0xc0000000u     /* a superpage onto RAM_BASE */
#define MISALIGNED 0xc0400000u /* a superpage whose PPN[0] is not zero */
#define HIGH_PA 0xc0800000u   /* a superpage at physical 0x2_8000_0000, beyond 32 bits */

static uint32_t in_s(void) { return *(volatile uint32_t *)((uint32_t)&target - RAM_BASE + ALIAS); }

int main(void) {
  root[vpn1(RAM_BASE)] = pte(RAM_BASE, PTE_LEAF | PTE_X);
  root[vpn1(ALIAS)] = pte(RAM_BASE, PTE_LEAF);
  root[vpn1(MISALIGNED)] = pte(RAM_BASE + 4096, PTE_LEAF);
  root[vpn1(HIGH_PA)] = pte(0x280000000ull, PTE_LEAF);
  /* The last page of the address space and the first, so that an access can wrap across 2^32. */
  root[1023] = pte((uint32_t)l2_top, PTE_V);
  l2_top[1023] = pte((uint32_t)page_top, PTE_LEAF);
  root[0] = pte((uint32_t)l2_bottom, PTE_V);
  l2_bottom[0] = pte((uint32_t)page_bottom, PTE_LEAF);
  page_top[1023] = 0x70b70b70u;
  page_bottom[1] = 0xb0770777u;
  csr_write(satp, SATP_SV32 | (uint32_t)root >> 12);
  CHECK(SATP_SV32 | (uint32_t)root >> 12, csr_read(satp));
  __asm__ volatile("sfence.vma" ::: "memory");

  /* the superpage alias reads and writes RAM */
  const uint32_t off = (uint32_t)&target - RAM_BASE;
  CHECK(0x600dcafeu, load(ALIAS + off));
  mprv_s();
  *(volatile uint32_t *)(ALIAS + off) = 0x12345678u;
  mprv_off();
  CHECK(0x12345678u, target);
  /* a two-level walk, and an address that wraps at 2^32 onto another page */
  CHECK(0x70b70b70u, load(0xfffffffcu));
  CHECK(0xb0770777u, load(4));
  uint32_t v;
  mprv_s();
  __asm__ volatile("lw %0, 8(%1)" : "=r"(v) : "r"(0xfffffffcu) : "memory");
  mprv_off();
  CHECK(0xb0770777u, v);
  mprv_s();
  __asm__ volatile("lw %0, -8(%1)" : "=r"(v) : "r"(4u) : "memory");
  mprv_off();
  CHECK(0x70b70b70u, v);

  /* a misaligned superpage is a page fault; a physical address beyond 4 GiB is not RAM */
  mprv_s();
  EXPECT_TRAP_AT("lw a0, 0(%1)", MISALIGNED + 8, CAUSE_LOAD_PAGE, MISALIGNED + 8);
#ifndef QEMU_REF /* QEMU 7.2 raises no access fault for physical 0x2_8000_0010 on virt */
  mprv_s();
  EXPECT_TRAP_AT("lw a0, 0(%1)", HIGH_PA + 16, CAUSE_LOAD_ACCESS, HIGH_PA + 16);
#endif
  mprv_s();
  EXPECT_TRAP_AT("sw a0, 0(%1)", 0x40000000u, CAUSE_STORE_PAGE, 0x40000000u);

  /* S-mode fetches from the identity superpage and reads through the alias */
  target = 0x5eed5eedu;
  CHECK(0x5eed5eedu, run_in_s(in_s));
  csr_write(satp, 0);
  return 0;
}
