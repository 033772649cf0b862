#!/usr/bin/env bash
# Bad input gets one clear line naming the problem and a non-zero exit, never a crash or a hang:
#   bad_input.sh BRISK
set -uo pipefail
# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"
(($# == 1)) || { echo "usage: $0 BRISK" >&2; exit 2; }
BRISK=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# expect_error DESCRIPTION PATTERN ARGS...: brisk ARGS must exit with status 1 (2 for a command line
# that does not parse: expect_usage) within 20 s, printing one line on stderr that matches PATTERN
# and starts with "brisk".
want=1
expect_error() {
    local what=$1 pattern=$2
    shift 2
    local rc=0
    timeout 20 "$BRISK" "$@" </dev/null >"$WORK/out" 2>"$WORK/err" || rc=$?
    ((rc == want)) || fail "$what: exit status $rc (want $want); stderr: $(cat "$WORK/err")"
    [[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "$what: want one line on stderr, got: $(cat "$WORK/err")"
    grep -Eq "^brisk.*$pattern" "$WORK/err" || fail "$what: stderr '$(cat "$WORK/err")' does not match '$pattern'"
    pass "$what: $(cat "$WORK/err")"
}
expect_usage() {
    want=2
    expect_error "$@"
    want=1
}

printf 'not an elf\n' >"$WORK/text"
head -c 200 /bin/true >"$WORK/truncated"               # an x86-64 ELF cut short
# A riscv64 ELF whose program headers point past its end.
printf '\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xf3\x00\x01\x00\x00\x00' >"$WORK/rv-trunc"
head -c 40 /dev/zero >>"$WORK/rv-trunc"

expect_error "run: missing program" "cannot open .*nonexistent" run "$WORK/nonexistent"
expect_error "run: not an ELF" "is not an ELF file" run "$WORK/text"
expect_error "run: another machine" "not RISC-V" run /bin/true
expect_error "run: truncated ELF" "truncated|corrupt|not an ELF|not RISC-V" run "$WORK/truncated"
expect_error "run: corrupt riscv64 ELF" "corrupt|truncated" run "$WORK/rv-trunc"
expect_usage "run: unknown option" "unknown option --no-such-option" run --no-such-option x
expect_usage "run: no program" "missing PROG" run
expect_usage "run: --jit-threshold out of range" " run: --jit-threshold: Value 16 not in range 0 to 15 \\(see brisk run --help\\)$" \
    run --jit-threshold 16 "$WORK/text"
expect_usage "system: --jit-regs not a number" " system: .*--jit-regs.* \\(see brisk system --help\\)$" \
    system --jit-regs x --kernel "$WORK/text"
expect_error "system: missing kernel" "cannot open the kernel .*nonexistent" system --bios none --kernel "$WORK/nonexistent"
expect_error "system: bare-metal kernel that is no ELF" "neither an ELF nor a RISC-V Linux Image" system --bios none --kernel "$WORK/text"
expect_error "system: too little memory" "too little memory" system --bios none --kernel "$WORK/text" -m 8M
expect_error "system: unknown extension" "unknown extension 'foo'" system --cpu rv64,foo=on --dumpdtb "$WORK/x.dtb"
expect_error "system: ETE size out of range" "ete-rspairs=99 must be a number from 1 to 16" \
    system --cpu rv64,ete-rspairs=99 --dumpdtb "$WORK/x.dtb"
expect_error "system: missing firmware" "cannot open the firmware .*nonexistent" \
    system --bios "$WORK/nonexistent" --kernel "$WORK/text"
expect_error "system: bad -m" "is not a size" system -m lots --bios none --kernel "$WORK/text"
expect_error "system: --smp-threads neither 1 nor the harts" "--smp-threads must be 1 or the number of harts \\(2\\)" \
    system --smp 2 --smp-threads=3 --bios none --kernel "$WORK/text"
expect_error "system: hart threads with --ctr-dump" "--ctr-dump runs the harts on one host thread: it needs --smp-threads=1" \
    system --smp 2 --smp-threads=2 --ctr --ctr-dump="$WORK/x.ctr" --bios none --kernel "$WORK/text"
expect_error "system: hart threads with --record" "--record runs the harts on one host thread: it needs --smp-threads=1" \
    system --smp 2 --smp-threads=2 --record "$WORK/x.data" --bios none --kernel "$WORK/text"
expect_error "system: hart threads for the lockstep checker" "--engine=check runs the harts on one host thread: it needs --smp-threads=1" \
    system --smp 2 --smp-threads=2 --engine=check --bios none --kernel "$WORK/text"
# --trace and its options (docs/ete.md, "Command line").
expect_error "system: --trace into a file" "--trace: .*/text is not a writable directory" \
    system --bios none --kernel "$WORK/text" --trace "$WORK/text"
expect_error "system: --trace-config without --trace" "--trace-config needs --trace DIR" \
    system --bios none --kernel "$WORK/text" --trace-config autofdo
expect_error "system: bad autofdo window" "autofdo: window 0 and period 3 must be 1 to 65535" \
    system --bios none --kernel "$WORK/text" --trace "$WORK/trace" --trace-config autofdo:0,3
expect_error "system: unknown --trace-opts" "--trace-opts: unknown option 'bogus'" \
    system --bios none --kernel "$WORK/text" --trace "$WORK/trace" --trace-config autofdo --trace-opts bogus
expect_error "system: --trace-opts without --trace-config" "--trace-opts needs --trace-config" \
    system --bios none --kernel "$WORK/text" --trace "$WORK/trace" --trace-opts cycles
printf 'TRCFOO = 1\n' >"$WORK/bad.cfg"
expect_error "system: unknown register in --trace-config" "bad.cfg:1: 'TRCFOO' is no programmable ETE register" \
    system --bios none --kernel "$WORK/text" --trace "$WORK/trace" --trace-config "$WORK/bad.cfg"

# Files that are not regular files, given as each thing brisk loads: refused in one line, never a
# block in open() or read() on a FIFO, never an endless read of a device.
python3 "$(dirname "${BASH_SOURCE[0]}")/make_elf.py" "$WORK" || fail "make_elf.py failed"
mkfifo "$WORK/fifo"
expect_error "run: FIFO as the program" "the program .*/fifo is a FIFO, not a regular file" run "$WORK/fifo"
expect_error "run: FIFO as PT_INTERP" "the interpreter .*/fifo is a FIFO, not a regular file" run "$WORK/interp-fifo"
expect_error "run: /dev/null as the program" "the program /dev/null is a character device" run /dev/null
expect_error "run: a directory as the program" "the program .* is a directory" run "$WORK"
expect_error "system: FIFO as --kernel" "the kernel .*/fifo is a FIFO" system --bios none --kernel "$WORK/fifo"
expect_error "system: FIFO as --bios" "the firmware .*/fifo is a FIFO" \
    system --bios "$WORK/fifo" --kernel "$WORK/bare-spin"
expect_error "system: FIFO as --initrd" "the initrd .*/fifo is a FIFO" \
    system --bios none --kernel "$WORK/bare-spin" --initrd "$WORK/fifo"
expect_error "system: /dev/zero as --initrd" "the initrd /dev/zero is a character device" \
    system --bios none --kernel "$WORK/bare-spin" --initrd /dev/zero
# Empty images, and images larger than RAM (sparse files: nothing is written).
: >"$WORK/empty"
truncate -s 65M "$WORK/big"
expect_error "system: empty --kernel" "the kernel .*/empty is empty" system --bios none --kernel "$WORK/empty"
expect_error "system: empty --initrd" "the initrd .*/empty is empty" \
    system --bios none --kernel "$WORK/bare-spin" --initrd "$WORK/empty"
expect_error "system: empty --bios" "the firmware .*/empty is empty" system --bios "$WORK/empty" --kernel "$WORK/bare-spin"
expect_error "system: --kernel larger than RAM" "the kernel .*/big \(65 MiB\) is larger than RAM; try a larger -m" \
    system --bios none -m 64M --kernel "$WORK/big"
expect_error "system: --initrd larger than RAM" "the initrd .*/big \(65 MiB\) is larger than RAM; try a larger -m" \
    system --bios none -m 64M --kernel "$WORK/bare-spin" --initrd "$WORK/big"
expect_error "system: a directory as --kernel" "the kernel .* is a directory" system --bios none --kernel "$WORK"
expect_error "system: a directory as --bios" "the firmware .* is a directory" \
    system --bios "$WORK" --kernel "$WORK/bare-spin"
expect_error "system: /dev/null as --bios" "the firmware /dev/null is a character device" \
    system --bios /dev/null --kernel "$WORK/bare-spin"

# Crafted ELFs, one per loader check (make_elf.py says what each one is).
expect_error "run: e_phentsize" "corrupt ELF: e_phentsize is 32, not 56" run "$WORK/phentsize"
# RV32 images: every ELFCLASS32 field checked as the 64-bit ones are, against a 32-bit address space.
expect_error "system rv32: e_phentsize" "corrupt ELF: e_phentsize is 56, not 32" \
    system --cpu rv32 --bios none --kernel "$WORK/rv32-phentsize"
expect_error "system rv32: segment wraps at 4 GiB" "segment 0 .* reaches the end of the address space" \
    system --cpu rv32 --bios none --kernel "$WORK/rv32-vaddr-wraps"
expect_error "system rv32: segment outside the file" "truncated or corrupt: segment 0" \
    system --cpu rv32 --bios none --kernel "$WORK/rv32-segment-outside"
expect_error "system rv32: segment outside RAM" "segment at 0x10000..0x10004 is outside RAM" \
    system --cpu rv32 --bios none --kernel "$WORK/rv32-outside-ram"
expect_error "system rv32: an RV32 image on RV64 harts" "is an RV32 image, but the harts are RV64" \
    system --bios none --kernel "$WORK/rv32-bare-spin"
expect_error "run: an RV32 image" "is a 32-bit \(RV32\) ELF; brisk run runs riscv64 programs" run "$WORK/rv32-bare-spin"
rc=0
timeout 20 "$BRISK" system --cpu rv32 --bios none --max-insns 1000 --kernel "$WORK/rv32-bare-spin" 2>/dev/null || rc=$?
((rc == 125)) || fail "system rv32: a good RV32 image: exit status $rc (want 125, --max-insns)"
pass "system rv32: a good RV32 image runs to --max-insns"
expect_error "run: e_phoff past the end" "program headers at offset 0x100000 run past the end of the file" \
    run "$WORK/phoff-outside"
expect_error "run: e_phnum past the end" "1000 program headers at offset 0x40 run past the end of the file" \
    run "$WORK/phnum-outside"
expect_error "run: p_offset + p_filesz past the end" "segment 0 .* lies outside the file" run "$WORK/segment-outside"
expect_error "run: p_filesz > p_memsz" "p_filesz 0x1004 larger than p_memsz 0x10" run "$WORK/filesz-over-memsz"
expect_error "run: p_vaddr + p_memsz wraps" "segment 0 .* reaches the end of the address space" run "$WORK/vaddr-wraps"
expect_error "run: the page rounding of the end wraps" "\(0xfff bytes at 0xfffffffffffff000\) reaches the end" \
    run "$WORK/page-wraps"
expect_error "run: unsorted segments" "segment 1 at 0x10000 overlaps or comes before" run "$WORK/unsorted"
expect_error "run: overlapping segments" "segment 1 at 0x10800 overlaps or comes before" run "$WORK/overlapping"
expect_error "run: p_memsz beyond the guest space" "do not fit the guest address space" run "$WORK/huge-memsz"
expect_error "run: p_memsz no host backs" "cannot map 0x3f00000000 bytes" run "$WORK/giant-memsz"
expect_error "system: wrapping segment in --kernel" "reaches the end of the address space" \
    system --bios none --kernel "$WORK/vaddr-wraps"
expect_error "system: p_memsz beyond RAM in --kernel" "outside RAM" system --bios none --kernel "$WORK/huge-memsz"
# A PT_INTERP with a terminal escape is shown escaped: no raw control byte reaches the terminal.
expect_error "run: PT_INTERP with an escape" 'interpreter /lib/ld-\\x1b\[31mred\.so, which is missing' \
    run "$WORK/interp-escape"
! grep -q $'\x1b' "$WORK/err" || fail "run: PT_INTERP with an escape: a raw ESC reached stderr"

# --timeout and --max-insns take positive numbers.
for bad in 0 -1 abc 1e3 ""; do
    expect_error "run: --timeout '$bad'" "--timeout: '$bad' is not a positive number of seconds" \
        run --timeout "$bad" "$WORK/spin"
done
for bad in 0 -5 12x 99999999999999999999; do
    expect_error "system: --max-insns '$bad'" "--max-insns: '$bad' is not a positive number of instructions" \
        system --max-insns "$bad" --bios none --kernel "$WORK/bare-spin"
done
expect_error "run: --timeout with --engine check" "need --engine jit or interp" \
    run --engine check --timeout 5 "$WORK/spin"

# -M snitch (docs/snitch.md): its ELF checks and the options that are virt's.
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[24:32] = (0x10000000).to_bytes(8, "little"); open(sys.argv[2], "wb").write(d)' \
    "$WORK/bare-spin" "$WORK/entry-tcdm"
expect_error "snitch: no --kernel" "-M snitch needs --kernel PROG.elf" system -M snitch
# The crafted ELFs are ELF64: RV64 harts take them, the default RV32 ones refuse them.
expect_error "snitch: an RV64 image" "bare-spin is an RV64 image, but the harts are RV32 \\(--cpu rv32\\)" \
    system -M snitch --kernel "$WORK/bare-spin"
expect_error "snitch: p_memsz beyond memory" "outside the TCDM .* and DRAM" system -M snitch --cpu rv64 --kernel "$WORK/huge-memsz"
expect_error "snitch: entry outside DRAM" "the entry point 0x10000000 is not in DRAM" \
    system -M snitch --cpu rv64 --kernel "$WORK/entry-tcdm"
expect_error "snitch: --smp" "-M snitch has 9 harts: --smp is virt's" system -M snitch --smp 2 --kernel "$WORK/bare-spin"
expect_error "snitch: --engine=jit" "runs in cycle order on the interpreter: --engine=jit needs --quantum N" \
    system -M snitch --engine=jit --kernel "$WORK/bare-spin"
expect_error "snitch: --engine=check" "or in quantum mode with --engine=jit: --engine=check is not available" \
    system -M snitch --engine=check --quantum 8 --kernel "$WORK/bare-spin"
expect_error "snitch: -m 1001K" "at least 1 MiB of DRAM in whole 4 KiB pages \\(-m 1025024 bytes\\)" \
    system -M snitch -m 1001K --kernel "$WORK/bare-spin"
expect_error "snitch: -m 2G" "at most 2047 MiB of DRAM, up to the CLINT \\(-m 2048 MiB\\)" \
    system -M snitch -m 2G --kernel "$WORK/bare-spin"
expect_error "snitch: --bios" "--bios, --initrd, --append and --dumpdtb are virt's" \
    system -M snitch --bios none --kernel "$WORK/bare-spin"
