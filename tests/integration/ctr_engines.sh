#!/usr/bin/env bash
# The engines record the same control transfers: Debian's busybox and xz run under --engine=jit and
# --engine=interp with every type recorded (--ctr=any,not_taken, depth 256) and, separately, in
# RASEMU call-stack mode; the --ctr-dump at exit (types, sources, targets, mispredicts and cycle
# counts of the last 256 transfers) must be identical, and full. --max-insns stops xz at the same
# instruction under both engines, so its buffer is also compared in the middle of the compression.
# tests/guest/ctr_sync (CTR_SYNC_GUEST) records across system calls and dies of a load fault in the
# middle of a chain of blocks: what translated code keeps in host registers while CTR records
# (jit/x64/translator.h) must reach the hart at helper calls and in fault recovery; the lockstep
# checker runs it too.
#   ctr_engines.sh BRISK ENGINE (ENGINE is not used: both run)
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

data=$WORK/data.bin
make_data "$data" $((64 * 1024))

SYNC=${CTR_SYNC_GUEST:?CTR_SYNC_GUEST must name the built tests/guest/ctr_sync}

# same_dump DESCRIPTION FILTERS PROGRAM ARG...: the dumps of the interpreter and the other $engines,
# compared; sets $entries. Runs with the brisk options in $stop, and the exit status must be
# $want_status.
stop=() want_status=0 engines=(jit)
same_dump() {
    local what=$1 filters=$2 engine status
    shift 2
    for engine in interp "${engines[@]}"; do
        status=0
        "$BRISK" run --engine="$engine" --sysroot "$SYSROOT" --ctr="$filters" --ctr-depth 256 "${stop[@]}" \
            --ctr-dump="$WORK/$engine.dump" "$@" >"$WORK/$engine.out" 2>"$WORK/$engine.err" || status=$?
        ((status == want_status)) \
            || fail "$what: --engine=$engine exited with status $status, want $want_status: $(tail -2 "$WORK/$engine.err")"
    done
    for engine in "${engines[@]}"; do
        cmp -s "$WORK/interp.out" "$WORK/$engine.out" || fail "$what: the $engine's output differs"
        diff -u "$WORK/interp.dump" "$WORK/$engine.dump" >"$WORK/diff" \
            || { head -40 "$WORK/diff" >&2; fail "$what: the $engine's dump differs from the interpreter's"; }
    done
    entries=$(sed -n '1s/^# ctr: hart 0 at exit: \([0-9]*\) valid entries of 256, youngest first$/\1/p' "$WORK/jit.dump")
    [[ -n $entries ]] || fail "$what: dump header '$(head -1 "$WORK/jit.dump")'"
    pass "$what: identical dumps of $entries entries"
}

same_dump "busybox sha256sum" any,not_taken "$BUSYBOX" sha256sum "$data"
((entries == 256)) || fail "busybox sha256sum: $entries entries, want a full buffer"
same_dump "xz -6" any,not_taken "$SYSROOT/usr/bin/xz" -T1 -c -6 "$data"
((entries == 256)) || fail "xz: $entries entries, want a full buffer"
for type in taken-branch not-taken-branch function-return; do
    grep -q " $type\$" "$WORK/jit.dump" || fail "xz: no $type in the dump"
done
# A 1 MiB code cache (--tb-size 1) fills and is flushed while xz runs: the records made before each
# flush still reach the buffer, and the CTR site table starts again at each flush, so it ends with
# fewer sites than the run with a cache that never fills.
sites_and_flushes() { sed -n 's/.* \([0-9]*\) code-cache flushes, \([0-9]*\) CTR sites\($\|[,;].*\)/\2 \1/p' "$WORK/jit.err"; }
stop=(--stats)
same_dump "xz -6, --stats" any,not_taken "$SYSROOT/usr/bin/xz" -T1 -c -6 "$data"
read -r whole_sites whole_flushes < <(sites_and_flushes)
stop=(--stats --tb-size 1)
same_dump "xz -6, --tb-size 1" any,not_taken "$SYSROOT/usr/bin/xz" -T1 -c -6 "$data"
read -r sites flushes < <(sites_and_flushes)
((whole_flushes == 0 && flushes > 0)) || fail "xz code-cache flushes: $whole_flushes by default, $flushes with --tb-size 1"
((sites > 0 && sites < whole_sites)) || fail "xz CTR sites: $whole_sites by default, $sites after $flushes flushes"
pass "xz, --tb-size 1: $flushes flushes, $sites CTR sites left of $whole_sites"
stop=()
# RASEMU: calls push and returns pop, so what is left is the call stack at exit.
same_dump "xz -6, call stack" any,stack "$SYSROOT/usr/bin/xz" -T1 -c -6 "$data"
! grep -Evq '^#|(direct-call|indirect-call|co-routine-swap)$' "$WORK/jit.dump" \
    || fail "xz call stack: entries other than calls: $(grep -Ev '^#|call$' "$WORK/jit.dump" | head -3)"
# shellcheck disable=SC2016 # the guest's shell expands $i
same_dump "busybox sh, call stack" any,stack "$BUSYBOX" sh -c 'for i in 1 2 3; do echo $i; done'
stop=(--max-insns 3000000) want_status=125
for filters in any,not_taken any,stack; do
    same_dump "xz -6 stopped after 3000000 instructions, --ctr=$filters" "$filters" "$SYSROOT/usr/bin/xz" -T1 -c -6 "$data"
done
want_status=139  # SIGSEGV
for filters in any,not_taken any,stack; do
    stop=() engines=(jit check)
    same_dump "ctr_sync, --ctr=$filters" "$filters" "$SYNC"
    [[ $filters == any,stack ]] || ((entries == 256)) || fail "ctr_sync: $entries entries, want a full buffer"
    stop=(--jit-regs 0) engines=(jit)
    same_dump "ctr_sync, --ctr=$filters, --jit-regs 0" "$filters" "$SYNC"
done
