/* The README's "Not yet" signal limitations, pinned so that fixing one shows (tests/guest/CMakeLists.txt
 * runs each mode under brisk, where it gives today's documented result, and under QEMU, which gives
 * Linux's):
 *   not_yet stop SIG: the program sends itself a stop signal (19 SIGSTOP or 20 SIGTSTP) with the
 *     default action; Linux stops it, brisk ends the guest with 128 + SIG;
 *   not_yet lost: a second thread, with SIGUSR1 blocked like every thread, sends the process SIGUSR1
 *     and exits; when the first thread unblocks it, Linux delivers it ("pending delivered"), brisk
 *     lost it with the thread it was given to ("none lost");
 *   not_yet timer: a second thread arms a SIGEV_SIGNAL timer for 0.5 s and exits; the first waits 2 s
 *     for its signal: Linux sends it ("expired"), brisk stopped the timer with its creator
 *     ("stopped"). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_c.h"

static volatile sig_atomic_t got;

static void on_signal(int sig) { got = sig; }

static void* send_usr1(void* arg) {
    CHECK_EQ(kill(getpid(), SIGUSR1), 0);
    return arg;
}

static void* arm_timer(void* arg) {
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR2;
    timer_t t;
    CHECK_EQ(timer_create(CLOCK_MONOTONIC, &ev, &t), 0);
    struct itimerspec its = {.it_value = {.tv_sec = 0, .tv_nsec = 500000000}};
    CHECK_EQ(timer_settime(t, 0, &its, NULL), 0);
    return arg;
}

// Runs fn on a second thread, which inherits the first thread's mask, and waits for it to end.
static void on_thread(void* (*fn)(void*)) {
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, fn, NULL), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
}

int main(int argc, char** argv) {
    CHECK(argc >= 2);
    if (strcmp(argv[1], "stop") == 0) {
        CHECK(argc == 3);
        printf("stopping\n");
        fflush(stdout);
        kill(getpid(), atoi(argv[2]));
        printf("went on\n");
        return 0;
    }
    sigset_t set;
    sigemptyset(&set);
    if (strcmp(argv[1], "lost") == 0) {
        CHECK(signal(SIGUSR1, on_signal) != SIG_ERR);
        sigaddset(&set, SIGUSR1);
        CHECK_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
        on_thread(send_usr1);
        sigset_t pending;
        CHECK_EQ(sigpending(&pending), 0);
        const int was_pending = sigismember(&pending, SIGUSR1);
        CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, &set, NULL), 0);
        printf("%s %s\n", was_pending ? "pending" : "none", got == SIGUSR1 ? "delivered" : "lost");
        return 0;
    }
    CHECK(strcmp(argv[1], "timer") == 0);
    sigaddset(&set, SIGUSR2);
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
    on_thread(arm_timer);
    const struct timespec wait = {.tv_sec = 2, .tv_nsec = 0};
    const int sig = sigtimedwait(&set, NULL, &wait);
    CHECK(sig == SIGUSR2 || (sig == -1 && errno == EAGAIN));
    printf("%s\n", sig == SIGUSR2 ? "expired" : "stopped");
    return 0;
}
