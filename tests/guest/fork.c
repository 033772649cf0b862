/* Processes: fork, vfork and clone3 make children with memory of their own; wait4 and waitid report
 * how they ended (an exit status, or the signal that killed them); a pipe2 pipe carries data between
 * them; clone3's CLONE_CLEAR_SIGHAND resets the child's handlers; prctl(PR_SET_NAME) shows in
 * /proc/self/comm. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_c.h"

static volatile int shared_looking = 1;

static void check_fork_memory(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        shared_looking = 2;
        _exit(shared_looking == 2 ? 7 : 1);
    }
    shared_looking = 3;
    int status = 0;
    struct rusage ru;
    CHECK_EQ(wait4(pid, &status, 0, &ru), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 7);
    CHECK_EQ(shared_looking, 3);  /* the child's store stayed in the child */
    CHECK_EQ(wait4(-1, &status, WNOHANG, NULL), -1);
    CHECK_EQ(errno, ECHILD);
}

static void check_killed_child(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        volatile int *volatile unmapped = (int *)8;
        *unmapped = 1; /* SIGSEGV, which kills it */
        _exit(1);
    }
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFSIGNALED(status));
    CHECK_EQ(WTERMSIG(status), SIGSEGV);

    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        abort();
    }
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFSIGNALED(status));
    CHECK_EQ(WTERMSIG(status), SIGABRT);
}

/* A MAP_SHARED page is the same memory in parent and child; a MAP_PRIVATE one is copied. */
static void check_fork_shared_mapping(void)
{
    volatile int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    volatile int *private = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(shared != MAP_FAILED && private != MAP_FAILED);
    *shared = 1;
    *private = 1;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        *shared = 0x5a5a;
        *private = 0x6b6b;
        _exit(0);
    }
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    CHECK_EQ(*shared, 0x5a5a);
    CHECK_EQ(*private, 1);
    munmap((void *)shared, 4096);
    munmap((void *)private, 4096);
}

static volatile int vfork_global = 1;

static void check_vfork(void)
{
    /* The child's last store before _exit, in memory both see. */
    volatile int *last = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(last != MAP_FAILED);
    *last = 0;
    pid_t pid = vfork();
    CHECK(pid >= 0);
    if (pid == 0) {
#ifndef GUEST_QEMU_REF /* qemu-riscv64 makes vfork a fork whose parent does not wait */
        vfork_global = 2;  /* brisk's vfork child has memory of its own (docs/architecture.md) */
        struct timespec nap = {0, 200 * 1000 * 1000};
        nanosleep(&nap, NULL);
        *last = 1;
#endif
        _exit(3);
    }
#ifndef GUEST_QEMU_REF
    CHECK_EQ(*last, 1);  /* the parent resumed only once the child was done */
    CHECK_EQ(vfork_global, 1);
#endif
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 3);
    munmap((void *)last, 4096);
}

/* PR_SET_PDEATHSIG: a grandchild asks for SIGUSR2 when its parent dies; the parent exits and the
 * grandchild's handler runs, which it reports to the grandparent through a pipe. */
static volatile sig_atomic_t parent_died;
static void on_parent_death(int sig) { parent_died = sig; }

static void check_pdeathsig(void)
{
    int report[2], ready[2];
    CHECK_EQ(pipe(report), 0);
    CHECK_EQ(pipe(ready), 0);
    pid_t middle = fork();
    CHECK(middle >= 0);
    if (middle == 0) {
        pid_t grandchild = fork();
        if (grandchild < 0)
            _exit(1);
        if (grandchild == 0) {
            sigset_t usr2, old;
            sigemptyset(&usr2);
            sigaddset(&usr2, SIGUSR2);
            sigprocmask(SIG_BLOCK, &usr2, &old);
            signal(SIGUSR2, on_parent_death);
            if (prctl(PR_SET_PDEATHSIG, SIGUSR2) != 0)
                _exit(1);
            alarm(30);  /* no signal: SIGALRM ends it, and the grandparent reads nothing */
            char c = 'r';
            if (write(ready[1], &c, 1) != 1)
                _exit(1);
            while (!parent_died)
                sigsuspend(&old);
            c = (char)parent_died;
            _exit(write(report[1], &c, 1) == 1 ? 0 : 1);
        }
        char c;
        _exit(read(ready[0], &c, 1) == 1 ? 0 : 1);  /* and so the grandchild's parent dies */
    }
    close(report[1]);
    close(ready[1]);
    int status = 0;
    CHECK_EQ(waitpid(middle, &status, 0), middle);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    char got = 0;
    CHECK_EQ(read(report[0], &got, 1), 1);
    CHECK_EQ(got, SIGUSR2);
    close(report[0]);
    close(ready[0]);
}

