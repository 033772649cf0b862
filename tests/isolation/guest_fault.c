/* A guest store to its own read-only page is the guest's fault, reported the same way by every
 * engine (tests/isolation/expect_guest_fault.cmake checks brisk's line and the exit status 139):
 * never an internal error, never at another pc. Prints the page and the faulting store's pc. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

int main(void) {
    volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    uintptr_t pc;
    __asm__ volatile("lla %0, 1f" : "=r"(pc));
    printf("store/AMO page fault at pc %#lx, address %#lx\n", (unsigned long)pc, (unsigned long)(uintptr_t)p);
    fflush(stdout);
    __asm__ volatile("li t0, 1\n1: sb t0, 0(%0)" ::"r"(p) : "t0", "memory");
    return 0;
}
