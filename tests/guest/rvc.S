/* C extension: every RV64C instruction written with its c. mnemonic (c.ebreak aside), immediate
 * extremes, c.jalr's pc+2 link, and 32-bit instructions at 2-byte alignment and across a page. */
#include "check.h"

TEST_BEGIN
    .option rvc
    /* Quadrant 1: immediates and register-register ALU. */
    c.li a0, -32
    CHECK_REG a0, -32
    c.li a0, 31
    CHECK_REG a0, 31
    c.addi a0, -32
    CHECK_REG a0, -1
    c.addi a0, 31
    CHECK_REG a0, 30
    c.nop
    li a0, 0x7fffffff
    c.addiw a0, 1
    CHECK_REG a0, 0xffffffff80000000
    li a0, 0x1ffffffff
    c.addiw a0, 0                       /* sext.w */
    CHECK_REG a0, -1
    li a0, 0x80000000
    c.addiw a0, -1
    CHECK_REG a0, 0x7fffffff
    c.lui a0, 1
    CHECK_REG a0, 0x1000
    c.lui a0, 0x1f
    CHECK_REG a0, 0x1f000
    c.lui a0, 0xfffe0                   /* most negative */
    CHECK_REG a0, 0xfffffffffffe0000
    c.lui a0, 0xfffff
    CHECK_REG a0, 0xfffffffffffff000
    li a0, 0x8000000000000001
    c.srli a0, 63
    CHECK_REG a0, 1
    li a0, 0x8000000000000000
    c.srli a0, 1
    CHECK_REG a0, 0x4000000000000000
    li a0, 0x8000000000000000
    c.srai a0, 63
    CHECK_REG a0, -1
    li a0, 0x8000000000000000
    c.srai a0, 4
    CHECK_REG a0, 0xf800000000000000
    li a0, 0x123456789abcdeff
    c.andi a0, -32
    CHECK_REG a0, 0x123456789abcdee0
    li a0, 0x123456789abcdeff
    c.andi a0, 31
    CHECK_REG a0, 0x1f
    li a0, 0x123456789abcdeff
    c.andi a0, 0
    CHECK_REG a0, 0

    li a0, 10
    li a1, 3
    c.sub a0, a1
    CHECK_REG a0, 7
    li a0, 0xff00
    li a1, 0x0ff0
    c.xor a0, a1
    CHECK_REG a0, 0xf0f0
    li a0, 0xff00
    c.or a0, a1
    CHECK_REG a0, 0xfff0
    li a0, 0xff00
    c.and a0, a1
    CHECK_REG a0, 0x0f00
    li a0, 0x80000000
    li a1, 1
    c.subw a0, a1
    CHECK_REG a0, 0x7fffffff
    li a0, 0x7fffffff
    c.addw a0, a1
    CHECK_REG a0, 0xffffffff80000000
    li a0, 0x100000000
    li a1, 0x100000000
    c.addw a0, a1
    CHECK_REG a0, 0

    /* Quadrant 2 ALU: full register numbers. */
    li t0, 1
    c.slli t0, 63
    CHECK_REG t0, 0x8000000000000000
    li t1, 0x0123456789abcdef
    c.slli t1, 4
    CHECK_REG t1, 0x123456789abcdef0
    li a3, 0x1234
    c.mv t2, a3
    CHECK_REG t2, 0x1234
    li t2, 0x1000
    c.add t2, a3
    CHECK_REG t2, 0x2234
    li s11, -1
    c.add s11, s11
    CHECK_REG s11, -2

    /* Stack-pointer forms. */
    mv s10, sp
    c.addi16sp sp, -512
    sub a0, s10, sp
    CHECK_REG a0, 512
    c.addi16sp sp, 496
    sub a0, s10, sp
    CHECK_REG a0, 16
    c.addi16sp sp, -16
    c.addi4spn a0, sp, 4
    sub a0, a0, sp
    CHECK_REG a0, 4
    c.addi4spn a0, sp, 1020
    sub a0, a0, sp
    CHECK_REG a0, 1020

    c.addi16sp sp, -512
    li a0, 0x8877665544332211
    c.sdsp a0, 0(sp)
    c.sdsp a0, 504(sp)
    li a1, 0xfedcba98
    c.swsp a1, 8(sp)
    c.swsp a1, 252(sp)
    c.ldsp a2, 0(sp)
    CHECK_REG a2, 0x8877665544332211
    c.ldsp a2, 504(sp)
    CHECK_REG a2, 0x8877665544332211
    c.lwsp a3, 8(sp)
    CHECK_REG a3, 0xfffffffffedcba98
    c.lwsp a3, 252(sp)
    CHECK_REG a3, 0xfffffffffedcba98
    li t0, 0x400921fb54442d18
    fmv.d.x ft0, t0
    c.fsdsp ft0, 16(sp)
    c.fsdsp ft0, 496(sp)
    c.fldsp ft1, 16(sp)
    CHECK_FREG ft1, 0x400921fb54442d18
    c.fldsp ft2, 496(sp)
    CHECK_FREG ft2, 0x400921fb54442d18
    ld a0, 496(sp)
    CHECK_REG a0, 0x400921fb54442d18
    c.addi16sp sp, 496
    c.addi16sp sp, 48
    CHECK_EQ sp, s10

    /* Quadrant 0 loads and stores through x8..x15. */
    la s0, buf
    li a0, 0x8877665544332211
    c.sd a0, 0(s0)
    c.sd a0, 248(s0)
    li a1, 0x80000001
    c.sw a1, 8(s0)
    c.sw a1, 124(s0)
    c.ld a2, 0(s0)
    CHECK_REG a2, 0x8877665544332211
    c.ld a2, 248(s0)
    CHECK_REG a2, 0x8877665544332211
    c.lw a3, 8(s0)
    CHECK_REG a3, 0xffffffff80000001
    c.lw a3, 124(s0)
    CHECK_REG a3, 0xffffffff80000001
    CHECK_MEM lwu, 124, s0, 0x80000001
    li t0, 0xc000000000000000
    fmv.d.x fa0, t0
    c.fsd fa0, 16(s0)
    c.fsd fa0, 240(s0)
    c.fld fa1, 16(s0)
    CHECK_FREG fa1, 0xc000000000000000
    c.fld fa2, 240(s0)
    CHECK_FREG fa2, 0xc000000000000000

    /* c.j, c.beqz, c.bnez: taken and not taken, forward and backward. */
    li a0, 0
    c.j 1f
    li a0, 1
