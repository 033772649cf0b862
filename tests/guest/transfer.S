/* Every control-transfer type of the Smctr table, in 32-bit and compressed forms, run straight through
 * to exit(0). tests/unit/test_transfer.cpp runs it with the control-transfer sink on, looks the labels
 * up in the symbol table and checks the exact list of records, so each transfer instruction, each
 * target and each fall-through has a label. The path not taken holds unimp, so a wrong transfer
 * faults instead of silently recording something else. */
    .option norvc
    .text
    .globl _start
_start:
    li s0, 1

    /* Conditional branches: not taken (records the fall-through pc), taken, and a backward loop. */
br_nt:      beq s0, zero, bad
br_nt_next: bne s0, zero, br_t_to
            unimp
br_t_to:    li s1, 2
loop:       addi s1, s1, -1
loop_br:    bnez s1, loop
loop_next:

    .option rvc
cbr_nt:      c.beqz s0, bad_c
cbr_nt_next: c.bnez s0, cbr_t_to
             unimp
cbr_t_to:
    .option norvc

    /* Calls through ra and t0, direct and indirect, and the returns from them. */
call_ra:       jal ra, f_ret_ra
call_ra_next:  jal t0, f_ret_t0
call_t0_next:  la a1, f_ret_c
call_ind:      jalr ra, 0(a1)
call_ind_next:
    .option rvc
call_c:        c.jalr a1
call_c_next:
    .option norvc
               la ra, f_ret_ra
call_rara:     jalr ra, 0(ra)          /* rd == rs1 == ra: a call, not a swap */
call_rara_next:

    /* Jumps: direct, compressed direct, indirect (with the target's low bit cleared), compressed. */
jmp:        jal x0, jmp_to
            unimp
jmp_to:
    .option rvc
cjmp:       c.j cjmp_to
            unimp
cjmp_to:
    .option norvc
            la a1, jmp_ind_to
jmp_ind:    jalr x0, 1(a1)
            unimp
jmp_ind_to: la a1, cjmp_ind_to
    .option rvc
cjmp_ind:   c.jr a1
            unimp
cjmp_ind_to:
    .option norvc

    /* A co-routine swap there (ra <- pc + 4, to t0) and back (t0 <- pc + 4, to ra). */
            la t0, coroutine
swap:       jalr ra, 0(t0)
swap_next:

    /* Jumps that link through a register other than ra and t0. */
            la a1, other_ind_to
other_ind:  jalr a0, 0(a1)
            unimp
other_ind_to:
other_dir:  jal a0, other_dir_to
            unimp
other_dir_to:
    li a0, 0
    li a7, 93                          /* exit */
    ecall

f_ret_ra:  jalr x0, 0(ra)
f_ret_t0:  jalr x0, 0(t0)
    .option rvc
f_ret_c:   c.jr ra
    .option norvc
coroutine: jalr t0, 0(ra)
bad:       unimp
    .option rvc
bad_c:     unimp
