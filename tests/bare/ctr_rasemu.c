/* Smctr RAS emulation (smctr.adoc, "RAS (Return Address Stack) Emulation Mode"): calls are
 * recorded as usual, a return pops (WRPTR goes back and that entry's ctrsource.V clears, the rest
 * of it stays), a co-routine swap overwrites logical entry 0 and leaves WRPTR, every other type is
 * inhibited (branches, jumps, traps), and the type filter and xTE bits are ignored. A chain of calls
 * deeper and shallower than the buffer, at depth 16 and 256: at the deepest point the buffer is the
 * call stack, youngest first; after the last return it is empty again. */
#include "ctr.h"

/* ras_chain: CHAIN functions of 24 bytes, each calling the next (jal ra at offset 8), the last
 * calling ras_leaf, which snapshots all 256 entries and sctrstatus into ras_snap / ras_snap_status
 * (with a loop of taken branches and a jump, neither recorded). ras_run(ctl, f) records with
 * mctrctl = ctl from its indirect call of f (at ras_call) until f returns. */
#define CHAIN 300
#define FN_SIZE 24
#define FN_CALL 8
struct ctr_entry ras_snap[256];
uint64_t ras_snap_status;
extern char ras_chain[], ras_leaf[], ras_call[];
void ras_run(uint64_t ctl, char *f);
/* co_run(ctl): with mctrctl = ctl, co_site calls co_fn, which swaps with co_peer (co_fn_swap,
 * jalr ra, t0) and back (co_peer_swap, jalr t0, ra), then branches, jumps and returns. co_snap[k] =
 * logical entry 0 and sctrstatus at four points: in co_fn, in co_peer, back in co_fn, after the
 * return. */
struct co_snap {
  uint64_t source, target, data, status;
} co_snap[4];
extern char co_site[], co_fn[], co_fn_swap[], co_fn_back[], co_peer[], co_peer_swap[];
void co_run(uint64_t ctl);

#define CO_SNAP(k)                         \
  "  la t1, co_snap + 32 * " #k "\n"       \
  "  li t2, 0x200\n"                       \
  "  csrw 0x150, t2\n"                     \
  "  csrr t2, 0x151\n"                     \
  "  sd t2, 0(t1)\n"                       \
  "  csrr t2, 0x152\n"                     \
  "  sd t2, 8(t1)\n"                       \
  "  csrr t2, 0x153\n"                     \
  "  sd t2, 16(t1)\n"                      \
  "  csrr t2, 0x14f\n"                     \
  "  sd t2, 24(t1)\n"

__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "  .globl ras_run\n"
    "ras_run:\n"
    "  mv t5, ra\n"
    "  csrw 0x34e, a0\n"
    "ras_call: jalr ra, 0(a1)\n"
    "  csrw 0x34e, zero\n"
    "  mv ra, t5\n"
    "  ret\n"
    "ras_chain:\n"
    "  .rept 300\n"
    "  addi sp, sp, -16\n"
    "  sd ra, 0(sp)\n"
    "  jal ra, . + 16\n"
    "  ld ra, 0(sp)\n"
    "  addi sp, sp, 16\n"
    "  ret\n"
    "  .endr\n"
    "ras_leaf:\n"
    "  j 1f\n"
    "1: la t1, ras_snap\n"
    "  li t2, 0x200\n"
    "  li t3, 0x300\n"
    "2: csrw 0x150, t2\n"
    "  csrr t4, 0x151\n"
    "  sd t4, 0(t1)\n"
    "  csrr t4, 0x152\n"
    "  sd t4, 8(t1)\n"
    "  csrr t4, 0x153\n"
    "  sd t4, 16(t1)\n"
    "  addi t1, t1, 24\n"
    "  addi t2, t2, 1\n"
    "  bne t2, t3, 2b\n"
    "  csrr t4, 0x14f\n"
    "  la t1, ras_snap_status\n"
    "  sd t4, 0(t1)\n"
    "  ret\n"

    "  .globl co_run\n"
    "co_run:\n"
    "  mv t5, ra\n"
    "  csrw 0x34e, a0\n"
    "co_site: jal ra, co_fn\n" CO_SNAP(3)
    "  csrw 0x34e, zero\n"
    "  mv ra, t5\n"
    "  ret\n"
    "co_fn:\n" CO_SNAP(0)
    "  mv t6, ra\n"
    "  la t0, co_peer\n"
    "co_fn_swap: jalr ra, 0(t0)\n"
    "co_fn_back:\n" CO_SNAP(2)
    "  mv ra, t6\n"
    "  beq zero, zero, 1f\n"
    "1: j 2f\n"
    "2: ret\n"
    "co_peer:\n" CO_SNAP(1)
    "co_peer_swap: jalr t0, 0(ra)\n"
    "  .option pop\n");

/* Call k of a chain entered at function s: ras_run's call of it, then each function's call. */
static struct ctr_rec chain_call(unsigned s, unsigned k) {
  uint64_t fn = (uint64_t)ras_chain + FN_SIZE * s;
  if (k == 0) return (struct ctr_rec)REC(ras_call, fn, CTR_IND_CALL);
  return (struct ctr_rec)REC(fn + FN_SIZE * (k - 1) + FN_CALL, fn + FN_SIZE * k, CTR_DIR_CALL);
}

