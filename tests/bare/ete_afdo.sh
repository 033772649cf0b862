#!/bin/bash
# AutoFDO from ETE trace (docs/ete.md, "Decoding"): tests/bare/ete_afdo.c runs under Linux's
# AutoFDO strobing (--trace-config autofdo:WINDOW,PERIOD), brisk trace-decode turns the stream
# into perf-script brstack samples, and llvm-profgen into a sample profile, which must name the
# hot functions with slow_path a tenth of hot_loop's calls. The same run under full trace,
# decoded the same way, is the reference: the overlap of the two (profile_overlap.py) is reported
# and must be at least MIN_OVERLAP.
#   ete_afdo.sh BRISK PROG FULL_CONFIG OVERLAP_PY
set -euo pipefail
(($# == 4)) || { echo "usage: $0 BRISK PROG FULL_CONFIG OVERLAP_PY" >&2; exit 2; }
BRISK=$1 PROG=$2 FULL=$3 OVERLAP=$4
PROFGEN=${LLVM_PROFGEN:-/usr/lib/llvm-19/bin/llvm-profgen}
MIN_OVERLAP=0.8
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -x $PROFGEN ]] || fail "no llvm-profgen at $PROFGEN (Debian package llvm-19)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# run NAME CONFIG ITRACE: trace, decode, profile.
run() {
    local name=$1 config=$2 itrace=$3
    local st=0
    "$BRISK" system --bios none -m 64M --kernel "$PROG" --trace "$WORK/$name.d" --trace-config "$config" \
        >"$WORK/$name.console" 2>&1 || st=$?
    ((st == 0)) || { cat "$WORK/$name.console" >&2; fail "$name: brisk system exited with $st"; }
    grep -q '^PASS' "$WORK/$name.console" || fail "$name: the program did not pass"
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
head_samples() { awk -F: -v f="$2" '$1 == f && NF == 3 { print $3 }' "$1"; }
total() { awk -F: -v f="$2" '$1 == f && NF == 3 { print $2 }' "$1"; }
p=$WORK/strobed.prof
for fn in hot_loop slow_path fast_path; do
    [[ -n $(total "$p" $fn) ]] || { head -40 "$p" >&2; fail "the strobed profile does not name $fn"; }
done
# slow_path is called on about 26/256 of the turns, fast_path on the rest.
slow=$(head_samples "$p" slow_path) fast=$(head_samples "$p" fast_path)
awk -v s="$slow" -v f="$fast" 'BEGIN { r = s / (s + f); exit !(r > 0.06 && r < 0.15) }' ||
    fail "slow_path has $slow head samples and fast_path $fast: not about a tenth"
python3 "$OVERLAP" "$p" "$WORK/full.prof" >"$WORK/overlap" || fail "profile_overlap.py failed"
sed 's/^/  /' "$WORK/overlap"
heaviest=$(awk 'NR == 3 { print $1 }' "$WORK/overlap")
[[ $heaviest == hot_loop ]] || fail "the heaviest function of the strobed profile is $heaviest, not hot_loop"
! grep -q '^cold_setup ' "$WORK/overlap" || awk '$1 == "cold_setup" { exit !($2 < 0.01) }' "$WORK/overlap" ||
    fail "cold_setup is heavy in the strobed profile"
overlap=$(awk '$1 == "overlap" { print $2 }' "$WORK/overlap")
echo "report: overlap(strobed autofdo:2000,9, full trace) = $overlap; slow_path $slow, fast_path $fast head samples"
awk -v o="$overlap" -v min=$MIN_OVERLAP 'BEGIN { exit !(o >= min) }' || fail "overlap $overlap < $MIN_OVERLAP"
echo "ok: AutoFDO from ETE trace"
