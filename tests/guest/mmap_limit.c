/* The user-mode guest's address space ends at LIMIT GiB: 256 (Sv39's user half), or 1 in a
 * sanitizer build, where ASan's shadow takes the rest of the host's low 2 GiB (README, "brisk is
 * safe to run"; runtime/guest_vm.h):
 *   mmap_limit LIMIT
 * The stack is just below LIMIT; a mapping at LIMIT, or one as large as the whole space, fails with
 * ENOMEM; a mapping just below the stack, and a large one (three quarters of the space), succeed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "check_c.h"

#define MIB (1ull << 20)

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    const uint64_t limit = strtoull(argv[1], NULL, 10) << 30;
    CHECK(limit != 0);

    volatile int local = 0;
    const uint64_t sp = (uint64_t)(uintptr_t)&local;
    CHECK(sp < limit);
    CHECK(sp > limit - 8 * MIB);  /* the 8 MiB stack at the top */

    const int anon = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    errno = 0;
    CHECK(mmap((void *)(uintptr_t)limit, 4096, PROT_READ | PROT_WRITE, anon | MAP_FIXED_NOREPLACE, -1, 0) == MAP_FAILED);
    CHECK_EQ(errno, ENOMEM);
    errno = 0;
    CHECK(mmap(NULL, limit, PROT_NONE, anon, -1, 0) == MAP_FAILED);
    CHECK_EQ(errno, ENOMEM);

    volatile char *below = mmap((void *)(uintptr_t)(limit - 64 * MIB), 4096, PROT_READ | PROT_WRITE,
                                anon | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK_EQ(below, limit - 64 * MIB);
    below[4095] = 1;
    const uint64_t big = limit / 4 * 3;
    volatile char *p = mmap(NULL, big, PROT_READ | PROT_WRITE, anon, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK((uint64_t)(uintptr_t)p + big <= limit);
    p[0] = 1;
    p[big - 1] = 2;
    CHECK_EQ(p[0] + p[big - 1], 3);
    CHECK_EQ(munmap((void *)p, big), 0);
    return 0;
}
