/* The ETE resource logic through MMIO (docs/ete.md, "The resource logic"): the program sets the
 * unit up, runs ete_win (known code) with it enabled, and reads back what the resources did:
 * counter 0 counting the event under test gives the number of steps it was active. Checked: every
 * row of the seed's pair table (TRCRSCTLR PAIRINV, A.INV, B.INV) with both reserved encodings,
 * the resource groups (external input, PE comparator, counter and sequencer, single-shot, single
 * address, address range, context ID, VMID), counter reload, RLDSELF and CNTCHAIN, the sequencer's
 * forward, back and reset transitions (TRCSEQSTR), single-shot status (TRCSSCSR) with and without
 * RST, and events (TRCEVENTCTL0R/1R) for tests/bare/ete_resources.sh.
 */
#include "bare.h"
#include "check.h"
#include "trigger.h"

#define ETE(off) (0x11000000ul + (off))
#define TRCPRGCTLR ETE(0x004)
#define TRCCONFIGR ETE(0x010)
#define TRCEVENTCTL0R ETE(0x020)
#define TRCEVENTCTL1R ETE(0x024)
#define TRCSEQEVR(n) ETE(0x100 + 4 * (n))
#define TRCSEQRSTEVR ETE(0x118)
#define TRCSEQSTR ETE(0x11c)
#define TRCEXTINSELR(n) ETE(0x120 + 4 * (n))
#define TRCCNTRLDVR(n) ETE(0x140 + 4 * (n))
#define TRCCNTCTLR(n) ETE(0x150 + 4 * (n))
#define TRCCNTVR(n) ETE(0x160 + 4 * (n))
#define TRCRSCTLR(n) ETE(0x200 + 4 * (n))
#define TRCSSCCR(n) ETE(0x280 + 4 * (n))
#define TRCSSCSR(n) ETE(0x2a0 + 4 * (n))
#define TRCOSLAR ETE(0x300)
#define TRCACVR(n) ETE(0x400 + 8 * (n))
#define TRCCIDCVR(n) ETE(0x600 + 8 * (n))
#define TRCVMIDCVR(n) ETE(0x640 + 8 * (n))

/* TRCRSCTLR: SELECT[15:0], GROUP[19:16], INV (bit 20), PAIRINV (bit 21). */
#define RS(group, select) ((uint32_t)(group) << 16 | (select))
#define RS_INV (1u << 20)
#define RS_PAIRINV (1u << 21)
enum { G_EXTIN, G_PECOMP, G_CNTSEQ, G_SSC, G_SAC, G_ARC, G_CID, G_VMID };
#define PAIR(p) (0x80u | (p)) /* an event field selecting pair p */
#define CNT_RLDSELF (1u << 16)
#define CNT_CNTCHAIN (1u << 17)
#define PMU_LOADS 0x09 /* csr/pmu.h */

/* Known code. The unit's steps are the instructions after the enabling store up to the disabling
 * one, in four address classes: 16 in range A only (ete_w_a to ete_w_b), 32 in A and B (to
 * ete_w_a_end), 64 in B only (to ete_w_b_end), and NEITHER outside both: the li and three turns of
 * a loop whose load is at ete_w_x. The three ranges' counts are powers of two above NEITHER, so
 * every set of classes has a sum of its own. */
#define NEITHER 10
#define ALL (NEITHER + 16 + 32 + 64)
__asm__(".text\n.option push\n.option norvc\n"
        ".globl ete_win, ete_w_a, ete_w_b, ete_w_a_end, ete_w_b_end, ete_w_x\n"
        "ete_win:\n  li t0, 1\n  sw t0, 0(a0)\n"
        "ete_w_a:\n  .rept 16\n  nop\n  .endr\n"
        "ete_w_b:\n  .rept 32\n  nop\n  .endr\n"
        "ete_w_a_end:\n  .rept 64\n  nop\n  .endr\n"
        "ete_w_b_end:\n  li t1, 3\n"
        "1:\n  addi t1, t1, -1\n"
        "ete_w_x:\n  ld t2, 0(sp)\n  bnez t1, 1b\n"
        "  sw zero, 0(a0)\n  ret\n"
        ".option pop\n");
void ete_win(uint64_t prgctlr);
extern char ete_w_a[], ete_w_b[], ete_w_a_end[], ete_w_b_end[], ete_w_x[];

