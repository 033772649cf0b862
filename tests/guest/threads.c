/* Guest threads: glibc pthreads on clone(CLONE_VM | CLONE_THREAD | ...), host-atomic AMOs and LR/SC,
 * fences, futexes, thread exit, robust mutexes, tgkill, and exit_group ending a thread blocked in read(). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_c.h"

#define NTHREADS 4
#define INCREMENTS 20000

static long tid(void) { return syscall(SYS_gettid); }

/* --- create/join, gettid --- */
static long tids[NTHREADS];

static void *report_tid(void *arg) {
    long k = (long)arg;
    tids[k] = tid();
    return (void *)(k * 10 + 1);
}

static void test_clone_flags(void) {
    /* As Linux: a thread shares signal actions, and they need shared memory. */
    errno = 0;
    CHECK_EQ(syscall(SYS_clone, CLONE_THREAD | CLONE_VM, 0, 0, 0, 0), -1);
    CHECK_EQ(errno, EINVAL);
    errno = 0;
    CHECK_EQ(syscall(SYS_clone, CLONE_SIGHAND, 0, 0, 0, 0), -1);
    CHECK_EQ(errno, EINVAL);
}

static void test_create_join(void) {
    pthread_t t[NTHREADS];
    for (long k = 0; k < NTHREADS; k++) CHECK_EQ(pthread_create(&t[k], NULL, report_tid, (void *)k), 0);
    for (long k = 0; k < NTHREADS; k++) {
        void *ret;
        CHECK_EQ(pthread_join(t[k], &ret), 0);
        CHECK_EQ((long)ret, k * 10 + 1);
    }
    CHECK_EQ(tid(), getpid());
    for (int k = 0; k < NTHREADS; k++) {
        CHECK(tids[k] > 0);
        CHECK(tids[k] != getpid());
        for (int j = 0; j < k; j++) CHECK(tids[j] != tids[k]);
    }
}

/* --- LR/SC and AMO increments --- */
static uint32_t lrsc_counter, amo_counter;
static volatile int go;

static void lrsc_add(uint32_t *p, uint32_t v) {
    uint32_t old, fail;
    __asm__ volatile("1: lr.w %0, (%2)\n"
                     "   addw %0, %0, %3\n"
                     "   sc.w %1, %0, (%2)\n"
                     "   bnez %1, 1b\n"
                     : "=&r"(old), "=&r"(fail)
                     : "r"(p), "r"(v)
                     : "memory");
}

static void *count(void *arg) {
    (void)arg;
    while (!go) {
    }
    for (int k = 0; k < INCREMENTS; k++) {
        lrsc_add(&lrsc_counter, 1);
        __asm__ volatile("amoadd.w zero, %1, (%0)" : : "r"(&amo_counter), "r"(1) : "memory");
    }
    return NULL;
}

static void test_atomics(void) {
    pthread_t t[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) CHECK_EQ(pthread_create(&t[k], NULL, count, NULL), 0);
    go = 1;
    for (int k = 0; k < NTHREADS; k++) CHECK_EQ(pthread_join(t[k], NULL), 0);
    CHECK_EQ(lrsc_counter, NTHREADS * INCREMENTS);
    CHECK_EQ(amo_counter, NTHREADS * INCREMENTS);
}

/* --- message passing: data, then flag with release; acquire flag, then data --- */
#define ROUNDS 20000
static uint64_t mp_data;
static uint32_t mp_flag, mp_ack;

static void *mp_writer(void *arg) {
    (void)arg;
    for (uint32_t r = 1; r <= ROUNDS; r++) {
        mp_data = (uint64_t)r * 0x9e3779b97f4a7c15ull;
        __atomic_store_n(&mp_flag, r, __ATOMIC_RELEASE);
        while (__atomic_load_n(&mp_ack, __ATOMIC_ACQUIRE) != r) {
        }
    }
    return NULL;
}

