/* Smctr cycle counting (smctr.adoc, "Cycle Counting") with brisk's cycle model, one cycle per
 * retired instruction: a record's CC is the instructions retired while CTR was active since the
 * previous record, the recorded one included, compressed to CCE/CCM and saturating at all ones.
 * CCV is 0 on the first record after a write of mctrctl or sctrctl (which restart the counter),
 * 1 after that; cycles while frozen or in a mode not enabled are not counted; trap records count
 * like the others (the trapping instruction does not retire), so jumps recorded by translated
 * code and traps recorded at trap entry share one counter. The CC boundaries 4095/4096, 8191/8192 and others
 * come from code where exactly N instructions retire between two recorded jumps (the loop's
 * branches inhibited by TKBRINH); the expected CC and its decoded value are worked out from the
 * spec's text. And 17 records at depth 16 wrap WRPTR, the oldest overwritten.
 *
 * Built with -DSATURATION it runs only the saturation case, 2^27 + 2 cycles: some 134 million
 * instructions, which the check engine needs about a minute for, so that build runs on the jit
 * and interp engines only (tests/bare/CMakeLists.txt). */
#include "ctr.h"

/* cy_even(ctl, k) / cy_odd(ctl, k): with mctrctl = ctl, jump cy_*_j0, then mv, k loop iterations
 * of two instructions (and a nop in cy_odd), jump cy_*_j1, jump cy_*_j2: j1 comes 2k + 2 (2k + 3)
 * instructions after j0, j2 one after j1. */
void cy_even(uint64_t ctl, uint64_t k);
void cy_odd(uint64_t ctl, uint64_t k);
extern char cy_even_j0[], cy_even_j1[], cy_even_j2[], cy_odd_j0[], cy_odd_j1[], cy_odd_j2[];
#define CY_LOOP(name, pad)         \
  "  .globl " #name "\n"           \
  #name ":\n"                      \
  "  csrw 0x34e, a0\n"             \
  #name "_j0: j 1f\n"              \
  "1: mv t1, a1\n"                 \
  "2: addi t1, t1, -1\n"           \
  "  bnez t1, 2b\n" pad            \
  #name "_j1: j 1f\n"              \
  "1:\n"                           \
  #name "_j2: j 1f\n"              \
  "1: csrw 0x34e, zero\n"          \
  "  ret\n"
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n" CY_LOOP(cy_even, "") CY_LOOP(cy_odd, "  nop\n")
    "  .option pop\n");

struct cycles_row {
  uint64_t n, cc, decoded;
};

/* Jump j1 comes exactly n >= 4 instructions after j0. */
static void elapsed(const struct cycles_row *row, uint64_t line) {
  const uint64_t n = row->n;
  char *j0 = n % 2 ? cy_odd_j0 : cy_even_j0, *j1 = n % 2 ? cy_odd_j1 : cy_even_j1,
       *j2 = n % 2 ? cy_odd_j2 : cy_even_j2;
  ctr_reset(4);
  if (n % 2)
    cy_odd(CTRCTL_M | CTRCTL_TKBRINH, (n - 3) / 2);
  else
    cy_even(CTRCTL_M | CTRCTL_TKBRINH, (n - 2) / 2);
  const struct ctr_rec recs[] = {REC(j0, j0 + 4, CTR_DIR_JUMP), REC(j1, j1 + 4, CTR_DIR_JUMP),
                                 REC(j2, j2 + 4, CTR_DIR_JUMP)};
  expect_buffer_at("the loop's branches inhibited: three jumps", recs, 3, 0, line);
  struct ctr_entry e0 = ctr_entry(2), e1 = ctr_entry(1), e2 = ctr_entry(0);
  check_named("the first record after the mctrctl write: CCV 0", line, 0, e0.data & CTRDATA_CCV);
  check_named("the next: CCV 1", line, CTRDATA_CCV, e1.data & CTRDATA_CCV);
  check_named("CC of n cycles", line, row->cc, CTRDATA_CC(e1.data));
  check_named("CC decoded by the spec's formula", line, row->decoded, cc_decode(CTRDATA_CC(e1.data)));
  check_named("one cycle after it: CCV 1", line, CTRDATA_CCV, e2.data & CTRDATA_CCV);
  check_named("one cycle after it: CC 1", line, 1, CTRDATA_CC(e2.data));
}

