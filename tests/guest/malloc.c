/* Memory management a runner must provide: brk (small malloc blocks, sbrk), anonymous mmap
 * (large blocks, direct mmap/munmap/mprotect), realloc that moves, calloc zeroing, alignment. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check_c.h"

#define NSMALL 20000

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + i * 7);
}

static int holds(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i * 7))
            return 0;
    return 1;
}

int main(void)
{
    /* Many small blocks of mixed sizes, freed in an interleaved order. */
    static unsigned char *small[NSMALL];
    static size_t size[NSMALL];
    for (int i = 0; i < NSMALL; i++) {
        size[i] = 1 + next() % 300;
        small[i] = malloc(size[i]);
        CHECK(small[i] != NULL);
        CHECK_EQ((uintptr_t)small[i] % 16, 0);
        fill(small[i], size[i], i);
    }
    for (int i = 0; i < NSMALL; i += 2)
        free(small[i]);
    for (int i = 0; i < NSMALL; i += 2) {
        size[i] = 1 + next() % 600;
        small[i] = malloc(size[i]);
        CHECK(small[i] != NULL);
        fill(small[i], size[i], i);
    }
    for (int i = 0; i < NSMALL; i++) {
        CHECK(holds(small[i], size[i], i));
        free(small[i]);
    }

    /* Large blocks come from mmap; touch every page. */
    for (int round = 0; round < 3; round++) {
        size_t n = (size_t)(8 + round * 8) << 20;
        unsigned char *big = malloc(n);
        CHECK(big != NULL);
        for (size_t i = 0; i < n; i += 4096)
            big[i] = (unsigned char)(i >> 12);
        big[n - 1] = 0xa5;
        for (size_t i = 0; i < n; i += 4096)
            CHECK_EQ(big[i], (unsigned char)(i >> 12));
        CHECK_EQ(big[n - 1], 0xa5);
        free(big);
    }

    /* calloc zeroes, including memory recycled from freed blocks. */
    unsigned char *dirty = malloc(100000);
    memset(dirty, 0xff, 100000);
    free(dirty);
    unsigned char *z = calloc(100000, 1);
    CHECK(z != NULL);
    for (size_t i = 0; i < 100000; i++)
        CHECK_EQ(z[i], 0);
    free(z);
    z = calloc(1 << 20, 4);
    CHECK(z != NULL);
    for (size_t i = 0; i < (4u << 20); i += 512)
        CHECK_EQ(z[i], 0);
    free(z);

    /* realloc keeps the contents while growing from brk into mmap and shrinking back. */
    size_t n = 16;
    unsigned char *r = malloc(n);
    fill(r, n, 3);
    while (n < (4u << 20)) {
        size_t m = n * 4;
        r = realloc(r, m);
        CHECK(r != NULL);
        CHECK(holds(r, n, 3));
        fill(r, m, 3);
        n = m;
    }
    r = realloc(r, 100);
    CHECK(holds(r, 100, 3));
    free(r);

    void *aligned = NULL;
    CHECK_EQ(posix_memalign(&aligned, 4096, 10000), 0);
    CHECK_EQ((uintptr_t)aligned % 4096, 0);
    memset(aligned, 1, 10000);
    free(aligned);

    /* sbrk grows and shrinks the break. */
    char *brk0 = sbrk(0);
    CHECK(brk0 != (char *)-1);
    CHECK(sbrk(65536) == brk0);
    CHECK(sbrk(0) == brk0 + 65536);
    memset(brk0, 0x5a, 65536);
    CHECK_EQ(brk0[65535], 0x5a);
    CHECK(sbrk(-65536) == brk0 + 65536);
    CHECK(sbrk(0) == brk0);

    /* Direct mmap: fresh pages are zero; munmap of the middle leaves the ends; mprotect. */
    long page = sysconf(_SC_PAGESIZE);
    CHECK_EQ(page, 4096);
    unsigned char *m = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    CHECK_EQ((uintptr_t)m % page, 0);
    for (long i = 0; i < 3 * page; i++)
        CHECK_EQ(m[i], 0);
    m[0] = 1;
    m[2 * page] = 3;
    CHECK_EQ(munmap(m + page, page), 0);
    CHECK_EQ(m[0] + m[2 * page], 4);
    CHECK_EQ(mprotect(m, page, PROT_READ), 0);
    CHECK_EQ(m[0], 1);
    CHECK_EQ(mprotect(m, page, PROT_READ | PROT_WRITE), 0);
    m[0] = 2;
    CHECK_EQ(m[0], 2);
    unsigned char *again = mmap(m + page, page, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(again == m + page);
    CHECK_EQ(again[100], 0);
    CHECK_EQ(munmap(m, 3 * page), 0);
    return 0;
}
