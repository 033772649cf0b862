/* Smctr transfer types and their filter (smctr.adoc, "Transfer Type Filtering"): one M-mode run
 * over every kind of jump and branch, 32- and 16-bit, recorded with the TYPE, source and target
 * the spec's opcode table gives (a not-taken branch records its fall-through pc); then each
 * inhibit bit drops exactly its type, and NTBREN adds the not-taken branches. The youngest record
 * is logical entry 0, siselect 0x200 (seed 000, "How does software read the youngest recorded
 * transfer?"), and logical entry N is physical entry (WRPTR - N - 1) % depth. */
#include "ctr.h"

/* types_run(ctl): records with mctrctl = ctl, from the csrw to the csrw that stops it. */
void types_run(uint64_t ctl);
extern char ty_br[], ty_br_t[], ty_nbr[], ty_cbr[], ty_cbr_t[], ty_cnbr[], ty_jal1[], ty_jal5[], ty_jalr1[],
    ty_jalr5[], ty_jalr11[], ty_jalr55[], ty_cjalr[], ty_co15[], ty_cco[], ty_ij[], ty_ij_t[], ty_cij[],
    ty_cij_t[], ty_cj[], ty_cj_t[], ty_j[], ty_j_t[], ty_r1[], ty_r1_t[], ty_r5[], ty_r5_t[], ty_cr1[],
    ty_cr1_t[], ty_cr5[], ty_cr5_t[], ty_rl[], ty_rl_t[], ty_oi[], ty_oi_t[], ty_od[], ty_od_t[], ty_leaf[],
    ty_leaf5[], ty_co[], ty_co2[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl types_run\n"
    "types_run:\n"
    "  mv t6, ra\n"
    "  li a1, 0\n"
    "  la a2, ty_leaf\n"
    "  la a3, ty_leaf5\n"
    "  csrw 0x34e, a0\n"
    /* branches */
    "ty_br: beq zero, zero, ty_br_t\n"
    "  ebreak\n"
    "ty_br_t:\n"
    "ty_nbr: bne zero, zero, ty_br\n"
    "  .option rvc\n"
    "ty_cbr: c.beqz a1, ty_cbr_t\n"
    "  c.ebreak\n"
    "ty_cbr_t:\n"
    "ty_cnbr: c.bnez a1, ty_cbr\n"
    "  .option norvc\n"
    /* calls: JAL x1, JAL x5, JALR x1, JALR x5, JALR x1 x1, JALR x5 x5, C.JALR */
    "ty_jal1: jal ra, ty_leaf\n"
    "ty_jal5: jal t0, ty_leaf5\n"
    "ty_jalr1: jalr ra, 0(a2)\n"
    "ty_jalr5: jalr t0, 0(a3)\n"
    "  mv ra, a2\n"
    "ty_jalr11: jalr ra, 0(ra)\n"
    "  mv t0, a3\n"
    "ty_jalr55: jalr t0, 0(t0)\n"
    "  .option rvc\n"
    "ty_cjalr: c.jalr a2\n"
    "  .option norvc\n"
    /* co-routine swaps: JALR x1 x5 to ty_co, whose JALR x5 x1 comes back to C.JALR x5, which goes
       on to ty_co2 */
    "  la t0, ty_co\n"
    "ty_co15: jalr ra, 0(t0)\n"
    "  .option rvc\n"
    "ty_cco: c.jalr t0\n"
    "  .option norvc\n"
    /* jumps without linkage: JALR x0, C.JR, C.J, JAL x0 */
    "  la a4, ty_ij_t\n"
    "ty_ij: jr a4\n"
    "ty_ij_t:\n"
    "  la a4, ty_cij_t\n"
    "  .option rvc\n"
    "ty_cij: c.jr a4\n"
    "ty_cij_t:\n"
    "ty_cj: c.j ty_cj_t\n"
    "  c.ebreak\n"
    "ty_cj_t:\n"
    "  .option norvc\n"
    "ty_j: j ty_j_t\n"
    "  ebreak\n"
    "ty_j_t:\n"
    /* returns: JALR x0 x1, JALR x0 x5, C.JR x1, C.JR x5, and JALR with a non-link rd from x1 */
    "  la ra, ty_r1_t\n"
    "ty_r1: jalr zero, 0(ra)\n"
    "ty_r1_t:\n"
    "  la t0, ty_r5_t\n"
    "ty_r5: jalr zero, 0(t0)\n"
    "ty_r5_t:\n"
    "  la ra, ty_cr1_t\n"
    "  .option rvc\n"
    "ty_cr1: c.jr ra\n"
    "ty_cr1_t:\n"
    "  .option norvc\n"
    "  la t0, ty_cr5_t\n"
    "  .option rvc\n"
    "ty_cr5: c.jr t0\n"
    "ty_cr5_t:\n"
    "  .option norvc\n"
    "  la ra, ty_rl_t\n"
    "ty_rl: jalr a5, 0(ra)\n"
    "ty_rl_t:\n"
    /* other jumps with linkage: JALR and JAL with rd not x0, x1 or x5 */
    "  la a4, ty_oi_t\n"
    "ty_oi: jalr a5, 0(a4)\n"
    "ty_oi_t:\n"
    "ty_od: jal a5, ty_od_t\n"
    "  ebreak\n"
    "ty_od_t:\n"
    "  csrw 0x34e, zero\n"
    "  mv ra, t6\n"
    "  ret\n"
    "ty_leaf: jalr zero, 0(ra)\n"
    "ty_leaf5: jalr zero, 0(t0)\n"
    "ty_co: jalr t0, 0(ra)\n"
    "ty_co2: jalr zero, 0(ra)\n"
    "  .option pop\n");