#ifdef SATURATION

int main(void) {
  /* 2^27 would need CCE = 16: CC stays all ones (smctr.adoc, "The CC value saturates when all
     implemented bits in CCM and CCE are 1"). */
  static const struct cycles_row saturated = {(1ul << 27) + 2, 0xffff, 134201344};
  elapsed(&saturated, __LINE__);
  ctr_reset(4);
  return 0;
}

#else

/* CC = CCE << 12 | CCM: below 4096 the count itself; from 4096 CCE = msb - 11 and CCM the 12 bits
   below the msb, so the low CCE - 1 bits are lost. */
static const struct cycles_row rows[] = {
    {4, 4, 4},
    {5, 5, 5},
    {4094, 0x0ffe, 4094},
    {4095, 0x0fff, 4095},
    {4096, 0x1000, 4096},
    {4097, 0x1001, 4097},
    {8191, 0x1fff, 8191},
    {8192, 0x2000, 8192},
    {8193, 0x2000, 8192},
    {8194, 0x2001, 8194},
    {12345, 0x281c, 12344},
    {1000000, 0x8e84, 999936},
};

static void boundaries(void) {
  for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) elapsed(&rows[i], __LINE__);
}

/* cy_rewrite(ctl): jumps r0, r1; mctrctl written again with ctl; a nop; r2; two nops; r3; sctrctl
 * written with ctl; r4; r5; sctrdepth written with what it holds; a nop; r6. */
void cy_rewrite(uint64_t ctl);
extern char cy_r0[], cy_r1[], cy_r2[], cy_r3[], cy_r4[], cy_r5[], cy_r6[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl cy_rewrite\n"
    "cy_rewrite:\n"
    "  csrw 0x34e, a0\n"
    "cy_r0: j 1f\n"
    "1:\n"
    "cy_r1: j 1f\n"
    "1: csrw 0x34e, a0\n"
    "  nop\n"
    "cy_r2: j 1f\n"
    "1: nop\n"
    "  nop\n"
    "cy_r3: j 1f\n"
    "1: csrw 0x14e, a0\n"
    "cy_r4: j 1f\n"
    "1:\n"
    "cy_r5: j 1f\n"
    "1: csrr t1, 0x15f\n"
    "  csrw 0x15f, t1\n"
    "  nop\n"
    "cy_r6: j 1f\n"
    "1: csrw 0x34e, zero\n"
    "  ret\n"
    "  .option pop\n");

