/* brisk's own files (the perf map, a CTR dump) are not open for the guest: no descriptor the guest
 * can use or list in /proc/self/fd leads to them, SCM_RIGHTS cannot send them, and close_range
 * over everything leaves brisk running. Descriptors inherited from whoever started brisk are the
 * guest's, as on Linux. Run with --perf-map and --ctr-dump=FILE, and FILE as the argument. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "isolation.h"

static const char *dump;

/* The file descriptor fd of this process is, or leads to, one of brisk's files. */
static int is_brisk_file(int fd) {
    char path[64], target[4096];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0) return 0;
    target[n] = 0;
    return strncmp(target, "/tmp/perf-", 10) == 0 || strcmp(target, dump) == 0;
}

int main(int argc, char **argv) {
    CHECK_EQ(argc, 2);
    dump = argv[1];
    int open_fds = 0;
    for (int fd = 0; fd < 4096; fd++) {
        errno = 0;
        if (fcntl(fd, F_GETFD) < 0) {
            CHECK_EQ(errno, EBADF);
            continue;
        }
        open_fds++;
        CHECK(!is_brisk_file(fd));
    }
    CHECK(open_fds >= 3 && open_fds < 64);
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        CHECK(!is_brisk_file(atoi(e->d_name)));
    }
    closedir(d);
    /* Opening /proc/self/fd/N of a descriptor that is not open gives ENOENT, as on Linux, whether
     * directly, through /proc/<pid>/task/<tid>, /dev/fd, a symlink or a chain of them: so none of
     * brisk's descriptors (the perf map, the dump, its messages) can be reached. */
    char path[64], task_path[96], link[64], link2[64];
    snprintf(link, sizeof link, "own-fds-link-%d", getpid());
    snprintf(link2, sizeof link2, "own-fds-link2-%d", getpid());
    int hidden = 0;
    for (int fd = 3; fd < 4096; fd++) {
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        snprintf(task_path, sizeof task_path, "/proc/%d/task/%d/fd/%d", getpid(), gettid(), fd);
        unlink(link);
        unlink(link2);
        CHECK_EQ(symlink(path, link), 0);
        CHECK_EQ(symlink(link, link2), 0);
        const int guest_open = fcntl(fd, F_GETFD) >= 0;
        char dev_fd[64];
        snprintf(dev_fd, sizeof dev_fd, "/dev/fd/%d", fd);
        const char *spellings[] = {path, task_path, dev_fd, link, link2};
        for (unsigned k = 0; k < sizeof spellings / sizeof *spellings; k++) {
            errno = 0;
            int r = open(spellings[k], O_WRONLY);
            if (r >= 0) {
                CHECK(guest_open);
                CHECK(!is_brisk_file(r));
                close(r);
            } else if (!guest_open) {
                CHECK_EQ(errno, ENOENT);
                hidden++;
            }
        }
    }
    CHECK(hidden > 5 * 4000);
    unlink(link);
    unlink(link2);
    /* SCM_RIGHTS carries only the guest's own descriptors: any other number is EBADF, as on Linux. */
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    for (int fd = 3; fd < 4096; fd++) {
        if (fcntl(fd, F_GETFD) >= 0) continue;
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } control;
        char byte = 'x';
        struct iovec iov = {&byte, 1};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof control.buf};
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
        CHECK_ERRNO(sendmsg(sv[0], &msg, 0), EBADF);
    }
    close(sv[0]);
    close(sv[1]);
    CHECK_EQ(syscall(SYS_close_range, 3, ~0u, 0), 0);
    for (int fd = 3; fd < 4096; fd++) CHECK_ERRNO(fcntl(fd, F_GETFD), EBADF);
    CHECK_EQ(write(1, "own_fds: ok\n", 12), 12);
    return 0;
}
