/* Signals aimed at threads other than the first: a POSIX timer with SIGEV_THREAD_ID naming another
 * thread signals that one only, and glibc's SIGEV_THREAD timers (whose helper thread waits for the
 * kernel's SIGEV_THREAD_ID signal) run their function with the timer's value; real-time signals
 * queue, to the process and to another thread; exit ends threads waiting in sigwaitinfo and in a
 * signalfd's read. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check_c.h"

#define TIMER_SIG (SIGRTMIN + 3)

/* struct sigevent with sigev_notify_thread_id, which glibc's header names only through a macro. */
static int make_thread_timer(int tid, int value, timer_t *out)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = TIMER_SIG;
    sev.sigev_value.sival_int = value;
    sev._sigev_un._tid = tid;
    return timer_create(CLOCK_MONOTONIC, &sev, out);
}

static void arm(timer_t t, long interval_ns)
{
    struct itimerspec its = {.it_value = {0, 1000000}, .it_interval = {0, interval_ns}};
    CHECK_EQ(timer_settime(t, 0, &its, NULL), 0);
}

static sem_t worker_ready;
static volatile int worker_tid;
static volatile int handler_tid, handler_value, handler_code, handler_runs;

static void on_timer(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (sig != TIMER_SIG)
        return;
    handler_tid = (int)syscall(SYS_gettid);
    handler_value = si->si_value.sival_int;
    handler_code = si->si_code;
    handler_runs++;
}

/* The worker waits for the timer's signal with sigwaitinfo, then takes another in its handler. */
static void *worker(void *arg)
{
    (void)arg;
    worker_tid = (int)syscall(SYS_gettid);
    sem_post(&worker_ready);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, TIMER_SIG);
    siginfo_t si;
    CHECK_EQ(sigwaitinfo(&set, &si), TIMER_SIG);
    CHECK_EQ(si.si_code, SI_TIMER);
    CHECK_EQ(si.si_value.sival_int, 41);
    sem_post(&worker_ready);
    /* Now with the signal open in this thread only, while it waits: the handler runs here. */
    sigset_t open;
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, NULL, &open), 0);
    sigdelset(&open, TIMER_SIG);
    while (!handler_runs)
        sigsuspend(&open);
    return NULL;
}

static void test_thread_id(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_timer;
    sa.sa_flags = SA_SIGINFO;
    CHECK_EQ(sigaction(TIMER_SIG, &sa, NULL), 0);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, TIMER_SIG);
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);  /* the worker inherits it */

    CHECK_EQ(sem_init(&worker_ready, 0, 0), 0);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, worker, NULL), 0);
    CHECK_EQ(sem_wait(&worker_ready), 0);
    CHECK(worker_tid != gettid());

    /* A tid that is no thread of this process is refused. */
    timer_t t;
    CHECK_EQ(make_thread_timer(getppid(), 0, &t), -1);
    CHECK_EQ(errno, EINVAL);

    CHECK_EQ(make_thread_timer(worker_tid, 41, &t), 0);
    arm(t, 0);
    CHECK_EQ(sem_wait(&worker_ready), 0);  /* the worker's sigwaitinfo took it */
    /* Nothing for this thread, which blocks the signal too. */
    sigset_t pending;
    CHECK_EQ(sigpending(&pending), 0);
    CHECK(!sigismember(&pending, TIMER_SIG));
    CHECK_EQ(timer_delete(t), 0);

    CHECK_EQ(make_thread_timer(worker_tid, 42, &t), 0);
    arm(t, 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(handler_runs, 1);
    CHECK_EQ(handler_tid, worker_tid);
    CHECK_EQ(handler_value, 42);
    CHECK_EQ(handler_code, SI_TIMER);
    CHECK_EQ(timer_delete(t), 0);
    CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, &set, NULL), 0);
    CHECK_EQ(sigpending(&pending), 0);
    CHECK(!sigismember(&pending, TIMER_SIG));
}

static sem_t notified;
static volatile int notify_value, notify_tid, notify_runs;

static void on_notify(union sigval v)
{
    notify_value = v.sival_int;
    notify_tid = (int)syscall(SYS_gettid);
    notify_runs++;
    sem_post(&notified);
}

static void test_sigev_thread(void)
{
    CHECK_EQ(sem_init(&notified, 0, 0), 0);
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD;
    sev.sigev_notify_function = on_notify;
    sev.sigev_value.sival_int = 1234;
    timer_t t;
    CHECK_EQ(timer_create(CLOCK_MONOTONIC, &sev, &t), 0);
    /* Three expirations of a periodic timer, each running the function on a thread of glibc's. */
    arm(t, 2000000);
    for (int k = 0; k < 3; k++)
        CHECK_EQ(sem_wait(&notified), 0);
    CHECK_EQ(timer_delete(t), 0);
    CHECK(notify_runs >= 3);
    CHECK_EQ(notify_value, 1234);
    CHECK(notify_tid != gettid());
}

#ifndef GUEST_QEMU_REF /* qemu-riscv64 7.2 keeps one of each signal pending */
/* Queued real-time signals: each sigqueue is delivered once, the lowest signal first and each
 * signal's in the order sent, with its value; a non-real-time signal is pending once. */
static volatile int order[16][2], ordered;

static void on_queued(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    CHECK(ordered < 16);
    order[ordered][0] = sig - SIGRTMIN;
    order[ordered][1] = si->si_code == SI_QUEUE ? si->si_value.sival_int : -1;
    ordered++;
}

