/* f registers at a memory fault. Translated code keeps a double result in an xmm copy until
 * something reads it from the hart (jit/x64/translator.cpp, fstore), so a guest fault in the same
 * block must find every f register written before it, in the SIGSEGV frame: after a host fault on
 * a page with no access (FaultSite::fcopies), after a store to a read-only page, and after an
 * access past the guest space that the access's slow path raises. Sixteen fld and ops before each
 * fault: more than the fourteen copies, so that the first ones go back to the hart on the way. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "check_c.h"

static sigjmp_buf back;
static uint64_t frame_f[32], frame_pc;
extern char load_none[], store_ro[], load_far[];

static void on_segv(int sig, siginfo_t *info, void *ctx) {
    (void)info;
    const ucontext_t *uc = ctx;
    CHECK_EQ(sig, SIGSEGV);
    memcpy(frame_f, uc->uc_mcontext.__fpregs.__d.__f, sizeof frame_f);
    frame_pc = uc->uc_mcontext.__gregs[REG_PC];
    siglongjmp(back, 1);
}

/* ft0-ft11 and fs0-fs3 from in[0..15] by fld, then fa0 = ft0 + ft1, fa1 = fa0 * ft2, fa2 = fa1 - ft3,
 * fa3 = fa2 / ft4, fa4 = sqrt(ft5), then ACCESS (at LABEL) through ADDR. */
#define FP_THEN(ACCESS, LABEL, ADDR)                                                                  \
    __asm__ volatile("fld ft0, 0(%0)\n\tfld ft1, 8(%0)\n\tfld ft2, 16(%0)\n\tfld ft3, 24(%0)\n\t"     \
                     "fld ft4, 32(%0)\n\tfld ft5, 40(%0)\n\tfld ft6, 48(%0)\n\tfld ft7, 56(%0)\n\t"   \
                     "fld ft8, 64(%0)\n\tfld ft9, 72(%0)\n\tfld ft10, 80(%0)\n\tfld ft11, 88(%0)\n\t" \
                     "fld fs0, 96(%0)\n\tfld fs1, 104(%0)\n\tfld fs2, 112(%0)\n\tfld fs3, 120(%0)\n\t" \
                     "fadd.d fa0, ft0, ft1\n\tfmul.d fa1, fa0, ft2\n\tfsub.d fa2, fa1, ft3\n\t"     \
                     "fdiv.d fa3, fa2, ft4\n\tfsqrt.d fa4, ft5\n\t"                                   \
                     ".globl " #LABEL "\n" #LABEL ":\n\t" ACCESS                                      \
                     :                                                                               \
                     : "r"(in), "r"(ADDR)                                                            \
                     : "t0", "ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "ft8", "ft9",   \
                       "ft10", "ft11", "fs0", "fs1", "fs2", "fs3", "fa0", "fa1", "fa2", "fa3", "fa4", \
                       "memory")

static const double in[16] = {1.5, 2.5, 3.0, 4.0, 2.0, 16.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 17.0};

static void check_frame(const char *label) {
    static const unsigned t[12] = {0, 1, 2, 3, 4, 5, 6, 7, 28, 29, 30, 31}; /* ft0-ft11 */
    static const unsigned s[4] = {8, 9, 18, 19};                            /* fs0-fs3 */
    double f[32];
    memcpy(f, frame_f, sizeof f);
    CHECK_EQ(frame_pc, (uint64_t)label);
    for (unsigned k = 0; k < 12; k++) CHECK(f[t[k]] == in[k]);
    for (unsigned k = 0; k < 4; k++) CHECK(f[s[k]] == in[12 + k]);
    CHECK(f[10] == 4.0);  /* fa0 = 1.5 + 2.5 */
    CHECK(f[11] == 12.0); /* fa1 = fa0 * 3 */
    CHECK(f[12] == 8.0);  /* fa2 = fa1 - 4 */
    CHECK(f[13] == 4.0);  /* fa3 = fa2 / 2 */
    CHECK(f[14] == 4.0);  /* fa4 = sqrt(16) */
}

int main(void) {
    struct sigaction sa = {0};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(none != MAP_FAILED && ro != MAP_FAILED);

    if (!sigsetjmp(back, 1)) {
        FP_THEN("ld t0, 0(%1)", load_none, none);
        CHECK(0); /* the load faults */
    }
    check_frame(load_none);
    if (!sigsetjmp(back, 1)) {
        FP_THEN("fsd fa4, 8(%1)", store_ro, ro);
        CHECK(0);
    }
    check_frame(store_ro);
    if (!sigsetjmp(back, 1)) {
        FP_THEN("ld t0, 0(%1)", load_far, (char *)(1ull << 62)); /* past any guest space */
        CHECK(0);
    }
    check_frame(load_far);
    return 0;
}
