/* A bare loop for --trace-config autofdo:WINDOW,PERIOD (tests/bare/ete_trace.sh): ete_loop runs
 * 500 turns of two instructions, an addi and a taken bnez but for the last, so that any even
 * number of consecutive instructions in it holds half as many branches. */
#include "bare.h"

__asm__(".text\n.option push\n.option norvc\n"
        ".globl ete_loop, ete_loop_end\n"
        "ete_loop:\n  li t0, 500\n1: addi t0, t0, -1\n  bnez t0, 1b\n"
        "ete_loop_end:\n  ret\n"
        ".option pop\n");
void ete_loop(void);

int main(void) {
  ete_loop();
  return 0;
}
