/* Smctr/Ssctr as the ctr_* programs see it (smctr.adoc): the CSRs by number (binutils 2.40 names
 * none of them), their fields and the transfer types, the entry window (siselect 0x200 + n:
 * sireg = ctrsource, sireg2 = ctrtarget, sireg3 = ctrdata), SCTRCLR, software's decoding of CC,
 * checks that name what they check, and ctr_run, a harness for privilege-mode scenarios whose trap
 * handlers make no control transfer but their xRET.
 *
 * Checks here print from M (putstr), so the programs read the buffer and check it in M. */
#ifndef BARE_CTR_H
#define BARE_CTR_H

#include "csr_access.h"

#define CSR_SCTRCTL 0x14e
#define CSR_SCTRSTATUS 0x14f
#define CSR_SCTRDEPTH 0x15f
#define CSR_VSCTRCTL 0x24e
#define CSR_MCTRCTL 0x34e
#define CTR_STR_(x) #x
#define CTR_STR(x) CTR_STR_(x)

CSR_ACCESSORS(mctrctl, 0x34e)
CSR_ACCESSORS(sctrctl, 0x14e)
CSR_ACCESSORS(vsctrctl, 0x24e)
CSR_ACCESSORS(sctrdepth, 0x15f)
CSR_ACCESSORS(sctrstatus, 0x14f)

/* mctrctl / sctrctl */
#define CTRCTL_U (1ul << 0)
#define CTRCTL_S (1ul << 1)
#define CTRCTL_M (1ul << 2)
#define CTRCTL_RASEMU (1ul << 7)
#define CTRCTL_STE (1ul << 8)
#define CTRCTL_MTE (1ul << 9)
#define CTRCTL_BPFRZ (1ul << 11)
#define CTRCTL_LCOFIFRZ (1ul << 12)
/* The transfer type filter: bit 32 + TYPE inhibits TYPE, except NTBREN, which enables type 4. */
#define CTRCTL_INH(type) (1ul << (32 + (type)))
#define CTRCTL_EXCINH CTRCTL_INH(CTR_EXCEPTION)
#define CTRCTL_INTRINH CTRCTL_INH(CTR_INTERRUPT)
#define CTRCTL_TRETINH CTRCTL_INH(CTR_TRAP_RETURN)
#define CTRCTL_NTBREN CTRCTL_INH(CTR_NOT_TAKEN)
#define CTRCTL_TKBRINH CTRCTL_INH(CTR_TAKEN)
#define CTRCTL_CUSTOM (0xful << 60)

/* ctrdata.TYPE (smctr.adoc, "Control Transfer Type Definitions") */
#define CTR_EXCEPTION 1
#define CTR_INTERRUPT 2
#define CTR_TRAP_RETURN 3
#define CTR_NOT_TAKEN 4
#define CTR_TAKEN 5
#define CTR_IND_CALL 8
#define CTR_DIR_CALL 9
#define CTR_IND_JUMP 10
#define CTR_DIR_JUMP 11
#define CTR_CO_SWAP 12
#define CTR_RETURN 13
#define CTR_OTHER_IND 14
#define CTR_OTHER_DIR 15

/* sctrdepth, sctrstatus, the entry registers */
#define SCTRDEPTH_DEPTH 7ul
#define SCTRSTATUS_WRPTR 0xfful
#define SCTRSTATUS_FROZEN (1ul << 31)
#define CTRSOURCE_V 1ul
#define CTRTARGET_MISP 1ul
#define CTRDATA_TYPE 0xful
#define CTRDATA_CCV (1ul << 15)
#define CTRDATA_CC(d) (((d) >> 16) & 0xffff)
#define CTR_SELECT(n) (0x200ul + (n))
#define SCTRCLR_WORD 0x10400073
#define CTR_DEPTH(code) (16u << (code))

#define STATEEN_CTR (1ul << 54) /* mstateen0.CTR */

/* SCTRCLR here; at_sctrclr runs it and returns its address, for ILLEGAL/ALLOWED (csr_access.h). */
static inline void sctrclr(void) { __asm__ volatile(".word " CTR_STR(SCTRCLR_WORD) ::: "memory"); }
__attribute__((unused)) static uint64_t at_sctrclr(uint64_t u) {
  (void)u;
  return AT(".word " CTR_STR(SCTRCLR_WORD));
}

/* Logical entry n as ctrsource, ctrtarget and ctrdata (in M, or below M with the window open). */
struct ctr_entry {
  uint64_t source, target, data;
};
static inline struct ctr_entry ctr_entry(unsigned n) {
  struct ctr_entry e;
  put_siselect(CTR_SELECT(n));
  e.source = get_sireg(0);
  e.target = get_sireg2(0);
  e.data = get_sireg3(0);
  return e;
}
static inline unsigned ctr_wrptr(void) { return get_sctrstatus(0) & SCTRSTATUS_WRPTR; }

/* Recording off, depth 16 << code, WRPTR 0, not frozen, every entry zero. */
static inline void ctr_reset(unsigned code) {
  put_mctrctl(0);
  put_sctrdepth(code);
  put_sctrstatus(0);
  sctrclr();
}

