/* A hot loop for the LLVM tier with a load that its inline flat path cannot make (an address above
 * brisk's flat guest memory): region code leaves before it, and the exec loop runs it (JitEngine::enter,
 * kExitRegionStep), here raising SIGSEGV, whose handler skips the load. Run in rounds for two seconds
 * of host time, so that the region is compiled and entered while it runs (tests/guest/CMakeLists.txt
 * asserts that it was); every round must fault exactly once and leave the load's register alone. */
#include <signal.h>
#include <stdint.h>
#include <sys/ucontext.h>
#include <time.h>

#include "check_c.h"

#define N 64

static uint64_t table[N];
static volatile unsigned faults;

static void skip(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    faults++;
    ((ucontext_t *)ctx)->uc_mcontext.__gregs[REG_PC] += 4;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t __attribute__((noinline)) round_of(uint64_t *x, uint64_t acc, uint64_t probe)
{
    for (unsigned i = 0; i < N; i++) {
        x[i] = x[i] * 3 + acc;
        acc += x[i] >> 7;
    }
    uint64_t v = 7;
    /* Faults: the handler skips its four bytes, and v stays 7. */
    __asm__ volatile(".option push\n.option norvc\nld %0, 0(%1)\n.option pop" : "+r"(v) : "r"(probe));
    return acc + v;
}

int main(void)
{
    static uint64_t copy[N];
    struct sigaction sa = {.sa_sigaction = skip, .sa_flags = SA_SIGINFO};
    CHECK(sigaction(SIGSEGV, &sa, 0) == 0);
    for (unsigned i = 0; i < N; i++) table[i] = copy[i] = i * 0x9e3779b97f4a7c15ull;
    uint64_t acc = 1;
    unsigned rounds = 0;
    const double end = now() + 2.0;
    do {
        for (unsigned k = 0; k < 64; k++, rounds++) acc = round_of(table, acc, 1ull << 40);
    } while (now() < end);
    CHECK_EQ(faults, rounds);

    uint64_t again = 1;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned i = 0; i < N; i++) {
            copy[i] = copy[i] * 3 + again;
            again += copy[i] >> 7;
        }
        again += 7;
    }
    CHECK_EQ(acc, again);
    for (unsigned i = 0; i < N; i++) CHECK_EQ(table[i], copy[i]);
    puts("passed"); /* the run got here: it did not stop at the load */
    return 0;
}
