/* Process and time system calls: getcwd (argv[1] names the directory CTest runs in) and chdir,
 * clock_gettime/gettimeofday/time, nanosleep, uname, ids, getrandom, sysconf. */
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "check_c.h"

static long long ns(const struct timespec *t)
{
    return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int main(int argc, char **argv)
{
    CHECK_EQ(argc, 2);
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) == cwd);
    CHECK_EQ(cwd[0], '/');
    CHECK(same_file(cwd, argv[1]));
    CHECK(same_file(cwd, "."));
    char tiny[2];
    CHECK(getcwd(tiny, sizeof tiny) == NULL);
    CHECK_EQ(chdir("/"), 0);
    CHECK_STR(getcwd(cwd, sizeof cwd), "/");
    CHECK_EQ(chdir(argv[1]), 0);
    CHECK(same_file(getcwd(cwd, sizeof cwd), argv[1]));
    CHECK_EQ(chdir("/nonexistent-brisk-dir"), -1);

    /* Monotonic time never goes back, and a sleep lasts at least as long as asked. */
    struct timespec t0, t1, res;
    CHECK_EQ(clock_gettime(CLOCK_MONOTONIC, &t0), 0);
    for (int i = 0; i < 1000; i++) {
        CHECK_EQ(clock_gettime(CLOCK_MONOTONIC, &t1), 0);
        CHECK(ns(&t1) >= ns(&t0));
        CHECK(t1.tv_nsec >= 0 && t1.tv_nsec < 1000000000);
        t0 = t1;
    }
    struct timespec nap = {0, 20 * 1000 * 1000};
    CHECK_EQ(clock_gettime(CLOCK_MONOTONIC, &t0), 0);
    CHECK_EQ(nanosleep(&nap, NULL), 0);
    CHECK_EQ(clock_gettime(CLOCK_MONOTONIC, &t1), 0);
    CHECK(ns(&t1) - ns(&t0) >= 20 * 1000 * 1000);
    CHECK(ns(&t1) - ns(&t0) < 10LL * 1000 * 1000 * 1000);
    CHECK_EQ(clock_getres(CLOCK_MONOTONIC, &res), 0);
    CHECK(ns(&res) > 0 && ns(&res) <= 1000000);

    /* Wall-clock time is after 2020 and agrees between the three interfaces. */
    struct timespec rt;
    struct timeval tv;
    CHECK_EQ(clock_gettime(CLOCK_REALTIME, &rt), 0);
    CHECK(rt.tv_sec > 1577836800);
    CHECK_EQ(gettimeofday(&tv, NULL), 0);
    CHECK(tv.tv_sec >= rt.tv_sec && tv.tv_sec - rt.tv_sec < 5);
    /* glibc's time() reads CLOCK_REALTIME_COARSE, which may be a tick behind across a second. */
    time_t now = time(NULL);
    CHECK(now + 1 >= rt.tv_sec && now - rt.tv_sec < 5);
    CHECK_EQ(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0), 0);

    struct utsname u;
    CHECK_EQ(uname(&u), 0);
    CHECK_STR(u.sysname, "Linux");
    CHECK_STR(u.machine, "riscv64");

    CHECK(getpid() > 0);
    CHECK(getppid() > 0);
    CHECK(getpid() != getppid());
    CHECK_EQ(getuid(), geteuid());
    CHECK_EQ(getgid(), getegid());
    CHECK_EQ(sysconf(_SC_PAGESIZE), 4096);
    CHECK(sysconf(_SC_NPROCESSORS_ONLN) >= 1);

    unsigned char r1[32] = {0}, r2[32] = {0};
    CHECK_EQ(getrandom(r1, sizeof r1, 0), sizeof r1);
    CHECK_EQ(getrandom(r2, sizeof r2, 0), sizeof r2);
    CHECK(memcmp(r1, r2, sizeof r1) != 0);
    return 0;
}
