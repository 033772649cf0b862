/* The guest of tests/integration/host_signals.sh: says "ready", then waits for the signal the test
 * sends to brisk (SIGTERM, or the one a third argument names by number).
 *   sigterm handler pause|spin [SIG]: a handler prints "got SIG<NAME> from a process" and exits 3
 *   sigterm default pause|spin: no handler, so SIGTERM ends it (status 143)
 * pause waits in pause(); spin in a loop that makes no syscall, so only a block boundary sees it. */
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>

#include "check_c.h"

static int expected = SIGTERM;
static char msg[64];

static void on_signal(int sig, siginfo_t *si, void *ctx) {
    (void)ctx;
    /* write(2), not stdio: the signal may come while main's write of "ready" is still returning. */
    const char *text = sig == expected && si->si_code == SI_USER ? msg : "bad siginfo\n";
    CHECK(write(1, text, strlen(text)) == (ssize_t)strlen(text));
    _exit(3);
}

int main(int argc, char **argv) {
    CHECK(argc == 3 || argc == 4);
    if (argc == 4)
        expected = atoi(argv[3]);
    snprintf(msg, sizeof msg, "got SIG%s from a process\n", sigabbrev_np(expected));
    if (strcmp(argv[1], "handler") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO;
        CHECK_EQ(sigaction(expected, &sa, NULL), 0);
    }
    CHECK(write(1, "ready\n", 6) == 6);
    if (strcmp(argv[2], "pause") == 0)
        for (;;) pause();
    for (volatile unsigned long n = 0;; n++) {
    }
}
