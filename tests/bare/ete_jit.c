/* Work for the JIT's ETE fast path (docs/ete.md, "The engine rule"), run with --trace-config by
 * tests/bare/ete_jit.sh on the JIT and on the interpreter, whose streams must be the same bytes:
 * conditional branches taken and not taken in data-dependent patterns, in compressed and full-size
 * code, calls and returns through jal and jalr (function pointers, recursion, a jump table), ecalls
 * from M and from U with their xRETs, satp.ASID changes (context changes) and CTR turned on in M
 * for a while (translated code records for both). At the end the
 * program disables its unit itself, so that the stream ends at a known instruction on every
 * engine (harts stop at HTIF's next poll, which differs between engines). */
#include "bare.h"
#include "check.h"

#define TRCPRGCTLR (0x11000000ul + 0x004)
#define TRCSTATR (0x11000000ul + 0x00c)
#define SATP_ASID_SHIFT 44
#define MCTRCTL_M (1ul << 2)

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

__attribute__((noinline)) static uint64_t fib(uint64_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static uint64_t op_add(uint64_t a, uint64_t b) { return a + b; }
__attribute__((noinline)) static uint64_t op_xor(uint64_t a, uint64_t b) { return a ^ (b << 1); }
__attribute__((noinline)) static uint64_t op_mul(uint64_t a, uint64_t b) { return a * (b | 1); }
static uint64_t (*const volatile ops[])(uint64_t, uint64_t) = {op_add, op_xor, op_mul};

/* A switch gcc compiles to a jump table: an indirect jump per turn. */
__attribute__((noinline)) static uint64_t dispatch(unsigned code, uint64_t v) {
  switch (code) {
    case 0: return v + 1;
    case 1: return v ^ 0x55;
    case 2: return v << 1;
    case 3: return v >> 1;
    case 4: return v * 3;
    case 5: return v - 7;
    case 6: return ~v;
    default: return v | 0x100;
  }
}

/* Full-size code: a loop whose inner branch goes both ways. parity_loop_odd, in the middle of the
 * loop's block, is where address ranges and start/stop points cut it (tests/bare/ete_range.cfg). */
__asm__(".text\n.option push\n.option norvc\n"
        ".globl parity_loop, parity_loop_odd\n"
        "parity_loop:\n  li t0, 0\n1: andi t1, a0, 1\n  beqz t1, 2f\nparity_loop_odd:\n  addi t0, t0, 1\n"
        "2: srli a0, a0, 1\n  bnez a0, 1b\n  mv a0, t0\n  ret\n"
        ".size parity_loop, .-parity_loop\n"
        ".option pop\n");
uint64_t parity_loop(uint64_t v);

static uint64_t in_user(uint64_t n) {
  uint64_t s = 0;
  for (uint64_t i = 0; i < n; i++) s += (i & 3) == 1 ? i : 1;
  return s;
}

int main(void) {
  uint64_t sum = 0;
  for (int round = 0; round < 40; round++) {
    for (int i = 0; i < 200; i++) {
      const uint64_t r = next_random();
      sum += (r & 1) ? r >> 7 : r << 3;  /* taken or not at random */
      sum = ops[r % 3](sum, r);
      sum = dispatch((unsigned)(r >> 20) & 7, sum);
      sum += parity_loop(r & 0xffff);
    }
    CHECK(144, fib(12));
    sum += fib(12);
    sum += run_in(PRIV_U, in_user, 50 + round);
    /* A context change: satp.ASID (satp.MODE stays Bare). */
    __asm__ volatile("csrw satp, %0" ::"r"((uint64_t)(round & 1) << SATP_ASID_SHIFT));
  }
  /* CTR recording in M from a CSR write, as a guest turns it on: translated code made for CTR and
   * the unit from there, and without CTR once it is off. */
  __asm__ volatile("csrw 0x34e, %0" ::"r"(MCTRCTL_M));
  sum += parity_loop(0x5a5a);
  __asm__ volatile("csrw 0x34e, zero");
  __asm__ volatile("csrw satp, zero");
  /* Branches between the last block-ending instruction and the store that disables the unit. */
  sum += parity_loop(0xa5a5a5);
  mmio_write32(TRCPRGCTLR, 0);
  CHECK(1, mmio_read32(TRCSTATR) & 1); /* IDLE: the stream ended here */
  putstr(sum ? "" : "sum is 0\n");
  return 0;
}
