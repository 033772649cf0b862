/* The hart feeds its ETE trace unit (docs/ete.md, "The hook"): the program programs the unit
 * through MMIO, runs known code with it enabled and stops it; tests/bare/ete_trace.sh runs it with
 * --trace DIR and checks the packets trc_pkt_lister lists. SCENARIO picks what ViewInst traces:
 *   RANGE      an include range over ete_pattern: its atoms, the ecall's exception packet, Trace On
 *              again after the handler, and the ret's target address;
 *   START_STOP start at ete_ss, stop at ete_ss_stop: the loop's atoms, nothing after the stop;
 *   EL         everything but EL3 (M-mode): only the U-mode function run_in calls, and the
 *              exception its closing ecall takes;
 *   PECOMP     start at PE comparator 0, Sdtrig trigger 0 on ete_bp: its breakpoint keeps it
 *              from retiring, so trace starts at the handler's first instruction, and single-shot
 *              control 0 on the same input fires;
 *   BB         ViewInst over ete_bb, run twice: without branch broadcasting, then with it
 *              everywhere (TRCBBCTLR MODE 0, RANGE 0): every taken direct branch's target follows
 *              its atom the second time;
 *   BB_RANGE   the same, broadcasting only in range 1, ete_bb's loop (TRCBBCTLR MODE 1).
 */
#include "bare.h"
#include "check.h"
#include "trigger.h"

#define ETE(off) (0x11000000ul + (off))
#define TRCPRGCTLR ETE(0x004)
#define TRCSTATR ETE(0x00c)
#define TRCCONFIGR ETE(0x010)
#define TRCSYNCPR ETE(0x034)
#define TRCBBCTLR ETE(0x03c)
#define TRCTRACEIDR ETE(0x040)
#define TRCVICTLR ETE(0x080)
#define TRCVIIECTLR ETE(0x084)
#define TRCVISSCTLR ETE(0x088)
#define TRCVIPCSSCTLR ETE(0x08c)
#define TRCSSCSR(n) ETE(0x2a0 + 4 * (n))
#define TRCSSPCICR(n) ETE(0x2c0 + 4 * (n))
#define TRCOSLAR ETE(0x300)
#define TRCACVR(n) ETE(0x400 + 8 * (n))
#define VICTLR_SSSTATUS (1u << 9)
#define VICTLR_EXCLUDE_EL3 (1u << 19) /* EXLEVEL_S bit 3 */
#define CONFIGR_BB (1u << 3)
#define BBCTLR_MODE (1u << 8)

/* Known code: a loop of three turns (E E N), an ecall, and a return. ete_ss is a loop of two turns
 * (E N), the stop address, and code after it with a branch that must not be traced. */
__asm__(".text\n.option push\n.option norvc\n"
        ".globl ete_pattern, ete_ecall, ete_after, ete_pattern_end\n"
        "ete_pattern:\n  li t0, 3\n1: addi t0, t0, -1\n  bnez t0, 1b\n"
        "ete_ecall:\n  ecall\n"
        "ete_after:\n  nop\n  ret\n"
        "ete_pattern_end:\n"
        ".globl ete_ss, ete_ss_stop\n"
        "ete_ss:\n  li t0, 2\n1: addi t0, t0, -1\n  bnez t0, 1b\n"
        "ete_ss_stop:\n  nop\n  li t0, 1\n  beqz zero, 2f\n2: ret\n"
        ".globl ete_bp\n"
        "ete_bp:\n  nop\n  ret\n"
        ".globl ete_user\n"
        "ete_user:\n  li t1, 2\n1: addi t1, t1, -1\n  bnez t1, 1b\n  ret\n"
        /* Two turns of a loop with a jal and a bnez (E E, E N), then outside it a taken beqz, a
         * bnez not taken and the ret. */
        ".globl ete_bb, ete_bb_loop, ete_bb_j, ete_bb_out, ete_bb_out2, ete_bb_end\n"
        "ete_bb:\n  li t0, 2\n"
        "ete_bb_loop:\n  addi t0, t0, -1\n  jal zero, ete_bb_j\n"
        "ete_bb_j:\n  bnez t0, ete_bb_loop\n"
        "ete_bb_out:\n  beqz zero, ete_bb_out2\n"
        "ete_bb_out2:\n  bnez zero, ete_bb_out\n  ret\n"
        "ete_bb_end:\n"
        ".option pop\n");
extern char ete_pattern[], ete_ecall[], ete_pattern_end[], ete_ss[], ete_ss_stop[];
void ete_pattern_fn(void) __asm__("ete_pattern");
void ete_ss_fn(void) __asm__("ete_ss");
uint64_t ete_user(uint64_t) __asm__("ete_user");
extern char ete_bp[];
void ete_bp_fn(void) __asm__("ete_bp");
extern char ete_bb[], ete_bb_loop[], ete_bb_out[], ete_bb_end[];
void ete_bb_fn(void) __asm__("ete_bb");

