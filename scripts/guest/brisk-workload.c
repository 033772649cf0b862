// A CPU workload with known instruction counts, for perf inside the guest and for checking brisk's
// counters: perf stat should see about 8*ROUNDS instructions in hot_loop, perf record should put
// most samples there. Built static by scripts/guest-images.
//
//   brisk-workload [ROUNDS]   (default 10000000)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// Written in assembly so the count does not depend on the compiler: one round of xorshift64 is
// exactly 8 instructions (6 ALU, the counter decrement, one conditional branch); with the final
// mv and ret a call retires 8*n + 2 instructions and n branches (n - 1 taken). Needs n >= 1.
uint64_t hot_loop(uint64_t n, uint64_t x);
__asm__(
    "    .text\n"
    "    .globl hot_loop\n"
    "    .type hot_loop, @function\n"
    "    .p2align 2\n"
    "hot_loop:\n"
    "1:  slli t0, a1, 13\n"
    "    xor  a1, a1, t0\n"
    "    srli t0, a1, 7\n"
    "    xor  a1, a1, t0\n"
    "    slli t0, a1, 17\n"
    "    xor  a1, a1, t0\n"
    "    addi a0, a0, -1\n"
    "    bnez a0, 1b\n"
    "    mv   a0, a1\n"
    "    ret\n"
    "    .size hot_loop, . - hot_loop\n");

// A branch that follows a pseudo-random bit, so branch-misses has something to count. The empty
// asm statements keep the compiler from turning the two arms into branch-free code.
__attribute__((noinline)) uint64_t branchy_loop(uint64_t n, uint64_t s) {
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        if ((s >> 33) & 1) {
            __asm__ volatile("" : "+r"(acc));
            acc += s >> 40;
        } else {
            __asm__ volatile("" : "+r"(acc));
            acc ^= s >> 20;
        }
    }
    return acc;
}

int main(int argc, char **argv) {
    uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
    if (rounds == 0) {
        fprintf(stderr, "brisk-workload: ROUNDS must be at least 1\n");
        return 2;
    }
    uint64_t h = hot_loop(rounds, 0x2545f4914f6cdd1du);
    uint64_t b = branchy_loop(rounds / 8 + 1, h);
    printf("brisk-workload: hot_loop rounds=%llu insns=%llu result=%016llx branchy=%016llx\n",
           (unsigned long long)rounds, (unsigned long long)(8 * rounds + 2), (unsigned long long)h,
           (unsigned long long)b);
    return 0;
}
