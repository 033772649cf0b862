/* ctrtarget.MISP (smctr.adoc, "set by the hardware when the recorded transfer is an instruction
 * whose target or taken/not-taken direction was mispredicted"): brisk predicts the direction of
 * conditional branches with the predictor of its branch-misses event (csr/pmu.h) and predicts no
 * jump target, so over a run of recorded branches the MISP bits add up to what a counter of
 * branch misses counted over the same run, and a jump has MISP 0. The branches' directions come
 * from the bits of a constant, which also gives each record's type. */
#include "ctr.h"
#include "pmu.h"

/* mp_run(ctl, bits): with mctrctl = ctl, mhpmcounter3 counting from its csrc to its csrs, 64 times
 * `andi t2, a1, 1; beqz t2, 1f; 1: srli a1, a1, 1` (the branch at mp_0 + 12 i + 4, taken when bit i
 * of bits is 0, to the next instruction either way), then jump mp_j. */
#define BRANCHES 64
void mp_run(uint64_t ctl, uint64_t bits);
extern char mp_0[], mp_j[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl mp_run\n"
    "mp_run:\n"
    "  li t3, 8\n"
    "  csrw 0x34e, a0\n"
    "  csrc mcountinhibit, t3\n"
    "mp_0:\n"
    "  .rept 64\n"
    "  andi t2, a1, 1\n"
    "  beqz t2, 1f\n"
    "1: srli a1, a1, 1\n"
    "  .endr\n"
    "  csrs mcountinhibit, t3\n"
    "mp_j: j 1f\n"
    "1: csrw 0x34e, zero\n"
    "  ret\n"
    "  .option pop\n");

static void run(uint64_t bits) {
  struct ctr_rec want[BRANCHES + 1];
  for (unsigned i = 0; i < BRANCHES; i++) {
    uint64_t pc = (uint64_t)mp_0 + 12 * i + 4;
    want[i] = (struct ctr_rec)REC(pc, pc + 4, (bits >> i) & 1 ? CTR_NOT_TAKEN : CTR_TAKEN);
  }
  want[BRANCHES] = (struct ctr_rec)REC(mp_j, mp_j + 4, CTR_DIR_JUMP);
  ctr_reset(4);
  csr_set(mcountinhibit, CTR_HPM(3));
  csr_write(mhpmevent3, EV_BRANCH_MISSES);
  csr_write(mhpmcounter3, 0);
  mp_run(CTRCTL_M | CTRCTL_NTBREN, bits);
  expect_buffer_at("every branch recorded, taken or not, as its bit says", want, BRANCHES + 1, 0, __LINE__);
  uint64_t misp = 0;
  for (unsigned i = 1; i <= BRANCHES; i++) misp += ctr_entry(i).target & CTRTARGET_MISP;
  CHECKN("MISP bits = branch misses counted", csr_read(mhpmcounter3), misp);
  CHECKN("a jump: MISP 0", 0, ctr_entry(0).target & CTRTARGET_MISP);
}

int main(void) {
  set_m_handler(record_m);
  run(0x9e3779b97f4a7c15ul);
  CHECKN("an irregular pattern: some misses", 1, csr_read(mhpmcounter3) > 0);
  run(0x9e3779b97f4a7c15ul); /* the predictor has learnt some of it */
  run(0);
  run(~0ul);
  run(0xaaaaaaaaaaaaaaaaul);
  csr_write(mhpmevent3, 0);
  ctr_reset(4);
  return 0;
}
