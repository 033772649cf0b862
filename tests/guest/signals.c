/* Signal handlers as Linux runs them on riscv64: the frame (siginfo, ucontext with the registers and
 * FP state), rt_sigreturn with a changed pc, synchronous faults, masks and pending signals,
 * SA_RESETHAND, SA_NODEFER, sigaltstack, sigsuspend, ITIMER_REAL interrupting a spin, pause and
 * nanosleep, and pselect and ppoll waiting with a mask of their own. Every handler counts its runs,
 * and each step checks the counts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

#include "check_c.h"

static volatile int runs, depth, max_depth;
static volatile siginfo_t last_info;
static volatile uint64_t last_pc, last_sp;

static void on(int sig, void (*fn)(int, siginfo_t *, void *), int flags) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | flags;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(sig, &sa, NULL), 0);
}

static void record(int sig, siginfo_t *si, void *ctx) {
    CHECK_EQ(sig, si->si_signo);
    last_info = *si;
    last_pc = ((ucontext_t *)ctx)->uc_mcontext.__gregs[REG_PC];
    uint64_t here = (uint64_t)__builtin_frame_address(0);
    last_sp = here;
    runs++;
}

/* tgkill of this thread; *at is the address of its ecall. */
static long tgkill_at(int sig, uint64_t *at) {
    register long a0 asm("a0") = getpid();
    register long a1 asm("a1") = gettid();
    register long a2 asm("a2") = sig;
    register long a7 asm("a7") = SYS_tgkill;
    uint64_t pc;
    asm volatile("lla %1, 1f\n1: ecall" : "+r"(a0), "=&r"(pc) : "r"(a1), "r"(a2), "r"(a7) : "memory");
    *at = pc;
    return a0;
}

