/* execve: files that cannot run fail with Linux's errno and the program goes on; a riscv64 program
 * (this one again) and a #! script whose interpreter is one run in the same process, with the argv
 * and envp they were given, the descriptors without FD_CLOEXEC still open and the others closed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_c.h"

enum { kKeptFd = 40, kClosedFd = 41 };

/* The program as exec'd: argv = self, "target", "two words", pid or p<parent pid>, "" (or with a script's arguments in
 * front), the fds the exec'er left. */
static int run_target(char **argv, int first)
{
    CHECK_STR(argv[first], "target");
    CHECK_STR(argv[first + 1], "two words");
    /* "p<pid>": a spawned child, whose parent is that pid; else its own pid, kept across execve */
    if (argv[first + 2][0] == 'p')
        CHECK_EQ(strtol(argv[first + 2] + 1, NULL, 10), getppid());
    else
        CHECK_EQ(strtol(argv[first + 2], NULL, 10), getpid());
    CHECK_STR(argv[first + 3], "");
    CHECK(argv[first + 4] == NULL);
    CHECK_STR(getenv("EXEC_TEST"), "a=b c");
    CHECK(getenv("HOME") == NULL);  /* only what execve passed */
    char buf[8] = {0};
    CHECK_EQ(pread(kKeptFd, buf, 4, 0), 4);
    CHECK_STR(buf, "kept");
    CHECK_EQ(fcntl(kClosedFd, F_GETFD), -1);
    CHECK_EQ(errno, EBADF);
    char exe[4096] = {0};
    CHECK(readlink("/proc/self/exe", exe, sizeof exe - 1) > 0);
    CHECK_STR(strrchr(exe, '/'), "/exec");  /* the new program (a script's interpreter), not brisk */
    return 0;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    CHECK(fd >= 0);
    CHECK_EQ(write(fd, text, strlen(text)), strlen(text));
    close(fd);
    CHECK_EQ(chmod(path, mode), 0);
}

static void expect_exec_error(const char *path, int err)
{
    char *argv[] = {(char *)path, NULL};
    char *envp[] = {NULL};
    errno = 0;
    CHECK_EQ(execve(path, argv, envp), -1);
    CHECK_EQ(errno, err);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "target") == 0)
        return run_target(argv, 1);
    if (argc > 2 && strcmp(argv[1], "script-arg") == 0) {
        /* argv: interpreter, its argument from the #! line, the script's name, then the exec's args */
        CHECK(strstr(argv[2], "exec-script-") != NULL);
        return run_target(argv, 3);
    }
    CHECK_EQ(argc, 1);

    char dir[] = "/tmp/brisk-exec-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char plain[64], noexec[64], script[64], badscript[64];
    snprintf(plain, sizeof plain, "%s/plain", dir);
    snprintf(noexec, sizeof noexec, "%s/noexec", dir);
    snprintf(script, sizeof script, "%s/exec-script-1", dir);
    snprintf(badscript, sizeof badscript, "%s/bad-script", dir);
    write_file(plain, "not a program\n", 0755);
    write_file(noexec, "#!/bin/sh\n", 0644);
    write_file(badscript, "#!/nonexistent/interpreter\n", 0755);
    char line[512];
    snprintf(line, sizeof line, "#!%s script-arg\n", argv[0]);
    write_file(script, line, 0755);

    expect_exec_error("/nonexistent/program", ENOENT);
    expect_exec_error(plain, ENOEXEC);
    expect_exec_error(noexec, EACCES);
    expect_exec_error(dir, EACCES);
    expect_exec_error(badscript, ENOENT);
    /* one string longer than MAX_ARG_STRLEN (32 pages) */
    static char huge[32 * 4096 + 2];
    memset(huge, 'x', sizeof huge - 1);
    char *huge_argv[] = {argv[0], huge, NULL};
    CHECK_EQ(execve(argv[0], huge_argv, NULL), -1);
    CHECK_EQ(errno, E2BIG);
    char **volatile unmapped = (char **)8;
    CHECK_EQ(execve(argv[0], unmapped, NULL), -1);
    CHECK_EQ(errno, EFAULT);

#ifndef GUEST_QEMU_REF /* qemu-riscv64 without binfmt_misc execs riscv64 programs on the host */
    int kept = open(plain, O_RDONLY);
    write_file(noexec, "kept", 0644);
    CHECK(kept >= 0);
    CHECK_EQ(dup2(open(noexec, O_RDONLY), kKeptFd), kKeptFd);
    CHECK_EQ(dup3(kept, kClosedFd, O_CLOEXEC), kClosedFd);
    char *envp[] = {"EXEC_TEST=a=b c", NULL};

    /* In a child: the script, whose exit status its parent sees. */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char me[16];
        snprintf(me, sizeof me, "%d", getpid());
        char *args[] = {script, "target", "two words", me, "", NULL};
        execve(script, args, envp);
        _exit(100 + errno);
    }
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    /* glibc's posix_spawn: clone(CLONE_VM | CLONE_VFORK) on a stack of its own, then execve. */
    char me_spawned[16];
    char *spawn_args[] = {argv[0], "target", "two words", me_spawned, "", NULL};
    posix_spawn_file_actions_t actions;
    CHECK_EQ(posix_spawn_file_actions_init(&actions), 0);
    CHECK_EQ(posix_spawn_file_actions_addclose(&actions, kClosedFd), 0);
    snprintf(me_spawned, sizeof me_spawned, "p%d", getpid());
    CHECK_EQ(posix_spawn(&pid, argv[0], &actions, NULL, spawn_args, envp), 0);
    CHECK(pid > 0);
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    posix_spawn_file_actions_destroy(&actions);
    /* The child's exec fails in memory of its own, which the parent never sees (README, Processes):
     * posix_spawn succeeds and the child exits 127, where Linux's shared-memory vfork gives ENOENT. */
    char *missing_args[] = {"/nonexistent/program", NULL};
    CHECK_EQ(posix_spawn(&pid, missing_args[0], NULL, NULL, missing_args, envp), 0);
    CHECK(pid > 0);
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 127);

    unlink(plain);
    unlink(noexec);
    unlink(script);
    unlink(badscript);
    rmdir(dir);

    /* This process becomes the target: its checks decide the test. */
    char me[16];
    snprintf(me, sizeof me, "%d", getpid());
    char *args[] = {argv[0], "target", "two words", me, "", NULL};
    execve(argv[0], args, envp);
    CHECK(!"execve of this program returned");
#endif
    return 0;
}
