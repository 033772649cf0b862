/* Exact event counts (csr/pmu.h, enum Event) of a known instruction sequence, run in M, S and U:
 * each event alone on mhpmcounter3, all of them at once on mhpmcounter3..17, mcycle and minstret;
 * exceptions (three ecalls, delegated or not); page walks and TLB misses under Sv39.
 *
 * In M a window is opened and closed by mcountinhibit writes. One of the two retires while the
 * counter runs (which one is the spec's "takes effect after the writing instruction" question),
 * so the instruction and cycle counts are the sequence plus one. Below M the counter runs all the
 * time, filtered to that mode, and the sequence reads it before and after: the first read retires
 * after reading, the second reads before retiring, which again adds one. */
#include "check.h"
#include "pmu.h"

/* The sequence: 72 instructions, none of them a CSR access. */
#define SEQ_INSTRUCTIONS 72
static const uint64_t seq_events[] = {
    [EV_CYCLES] = SEQ_INSTRUCTIONS + 1, /* one per retired instruction */
    [EV_INSTRUCTIONS] = SEQ_INSTRUCTIONS + 1,
    [EV_BRANCHES] = 15,       /* 10 loop branches and 5 that never branch */
    [EV_TAKEN_BRANCHES] = 9,  /* the loop's, but its last */
    [EV_JUMPS] = 8,           /* 2 jal and 1 jalr calls, 3 returns, j, jr */
    [EV_CALLS] = 3,           /* jal ra, jal ra, jalr ra */
    [EV_RETURNS] = 3,         /* the leaf's ret; jr t3 is no return */
    [EV_LOADS] = 6,           /* ld, ld, lw, amoadd.d, lr.d, fld */
    [EV_STORES] = 5,          /* sd, sw, amoadd.d, sc.d, fsd */
    [EV_ATOMICS] = 3,         /* amoadd.d, lr.d, sc.d */
    [EV_FP_OPS] = 4,          /* fadd.d, fmul.d, fcvt.d.l, feq.d; not fld, fsd, fmv.d */
    [EV_EXCEPTIONS] = 0,
    [EV_INTERRUPTS] = 0,
    [EV_PAGE_WALKS] = 0,      /* M is never translated, and S and U run with satp = Bare */
};

/* mixed_m(bits, buf): the sequence in M between csrc and csrs of mcountinhibit `bits`.
 * mixed_lower(buf): the sequence between two reads of hpmcounter3; returns their difference.
 * ecalls_m(bits) / ecalls_lower(): three ecalls (a7 = 0) likewise.
 * walk_lower(pages): a load from each of 8 consecutive pages between two reads of hpmcounter3.
 * walk_out_of_line_lower(pages): 4 amoadd.d on pages[0] and 4 misaligned loads from pages[1] likewise.
 * buf is 8 doublewords; the sequence clobbers t0-t5, a1-a3 and ft0-ft3. */
