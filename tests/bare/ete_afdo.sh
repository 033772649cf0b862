#!/bin/bash
# AutoFDO from ETE trace (docs/ete.md, "Decoding"): tests/bare/ete_afdo.c runs under Linux's
# AutoFDO strobing (--trace-config autofdo:WINDOW,PERIOD), brisk trace-decode turns the stream
# into perf-script brstack samples, and llvm-profgen into a sample profile, which must name the
# hot functions with slow_path a tenth of hot_loop's calls. The ground truth is the same program
# under `brisk system --record FILE --record-opts '--exact -j any,hv'` (every transfer CTR records
# in M mode, docs/profiling.md): the overlap of the two (profile_overlap.py) is reported and must be
# at least MIN_OVERLAP. So is the overlap with the same run under full trace, decoded the same way.
#   ete_afdo.sh BRISK PROG FULL_CONFIG OVERLAP_PY
set -euo pipefail
(($# == 4)) || { echo "usage: $0 BRISK PROG FULL_CONFIG OVERLAP_PY" >&2; exit 2; }
BRISK=$1 PROG=$2 FULL=$3 OVERLAP=$4
PROFGEN=${LLVM_PROFGEN:-/usr/lib/llvm-19/bin/llvm-profgen}
MIN_OVERLAP=0.8
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/ete_listing.sh"
[[ -x $PROFGEN ]] || fail "no llvm-profgen at $PROFGEN (Debian package llvm-19)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

head_samples() { awk -F: -v f="$2" '$1 == f && NF == 3 { print $3 }' "$1"; }
total() { awk -F: -v f="$2" '$1 == f && NF == 3 { print $2 }' "$1"; }
# run NAME CONFIG ITRACE: trace, decode, profile.
run() {
    local name=$1 config=$2 itrace=$3
    local st=0
    "$BRISK" system --bios none -m 64M --kernel "$PROG" --trace "$WORK/$name.d" --trace-config "$config" \
        >"$WORK/$name.console" 2>&1 || st=$?
    ((st == 0)) || { cat "$WORK/$name.console" >&2; fail "$name: brisk system exited with $st"; }
    grep -q '^PASS' "$WORK/$name.console" || fail "$name: the program did not pass"
    ete_listing "$WORK/$name.d" "$WORK/$name.packets" "$name: "
    "$BRISK" trace-decode "$WORK/$name.d" --elf "$PROG" --itrace="$itrace" -o "$WORK/$name.script" \
        2>"$WORK/$name.summary" || st=$?
    ((st == 0)) || { cat "$WORK/$name.summary" >&2; fail "$name: trace-decode exited with $st"; }
    echo "$name: $(cat "$WORK/$name.summary")"
    "$PROFGEN" --binary="$PROG" --perfscript="$WORK/$name.script" --format=text --output="$WORK/$name.prof" \
        2>"$WORK/$name.profgen" || fail "$name: llvm-profgen: $(head -3 "$WORK/$name.profgen")"
    [[ -s $WORK/$name.prof ]] || fail "$name: llvm-profgen wrote an empty profile: $(head -3 "$WORK/$name.profgen")"
}
# Window 2000, period 9: a tenth of the instructions traced; a sample every 1000 of those.
run strobed autofdo:2000,9 i1000l64
run full "$FULL" i1000l64
# The exact profile holds virtual addresses: system mode has no mapping to make them offsets.
"$BRISK" system --bios none -m 64M --kernel "$PROG" --record "$WORK/exact.unsym" --record-opts '--exact -j any,hv' \
    >"$WORK/exact.console" 2>&1 || { cat "$WORK/exact.console" >&2; fail "exact: brisk system failed"; }
grep -q '^PASS' "$WORK/exact.console" || fail "exact: the program did not pass"
"$PROFGEN" --binary="$PROG" --unsymbolized-profile="$WORK/exact.unsym" --use-offset=0 --format=text \
    --output="$WORK/exact.prof" 2>"$WORK/exact.profgen" || fail "exact: llvm-profgen: $(head -3 "$WORK/exact.profgen")"
# ete_afdo.c's counts: hot_loop calls slow_path or fast_path 300000 times in all.
e_slow=$(head_samples "$WORK/exact.prof" slow_path) e_fast=$(head_samples "$WORK/exact.prof" fast_path)
((e_slow + e_fast == 300000)) || fail "the exact profile has $e_slow + $e_fast calls, not 300000"

# Each sample's branch stack is youngest first, as llvm-profgen reads it: the sample's ip lies at
# or after the youngest branch's target, and each branch at or after the target of the one before
# it (the code between ran straight), all in PROG's code. Hex compares as (length, string).
for name in strobed full; do
    awk '
        function le(a, b) { return length(a) < length(b) || (length(a) == length(b) && a <= b) }
        /^PERF_RECORD_MMAP2/ { next }
        { n++; ip = "0x" $1; prev = ip
          for (i = 2; i <= NF; i++) {
              split($i, e, "/")
              if (!le(e[2], prev)) { bad++; if (bad < 4) print "sample " n ": " e[1] "/" e[2] " is not before " prev > "/dev/stderr" }
              prev = e[1]
          } }
        END { exit bad > 0 }' "$WORK/$name.script" || fail "$name: branch stacks out of order"
done
p=$WORK/strobed.prof
for fn in hot_loop slow_path fast_path; do
    [[ -n $(total "$p" $fn) ]] || { head -40 "$p" >&2; fail "the strobed profile does not name $fn"; }
done
# slow_path is called on about 26/256 of the turns, fast_path on the rest.
slow=$(head_samples "$p" slow_path) fast=$(head_samples "$p" fast_path)
awk -v s="$slow" -v f="$fast" 'BEGIN { r = s / (s + f); exit !(r > 0.06 && r < 0.15) }' ||
    fail "slow_path has $slow head samples and fast_path $fast: not about a tenth"
for ref in exact full; do
    python3 "$OVERLAP" "$p" "$WORK/$ref.prof" >"$WORK/overlap.$ref" || fail "profile_overlap.py failed"
    echo "strobed against $ref:"
    sed 's/^/  /' "$WORK/overlap.$ref"
done
heaviest=$(awk 'NR == 3 { print $1 }' "$WORK/overlap.exact")
[[ $heaviest == hot_loop ]] || fail "the heaviest function of the strobed profile is $heaviest, not hot_loop"
! grep -q '^cold_setup ' "$WORK/overlap.exact" || awk '$1 == "cold_setup" { exit !($2 < 0.01) }' "$WORK/overlap.exact" ||
    fail "cold_setup is heavy in the strobed profile"
exact=$(awk '$1 == "overlap" { print $2 }' "$WORK/overlap.exact")
full=$(awk '$1 == "overlap" { print $2 }' "$WORK/overlap.full")
echo "report: overlap(strobed autofdo:2000,9, brisk record --exact) = $exact; with full trace $full;" \
    "slow_path $slow, fast_path $fast head samples"
for o in "$exact" "$full"; do
    awk -v o="$o" -v min=$MIN_OVERLAP 'BEGIN { exit !(o >= min) }' || fail "overlap $o < $MIN_OVERLAP"
done
echo "ok: AutoFDO from ETE trace"
