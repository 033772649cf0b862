#!/usr/bin/env bash
# Debian's openssl speed: each block size runs until the SIGALRM of alarm() (runtime/linux_signals.cpp),
# which must reach the guest's handler in the middle of its hashing loop, then prints its table.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

OPENSSL=$SYSROOT/usr/bin/openssl
[[ -x $OPENSSL ]] || fail "sysroot $SYSROOT has no openssl: run scripts/guest-sysroot"

# Six block sizes of one second each: a guest whose alarm never fires is stopped long before ctest's timeout.
status=0
timeout 120 "$BRISK" run --engine="$ENGINE" --sysroot "$SYSROOT" "$OPENSSL" speed -seconds 1 sha256 \
    >"$WORK/speed.out" 2>"$WORK/speed.err" || status=$?
((status != 124)) || fail "openssl speed -seconds 1 sha256 did not finish in 120 s: $(tail -3 "$WORK/speed.err")"
((status == 0)) || fail "openssl speed exited with status $status: $(cat "$WORK/speed.err")"
# Its progress lines, one per block size, count the operations done when the alarm came.
ops=$(grep -c "^Doing sha256 ops for 1s on [0-9]* size blocks: [1-9][0-9]* sha256 ops in [0-9.]*s$" "$WORK/speed.err") || true
((ops == 6)) || fail "openssl speed reported $ops of the 6 block sizes: $(cat "$WORK/speed.err")"
line=$(grep "^sha256 " "$WORK/speed.out") || fail "openssl speed printed no sha256 line: $(cat "$WORK/speed.out")"
[[ $line =~ ^sha256(\ +[0-9]+\.[0-9]{2}k){6}$ ]] || fail "openssl speed's sha256 line is '$line'"
grep -q "^type  *16 bytes  *64 bytes  *256 bytes  *1024 bytes  *8192 bytes  *16384 bytes$" "$WORK/speed.out" \
    || fail "openssl speed printed no table header: $(cat "$WORK/speed.out")"
pass "openssl speed -seconds 1 sha256: $line"
