/* A precise page fault just past the top of the guest space. Translated code checks an access
 * against the limit only when no earlier access in its block checked the same base register at an
 * offset at most a little lower (jit/x64/translator.cpp, host_operand): the store below, 16 bytes
 * past the load through the same register, is unchecked, faults in the host's guard above the
 * limit, and must reach the guest as the same SIGSEGV, at the store, with the load retired, as the
 * interpreter raises. The stack is the highest mapping, so its end is where the guard begins. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include "check_c.h"

static uint64_t stack_end, last_doubleword;
extern char guard_store[];

static void on_segv(int sig, siginfo_t *si, void *ctx) {
    const ucontext_t *uc = ctx;
    CHECK_EQ(sig, SIGSEGV);
#ifdef GUEST_QEMU_REF
    CHECK_EQ(si->si_code, SEGV_ACCERR); /* qemu-riscv64 reserves what lies above the stack */
#else
    CHECK_EQ(si->si_code, SEGV_MAPERR);
#endif
    CHECK_EQ((uint64_t)si->si_addr, stack_end + 8);
    CHECK_EQ(uc->uc_mcontext.__gregs[REG_PC], (uint64_t)guard_store);
    CHECK_EQ(uc->uc_mcontext.__gregs[5], last_doubleword); /* t0, from the load before the store */
    CHECK_EQ(uc->uc_mcontext.__gregs[6], stack_end - 8);   /* t1, the base */
    _exit(0);
}

int main(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL);
    char line[512];
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "[stack]")) { unsigned long start; CHECK(sscanf(line, "%lx-%lx", &start, &stack_end) == 2); }
    fclose(maps);
    CHECK(stack_end != 0);
    last_doubleword = *(volatile uint64_t *)(stack_end - 8);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    __asm__ volatile("mv t1, %0\n\t"
                     "ld t0, 0(t1)\n\t"
                     ".globl guard_store\n"
                     "guard_store:\n\t"
                     "sd t0, 16(t1)"
                     :
                     : "r"(stack_end - 8)
                     : "t0", "t1", "memory");
    CHECK(0); /* the store must fault */
    return 1;
}
