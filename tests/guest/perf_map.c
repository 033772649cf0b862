/* --perf-map with a second thread and with fork (tests/integration/perf_map.sh reads the maps):
 *   perf_map thread: thread_only() runs on a second thread only, and the first thread joins it;
 *   perf_map fork: before_fork() runs, then child_only() in the forked child only, which prints its
 *   pid; the parent waits for it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_c.h"

volatile unsigned long sink;

__attribute__((noinline)) void thread_only(void) {
    for (unsigned long i = 0; i < 100000; i++) sink += i * 3;
}

__attribute__((noinline)) void before_fork(void) {
    for (unsigned long i = 0; i < 100000; i++) sink += i * 7;
}

__attribute__((noinline)) void child_only(void) {
    for (unsigned long i = 0; i < 100000; i++) sink += i * 5;
}

static void* thread_main(void* arg) {
    thread_only();
    return arg;
}

int main(int argc, char** argv) {
    CHECK(argc == 2);
    if (strcmp(argv[1], "thread") == 0) {
        pthread_t t;
        CHECK_EQ(pthread_create(&t, NULL, thread_main, NULL), 0);
        CHECK_EQ(pthread_join(t, NULL), 0);
        return 0;
    }
    CHECK(strcmp(argv[1], "fork") == 0);
    before_fork();
    fflush(stdout);
    const pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        child_only();
        printf("%d\n", (int)getpid());
        fflush(stdout);
        _exit(0);
    }
    int status;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK_EQ(status, 0);
    return 0;
}
