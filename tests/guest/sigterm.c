/* The guest of tests/integration/host_signals.sh: says "ready", then waits for the SIGTERM the test
 * sends to brisk.
 *   sigterm handler pause|spin: a SIGTERM handler prints "got SIGTERM from <sender>" and exits 3
 *   sigterm default pause|spin: no handler, so SIGTERM ends it (status 143)
 * pause waits in pause(); spin in a loop that makes no syscall, so only a block boundary sees it. */
#include <signal.h>
#include <unistd.h>

#include "check_c.h"

static void on_term(int sig, siginfo_t *si, void *ctx) {
    (void)ctx;
    /* write(2), not stdio: the signal may come while main's write of "ready" is still returning. */
    const char *msg = sig == SIGTERM && si->si_code == SI_USER ? "got SIGTERM from a process\n" : "bad siginfo\n";
    CHECK(write(1, msg, strlen(msg)) == (ssize_t)strlen(msg));
    _exit(3);
}

int main(int argc, char **argv) {
    CHECK(argc == 3);
    if (strcmp(argv[1], "handler") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_term;
        sa.sa_flags = SA_SIGINFO;
        CHECK_EQ(sigaction(SIGTERM, &sa, NULL), 0);
    }
    CHECK(write(1, "ready\n", 6) == 6);
    if (strcmp(argv[2], "pause") == 0)
        for (;;) pause();
    for (volatile unsigned long n = 0;; n++) {
    }
}
