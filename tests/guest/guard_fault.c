/* Precise page faults just past the top of the guest space. Translated code checks an access
 * against the limit only when no earlier access in its block checked the same base register at an
 * offset at most a little lower, or checked the register an addi made it from (jit/x64/translator.cpp,
 * host_operand): each store below, 16 bytes past a load from the stack's last doubleword, is
 * unchecked, faults in the host's guard above the limit, and must reach the guest as the same
 * SIGSEGV, at the store, with the load retired, as the interpreter raises. The stack is the highest
 * mapping, so its end is where the guard begins. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ucontext.h>

#include "check_c.h"

static uint64_t stack_end, last_doubleword, store_pc, base;
static sigjmp_buf back;
static int faults;
extern char same_base_store[], stepped_base_store[];

static void on_segv(int sig, siginfo_t *si, void *ctx) {
    const ucontext_t *uc = ctx;
    CHECK_EQ(sig, SIGSEGV);
#ifdef GUEST_QEMU_REF
    CHECK_EQ(si->si_code, SEGV_ACCERR); /* qemu-riscv64 reserves what lies above the stack */
#else
    CHECK_EQ(si->si_code, SEGV_MAPERR);
#endif
    CHECK_EQ((uint64_t)si->si_addr, stack_end + 8);
    CHECK_EQ(uc->uc_mcontext.__gregs[REG_PC], store_pc);
    CHECK_EQ(uc->uc_mcontext.__gregs[5], last_doubleword); /* t0, from the load before the store */
    CHECK_EQ(uc->uc_mcontext.__gregs[6], base);            /* t1, the store's base */
    faults++;
    siglongjmp(back, 1);
}

int main(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL);
    char line[512];
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "[stack]")) {
            unsigned long start;
            CHECK(sscanf(line, "%lx-%lx", &start, &stack_end) == 2);
        }
    fclose(maps);
    CHECK(stack_end != 0);
    last_doubleword = *(volatile uint64_t *)(stack_end - 8);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);

    /* The store's base is the load's. */
    store_pc = (uint64_t)same_base_store;
    base = stack_end - 8;
    if (!sigsetjmp(back, 1)) {
        __asm__ volatile("mv t1, %0\n\t"
                         "ld t0, 0(t1)\n\t"
                         ".globl same_base_store\n"
                         "same_base_store:\n\t"
                         "sd t0, 16(t1)"
                         :
                         : "r"(stack_end - 8)
                         : "t0", "t1", "memory");
        CHECK(0); /* the store must fault */
    }
    /* The store's base is the load's, stepped on by an addi. */
    store_pc = (uint64_t)stepped_base_store;
    base = stack_end + 8;
    if (!sigsetjmp(back, 1)) {
        __asm__ volatile("mv t1, %0\n\t"
                         "ld t0, 0(t1)\n\t"
                         "addi t1, t1, 16\n\t"
                         ".globl stepped_base_store\n"
                         "stepped_base_store:\n\t"
                         "sd t0, 0(t1)"
                         :
                         : "r"(stack_end - 8)
                         : "t0", "t1", "memory");
        CHECK(0);
    }
    CHECK_EQ(faults, 2);
    return 0;
}
