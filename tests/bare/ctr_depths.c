/* sctrdepth with `--cpu rv64,ctr-depths=...`: DEPTH is WARL over exactly the depths chosen
 * (smctr.adoc, "It is implementation-specific which DEPTH value(s) are supported"), CTR_DEPTHS
 * having bit DEPTH set for each; all ones, as Linux writes it, selects the deepest; WRPTR is masked
 * at the depth that results, and logical entries past it read 0. */
#include "ctr.h"

#ifndef CTR_DEPTHS
#error "compile with -DCTR_DEPTHS=<bit DEPTH per supported depth>"
#endif

static int supported(uint64_t code) { return code < 5 && ((CTR_DEPTHS >> code) & 1); }

int main(void) {
  unsigned deepest = 0;
  for (unsigned code = 0; code < 8; code++) {
    put_sctrdepth(code);
    uint64_t d = get_sctrdepth(0);
    CHECKN("sctrdepth reads a supported depth", 1, supported(d));
    if (supported(code)) {
      CHECKN("a supported depth is held", code, d);
      deepest = code;
    }
  }
  for (unsigned code = 0; code < 5; code++) {
    put_sctrdepth(code);
    unsigned depth = CTR_DEPTH(get_sctrdepth(0));
    put_sctrstatus(SCTRSTATUS_WRPTR);
    CHECKN("WRPTR masked at the depth in effect", depth - 1, ctr_wrptr());
    put_siselect(CTR_SELECT(0));
    put_sireg(0x80001001ul);
    put_siselect(CTR_SELECT(depth));
    put_sireg(0x80001001ul);
    CHECKN("logical entry 0 holds what is written", 0x80001001ul, ctr_entry(0).source);
    if (depth < 256) CHECKN("the entry past the depth in effect reads 0", 0, ctr_entry(depth).source);
  }
  /* From the shallowest, as Linux finds the deepest (ctr_csrs.c). */
  put_sctrdepth(__builtin_ctz(CTR_DEPTHS));
  put_sctrdepth(~0ul);
  CHECKN("sctrdepth all ones from the shallowest: the deepest supported", deepest, get_sctrdepth(0));
  ctr_reset(deepest);
  return 0;
}
