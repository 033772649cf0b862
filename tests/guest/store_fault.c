/* Stores that fault. Each mode ends the program with the store's own exception, which brisk reports
 * as "guest killed by SIG<n>: <cause> at pc ..., address <tval>"; tests/guest/CMakeLists.txt checks
 * that line, so under --engine=check the interpreter and the translated code must agree on both the
 * cause and the address. The pages sit at a fixed address so that the address is known. */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check_c.h"

#define BASE 0x20000000ul  /* inside the guest space of every build, the 1 GiB of a sanitizer build too */
#define PAGE 4096ul

int main(int argc, char **argv) {
    CHECK(argc == 2);
    const char *mode = argv[1];
    char *p;
    if (strcmp(mode, "eof") == 0) {
        /* A shared file mapping one page past the file's end: the host raises SIGBUS there. The name
         * is per process because every engine's run of this test may be at this line at once. */
        char name[64];
        snprintf(name, sizeof name, "store_fault.%d.tmp", (int)getpid());
        int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0);
        CHECK(write(fd, "x", 1) == 1);
        p = mmap((void *)BASE, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
        CHECK(p == (char *)BASE);
        CHECK(unlink(name) == 0);
        p[1] = 'y';  /* inside the file: fine */
        *(volatile uint32_t *)(p + PAGE) = 1;
        return 1;
    }
    p = mmap((void *)BASE, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(p == (char *)BASE);
    CHECK(munmap(p + PAGE, PAGE) == 0);
    p[8] = 1;
    if (strcmp(mode, "unmapped") == 0) {
        *(volatile uint64_t *)(p + PAGE + 16) = 1;
    } else if (strcmp(mode, "crossing") == 0) {
        /* Misaligned, half in the mapped page: the fault is at the first byte of the unmapped one. */
        __asm__ volatile("sd %0, 0(%1)" : : "r"(1l), "r"(p + PAGE - 4) : "memory");
    } else if (strcmp(mode, "readonly") == 0) {
        CHECK(mprotect(p, PAGE, PROT_READ) == 0);
        *(volatile uint64_t *)(p + 24) = 1;
    } else if (strcmp(mode, "amo") == 0) {
        __asm__ volatile("amoadd.w zero, %0, (%1)" : : "r"(1), "r"(p + PAGE + 32) : "memory");
    }
    return 1;
}
