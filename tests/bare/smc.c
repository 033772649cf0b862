/* Self-modifying code without fence.i in system mode: a store that overwrites a later
 * instruction of the very block doing the store takes effect at once, in M-mode and in S-mode
 * through Sv39. Each routine is called with a0 = 0 and a1 = what to write; its straight-line code
 * stores a1 over the `addi a0, a0, 1` three instructions ahead, so it returns 1 + 1 with that
 * instruction as it was, and 1 + 2 once the store made it `addi a0, a0, 2`. Calls patch the
 * instruction back and forth, so translated code from earlier calls is stale too. */
#include "bare.h"
#include "check.h"

#define ADDI_A0_1 0x00150513u
#define ADDI_A0_2 0x00250513u

/* QEMU 7.2 finishes a translated block as translated (the ISA allows it without fence.i), so its
 * reference build has fence.i between the store and its target. */
#ifdef QEMU_REF
#define AFTER_STORE "fence.i\n"
#else
#define AFTER_STORE "addi a0, a0, 0\n"
#endif

uint64_t patch_sw(uint64_t zero, uint64_t insn);
uint64_t patch_sh(uint64_t zero, uint64_t half);
uint64_t patch_amo(uint64_t zero, uint64_t insn);
__asm__(".pushsection .text.smc, \"ax\"\n"
        ".option push\n.option norvc\n.balign 4\n"
        "patch_sw:\n"
        "auipc t0, 0\n sw a1, 16(t0)\n" AFTER_STORE "addi a0, a0, 1\n addi a0, a0, 1\n ret\n"
        "patch_sh:\n" /* the upper half of the addi: its immediate */
        "auipc t0, 0\n sh a1, 18(t0)\n" AFTER_STORE "addi a0, a0, 1\n addi a0, a0, 1\n ret\n"
        "patch_amo:\n"
        "auipc t0, 0\n addi t0, t0, 20\n amoswap.w zero, a1, (t0)\n" AFTER_STORE
        "addi a0, a0, 1\n addi a0, a0, 1\n ret\n"
        ".option pop\n.popsection");

static void back_and_forth(uint64_t (*fn)(uint64_t, uint64_t), int half) {
  const uint64_t shift = half ? 16 : 0;
  CHECK(3, fn(0, ADDI_A0_2 >> shift));
  CHECK(3, fn(0, ADDI_A0_2 >> shift));
  CHECK(2, fn(0, ADDI_A0_1 >> shift));
  CHECK(3, fn(0, ADDI_A0_2 >> shift));
  CHECK(2, fn(0, ADDI_A0_1 >> shift));
}

static uint64_t s_patch(uint64_t insn) { return patch_sw(0, insn); }

int main(void) {
  back_and_forth(patch_sw, 0);
  back_and_forth(patch_sh, 1);
  back_and_forth(patch_amo, 0);

  pt_init(3);
  pt_map_image(PTE_R | PTE_W | PTE_X | PTE_AD, PTE_R | PTE_W | PTE_AD);
  vm_on();
  CHECK(3, run_in(PRIV_S, s_patch, ADDI_A0_2));
  CHECK(2, run_in(PRIV_S, s_patch, ADDI_A0_1));
  CHECK(3, run_in(PRIV_S, s_patch, ADDI_A0_2));
  vm_off();
  return 0;
}
