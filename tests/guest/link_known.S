# A direct exit to a block translated before it is linked all the same (jit/x64/translator.cpp,
# Trampolines::link). The blocks: _start (li, jump to `test`), `test` (a side exit to `again`, then
# exit), `again` (addi, jump to `test`). `again`'s exit first runs when `test` is already translated
# and in the lookup table; the exec loop must link it too, so that --stats counts three links.
    .text
    .globl _start
_start:
    li s0, 1000
    j test
again:
    addi s0, s0, -1
    j test
test:
    bnez s0, again
    li a0, 0
    li a7, 93
    ecall