/* The s registers, fs registers, fcsr and t3..t6 after a tgkill whose handler clobbers them all. */
void preserve_test(uint64_t out[28], long pid, long tid, long sig);
void clobber_handler(int sig);
volatile int clobber_runs;
asm(".text\n"
    ".globl preserve_test\n"
    "preserve_test:\n"
    "  addi sp, sp, -208\n"
    "  sd s0, 0(sp)\n  sd s1, 8(sp)\n  sd s2, 16(sp)\n  sd s3, 24(sp)\n  sd s4, 32(sp)\n  sd s5, 40(sp)\n"
    "  sd s6, 48(sp)\n  sd s7, 56(sp)\n  sd s8, 64(sp)\n  sd s9, 72(sp)\n  sd s10, 80(sp)\n  sd s11, 88(sp)\n"
    "  fsd fs0, 96(sp)\n  fsd fs1, 104(sp)\n  fsd fs2, 112(sp)\n  fsd fs3, 120(sp)\n  fsd fs4, 128(sp)\n"
    "  fsd fs5, 136(sp)\n  fsd fs6, 144(sp)\n  fsd fs7, 152(sp)\n  fsd fs8, 160(sp)\n  fsd fs9, 168(sp)\n"
    "  fsd fs10, 176(sp)\n  fsd fs11, 184(sp)\n"
    "  mv s0, a0\n"
    "  li s1, 0x5101\n  li s2, 0x5102\n  li s3, 0x5103\n  li s4, 0x5104\n  li s5, 0x5105\n  li s6, 0x5106\n"
    "  li s7, 0x5107\n  li s8, 0x5108\n  li s9, 0x5109\n  li s10, 0x510a\n  li s11, 0x510b\n"
    "  li t0, 0x4600\n"
    "  fmv.d.x fs0, t0\n  addi t0, t0, 1\n  fmv.d.x fs1, t0\n  addi t0, t0, 1\n  fmv.d.x fs2, t0\n  addi t0, t0, 1\n"
    "  fmv.d.x fs3, t0\n  addi t0, t0, 1\n  fmv.d.x fs4, t0\n  addi t0, t0, 1\n  fmv.d.x fs5, t0\n  addi t0, t0, 1\n"
    "  fmv.d.x fs6, t0\n  addi t0, t0, 1\n  fmv.d.x fs7, t0\n  addi t0, t0, 1\n  fmv.d.x fs8, t0\n  addi t0, t0, 1\n"
    "  fmv.d.x fs9, t0\n  addi t0, t0, 1\n  fmv.d.x fs10, t0\n  addi t0, t0, 1\n  fmv.d.x fs11, t0\n"
    "  li t0, 0x21\n  csrw fcsr, t0\n" /* frm RTZ, fflags NX */
    "  li t3, 0x7303\n  li t4, 0x7304\n  li t5, 0x7305\n  li t6, 0x7306\n"
    "  mv a0, a1\n  mv a1, a2\n  mv a2, a3\n  li a7, 131\n  ecall\n"
    "  sd s1, 0(s0)\n  sd s2, 8(s0)\n  sd s3, 16(s0)\n  sd s4, 24(s0)\n  sd s5, 32(s0)\n  sd s6, 40(s0)\n"
    "  sd s7, 48(s0)\n  sd s8, 56(s0)\n  sd s9, 64(s0)\n  sd s10, 72(s0)\n  sd s11, 80(s0)\n"
    "  fsd fs0, 88(s0)\n  fsd fs1, 96(s0)\n  fsd fs2, 104(s0)\n  fsd fs3, 112(s0)\n  fsd fs4, 120(s0)\n"
    "  fsd fs5, 128(s0)\n  fsd fs6, 136(s0)\n  fsd fs7, 144(s0)\n  fsd fs8, 152(s0)\n  fsd fs9, 160(s0)\n"
    "  fsd fs10, 168(s0)\n  fsd fs11, 176(s0)\n"
    "  csrr t0, fcsr\n  sd t0, 184(s0)\n"
    "  sd t3, 192(s0)\n  sd t4, 200(s0)\n  sd t5, 208(s0)\n  sd t6, 216(s0)\n"
    "  ld s0, 0(sp)\n  ld s1, 8(sp)\n  ld s2, 16(sp)\n  ld s3, 24(sp)\n  ld s4, 32(sp)\n  ld s5, 40(sp)\n"
    "  ld s6, 48(sp)\n  ld s7, 56(sp)\n  ld s8, 64(sp)\n  ld s9, 72(sp)\n  ld s10, 80(sp)\n  ld s11, 88(sp)\n"
    "  fld fs0, 96(sp)\n  fld fs1, 104(sp)\n  fld fs2, 112(sp)\n  fld fs3, 120(sp)\n  fld fs4, 128(sp)\n"
    "  fld fs5, 136(sp)\n  fld fs6, 144(sp)\n  fld fs7, 152(sp)\n  fld fs8, 160(sp)\n  fld fs9, 168(sp)\n"
    "  fld fs10, 176(sp)\n  fld fs11, 184(sp)\n"
    "  addi sp, sp, 208\n"
    "  ret\n"
    ".globl clobber_handler\n"
    "clobber_handler:\n" /* returns to the trampoline with every register changed */
    "  li s0, 0\n  li s1, 0\n  li s2, 0\n  li s3, 0\n  li s4, 0\n  li s5, 0\n  li s6, 0\n  li s7, 0\n"
    "  li s8, 0\n  li s9, 0\n  li s10, 0\n  li s11, 0\n  li t3, 0\n  li t4, 0\n  li t5, 0\n  li t6, 0\n"
    "  fmv.d.x fs0, zero\n  fmv.d.x fs1, zero\n  fmv.d.x fs2, zero\n  fmv.d.x fs3, zero\n  fmv.d.x fs4, zero\n"
    "  fmv.d.x fs5, zero\n  fmv.d.x fs6, zero\n  fmv.d.x fs7, zero\n  fmv.d.x fs8, zero\n  fmv.d.x fs9, zero\n"
    "  fmv.d.x fs10, zero\n  fmv.d.x fs11, zero\n"
    "  li t0, 0x4f\n  csrw fcsr, t0\n"
    "  lla t0, clobber_runs\n  lw t1, 0(t0)\n  addi t1, t1, 1\n  sw t1, 0(t0)\n"
    "  ret\n");

/* Faults the handler steps over: each instruction is 4 bytes, and the handler adds 4 to the pc. */
static void skip(int sig, siginfo_t *si, void *ctx) {
    record(sig, si, ctx);
    ((ucontext_t *)ctx)->uc_mcontext.__gregs[REG_PC] += 4;
}

