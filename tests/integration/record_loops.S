// brisk record's loops without libc (tests/integration/record_user.sh), so that every conditional
// branch the program runs is one of these, at known addresses:
// - POOR: ROUNDS rounds of ten instructions with one taken branch (the back edge), for the CTR
//   window, which opens 4 x depth instructions before a sample and so holds about depth * 4 / 10
//   of them until it doubles; with RICH, three times, between them RICH and then 8 x RICH rounds
//   of two instructions with one taken branch, where the window may shrink back;
// - else: ROUNDS rounds of a branch on a pseudo-random bit (xorshift64 from SEED) and the loop
//   branch, as tests/bare/pmu_misses.c runs them, for branch-misses against a model of brisk's
//   predictor.
// Exit status 0; with FAULT, a load from address 0 after the loops ends the program instead.
    .text
    .option norvc
    .globl _start, loop_branch, bit_branch
_start:
#ifdef RICH
    li a2, 0  // rich loops run
0:
#endif
    li a1, ROUNDS
#ifdef POOR
1:  addi t0, t0, 1
    addi t0, t0, 1
    addi t0, t0, 1
    addi t0, t0, 1
    addi t0, t0, 1
    addi t0, t0, 1
    addi t0, t0, 1
    addi t0, t0, 1
    addi a1, a1, -1
loop_branch:
    bnez a1, 1b
#ifdef RICH
    li t1, 2
    beq a2, t1, 3f
    slli t1, a2, 1
    add t1, t1, a2
    li a1, RICH
    sll a1, a1, t1  // RICH << 3 * a2 rounds
2:  addi a1, a1, -1
    bnez a1, 2b
    addi a2, a2, 1
    j 0b
3:
#endif
#else
    li t1, SEED
1:  slli t0, t1, 13
    xor t1, t1, t0
    srli t0, t1, 7
    xor t1, t1, t0
    slli t0, t1, 17
    xor t1, t1, t0
    andi t0, t1, 1
bit_branch:
    beqz t0, 2f
    addi t2, t2, 1
2:  addi a1, a1, -1
loop_branch:
    bnez a1, 1b
#endif
#ifdef FAULT
    ld a0, 0(zero)
#endif
    li a0, 0
    li a7, 93
    ecall
