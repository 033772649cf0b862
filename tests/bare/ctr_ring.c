/* Every read of the CTR buffer is exact right after a long run of recorded transfers, which
 * translated code keeps in a host-side ring until something reads or changes the buffer
 * (docs/architecture.md, "Control transfer records"). A loop in S makes four records per
 * iteration, 800 in all (more than the ring holds before it wraps, and than any depth): a call, the
 * leaf's return, a not-taken branch and the back edge. Then, in turn:
 *  - a trap to M with MTE, recorded after them (trap entry), and M reads the whole buffer, at
 *    depths 16, 64 and 256: every entry's source, target, type and CC;
 *  - S reads sctrstatus and entry 0 (the CSR window) in straight-line code after the loop;
 *  - S shrinks the depth to 16 after the loop (WRPTR keeps its low bits and the physical entries
 *    stay where the depth of 256 put them), and the trap's record follows. */
#include "ctr.h"

#define ITERATIONS 200
#define RECORDS (4 * ITERATIONS)

/* rg_<name>: li t1, ITERATIONS; ITERATIONS times `jal rg_leaf` (which returns at once), a
 * never-taken bne and the back edge; then the tail, then `li a7, CTR_EXIT; ecall`. */
void rg_plain(void), rg_read(void), rg_depth(void);
extern char rg_plain_call[], rg_plain_after[], rg_plain_back[], rg_plain_ecall[];
extern char rg_read_call[], rg_read_after[], rg_read_back[];
extern char rg_depth_call[], rg_depth_after[], rg_depth_back[], rg_depth_ecall[];
extern char rg_leaf[];
volatile uint64_t rg_saved[4]; /* rg_read's sctrstatus, ctrsource, ctrtarget, ctrdata */
#define RG_LOOP(name, tail)       \
  "  .globl " #name "\n"          \
  #name ":\n"                     \
  "  li t1, " CTR_STR(ITERATIONS) "\n" \
  #name "_call: jal ra, rg_leaf\n" \
  #name "_after: bne zero, zero, 1f\n" \
  "1: addi t1, t1, -1\n"          \
  #name "_back: bnez t1, " #name "_call\n" tail \
  "  li a7, 0x43545258\n"         \
  #name "_ecall: ecall\n"
__asm__(
    "  .text\n"
    "  .option push\n"
    "  .option norvc\n" RG_LOOP(rg_plain, "")
    RG_LOOP(rg_read, "  li t2, 0x200\n"
                     "  csrw 0x150, t2\n"
                     "  csrr t3, 0x14f\n"
                     "  csrr t4, 0x151\n"
                     "  csrr t5, 0x152\n"
                     "  csrr t6, 0x153\n"
                     "  la t2, rg_saved\n"
                     "  sd t3, 0(t2)\n"
                     "  sd t4, 8(t2)\n"
                     "  sd t5, 16(t2)\n"
                     "  sd t6, 24(t2)\n")
    RG_LOOP(rg_depth, "  csrw 0x15f, zero\n")
    "rg_leaf: ret\n"
    "  .option pop\n");

/* Record i (0 = the first) of the loop of rg_<name>, and its CC: one instruction since the record
 * before it, two for the back edge (addi, bnez). */
struct rg_rec {
  struct ctr_rec r;
  uint64_t cc;
};
static struct rg_rec loop_record(unsigned i, char *call, char *after, char *back) {
  switch (i % 4) {
    case 0: return (struct rg_rec){REC(call, rg_leaf, CTR_DIR_CALL), 1};
    case 1: return (struct rg_rec){REC(rg_leaf, after, CTR_RETURN), 1};
    case 2: return (struct rg_rec){REC(after, after + 4, CTR_NOT_TAKEN), 1};
    default:
      if (i + 1 == RECORDS) return (struct rg_rec){REC(back, back + 4, CTR_NOT_TAKEN), 2};
      return (struct rg_rec){REC(back, call, CTR_TAKEN), 2};
  }
}

static void expect_record(const char *what, unsigned n, struct rg_rec want, uint64_t line) {
  expect_entry_at(what, n, want.r, line);
  check_named(what, line, CTRDATA_CCV | want.cc << 16 | want.r.type, ctr_entry(n).data);
}

#define CTL (CTRCTL_S | CTRCTL_MTE | CTRCTL_NTBREN)
/* The external trap of the ecall from S, recorded with target 0, two instructions (li) after the
 * last record. */
#define EXIT_REC(ecall, cc) ((struct rg_rec){REC(ecall, 0, CTR_EXCEPTION), (cc)})

static void plain(unsigned code) {
  ctr_reset(code);
  ctr_run(PRIV_S, rg_plain, CTL);
  const unsigned depth = CTR_DEPTH(code);
  CHECKN("WRPTR after the loop and the trap", (RECORDS + 1) % depth, ctr_wrptr());
  expect_record("the trap's record, after the loop's", 0, EXIT_REC(rg_plain_ecall, 2), __LINE__);
  for (unsigned n = 1; n < depth; n++)
    expect_record("the loop's records, youngest first", n,
                  loop_record(RECORDS - n, rg_plain_call, rg_plain_after, rg_plain_back), __LINE__);
}

int main(void) {
  put_mstateen0(STATEEN_CTR | CSRIND);
  for (unsigned code = 0; code <= 4; code += 2) plain(code);

  ctr_reset(4);
  ctr_run(PRIV_S, rg_read, CTL);
  CHECKN("sctrstatus read in S right after the loop: WRPTR", RECORDS % 256, rg_saved[0]);
  struct rg_rec last = loop_record(RECORDS - 1, rg_read_call, rg_read_after, rg_read_back);
  CHECKN("ctrsource read in S right after the loop", last.r.source | CTRSOURCE_V, rg_saved[1]);
  CHECKN("ctrtarget read in S right after the loop", last.r.target, rg_saved[2] & ~CTRTARGET_MISP);
  CHECKN("ctrdata read in S right after the loop", CTRDATA_CCV | last.cc << 16 | last.r.type, rg_saved[3]);

  /* At depth 256 record i went to physical entry i % 256; the depth of 16 keeps WRPTR's low bits,
     and the trap's record lands at WRPTR. */
  ctr_reset(4);
  ctr_run(PRIV_S, rg_depth, CTL);
  const unsigned w = RECORDS % 256 % 16;
  CHECKN("WRPTR after the depth change and the trap", (w + 1) % 16, ctr_wrptr());
  expect_record("the trap's record, at the depth of 16", 0, EXIT_REC(rg_depth_ecall, 3), __LINE__);
  for (unsigned n = 1; n < 16; n++) {
    const unsigned p = (w - n) & 15;
    /* The youngest record of the loop that went to physical entry p at depth 256. */
    unsigned i = RECORDS - 1;
    while (i % 256 != p) i--;
    expect_record("the entries as the depth of 256 left them", n,
                  loop_record(i, rg_depth_call, rg_depth_after, rg_depth_back), __LINE__);
  }
  put_mstateen0(0);
  ctr_reset(4);
  return 0;
}