/* Software's formula for the elapsed cycles a CC stands for (smctr.adoc, "Cycle Counting"). */
static inline uint64_t cc_decode(uint64_t cc) {
  uint64_t cce = cc >> 12, ccm = cc & 0xfff;
  return cce == 0 ? ccm : ((1ul << 12) + ccm) << (cce - 1);
}

/* CHECK that names what it checks (M only). */
static inline void check_named(const char *what, uint64_t line, uint64_t expected, uint64_t got) {
  if (expected == got) return;
  putstr("FAIL " TEST_NAME ": ");
  putstr(what);
  putstr("\n");
  bare_fail(line, expected, got);
}
#define CHECKN(what, expected, got) check_named(what, __LINE__, (uint64_t)(expected), (uint64_t)(got))

/* A record: source 0 stands for a ctrsource.PC of 0 (still valid), likewise target. MISP is not
   checked: whether a branch was mispredicted is the predictor's business. */
struct ctr_rec {
  uint64_t source, target, type;
};
#define REC(s, t, ty) {(uint64_t)(s), (uint64_t)(t), (ty)}

static inline void expect_entry_at(const char *what, unsigned n, struct ctr_rec r, uint64_t line) {
  struct ctr_entry e = ctr_entry(n);
  check_named(what, line, r.source | CTRSOURCE_V, e.source);
  check_named(what, line, r.target, e.target & ~CTRTARGET_MISP);
  check_named(what, line, r.type, e.data & CTRDATA_TYPE);
  check_named(what, line, 0, e.data & ~(CTRDATA_CC(~0ul) << 16 | CTRDATA_CCV | CTRDATA_TYPE)); /* WPRI */
}
#define EXPECT_ENTRY(what, n, r) expect_entry_at(what, n, r, __LINE__)

/* Since a ctr_reset with WRPTR w0, exactly recs[0..n) were recorded, oldest first: WRPTR moved n
   on, logical entry i is recs[n-1-i], and (when the depth leaves room) logical entry n is still
   the zero SCTRCLR left. */
static inline void expect_buffer_at(const char *what, const struct ctr_rec *recs, unsigned n, unsigned w0,
                                    uint64_t line) {
  unsigned depth = CTR_DEPTH(get_sctrdepth(0) & SCTRDEPTH_DEPTH);
  check_named(what, line, (w0 + n) % depth, ctr_wrptr());
  for (unsigned i = 0; i < n && i < depth; i++) expect_entry_at(what, i, recs[n - 1 - i], line);
  if (n < depth) check_named(what, line, 0, ctr_entry(n).source);
}
#define EXPECT_BUFFER(what, recs, n) expect_buffer_at(what, recs, n, 0, __LINE__)
#define EXPECT_RECS(what, ...)                                                                 \
  do {                                                                                         \
    static const struct ctr_rec recs_[] = {__VA_ARGS__};                                       \
    expect_buffer_at(what, recs_, sizeof recs_ / sizeof recs_[0], 0, __LINE__);                \
  } while (0)
#define EXPECT_NO_RECS(what) expect_buffer_at(what, 0, 0, 0, __LINE__)

/* ctr_run(priv, fn, ctl): writes ctl to mctrctl (restarting the cycle counter), then enters fn in
 * priv (PRIV_S or PRIV_U) by the mret at ctr_run_mret. fn is code written for it, which uses only
 * t0-t6 and a0-a7 and ends with an ecall to M with a7 = CTR_EXIT (so ecalls from U must not be
 * delegated); ctr_run returns after that ecall, with recording off and the mctrctl it found in
 * ctr_exit_ctl. Until then traps go to ctr_mvec and ctr_svec (direct mode), which log cause, epc and
 * sctrstatus (ctr_svec reads it from S: mstateen0.CTR must be set when a trap goes to S), clear
 * mip.SSIP and LCOFIP, step over the trapping instruction (4 bytes) when it is an exception and
 * return by the xRET at ctr_mret / ctr_sret. Their only other transfers are branches: a scenario
 * that enables the handler's mode sets TKBRINH and leaves NTBREN clear. */
#define CTR_EXIT 0x43545258 /* "CTRX" */
struct ctr_trap {
  uint64_t cause, epc, sctrstatus;
};
#define CTR_TRAP_LOG 8 /* trap k of a run is logged in [k % 8] */
volatile struct ctr_trap ctr_mtraps[CTR_TRAP_LOG], ctr_straps[CTR_TRAP_LOG];
volatile uint64_t ctr_mtrap_n, ctr_strap_n, ctr_exit_ctl;
void ctr_run(unsigned priv, void (*fn)(void), uint64_t ctl);
extern char ctr_run_mret[], ctr_mvec[], ctr_mret[], ctr_svec[], ctr_sret[];

static inline void ctr_clear_traps(void) {
  ctr_mtrap_n = ctr_strap_n = 0;
  for (int i = 0; i < CTR_TRAP_LOG; i++) {
    ctr_mtraps[i].cause = ctr_mtraps[i].epc = ctr_mtraps[i].sctrstatus = 0;
    ctr_straps[i].cause = ctr_straps[i].epc = ctr_straps[i].sctrstatus = 0;
  }
}

