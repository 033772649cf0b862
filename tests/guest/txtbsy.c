/* A running program's file cannot be opened for writing or truncated (ETXTBSY), as Linux keeps it:
 * brisk maps the program's pages from it (runtime/elf_loader.cpp). Through its path and through
 * /proc/self/exe; reading it still works, and so does writing another file. QEMU allows the writes
 * (its reference build checks only what QEMU does). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_c.h"

static void check_denied(int fd) {
#ifdef GUEST_QEMU_REF
    if (fd >= 0) close(fd);
#else
    CHECK_EQ(fd, -1);
    CHECK_EQ(errno, ETXTBSY);
#endif
}

int main(int argc, char **argv) {
    (void)argc;
    struct stat st;
    CHECK_EQ(stat(argv[0], &st), 0);
    check_denied(open(argv[0], O_RDWR));
    check_denied(open(argv[0], O_WRONLY | O_APPEND));
    check_denied(open("/proc/self/exe", O_RDWR));
#ifndef GUEST_QEMU_REF
    /* Its own length: nothing changes if it is not refused. */
    CHECK_EQ(truncate(argv[0], st.st_size), -1);
    CHECK_EQ(errno, ETXTBSY);
#endif
    const int fd = open(argv[0], O_RDONLY);
    CHECK(fd >= 0);
    char magic[4];
    CHECK_EQ(read(fd, magic, 4), 4);
    CHECK_EQ(memcmp(magic, "\177ELF", 4), 0);
    close(fd);
    struct stat after;
    CHECK_EQ(stat(argv[0], &after), 0);
    CHECK_EQ(after.st_size, st.st_size);
    char name[] = "txtbsy-XXXXXX";
    const int other = mkstemp(name);
    CHECK(other >= 0);
    CHECK_EQ(write(other, "x", 1), 1);
    CHECK_EQ(ftruncate(other, 0), 0);
    close(other);
    unlink(name);
    return 0;
}
