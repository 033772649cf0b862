/* Self-modifying code without fence.i: a store that overwrites a later instruction of the very
 * block doing the store must take effect at once, whether the store is a plain one (sw, sh, fsw,
 * run inline by the JIT) or an AMO (run out of line). Each routine below is copied into an RWX
 * mapping and called with a0 = 0 and a1 = what to write; its straight-line code stores a1 over
 * `addi a0, a0, 1` three instructions ahead, so it returns 1 + 1 with that instruction as it was,
 * and 1 + 2 once the store made it `addi a0, a0, 2`. Each is called a few times, patching the
 * instruction back and forth, so translated code from an earlier call is stale too. The
 * routines' straight-line code is one translation block. */
#include "check.h"

#define ADDI_A0_1 0x00150513
#define ADDI_A0_2 0x00250513

/* Between the store and the instruction before its target. QEMU 7.2 finishes a translated block
 * as translated (the ISA allows it without fence.i), so its reference build has fence.i there. */
#ifdef GUEST_QEMU_REF
#define AFTER_STORE fence.i
#else
#define AFTER_STORE addi a0, a0, 0
#endif

/* Copies \len bytes (a multiple of 4) from \src to \dst with t0/t1/t2. */
.macro COPY dst, src, len
    la t0, \src
    mv t1, \dst
    li t2, \len
.Lcopy\@:
    lw t3, 0(t0)
    sw t3, 0(t1)
    addi t0, t0, 4
    addi t1, t1, 4
    addi t2, t2, -4
    bnez t2, .Lcopy\@
.endm

/* Calls the routine at s0 with a1 = \insn (or its upper half when \half) and checks a0. */
.macro CALL_PATCH insn, expected, half=0
    li a0, 0
    li a1, \insn
    .if \half
    srli a1, a1, 16
    .endif
    jalr ra, 0(s0)
    CHECK_REG a0, \expected
.endm

/* The back-and-forth sequence of calls for one routine. */
.macro PATCH_CALLS half=0
    CALL_PATCH ADDI_A0_2, 3, \half
    CALL_PATCH ADDI_A0_2, 3, \half
    CALL_PATCH ADDI_A0_1, 2, \half
    CALL_PATCH ADDI_A0_2, 3, \half
    CALL_PATCH ADDI_A0_1, 2, \half
.endm

TEST_BEGIN
    MMAP_RWX zero, 4096, MAP_PRIVATE_ANON
    li t0, -4096
    CHECK_LTU a0, t0                    /* not an error return */
    mv s0, a0

    COPY s0, patch_sw, 24
    fence.i                             /* for the copy only */
    PATCH_CALLS

    COPY s0, patch_sh, 24
    fence.i
    PATCH_CALLS half=1

    COPY s0, patch_fsw, 28
    fence.i
    PATCH_CALLS

    COPY s0, patch_amo, 28
    fence.i
    PATCH_CALLS
TEST_END

    .balign 4
patch_sw:
    auipc t0, 0
    sw a1, 16(t0)                       /* over the addi at +16 */
    AFTER_STORE
    addi a0, a0, 1
    addi a0, a0, 1
    ret
patch_sw_end:

patch_sh:
    auipc t0, 0
    sh a1, 18(t0)                       /* the upper half of the addi at +16: its immediate */
    AFTER_STORE
    addi a0, a0, 1
    addi a0, a0, 1
    ret
patch_sh_end:

patch_fsw:
    auipc t0, 0
    fmv.w.x ft0, a1
    fsw ft0, 20(t0)                     /* over the addi at +20 */
    AFTER_STORE
    addi a0, a0, 1
    addi a0, a0, 1
    ret
patch_fsw_end:

patch_amo:
    auipc t0, 0
    addi t0, t0, 20
    amoswap.w zero, a1, (t0)            /* over the addi at +20 */
    AFTER_STORE
    addi a0, a0, 1
    addi a0, a0, 1
    ret
patch_amo_end:

    /* The COPY lengths above. */
    .if patch_sw_end - patch_sw != 24 || patch_sh_end - patch_sh != 24 || patch_fsw_end - patch_fsw != 28 || patch_amo_end - patch_amo != 28
    .error "a routine's length changed"
    .endif
