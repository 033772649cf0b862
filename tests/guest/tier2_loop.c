/* A hot loop for the LLVM tier (jit/llvm/region.h): one block of loads, stores, ALU ops and a
 * branch back to its start, run in rounds for two seconds of host time, so that its region is compiled
 * and entered while it runs (brisk run --tier2=on, tests/guest/CMakeLists.txt asserts that it was).
 * The rounds' result is then computed again by a loop of another shape, which must agree. */
#include <stdint.h>
#include <time.h>

#include "check_c.h"

#define N 256

static uint64_t table[N];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* x[i] = x[i] * 3 + acc, acc += x[i] >> 7, over the table. */
static uint64_t __attribute__((noinline)) round_of(uint64_t *x, uint64_t acc)
{
    for (unsigned i = 0; i < N; i++) {
        x[i] = x[i] * 3 + acc;
        acc += x[i] >> 7;
    }
    return acc;
}

int main(void)
{
    static uint64_t copy[N];
    for (unsigned i = 0; i < N; i++) table[i] = copy[i] = i * 0x9e3779b97f4a7c15ull;
    uint64_t acc = 1;
    unsigned rounds = 0;
    const double end = now() + 2.0;
    do {
        for (unsigned k = 0; k < 64; k++, rounds++) acc = round_of(table, acc);
    } while (now() < end);

    /* The same rounds backwards through a pointer, one element at a time. */
    uint64_t again = 1;
    for (unsigned r = 0; r < rounds; r++) {
        volatile uint64_t *p = copy;
        for (unsigned i = 0; i < N; i++, p++) {
            *p = *p * 3 + again;
            again += *p >> 7;
        }
    }
    CHECK_EQ(acc, again);
    for (unsigned i = 0; i < N; i++) CHECK_EQ(table[i], copy[i]);
    return 0;
}
