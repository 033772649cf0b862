#!/usr/bin/env bash
# brisk never grows without bound (README, "brisk is safe to run"): guests that keep making new code,
# mappings and threads (tests/guest/churn) run with a 1 MiB code cache, and brisk's peak RSS must
# stay within what the design allows, however much they churn:
#
#   base + live + engines x (1 + 32) x tb-size + 8 MiB
#
# base: brisk's peak RSS for the same guest and options making one page of code, one mapping or one
#   thread (brisk itself, its libraries, the guest's image and heap);
# live: the guest memory the churn holds at once (the 1 MiB code region, the 4 MiB mapping, a
#   thread's 8 MiB stack);
# engines: code caches alive at once (one per thread: 1, or 2 with a thread running);
# each cache: its arena (--tb-size, flushed whole when full) and the records of the blocks in it,
#   dropped ones too until the flush (runtime/jit_engine.h): about 1 KiB each (the plan, a deque of
#   helper sites, fault and exit vectors, three index entries), allowed 2 KiB, for at least 64 bytes
#   of code (entry check, one instruction, exit), so at most 32 x tb-size of records;
# 8 MiB: malloc's arenas and what it keeps of freed memory.
#
# The churns are sized to pass that bound several times over if what they make were kept: 256000
# blocks (about 300 MiB of records), 192 MiB of touched mappings, 300 threads' engines and stacks.
#   bounded.sh BRISK ENGINE CHURN       (CHURN: tests/guest/churn)
# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"
set -uo pipefail
(($# == 3)) || { echo "usage: $0 BRISK ENGINE CHURN" >&2; exit 2; }
BRISK=$1
ENGINE=$2
CHURN=$3
TIME=/usr/bin/time
[[ -x $TIME ]] || fail "no $TIME (Debian package time)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TB_MIB=1

# peak_kib MODE N: brisk's peak RSS in KiB running `churn MODE N`, which must exit 0.
peak_kib() {
    local rc=0
    timeout -k 5 120 "$TIME" -f 'maxrss %M' -o "$WORK/time" \
        "$BRISK" run --engine="$ENGINE" --tb-size $TB_MIB --stats "$CHURN" "$1" "$2" >"$WORK/out" 2>"$WORK/err" || rc=$?
    ((rc == 0)) || fail "churn $1 $2: exit status $rc: $(cat "$WORK/err")"
    sed -n 's/^maxrss \([0-9]*\)$/\1/p' "$WORK/time"
}

# check MODE N LIVE_MIB ENGINES
check() {
    local mode=$1 n=$2 live=$3 engines=$4 base peak bound
    base=$(peak_kib "$mode" 1)
    peak=$(peak_kib "$mode" "$n")
    [[ -n $base && -n $peak ]] || fail "churn $mode: no peak RSS"
    bound=$((base + (live + engines * 33 * TB_MIB + 8) * 1024))
    ((peak <= bound)) ||
        fail "churn $mode $n: peak RSS $peak KiB > $bound KiB (base $base + live $live MiB + $engines x 33 MiB + 8 MiB); $(tail -1 "$WORK/err")"
    pass "churn $mode $n: peak RSS $peak KiB <= $bound KiB (one of them: $base KiB); $(tail -1 "$WORK/err")"
}

check code 1000 1 1
check maps 48 4 1
check threads 300 8 2