/* The handler has run `want` times in all, the last time for this fault. */
static void check_fault(int want, int sig, int code, uint64_t addr) {
    CHECK_EQ(runs, want);
    CHECK_EQ(last_info.si_signo, sig);
    CHECK_EQ(last_info.si_code, code);
    CHECK_EQ((uint64_t)last_info.si_addr, addr);
}

static uint64_t load_at(const volatile uint64_t *p, uint64_t *pc) {
    uint64_t v = 0x1234, at;
    asm volatile(".option push\n.option norvc\nlla %1, 1f\n1: ld %0, 0(%2)\n.option pop"
                 : "+r"(v), "=&r"(at) : "r"(p) : "memory");
    *pc = at;
    return v;
}

static void nested(int sig, siginfo_t *si, void *ctx) {
    depth++;
    if (depth > max_depth) max_depth = depth;
    record(sig, si, ctx);
    if (runs == 1) raise(sig);
    depth--;
}

static volatile int alarms;
static void on_alarm(int sig, siginfo_t *si, void *ctx) {
    record(sig, si, ctx);
    alarms++;
}

/* Feeds the pipe a read is blocked on, so that the restarted read finds a byte. */
static int feed_fd;
static void feed(int sig, siginfo_t *si, void *ctx) {
    on_alarm(sig, si, ctx);
    CHECK_EQ(write(feed_fd, "x", 1), 1);
}

