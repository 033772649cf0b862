#!/usr/bin/env bash
# Debian's zstd with two compression workers (-T2): guest threads on host threads
# (runtime/linux_threads.cpp). The output must decompress, with the host's zstd and the guest's, to
# the input.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

command -v zstd >/dev/null || fail "the host's zstd is missing (install zstd)"
ZSTD=$SYSROOT/usr/bin/zstd
[[ -x $ZSTD ]] || fail "sysroot $SYSROOT has no zstd: run scripts/guest-sysroot"
data=$WORK/data.bin
make_data "$data" $((4 * 1024 * 1024))
# Jobs of 512 KiB (zstd's smallest): eight of them, so that both workers get some.
jobs=-B512KiB

guest --sysroot "$ZSTD" -vv -T2 $jobs -3 -c "$data" >"$WORK/t2.zst" 2>"$WORK/t2.err" \
    || fail "guest zstd -T2 exited with status $?: $(cat "$WORK/t2.err")"
grep -q "Compressing with 2 worker threads" "$WORK/t2.err" \
    || fail "guest zstd -T2 does not use 2 workers: $(cat "$WORK/t2.err")"
grep -q "brisk:" "$WORK/t2.err" && fail "brisk complained while zstd -T2 ran: $(grep "brisk:" "$WORK/t2.err")"
zstd -q -d -c "$WORK/t2.zst" >"$WORK/host.out" || fail "the host's zstd rejected the guest's -T2 output"
cmp "$data" "$WORK/host.out" >&2 || fail "the host's zstd decompressed the guest's -T2 output to different data"
pass "guest zstd -T2 compressed $(stat -c %s "$data") bytes to $(stat -c %s "$WORK/t2.zst") with 2 workers; the host's zstd gives them back"

guest --sysroot "$ZSTD" -q -d -c "$WORK/t2.zst" >"$WORK/guest.out" || fail "guest zstd -d exited with status $?"
cmp "$data" "$WORK/guest.out" >&2 || fail "guest zstd -d did not give back the original data"
pass "guest zstd -T2 round trip"

zstd -q -T2 $jobs -3 -c "$data" >"$WORK/host.zst"
guest --sysroot "$ZSTD" -q -d -c "$WORK/host.zst" >"$WORK/guest2.out" || fail "guest zstd -d of the host's .zst exited with status $?"
cmp "$data" "$WORK/guest2.out" >&2 || fail "guest zstd decompressed the host's .zst to different data"
pass "guest zstd -d decompresses the host's -T2 output"