/* What types_run makes, in program order. */
static const struct ctr_rec all[] = {
    REC(ty_br, ty_br_t, CTR_TAKEN),
    REC(ty_nbr, ty_nbr + 4, CTR_NOT_TAKEN),
    REC(ty_cbr, ty_cbr_t, CTR_TAKEN),
    REC(ty_cnbr, ty_cnbr + 2, CTR_NOT_TAKEN),
    REC(ty_jal1, ty_leaf, CTR_DIR_CALL),
    REC(ty_leaf, ty_jal1 + 4, CTR_RETURN),
    REC(ty_jal5, ty_leaf5, CTR_DIR_CALL),
    REC(ty_leaf5, ty_jal5 + 4, CTR_RETURN),
    REC(ty_jalr1, ty_leaf, CTR_IND_CALL),
    REC(ty_leaf, ty_jalr1 + 4, CTR_RETURN),
    REC(ty_jalr5, ty_leaf5, CTR_IND_CALL),
    REC(ty_leaf5, ty_jalr5 + 4, CTR_RETURN),
    REC(ty_jalr11, ty_leaf, CTR_IND_CALL),
    REC(ty_leaf, ty_jalr11 + 4, CTR_RETURN),
    REC(ty_jalr55, ty_leaf5, CTR_IND_CALL),
    REC(ty_leaf5, ty_jalr55 + 4, CTR_RETURN),
    REC(ty_cjalr, ty_leaf, CTR_IND_CALL),
    REC(ty_leaf, ty_cjalr + 2, CTR_RETURN),
    REC(ty_co15, ty_co, CTR_CO_SWAP),
    REC(ty_co, ty_cco, CTR_CO_SWAP),
    REC(ty_cco, ty_co2, CTR_CO_SWAP),
    REC(ty_co2, ty_cco + 2, CTR_RETURN),
    REC(ty_ij, ty_ij_t, CTR_IND_JUMP),
    REC(ty_cij, ty_cij_t, CTR_IND_JUMP),
    REC(ty_cj, ty_cj_t, CTR_DIR_JUMP),
    REC(ty_j, ty_j_t, CTR_DIR_JUMP),
    REC(ty_r1, ty_r1_t, CTR_RETURN),
    REC(ty_r5, ty_r5_t, CTR_RETURN),
    REC(ty_cr1, ty_cr1_t, CTR_RETURN),
    REC(ty_cr5, ty_cr5_t, CTR_RETURN),
    REC(ty_rl, ty_rl_t, CTR_RETURN),
    REC(ty_oi, ty_oi_t, CTR_OTHER_IND),
    REC(ty_od, ty_od_t, CTR_OTHER_DIR),
};
#define N_ALL (sizeof all / sizeof all[0])

/* Types that filter records: bit 32 + TYPE set inhibits it, except NTBREN, which enables it. */
static int recorded(uint64_t ctl, uint64_t type) {
  return type == CTR_NOT_TAKEN ? (ctl & CTRCTL_NTBREN) != 0 : (ctl & CTRCTL_INH(type)) == 0;
}

