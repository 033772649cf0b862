/* File system calls through the C library, in the current directory: create, write, lseek,
 * read back, pread/pwrite, readv/writev, fstat/stat sizes, ftruncate, rename, directories,
 * dup/pipe/fcntl, stdio streams, unlink. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check_c.h"

#define N 10000

int main(void)
{
    char name[64], name2[64], dir[64];
    snprintf(name, sizeof name, "fileio.%d.tmp", (int)getpid());
    snprintf(name2, sizeof name2, "fileio.%d.renamed", (int)getpid());
    snprintf(dir, sizeof dir, "fileio.%d.dir", (int)getpid());

    static unsigned char out[N], in[N];
    for (int i = 0; i < N; i++)
        out[i] = (unsigned char)(i * 31 + 7);

    int fd = open(name, O_CREAT | O_TRUNC | O_RDWR, 0644);
    CHECK(fd >= 0);
    CHECK_EQ(write(fd, out, N), N);
    CHECK_EQ(lseek(fd, 0, SEEK_CUR), N);
    CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
    CHECK_EQ(read(fd, in, N), N);
    CHECK(memcmp(in, out, N) == 0);
    CHECK_EQ(read(fd, in, 1), 0);                       /* end of file */
    CHECK_EQ(lseek(fd, -100, SEEK_END), N - 100);
    CHECK_EQ(read(fd, in, 1000), 100);
    CHECK(memcmp(in, out + N - 100, 100) == 0);
    CHECK_EQ(lseek(fd, 50, SEEK_SET), 50);
    CHECK_EQ(lseek(fd, 25, SEEK_CUR), 75);

    CHECK_EQ(pwrite(fd, "XYZ", 3, 1000), 3);
    CHECK_EQ(lseek(fd, 0, SEEK_CUR), 75);               /* pwrite does not move the offset */
    char three[4] = {0};
    CHECK_EQ(pread(fd, three, 3, 1000), 3);
    CHECK_STR(three, "XYZ");

    struct iovec iov[2] = {{"abc", 3}, {"defgh", 5}};
    CHECK_EQ(lseek(fd, N, SEEK_SET), N);
    CHECK_EQ(writev(fd, iov, 2), 8);
    char a[3], b[5];
    struct iovec riov[2] = {{a, 3}, {b, 5}};
    CHECK_EQ(lseek(fd, N, SEEK_SET), N);
    CHECK_EQ(readv(fd, riov, 2), 8);
    CHECK(memcmp(a, "abc", 3) == 0 && memcmp(b, "defgh", 5) == 0);

    struct stat st;
    CHECK_EQ(fstat(fd, &st), 0);
    CHECK_EQ(st.st_size, N + 8);
    CHECK(S_ISREG(st.st_mode));
    CHECK_EQ(st.st_mode & 0777, 0644 & ~umask(022));
    struct stat st2;
    CHECK_EQ(stat(name, &st2), 0);
    CHECK_EQ(st2.st_ino, st.st_ino);
    CHECK_EQ(st2.st_size, N + 8);

    /* Writing past the end leaves a hole that reads as zeros. */
    CHECK_EQ(ftruncate(fd, 5000), 0);
    CHECK_EQ(fstat(fd, &st), 0);
    CHECK_EQ(st.st_size, 5000);
    CHECK_EQ(pwrite(fd, "E", 1, 6000), 1);
    CHECK_EQ(pread(fd, in, 1001, 5000), 1001);
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(in[i], 0);
    CHECK_EQ(in[1000], 'E');

    /* dup shares the offset; fcntl flags; O_APPEND. */
    int fd2 = dup(fd);
    CHECK(fd2 > fd);
    CHECK_EQ(lseek(fd, 123, SEEK_SET), 123);
    CHECK_EQ(lseek(fd2, 0, SEEK_CUR), 123);
    CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
    CHECK_EQ(fcntl(fd, F_SETFD, FD_CLOEXEC), 0);
    CHECK_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    CHECK_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
    CHECK_EQ(dup2(fd, 100), 100);
    CHECK_EQ(lseek(100, 0, SEEK_CUR), 123);
    CHECK_EQ(close(100), 0);
    CHECK_EQ(close(fd2), 0);
    CHECK_EQ(close(fd), 0);
    CHECK_EQ(close(fd), -1);
    CHECK_EQ(errno, EBADF);

    fd = open(name, O_WRONLY | O_APPEND);
    CHECK(fd >= 0);
    CHECK_EQ(write(fd, "tail", 4), 4);
    CHECK_EQ(close(fd), 0);
    CHECK_EQ(stat(name, &st), 0);
    CHECK_EQ(st.st_size, 6001 + 4);

    /* Rename, then the old name is gone. */
    CHECK_EQ(rename(name, name2), 0);
    CHECK_EQ(open(name, O_RDONLY), -1);
    CHECK_EQ(errno, ENOENT);
    CHECK_EQ(access(name2, R_OK | W_OK), 0);

    /* stdio on top. */
    FILE *f = fopen(name2, "w+");
    CHECK(f != NULL);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "line %d\n", i);
    CHECK_EQ(fseek(f, 0, SEEK_SET), 0);
    char line[64];
    int count = 0, last = -1;
    while (fgets(line, sizeof line, f)) {
        CHECK_EQ(sscanf(line, "line %d", &last), 1);
        CHECK_EQ(last, count);
        count++;
    }
    CHECK_EQ(count, 1000);
    CHECK_EQ(ftell(f), 8890);
    CHECK_EQ(fclose(f), 0);

    /* A directory: create, find the entry by listing, remove. */
    CHECK_EQ(mkdir(dir, 0755), 0);
    CHECK_EQ(mkdir(dir, 0755), -1);
    CHECK_EQ(errno, EEXIST);
    char inner[160];
    snprintf(inner, sizeof inner, "%s/inner", dir);
    fd = open(inner, O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0);
    close(fd);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int found = 0, entries = 0;
    for (struct dirent *e; (e = readdir(d));) {
        entries++;
        if (strcmp(e->d_name, "inner") == 0)
            found = 1;
    }
    closedir(d);
    CHECK_EQ(found, 1);
    CHECK_EQ(entries, 3);                                /* ., .., inner */
    CHECK_EQ(rmdir(dir), -1);
    CHECK_EQ(errno, ENOTEMPTY);
    CHECK_EQ(unlink(inner), 0);
    CHECK_EQ(rmdir(dir), 0);
    CHECK_EQ(stat(dir, &st), -1);

    /* A pipe carries bytes in order. */
    int p[2];
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(write(p[1], "through a pipe", 14), 14);
    char pbuf[32] = {0};
    CHECK_EQ(read(p[0], pbuf, sizeof pbuf), 14);
    CHECK_STR(pbuf, "through a pipe");
    close(p[0]);
    close(p[1]);

    CHECK_EQ(unlink(name2), 0);
    CHECK_EQ(unlink(name2), -1);
    CHECK_EQ(errno, ENOENT);
    CHECK_EQ(open("/nonexistent/dir/file", O_RDONLY), -1);
    CHECK_EQ(errno, ENOENT);
    return 0;
}
