/* A hot loop for the LLVM tier that never leaves translated code: no system call until the end, so
 * translated code comes back to the exec loop only where a block gets hot (kExitHot). The compiler
 * must be loaded there too (JitEngine::enter), or the loop runs in the baseline tier to its end
 * (tests/guest/CMakeLists.txt asserts that regions ran). argv[1]: the rounds (default 8000). The
 * rounds' result is then computed again by a loop of another shape, which must agree. */
#include <stdint.h>
#include <stdlib.h>

#include "check_c.h"

#define N 256

static uint64_t table[N];

static uint64_t __attribute__((noinline)) round_of(uint64_t *x, uint64_t acc)
{
    for (unsigned i = 0; i < N; i++) {
        x[i] = x[i] * 3 + acc;
        acc += x[i] >> 7;
    }
    return acc;
}

int main(int argc, char **argv)
{
    static uint64_t copy[N];
    const unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 8000;
    for (unsigned i = 0; i < N; i++) table[i] = copy[i] = i * 0x9e3779b97f4a7c15ull;
    uint64_t acc = 1;
    for (unsigned r = 0; r < rounds; r++) acc = round_of(table, acc);

    uint64_t again = 1;
    for (unsigned r = rounds; r; r--)
        for (uint64_t *p = copy, *end = copy + N; p != end; p++) {
            const uint64_t v = 3 * *p + again;
            again += (*p = v) >> 7;
        }
    CHECK_EQ(acc, again);
    CHECK(memcmp(table, copy, sizeof table) == 0);
    return 0;
}
