#!/usr/bin/env python3
"""Writes small riscv64 ELF files into DIR for the integration tests: programs that spin, count or
wait for input (for --timeout and --max-insns), and broken ones, one per check of brisk's loaders.

    make_elf.py DIR

The crafted files are described in CASES below; each is one PT_LOAD (or a few) around a handful
of hand-encoded instructions, so that no cross toolchain is needed.
"""
import struct
import sys

PT_LOAD, PT_INTERP = 1, 3
PF_X, PF_W, PF_R = 1, 2, 4
ET_EXEC, ET_DYN = 2, 3
EM_RISCV = 243
PAGE = 0x1000


def addi(rd, rs1, imm):
    return (imm & 0xfff) << 20 | rs1 << 15 | rd << 7 | 0x13


def jal(rd, off):
    imm = off & 0x1fffff
    return ((imm >> 20) & 1) << 31 | ((imm >> 1) & 0x3ff) << 21 | ((imm >> 11) & 1) << 20 | \
        ((imm >> 12) & 0xff) << 12 | rd << 7 | 0x6f


ECALL = 0x73
WFI = 0x10500073
A0, A1, A2, A7, SP = 10, 11, 12, 17, 2

# j . : the guest that never ends.
SPIN = [jal(0, 0)]
# a0 = 0, then forever: seven addi and a jump back (a block of eight instructions, so that a
# --max-insns stop can fall inside a translated block).
COUNT = [addi(A0, 0, 0)] + [addi(A0, A0, 1)] * 7 + [jal(0, -28)]
# wfi forever, with no interrupt enabled: the machine idles.
WFI_LOOP = [WFI, jal(0, -4)]
# read(0, sp, 1), then spin: blocks while stdin has no data.
READ_STDIN = [addi(A7, 0, 63), addi(A0, 0, 0), addi(A1, SP, 0), addi(A2, 0, 1), ECALL] + SPIN
# acct(0) twice, a system call brisk does not implement, then exit(a0 of the second, -ENOSYS = -38).
ACCT_TWICE = [addi(A7, 0, 89), addi(A0, 0, 0), ECALL, addi(A0, 0, 0), ECALL, addi(A7, 0, 93), ECALL]


def code(insns):
    return b"".join(struct.pack("<I", i) for i in insns)


def elf(segments, entry, e_type=ET_EXEC, phentsize=56, phoff=64, phnum=None, body=b"", size=None):
    """segments: (p_type, flags, offset, vaddr, filesz, memsz) with p_paddr = p_vaddr; body goes at
    file offset PAGE."""
    phnum = len(segments) if phnum is None else phnum
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", e_type, EM_RISCV, 1, entry, phoff, 0, 0, 64, phentsize,
                                 phnum, 64, 0, 0)
    phdrs = b"".join(struct.pack("<IIQQQQQQ", t, f, off, va, va, fs, ms, PAGE) for t, f, off, va, fs, ms in segments)
    out = bytearray(header + phdrs)
    out += bytes(max(0, PAGE - len(out)))
    out[PAGE:PAGE + len(body)] = body
    if size is not None:
        out = out[:size] + bytes(max(0, size - len(out)))
    return bytes(out)


def elf32(segments, entry, phentsize=32, body=b""):
    """An ELFCLASS32 (RV32) image: segments as for elf(), the body at file offset PAGE."""
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIIIIIHHHHHH", ET_EXEC, EM_RISCV, 1, entry, 52, 0, 0, 52, phentsize,
                                 len(segments), 40, 0, 0)
    phdrs = b"".join(struct.pack("<IIIIIIII", t, off, va, va, fs, ms, f, PAGE) for t, f, off, va, fs, ms in segments)
    out = bytearray(header + phdrs)
    out += bytes(max(0, PAGE - len(out)))
    out[PAGE:PAGE + len(body)] = body
    return bytes(out)


