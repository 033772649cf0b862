/* A blocking signalfd read of a timer's signal that arrives just as the read starts to wait: the
 * timer is armed a few microseconds ahead, a different delay each round, so that over the rounds
 * its signal lands at every point of the read's way into its wait. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "check_c.h"

int main(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN);
    CHECK_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    CHECK(sfd >= 0);
    struct sigevent sev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN, .sigev_value.sival_int = 7};
    timer_t t;
    CHECK_EQ(timer_create(CLOCK_MONOTONIC, &sev, &t), 0);
    for (int round = 0; round < 3000; round++) {
        struct itimerspec soon = {.it_value = {0, 1000 + (round * 37) % 20000}};
        CHECK_EQ(timer_settime(t, 0, &soon, NULL), 0);
        struct signalfd_siginfo si;
        CHECK_EQ(read(sfd, &si, sizeof si), sizeof si);
        CHECK_EQ(si.ssi_signo, SIGRTMIN);
        CHECK_EQ(si.ssi_code, SI_TIMER);
        CHECK_EQ(si.ssi_int, 7);
    }
    CHECK_EQ(timer_delete(t), 0);
    return 0;
}
