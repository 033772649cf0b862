#!/bin/sh
# Runs a command (a timer_rate.c run) and checks its status 0, its PASS line, and that it took at
# least MIN_MS milliseconds of host time (CLOCK_REALTIME, by date): a lower bound only, as a slow
# host may take longer.
#   timer_rate.sh MIN_MS COMMAND...
set -eu
min_ms=$1
shift
start=$(date +%s%N)
status=0
out=$("$@" </dev/null 2>&1) || status=$?
end=$(date +%s%N)
printf '%s\n' "$out"
elapsed_ms=$(((end - start) / 1000000))
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status" >&2; exit 1; }
printf '%s\n' "$out" | tr -d '\r' | grep -qx 'PASS timer_rate' || { echo "FAIL: no PASS line" >&2; exit 1; }
[ "$elapsed_ms" -ge "$min_ms" ] || { echo "FAIL: the run took $elapsed_ms ms, want at least $min_ms" >&2; exit 1; }
echo "ok: $elapsed_ms ms (at least $min_ms)"
