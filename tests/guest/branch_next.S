# Taken conditional branches whose target is the next instruction. Translated code leaves a block
# at every taken branch (a side exit), wherever it goes; --engine=check must see the interpreter
# leave there too, not run on through the rest of the block because the target looks like the
# fall-through.
#include "check.h"

TEST_BEGIN
    li a1, 0
    beq a1, a1, 1f          # taken, to the next instruction
1:  addi a1, a1, 1
    bne a1, zero, 2f        # taken
2:  addi a1, a1, 2
    blt zero, a1, 3f        # taken
3:  addi a1, a1, 3
    bgeu a1, zero, 4f       # taken
4:  addi a1, a1, 4
    CHECK_REG a1, 10

    # In a loop, so that translated code chains through the side exits.
    li a3, 0
    li a4, 100
    li a5, 0
5:  addi a3, a3, 1
    bne a3, a4, 6f          # taken 99 times, to the next instruction
6:  add a5, a5, a3
    bltu a3, a4, 5b
    CHECK_REG a3, 100
    CHECK_REG a5, 5050

    # Not taken, then taken, to the next instruction in both cases.
    li a6, 7
    beq a6, zero, 7f
7:  addi a6, a6, 1
    bge a6, a6, 8f
8:  addi a6, a6, 1
    CHECK_REG a6, 9
TEST_END
