/* Address-space arithmetic: lengths like ~0 and ranges that wrap get Linux's errors, page 0 is
 * never mapped (vm.mmap_min_addr), and nothing outside the guest's own mappings changes. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "isolation.h"

#define PG 4096ul
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

static volatile uint64_t global = 42;

static long raw(long n, long a, long b, long c, long d, long e, long f) { return syscall(n, a, b, c, d, e, f); }

/* p..p+len is mapped, readable and holds `fill`. */
static void check_intact(const char *p, size_t len, char fill) {
    for (size_t k = 0; k < len; k += PG) CHECK_EQ(p[k], fill);
}

int main(void) {
    /* Page 0 and everything below mmap_min_addr: EPERM for a fixed mapping, a hint is not taken. */
    CHECK_ERRNO(raw(SYS_mmap, 0, PG, RW, ANON | MAP_FIXED, -1, 0), EPERM);
    CHECK_ERRNO(raw(SYS_mmap, 0x1000, PG, RW, ANON | MAP_FIXED, -1, 0), EPERM);
    CHECK_ERRNO(raw(SYS_mmap, 0, PG, RW, ANON | MAP_FIXED_NOREPLACE, -1, 0), EPERM);
    long hinted = raw(SYS_mmap, 0x1000, PG, RW, ANON, -1, 0);
    CHECK(hinted >= 0x10000);
    CHECK_EQ(munmap((void *)hinted, PG), 0);

    /* Lengths that round up past 2^64, or reach beyond the address space. */
    CHECK_ERRNO(raw(SYS_mmap, 0, ~0l, RW, ANON, -1, 0), ENOMEM);
    CHECK_ERRNO(raw(SYS_mmap, 0, -(long)PG + 1, RW, ANON, -1, 0), ENOMEM);
    CHECK_ERRNO(raw(SYS_mmap, 0, 1l << 62, RW, ANON, -1, 0), ENOMEM);
    CHECK_ERRNO(raw(SYS_mmap, 0x100000, ~0l, RW, ANON | MAP_FIXED, -1, 0), ENOMEM);
    CHECK_ERRNO(raw(SYS_mmap, 0x100000, 1l << 62, RW, ANON | MAP_FIXED, -1, 0), ENOMEM);
    CHECK_ERRNO(raw(SYS_mmap, 0x100001, PG, RW, ANON | MAP_FIXED, -1, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_mmap, 0, 0, RW, ANON, -1, 0), EINVAL);

    /* Four pages with holes on either side, so no neighbour can join them. */
    char *p = mmap(NULL, 6 * PG, RW, ANON, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK_EQ(munmap(p, PG), 0);
    CHECK_EQ(munmap(p + 5 * PG, PG), 0);
    p += PG;
    memset(p, 'a', 4 * PG);

    /* munmap: ~0 and wrapping ranges are EINVAL and unmap nothing; page 0 has nothing to unmap. */
    CHECK_ERRNO(munmap(p, ~0ul), EINVAL);
    CHECK_ERRNO(munmap(p, -(unsigned long)(uintptr_t)p), EINVAL);
    CHECK_ERRNO(munmap(p, 0), EINVAL);
    CHECK_ERRNO(munmap(p + 1, PG), EINVAL);
    CHECK_EQ(munmap(NULL, PG), 0);
    check_intact(p, 4 * PG, 'a');

    /* mprotect: a length that rounds past 2^64 is ENOMEM, unknown bits EINVAL, holes ENOMEM. */
    CHECK_ERRNO(mprotect(p, ~0ul, PROT_READ), ENOMEM);
    CHECK_ERRNO(mprotect(p, -(unsigned long)(uintptr_t)p, PROT_READ), ENOMEM);
    CHECK_ERRNO(mprotect(p, PG, 0x100), EINVAL);
    CHECK_ERRNO(mprotect(p, 1ul << 40, RW), ENOMEM); /* Linux changes what is mapped before the hole */
    CHECK_EQ(mprotect(p, 0, PROT_NONE), 0);
    p[0] = 'a'; /* still writable */
    check_intact(p, 4 * PG, 'a');

    /* mremap: lengths that round to 0, a fixed target in page 0 or overlapping the source. */
    CHECK_ERRNO(raw(SYS_mremap, (long)p, PG, ~0l, MREMAP_MAYMOVE, 0, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_mremap, (long)p, ~0l, 2 * PG, MREMAP_MAYMOVE, 0, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_mremap, (long)p, PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, 0, 0), EPERM);
    CHECK_ERRNO(raw(SYS_mremap, (long)p, PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, (long)p - PG, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_mremap, (long)p, PG, 2 * PG, MREMAP_FIXED, 0x200000, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_mremap, (long)p, PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, -(long)PG, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_mremap, (long)p, PG, 1l << 62, MREMAP_MAYMOVE | MREMAP_FIXED, 0x200000, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_mremap, (long)p, 8 * PG, 16 * PG, MREMAP_MAYMOVE, 0, 0), EFAULT);
    CHECK_ERRNO(raw(SYS_mremap, (long)p, PG, 2 * PG, 0x100, 0, 0), EINVAL);
    check_intact(p, 4 * PG, 'a');

    /* madvise: a length that rounds to 0 is EINVAL, unknown advice EINVAL, holes ENOMEM. */
    CHECK_ERRNO(madvise(p, ~0ul, MADV_DONTNEED), EINVAL);
    CHECK_ERRNO(madvise(p, PG, 12345), EINVAL);
    CHECK_ERRNO(madvise(p + 1, PG, MADV_DONTNEED), EINVAL);
    CHECK_ERRNO(madvise(p, 1ul << 40, MADV_WILLNEED), ENOMEM);
    check_intact(p, 4 * PG, 'a');
    CHECK_EQ(madvise(p + PG, PG, MADV_DONTNEED), 0);
    CHECK_EQ(p[PG], 0); /* dropped: reads as zeros */
    p[PG] = 'a';

    /* msync: as in Linux, a length that rounds to 0 syncs nothing and succeeds. */
    CHECK_EQ(msync(p, ~0ul, MS_SYNC), 0);
    CHECK_ERRNO(msync(p, PG, MS_SYNC | MS_ASYNC), EINVAL);
    CHECK_ERRNO(msync(p + 1, PG, MS_SYNC), EINVAL);
    CHECK_ERRNO(msync(p, 1ul << 40, MS_SYNC), ENOMEM);
    CHECK_ERRNO(msync(p, -(unsigned long)(uintptr_t)p + PG, MS_SYNC), ENOMEM);
    check_intact(p, 4 * PG, 'a');

    /* mremap grows in place into free space, and only moves when allowed to. */
    char *q = mmap(NULL, 12 * PG, RW, ANON, -1, 0); /* q's first page, a hole, a last page in the way */
    CHECK(q != MAP_FAILED);
    CHECK_EQ(munmap(q + PG, 10 * PG), 0);
    q[0] = 'q';
    CHECK_EQ(raw(SYS_mremap, (long)q, PG, 2 * PG, 0, 0, 0), (long)q);
    CHECK_EQ(q[0], 'q');
    q[PG] = 'r';
    CHECK_ERRNO(raw(SYS_mremap, (long)q, 2 * PG, 20 * PG, 0, 0, 0), ENOMEM);
    CHECK_EQ(q[PG], 'r');
    CHECK_EQ(munmap(q, 12 * PG), 0);

    /* brk beyond the address space, or with a size that wraps, leaves the break where it was. */
    long cur = raw(SYS_brk, 0, 0, 0, 0, 0, 0);
    CHECK(cur > 0);
    CHECK_EQ(raw(SYS_brk, ~0l, 0, 0, 0, 0, 0), cur);
    CHECK_EQ(raw(SYS_brk, -(long)PG + 1, 0, 0, 0, 0, 0), cur);
    CHECK_EQ(raw(SYS_brk, 1l << 62, 0, 0, 0, 0, 0), cur);
    CHECK_EQ(raw(SYS_brk, 0, 0, 0, 0, 0, 0), cur);
    CHECK_EQ(raw(SYS_brk, cur + PG, 0, 0, 0, 0, 0), cur + PG);
    ((volatile char *)cur)[0] = 1;
    CHECK_EQ(raw(SYS_brk, cur, 0, 0, 0, 0, 0), cur);

    /* A shared file mapping beyond the end of its file: a buffer there that brisk itself fills
     * (fstat's struct) gives EFAULT, as Linux's copy_to_user does, not a host SIGBUS. */
    char name[] = "/tmp/brisk-mm-XXXXXX";
    int fd = mkstemp(name);
    CHECK(fd >= 0);
    CHECK_EQ(unlink(name), 0);
    CHECK_EQ(ftruncate(fd, 100), 0);
    char *m = mmap(NULL, 2 * PG, RW, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    CHECK_ERRNO(raw(SYS_fstat, fd, (long)(m + PG), 0, 0, 0, 0), EFAULT);
    CHECK_ERRNO(raw(SYS_clock_gettime, CLOCK_MONOTONIC, (long)(m + PG), 0, 0, 0, 0), EFAULT);
    CHECK_EQ(munmap(m, 2 * PG), 0);
    CHECK_EQ(close(fd), 0);

    /* The program, its data and its mappings are all still there. */
    CHECK_EQ(global, 42);
    check_intact(p, 4 * PG, 'a');
    CHECK_EQ(munmap(p, 4 * PG), 0);
    return 0;
}
