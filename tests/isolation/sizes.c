/* Guest pointers with lengths and counts: a count times an element size that wraps, or a length
 * beyond the address space, fails as Linux fails it, and brisk never touches memory outside the
 * guest's buffers. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "isolation.h"

#ifndef __NR_riscv_hwprobe
#define __NR_riscv_hwprobe 258
#endif

struct hwprobe_pair {
    int64_t key;
    uint64_t value;
};

/* The sixth argument is 0, so that a call of five (pselect6 without a signal mask) passes no garbage there. */
static long raw(long n, long a, long b, long c, long d, long e) { return syscall(n, a, b, c, d, e, 0L); }

static void hwprobe(void) {
    /* Two pairs at the end of a page, an unmapped page after them. */
    char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(pages != MAP_FAILED);
    CHECK_EQ(munmap(pages + 4096, 4096), 0);
    struct hwprobe_pair *p = (struct hwprobe_pair *)(pages + 4096) - 2;
    p[0].key = 4; /* RISCV_HWPROBE_KEY_IMA_EXT_0 */
    p[1].key = 1000;
    /* 2^60 pairs of 16 bytes are 2^64 bytes, which wraps to 0: answered one by one up to the hole. */
    CHECK_ERRNO(raw(__NR_riscv_hwprobe, (long)p, 1l << 60, 0, 0, 0), EFAULT);
    CHECK(p[0].value & 1); /* RISCV_HWPROBE_IMA_FD */
    CHECK_EQ(p[1].key, -1);
    CHECK_EQ(p[1].value, 0);
    /* Reserved flags, a cpu set of CPU 1 only (brisk run --cpus 1 gives the guest one CPU). */
    CHECK_ERRNO(raw(__NR_riscv_hwprobe, (long)p, 2, 0, 0, 1), EINVAL);
    unsigned long cpus = 2;
    CHECK_ERRNO(raw(__NR_riscv_hwprobe, (long)p, 2, sizeof cpus, (long)&cpus, 0), EINVAL);
    cpus = 1;
    p[0].key = 4;
    p[1].key = 4;
    CHECK_EQ(raw(__NR_riscv_hwprobe, (long)p, 2, sizeof cpus, (long)&cpus, 0), 0);
    CHECK_EQ(p[0].value, p[1].value);
    munmap(pages, 4096);

    /* Pairs off the page grid over two pages, a hole after them: the one that runs into the hole is
     * EFAULT, and every pair before it is answered, in either page. */
    char *span = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(span != MAP_FAILED);
    CHECK_EQ(munmap(span + 8192, 4096), 0);
    struct hwprobe_pair *q = (struct hwprobe_pair *)(span + 8);
    enum { whole = (8192 - 8) / sizeof *q }; /* q[whole]'s key is the last word before the hole */
    for (int k = 0; k <= whole; k++) {
        q[k].key = 1000;
        if (k < whole) q[k].value = 77;
    }
    CHECK_ERRNO(raw(__NR_riscv_hwprobe, (long)q, 1l << 60, 0, 0, 0), EFAULT);
    for (int k = 0; k < whole; k++) {
        CHECK_EQ(q[k].key, -1);
        CHECK_EQ(q[k].value, 0);
    }
    CHECK_EQ(q[whole].key, 1000);
    munmap(span, 8192);
}

static void polls(void) {
    int pipefd[2];
    CHECK_EQ(pipe(pipefd), 0);
    struct pollfd fds[1] = {{pipefd[1], POLLOUT, 0}};
    struct timespec zero = {0, 0};
    struct rlimit lim;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
    /* nfds beyond RLIMIT_NOFILE is EINVAL before the array is looked at. */
    CHECK_ERRNO(raw(SYS_ppoll, (long)fds, (long)lim.rlim_cur + 1, (long)&zero, 0, 8), EINVAL);
    /* nfds is an unsigned int: 2^61 + 1 is 1 (and 8 * (2^61 + 1) wraps to 8). */
    CHECK_EQ(raw(SYS_ppoll, (long)fds, (1l << 61) + 1, (long)&zero, 0, 8), 1);
    CHECK_EQ(fds[0].revents, POLLOUT);
    /* A signal mask of the wrong size. */
    unsigned long mask = 0;
    CHECK_ERRNO(raw(SYS_ppoll, (long)fds, 1, (long)&zero, (long)&mask, 16), EINVAL);

    /* select: n is an int, negative is EINVAL, a huge one is clamped to the descriptor table. */
    CHECK_EQ(write(pipefd[1], "x", 1), 1);
    static unsigned long rset[1024], none[1024];
    rset[pipefd[0] / 64] = 1ul << (pipefd[0] % 64);
    CHECK_ERRNO(raw(SYS_pselect6, -1, (long)rset, 0, 0, (long)&zero), EINVAL);
    CHECK_EQ(raw(SYS_pselect6, INT_MAX, (long)rset, (long)none, 0, (long)&zero), 1);
    CHECK_EQ(rset[pipefd[0] / 64], 1ul << (pipefd[0] % 64));
    close(pipefd[0]);
    close(pipefd[1]);
}

static void lengths(void) {
    static char data[4096];
    int fd = open("/dev/zero", O_RDONLY);
    CHECK(fd >= 0);
    /* A length past the address space. */
    CHECK_ERRNO(raw(SYS_read, fd, (long)data, ~0l, 0, 0), EFAULT);
    /* readv: more than IOV_MAX vectors, a vector length that is negative as ssize_t. */
    struct iovec iov[2] = {{data, 16}, {data, 1ul << 63}};
    CHECK_ERRNO(raw(SYS_readv, fd, (long)iov, IOV_MAX + 1, 0, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_readv, fd, (long)iov, 1l << 60, 0, 0), EINVAL);
    CHECK_ERRNO(readv(fd, iov, 2), EINVAL);
    iov[1].iov_len = 16;
    CHECK_EQ(readv(fd, iov, 2), 32);
    close(fd);
    /* readlink's size is an int: zero or negative is EINVAL. */
    CHECK_ERRNO(raw(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/exe", (long)data, -1, 0), EINVAL);
    /* getcwd copies only the path, however large the size. */
    CHECK(raw(SYS_getcwd, (long)data, ~0l, 0, 0, 0) > 0);
    CHECK_EQ(data[0], '/');
    /* getgroups: a negative size is EINVAL; a large one writes only the groups there are. */
    CHECK_ERRNO(raw(SYS_getgroups, -1, (long)data, 0, 0, 0), EINVAL);
    long groups = raw(SYS_getgroups, 0, 0, 0, 0, 0);
    CHECK(groups >= 0 && groups < 1024);
    CHECK_EQ(raw(SYS_getgroups, INT_MAX, (long)data, 0, 0, 0), groups);
    /* sched_getaffinity: a size that is not a whole number of longs. */
    CHECK_ERRNO(raw(SYS_sched_getaffinity, 0, 12, (long)data, 0, 0), EINVAL);
}

int main(void) {
    hwprobe();
    polls();
    lengths();
    return 0;
}