static void queue(int sig, int value)
{
    union sigval v = {.sival_int = value};
    CHECK_EQ(sigqueue(getpid(), sig, v), 0);
}

static void *take_three(void *arg)
{
    (void)arg;
    worker_tid = (int)syscall(SYS_gettid);
    sem_post(&worker_ready);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 4);
    for (int k = 1; k <= 3; k++) {
        siginfo_t si;
        CHECK_EQ(sigwaitinfo(&set, &si), SIGRTMIN + 4);
        CHECK_EQ(si.si_code, SI_QUEUE);
        CHECK_EQ(si.si_value.sival_int, k);
        CHECK_EQ(si.si_pid, getpid());
    }
    return NULL;
}

static void test_queued(void)
{
    sigset_t rt;
    sigemptyset(&rt);
    for (int k = 4; k <= 6; k++)
        sigaddset(&rt, SIGRTMIN + k);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_queued;
    sa.sa_flags = SA_SIGINFO;
    sa.sa_mask = rt;  /* one handler at a time, so they run in delivery order */
    sigaddset(&sa.sa_mask, SIGUSR1);
    for (int k = 4; k <= 6; k++)
        CHECK_EQ(sigaction(SIGRTMIN + k, &sa, NULL), 0);
    CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    sigset_t blocked = rt;
    sigaddset(&blocked, SIGUSR1);
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &blocked, NULL), 0);
    queue(SIGRTMIN + 5, 1);
    queue(SIGRTMIN + 4, 2);
    queue(SIGRTMIN + 5, 3);
    queue(SIGRTMIN + 4, 4);
    queue(SIGRTMIN + 6, 5);
    queue(SIGRTMIN + 4, 6);
    queue(SIGUSR1, 7);
    queue(SIGUSR1, 8);
    CHECK_EQ(ordered, 0);
    sigset_t pending;
    CHECK_EQ(sigpending(&pending), 0);
    CHECK(sigismember(&pending, SIGRTMIN + 4) && sigismember(&pending, SIGRTMIN + 6) && sigismember(&pending, SIGUSR1));
    CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, &blocked, NULL), 0);
    const int want[][2] = {{SIGUSR1 - SIGRTMIN, 7}, {4, 2}, {4, 4}, {4, 6}, {5, 1}, {5, 3}, {6, 5}};
    CHECK_EQ(ordered, 7);
    for (int k = 0; k < 7; k++) {
        CHECK_EQ(order[k][0], want[k][0]);
        CHECK_EQ(order[k][1], want[k][1]);
    }

    /* sigtimedwait takes them one by one too, and then there are none. */
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &rt, NULL), 0);
    queue(SIGRTMIN + 4, 7);
    queue(SIGRTMIN + 4, 8);
    struct timespec zero = {0, 0};
    siginfo_t si;
    CHECK_EQ(sigtimedwait(&rt, &si, &zero), SIGRTMIN + 4);
    CHECK_EQ(si.si_value.sival_int, 7);
    CHECK_EQ(sigtimedwait(&rt, &si, &zero), SIGRTMIN + 4);
    CHECK_EQ(si.si_value.sival_int, 8);
    CHECK_EQ(sigtimedwait(&rt, &si, &zero), -1);
    CHECK_EQ(errno, EAGAIN);

    /* rt_tgsigqueueinfo to another thread: queued there, in order. */
    CHECK_EQ(sem_init(&worker_ready, 0, 0), 0);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, take_three, NULL), 0);  /* with rt blocked */
    CHECK_EQ(sem_wait(&worker_ready), 0);
    for (int k = 1; k <= 3; k++) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        info.si_code = SI_QUEUE;
        info.si_pid = getpid();
        info.si_uid = getuid();
        info.si_value.sival_int = k;
        CHECK_EQ(syscall(SYS_rt_tgsigqueueinfo, getpid(), worker_tid, SIGRTMIN + 4, &info), 0);
    }
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(sigpending(&pending), 0);
    CHECK(!sigismember(&pending, SIGRTMIN + 4));
    CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, &rt, NULL), 0);
}
#endif

/* `thread_signals exit`: exit while other threads wait in sigwaitinfo and in a signalfd's read ends
 * them all, with the status exit gave. */
static void *wait_forever(void *arg)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 4);
    sem_post(&worker_ready);
    if (arg) {
        struct signalfd_siginfo si;
        (void)!read(signalfd(-1, &set, 0), &si, sizeof si);
    } else {
        siginfo_t si;
        sigwaitinfo(&set, &si);
    }
    _exit(1);  /* nothing is ever sent */
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "exit") == 0) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGRTMIN + 4);
        CHECK_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
        CHECK_EQ(sem_init(&worker_ready, 0, 0), 0);
        pthread_t a, b;
        CHECK_EQ(pthread_create(&a, NULL, wait_forever, NULL), 0);
        CHECK_EQ(pthread_create(&b, NULL, wait_forever, &a), 0);
        CHECK_EQ(sem_wait(&worker_ready), 0);
        CHECK_EQ(sem_wait(&worker_ready), 0);
        usleep(10000);  /* most likely in their waits by now; either way, exit ends them */
        exit(3);
    }
    test_thread_id();
    test_sigev_thread();
#ifndef GUEST_QEMU_REF
    test_queued();
#endif
    return 0;
}
