#!/usr/bin/env bash
# Translated code keeps CTR state in host registers while it records (jit/x64/translator.h) and hands
# it to C++ at helper calls and guest faults: tests/guest/ctr_sync records branches across system
# calls and dies of a load fault in the middle of a chain of blocks. Under --engine=jit, with and
# without mapped guest registers, and --engine=check, its --ctr-dump at exit (a full buffer of 256
# entries with their cycle counts and mispredicts) must be the interpreter's, with every transfer type
# and in RASEMU mode.
# CTR_SYNC_GUEST is the built tests/guest/ctr_sync.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

SYNC=${CTR_SYNC_GUEST:?CTR_SYNC_GUEST must name the built tests/guest/ctr_sync}
[[ -x $SYNC ]] || fail "no guest program at $SYNC"

# dump NAME FILTERS BRISK_OPTION...: the run's dump in $WORK/NAME.dump; the guest must die of SIGSEGV.
dump() {
    local name=$1 filters=$2 status=0
    shift 2
    "$BRISK" run "$@" --ctr="$filters" --ctr-depth 256 --ctr-dump="$WORK/$name.dump" "$SYNC" \
        >/dev/null 2>"$WORK/$name.err" || status=$?
    ((status == 139)) || fail "$name: exit status $status, want 139 (SIGSEGV): $(tail -2 "$WORK/$name.err")"
    grep -q "^brisk: guest killed by SIGSEGV: load page fault" "$WORK/$name.err" \
        || fail "$name: stderr '$(head -2 "$WORK/$name.err")', want the load page fault"
}

for filters in any,not_taken any,stack; do
    dump interp "$filters" --engine=interp
    want=256
    [[ $filters == any,stack ]] && want='[0-9]*'
    grep -Eq "^# ctr: hart 0 at exit: $want valid entries of 256, youngest first$" "$WORK/interp.dump" \
        || fail "--ctr=$filters: interpreter's dump header '$(head -1 "$WORK/interp.dump")'"
    for jit in "jit" "jit --jit-regs 0" "check"; do
        # shellcheck disable=SC2086 # the options split
        dump jit "$filters" --engine=$jit
        diff -u "$WORK/interp.dump" "$WORK/jit.dump" >"$WORK/diff" \
            || { head -20 "$WORK/diff" >&2; fail "--ctr=$filters, --engine=$jit: the dump differs from the interpreter's"; }
        pass "--ctr=$filters, --engine=$jit: the interpreter's dump"
    done
done