int main(void) {
  mmio_write32(TRCOSLAR, 0);
  mmio_write32(TRCPRGCTLR, 0);
  mmio_write32(TRCCONFIGR, 0);
  mmio_write32(TRCSYNCPR, 0); /* no periodic A-Sync */
  mmio_write32(TRCTRACEIDR, 0x10);
#if defined(SCENARIO_RANGE)
  mmio_write64(TRCACVR(0), (uint64_t)ete_pattern);
  mmio_write64(TRCACVR(1), (uint64_t)ete_pattern_end);
  mmio_write32(TRCVIIECTLR, 1); /* include range 0 */
  mmio_write32(TRCVICTLR, 0x01 | VICTLR_SSSTATUS);
  set_m_handler(record_m);
  mmio_write32(TRCPRGCTLR, 1);
  ete_pattern_fn();
  mmio_write32(TRCPRGCTLR, 0);
  CHECK(1, m_rec.count);
  CHECK(CAUSE_ECALL_M, m_rec.cause);
  CHECK((uint64_t)ete_ecall, m_rec.epc);
#elif defined(SCENARIO_START_STOP)
  mmio_write64(TRCACVR(0), (uint64_t)ete_ss);
  mmio_write64(TRCACVR(1), (uint64_t)ete_ss_stop);
  mmio_write32(TRCVISSCTLR, 1u | 2u << 16); /* start at comparator 0, stop at 1 */
  mmio_write32(TRCVICTLR, 0x01);            /* stopped until the start address */
  mmio_write32(TRCPRGCTLR, 1);
  ete_ss_fn();
  CHECK(0, mmio_read32(TRCVICTLR) & VICTLR_SSSTATUS); /* stopped again */
  mmio_write32(TRCPRGCTLR, 0);
#elif defined(SCENARIO_EL)
  mmio_write32(TRCVICTLR, 0x01 | VICTLR_SSSTATUS | VICTLR_EXCLUDE_EL3);
  mmio_write32(TRCPRGCTLR, 1);
  CHECK(0, run_in(PRIV_U, ete_user, 0));
  mmio_write32(TRCPRGCTLR, 0);
#elif defined(SCENARIO_PECOMP)
  mmio_write32(TRCSSPCICR(0), 1);   /* single-shot control 0: PE comparator 0 */
  mmio_write32(TRCVIPCSSCTLR, 1);   /* start at PE comparator 0 */
  mmio_write32(TRCVICTLR, 0x01);    /* stopped until then */
  CHECK(0x9, mmio_read32(TRCSSCSR(0))); /* INST, PC; not fired */
  set_m_handler(record_m);
  trig_set(0, MC6 | MC6_M | MC6_EXECUTE, (uint64_t)ete_bp);
  csr_set(mstatus, MSTATUS_MIE); /* M-mode triggers need it (csr/trigger.cpp); mie is 0 */
  mmio_write32(TRCPRGCTLR, 1);
  ete_bp_fn();
  mmio_write32(TRCPRGCTLR, 0);
  csr_clear(mstatus, MSTATUS_MIE);
  trig_clear_all();
  CHECK(1, m_rec.count);
  CHECK(CAUSE_BREAKPOINT, m_rec.cause);
  CHECK((uint64_t)ete_bp, m_rec.epc);
  CHECK(0x80000009u, mmio_read32(TRCSSCSR(0))); /* fired */
#elif defined(SCENARIO_BB) || defined(SCENARIO_BB_RANGE)
  mmio_write64(TRCACVR(0), (uint64_t)ete_bb);
  mmio_write64(TRCACVR(1), (uint64_t)ete_bb_end);
  mmio_write32(TRCVIIECTLR, 1); /* ViewInst: include range 0 */
  mmio_write32(TRCVICTLR, 0x01 | VICTLR_SSSTATUS);
#if defined(SCENARIO_BB)
  const uint32_t bbctlr = 0; /* exclude nothing: everywhere */
#else
  mmio_write64(TRCACVR(2), (uint64_t)ete_bb_loop);
  mmio_write64(TRCACVR(3), (uint64_t)ete_bb_out);
  const uint32_t bbctlr = BBCTLR_MODE | 2; /* include range 1 */
#endif
  mmio_write32(TRCBBCTLR, bbctlr);
  for (uint32_t configr = 0;; configr = CONFIGR_BB) {
    mmio_write32(TRCCONFIGR, configr);
    CHECK(configr, mmio_read32(TRCCONFIGR));
    mmio_write32(TRCPRGCTLR, 1);
    ete_bb_fn();
    mmio_write32(TRCPRGCTLR, 0);
    if (configr) break;
  }
  CHECK(bbctlr, mmio_read32(TRCBBCTLR));
#else
#error "SCENARIO_RANGE, SCENARIO_START_STOP, SCENARIO_EL, SCENARIO_PECOMP, SCENARIO_BB or SCENARIO_BB_RANGE"
#endif
  CHECK(0x3, mmio_read32(TRCSTATR)); /* idle again */
  return 0;
}
