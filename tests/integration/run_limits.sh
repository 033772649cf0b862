#!/usr/bin/env bash
# --timeout and --max-insns stop a guest that never finishes, in user mode and system mode, with one
# line and their own exit status (124, 125). The guests are crafted by make_elf.py:
#   run_limits.sh BRISK ENGINE
set -uo pipefail
# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"
(($# == 2)) || { echo "usage: $0 BRISK ENGINE" >&2; exit 2; }
BRISK=$1
ENGINE=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 "$(dirname "${BASH_SOURCE[0]}")/make_elf.py" "$WORK" || fail "make_elf.py failed"

# expect_stop DESCRIPTION STATUS PATTERN ARGS...: brisk ARGS must exit with STATUS (a hang is cut
# off by timeout(1) after 120 s, which is no pass) and print a first stderr line matching PATTERN.
expect_stop() {
    local what=$1 want=$2 pattern=$3
    shift 3
    local rc=0
    timeout -k 5 120 "$BRISK" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
    ((rc == want)) || fail "$what: exit status $rc (want $want); stderr: $(cat "$WORK/err")"
    local first
    first=$(head -1 "$WORK/err")
    [[ $first =~ $pattern ]] || fail "$what: stderr '$first' does not match '$pattern'"
    pass "$what: $first"
}

run=(run --engine="$ENGINE")
system=(system --engine="$ENGINE" --bios none)

# --timeout: a spin in translated code (one block chained to itself), a guest blocked in read(2) on
# a pipe that never delivers (fd 3 holds its write end open), and a bare-metal spin and WFI loop.
expect_stop "run: --timeout stops a spin" 124 \
    '^brisk: stopped: --timeout 1 s reached at pc 0x11000, [0-9]+ instructions$' "${run[@]}" --timeout 1 "$WORK/spin"
mkfifo "$WORK/pipe"
exec 3<>"$WORK/pipe"
expect_stop "run: --timeout stops a read from stdin" 124 \
    '^brisk: stopped: --timeout 0.5 s reached at pc 0x11014, 5 instructions$' \
    "${run[@]}" --timeout 0.5 "$WORK/read-stdin" <"$WORK/pipe"
exec 3>&-
expect_stop "system: --timeout stops a bare-metal spin" 124 \
    '^brisk: stopped: --timeout 1 s reached at pc 0x80000000, [0-9]+ instructions$' \
    "${system[@]}" --timeout 1 --kernel "$WORK/bare-spin"
expect_stop "system: --timeout stops a hart waiting in wfi" 124 \
    '^brisk: stopped: --timeout 1 s reached at pc 0x8000000[04], [0-9]+ instructions$' \
    "${system[@]}" --timeout 1 --kernel "$WORK/bare-wfi"

# --max-insns: exactly N instructions. The count guest is li a0, 0 then a loop of seven addi and a
# jump (a block of eight), so after N instructions the pc is start + 4 + 4 * ((N - 1) mod 8); --stats
# must agree on N. The values put the stop before, inside and at the end of a translated block.
for n in 1 2 9 1000 123461; do
    pc=$(printf '%x' $((4 + 4 * ((n - 1) % 8))))
    for mode in run system; do
        if [[ $mode == run ]]; then
            args=("${run[@]}" --max-insns "$n" --stats "$WORK/count")
            at=0x$(printf '%x' $((0x11000 + 0x$pc)))
        else
            args=("${system[@]}" --max-insns "$n" --stats --kernel "$WORK/bare-count")
            at=0x$(printf '%x' $((0x80000000 + 0x$pc)))
        fi
        expect_stop "$mode: --max-insns $n" 125 "^brisk: stopped: --max-insns $n reached at pc $at, $n instructions\$" \
            "${args[@]}"
        grep -q "^brisk: $n instructions in " "$WORK/err" \
            || fail "$mode: --max-insns $n: --stats says $(cat "$WORK/err")"
    done
done

# Two harts on host threads (-smp 2; both run the same guest): the limits stop both, whether they
# spin or sleep in WFI. --max-insns is shared out between harts that run at once, so the count may
# pass it by part of a share; with the harts in turns (--smp-threads=1) it is exact.
expect_stop "system -smp 2: --timeout stops two spinning harts" 124 \
    '^brisk: stopped: --timeout 1 s reached at pc 0x80000000, [0-9]+ instructions$' \
    "${system[@]}" --smp 2 --timeout 1 --kernel "$WORK/bare-spin"
expect_stop "system -smp 2: --timeout stops two harts waiting in wfi" 124 \
    '^brisk: stopped: --timeout 1 s reached at pc 0x8000000[04], [0-9]+ instructions$' \
    "${system[@]}" --smp 2 --timeout 1 --kernel "$WORK/bare-wfi"
expect_stop "system -smp 2: --max-insns 1000000" 125 \
    '^brisk: stopped: --max-insns 1000000 reached at pc 0x800000[0-9a-f]{2}, [0-9]+ instructions$' \
    "${system[@]}" --smp 2 --max-insns 1000000 --stats --kernel "$WORK/bare-count"
insns=$(sed -n 's/^brisk: \([0-9]*\) instructions in .*/\1/p' "$WORK/err")
((insns >= 1000000 && insns < 2000000)) || fail "system -smp 2: --max-insns 1000000: --stats says $(cat "$WORK/err")"
pass "system -smp 2: --max-insns 1000000 retired $insns"
expect_stop "system -smp 2 --smp-threads=1: --max-insns 123461" 125 \
    '^brisk: stopped: --max-insns 123461 reached at pc 0x800000[0-9a-f]{2}, 123461 instructions$' \
    "${system[@]}" --smp 2 --smp-threads=1 --max-insns 123461 --stats --kernel "$WORK/bare-count"
grep -q "^brisk: 123461 instructions in " "$WORK/err" \
    || fail "system -smp 2 --smp-threads=1: --max-insns 123461: --stats says $(cat "$WORK/err")"
