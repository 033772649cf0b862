#!/usr/bin/env bash
# busybox sha256sum agrees with the host's, reading a file by name and from standard input.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

data=$WORK/data.bin
make_data "$data" $((384 * 1024))
want=$(sha256sum "$data" | cut -d' ' -f1)

got=$(guest "$BUSYBOX" sha256sum "$data") || fail "busybox sha256sum FILE exited with status $?"
[[ $got == "$want  $data" ]] || fail "busybox sha256sum FILE printed '$got', want '$want  $data'"
pass "sha256sum of a file: $want"

got=$(guest "$BUSYBOX" sha256sum <"$data") || fail "busybox sha256sum <FILE exited with status $?"
[[ $got == "$want  -" ]] || fail "busybox sha256sum <FILE printed '$got', want '$want  -'"
pass "sha256sum of standard input"
