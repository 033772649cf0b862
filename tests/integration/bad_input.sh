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

# expect_error DESCRIPTION PATTERN ARGS...: brisk ARGS must exit with 1 or 2 within 20 s, printing one
# line on stderr that matches PATTERN and starts with "brisk".
expect_error() {
    local what=$1 pattern=$2
    shift 2
    local rc=0
    timeout 20 "$BRISK" "$@" </dev/null >"$WORK/out" 2>"$WORK/err" || rc=$?
    ((rc == 1 || rc == 2)) || fail "$what: exit status $rc (want 1 or 2); stderr: $(cat "$WORK/err")"
    [[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "$what: want one line on stderr, got: $(cat "$WORK/err")"
    grep -Eq "^brisk.*$pattern" "$WORK/err" || fail "$what: stderr '$(cat "$WORK/err")' does not match '$pattern'"
    pass "$what: $(cat "$WORK/err")"
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
expect_error "run: unknown option" "unknown option --no-such-option" run --no-such-option x
expect_error "run: no program" "missing PROG" run
expect_error "system: missing kernel" "cannot open the kernel .*nonexistent" system --bios none --kernel "$WORK/nonexistent"
expect_error "system: bare-metal kernel that is no ELF" "neither an ELF nor a RISC-V Linux Image" system --bios none --kernel "$WORK/text"
expect_error "system: too little memory" "too little memory" system --bios none --kernel "$WORK/text" -m 8M
expect_error "system: unknown extension" "unknown extension 'foo'" system --cpu rv64,foo=on --dumpdtb "$WORK/x.dtb"
expect_error "system: missing firmware" "cannot open the firmware .*nonexistent" system --bios "$WORK/nonexistent" --kernel "$WORK/text"
expect_error "system: bad -m" "is not a size" system -m lots --bios none --kernel "$WORK/text"
