/* A kernel for OpenSBI's fw_jump, as a flat binary (objcopy -O binary of this program, linked at
 * 0x80200000 by flat_kernel.ld): it runs in S-mode, checks that it was entered as a kernel is (at
 * 0x80200000, a0 = hart 0, a1 = a device tree) and that OpenSBI answers SBI calls, prints
 * "PASS flat_kernel" through the SBI console and powers off with SBI system reset. A failed check
 * prints "FAIL flat_kernel: check at line N" and stops with exit code 3 through the test finisher. */
#include <stdint.h>

#include "puthex.h"

#define SBI_EXT_LEGACY_PUTCHAR 0x01
#define SBI_EXT_BASE 0x10
#define SBI_EXT_SRST 0x53525354
#define SBI_BASE_GET_IMPL_ID 1
#define SBI_IMPL_OPENSBI 1
#define FDT_MAGIC 0xd00dfeed
#define TEST_FINISHER 0x100000ul

__asm__(
    "  .pushsection .text.init, \"ax\"\n"
    "  .globl _start\n"
    "_start:\n"
    "  .option push\n"
    "  .option norelax\n"
    "  lla sp, stack_top\n"
    "  lla a2, _start\n" /* where this code runs, pc-relative */
    "  .option pop\n"
    "  call kmain\n"
    "1: j 1b\n"
    "  .popsection\n"
    "  .pushsection .stack, \"aw\", @progbits\n"
    "  .balign 16\n"
    "  .skip 8192\n"
    "stack_top:\n"
    "  .popsection\n");

/* _start as linked: an absolute word, where code would compute the address pc-relative. */
extern char _start[];
static void *const volatile linked_start = _start;

struct sbiret {
  long error, value;
};

static struct sbiret sbi_call(long ext, long fid, long arg0, long arg1) {
  register long a0 __asm__("a0") = arg0;
  register long a1 __asm__("a1") = arg1;
  register long a6 __asm__("a6") = fid;
  register long a7 __asm__("a7") = ext;
  __asm__ volatile("ecall" : "+r"(a0), "+r"(a1) : "r"(a6), "r"(a7) : "memory");
  return (struct sbiret){a0, a1};
}

void putstr(const char *s) {
  for (; *s; s++) sbi_call(SBI_EXT_LEGACY_PUTCHAR, 0, *s, 0);
}

static void fail(int line) {
  putstr("FAIL flat_kernel: check at line ");
  puthex((uint64_t)line);
  putstr("\n");
  *(volatile uint32_t *)TEST_FINISHER = (3u << 16) | 0x3333;
  for (;;) {
  }
}

#define CHECK(cond) \
  do {              \
    if (!(cond)) fail(__LINE__); \
  } while (0)

static uint32_t be32(const volatile uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void kmain(uint64_t hartid, uint64_t fdt, uint64_t start) {
  CHECK(start == 0x80200000ul);
  CHECK((uint64_t)linked_start == start);
  CHECK(hartid == 0);
  CHECK(fdt != 0 && be32((const volatile uint8_t *)fdt) == FDT_MAGIC);
  struct sbiret r = sbi_call(SBI_EXT_BASE, SBI_BASE_GET_IMPL_ID, 0, 0);
  CHECK(r.error == 0 && r.value == SBI_IMPL_OPENSBI);
  putstr("PASS flat_kernel\n");
  sbi_call(SBI_EXT_SRST, 0, 0 /* shutdown */, 0 /* no reason */);
  fail(__LINE__); /* system reset returned */
}