static void test_message_passing(void) {
    pthread_t w;
    CHECK_EQ(pthread_create(&w, NULL, mp_writer, NULL), 0);
    for (uint32_t r = 1; r <= ROUNDS; r++) {
        while (__atomic_load_n(&mp_flag, __ATOMIC_ACQUIRE) != r) {
        }
        CHECK_EQ(mp_data, (uint64_t)r * 0x9e3779b97f4a7c15ull);
        __atomic_store_n(&mp_ack, r, __ATOMIC_RELEASE);
    }
    CHECK_EQ(pthread_join(w, NULL), 0);
}

/* --- store buffering: with fence rw,rw between the store and the load, not both see 0 --- */
#define SB_ROUNDS 5000
static volatile uint32_t sb_x, sb_y, sb_seen_x, sb_seen_y;
static uint32_t sb_start, sb_done;

static uint32_t store_fence_load(volatile uint32_t *store, volatile uint32_t *load) {
    *store = 1;
    __asm__ volatile("fence rw, rw" ::: "memory");
    return *load;
}

static void *sb_other(void *arg) {
    (void)arg;
    for (uint32_t r = 1; r <= SB_ROUNDS; r++) {
        while (__atomic_load_n(&sb_start, __ATOMIC_ACQUIRE) != r) {
        }
        sb_seen_x = store_fence_load(&sb_y, &sb_x);
        __atomic_store_n(&sb_done, r, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void test_store_buffering(void) {
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, sb_other, NULL), 0);
    for (uint32_t r = 1; r <= SB_ROUNDS; r++) {
        sb_x = sb_y = 0;
        __atomic_store_n(&sb_start, r, __ATOMIC_RELEASE);
        sb_seen_y = store_fence_load(&sb_x, &sb_y);
        while (__atomic_load_n(&sb_done, __ATOMIC_ACQUIRE) != r) {
        }
        CHECK(sb_seen_x == 1 || sb_seen_y == 1);
    }
    CHECK_EQ(pthread_join(t, NULL), 0);
}

/* --- futexes --- */
static uint32_t fword;

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts) {
    return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static void *futex_waker(void *arg) {
    (void)arg;
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    __atomic_store_n(&fword, 1, __ATOMIC_SEQ_CST);
    while (futex(&fword, FUTEX_WAKE_PRIVATE, 1, NULL) == 0) nanosleep(&pause, NULL);  /* until it woke the waiter */
    return NULL;
}

static void test_futex(void) {
    struct timespec ts = {0, 30 * 1000 * 1000};
    errno = 0;
    CHECK_EQ(futex(&fword, FUTEX_WAIT_PRIVATE, 0, &ts), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    errno = 0;
    CHECK_EQ(futex(&fword, FUTEX_WAIT_PRIVATE, 5, &ts), -1);
    CHECK_EQ(errno, EAGAIN);
    errno = 0;
    CHECK_EQ(futex((uint32_t *)((char *)&fword + 1), FUTEX_WAIT_PRIVATE, 0, &ts), -1);
    CHECK_EQ(errno, EINVAL);
    /* A private wake looks at no memory: nothing mapped there is no error, as in Linux. */
    CHECK_EQ(futex((uint32_t *)8, FUTEX_WAKE_PRIVATE, 1, NULL), 0);
    errno = 0;
    CHECK_EQ(futex((uint32_t *)8, FUTEX_WAIT_PRIVATE, 0, &ts), -1);
    CHECK_EQ(errno, EFAULT);
    /* An absolute FUTEX_WAIT_BITSET deadline in the past. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    errno = 0;
    CHECK_EQ(syscall(SYS_futex, &fword, FUTEX_WAIT_BITSET_PRIVATE, 0, &now, NULL, FUTEX_BITSET_MATCH_ANY), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    /* A wake from another thread. */
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, futex_waker, NULL), 0);
    while (__atomic_load_n(&fword, __ATOMIC_SEQ_CST) == 0) futex(&fword, FUTEX_WAIT_PRIVATE, 0, NULL);
    CHECK_EQ(fword, 1);
    CHECK_EQ(pthread_join(t, NULL), 0);
}

/* --- one thread exits while another carries on --- */
static volatile int exited_first;
static uint32_t carried_on;

static void *exit_early(void *arg) {
    (void)arg;
    exited_first = 1;
    pthread_exit((void *)42);
}

