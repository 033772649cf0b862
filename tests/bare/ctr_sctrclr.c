/* SCTRCLR and the stateen bit (smctr.adoc, "Supervisor CTR Clear Instruction", "State Enable Access
 * Control"), as seed 000 asks:
 *   "What does SCTRCLR guarantee?" Every entry reads 0 afterwards at every depth, also the entries
 *   past the depth it ran at; WRPTR is kept; the next record has CCV 0; from S too.
 *   "With mstateen0.CTR=0, S-mode runs with recording enabled. What still happens?" Recording:
 *   S's transfers update the entries and WRPTR, while S's own accesses to sctrstatus and SCTRCLR
 *   raise illegal-instruction; M reads the records afterwards. */
#include "ctr.h"

/* cl_sled(ctl): SLED jumps with mctrctl = ctl. */
#define SLED 260
void cl_sled(uint64_t ctl);
extern char cl_sled_0[];
/* cl_next(ctl): jumps n0, n1, SCTRCLR, a snapshot of logical entry 0 and sctrstatus into cl_snap,
 * jumps n2, n3. */
void cl_next(uint64_t ctl);
extern char cl_n2[], cl_n3[];
uint64_t cl_snap[4];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl cl_sled\n"
    "cl_sled:\n"
    "  csrw 0x34e, a0\n"
    "cl_sled_0:\n"
    "  .rept 260\n"
    "  j 1f\n"
    "1:\n"
    "  .endr\n"
    "  csrw 0x34e, zero\n"
    "  ret\n"

    "  .globl cl_next\n"
    "cl_next:\n"
    "  csrw 0x34e, a0\n"
    "  j 1f\n"
    "1: j 1f\n"
    "1: .word " CTR_STR(SCTRCLR_WORD) "\n"
    "  la t1, cl_snap\n"
    "  li t2, 0x200\n"
    "  csrw 0x150, t2\n"
    "  csrr t2, 0x151\n"
    "  sd t2, 0(t1)\n"
    "  csrr t2, 0x152\n"
    "  sd t2, 8(t1)\n"
    "  csrr t2, 0x153\n"
    "  sd t2, 16(t1)\n"
    "  csrr t2, 0x14f\n"
    "  sd t2, 24(t1)\n"
    "cl_n2: j 1f\n"
    "1:\n"
    "cl_n3: j 1f\n"
    "1: csrw 0x34e, zero\n"
    "  ret\n"
    "  .option pop\n");

static void all_zero(const char *what, uint64_t line) {
  for (unsigned i = 0; i < 256; i++) {
    struct ctr_entry e = ctr_entry(i);
    check_named(what, line, 0, e.source);
    check_named(what, line, 0, e.target);
    check_named(what, line, 0, e.data);
  }
}

/* 260 jumps fill every physical entry at depth 256; SCTRCLR at a smaller depth still clears them
   all. */
static void every_depth(unsigned priv, unsigned code) {
  ctr_reset(4);
  cl_sled(CTRCTL_M);
  CHECKN("260 jumps at depth 256: WRPTR", SLED % 256, ctr_wrptr());
  CHECKN("full buffer: logical 255 valid", ((uint64_t)cl_sled_0 + 4 * (SLED - 256)) | CTRSOURCE_V,
         ctr_entry(255).source);
  put_sctrdepth(code);
  uint64_t status = get_sctrstatus(0);
  if (priv == PRIV_M)
    sctrclr();
  else
    ALLOWED(priv, at_sctrclr, 0);
  CHECKN("SCTRCLR keeps sctrstatus", status, get_sctrstatus(0));
  put_sctrdepth(4);
  all_zero("after SCTRCLR at a smaller depth, all 256 entries read 0", __LINE__);
}

static void next_record(void) {
  ctr_reset(4);
  cl_next(CTRCTL_M);
  CHECKN("right after SCTRCLR logical 0 reads 0: ctrsource", 0, cl_snap[0]);
  CHECKN("right after SCTRCLR logical 0 reads 0: ctrtarget", 0, cl_snap[1]);
  CHECKN("right after SCTRCLR logical 0 reads 0: ctrdata", 0, cl_snap[2]);
  CHECKN("SCTRCLR keeps WRPTR", 2, cl_snap[3]);
  static const struct ctr_rec after[] = {REC(cl_n2, cl_n2 + 4, CTR_DIR_JUMP), REC(cl_n3, cl_n3 + 4, CTR_DIR_JUMP)};
  expect_buffer_at("the records after SCTRCLR, the two before it gone", after, 2, 2, __LINE__);
  CHECKN("first record after SCTRCLR: CCV 0", 0, ctr_entry(1).data & CTRDATA_CCV);
  CHECKN("the next: CCV 1, CC 1", CTRDATA_CCV | 1ul << 16, ctr_entry(0).data & (CTRDATA_CCV | 0xffff0000ul));
  CHECKN("the records before SCTRCLR: zero", 0, ctr_entry(2).source | ctr_entry(3).source);
}

/* For ctr_run (ctr.h), in S: jump g0, read sctrstatus, jump g1, SCTRCLR, jump g2, the exit ecall. */
extern char cl_gated[], cl_g_read[], cl_g1[], cl_g_clr[], cl_g2[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "cl_gated:\n"
    "  j 1f\n"
    "1:\n"
    "cl_g_read: csrr t1, 0x14f\n"
    "cl_g1: j 1f\n"
    "1:\n"
    "cl_g_clr: .word " CTR_STR(SCTRCLR_WORD) "\n"
    "cl_g2: j 1f\n"
    "1: li a7, " CTR_STR(CTR_EXIT) "\n"
    "  ecall\n"
    "  .option pop\n");

static void gated_but_recording(void) {
  put_mstateen0(CSRIND);
  ctr_reset(4);
  ctr_clear_traps();
  ctr_run(PRIV_S, (void (*)(void))cl_gated, CTRCTL_S);
  CHECKN("S read sctrstatus with mstateen0.CTR = 0: illegal", CAUSE_ILLEGAL, ctr_mtraps[0].cause);
  CHECKN("... at the csrr", (uint64_t)cl_g_read, ctr_mtraps[0].epc);
  CHECKN("S's SCTRCLR with mstateen0.CTR = 0: illegal", CAUSE_ILLEGAL, ctr_mtraps[1].cause);
  CHECKN("... at the SCTRCLR", (uint64_t)cl_g_clr, ctr_mtraps[1].epc);
  CHECKN("and then the exit", 3, ctr_mtrap_n);
  EXPECT_RECS("mstateen0.CTR = 0: S's transfers still recorded, nothing cleared",
              REC(cl_gated, cl_gated + 4, CTR_DIR_JUMP), REC(cl_g1, cl_g1 + 4, CTR_DIR_JUMP),
              REC(cl_g2, cl_g2 + 4, CTR_DIR_JUMP));
  put_mstateen0(0);
}

int main(void) {
  set_m_handler(record_m);
  every_depth(PRIV_M, 0);
  every_depth(PRIV_M, 2);
  put_mstateen0(STATEEN_CTR | CSRIND);
  every_depth(PRIV_S, 0);
  every_depth(PRIV_S, 3);
  put_mstateen0(0);
  next_record();
  gated_but_recording();
  ctr_reset(4);
  return 0;
}