static void ccv(void) {
  ctr_reset(4);
  cy_rewrite(CTRCTL_M);
  static const struct ctr_rec recs[] = {REC(cy_r0, cy_r0 + 4, CTR_DIR_JUMP), REC(cy_r1, cy_r1 + 4, CTR_DIR_JUMP),
                                        REC(cy_r2, cy_r2 + 4, CTR_DIR_JUMP), REC(cy_r3, cy_r3 + 4, CTR_DIR_JUMP),
                                        REC(cy_r4, cy_r4 + 4, CTR_DIR_JUMP), REC(cy_r5, cy_r5 + 4, CTR_DIR_JUMP),
                                        REC(cy_r6, cy_r6 + 4, CTR_DIR_JUMP)};
  EXPECT_BUFFER("seven jumps", recs, 7);
  /* Logical 6 is r0. */
  CHECKN("after the mctrctl write: CCV 0", 0, ctr_entry(6).data & CTRDATA_CCV);
  CHECKN("the next: CCV 1", CTRDATA_CCV, ctr_entry(5).data & CTRDATA_CCV);
  CHECKN("the next: CC 1", 1, CTRDATA_CC(ctr_entry(5).data));
  CHECKN("mctrctl written again, same value: CCV 0", 0, ctr_entry(4).data & CTRDATA_CCV);
  CHECKN("then counting from there: CCV 1", CTRDATA_CCV, ctr_entry(3).data & CTRDATA_CCV);
  CHECKN("then counting from there: CC 3", 3, CTRDATA_CC(ctr_entry(3).data));
  CHECKN("after an sctrctl write: CCV 0", 0, ctr_entry(2).data & CTRDATA_CCV);
  CHECKN("after it: CCV 1, CC 1", CTRDATA_CCV | 1ul << 16, ctr_entry(1).data & (CTRDATA_CCV | 0xffff0000ul));
  CHECKN("an sctrdepth write does not restart the counter: CCV 1, CC 4", CTRDATA_CCV | 4ul << 16,
         ctr_entry(0).data & (CTRDATA_CCV | 0xffff0000ul));
}

/* cy_frozen(ctl, k): jumps f0, f1; sets FROZEN (li, slli, csrs: counted, CTR still active as the
 * csrs retires); k loop iterations and the csrc clearing FROZEN, all frozen; a nop; jump f2. */
void cy_frozen(uint64_t ctl, uint64_t k);
extern char cy_f0[], cy_f1[], cy_f2[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl cy_frozen\n"
    "cy_frozen:\n"
    "  csrw 0x34e, a0\n"
    "cy_f0: j 1f\n"
    "1:\n"
    "cy_f1: j 1f\n"
    "1: li t2, 1\n"
    "  slli t2, t2, 31\n"
    "  csrs 0x14f, t2\n"
    "  mv t1, a1\n"
    "2: addi t1, t1, -1\n"
    "  bnez t1, 2b\n"
    "  csrc 0x14f, t2\n"
    "  nop\n"
    "cy_f2: j 1f\n"
    "1: csrw 0x34e, zero\n"
    "  ret\n"
    "  .option pop\n");

static void frozen_cycles(void) {
  ctr_reset(4);
  cy_frozen(CTRCTL_M | CTRCTL_TKBRINH, 5000);
  static const struct ctr_rec recs[] = {REC(cy_f0, cy_f0 + 4, CTR_DIR_JUMP), REC(cy_f1, cy_f1 + 4, CTR_DIR_JUMP),
                                        REC(cy_f2, cy_f2 + 4, CTR_DIR_JUMP)};
  EXPECT_BUFFER("frozen: three jumps", recs, 3);
  CHECKN("only active cycles count: li, slli, csrs, nop, j", CTRDATA_CCV | 5ul << 16,
         ctr_entry(0).data & (CTRDATA_CCV | 0xffff0000ul));
}

/* For ctr_run (ctr.h), in S: jump m0, an ecall into M (a7 = 0), jump m1, the exit ecall. Only S is
   enabled: the ecall does not retire and M's handler and mret run with CTR inactive, so m1 comes
   two cycles (li, m1) after m0. */
extern char cy_m[], cy_m1[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "cy_m: j 1f\n"
    "1: li a7, 0\n"
    "  ecall\n"
    "cy_m1: j 1f\n"
    "1: li a7, " CTR_STR(CTR_EXIT) "\n"
    "  ecall\n"
    "  .option pop\n");

static void inactive_mode(void) {
  ctr_reset(4);
  ctr_clear_traps();
  ctr_run(PRIV_S, (void (*)(void))cy_m, CTRCTL_S | CTRCTL_TKBRINH);
  EXPECT_RECS("S's two jumps", REC(cy_m, cy_m + 4, CTR_DIR_JUMP), REC(cy_m1, cy_m1 + 4, CTR_DIR_JUMP));
  CHECKN("cycles in M, not enabled, do not count: CCV 1, CC 2", CTRDATA_CCV | 2ul << 16,
         ctr_entry(0).data & (CTRDATA_CCV | 0xffff0000ul));
}