/* The unit back to its reset configuration (docs/ete.md: UNKNOWN reset values are 0). */
static void clear_unit(void) {
  mmio_write32(TRCPRGCTLR, 0);
  mmio_write32(TRCCONFIGR, 0);
  mmio_write32(TRCEVENTCTL0R, 0);
  mmio_write32(TRCEVENTCTL1R, 0);
  for (unsigned n = 2; n < 32; n++) mmio_write32(TRCRSCTLR(n), 0);
  for (unsigned n = 0; n < 4; n++) {
    mmio_write32(TRCCNTCTLR(n), 0);
    mmio_write32(TRCCNTVR(n), 0);
    mmio_write32(TRCCNTRLDVR(n), 0);
    mmio_write32(TRCEXTINSELR(n), 0);
  }
  for (unsigned n = 0; n < 3; n++) mmio_write32(TRCSEQEVR(n), 0);
  mmio_write32(TRCSEQRSTEVR, 0);
  mmio_write32(TRCSEQSTR, 0);
  for (unsigned n = 0; n < 8; n++) {
    mmio_write32(TRCSSCCR(n), 0);
    mmio_write32(TRCSSCSR(n), 0);
  }
  /* Ranges A (comparators 0-1) and B (2-3), the single address ete_w_x (4). */
  mmio_write64(TRCACVR(0), (uint64_t)ete_w_a);
  mmio_write64(TRCACVR(1), (uint64_t)ete_w_a_end);
  mmio_write64(TRCACVR(2), (uint64_t)ete_w_b);
  mmio_write64(TRCACVR(3), (uint64_t)ete_w_b_end);
  mmio_write64(TRCACVR(4), (uint64_t)ete_w_x);
}

/* The steps of ete_win at which the event field `field` is active: counter 0 counts it down. */
static uint32_t count(uint32_t field) {
  mmio_write32(TRCCNTVR(0), 1000);
  mmio_write32(TRCCNTCTLR(0), field);
  ete_win(TRCPRGCTLR);
  mmio_write32(TRCCNTCTLR(0), 0);
  return 1000 - mmio_read32(TRCCNTVR(0));
}

/* The seed's pair table: (A.PAIRINV, A.INV, B.INV) -> the pair's value from A and B; the two
 * reserved rows (0b001, 0b110) as brisk defines them (docs/ete.md). */
static int pair_table(unsigned row, int a, int b) {
  switch (row) {
    case 0: return a && b;
    case 1: return a && !b; /* reserved */
    case 2: return !a && b;
    case 3: return !a && !b;
    case 4: return !a || !b;
    case 5: return !a || b;
    case 6: return a || !b; /* reserved */
    default: return a || b;
  }
}

static void pairs(void) {
  /* Pair 2: selector 4 is range A, selector 5 range B. */
  for (unsigned row = 0; row < 8; row++) {
    clear_unit();
    mmio_write32(TRCRSCTLR(4), RS(G_ARC, 1) | (row & 4 ? RS_PAIRINV : 0) | (row & 2 ? RS_INV : 0));
    mmio_write32(TRCRSCTLR(5), RS(G_ARC, 2) | (row & 1 ? RS_INV : 0));
    uint32_t want = (pair_table(row, 0, 0) ? NEITHER : 0) + (pair_table(row, 1, 0) ? 16 : 0) +
                    (pair_table(row, 1, 1) ? 32 : 0) + (pair_table(row, 0, 1) ? 64 : 0);
    CHECK(want, count(PAIR(2)));
  }
  /* Pair 0 is selector 0 AND selector 1: FALSE; selector 1 alone TRUE, selector 0 FALSE. */
  clear_unit();
  CHECK(0, count(PAIR(0)));
  CHECK(ALL, count(1));
  CHECK(0, count(0));
}

static void groups(void) {
  clear_unit();
  /* Single address: ete_w_x's three loads; range A; range B inverted. */
  mmio_write32(TRCRSCTLR(2), RS(G_SAC, 1u << 4));
  mmio_write32(TRCRSCTLR(3), RS(G_ARC, 1));
  mmio_write32(TRCRSCTLR(6), RS(G_ARC, 2) | RS_INV);
  CHECK(3, count(2));
  CHECK(48, count(3));
  CHECK(ALL - 96, count(6));
  /* External input 1: PMU event "loads", the three at ete_w_x. */
  mmio_write32(TRCEXTINSELR(1), PMU_LOADS);
  mmio_write32(TRCRSCTLR(7), RS(G_EXTIN, 2));
  CHECK(3, count(7));
  /* Context ID and VMID comparator 0: satp.ASID and hgatp.VMID are 0 here. */
  mmio_write32(TRCRSCTLR(8), RS(G_CID, 1));
  mmio_write32(TRCRSCTLR(9), RS(G_VMID, 1));
  CHECK(ALL, count(8));
  CHECK(ALL, count(9));
  mmio_write64(TRCCIDCVR(0), 5);
  mmio_write64(TRCVMIDCVR(0), 7);
  CHECK(0, count(8));
  CHECK(0, count(9));
  /* Counter and sequencer: counter 1 at zero (never counting), sequencer state 0; state 1 never. */
  mmio_write32(TRCRSCTLR(10), RS(G_CNTSEQ, 2));
  mmio_write32(TRCRSCTLR(11), RS(G_CNTSEQ, 1u << 4));
  mmio_write32(TRCRSCTLR(12), RS(G_CNTSEQ, 1u << 5));
  CHECK(ALL, count(10));
  CHECK(ALL, count(11));
  CHECK(0, count(12));
  mmio_write32(TRCCNTVR(1), 1);
  CHECK(0, count(10));
  /* Single-shot control 0 on ete_w_x: active in the step it fires, once without RST. */
  mmio_write32(TRCSSCCR(0), 1u << 4);
  mmio_write32(TRCRSCTLR(13), RS(G_SSC, 1));
  CHECK(1, count(13));
  CHECK(0, count(13)); /* STATUS is set: it does not fire again */
  /* A reserved group (0b1000) has no resources (SELECT reads 0) and selects nothing; inverted,
   * everything. */
  mmio_write32(TRCRSCTLR(14), RS(8, 0xffff) | RS_INV);
  CHECK(RS(8, 0) | RS_INV, mmio_read32(TRCRSCTLR(14)));
  CHECK(ALL, count(14));
  mmio_write64(TRCCIDCVR(0), 0);
  mmio_write64(TRCVMIDCVR(0), 0);
}