int main(void) {
    uint64_t at;

    /* A handler with SA_SIGINFO: siginfo of tgkill, and the ucontext's pc just after the ecall. */
    on(SIGUSR2, record, 0);
    CHECK_EQ(tgkill_at(SIGUSR2, &at), 0);
    CHECK_EQ(runs, 1);
    CHECK_EQ(last_info.si_signo, SIGUSR2);
    CHECK_EQ(last_info.si_code, SI_TKILL);
    CHECK_EQ(last_info.si_pid, getpid());
    CHECK_EQ(last_info.si_uid, getuid());
    CHECK_EQ(last_pc, at + 4);
    CHECK_EQ(kill(getpid(), SIGUSR2), 0);
    CHECK_EQ(runs, 2);
    CHECK_EQ(last_info.si_code, SI_USER);

    /* Every register the handler changes is back after rt_sigreturn. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = clobber_handler;
    CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    uint64_t regs[28];
    preserve_test(regs, getpid(), gettid(), SIGUSR1);
    CHECK_EQ(clobber_runs, 1);
    for (int k = 0; k < 11; k++) CHECK_EQ(regs[k], 0x5101 + k);
    for (int k = 0; k < 12; k++) CHECK_EQ(regs[11 + k], 0x4600 + k);
    CHECK_EQ(regs[23], 0x21);
    for (int k = 0; k < 4; k++) CHECK_EQ(regs[24 + k], 0x7303 + k);

    /* SIGSEGV: a load from an unmapped page, then a store to a read-only one; the handler skips them. */
    runs = 0;
    on(SIGSEGV, skip, 0);
    char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    CHECK_EQ(munmap(page, 4096), 0);
    CHECK_EQ(load_at((uint64_t *)(page + 8), &at), 0x1234);
    check_fault(1, SIGSEGV, SEGV_MAPERR, (uint64_t)(page + 8));
    CHECK_EQ(last_pc, at);
    page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    asm volatile(".option push\n.option norvc\nsd zero, 16(%0)\n.option pop" : : "r"(page) : "memory");
    check_fault(2, SIGSEGV, SEGV_ACCERR, (uint64_t)(page + 16));

    /* SIGILL and SIGTRAP report the instruction's own address. */
    on(SIGILL, skip, 0);
    asm volatile(".option push\n.option norvc\nlla %0, 1f\n1: csrw cycle, zero\n.option pop" : "=r"(at));
    check_fault(3, SIGILL, ILL_ILLOPC, at);
    on(SIGTRAP, skip, 0);
    asm volatile(".option push\n.option norvc\nlla %0, 1f\n1: ebreak\n.option pop" : "=r"(at));
    check_fault(4, SIGTRAP, TRAP_BRKPT, at);

    /* SIGBUS: a store to a shared file mapping's page past the file's end (per-process name: every
     * engine's run may be here at once). */
    on(SIGBUS, skip, 0);
    char name[64];
    snprintf(name, sizeof name, "signals.%d.tmp", (int)getpid());
    int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK_EQ(write(fd, "x", 1), 1);
    page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(page != MAP_FAILED);
    CHECK_EQ(unlink(name), 0);
    close(fd);
    page[1] = 'y';  /* inside the file's page: fine */
    asm volatile(".option push\n.option norvc\nsw zero, 24(%0)\n.option pop" : : "r"(page + 4096) : "memory");
    check_fault(5, SIGBUS, BUS_ADRERR, (uint64_t)(page + 4096 + 24));
    CHECK_EQ(munmap(page, 2 * 4096), 0);

    /* A blocked signal stays pending until it is unblocked, and is delivered then. */
    runs = 0;
    on(SIGUSR2, record, 0);
    sigset_t set, old, pending;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    CHECK_EQ(sigprocmask(SIG_BLOCK, &set, &old), 0);
    CHECK_EQ(raise(SIGUSR2), 0);
    CHECK_EQ(runs, 0);
    CHECK_EQ(sigpending(&pending), 0);
    CHECK_EQ(sigismember(&pending, SIGUSR2), 1);
    CHECK_EQ(sigprocmask(SIG_SETMASK, &old, NULL), 0);
    CHECK_EQ(runs, 1);
    CHECK_EQ(sigpending(&pending), 0);
    CHECK_EQ(sigismember(&pending, SIGUSR2), 0);

    /* sigsuspend: waits with its own mask, and the old one is back afterwards. */
    CHECK_EQ(sigprocmask(SIG_BLOCK, &set, &old), 0);
    CHECK_EQ(raise(SIGUSR2), 0);
    sigset_t none;
    sigemptyset(&none);
    CHECK_EQ(sigsuspend(&none), -1);
    CHECK_EQ(errno, EINTR);
    CHECK_EQ(runs, 2);
    sigset_t now;
    CHECK_EQ(sigprocmask(SIG_SETMASK, &old, &now), 0);
    CHECK_EQ(sigismember(&now, SIGUSR2), 1);

    /* During a handler its signal is blocked (the second raise waits for the first to return) unless SA_NODEFER. */
    runs = max_depth = 0;
    on(SIGUSR2, nested, 0);
    CHECK_EQ(raise(SIGUSR2), 0);
    CHECK_EQ(runs, 2);
    CHECK_EQ(max_depth, 1);
    runs = max_depth = 0;
    on(SIGUSR2, nested, SA_NODEFER);
    CHECK_EQ(raise(SIGUSR2), 0);
    CHECK_EQ(runs, 2);
    CHECK_EQ(max_depth, 2);

    /* SA_RESETHAND: the action is SIG_DFL once the handler runs. */
    runs = 0;
    on(SIGUSR2, record, SA_RESETHAND);
    CHECK_EQ(raise(SIGUSR2), 0);
    CHECK_EQ(runs, 1);
    struct sigaction cur;
    CHECK_EQ(sigaction(SIGUSR2, NULL, &cur), 0);
    CHECK(cur.sa_handler == SIG_DFL);

    /* SA_ONSTACK: the handler runs on the alternate stack. */
    static char alt[65536];
    stack_t ss = {.ss_sp = alt, .ss_flags = 0, .ss_size = sizeof alt};
    CHECK_EQ(sigaltstack(&ss, NULL), 0);
    runs = 0;
    on(SIGUSR2, record, SA_ONSTACK);
    CHECK_EQ(raise(SIGUSR2), 0);
    CHECK_EQ(runs, 1);
    CHECK(last_sp > (uint64_t)alt && last_sp < (uint64_t)alt + sizeof alt);
    on(SIGUSR2, record, 0);
    CHECK_EQ(raise(SIGUSR2), 0);
    CHECK(last_sp < (uint64_t)alt || last_sp >= (uint64_t)alt + sizeof alt);

    /* ITIMER_REAL: SIGALRM ends a spin that makes no syscall, then pause(), then a nanosleep. */
    on(SIGALRM, on_alarm, 0);
    struct itimerval it = {.it_value = {.tv_usec = 20000}};
    CHECK_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
    while (!alarms) {
    }
    CHECK_EQ(last_info.si_signo, SIGALRM);
    CHECK_EQ(last_info.si_code, SI_KERNEL);
    struct itimerval left;
    CHECK_EQ(getitimer(ITIMER_REAL, &left), 0);
    CHECK_EQ(left.it_value.tv_sec | left.it_value.tv_usec, 0);
    alarm(1);
    CHECK_EQ(pause(), -1);
    CHECK_EQ(errno, EINTR);
    CHECK_EQ(alarms, 2);
    it.it_value.tv_usec = 100000;
    CHECK_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
    struct timespec req = {.tv_sec = 30}, rem = {0, 0};
    CHECK_EQ(nanosleep(&req, &rem), -1);
    CHECK_EQ(errno, EINTR);
    CHECK_EQ(alarms, 3);
    CHECK(rem.tv_sec < 30 && (rem.tv_sec > 0 || rem.tv_nsec > 0));

    /* SA_RESTART: a read the signal interrupts goes on, and returns what the handler wrote. */
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    feed_fd = fds[1];
    on(SIGALRM, feed, SA_RESTART);
    CHECK_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
    char c = 0;
    CHECK_EQ(read(fds[0], &c, 1), 1);
    CHECK_EQ(c, 'x');
    CHECK_EQ(alarms, 4);

    /* sigtimedwait takes a blocked signal without its handler: one pending, none (EAGAIN), then the timer's. */
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGALRM);
    CHECK_EQ(sigprocmask(SIG_BLOCK, &set, &old), 0);
    runs = 0;
    CHECK_EQ(raise(SIGUSR2), 0);
    siginfo_t si;
    struct timespec zero = {0, 0};
    CHECK_EQ(sigtimedwait(&set, &si, &zero), SIGUSR2);
    CHECK_EQ(si.si_signo, SIGUSR2);
    CHECK_EQ(si.si_pid, getpid());
    CHECK_EQ(sigtimedwait(&set, &si, &zero), -1);
    CHECK_EQ(errno, EAGAIN);
    CHECK_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
    CHECK_EQ(sigwaitinfo(&set, &si), SIGALRM);
    CHECK_EQ(si.si_code, SI_KERNEL);
    CHECK_EQ(runs, 0);
    CHECK_EQ(alarms, 4);
    CHECK_EQ(sigprocmask(SIG_SETMASK, &old, NULL), 0);

    /* pselect and ppoll wait with the mask they are given: a signal blocked before the call and
     * pending runs its handler and ends the wait with EINTR at once (the 10 s timeout would fail
     * the test's time limit), and the caller's mask is back afterwards. */
    on(SIGUSR1, record, 0);
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    CHECK_EQ(sigprocmask(SIG_BLOCK, &set, &old), 0);
    sigset_t open_mask, after;
    sigemptyset(&open_mask);
    struct timespec ten = {.tv_sec = 10};
    for (int k = 0; k < 2; k++) {
        runs = 0;
        CHECK_EQ(raise(SIGUSR1), 0);
        CHECK_EQ(runs, 0);
        if (k == 0) {
            CHECK_EQ(pselect(0, NULL, NULL, NULL, &ten, &open_mask), -1);
        } else {
            CHECK_EQ(ppoll(NULL, 0, &ten, &open_mask), -1);
        }
        CHECK_EQ(errno, EINTR);
        CHECK_EQ(runs, 1);
        CHECK_EQ(last_info.si_signo, SIGUSR1);
        CHECK_EQ(sigprocmask(SIG_SETMASK, NULL, &after), 0);
        CHECK_EQ(sigismember(&after, SIGUSR1), 1);
    }
    /* A mask of the wrong size is EINVAL, as on Linux. */
    struct {
        const sigset_t *ss;
        size_t size;
    } pack = {&open_mask, 16};
    CHECK_EQ(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ten, &pack), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(sigprocmask(SIG_SETMASK, &old, NULL), 0);
    return 0;
}
