/* Sdtrig load and store triggers (mcontrol6, action 0): the breakpoint comes before the access
 * (memory and the destination register untouched, mepc = the instruction, mtval = the access's
 * lowest address); every byte an access touches is a compare value; access sizes; FP loads and
 * stores; LR, SC and AMOs; cache-block operations; chains across loads and stores; and priority
 * over misaligned accesses, access faults and page faults. */
#include "bare.h"
#include "check.h"
#include "trigger.h"

#define L (MC6 | MC6_M | MC6_LOAD)
#define S (MC6 | MC6_M | MC6_STORE)

static volatile uint64_t buf[8] __attribute__((aligned(64)));
#define B ((uint64_t)buf)

/* What the data register of the last access below held afterwards. */
static uint64_t reg;

/* Runs `insn operands` (norvc; %1 is the data register, of `type` and constraint `con`, starting
 * as `init`, %2 the address) and returns the instruction's address. */
#define INSN_AT(insn, operands, type, con, init, addr)                                                \
  ({                                                                                                  \
    uint64_t pc_;                                                                                     \
    type r_ = init;                                                                                   \
    __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: " insn " " operands "\n.option pop" \
                     : "=&r"(pc_), con(r_) : "r"(addr) : "memory");                                   \
    reg = (uint64_t)r_;                                                                               \
    pc_;                                                                                              \
  })
#define ACCESS(insn, addr) INSN_AT(insn, "%1, 0(%2)", uint64_t, "+r", 0x5a5a, addr)
#define FP_ACCESS(insn, addr) INSN_AT(insn, "%1, 0(%2)", double, "+f", 0, addr)
#define AMO(insn, addr) INSN_AT(insn, "%1, %1, (%2)", uint64_t, "+r", 7, addr) /* rd = rs2 */
#define LR(insn, addr) INSN_AT(insn, "%1, (%2)", uint64_t, "+r", 7, addr)

static void fires(uint64_t pc, uint64_t tval) { expect_m(CAUSE_BREAKPOINT, pc, tval); }
static void quiet(void) { CHECK(0, m_rec.count); }

static void fill(void) {
  for (int k = 0; k < 8; k++) buf[k] = 0x1111111111111111ul * (k + 1);
}

static void load_compare_values(void) {
  fill();
  CHECK(L, trig_set(0, L, B + 3));
  uint64_t pc = ACCESS("lb", B + 3);
  fires(pc, B + 3);
  CHECK(0x5a5a, reg); /* the load did not write its destination */
  CHECK(L | MC6_HIT0, trig_tdata1(0));
  fires(ACCESS("ld", B), B); /* B+3 is one of its bytes: tval is the lowest */
  fires(ACCESS("lh", B + 2), B + 2);
  fires(ACCESS("lw", B), B);
  ACCESS("lb", B + 4);
  quiet();
  ACCESS("lw", B + 4);
  quiet();
  ACCESS("lhu", B + 4);
  quiet();
  ACCESS("lb", B + 2);
  quiet();
  CHECK(0x11, reg);
  ACCESS("sd", B); /* a store: not watched */
  quiet();
  trig_clear_all();  /* before reading buf[0], which the trigger watches */
  CHECK(0x5a5a, buf[0]);
}

static __attribute__((noinline)) void sizes(void) {
  fill();
  trig_set(0, L | MC6_SIZE(SIZE_8), B);
  fires(ACCESS("lbu", B), B);
  ACCESS("lh", B);
  ACCESS("lw", B);
  ACCESS("ld", B);
  quiet();
  trig_set(0, L | MC6_SIZE(SIZE_16), B + 2);
  fires(ACCESS("lhu", B + 2), B + 2);
  ACCESS("lb", B + 2);
  ACCESS("lw", B);
  quiet();
  trig_set(0, S | MC6_SIZE(SIZE_32), B + 4);
  fires(ACCESS("sw", B + 4), B + 4);
  CHECK(0x1111111111111111ul, buf[0]); /* before the store */
  ACCESS("sd", B);
  ACCESS("sh", B + 4);
  ACCESS("sb", B + 4);
  ACCESS("lw", B + 4);
  quiet();
  trig_set(0, S | MC6_SIZE(SIZE_64), B + 8);
  fires(ACCESS("sd", B + 8), B + 8);
  CHECK(0x2222222222222222ul, buf[1]);
  /* FP loads and stores are loads and stores of their width. */
  fires(FP_ACCESS("fsd", B + 8), B + 8);
  FP_ACCESS("fsw", B + 8);
  quiet();
  trig_set(0, L | MC6_SIZE(SIZE_32), B + 8);
  fires(FP_ACCESS("flw", B + 8), B + 8);
  FP_ACCESS("fld", B + 8);
  quiet();
  trig_clear_all();
}

/* A misaligned access is one access: each of its bytes is a compare value, and the breakpoint
 * comes before the access (brisk performs misaligned loads and stores, even across pages). */
static void misaligned(void) {
  fill();
  trig_set(0, L, B + 12);
  fires(ACCESS("ld", B + 5), B + 5);
  ACCESS("ld", B + 13);
  quiet();
  trig_set(0, S, B + 12);
  fires(ACCESS("sw", B + 9), B + 9);
  CHECK(0x2222222222222222ul, buf[1]);
  trig_clear_all();
}

/* Sdtrig.adoc, "A Extension": LR is a load, SC a store (brisk: failing ones too), an AMO both;
 * and the breakpoint comes before a misaligned AMO's exception. */
static void atomics(void) {
  fill();
  trig_set(0, S, B + 16);
  fires(AMO("amoadd.d", B + 16), B + 16);
  CHECK(7, reg);
  CHECK(0x3333333333333333ul, buf[2]);
  fires(AMO("sc.d", B + 16), B + 16);
  LR("lr.d", B + 16);
  quiet();
  trig_set(0, L, B + 16);
  fires(AMO("amoswap.d", B + 16), B + 16);
  fires(LR("lr.d", B + 16), B + 16);
  AMO("sc.d", B + 16);
  quiet();
  CHECK(1, reg); /* no reservation: it failed */
  trig_set(0, S | MC6_LOAD | MC6_MATCH(MATCH_NAPOT), (B + 16) | 3);
  fires(AMO("amoadd.w", B + 18), B + 18); /* misaligned */
  fires(LR("lr.w", B + 18), B + 18);     /* LR is a load, but misaligned: the breakpoint first */
  trig_clear_all();
  CHECK(0x3333333333333333ul, buf[2]);
}

/* Cache-block operations are stores to every byte of the block, seen only by triggers of any size
 * (brisk: tval is the block's address). */
static void cache_blocks(void) {
  fill();
  trig_set(0, S, B + 40);
  uint64_t pc;
  __asm__ volatile(".option push\n.option norvc\n.option arch, +zicboz, +zicbom\nla %0, 1f\n1: cbo.zero (%1)\n.option pop"
                   : "=&r"(pc) : "r"(B + 8) : "memory");
  fires(pc, B);
  CHECK(0x1111111111111111ul, buf[0]);
  __asm__ volatile(".option push\n.option norvc\n.option arch, +zicboz, +zicbom\nla %0, 1f\n1: cbo.flush (%1)\n.option pop"
                   : "=&r"(pc) : "r"(B + 63) : "memory");
  fires(pc, B);
  trig_set(0, S | MC6_SIZE(SIZE_64), B + 40);
  __asm__ volatile(".option push\n.option arch, +zicboz\ncbo.zero (%0)\n.option pop" ::"r"(B) : "memory");
  quiet();
  CHECK(0, buf[5]);
  trig_clear_all();
}

static void chains(void) {
  fill();
  /* Loads in the 32 bytes at B and at or above B+16. */
  trig_set(0, L | MC6_CHAIN | MC6_MATCH(MATCH_NAPOT), B | 15);
  trig_set(1, L | MC6_MATCH(MATCH_GE), B + 16);
  ACCESS("ld", B + 8);
  ACCESS("ld", B + 32);
  quiet();
  fires(ACCESS("ld", B + 16), B + 16);
  CHECK(L | MC6_CHAIN | MC6_MATCH(MATCH_NAPOT) | MC6_HIT0, trig_tdata1(0));
  CHECK(L | MC6_MATCH(MATCH_GE) | MC6_HIT0, trig_tdata1(1));
  /* A load trigger chained with a store trigger: only an AMO is both. */
  trig_set(0, L | MC6_CHAIN, B + 24);
  trig_set(1, S, B + 24);
  ACCESS("ld", B + 24);
  ACCESS("sd", B + 24);
  quiet();
  CHECK(0x5a5a, buf[3]);
  fires(AMO("amoor.d", B + 24), B + 24);
  CHECK(0x5a5a, buf[3]);
  trig_clear_all();
}

static uint64_t s_load(uint64_t va) {
  uint64_t v = 0;
  return load64_at(va, &v);
}

/* Load/store address breakpoints come before access faults and page faults. */
static void priority(void) {
  trig_set(0, L, UNMAPPED_PA);
  fires(ACCESS("ld", UNMAPPED_PA), UNMAPPED_PA);
  trig_set(0, S, UNMAPPED_PA);
  fires(ACCESS("sd", UNMAPPED_PA), UNMAPPED_PA);
  uint64_t pc = ACCESS("ld", UNMAPPED_PA);
  expect_m(CAUSE_LOAD_ACCESS, pc, UNMAPPED_PA);

  const uint64_t va = 0x40000000ul; /* not mapped */
  pt_init(3);
  pt_map_image(PTE_R | PTE_X | PTE_A, PTE_R | PTE_W | PTE_AD);
  vm_on();
  pc = run_in(PRIV_S, s_load, va);
  expect_m(CAUSE_LOAD_PAGE, pc, va);
  trig_set(0, MC6 | MC6_S | MC6_LOAD, va);
  pc = run_in(PRIV_S, s_load, va);
  fires(pc, va);
  vm_off();
  trig_clear_all();
}

int main(void) {
  set_m_handler(record_m);
  csr_set(mstatus, MSTATUS_MIE); /* mie is 0: no interrupt is taken */
  csr_set(mstatus, 1ul << 13);   /* FS Initial, before any function that uses FP registers */
  load_compare_values();
  sizes();
  misaligned();
  atomics();
  cache_blocks();
  chains();
  priority();
  return 0;
}
