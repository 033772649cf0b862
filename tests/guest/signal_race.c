/* Timer signals every 20 us, 60000 of them, while the program makes system calls from a block that
 * is one ecall. Under the lockstep checker a signal that arrives just before translated code runs
 * such a block stops it before its first instruction, where the interpreter's pass trapped: that is
 * no divergence (runtime/check_engine.cpp, verify). About half the runs failed before. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "check_c.h"

static volatile long ticks;
static void on_tick(int sig) { (void)sig; ticks++; }

int main(void) {
    struct sigaction sa = {.sa_handler = on_tick, .sa_flags = SA_RESTART};
    CHECK_EQ(sigaction(SIGALRM, &sa, NULL), 0);
    timer_t t;
    struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM};
    CHECK_EQ(timer_create(CLOCK_MONOTONIC, &ev, &t), 0);
    struct itimerspec its = {.it_interval = {0, 20000}, .it_value = {0, 20000}};
    CHECK_EQ(timer_settime(t, 0, &its, NULL), 0);
    long calls = 0;
    const long pid = getpid();
    while (ticks < 60000) {
        long n = 1000, ret;
        register long a7 __asm__("a7") = SYS_getpid;
        register long a0 __asm__("a0");
        /* The loop's branch goes back to the ecall itself, so the ecall is a block of its own. */
        __asm__ volatile("1: ecall\n\taddi %1, %1, -1\n\tbnez %1, 1b" : "=r"(a0), "+r"(n) : "r"(a7) : "memory");
        ret = a0;
        CHECK_EQ(ret, pid);
        calls += 1000;
    }
    its.it_value.tv_nsec = 0;
    its.it_interval.tv_nsec = 0;
    CHECK_EQ(timer_settime(t, 0, &its, NULL), 0);
    printf("signal_race: %ld ticks over %ld calls\n", ticks, calls);
    return 0;
}
