/* A forked child's --timeout counts from the fork, and under brisk record it writes no profile
 * (tests/integration/fork_limits.py runs it and reaps the child when it outlives its parent):
 *   fork_limits timeout   spins 0.6 s, prints "fork at SEC.NSEC" (CLOCK_MONOTONIC, the host's),
 *                         forks a child that spins for ever and waits for it;
 *   fork_limits record N  forks a child that waits until this parent has gone, then runs N loop
 *                         iterations and exits 0; the parent runs N iterations and exits 3. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_c.h"

static int64_t now_ns(void)
{
    struct timespec ts;
    CHECK_EQ(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t work(long n)
{
    volatile uint64_t x = 1;
    for (long i = 0; i < n; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    return x;
}

int main(int argc, char **argv)
{
    CHECK(argc >= 2);
    if (!strcmp(argv[1], "timeout")) {
        const int64_t start = now_ns();
        while (now_ns() - start < 600000000)
            ;
        const int64_t at = now_ns();
        printf("fork at %lld.%09lld\n", (long long)(at / 1000000000), (long long)(at % 1000000000));
        fflush(stdout);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0)
            for (;;)
                work(1000);
        int status;
        waitpid(pid, &status, 0);  /* --timeout stops this parent first */
        return 1;
    }
    CHECK(!strcmp(argv[1], "record") && argc == 3);
    const long n = atol(argv[2]);
    const pid_t parent = getpid();
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        while (getppid() == parent)  /* until the parent's brisk has written its profile and gone */
            usleep(1000);
        work(n);
        _exit(0);
    }
    work(n);
    return 3;
}
