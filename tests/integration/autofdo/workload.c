/* The AutoFDO pipeline's workload (tests/integration/autofdo.sh): a hot loop whose branch goes
 * one way about 90% of the time, a hot call chain chain_a -> chain_b -> chain_c, calls through a
 * table of function pointers, and a cold function that runs once. It prints how often each path
 * ran, which the test compares with the --exact profile's counts, and a checksum, which must not
 * change when the program is rebuilt with the profile. The lines marked "profile:" are the ones
 * the test looks up. */
#include <stdint.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

enum { LOOP_ITERS = 2000000, CHAIN_CALLS = 300000, DISPATCH_CALLS = 300000 };

static unsigned slow_calls, chain_c_calls, op_calls[3];

NOINLINE uint64_t slow_path(uint64_t x)
{
    slow_calls++;  /* profile: slow_path body */
    return (x >> 3) ^ (x * 0x9e3779b97f4a7c15ull);
}

/* An LCG's top byte is below 26 for about 10% of the iterations. */
NOINLINE uint64_t hot_loop(unsigned n)
{
    uint64_t acc = 0;
    uint32_t s = 1;
    for (unsigned i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        if ((s >> 24) < 26)
            acc += slow_path(acc ^ s);  /* profile: slow_path call */
        else
            acc = acc * 31 + (s >> 7);
    }
    return acc;
}

NOINLINE uint64_t chain_c(uint64_t x)
{
    chain_c_calls++;  /* profile: chain_c body */
    return x * 2654435761u + (x >> 13);
}

NOINLINE uint64_t chain_b(uint64_t x)
{
    return chain_c(x ^ 0x5bd1e995u) + 7;
}

NOINLINE uint64_t chain_a(uint64_t x)
{
    return chain_b(x + 1) ^ (x << 1);
}

NOINLINE uint64_t op_add(uint64_t a, uint64_t b) { op_calls[0]++; return a + b; }
NOINLINE uint64_t op_xor(uint64_t a, uint64_t b) { op_calls[1]++; return a ^ b; }
NOINLINE uint64_t op_rot(uint64_t a, uint64_t b) { op_calls[2]++; return (a << 7 | a >> 57) + b; }

uint64_t (*ops[3])(uint64_t, uint64_t) = {op_add, op_xor, op_rot};

/* The index comes from the data, so the compiler cannot resolve the call. */
NOINLINE uint64_t dispatch(unsigned n)
{
    uint64_t acc = 1;
    for (unsigned i = 0; i < n; i++)
        acc = ops[(acc >> 5) % 3](acc, i);  /* profile: ops call */
    return acc;
}

/* Runs once: absent from a sampled profile, or nearly. */
NOINLINE uint64_t cold_setup(void)
{
    uint64_t h = 14695981039346656037ull;
    for (const char *p = "brisk autofdo workload"; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

int main(void)
{
    uint64_t sum = cold_setup();
    sum ^= hot_loop(LOOP_ITERS);
    for (unsigned i = 0; i < CHAIN_CALLS; i++)
        sum += chain_a(sum + i);
    sum ^= dispatch(DISPATCH_CALLS);
    printf("slow_path %u of %u\n", slow_calls, LOOP_ITERS);
    printf("chain_c %u\n", chain_c_calls);
    printf("op_add %u op_xor %u op_rot %u\n", op_calls[0], op_calls[1], op_calls[2]);
    printf("checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
