/* Known code for brisk trace-decode (tests/bare/ete_decode.sh), run under full trace
 * (--trace-config with TRCVICTLR EVENT = always): flow() sets its own trap vector, runs a loop of
 * three turns that calls flow_leaf with jal and flow_leaf2 with jalr, takes an ecall whose
 * handler steps mepc past it and returns with mret, and returns. Every block starts at a label,
 * so the script can spell the exact instruction sequence from nm and objdump alone. main also runs
 * a function in U and in S mode (run_in: mret into it, ecall back), for context changes and
 * exceptions between exception levels in the stream. */
#include "bare.h"

__asm__(".text\n.option push\n.option norvc\n"
        ".globl flow, flow_loop, flow_ret1, flow_ret2, flow_ecall, flow_resume, flow_leaf, flow_leaf2\n"
        ".globl flow_handler, flow_end\n"
        "flow:\n"
        "  addi sp, sp, -16\n  sd ra, 0(sp)\n  csrr t2, mtvec\n  la t1, flow_handler\n  csrw mtvec, t1\n"
        "  la t3, flow_leaf2\n  li t0, 3\n  li a0, 0\n"
        "flow_loop:\n  addi t0, t0, -1\n  jal ra, flow_leaf\n"
        "flow_ret1:\n  jalr ra, 0(t3)\n"
        "flow_ret2:\n  bnez t0, flow_loop\n"
        "flow_ecall:\n  ecall\n"
        "flow_resume:\n  csrw mtvec, t2\n  ld ra, 0(sp)\n  addi sp, sp, 16\n  ret\n"
        "flow_leaf:\n  addi a0, a0, 1\n  ret\n"
        "flow_leaf2:\n  addi a0, a0, 2\n  ret\n"
        ".balign 4\n"
        "flow_handler:\n  csrr t1, mepc\n  addi t1, t1, 4\n  csrw mepc, t1\n  mret\n"
        "flow_end:\n"
        ".option pop\n");
uint64_t flow(void);

static uint64_t lower(uint64_t x) {
  uint64_t s = 0;
  for (uint64_t i = 0; i < x; i++) s += i;
  return s;
}

int main(void) {
  /* Three turns of 1 + 2. */
  if (flow() != 9) return 1;
  if (run_in(PRIV_U, lower, 10) != 45) return 2;
  return run_in(PRIV_S, lower, 4) == 6 ? 0 : 3;
}