uint64_t mixed_m(uint64_t bits, uint64_t *buf);
uint64_t mixed_lower(uint64_t buf);
void ecalls_m(uint64_t bits);
uint64_t ecalls_lower(uint64_t unused);
uint64_t walk_lower(uint64_t pages);
uint64_t walk_out_of_line_lower(uint64_t pages);
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .macro MIXED_OPS\n"
    "  .rept 20\n"
    "  addi t0, t0, 1\n"
    "  .endr\n"
    "  li t1, 10\n"
    "1: addi t1, t1, -1\n"
    "  bnez t1, 1b\n"
    "  .rept 5\n"
    "  bne zero, zero, 2f\n"
    "  .endr\n"
    "2: jal ra, pmu_leaf\n"
    "  jal ra, pmu_leaf\n"
    "  jalr ra, 0(t2)\n"
    "  j 3f\n"
    "3: lla t3, 4f\n"
    "  jr t3\n"
    "4: ld t4, 0(a1)\n"
    "  ld t4, 8(a1)\n"
    "  lw t4, 16(a1)\n"
    "  sd t4, 24(a1)\n"
    "  sw t4, 32(a1)\n"
    "  addi t3, a1, 40\n"
    "  amoadd.d t4, t0, (t3)\n"
    "  lr.d t4, (t3)\n"
    "  sc.d t4, t0, (t3)\n"
    "  fld ft0, 48(a1)\n"
    "  fadd.d ft1, ft0, ft0\n"
    "  fmul.d ft1, ft1, ft0\n"
    "  fcvt.d.l ft2, t0\n"
    "  feq.d t4, ft1, ft2\n"
    "  fmv.d ft3, ft1\n"
    "  fsd ft3, 56(a1)\n"
    "  .endm\n"
    "pmu_leaf:\n"
    "  ret\n"
    "  .globl mixed_m\n"
    "mixed_m:\n"
    "  mv t5, ra\n"
    "  lla t2, pmu_leaf\n"
    "  csrc mcountinhibit, a0\n"
    "  MIXED_OPS\n"
    "  csrs mcountinhibit, a0\n"
    "  mv ra, t5\n"
    "  ret\n"
    "  .globl mixed_lower\n"
    "mixed_lower:\n"
    "  mv t5, ra\n"
    "  mv a1, a0\n"
    "  lla t2, pmu_leaf\n"
    "  csrr a2, hpmcounter3\n"
    "  MIXED_OPS\n"
    "  csrr a3, hpmcounter3\n"
    "  sub a0, a3, a2\n"
    "  mv ra, t5\n"
    "  ret\n"
    "  .globl ecalls_m\n"
    "ecalls_m:\n"
    "  li a7, 0\n"
    "  csrc mcountinhibit, a0\n"
    "  ecall\n"
    "  ecall\n"
    "  ecall\n"
    "  csrs mcountinhibit, a0\n"
    "  ret\n"
    "  .globl ecalls_lower\n"
    "ecalls_lower:\n"
    "  li a7, 0\n"
    "  csrr a2, hpmcounter3\n"
    "  ecall\n"
    "  ecall\n"
    "  ecall\n"
    "  csrr a3, hpmcounter3\n"
    "  sub a0, a3, a2\n"
    "  ret\n"
    /* Alone in its aligned 256 bytes, so it never straddles a page: its code page is translated
       when it is entered, and the counted window has only the 8 data accesses to translate. */
    "  .p2align 8\n"
    "  .globl walk_lower\n"
    "walk_lower:\n"
    "  li t1, 4096\n"
    "  mv t0, a0\n"
    "  csrr a2, hpmcounter3\n"
    "  .rept 8\n"
    "  ld t3, 0(t0)\n"
    "  add t0, t0, t1\n"
    "  .endr\n"
    "  csrr a3, hpmcounter3\n"
    "  sub a0, a3, a2\n"
    "  ret\n"
    /* The same for 4 AMOs on one page and 4 misaligned loads from the next, which run out of line. */
    "  .p2align 8\n"
    "  .globl walk_out_of_line_lower\n"
    "walk_out_of_line_lower:\n"
    "  li t1, 1\n"
    "  li t2, 4097\n"
    "  add t2, t2, a0\n"
    "  csrr a2, hpmcounter3\n"
    "  .rept 4\n"
    "  amoadd.d zero, t1, (a0)\n"
    "  ld t3, 0(t2)\n"
    "  addi a0, a0, 8\n"
    "  addi t2, t2, 8\n"
    "  .endr\n"
    "  csrr a3, hpmcounter3\n"
    "  sub a0, a3, a2\n"
    "  ret\n"
    "  .option pop\n");