/* Logs the trap into log[n & 7] and counts it in n; uses t1-t3, t0 holds the trap stack. */
#define CTR_LOG_TRAP(x, log, n)  \
  "  la t1, " #n "\n"            \
  "  ld t2, 0(t1)\n"             \
  "  addi t3, t2, 1\n"           \
  "  sd t3, 0(t1)\n"             \
  "  andi t2, t2, 7\n"           \
  "  slli t3, t2, 4\n"           \
  "  slli t2, t2, 3\n"           \
  "  add t2, t2, t3\n"           \
  "  la t1, " #log "\n"          \
  "  add t1, t1, t2\n"           \
  "  csrr t2, " #x "cause\n"     \
  "  sd t2, 0(t1)\n"             \
  "  csrr t2, " #x "epc\n"       \
  "  sd t2, 8(t1)\n"             \
  "  csrr t2, 0x14f\n"           \
  "  sd t2, 16(t1)\n"

/* Saves t1-t3 below the trap stack top, which the swap with xscratch put in t0 (crt0.S). */
#define CTR_HANDLER_ENTRY(x)        \
  "  csrrw t0, " #x "scratch, t0\n" \
  "  sd t1, -8(t0)\n"               \
  "  sd t2, -16(t0)\n"              \
  "  sd t3, -24(t0)\n"
#define CTR_HANDLER_EXIT(x) \
  "  ld t3, -24(t0)\n"      \
  "  ld t2, -16(t0)\n"      \
  "  ld t1, -8(t0)\n"       \
  "  csrrw t0, " #x "scratch, t0\n"

__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl ctr_run\n"
    "ctr_run:\n"
    "  la t0, ctr_run_ctx\n"
    "  sd ra, 0(t0)\n"
    "  sd sp, 8(t0)\n"
    "  .irp n, 0,1,2,3,4,5,6,7,8,9,10,11\n"
    "  sd s\\n, (16 + 8*\\n)(t0)\n"
    "  .endr\n"
    "  la t1, ctr_mvec\n"
    "  csrw mtvec, t1\n"
    "  la t1, ctr_svec\n"
    "  csrw stvec, t1\n"
    "  li t1, 3 << 11\n"
    "  csrc mstatus, t1\n"
    "  slli t1, a0, 11\n"
    "  csrs mstatus, t1\n"
    "  csrw mepc, a1\n"
    "  csrw 0x34e, a2\n"
    "  .globl ctr_run_mret\n"
    "ctr_run_mret:\n"
    "  mret\n"

    "  .balign 4\n"
    "  .globl ctr_mvec\n"
    "ctr_mvec:\n" CTR_HANDLER_ENTRY(m) CTR_LOG_TRAP(m, ctr_mtraps, ctr_mtrap_n)
    "  li t2, 0x2002\n" /* SSIP | LCOFIP */
    "  csrc mip, t2\n"
    "  csrr t2, mcause\n"
    "  bltz t2, 1f\n"
    "  li t3, 0x43545258\n"
    "  beq a7, t3, ctr_mexit\n"
    "  csrr t2, mepc\n"
    "  addi t2, t2, 4\n"
    "  csrw mepc, t2\n"
    "1:\n" CTR_HANDLER_EXIT(m)
    "  .globl ctr_mret\n"
    "ctr_mret:\n"
    "  mret\n"
    "ctr_mexit:\n"
    "  csrrw t1, 0x34e, zero\n"
    "  la t2, ctr_exit_ctl\n"
    "  sd t1, 0(t2)\n" CTR_HANDLER_EXIT(m)
    "  la t0, m_direct\n"
    "  csrw mtvec, t0\n"
    "  la t0, s_direct\n"
    "  csrw stvec, t0\n"
    "  la t0, ctr_run_ctx\n"
    "  ld ra, 0(t0)\n"
    "  ld sp, 8(t0)\n"
    "  .irp n, 0,1,2,3,4,5,6,7,8,9,10,11\n"
    "  ld s\\n, (16 + 8*\\n)(t0)\n"
    "  .endr\n"
    "  ret\n"

    "  .balign 4\n"
    "  .globl ctr_svec\n"
    "ctr_svec:\n" CTR_HANDLER_ENTRY(s) CTR_LOG_TRAP(s, ctr_straps, ctr_strap_n)
    "  li t2, 0x2002\n"
    "  csrc sip, t2\n"
    "  csrr t2, scause\n"
    "  bltz t2, 1f\n"
    "  csrr t2, sepc\n"
    "  addi t2, t2, 4\n"
    "  csrw sepc, t2\n"
    "1:\n" CTR_HANDLER_EXIT(s)
    "  .globl ctr_sret\n"
    "ctr_sret:\n"
    "  sret\n"
    "  .option pop\n"
    "  .bss\n"
    "  .balign 8\n"
    "ctr_run_ctx: .skip 8 * 14\n"
    "  .text\n");

#endif
