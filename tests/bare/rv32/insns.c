/* RV32's own encodings: the compressed forms RV64 lacks (c.jal, c.flw, c.fsw, c.flwsp, c.fswsp),
 * the encodings only RV64 has (illegal here), and Zba/Zbb/Zbs, whose results are 32 bits wide
 * (rev8 and zext.h have RV32 encodings of their own). */
#include "../check.h"
#include "rv32.h"

static volatile uint32_t fbuf[4] = {0x3fc00000u /* 1.5f */, 0xc0100000u /* -2.25f */, 0, 0};

/* c.jal: ra = the address after the 2-byte jump. Returns {taken ra, the jump's address + 2}. */
static void c_jal(uint32_t *ra, uint32_t *after) {
  __asm__ volatile(
      ".option push\n.option rvc\n"
      "la %1, 1f\n"
      "c.jal 2f\n"
      "1: j 3f\n"
      "2: mv %0, ra\n"
      "c.jr %1\n"
      "3:\n"
      ".option pop"
      : "=&r"(*ra), "=&r"(*after)::"ra", "memory");
}

int main(void) {
  csr_set(mstatus, MSTATUS_FS_INITIAL);
  uint32_t ra, after;
  c_jal(&ra, &after);
  CHECK(after, ra);

  /* c.flw/c.fsw (x8-x15 base, f8-f15 data) and c.flwsp/c.fswsp */
  uint32_t bits;
  __asm__ volatile(
      ".option push\n.option rvc\n"
      "mv a5, %1\n"
      "c.flw fa5, 4(a5)\n"
      "c.fsw fa5, 8(a5)\n"
      "fmv.x.w %0, fa5\n"
      ".option pop"
      : "=&r"(bits)
      : "r"(&fbuf[0])
      : "a5", "fa5", "memory");
  CHECK(0xc0100000u, bits); /* -2.25f */
  CHECK(0xc0100000u, fbuf[2]);
  __asm__ volatile(
      ".option push\n.option rvc\n"
      "addi sp, sp, -16\n"
      "sw %1, 12(sp)\n"
      "c.flwsp fa4, 12(sp)\n"
      "c.fswsp fa4, 4(sp)\n"
      "lw %0, 4(sp)\n"
      "addi sp, sp, 16\n"
      ".option pop"
      : "=&r"(bits)
      : "r"(0x3fc00000u)
      : "fa4", "memory");
  CHECK(0x3fc00000u, bits);

  /* RV64-only encodings raise illegal-instruction with the encoding in mtval */
  EXPECT_TRAP(".word 0x0015051b", CAUSE_ILLEGAL, 0x0015051bu); /* addiw a0, a0, 1 */
  EXPECT_TRAP(".word 0x00b5053b", CAUSE_ILLEGAL, 0x00b5053bu); /* addw a0, a0, a1 */
  EXPECT_TRAP(".word 0x00053503", CAUSE_ILLEGAL, 0x00053503u); /* ld a0, 0(a0) */
  EXPECT_TRAP(".word 0x00056503", CAUSE_ILLEGAL, 0x00056503u); /* lwu a0, 0(a0) */
  EXPECT_TRAP(".word 0x00a53023", CAUSE_ILLEGAL, 0x00a53023u); /* sd a0, 0(a0) */
  EXPECT_TRAP(".word 0x02051513", CAUSE_ILLEGAL, 0x02051513u); /* slli a0, a0, 32 */
  EXPECT_TRAP(".word 0x42055513", CAUSE_ILLEGAL, 0x42055513u); /* srai a0, a0, 32 */
  EXPECT_TRAP(".word 0x1005352f", CAUSE_ILLEGAL, 0x1005352fu); /* lr.d a0, (a0) */
  EXPECT_TRAP(".word 0xc0257553", CAUSE_ILLEGAL, 0xc0257553u); /* fcvt.l.s a0, fa0 */
  EXPECT_TRAP(".word 0xe2050553", CAUSE_ILLEGAL, 0xe2050553u); /* fmv.x.d a0, fa0 */
  EXPECT_TRAP(".word 0x6b855513", CAUSE_ILLEGAL, 0x6b855513u); /* RV64's rev8 a0, a0 */
  EXPECT_TRAP(".word 0x0805453b", CAUSE_ILLEGAL, 0x0805453bu); /* RV64's zext.h a0, a0 */
  EXPECT_TRAP(".half 0x9d2d\n.half 0x0001", CAUSE_ILLEGAL, 0x9d2du); /* c.addw a0, a1 (then c.nop) */
  EXPECT_TRAP(".half 0x1502\n.half 0x0001", CAUSE_ILLEGAL, 0x1502u); /* c.slli a0, 32 */

  /* Zba: sh*add wrap at 2^32 */
  CHECK(0x80000001u, R2("sh1add", 0x40000000u, 1u));
  CHECK(1, neg(R2("sh1add", 0x40000000u, 1u)));
  CHECK(0x00000004u, R2("sh3add", 0x20000000u, 4u));
  /* Zbb */
  CHECK(0x44332211u, R1("rev8", 0x11223344u));
  CHECK(1, neg(R1("rev8", 0x112233f4u)));
  CHECK(0xbeefu, R1("zext.h", 0xdeadbeefu));
  CHECK(0u, R1("clz", 0x80000000u));
  CHECK(32u, R1("clz", 0u));
  CHECK(32u, R1("ctz", 0u));
  CHECK(32u, R1("cpop", 0xffffffffu));
  CHECK(1u, R1("cpop", 0x80000000u));
  CHECK(0xff0000ffu, R1("orc.b", 0x80000001u));
  CHECK(1, neg(R1("orc.b", 0x80000001u)));
  CHECK(0xff000000u, R1("orc.b", 0x01000000u));
  CHECK(1, neg(R1("orc.b", 0x01000000u)));
  CHECK(0x00000003u, R2("rol", 0x80000001u, 1u));
  CHECK(0xc0000000u, R2("ror", 0x80000001u, 1u));
  CHECK(0x80000001u, R2("rol", 0x80000001u, 32u)); /* the amount is rs2 mod 32 */
  CHECK(0xc0000000u, RI("rori", 0x80000001u, 1));
  CHECK(0x80000000u, R2("max", 0x80000000u, 0x80000000u));
  CHECK(1u, R2("max", 0x80000000u, 1u));
  CHECK(0x80000000u, R2("maxu", 0x80000000u, 1u));
  CHECK(0xffff8000u, R1("sext.h", 0x00008000u));
  CHECK(1, neg(R1("sext.b", 0x80u)));
  /* Zbs: the index is rs2 mod 32 */
  CHECK(0x80000000u, R2("bset", 0u, 31u));
  CHECK(1, neg(R2("bset", 0u, 31u)));
  CHECK(1u, R2("bset", 0u, 32u));
  CHECK(0x7fffffffu, R2("bclr", 0xffffffffu, 31u));
  CHECK(0, neg(R2("bclr", 0xffffffffu, 31u)));
  CHECK(0x80000001u, R2("binv", 1u, 63u));
  CHECK(1u, R2("bext", 0x80000000u, 63u));
  CHECK(0u, R2("bext", 0x80000000u, 32u));
  CHECK(0x80000000u, RI("bseti", 0u, 31));
  CHECK(1, neg(RI("bseti", 0u, 31)));
  CHECK(0x7ffffffeu, RI("bclri", 0x7fffffffu, 0));
  CHECK(0, neg(RI("bclri", 0xffffffffu, 31)));
  CHECK(0x80000000u, RI("binvi", 0u, 31));
  CHECK(1, neg(RI("binvi", 0u, 31)));
  CHECK(1u, RI("bexti", 0x80000000u, 31));
  return 0;
}
