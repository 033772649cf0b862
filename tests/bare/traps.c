/* Exceptions taken into M: ecall from M/S/U, illegal instructions (32-bit and compressed, with the
 * bits in mtval), breakpoints, misaligned LR/SC/AMO, access faults on fetch, load and store, a
 * fault in straight-line code, and the status stack on entry and after mret. */
#include "bare.h"
#include "check.h"

static uint64_t ecall_here(uint64_t unused) {
  (void)unused;
  return ecall_at();
}

static uint64_t word_at(uint64_t pc) { return *(volatile uint32_t *)pc; }

static void ecalls(void) {
  uint64_t pc = ecall_at();
  expect_m(CAUSE_ECALL_M, pc, 0);

  pc = run_in(PRIV_S, ecall_here, 0);
  CHECK((uint64_t)PRIV_S << MSTATUS_MPP_SHIFT, m_rec.status & MSTATUS_MPP);
  expect_m(CAUSE_ECALL_S, pc, 0);

  pc = run_in(PRIV_U, ecall_here, 0);
  CHECK(0, m_rec.status & MSTATUS_MPP);
  expect_m(CAUSE_ECALL_U, pc, 0);
}

static void illegal(void) {
  /* Writing a read-only CSR. */
  uint64_t pc = AT("csrw mhartid, zero");
  expect_m(CAUSE_ILLEGAL, pc, word_at(pc));
  /* An FP instruction while mstatus.FS is Off (its reset value on both machines). */
  csr_clear(mstatus, 3ul << 13);
  pc = AT("fmv.d.x f1, zero");
  expect_m(CAUSE_ILLEGAL, pc, word_at(pc));
  /* custom-0 opcode, nothing implements it. */
  pc = AT(".word 0x0000500b");
  expect_m(CAUSE_ILLEGAL, pc, 0x500b);
  /* The all-zeros halfword, and C.ADDI4SPN with a zero immediate (reserved): mtval holds only
     the 16 instruction bits. */
  pc = AT(".option rvc\n.half 0x0000\nnop");
  expect_m(CAUSE_ILLEGAL, pc, 0);
  pc = AT(".option rvc\n.half 0x0004\nnop");
  expect_m(CAUSE_ILLEGAL, pc, 0x0004);
}

static uint64_t breakpoint_c(void) {
  uint64_t pc_;
  __asm__ volatile(".option push\n.option rvc\nla %0, 1f\n1: c.ebreak\n.option pop" : "=&r"(pc_)::"memory");
  return pc_;
}

/* [C.]EBREAK may leave mtval zero or write the pc: brisk writes the pc, QEMU 7.2 zero. */
#ifdef QEMU_REF
#define BREAK_TVAL(pc) 0
#else
#define BREAK_TVAL(pc) (pc)
#endif

static void breakpoints(void) {
  uint64_t pc = AT("ebreak");
  expect_m(CAUSE_BREAKPOINT, pc, BREAK_TVAL(pc));
  pc = breakpoint_c();
  expect_m(CAUSE_BREAKPOINT, pc, BREAK_TVAL(pc));
}

static uint64_t cell[4] __attribute__((aligned(16)));

/* QEMU 7.2 reports a misaligned AMO as a load address misaligned exception (cause 4); the spec
   says AMOs raise store/AMO exceptions (machine.adoc, "mcause"). */
#ifdef QEMU_REF
#define AMO_MISALIGNED CAUSE_LOAD_MISALIGNED
#else
#define AMO_MISALIGNED CAUSE_STORE_MISALIGNED
#endif

static void misaligned_atomics(void) {
  uint64_t a = (uint64_t)cell + 2, pc;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: amoadd.w zero, zero, (%1)\n.option pop"
                   : "=&r"(pc) : "r"(a) : "memory");
  expect_m(AMO_MISALIGNED, pc, a);
  a = (uint64_t)cell + 4;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: amoswap.d zero, zero, (%1)\n.option pop"
                   : "=&r"(pc) : "r"(a) : "memory");
  expect_m(AMO_MISALIGNED, pc, a);
  /* LR is a load, SC a store. */
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: lr.d zero, (%1)\n.option pop"
                   : "=&r"(pc) : "r"(a) : "memory");
  expect_m(CAUSE_LOAD_MISALIGNED, pc, a);