static uint64_t buf[8] __attribute__((aligned(64)));
static uint8_t pages[8][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

static const uint64_t only[] = {[PRIV_U] = ONLY_U, [PRIV_S] = ONLY_S, [PRIV_M] = ONLY_M};

/* On a mismatch the failure report shows the event in bits 63:56 and the mode in 55:48. */
#define CHECK_EVENT(priv, event, want, got)                                                  \
  CHECK((uint64_t)(event) << 56 | (uint64_t)(priv) << 48 | (want),                          \
        (uint64_t)(event) << 56 | (uint64_t)(priv) << 48 | (got))

/* mhpmcounter3 counts `config` from 0, stopped. */
static void program3(uint64_t config) {
  csr_set(mcountinhibit, CTR_HPM(3));
  csr_write(mhpmevent3, config);
  csr_write(mhpmcounter3, 0);
}

/* The sequence's count of `event` in `priv`, counted on mhpmcounter3 filtered to that mode. */
static uint64_t sequence_count(unsigned priv, uint64_t event) {
  program3(event | only[priv]);
  if (priv == PRIV_M) {
    mixed_m(CTR_HPM(3), buf);
    return csr_read(mhpmcounter3);
  }
  csr_clear(mcountinhibit, CTR_HPM(3));
  uint64_t n = run_in(priv, mixed_lower, (uint64_t)buf);
  CHECK(0, m_rec.count);
  return n;
}

static void each_event(unsigned priv) {
  for (uint64_t e = EV_CYCLES; e <= EV_PAGE_WALKS; e++) {
    uint64_t n = sequence_count(priv, e);
    if (e == EV_BRANCH_MISSES) /* the predictor's state is history: at most every branch */
      CHECK_EVENT(priv, e, 1, n <= seq_events[EV_BRANCHES]);
    else
      CHECK_EVENT(priv, e, seq_events[e], n);
  }
}

/* Events 1..15 on mhpmcounter3..17 at once, with mcycle and minstret, in one window in M. */
#define HPM_ALL(X) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17)
#define HPM_BIT(n) | CTR_HPM(n)
#define HPM_SET(n)                       \
  csr_write(mhpmevent##n, (n) - 2);      \
  csr_write(mhpmcounter##n, 0);
#define HPM_GET(n) got[(n) - 2] = csr_read(mhpmcounter##n);

static void all_at_once(void) {
  const uint64_t bits = CTR_CY | CTR_IR HPM_ALL(HPM_BIT);
  uint64_t got[EV_PAGE_WALKS + 1];
  csr_set(mcountinhibit, bits);
  HPM_ALL(HPM_SET)
  const uint64_t cycle0 = csr_read(mcycle), instret0 = csr_read(minstret);
  mixed_m(bits, buf);
  CHECK(SEQ_INSTRUCTIONS + 1, csr_read(mcycle) - cycle0);
  CHECK(SEQ_INSTRUCTIONS + 1, csr_read(minstret) - instret0);
  HPM_ALL(HPM_GET)
  for (unsigned e = EV_CYCLES; e <= EV_PAGE_WALKS; e++) {
    if (e == EV_BRANCH_MISSES)
      CHECK_EVENT(PRIV_M, e, 1, got[e] <= seq_events[EV_BRANCHES]);
    else
      CHECK_EVENT(PRIV_M, e, seq_events[e], got[e]);
  }
}

/* Three ecalls are three exceptions, counted in the mode they were taken from, delegated or not;
   the handler's own mode sees none of them. */
static void exceptions(void) {
  program3(EV_EXCEPTIONS | ONLY_M);
  ecalls_m(CTR_HPM(3));
  CHECK(3, csr_read(mhpmcounter3));
  CHECK(3, m_rec.count);
  clear_recs();

  const unsigned lower[] = {PRIV_S, PRIV_U};
  for (unsigned k = 0; k < 2; k++) {
    program3(EV_EXCEPTIONS | only[lower[k]]);
    csr_clear(mcountinhibit, CTR_HPM(3));
    CHECK_EVENT(lower[k], EV_EXCEPTIONS, 3, run_in(lower[k], ecalls_lower, 0));
    CHECK(3, m_rec.count);
    clear_recs();
  }

  csr_write(medeleg, 1ul << CAUSE_ECALL_U);
  program3(EV_EXCEPTIONS | ONLY_U);
  csr_clear(mcountinhibit, CTR_HPM(3));
  CHECK(3, run_in(PRIV_U, ecalls_lower, 0));
  CHECK(3, s_rec.count);
  CHECK(CAUSE_ECALL_U, s_rec.cause);
  clear_recs();
  program3(EV_EXCEPTIONS | ONLY_S);
  csr_clear(mcountinhibit, CTR_HPM(3));
  CHECK(0, run_in(PRIV_U, ecalls_lower, 0)); /* reads in U, but only S counts */
  CHECK(3, s_rec.count);
  clear_recs();
  csr_write(medeleg, 0);
}

/* Under Sv39, with the TLB just flushed, 8 loads from 8 pages that nothing else touches are 8 TLB
   misses and 8 page walks, exactly: the code's page was translated before the first read. */
static void page_walks(unsigned priv) {
  const uint64_t u = priv == PRIV_U ? PTE_U : 0;
  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A | u, PTE_R | PTE_W | PTE_AD | u);
  vm_on();
  const uint64_t events[] = {EV_PAGE_WALKS, EV_TLB_MISSES};
  for (unsigned k = 0; k < 2; k++) {
    for (unsigned round = 0; round < 2; round++) {
      program3(events[k] | only[priv]);
      csr_clear(mcountinhibit, CTR_HPM(3));
      sfence_vma();
      CHECK_EVENT(priv, events[k], 8, run_in(priv, walk_lower, (uint64_t)pages));
      CHECK(0, m_rec.count);
    }
    /* AMOs and misaligned accesses run in C++ (runtime/mmu.cpp), which looks in the TLB first: one
       walk and one miss a page. */
    program3(events[k] | only[priv]);
    csr_clear(mcountinhibit, CTR_HPM(3));
    sfence_vma();
    CHECK_EVENT(priv, events[k], 2, run_in(priv, walk_out_of_line_lower, (uint64_t)pages));
    CHECK(0, m_rec.count);
  }
  vm_off();
}

int main(void) {
  set_m_handler(record_m);
  set_s_handler(record_s);
  csr_set(mstatus, MSTATUS_FS_INITIAL);
  csr_write(mcounteren, CTR_HPM(3));
  csr_write(scounteren, CTR_HPM(3));
  each_event(PRIV_M);
  each_event(PRIV_S);
  each_event(PRIV_U);
  all_at_once();
  exceptions();
  page_walks(PRIV_S);
  page_walks(PRIV_U);
  return 0;
}