static void *carry_on(void *arg) {
    (void)arg;
    while (!exited_first) {
    }
    for (int k = 0; k < 1000; k++) __atomic_fetch_add(&carried_on, 1, __ATOMIC_SEQ_CST);
    return (void *)7;
}

static void test_thread_exit(void) {
    pthread_t a, b;
    CHECK_EQ(pthread_create(&a, NULL, exit_early, NULL), 0);
    CHECK_EQ(pthread_create(&b, NULL, carry_on, NULL), 0);
    void *ra, *rb;
    CHECK_EQ(pthread_join(a, &ra), 0);
    CHECK_EQ((long)ra, 42);
    CHECK_EQ(pthread_join(b, &rb), 0);
    CHECK_EQ((long)rb, 7);
    CHECK_EQ(carried_on, 1000);
}

/* --- tgkill to one thread, kill to the process --- */
static volatile long handled_on, handled_usr2_on;
static volatile long spinner_tid;
static volatile int stop_spinning;

static void on_usr1(int sig) {
    (void)sig;
    handled_on = tid();
}
static void on_usr2(int sig) {
    (void)sig;
    handled_usr2_on = tid();
}

static void *spin(void *arg) {
    (void)arg;
    spinner_tid = tid();
    while (!stop_spinning) {
    }
    return NULL;
}

static void test_signals(void) {
    struct sigaction sa = {0};
    sa.sa_handler = on_usr1;
    CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    sa.sa_handler = on_usr2;
    CHECK_EQ(sigaction(SIGUSR2, &sa, NULL), 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, spin, NULL), 0);
    while (!spinner_tid) {
    }
    CHECK_EQ(syscall(SYS_tgkill, getpid(), spinner_tid, SIGUSR1), 0);
    while (!handled_on) {
    }
    CHECK_EQ(handled_on, spinner_tid);
    /* The main thread blocks SIGUSR2: the process's signal goes to the one that does not. */
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &usr2, NULL), 0);
    CHECK_EQ(kill(getpid(), SIGUSR2), 0);
    while (!handled_usr2_on) {
    }
    CHECK_EQ(handled_usr2_on, spinner_tid);
    CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, &usr2, NULL), 0);
    stop_spinning = 1;
    CHECK_EQ(pthread_join(t, NULL), 0);
    /* tgkill naming a thread that is not one of ours. */
    errno = 0;
    CHECK_EQ(syscall(SYS_tgkill, getpid(), 0x3fffffff, SIGUSR1), -1);
    CHECK_EQ(errno, ESRCH);
}

/* --- one thread rewrites code another thread runs --- */
#define LI_A0(k) (0x00000513u | ((uint32_t)(k) << 20)) /* addi a0, zero, k */
#define RET 0x00008067u
typedef long (*code_fn)(void);
static uint32_t *code;
static uint32_t rewritten, calls_before, stale_after;

static void *run_code(void *arg) {
    (void)arg;
    for (uint32_t seen = 0; seen < 1000;) {
        const uint32_t done = __atomic_load_n(&rewritten, __ATOMIC_ACQUIRE);
        if (done) __asm__ volatile("fence.i" ::: "memory"); /* this hart's side of the rewrite */
        const long v = ((code_fn)code)();
        if (!done) {
            __atomic_fetch_add(&calls_before, 1, __ATOMIC_RELAXED);
            continue;
        }
        if (v != 2) stale_after++;
        seen++;
    }
    return NULL;
}

static void test_cross_modifying_code(void) {
    code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(code != MAP_FAILED);
    code[0] = LI_A0(1);
    code[1] = RET;
    __asm__ volatile("fence.i" ::: "memory");
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, run_code, NULL), 0);
    while (__atomic_load_n(&calls_before, __ATOMIC_RELAXED) < 1000) {
    }
    code[0] = LI_A0(2);
    __asm__ volatile("fence.i" ::: "memory");
    __atomic_store_n(&rewritten, 1, __ATOMIC_RELEASE);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(stale_after, 0);
    CHECK_EQ(munmap(code, 4096), 0);
}

/* --- fork from a thread: the child has that one thread only, and can make more --- */
static void *child_thread(void *arg) { return arg; }

