#!/usr/bin/env bash
# Debian's xz with its multi-threaded encoder and decoder (-T2, -T0): guest threads on host threads
# (runtime/linux_threads.cpp). The output must decompress, with the host's xz and the guest's, to the input.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

command -v xz >/dev/null || fail "the host's xz is missing (install xz-utils)"
XZ=$SYSROOT/usr/bin/xz
data=$WORK/data.bin
make_data "$data" $((1024 * 1024))
# Blocks of 128 KiB: eight of them, so that each thread gets some.
block=--block-size=128KiB

for threads in 2 0; do
    guest --sysroot "$XZ" -vv -T$threads $block -1 -c "$data" >"$WORK/t$threads.xz" 2>"$WORK/t$threads.err" \
        || fail "guest xz -T$threads exited with status $?: $(cat "$WORK/t$threads.err")"
    # xz says how many threads it uses: -T0 as many as the (host's) CPUs brisk reports.
    grep -q "Using up to [0-9]* threads" "$WORK/t$threads.err" || fail "guest xz -T$threads did not go multi-threaded:
$(cat "$WORK/t$threads.err")"
    [[ $threads != 2 ]] || grep -q "Using up to 2 threads" "$WORK/t$threads.err" \
        || fail "guest xz -T2 does not use 2 threads: $(cat "$WORK/t$threads.err")"
    blocks=$(xz --robot --list "$WORK/t$threads.xz" | awk '$1 == "totals" { print $3 }')
    [[ $blocks == 8 ]] || fail "guest xz -T$threads wrote $blocks blocks, not 8"
    xz -d -c "$WORK/t$threads.xz" >"$WORK/host.out" || fail "the host's xz rejected the guest's -T$threads output"
    cmp "$data" "$WORK/host.out" >&2 || fail "the host's xz decompressed the guest's -T$threads output to different data"
    pass "guest xz -T$threads compressed $(stat -c %s "$data") bytes in $blocks blocks; the host's xz gives them back"

    guest --sysroot "$XZ" -T$threads -d -c "$WORK/t$threads.xz" >"$WORK/guest.out" \
        || fail "guest xz -T$threads -d exited with status $?"
    cmp "$data" "$WORK/guest.out" >&2 || fail "guest xz -T$threads -d did not give back the original data"
    pass "guest xz -T$threads -d round trip"
done

xz -T2 $block -1 -c "$data" >"$WORK/host.xz"
guest --sysroot "$XZ" -T2 -d -c "$WORK/host.xz" >"$WORK/guest2.out" || fail "guest xz -T2 -d of the host's .xz exited with status $?"
cmp "$data" "$WORK/guest2.out" >&2 || fail "guest xz -T2 decompressed the host's .xz to different data"
pass "guest xz -T2 -d decompresses the host's multi-block output"