static void counters(void) {
  /* Reload: counter 0 counts every step and reloads at ete_w_x's loads; the last one's bnez, the
   * last step, counts once more. */
  clear_unit();
  mmio_write32(TRCCNTRLDVR(0), 500);
  mmio_write32(TRCRSCTLR(2), RS(G_SAC, 1u << 4));
  mmio_write32(TRCCNTVR(0), 1000);
  mmio_write32(TRCCNTCTLR(0), 1 | 2u << 8); /* count TRUE, reload at selector 2 */
  ete_win(TRCPRGCTLR);
  CHECK(499, mmio_read32(TRCCNTVR(0)));
  /* RLDSELF: counter 0 counts every step from 5; the count at zero reloads it with 9, so it
   * cycles through 10 values. Counter 1 chained to it counts its reloads, and counter 2 counts
   * range A without RLDSELF, stopping at zero. */
  clear_unit();
  mmio_write32(TRCCNTRLDVR(0), 9);
  mmio_write32(TRCCNTVR(0), 5);
  mmio_write32(TRCCNTCTLR(0), 1 | CNT_RLDSELF);
  mmio_write32(TRCCNTVR(1), 100);
  mmio_write32(TRCCNTCTLR(1), CNT_CNTCHAIN); /* counts nothing of its own */
  mmio_write32(TRCRSCTLR(2), RS(G_ARC, 1));
  mmio_write32(TRCCNTVR(2), 40);
  mmio_write32(TRCCNTCTLR(2), 2);
  ete_win(TRCPRGCTLR);
  /* ALL steps: 5 to reach 0, the sixth reloads, then a reload every 10 steps. */
  const uint32_t after = ALL - 6, reloads = 1 + after / 10;
  CHECK(9 - after % 10, mmio_read32(TRCCNTVR(0)));
  CHECK(100 - reloads, mmio_read32(TRCCNTVR(1)));
  CHECK(0, mmio_read32(TRCCNTVR(2)));
  /* Without CNTCHAIN, counter 1 stays. */
  mmio_write32(TRCCNTVR(0), 5);
  mmio_write32(TRCCNTVR(1), 100);
  mmio_write32(TRCCNTCTLR(1), 0);
  ete_win(TRCPRGCTLR);
  CHECK(100, mmio_read32(TRCCNTVR(1)));
}