static void *fork_in_thread(void *arg) {
    (void)arg;
    const pid_t pid = fork();
    if (pid == 0) {
        pthread_t t;
        void *ret = NULL;
        if (tid() != getpid() || pthread_create(&t, NULL, child_thread, (void *)5) || pthread_join(t, &ret)) _exit(6);
        _exit((int)(long)ret);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return (void *)-1;
    return (void *)(long)status;
}

static void test_fork(void) {
    pthread_t t;
    void *status;
    CHECK_EQ(pthread_create(&t, NULL, fork_in_thread, NULL), 0);
    CHECK_EQ(pthread_join(t, &status), 0);
    CHECK(WIFEXITED((int)(long)status));
    CHECK_EQ(WEXITSTATUS((int)(long)status), 5);
}

/* --- exit_group from a thread while the main thread blocks in read() --- */
static void *end_all(void *arg) {
    (void)arg;
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    syscall(SYS_exit_group, 0);
    return NULL;
}

/* `threads spin`: two threads spin and the main thread blocks in read(), for --timeout and
 * --max-insns, which must stop them all (tests/guest/CMakeLists.txt). */
static void *spin_forever(void *arg) {
    for (;;) {
    }
    return arg;
}

static void spin_until_stopped(void) {
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    pthread_t t;
    for (int k = 0; k < 2; k++) CHECK_EQ(pthread_create(&t, NULL, spin_forever, NULL), 0);
    char c;
    read(fds[0], &c, 1);
    CHECK(!"read returned");
}

/* `threads segv`: a thread's fault kills the process while the main thread waits in pthread_join. */
static void *fault(void *arg) {
    *(volatile int *)arg = 1;
    return NULL;
}

static void fault_in_thread(void) {
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, fault, (void *)16), 0);
    pthread_join(t, NULL);
    CHECK(!"pthread_join returned");
}

/* --- robust lists: a robust mutex whose owner exited is EOWNERDEAD to the next locker --- */
static pthread_mutex_t robust;

static void *lock_and_exit(void *arg) {
    CHECK_EQ(pthread_mutex_lock(&robust), 0);
    return arg;
}

static void test_robust_mutex(void) {
    pthread_mutexattr_t attr;
    CHECK_EQ(pthread_mutexattr_init(&attr), 0);
    CHECK_EQ(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST), 0);
    CHECK_EQ(pthread_mutex_init(&robust, &attr), 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, lock_and_exit, NULL), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    struct timespec deadline;  /* a lost robust list would leave it locked for good */
    CHECK_EQ(clock_gettime(CLOCK_REALTIME, &deadline), 0);
    deadline.tv_sec += 30;
    CHECK_EQ(pthread_mutex_timedlock(&robust, &deadline), EOWNERDEAD);
    CHECK_EQ(pthread_mutex_consistent(&robust), 0);
    CHECK_EQ(pthread_mutex_unlock(&robust), 0);
    CHECK_EQ(pthread_mutex_lock(&robust), 0);
    CHECK_EQ(pthread_mutex_unlock(&robust), 0);
    pthread_mutex_destroy(&robust);
    pthread_mutexattr_destroy(&attr);
}

/* `threads no_threads`, under --engine=check or brisk record, which run one thread: pthread_create
 * fails with clone's ENOSYS, each time, and the program carries on. */
static void no_threads(void) {
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, child_thread, NULL), ENOSYS);
    CHECK_EQ(pthread_create(&t, NULL, child_thread, NULL), ENOSYS);
    exit(0);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "no_threads")) no_threads();
    if (argc > 1 && !strcmp(argv[1], "spin")) spin_until_stopped();
    if (argc > 1 && !strcmp(argv[1], "segv")) fault_in_thread();
    test_clone_flags();
    test_create_join();
    test_atomics();
    test_message_passing();
    test_store_buffering();
    test_futex();
    test_thread_exit();
    test_robust_mutex();
    test_signals();
    test_cross_modifying_code();
    test_fork();
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, end_all, NULL), 0);
    char c;
    read(fds[0], &c, 1);  /* nobody writes: only exit_group ends this */
    CHECK(!"read returned");
    return 1;
}
