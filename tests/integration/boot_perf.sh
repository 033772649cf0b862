#!/usr/bin/env bash
# README's first command, scripts/boot-perf, as it is: its setup, build and fetch steps find
# everything done (installed packages, this build directory, the cached images), and it must boot
# Linux, print perf stat's four counts and perf record's sample count and perf report's hot_loop,
# and exit 0. The counts are checked as tests/integration/perf_linux.sh checks its own run's.
#   boot_perf.sh BUILD_DIR
# BOOT_PERF_TIMEOUT (seconds, default 300) bounds the script.
set -uo pipefail
# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"
(($# == 1)) || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd) || fail "no build directory $1"
[[ -f $BUILD/CMakeCache.txt && -x $BUILD/brisk ]] || fail "$BUILD is not a configured build with brisk in it"
SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
console=$WORK/out
PERIOD=100000  # scripts/boot-perf's perf record -c

status=0
BRISK_BUILD_DIR=$BUILD timeout -k 10 "${BOOT_PERF_TIMEOUT:-300}" "$SCRIPTS/boot-perf" </dev/null 2>&1 |
    tr -d '\r' >"$console" || status=$?
((status == 0)) || { show_console; fail "scripts/boot-perf exited with status $status"; }
grep -q '^setup: all [0-9]* packages are installed$' "$console" || { show_console; fail "scripts/setup was not a no-op"; }
grep -q '^== done ([0-9]* s)$' "$console" || { show_console; fail "no '== done' line"; }
pass "scripts/boot-perf ran every step and exited 0"

# perf stat's lines: "    91082158      cycles", "    91077307      instructions   #    1.00  insn per cycle".
declare -A count
for ev in cycles instructions branches branch-misses; do
    v=$(sed -n "s/^ *\([0-9][0-9,.]*\) *$ev\( .*\)\{0,1\}\$/\1/p" "$console" | head -1)
    v=${v//[,.]/}
    [[ $v =~ ^[0-9]+$ ]] || { show_console; fail "perf stat printed no count for $ev"; }
    count[$ev]=$v
done
pass "perf stat: cycles ${count[cycles]}, instructions ${count[instructions]}, branches ${count[branches]}, branch-misses ${count[branch-misses]}"
grep -Eq "^ *[0-9,.]+ +instructions +# +1\.00 +insn per cycle" "$console" || { show_console; fail "IPC is not 1.00"; }
# within A B PERCENT: |A - B| <= PERCENT% of B.
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= p * b) }'; }
within "${count[cycles]}" "${count[instructions]}" 0.1 || fail "cycles ${count[cycles]} not within 0.1% of instructions"
# The workload's own line gives its rounds: hot_loop retires one branch a round, branchy_loop at least
# rounds/8 + 1; both runs print it.
[[ $(grep -c '^brisk-workload: hot_loop rounds=' "$console") == 2 ]] || { show_console; fail "the workload did not run twice"; }
rounds=$(sed -n 's/^brisk-workload: hot_loop rounds=\([0-9]*\) .*/\1/p' "$console" | head -1)
insns=$(sed -n 's/^brisk-workload: .* insns=\([0-9]*\) .*/\1/p' "$console" | head -1)
((count[branches] >= rounds + rounds / 8 + 1)) || fail "branches ${count[branches]} < the workload's $((rounds + rounds / 8 + 1))"
((count[instructions] > insns)) || fail "instructions ${count[instructions]} <= hot_loop's own $insns"
((count[branch-misses] > 0 && count[branch-misses] < count[branches])) || fail "branch-misses ${count[branch-misses]}"
pass "IPC 1.00, cycles = instructions within 0.1%, branches >= $((rounds + rounds / 8 + 1)), 0 < branch-misses < branches"

# perf record: one sample per $PERIOD instructions of a run like the stat run (2% for the samples' own
# interrupts), and perf report's top line is the workload's hot_loop.
samples=$(sed -n 's/^\[ perf record: Captured and wrote .* (\([0-9]*\) samples) \]$/\1/p' "$console")
[[ -n $samples ]] || { show_console; fail "perf record printed no sample count"; }
expected=$((count[instructions] / PERIOD))
within "$samples" "$expected" 2 || fail "perf record: $samples samples, not within 2% of $expected"
first=$(grep -E '^ +[0-9.]+% ' "$console" | head -1)
[[ $first =~ ^\ +[0-9.]+%\ +brisk-workload\ +brisk-workload\ +\[\.\]\ hot_loop$ ]] ||
    { show_console; fail "perf report's first line is not brisk-workload's hot_loop: '$first'"; }
pass "perf record: $samples samples (instructions / $PERIOD = $expected); perf report: $first"
