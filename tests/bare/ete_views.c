/* Configurations that decide by the pc, reprogrammed by the guest (docs/ete.md, "The engine rule"):
 * run by tests/bare/ete_jit.sh with tests/bare/ete_views.cfg on the JIT and on the interpreter,
 * whose streams must be the same bytes. ViewInst includes one range, [straight, end), over a
 * straight run of not-taken branches, one block under the first configuration; each of the next
 * ones ends the range one branch earlier. A translation of the run under an earlier configuration
 * runs past the range's new end, tracing atoms the interpreter does not: so each configuration must
 * have translations of its own, also after more configurations than TraceViews holds
 * (runtime/ete_trace.h) started a new epoch of numbers. */
#include "bare.h"
#include "check.h"

#define ETE(off) (0x11000000ul + (off))
#define TRCPRGCTLR ETE(0x004)
#define TRCSTATR ETE(0x00c)
#define TRCACVR(n) ETE(0x400 + 8 * (n))
#define CONFIGS 24 /* more than TraceViews::kSize */
#define BRANCHES 32

/* BRANCHES branches, never taken as straight(0, 1) runs them, in full-size code. */
__asm__(".text\n.option push\n.option norvc\n"
        ".globl straight\n"
        "straight:\n"
        ".rept 32\n  beq a0, a1, 1f\n.endr\n"
        "1: ret\n"
        ".size straight, .-straight\n"
        ".option pop\n");
void straight(uint64_t a, uint64_t b);

int main(void) {
  const uint64_t start = (uint64_t)straight;
  CHECK(start, mmio_read64(TRCACVR(0))); /* tests/bare/ete_views.cfg's range */
  for (int c = 0; c < CONFIGS; c++) {
    if (c) {
      mmio_write32(TRCPRGCTLR, 0);
      CHECK(1, mmio_read32(TRCSTATR) & 1); /* IDLE: programmable */
      mmio_write64(TRCACVR(1), start + 4 * (BRANCHES - c));
      CHECK(start + 4 * (BRANCHES - c), mmio_read64(TRCACVR(1)));
      mmio_write32(TRCPRGCTLR, 1);
    }
    for (int i = 0; i < 100; i++) straight(0, 1);
  }
  mmio_write32(TRCPRGCTLR, 0);
  CHECK(1, mmio_read32(TRCSTATR) & 1); /* the stream ended here */
  return 0;
}