def program(insns, base=0x11000, interp=None):
    """A runnable program: one RX segment at `base` holding the code, the entry point."""
    body = code(insns)
    segs = []
    if interp is not None:
        text = interp + b"\0"
        body = body.ljust(0x100, b"\0") + text
        segs.append((PT_INTERP, PF_R, PAGE + 0x100, base + 0x100, len(text), len(text)))
    segs.insert(0, (PT_LOAD, PF_R | PF_X, PAGE, base, len(body), len(body)))
    return elf(segs, base, body=body)


def broken(segments, **kw):
    return elf(segments, 0x11000, body=code(SPIN), **kw)


RX = PF_R | PF_X


def cases(workdir):
    ok = (PT_LOAD, RX, 0, 0x10000, 0x1004, 0x1004)
    return {
        # Runnable: user mode at 0x11000, bare metal (system --bios none) at the start of RAM.
        "spin": program(SPIN),
        "count": program(COUNT),
        "read-stdin": program(READ_STDIN),
        "acct-twice": program(ACCT_TWICE),
        "bare-spin": program(SPIN, base=0x80000000),
        "bare-count": program(COUNT, base=0x80000000),
        "bare-wfi": program(WFI_LOOP, base=0x80000000),
        # The program header table and the segments against the file.
        "phentsize": broken([ok], phentsize=32),
        "phoff-outside": broken([ok], phoff=0x100000),
        "phnum-outside": broken([ok], phnum=1000),
        "segment-outside": broken([(PT_LOAD, RX, 0, 0x10000, 0x100000, 0x100000)]),
        "filesz-over-memsz": broken([(PT_LOAD, RX, 0, 0x10000, 0x1004, 0x10)]),
        # Addresses at the top of the address space: the end wraps, or only its page rounding does.
        "vaddr-wraps": broken([(PT_LOAD, RX, 0, 0xfffffffffffff000, 0x1004, 0x2000)]),
        "page-wraps": broken([(PT_LOAD, RX, PAGE, 0xfffffffffffff000, 0x4, 0xfff)]),
        # Segments out of order, or overlapping.
        "unsorted": broken([(PT_LOAD, RX, 0, 0x20000, 0x1004, 0x1004), ok]),
        "overlapping": broken([ok, (PT_LOAD, PF_R | PF_W, 0, 0x10800, 0x1004, 0x1004)]),
        # A bss larger than the guest address space, and one larger than any host would back.
        "huge-memsz": broken([(PT_LOAD, RX, 0, 0x10000, 0x1004, 1 << 60)]),
        "giant-memsz": broken([(PT_LOAD, RX, 0, 0x10000, 0x1004, 0x3f00000000)]),
        # RV32 (ELFCLASS32) images for brisk system --cpu rv32: one that runs, and broken ones.
        "rv32-bare-spin": elf32([(PT_LOAD, RX, PAGE, 0x80000000, 4, 4)], 0x80000000, body=code(SPIN)),
        "rv32-phentsize": elf32([(PT_LOAD, RX, PAGE, 0x80000000, 4, 4)], 0x80000000, phentsize=56,
                                body=code(SPIN)),
        "rv32-vaddr-wraps": elf32([(PT_LOAD, RX, PAGE, 0xfffff000, 4, 0x2000)], 0xfffff000, body=code(SPIN)),
        "rv32-segment-outside": elf32([(PT_LOAD, RX, PAGE, 0x80000000, 0x100000, 0x100000)], 0x80000000),
        "rv32-outside-ram": elf32([(PT_LOAD, RX, PAGE, 0x10000, 4, 4)], 0x10000, body=code(SPIN)),
        # PT_INTERP naming a FIFO, and one with a terminal escape in it.
        "interp-fifo": program(SPIN, interp=(workdir + "/fifo").encode()),
        "interp-escape": program(SPIN, interp=b"/lib/ld-\x1b[31mred.so"),
    }


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, data in cases(sys.argv[1]).items():
        with open(f"{sys.argv[1]}/{name}", "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
