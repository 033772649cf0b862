/* Signal numbers outside 1..64 are EINVAL wherever a system call takes one, as in Linux, and
 * brisk's tables indexed by them stay untouched. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "isolation.h"

struct k_sigaction {
    uintptr_t handler;
    unsigned long flags;
    uint64_t mask;
};

struct k_stack {
    uintptr_t sp;
    int flags;
    size_t size;
};

static long raw(long n, long a, long b, long c, long d) { return syscall(n, a, b, c, d); }

int main(void) {
    const long pid = getpid(), tid = syscall(SYS_gettid);
    static const long bad[] = {65, 66, 1000, -1, 0x7fffffff};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        CHECK_ERRNO(raw(SYS_kill, pid, bad[k], 0, 0), EINVAL);
        CHECK_ERRNO(raw(SYS_kill, 0, bad[k], 0, 0), EINVAL);
        CHECK_ERRNO(raw(SYS_tkill, tid, bad[k], 0, 0), EINVAL);
        CHECK_ERRNO(raw(SYS_tgkill, pid, tid, bad[k], 0), EINVAL);
        struct k_sigaction act = {(uintptr_t)SIG_IGN, 0, 0}, old;
        CHECK_ERRNO(raw(SYS_rt_sigaction, bad[k], (long)&act, (long)&old, 8), EINVAL);
        CHECK_ERRNO(raw(SYS_rt_sigaction, bad[k], 0, (long)&old, 8), EINVAL);
    }
    /* Signal 0 is the existence check, and names no action. */
    CHECK_EQ(raw(SYS_kill, pid, 0, 0, 0), 0);
    CHECK_EQ(raw(SYS_tgkill, pid, tid, 0, 0), 0);
    struct k_sigaction act = {(uintptr_t)SIG_IGN, 0, 0}, old;
    CHECK_ERRNO(raw(SYS_rt_sigaction, 0, (long)&act, (long)&old, 8), EINVAL);
    /* Thread ids are positive. */
    CHECK_ERRNO(raw(SYS_tkill, 0, SIGUSR1, 0, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_tkill, -1, SIGUSR1, 0, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_tgkill, 0, tid, SIGUSR1, 0), EINVAL);
    CHECK_ERRNO(raw(SYS_tgkill, pid, 0, SIGUSR1, 0), EINVAL);
    /* SIGKILL and SIGSTOP keep their actions, the set size must be 8, and 64 is a real signal. */
    CHECK_ERRNO(raw(SYS_rt_sigaction, SIGKILL, (long)&act, 0, 8), EINVAL);
    CHECK_EQ(raw(SYS_rt_sigaction, SIGKILL, 0, (long)&old, 8), 0);
    CHECK_EQ(old.handler, (uintptr_t)SIG_DFL);
    CHECK_ERRNO(raw(SYS_rt_sigaction, SIGUSR1, (long)&act, 0, 16), EINVAL);
    CHECK_EQ(raw(SYS_rt_sigaction, 64, (long)&act, 0, 8), 0);
    CHECK_EQ(raw(SYS_rt_sigaction, 64, 0, (long)&old, 8), 0);
    CHECK_EQ(old.handler, (uintptr_t)SIG_IGN);
    CHECK_EQ(raw(SYS_kill, pid, 64, 0, 0), 0); /* ignored: the program carries on */

    /* rt_sigprocmask: an unknown how, and SIGKILL/SIGSTOP can never be blocked. */
    uint64_t set = ~0ull, got = 0;
    CHECK_ERRNO(raw(SYS_rt_sigprocmask, 7, (long)&set, 0, 8), EINVAL);
    CHECK_ERRNO(raw(SYS_rt_sigprocmask, SIG_BLOCK, (long)&set, 0, 16), EINVAL);
    CHECK_EQ(raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)&set, 0, 8), 0);
    CHECK_EQ(raw(SYS_rt_sigprocmask, SIG_SETMASK, 0, (long)&got, 8), 0);
    CHECK_EQ(got, ~0ull & ~((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1))));
    set = 0;
    CHECK_EQ(raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)&set, 0, 8), 0);

    /* sigaltstack: a bad mode, a stack below MINSIGSTKSZ, then one that is kept. */
    static char stack[16384];
    struct k_stack ss = {(uintptr_t)stack, 12345, sizeof stack}, os;
    CHECK_ERRNO(raw(SYS_sigaltstack, (long)&ss, 0, 0, 0), EINVAL);
    ss.flags = 0;
    ss.size = 100;
    CHECK_ERRNO(raw(SYS_sigaltstack, (long)&ss, 0, 0, 0), ENOMEM);
    CHECK_EQ(raw(SYS_sigaltstack, 0, (long)&os, 0, 0), 0);
    CHECK_EQ(os.flags, SS_DISABLE);
    ss.size = sizeof stack;
    CHECK_EQ(raw(SYS_sigaltstack, (long)&ss, 0, 0, 0), 0);
    CHECK_EQ(raw(SYS_sigaltstack, 0, (long)&os, 0, 0), 0);
    CHECK_EQ(os.sp, (uintptr_t)stack);
    CHECK_EQ(os.size, sizeof stack);
    CHECK_EQ(os.flags, 0);
    return 0;
}
