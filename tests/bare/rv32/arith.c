/* RV32 integer edge cases: x registers are 32 bits, so every result wraps at 2^32 and the high bit
 * is the sign bit for the signed forms; loads and stores address modulo 2^32. Each operation is
 * one instruction on register operands (the compiler folds nothing), and `neg` checks the sign a
 * signed comparison sees, which a value kept 64 bits wide without sign extension would get wrong. */
#include "../check.h"
#include "rv32.h"

static volatile uint32_t word[4] = {0x11223344u, 0x55667788u, 0x99aabbccu, 0xddeeff00u};

int main(void) {
  const uint32_t max = 0x7fffffffu, min = 0x80000000u, ones = 0xffffffffu;

  /* add, sub and addi wrap */
  CHECK(min, R2("add", max, 1u));
  CHECK(1, neg(R2("add", max, 1u)));
  CHECK(0, R2("add", ones, 1u));
  CHECK(max, R2("sub", min, 1u));
  CHECK(0, neg(R2("sub", min, 1u)));
  CHECK(min, RI("addi", max, 1));
  CHECK(1, RI("addi", ones, 2));
  CHECK(0xfffff800u, RI("addi", 0u, -2048));

  /* shifts: the amount is rs2 mod 32 */
  CHECK(min, R2("sll", 1u, 31u));
  CHECK(1, neg(R2("sll", 1u, 31u)));
  CHECK(1u, R2("sll", 1u, 32u));
  CHECK(2u, R2("sll", 1u, 33u));
  CHECK(0x40000000u, R2("srl", min, 1u));
  CHECK(0, neg(R2("srl", min, 1u)));
  CHECK(1u, R2("srl", min, 31u));
  CHECK(min, R2("srl", min, 32u));
  CHECK(0x40000000u, R2("srl", min, 33u));
  CHECK(ones, R2("sra", min, 31u));
  CHECK(0xc0000000u, R2("sra", min, 33u));
  CHECK(min, RI("slli", 1u, 31));
  CHECK(1, neg(RI("slli", 3u, 31)));
  CHECK(1u, RI("srli", min, 31));
  CHECK(0x7fffffffu, RI("srli", ones, 1));
  CHECK(ones, RI("srai", min, 31));
  CHECK(0xf8000000u, RI("srai", min, 4));

  /* slt/sltu/slti/sltiu with the high bit set */
  CHECK(1, R2("slt", min, 1u));
  CHECK(0, R2("sltu", min, 1u));
  CHECK(0, R2("slt", max, min));
  CHECK(1, R2("sltu", max, min));
  CHECK(1, R2("sltu", 0u, ones));
  CHECK(1, RI("slti", min, 0));
  CHECK(0, RI("sltiu", min, 1));
  CHECK(1, RI("sltiu", 0xfffffffeu, -1)); /* the immediate is sign-extended, then compared unsigned */
  CHECK(0, RI("sltiu", ones, -1));

  /* M: the high halves of 64-bit products */
  CHECK(0x40000000u, R2("mulh", min, min));
  CHECK(0, neg(R2("mulh", min, min)));
  CHECK(0xfffffffeu, R2("mulhu", ones, ones));
  CHECK(1, neg(R2("mulhu", ones, ones)));
  CHECK(0u, R2("mulh", ones, ones));
  CHECK(ones, R2("mulhsu", ones, ones));
  CHECK(0x7ffffffeu, R2("mulhsu", max, ones));
  CHECK(0xc0000000u, R2("mulhsu", min, min));
  CHECK(1u, R2("mul", ones, ones));
  CHECK(min, R2("mul", 0x40000000u, 2u));
  CHECK(1, neg(R2("mul", 0x40000000u, 2u)));
  CHECK(0x3fffffffu, R2("mulhu", 0x7fffffffu, 0x80000000u));

  /* division by zero and overflow never trap */
  CHECK(ones, R2("div", 123u, 0u));
  CHECK(ones, R2("divu", 123u, 0u));
  CHECK(123u, R2("rem", 123u, 0u));
  CHECK(min, R2("remu", min, 0u));
  CHECK(min, R2("div", min, ones));
  CHECK(0u, R2("rem", min, ones));
  CHECK(0x40000000u, R2("divu", min, 2u));
  CHECK(0xc0000000u, R2("div", min, 2u));
  CHECK(0u, R2("divu", min, ones));
  CHECK(min, R2("remu", min, ones));
  CHECK(0xfffffffdu, R2("rem", 0xfffffff9u, 4u)); /* -7 % 4 = -3 */
  CHECK(1, neg(R2("rem", 0xfffffff9u, 4u)));

  /* loads: lw's value has the sign of bit 31, lhu and lbu zero-extend */
  const uint32_t base = (uint32_t)&word[0];
  uint32_t v;
  __asm__ volatile("lw %0, 8(%1)" : "=r"(v) : "r"(base));
  CHECK(0x99aabbccu, v);
  CHECK(1, neg(v));
  __asm__ volatile("lhu %0, 10(%1)" : "=r"(v) : "r"(base));
  CHECK(0x99aau, v);
  CHECK(0, neg(v));
  __asm__ volatile("lh %0, 10(%1)" : "=r"(v) : "r"(base));
  CHECK(0xffff99aau, v);
  __asm__ volatile("lbu %0, 11(%1)" : "=r"(v) : "r"(base));
  CHECK(0x99u, v);

  /* Addresses wrap at 2^32 (RAM cannot be reached across it with a 12-bit offset: the faults
     name the wrapped address; tests/bare/rv32/sv32.c maps both sides). */
  EXPECT_TRAP_AT("lw a0, 8(%1)", 0xfffffffcu, CAUSE_LOAD_ACCESS, 4u);
  EXPECT_TRAP_AT("lw a0, -8(%1)", 4u, CAUSE_LOAD_ACCESS, 0xfffffffcu);
  EXPECT_TRAP_AT("sw a0, 4(%1)", 0xfffffffcu, CAUSE_STORE_ACCESS, 0u);
  EXPECT_TRAP_AT("lw a0, -2048(%1)", 0x100u, CAUSE_LOAD_ACCESS, 0xfffff900u);
  return 0;
}