static void check_pipe(void)
{
    int fds[2];
    CHECK_EQ(pipe2(fds, O_CLOEXEC), 0);
    CHECK_EQ(fcntl(fds[0], F_GETFD), FD_CLOEXEC);
    const pid_t parent = getpid();
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        long ids[2] = {getpid(), getppid()};
        CHECK_EQ(write(fds[1], ids, sizeof ids), sizeof ids);
        CHECK_EQ(write(fds[1], "from the child", 14), 14);
        _exit(0);
    }
    close(fds[1]);
    long ids[2];
    char text[32] = {0};
    CHECK_EQ(read(fds[0], ids, sizeof ids), sizeof ids);
    CHECK_EQ(ids[0], pid);
    CHECK_EQ(ids[1], parent);
    CHECK(pid != parent);
    size_t got = 0;
    for (ssize_t n; (n = read(fds[0], text + got, sizeof text - 1 - got)) > 0;)
        got += (size_t)n;
    CHECK_STR(text, "from the child");
    close(fds[0]);

    siginfo_t si;
    memset(&si, 0xff, sizeof si);
    CHECK_EQ(waitid(P_PID, pid, &si, WEXITED), 0);
    CHECK_EQ(si.si_signo, SIGCHLD);
    CHECK_EQ(si.si_pid, pid);
    CHECK_EQ(si.si_code, CLD_EXITED);
    CHECK_EQ(si.si_status, 0);
    CHECK_EQ(si.si_uid, getuid());
}

#ifndef GUEST_QEMU_REF
static void on_usr1(int sig) { (void)sig; }
#endif

static void check_clone3(void)
{
#ifndef GUEST_QEMU_REF /* qemu-riscv64 7.2 has no clone3 */
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.exit_signal = SIGCHLD;
    CHECK_EQ(syscall(SYS_clone3, &args, 63), -1);
    CHECK_EQ(errno, EINVAL);
    uint8_t big[128] = {0};
    memcpy(big, &args, sizeof args);
    big[100] = 1;
    CHECK_EQ(syscall(SYS_clone3, big, sizeof big), -1);
    CHECK_EQ(errno, E2BIG);
    args.flags = SIGCHLD; /* the signal goes in exit_signal */
    CHECK_EQ(syscall(SYS_clone3, &args, sizeof args), -1);
    CHECK_EQ(errno, EINVAL);

    args.flags = CLONE_PARENT_SETTID;
    int parent_tid = 0;
    args.parent_tid = (uintptr_t)&parent_tid;
    long pid = syscall(SYS_clone3, &args, sizeof args);
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(parent_tid == 0 ? 9 : 1);  /* written in the parent only */
    CHECK_EQ(parent_tid, pid);
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 9);

    /* CLONE_CLEAR_SIGHAND, as glibc's posix_spawn uses it: handled signals start at SIG_DFL in the
     * child, ignored ones stay ignored, and the parent keeps its own. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    CHECK(signal(SIGUSR2, SIG_IGN) != SIG_ERR);
    memset(&args, 0, sizeof args);
    args.exit_signal = SIGCHLD;
    args.flags = CLONE_CLEAR_SIGHAND | CLONE_SIGHAND | CLONE_VM;
    CHECK_EQ(syscall(SYS_clone3, &args, sizeof args), -1);
    CHECK_EQ(errno, EINVAL);
    args.flags = CLONE_CLEAR_SIGHAND;
    pid = syscall(SYS_clone3, &args, sizeof args);
    CHECK(pid >= 0);
    if (pid == 0) {
        struct sigaction usr1, usr2;
        if (sigaction(SIGUSR1, NULL, &usr1) || sigaction(SIGUSR2, NULL, &usr2))
            _exit(1);
        _exit(usr1.sa_handler == SIG_DFL && usr1.sa_flags == 0 && usr2.sa_handler == SIG_IGN ? 10 : 2);
    }
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 10);
    CHECK_EQ(sigaction(SIGUSR1, NULL, &sa), 0);
    CHECK(sa.sa_handler == on_usr1);
    signal(SIGUSR1, SIG_DFL);
    signal(SIGUSR2, SIG_DFL);
#endif
}

static void check_comm(void)
{
    CHECK_EQ(prctl(PR_SET_NAME, "renamed-process-long"), 0);
    char name[16];
    CHECK_EQ(prctl(PR_GET_NAME, name), 0);
    CHECK_STR(name, "renamed-process");
    char buf[64] = {0};
    int fd = open("/proc/self/comm", O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ(read(fd, buf, sizeof buf - 1), 16);
    CHECK_STR(buf, "renamed-process\n");
    close(fd);
    CHECK_EQ(prctl(PR_SET_PDEATHSIG, SIGTERM), 0);
    int sig = 0;
    CHECK_EQ(prctl(PR_GET_PDEATHSIG, &sig), 0);
    CHECK_EQ(sig, SIGTERM);
    CHECK_EQ(prctl(PR_SET_PDEATHSIG, 0), 0);
}

int main(void)
{
    check_fork_memory();
    check_fork_shared_mapping();
    check_killed_child();
    check_vfork();
    check_pdeathsig();
    check_pipe();
    check_clone3();
    check_comm();
    struct rusage ru;
    CHECK_EQ(getrusage(RUSAGE_CHILDREN, &ru), 0);
    return 0;
}
