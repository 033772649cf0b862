#!/usr/bin/env bash
# Debian's dynamically linked xz (ld.so, libc, liblzma from the sysroot) compresses and decompresses,
# and its .xz files interoperate with the host's xz.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

command -v xz >/dev/null || fail "the host's xz is missing (install xz-utils)"
XZ=$SYSROOT/usr/bin/xz
data=$WORK/data.bin
make_data "$data" $((320 * 1024))

guest --sysroot "$XZ" -T1 -c -6 "$data" >"$WORK/guest.xz" || fail "guest xz -c -6 exited with status $?"
[[ $(head -c 6 "$WORK/guest.xz" | od -An -tx1 | tr -d ' ') == fd377a585a00 ]] \
    || fail "guest xz output does not start with the .xz magic:
$(show "$WORK/guest.xz")"
pass "guest xz compressed $(stat -c %s "$data") bytes to $(stat -c %s "$WORK/guest.xz")"

guest --sysroot "$XZ" -T1 -d -c "$WORK/guest.xz" >"$WORK/guest.out" || fail "guest xz -d exited with status $?"
cmp "$data" "$WORK/guest.out" >&2 || fail "guest xz -d did not give back the original data"
pass "guest xz round trip"

xz -d -c "$WORK/guest.xz" >"$WORK/host.out" || fail "the host's xz rejected the guest's .xz file"
cmp "$data" "$WORK/host.out" >&2 || fail "the host's xz decompressed the guest's .xz to different data"
pass "host xz decompresses the guest's output"

xz -T1 -c -6 "$data" >"$WORK/host.xz"
guest --sysroot "$XZ" -T1 -d -c "$WORK/host.xz" >"$WORK/guest2.out" \
    || fail "guest xz -d of the host's .xz exited with status $?"
cmp "$data" "$WORK/guest2.out" >&2 || fail "guest xz decompressed the host's .xz to different data"
pass "guest xz decompresses the host's output"
