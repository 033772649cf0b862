#!/usr/bin/env bash
# The static busybox prints its arguments exactly.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

guest "$BUSYBOX" echo hello world >"$WORK/out" || fail "busybox echo exited with status $?"
printf 'hello world\n' >"$WORK/want"
cmp -s "$WORK/want" "$WORK/out" || fail "busybox echo printed:
$(show "$WORK/out")
instead of 'hello world\\n'"
pass "busybox echo hello world"
