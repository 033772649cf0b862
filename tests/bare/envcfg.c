/* menvcfg/senvcfg gate the CMO instructions below M (the CMO chapter's envcfg pseudocode): in S,
 * menvcfg.CBCFE enables cbo.clean/cbo.flush, CBIE (01: as a flush, 11: invalidate) cbo.inval,
 * CBZE cbo.zero; in U the same field of senvcfg must enable it too. A disabled one raises an
 * illegal-instruction exception with the instruction bits in mtval; M-mode may always run them.
 * CBIE is WARL and keeps its value on a write of the reserved 0b10. (QEMU 7.2 lacks Zicbo*.) */
#include "bare.h"
#include "check.h"

#define CBIE_FLUSH (1ul << 4)
#define CBIE_INVAL (3ul << 4)
#define CBCFE (1ul << 6)
#define CBZE (1ul << 7)
#define ALL (CBIE_INVAL | CBCFE | CBZE)

static uint64_t block[8] __attribute__((aligned(64)));

/* Runs `insn (reg)` on the block and returns the instruction's address. */
#define CBO_AT(insn)                                                                                   \
  ({                                                                                                   \
    uint64_t pc_;                                                                                      \
    __asm__ volatile(".option push\n.option norvc\n.option arch, +zicbom, +zicboz\n"                  \
                     "la %0, 1f\n1: " insn " (%1)\n.option pop"                                      \
                     : "=&r"(pc_) : "r"(block) : "memory");                                           \
    pc_;                                                                                               \
  })

static uint64_t clean(uint64_t unused) { (void)unused; return CBO_AT("cbo.clean"); }
static uint64_t flush(uint64_t unused) { (void)unused; return CBO_AT("cbo.flush"); }
static uint64_t inval(uint64_t unused) { (void)unused; return CBO_AT("cbo.inval"); }
static uint64_t zero(uint64_t unused) { (void)unused; return CBO_AT("cbo.zero"); }

static const struct {
  uint64_t (*fn)(uint64_t);
  uint64_t field; /* the envcfg bits that enable it */
} ops[] = {{clean, CBCFE}, {flush, CBCFE}, {inval, CBIE_INVAL}, {zero, CBZE}};

static uint64_t word_at(uint64_t pc) { return *(volatile uint32_t *)pc; }

/* Runs op k in privilege priv with the given envcfg values; it must trap iff !allowed. */
static void expect(unsigned k, unsigned priv, uint64_t menvcfg, uint64_t senvcfg, int allowed) {
  csr_write(menvcfg, menvcfg);
  csr_write(senvcfg, senvcfg);
  for (int i = 0; i < 8; i++) block[i] = ~0ul;
  clear_recs();
  const uint64_t pc = priv == PRIV_M ? ops[k].fn(0) : run_in(priv, ops[k].fn, 0);
  if (allowed) {
    CHECK(0, m_rec.count);
  } else {
    expect_m(CAUSE_ILLEGAL, pc, word_at(pc));
  }
  /* cbo.zero zeroes the block exactly when it runs; the others leave memory alone. */
  const uint64_t fill = ops[k].fn == zero && allowed ? 0 : ~0ul;
  for (int i = 0; i < 8; i++) CHECK(fill, block[i]);
}

int main(void) {
  set_m_handler(record_m);

  for (unsigned k = 0; k < 4; k++) {
    const uint64_t f = ops[k].field;
    expect(k, PRIV_M, 0, 0, 1); /* M: always */
    expect(k, PRIV_S, 0, ALL, 0);
    expect(k, PRIV_S, ALL & ~f, ALL, 0); /* only its own field counts */
    expect(k, PRIV_S, f, 0, 1);         /* senvcfg does not matter in S */
    expect(k, PRIV_U, f, 0, 0);
    expect(k, PRIV_U, 0, f, 0);
    expect(k, PRIV_U, ALL & ~f, ALL, 0);
    expect(k, PRIV_U, ALL, ALL & ~f, 0);
    expect(k, PRIV_U, f, f, 1);
  }
  /* CBIE = 01 enables cbo.inval too (as a flush), in either register. */
  expect(2, PRIV_S, CBIE_FLUSH, 0, 1);
  expect(2, PRIV_U, CBIE_FLUSH, CBIE_INVAL, 1);
  expect(2, PRIV_U, CBIE_INVAL, CBIE_FLUSH, 1);

  /* The fields read back as written; the reserved CBIE = 10 leaves CBIE as it was. */
  csr_write(menvcfg, ALL);
  CHECK(ALL, csr_read(menvcfg) & 0xff);
  csr_write(menvcfg, CBIE_FLUSH);
  csr_write(menvcfg, 2ul << 4 | CBZE);
  CHECK(CBIE_FLUSH | CBZE, csr_read(menvcfg) & 0xff);
  csr_write(senvcfg, 0);
  csr_write(senvcfg, 2ul << 4 | CBCFE);
  CHECK(CBCFE, csr_read(senvcfg) & 0xff);
  csr_write(menvcfg, 0);
  csr_write(senvcfg, 0);
  return 0;
}
