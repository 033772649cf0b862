/* Exit for the system-mode regression programs: a0 = 0 passes. HTIF's tohost for brisk, then the
 * sifive_test finisher. */
    .macro exit_a0
    slli a0, a0, 1
    ori a0, a0, 1
    lla t0, tohost
    sd a0, 0(t0)
    li t0, 0x100000
    li t1, 0x5555
    sw t1, 0(t0)
1:  j 1b
    .endm

    .macro tohost_section
    .section .tohost, "aw", @progbits
    .balign 64
    .globl tohost
tohost: .dword 0
    .balign 64
    .globl fromhost
fromhost: .dword 0
    .endm