/* For ctr_run, in S with MTE: jump x0, four instructions, an ecall into M (an external trap,
   recorded), a nop, jump x1, a mv, the exit ecall (recorded too). The ecalls do not retire: a trap
   record counts the instructions before the ecall, and the next record those after it. */
extern char cy_x[], cy_x0[], cy_x_ec[], cy_x1[], cy_x_exit[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "cy_x: li t4, " CTR_STR(CTR_EXIT) "\n"
    "cy_x0: j 1f\n"
    "1: nop\n"
    "  nop\n"
    "  nop\n"
    "  li a7, 0\n"
    "cy_x_ec: ecall\n"
    "  nop\n"
    "cy_x1: j 1f\n"
    "1: mv a7, t4\n"
    "cy_x_exit: ecall\n"
    "  .option pop\n");

static void trap_records(void) {
  ctr_reset(4);
  ctr_clear_traps();
  ctr_run(PRIV_S, (void (*)(void))cy_x, CTRCTL_S | CTRCTL_MTE);
  EXPECT_RECS("jump, trap, jump, trap", REC(cy_x0, cy_x0 + 4, CTR_DIR_JUMP), REC(cy_x_ec, 0, CTR_EXCEPTION),
              REC(cy_x1, cy_x1 + 4, CTR_DIR_JUMP), REC(cy_x_exit, 0, CTR_EXCEPTION));
  CHECKN("a trap record: the four instructions before the ecall", CTRDATA_CCV | 4ul << 16,
         ctr_entry(2).data & (CTRDATA_CCV | 0xffff0000ul));
  CHECKN("after a trap record: nop and jump", CTRDATA_CCV | 2ul << 16,
         ctr_entry(1).data & (CTRDATA_CCV | 0xffff0000ul));
  CHECKN("the exit trap: the mv before it", CTRDATA_CCV | 1ul << 16, ctr_entry(0).data & (CTRDATA_CCV | 0xffff0000ul));
}

/* cy_sled(ctl): SLED jumps in a row with mctrctl = ctl. */
#define SLED 17
void cy_sled(uint64_t ctl);
extern char cy_sled_0[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl cy_sled\n"
    "cy_sled:\n"
    "  csrw 0x34e, a0\n"
    "cy_sled_0:\n"
    "  .rept 17\n"
    "  j 1f\n"
    "1:\n"
    "  .endr\n"
    "  csrw 0x34e, zero\n"
    "  ret\n"
    "  .option pop\n");

static void wrap(unsigned w0) {
  struct ctr_rec recs[SLED];
  for (unsigned i = 0; i < SLED; i++)
    recs[i] = (struct ctr_rec)REC(cy_sled_0 + 4 * i, cy_sled_0 + 4 * i + 4, CTR_DIR_JUMP);
  ctr_reset(0);
  put_sctrstatus(w0);
  cy_sled(CTRCTL_M);
  expect_buffer_at("17 records at depth 16: the oldest is overwritten", recs, SLED, w0, __LINE__);
  CHECKN("WRPTR wrapped", (w0 + SLED) % 16, ctr_wrptr());
  CHECKN("the oldest left, jump 1: CCV 1, CC 1", CTRDATA_CCV | 1ul << 16,
         ctr_entry(15).data & (CTRDATA_CCV | 0xffff0000ul));
  CHECKN("logical 16 at depth 16 reads 0", 0, ctr_entry(16).source);
}

int main(void) {
  set_m_handler(record_m);
  boundaries();
  ccv();
  frozen_cycles();
  inactive_mode();
  trap_records();
  wrap(0);
  wrap(15);
  ctr_reset(4);
  return 0;
}

#endif