/* types_run with ctl from WRPTR w0 leaves exactly the records of `all` that ctl lets through. */
static void run_filtered(const char *what, uint64_t ctl, unsigned w0) {
  static struct ctr_rec want[N_ALL];
  unsigned n = 0;
  for (unsigned i = 0; i < N_ALL; i++)
    if (recorded(ctl, all[i].type)) want[n++] = all[i];
  ctr_reset(4);
  put_sctrstatus(w0);
  types_run(CTRCTL_M | ctl);
  expect_buffer_at(what, want, n, w0, __LINE__);
}

static const unsigned jump_types[] = {CTR_TAKEN, CTR_IND_CALL, CTR_DIR_CALL, CTR_IND_JUMP, CTR_DIR_JUMP,
                                      CTR_CO_SWAP, CTR_RETURN, CTR_OTHER_IND, CTR_OTHER_DIR};
static const char *const inhibit_names[] = {"TKBRINH drops taken branches only",
                                            "INDCALLINH drops indirect calls only",
                                            "DIRCALLINH drops direct calls only",
                                            "INDJMPINH drops indirect jumps only",
                                            "DIRJMPINH drops direct jumps only",
                                            "CORSWAPINH drops co-routine swaps only",
                                            "RETINH drops returns only",
                                            "INDLJMPINH drops other indirect jumps only",
                                            "DIRLJMPINH drops other direct jumps only"};

static void every_type(void) {
  run_filtered("default filter: every jump and taken branch, no not-taken branch", 0, 0);
  run_filtered("NTBREN: not-taken branches too, target the fall-through pc", CTRCTL_NTBREN, 0);
  /* Seed 000, question 1: the youngest transfer is logical entry 0. */
  struct ctr_entry youngest = ctr_entry(0);
  CHECKN("youngest record at siselect 0x200: source", (uint64_t)ty_od | CTRSOURCE_V, youngest.source);
  CHECKN("youngest record at siselect 0x200: target", (uint64_t)ty_od_t, youngest.target & ~CTRTARGET_MISP);
  CHECKN("youngest record at siselect 0x200: type", CTR_OTHER_DIR, youngest.data & CTRDATA_TYPE);
  CHECKN("every record advanced WRPTR", N_ALL, ctr_wrptr());
}

static void each_inhibit(void) {
  for (unsigned k = 0; k < sizeof jump_types / sizeof jump_types[0]; k++)
    run_filtered(inhibit_names[k], CTRCTL_NTBREN | CTRCTL_INH(jump_types[k]), 0);
  run_filtered("TKBRINH without NTBREN: no branch at all", CTRCTL_TKBRINH, 0);
  uint64_t every = CTRCTL_NTBREN;
  for (unsigned k = 0; k < sizeof jump_types / sizeof jump_types[0]; k++) every |= CTRCTL_INH(jump_types[k]);
  run_filtered("every inhibit bit and NTBREN: only not-taken branches", every, 0);
  run_filtered("every inhibit bit: nothing", every & ~CTRCTL_NTBREN, 0);
  CHECKN("nothing recorded: WRPTR stays", 0, ctr_wrptr());
  ctr_reset(4);
  types_run(CTRCTL_S | CTRCTL_U | CTRCTL_NTBREN);
  EXPECT_NO_RECS("M not enabled: nothing recorded in M");
  run_filtered("EXCINH, INTRINH, TRETINH leave jumps alone",
               CTRCTL_NTBREN | CTRCTL_EXCINH | CTRCTL_INTRINH | CTRCTL_TRETINH, 0);
}

/* From WRPTR 250 the 33 records wrap at 256; logical entry 0 is always physical WRPTR - 1, so
   stepping WRPTR back walks the records youngest to oldest. */
static void physical_order(void) {
  const unsigned w0 = 250;
  run_filtered("recording wraps WRPTR at the depth", CTRCTL_NTBREN, w0);
  CHECKN("WRPTR after 33 records from 250", (w0 + N_ALL) % 256, ctr_wrptr());
  for (unsigned k = N_ALL; k >= 1; k--) {
    put_sctrstatus((w0 + k) % 256);
    EXPECT_ENTRY("logical 0 is physical WRPTR - 1", 0, all[k - 1]);
  }
}

int main(void) {
  set_m_handler(record_m);
  every_type();
  each_inhibit();
  physical_order();
  ctr_reset(4);
  return 0;
}
