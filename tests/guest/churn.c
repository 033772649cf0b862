/* Guests that keep making new code, mappings and threads, for tests/integration/bounded.sh (brisk's
 * memory must stay bounded however long they run):
 *   churn code N     N times: writes 256 small functions over the next page of a 1 MiB RWX region
 *                    (new code pages, then stores over translated code) and calls each;
 *   churn maps N     maps 4 MiB (every other time at a new address), writes every page of it and
 *                    unmaps it, N times;
 *   churn threads N  creates a thread that runs code of its own, and joins it, N times.
 * Each checks what it ran and exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "check_c.h"

#define CODE_SIZE (1u << 20)
#define MAP_SIZE (4u << 20)
#define MAP_HINT (1ull << 32)

static void code(long n)
{
    uint8_t *region = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(region != MAP_FAILED);
    for (long i = 0; i < n; i++) {
        /* A page of 256 functions, the next of the region's pages: written, then each called. */
        uint32_t *page = (uint32_t *)(region + (i * 4096) % CODE_SIZE);
        for (unsigned k = 0; k < 256; k++) {
            page[4 * k] = ((uint32_t)(i + k) & 0x7ff) << 20 | 10 << 7 | 0x13;  /* addi a0, zero, imm */
            page[4 * k + 1] = 1 << 15 | 0x67;                                  /* jalr zero, 0(ra) */
        }
        __builtin___clear_cache((char *)page, (char *)page + 4096);
        for (unsigned k = 0; k < 256; k++)
            CHECK_EQ(((long (*)(void))(page + 4 * k))(), (uint32_t)(i + k) & 0x7ff);
    }
    CHECK_EQ(munmap(region, CODE_SIZE), 0);
}

static void maps(long n)
{
    for (long i = 0; i < n; i++) {
        /* At a new address each time (a hint, which a free range takes), as well as where freed. */
        void *hint = i % 2 ? NULL : (void *)(uintptr_t)(MAP_HINT + (uint64_t)i * MAP_SIZE);
        volatile uint8_t *p = mmap(hint, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(p != MAP_FAILED);
        CHECK(!hint || p == hint);
        for (unsigned off = 0; off < MAP_SIZE; off += 4096)
            p[off] = (uint8_t)(i + off / 4096);
        CHECK_EQ(p[MAP_SIZE - 4096], (uint8_t)(i + MAP_SIZE / 4096 - 1));
        CHECK_EQ(munmap((void *)p, MAP_SIZE), 0);
    }
}

static void *thread_main(void *arg)
{
    /* Code of its own: the thread's engine translates it. */
    uint64_t x = (uint64_t)(uintptr_t)arg;
    for (int i = 0; i < 1000; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    return (void *)(uintptr_t)x;
}

static void threads(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_t t;
        CHECK_EQ(pthread_create(&t, NULL, thread_main, (void *)(uintptr_t)i), 0);
        void *ret;
        CHECK_EQ(pthread_join(t, &ret), 0);
        uint64_t x = (uint64_t)i;
        for (int k = 0; k < 1000; k++)
            x = x * 6364136223846793005u + 1442695040888963407u;
        CHECK_EQ((uint64_t)(uintptr_t)ret, x);
    }
}

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    const long n = atol(argv[2]);
    if (!strcmp(argv[1], "code"))
        code(n);
    else if (!strcmp(argv[1], "maps"))
        maps(n);
    else if (!strcmp(argv[1], "threads"))
        threads(n);
    else
        CHECK(!"mode: code, maps or threads");
    return 0;
}
