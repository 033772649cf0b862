/* Transfers in S and in U for the command line's CTR mode filters (ctr_cli.sh): main, in M, runs
 * s_fn in S, then u_fn in U, through run_in. Each is entered from run_trampoline's `jalr t0` (a
 * co-routine swap: rd and rs1 are both link registers) and makes direct calls to a leaf that
 * returns at once, three in S and two in U, then returns to run_trampoline. Nothing here writes
 * mctrctl: brisk's --ctr sets it at reset. M is never enabled there, and the mret into each mode
 * and its closing ecall go between M and the lower mode, so only the transfers within S and U are
 * recorded (ctr_modes.c checks those rules). */
#include "bare.h"
#include "check.h"

extern char s_fn[], u_fn[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl s_fn, s_call1, s_call2, s_call3, s_ret, s_leaf\n"
    "s_fn:\n"
    "  mv t2, ra\n"
    "s_call1: jal ra, s_leaf\n"
    "s_call2: jal ra, s_leaf\n"
    "s_call3: jal ra, s_leaf\n"
    "  mv ra, t2\n"
    "  li a0, 0x5\n"
    "s_ret: ret\n"
    "s_leaf: ret\n"

    "  .globl u_fn, u_call1, u_call2, u_ret, u_leaf\n"
    "u_fn:\n"
    "  mv t2, ra\n"
    "u_call1: jal ra, u_leaf\n"
    "u_call2: jal ra, u_leaf\n"
    "  mv ra, t2\n"
    "  li a0, 0x7\n"
    "u_ret: ret\n"
    "u_leaf: ret\n"
    "  .option pop\n");

#define FN(f) ((uint64_t (*)(uint64_t))(uintptr_t)(f))

int main(void) {
  CHECK(0x5, run_in(PRIV_S, FN(s_fn), 0));
  CHECK(0x7, run_in(PRIV_U, FN(u_fn), 0));
  return 0;
}