#ifndef QEMU_REF /* QEMU 7.2 fails a misaligned SC without a reservation quietly (rd = 1) */
  uint64_t rd = 7;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: sc.d %1, zero, (%2)\n.option pop"
                   : "=&r"(pc), "+r"(rd) : "r"(a) : "memory");
  expect_m(CAUSE_STORE_MISALIGNED, pc, a);
  CHECK(7, rd);
#endif
  CHECK(0, cell[0] | cell[1]);
}

static void access_faults(void) {
  const uint64_t past_ram = RAM_BASE + (64ul << 20);
  const uint64_t targets[] = {UNMAPPED_PA, past_ram};
  for (int i = 0; i < 2; i++) {
    const uint64_t t = targets[i];
    jump_to(t);
    expect_m(CAUSE_FETCH_ACCESS, t, t);
    uint64_t v = 0x1234;
    uint64_t pc = load64_at(t, &v);
    expect_m(CAUSE_LOAD_ACCESS, pc, t);
    CHECK(0x1234, v); /* the destination is left alone */
    pc = store64_at(t, 0);
    expect_m(CAUSE_STORE_ACCESS, pc, t);
  }
}

/* A fault in the middle of straight-line code is precise: the handler sees the writes before it,
   and neither the faulting load nor what follows has happened. */
static uint64_t seen[4];
static void record_regs(struct frame *f) {
  for (int r = 0; r < 4; r++) seen[r] = f->x[11 + r]; /* a1..a4 */
  record_m(f);
}

static void precise(void) {
  set_m_handler(record_regs);
  uint64_t pc, a3, a4;
  __asm__ volatile(".option push\n.option norvc\n"
                   "li a1, 0\n li a2, 0\n li a3, 33\n li a4, 0\n"
                   "li a1, 11\n addi a2, a1, 11\n la %0, 1f\n"
                   "1: ld a3, 0(%3)\n li a4, 44\n mv %1, a3\n mv %2, a4\n"
                   ".option pop"
                   : "=&r"(pc), "=&r"(a3), "=&r"(a4)
                   : "r"(UNMAPPED_PA) : "a1", "a2", "a3", "a4", "memory");
  expect_m(CAUSE_LOAD_ACCESS, pc, UNMAPPED_PA);
  CHECK(11, seen[0]);
  CHECK(22, seen[1]);
  CHECK(33, seen[2]);
  CHECK(0, seen[3]);
  CHECK(33, a3);
  CHECK(44, a4);
  set_m_handler(record_m);
}

/* mstatus on trap entry into M and after mret. */
static void status_stack(void) {
  csr_set(mstatus, MSTATUS_MIE);
  uint64_t pc = ecall_at();
  uint64_t s = m_rec.status;
  expect_m(CAUSE_ECALL_M, pc, 0);
  CHECK(0, s & MSTATUS_MIE);
  CHECK(MSTATUS_MPIE, s & MSTATUS_MPIE);
  CHECK(MSTATUS_MPP, s & MSTATUS_MPP);
  /* mret: MIE = MPIE, MPIE = 1, MPP = U (the least-privileged mode). */
  s = csr_read(mstatus);
  CHECK(MSTATUS_MIE, s & MSTATUS_MIE);
  CHECK(MSTATUS_MPIE, s & MSTATUS_MPIE);
  CHECK(0, s & MSTATUS_MPP);

  csr_clear(mstatus, MSTATUS_MIE);
  pc = ecall_at();
  s = m_rec.status;
  expect_m(CAUSE_ECALL_M, pc, 0);
  CHECK(0, s & (MSTATUS_MIE | MSTATUS_MPIE));
  CHECK(0, csr_read(mstatus) & MSTATUS_MIE);
  CHECK(MSTATUS_MPIE, csr_read(mstatus) & MSTATUS_MPIE);

#ifndef QEMU_REF /* QEMU 7.2 keeps mepc[0]; machine.adoc: "mepc[0] is always zero" */
  csr_write(mepc, 0x80001003);
  CHECK(0x80001002, csr_read(mepc));
#endif
}

int main(void) {
  set_m_handler(record_m);
  ecalls();
  illegal();
  breakpoints();
  misaligned_atomics();
  access_faults();
  precise();
  status_stack();
  return 0;
}
