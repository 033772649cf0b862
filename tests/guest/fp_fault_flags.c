/* FP exception flags raised just before a memory fault. Translated code keeps the flags of inline FP
 * operations in the host's MXCSR until something reads fflags (jit/x64/translator.cpp,
 * fold_fp_flags); a guest fault in the same block must still find them there: the SIGSEGV frame's
 * fcsr, and fflags after the handler, show DZ from the division right before the faulting load. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "check_c.h"

#define FFLAGS_DZ 0x08
#define FFLAGS_NX 0x01

static sigjmp_buf back;
static volatile unsigned frame_fcsr;

static void on_segv(int sig, siginfo_t *info, void *uc) {
    (void)sig;
    (void)info;
    frame_fcsr = ((ucontext_t *)uc)->uc_mcontext.__fpregs.__d.__fcsr;
    siglongjmp(back, 1);
}

int main(void) {
    struct sigaction sa = {0};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    char *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    if (!sigsetjmp(back, 1)) {
        double one = 1.0, zero = 0.0, q;
        uint64_t v;
        /* One block: clear the flags, divide by zero (DZ), divide inexactly (NX), then load from a
         * page with no access. */
        __asm__ volatile("fsflags zero\n\t"
                         "fdiv.d %0, %2, %3\n\t"
                         "fdiv.d %0, %2, %4\n\t"
                         "ld %1, 0(%5)"
                         : "=&f"(q), "=r"(v)
                         : "f"(one), "f"(zero), "f"(3.0), "r"(p)
                         : "memory");
        CHECK(0);  /* the load faults */
    }
    CHECK_EQ(frame_fcsr & 0x1f, FFLAGS_DZ | FFLAGS_NX);
    unsigned flags;
    __asm__ volatile("frflags %0" : "=r"(flags));
    CHECK_EQ(flags & (FFLAGS_DZ | FFLAGS_NX), FFLAGS_DZ | FFLAGS_NX);
    return 0;
}
