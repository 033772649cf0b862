#!/usr/bin/env bash
# Debian's openssl dgst -sha256 and coreutils sha256sum (libcrypto's SHA-256, bench/crypto's
# workload) agree with the host's sha256sum.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

data=$WORK/data.bin
make_data "$data" $((256 * 1024))
want=$(sha256sum "$data" | cut -d' ' -f1)

got=$(guest --sysroot "$SYSROOT/usr/bin/openssl" dgst -sha256 "$data") || fail "openssl dgst exited with status $?"
[[ $got == "SHA2-256($data)= $want" ]] || fail "openssl dgst -sha256 printed '$got', want '$want'"
pass "openssl dgst -sha256: $want"

got=$(guest --sysroot "$SYSROOT/usr/bin/sha256sum" "$data") || fail "sha256sum exited with status $?"
[[ $got == "$want  $data" ]] || fail "sha256sum printed '$got', want '$want  $data'"
pass "sha256sum: $want"