static void check_entry(const char *what, struct ctr_entry e, struct ctr_rec r, uint64_t valid, uint64_t line) {
  check_named(what, line, r.source | valid, e.source);
  check_named(what, line, r.target, e.target & ~CTRTARGET_MISP);
  check_named(what, line, r.type, e.data & CTRDATA_TYPE);
  check_named(what, line, 0, e.data & CTRDATA_CCV); /* RASEMU records no valid cycle count */
}
static void check_zero(const char *what, struct ctr_entry e, uint64_t line) {
  check_named(what, line, 0, e.source | e.target | e.data);
}

/* A chain n functions deep at depth 16 << code: n + 1 calls, then n + 1 returns. */
static void chain(unsigned code, unsigned n, uint64_t filters) {
  const unsigned depth = CTR_DEPTH(code), s = CHAIN - n, calls = n + 1;
  ctr_reset(code);
  ras_run(CTRCTL_M | CTRCTL_RASEMU | filters, ras_chain + FN_SIZE * s);

  CHECKN("deepest point: WRPTR = calls mod depth", calls % depth, ras_snap_status & SCTRSTATUS_WRPTR);
  for (unsigned i = 0; i < 256; i++) {
    if (i < depth && i < calls)
      check_entry("deepest point: logical i is the i-th innermost call", ras_snap[i], chain_call(s, calls - 1 - i),
                  CTRSOURCE_V, __LINE__);
    else
      check_zero(i < depth ? "deepest point: entries past the stack still cleared" : "entries past the depth read 0",
                 ras_snap[i], __LINE__);
  }

  /* Every return popped: WRPTR back at 0, every physical entry p still holds the last call written
     there (calls k with k % depth == p), invalid. Logical i is physical depth - 1 - i. */
  CHECKN("after the last return: WRPTR back where it started", 0, ctr_wrptr());
  for (unsigned i = 0; i < depth; i++) {
    unsigned p = depth - 1 - i;
    struct ctr_entry e = ctr_entry(i);
    if (p < calls)
      check_entry("popped entries: V clear, the rest kept", e, chain_call(s, p + (calls - 1 - p) / depth * depth), 0,
                  __LINE__);
    else
      check_zero("never written: still cleared", e, __LINE__);
  }
}

static void chains(void) {
  /* With every type filter bit and MTE set: RASEMU ignores them. */
  const uint64_t filters = CTRCTL_MTE | CTRCTL_STE | CTRCTL_NTBREN | (0xff3eul << 32);
  chain(0, 10, 0);
  chain(0, 20, filters);
  chain(0, CHAIN - 1, 0);
  chain(4, 100, filters);
  chain(4, 290, 0);
}

static void coroutine(void) {
  ctr_reset(4);
  co_run(CTRCTL_M | CTRCTL_RASEMU);
  CHECKN("call: pushed", 1, co_snap[0].status);
  CHECKN("call: source", (uint64_t)co_site | CTRSOURCE_V, co_snap[0].source);
  CHECKN("call: target", (uint64_t)co_fn, co_snap[0].target & ~CTRTARGET_MISP);
  CHECKN("call: type", CTR_DIR_CALL, co_snap[0].data & CTRDATA_TYPE);
  CHECKN("swap: WRPTR unchanged", 1, co_snap[1].status);
  CHECKN("swap: replaces logical 0, source", (uint64_t)co_fn_swap | CTRSOURCE_V, co_snap[1].source);
  CHECKN("swap: replaces logical 0, target", (uint64_t)co_peer, co_snap[1].target & ~CTRTARGET_MISP);
  CHECKN("swap: type", CTR_CO_SWAP, co_snap[1].data & CTRDATA_TYPE);
  CHECKN("swap back: WRPTR unchanged", 1, co_snap[2].status);
  CHECKN("swap back: replaces logical 0, source", (uint64_t)co_peer_swap | CTRSOURCE_V, co_snap[2].source);
  CHECKN("swap back: replaces logical 0, target", (uint64_t)co_fn_back, co_snap[2].target & ~CTRTARGET_MISP);
  CHECKN("return: popped, no branch or jump recorded", 0, co_snap[3].status);
  CHECKN("return: logical 0 is now the never-written physical 255", 0, co_snap[3].source);
  struct ctr_entry e = ctr_entry(255);
  CHECKN("the popped entry: V clear", (uint64_t)co_peer_swap, e.source);
  CHECKN("the popped entry: target kept", (uint64_t)co_fn_back, e.target & ~CTRTARGET_MISP);
  CHECKN("the popped entry: type kept", CTR_CO_SWAP, e.data & CTRDATA_TYPE);
}

/* Traps are not recorded in RASEMU, external or not: an S-mode call, then an ecall to M with MTE. */
extern char rs_sn[], rs_call[], rs_f[];
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n"
    "rs_sn:\n"
    "rs_call: jal ra, rs_f\n"
    "rs_f: li a7, 0\n"
    "  ecall\n"
    "  li a7, " CTR_STR(CTR_EXIT) "\n"
    "  ecall\n"
    "  .option pop\n");

static void traps(void) {
  ctr_reset(4);
  ctr_clear_traps();
  ctr_run(PRIV_S, (void (*)(void))rs_sn, CTRCTL_S | CTRCTL_M | CTRCTL_RASEMU | CTRCTL_MTE);
  EXPECT_RECS("RASEMU: the call only; no trap, no trap return", REC(rs_call, rs_f, CTR_DIR_CALL));
}

int main(void) {
  set_m_handler(record_m);
  chains();
  coroutine();
  traps();
  ctr_reset(4);
  return 0;
}
