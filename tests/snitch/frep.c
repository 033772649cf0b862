/* FREP (docs/snitch.md, "FREP"), on hart 0: register staggering with exact values, FREP.O and
 * FREP.I told apart by a body whose order matters, and a non-FP instruction in a body (illegal at
 * that instruction). On the DMA core (hart 8) Xssr and Xfrep are illegal instructions. */
#include "ssr.h"

static volatile unsigned illegal_count[HARTS];
static volatile uint64_t illegal_epc[HARTS];
static volatile unsigned dma_core_done;

static uint64_t on_illegal(uint64_t cause, uint64_t epc) {
  const unsigned h = csr_read(mhartid);
  if (cause == CAUSE_ILLEGAL) illegal_count[h]++;
  illegal_epc[h] = epc;
  return epc + 4;
}

static void dma_core(void) {
  uintptr_t pc;
  __asm__ volatile("la %0, 1f\n1: .insn i 0x2b, 2, x0, %1, 32" : "=&r"(pc) : "r"(0) : "memory"); /* scfgwi */
  CHECK(1, illegal_count[8]);
  CHECK(pc, illegal_epc[8]);
  __asm__ volatile("la %0, 1f\n1: .insn i 0x2b, 1, t0, x0, 32" : "=&r"(pc)::"t0", "memory"); /* scfgri */
  CHECK(2, illegal_count[8]);
  CHECK(pc, illegal_epc[8]);
  __asm__ volatile("la %0, 1f\n1: .insn i 0x0b, 0, x1, zero, 0\nfadd.d ft3, ft3, ft3" : "=&r"(pc)::"ft3", "memory");
  CHECK(3, illegal_count[8]);
  CHECK(pc, illegal_epc[8]);
  dma_core_done = 1;
}

int main(unsigned hart) {
  if (hart == 8) {
    trap_handler = on_illegal;
    dma_core();
    return 0;
  }
  if (hart != 0) return 0;
  while (!dma_core_done) {
  }

  /* Stagger: fadd.d fa0, fa0, fs0 with stagger_max 3 and mask rd | rs1, 10 iterations: iteration
   * i adds to fa(i mod 4). fa0 gets 3 adds (0, 4, 8), fa1 3, fa2 2, fa3 2. */
  double a0 = 0, a1 = 100, a2 = 200, a3 = 300;
  __asm__ volatile(
      "fmv.d fa0, %[a0]\nfmv.d fa1, %[a1]\nfmv.d fa2, %[a2]\nfmv.d fa3, %[a3]\n"
      ".insn i 0x0b, 3, x7, %[iters], 0\n" /* frep.o iters, 1 instruction, stagger 3, mask 0b0011 */
      "fadd.d fa0, fa0, %[inc]\n"
      "fmv.d %[a0], fa0\nfmv.d %[a1], fa1\nfmv.d %[a2], fa2\nfmv.d %[a3], fa3\n"
      : [a0] "+f"(a0), [a1] "+f"(a1), [a2] "+f"(a2), [a3] "+f"(a3)
      : [iters] "r"(9), [inc] "f"(1.5)
      : "fa0", "fa1", "fa2", "fa3", "memory");
  CHECK(1, a0 == 4.5);
  CHECK(1, a1 == 104.5);
  CHECK(1, a2 == 203.0);
  CHECK(1, a3 == 303.0);

  /* Order: body {x += 1; x *= 2} twice from x = 1. FREP.O: ((1 + 1) 2 + 1) 2 = 10; FREP.I
   * (each instruction repeated in turn): (1 + 1 + 1) 2 2 = 12. */
  double o = 1, i = 1;
  __asm__ volatile(
      ".insn i 0x0b, 0, x1, %[iters], 1\n" /* frep.o: 2 instructions */
      "fadd.d %[o], %[o], %[one]\n"
      "fmul.d %[o], %[o], %[two]\n"
      ".insn i 0x0b, 0, x0, %[iters], 1\n" /* frep.i */
      "fadd.d %[i], %[i], %[one]\n"
      "fmul.d %[i], %[i], %[two]\n"
      : [o] "+&f"(o), [i] "+&f"(i)
      : [iters] "r"(1), [one] "f"(1.0), [two] "f"(2.0)
      : "memory");
  CHECK(10, (int)o);
  CHECK(12, (int)i);

  /* A non-FP instruction in a body: illegal at it, the rest of the sequence dropped. */
  trap_handler = on_illegal;
  uintptr_t pc;
  unsigned t = 0;
  __asm__ volatile(
      "la %[pc], 1f\n"
      ".insn i 0x0b, 0, x1, %[iters], 1\n"
      "1: addi %[t], %[t], 1\n"
      "addi %[t], %[t], 10\n"
      : [pc] "=&r"(pc), [t] "+r"(t)
      : [iters] "r"(3)
      : "memory");
  CHECK(1, illegal_count[0]);
  CHECK(pc, illegal_epc[0]);
  CHECK(10, t);
  trap_handler = 0;
  return 0;
}