1:  CHECK_REG a0, 0
    li a0, 0
    li a1, 0
    c.beqz a1, 1f
    li a0, 1
1:  CHECK_REG a0, 0
    li a1, 5
    c.beqz a1, 1f
    li a0, 2
1:  CHECK_REG a0, 2
    li a0, 0
    c.bnez a1, 1f
    li a0, 1
1:  CHECK_REG a0, 0
    li a1, 0
    c.bnez a1, 1f
    li a0, 3
1:  CHECK_REG a0, 3
    li a0, 0                            /* backward loops */
    li a1, 10
1:  c.addi a0, 2
    c.addi a1, -1
    c.bnez a1, 1b
    CHECK_REG a0, 20
    li a0, 0
    li a1, 0
    c.j 2f
1:  c.addi a0, 1
    c.j 3f
2:  c.beqz a1, 1b
3:  CHECK_REG a0, 1

    /* c.jr, c.jalr (links pc + 2). */
    la t0, 1f
    li a0, 0
    c.jr t0
    li a0, 1
1:  CHECK_REG a0, 0
    la t0, func
    li a0, 0
    c.jalr t0
2:  la a1, 2b
    CHECK_EQ ra, a1
    CHECK_REG a0, 0x42
    la a5, func
    c.jalr a5                           /* returns onto a 32-bit instruction */
    addi a0, a0, 1
    CHECK_REG a0, 0x43

    /* A 32-bit instruction at a 2-byte-aligned address, and one that straddles a page. */
    li a0, 0
    c.j 1f
    .balign 4
    c.nop
1:  addi a0, a0, 7
    c.addi a0, 1
    CHECK_REG a0, 8
    li a0, 0
    j straddle
straddle_back:
TEST_END

func:
    li a0, 0x42
    c.jr ra

    .balign 4096
    .skip 4096 - 6
straddle:
    c.addi a0, 1                        /* page offset 4090 */
    c.addi a0, 2                        /* 4092 */
    addi a0, a0, 0x30                   /* 4094..4097 */
    c.addi a0, 4
    CHECK_REG a0, 0x37
    j straddle_back

    .data
    .balign 8
buf:
    .space 256