static void sequencer(void) {
  /* 0 -> 1 at range A's first step, 1 -> 2 in range B, 2 -> 1 (back) outside A and B: the
   * states by step are 0 (before A), 1 (A only), 2 (A and B, B only), then 1 back at the li. */
  clear_unit();
  mmio_write32(TRCRSCTLR(2), RS(G_ARC, 1));
  mmio_write32(TRCRSCTLR(3), RS(G_ARC, 2));
  mmio_write32(TRCRSCTLR(4), RS(G_ARC, 3) | RS_INV);
  mmio_write32(TRCRSCTLR(5), RS(G_CNTSEQ, 1u << 5)); /* in state 1 */
  mmio_write32(TRCRSCTLR(6), RS(G_CNTSEQ, 1u << 6)); /* in state 2 */
  mmio_write32(TRCSEQEVR(0), 2);                     /* F: 0 -> 1 */
  mmio_write32(TRCSEQEVR(1), 3 | 4u << 8);           /* F: 1 -> 2; B: 2 -> 1 */
  ete_win(TRCPRGCTLR);
  CHECK(1, mmio_read32(TRCSEQSTR));
  /* Each step sees the state before it: in state 1 are A's last 15 steps, A and B's first, and
   * the loop's 9 after the back move; in state 2 the rest of A and B, B only, and the li. */
  mmio_write32(TRCSEQSTR, 0);
  CHECK(15 + 1 + 9, count(5));
  CHECK(1, mmio_read32(TRCSEQSTR));
  mmio_write32(TRCSEQSTR, 0);
  CHECK(31 + 64 + 1, count(6));
  /* Reset at ete_w_x's loads: state 0 from the first load on, where the F of state 0 (range A)
   * cannot move it. */
  mmio_write32(TRCRSCTLR(7), RS(G_SAC, 1u << 4));
  mmio_write32(TRCSEQRSTEVR, 7);
  mmio_write32(TRCSEQSTR, 0);
  ete_win(TRCPRGCTLR);
  CHECK(0, mmio_read32(TRCSEQSTR));
  /* Forward and back at once: in state 1, range A is both 1 -> 2's F and 1 -> 0's B, and the
   * sequencer stays (forward first would end in 2, back first in 0: nothing moves them on). */
  clear_unit();
  mmio_write32(TRCRSCTLR(2), RS(G_ARC, 1));
  mmio_write32(TRCSEQEVR(0), 2u << 8);
  mmio_write32(TRCSEQEVR(1), 2);
  mmio_write32(TRCSEQSTR, 1);
  ete_win(TRCPRGCTLR);
  CHECK(1, mmio_read32(TRCSEQSTR));
}

static void single_shot(void) {
  clear_unit();
  /* Control 0 on the single address ete_w_x, control 1 on range B with RST. */
  mmio_write32(TRCSSCCR(0), 1u << 4);
  mmio_write32(TRCSSCCR(1), (1u << 24) | (2u << 16));
  mmio_write32(TRCRSCTLR(2), RS(G_SSC, 1));
  mmio_write32(TRCRSCTLR(3), RS(G_SSC, 2));
  CHECK(0, mmio_read32(TRCSSCSR(0)) >> 31);
  CHECK(1, count(2));
  CHECK(1, mmio_read32(TRCSSCSR(0)) >> 31);
  mmio_write32(TRCSSCSR(0), 0); /* software clears STATUS: it fires again */
  CHECK(1, count(2));
  CHECK(96, count(3)); /* with RST, at every match */
  CHECK(1, mmio_read32(TRCSSCSR(1)) >> 31);
}

/* PE comparator input 0 is Sdtrig trigger 0, here on executing ete_w_x: its breakpoint keeps the
 * load from retiring (record_m skips it), so the input is active for the next instruction that
 * retires, the handler's first (runtime/ete_trace.cpp), three times. Input 1 has no trigger. */
static void pe_comparators(void) {
  clear_unit();
  mmio_write32(TRCRSCTLR(2), RS(G_PECOMP, 1));
  mmio_write32(TRCRSCTLR(3), RS(G_PECOMP, 2));
  set_m_handler(record_m);
  trig_set(0, MC6 | MC6_M | MC6_EXECUTE, (uint64_t)ete_w_x);
  csr_set(mstatus, MSTATUS_MIE); /* M-mode triggers need it (csr/trigger.cpp); mie is 0 */
  CHECK(3, count(2));
  CHECK(3, m_rec.count);
  CHECK(CAUSE_BREAKPOINT, m_rec.cause);
  CHECK((uint64_t)ete_w_x, m_rec.epc);
  CHECK(0, count(3));
  csr_clear(mstatus, MSTATUS_MIE);
  trig_clear_all();
  clear_recs();
}

/* The resources in the stream (tests/bare/ete_resources.sh counts the Event packets): event 0 is
 * pair 2, A AND B (32 steps); event 1 pair 3 in the reserved row 0b001, A AND NOT(B) (16); event
 * 2 the single address ete_w_x (3). The only window with events enabled. */
static void events(void) {
  clear_unit();
  mmio_write32(TRCRSCTLR(4), RS(G_ARC, 1));
  mmio_write32(TRCRSCTLR(5), RS(G_ARC, 2));
  mmio_write32(TRCRSCTLR(6), RS(G_ARC, 1));
  mmio_write32(TRCRSCTLR(7), RS(G_ARC, 2) | RS_INV);
  mmio_write32(TRCRSCTLR(8), RS(G_SAC, 1u << 4));
  mmio_write32(TRCEVENTCTL0R, PAIR(2) | PAIR(3) << 8 | 8u << 16);
  mmio_write32(TRCEVENTCTL1R, 0x7);
  CHECK(0x7, mmio_read32(TRCEVENTCTL1R));
  ete_win(TRCPRGCTLR);
}

int main(void) {
  mmio_write32(TRCOSLAR, 0);
  pairs();
  groups();
  counters();
  sequencer();
  single_shot();
  pe_comparators();
  events();
  clear_unit();
  return 0;
}
