#!/usr/bin/env bash
# Debian's bash runs pipelines of external commands, command substitution and subshells, and coreutils
# timeout ends a sleep: each child is a fork of brisk, and each command a riscv64 program of the
# sysroot that execve runs under brisk.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

GUEST_BASH=$SYSROOT/usr/bin/bash
[[ -x $GUEST_BASH && -x $SYSROOT/usr/bin/tr && -x $SYSROOT/usr/bin/sort ]] \
    || fail "sysroot $SYSROOT has no bash or coreutils: run scripts/guest-sysroot"

out=$(guest --sysroot "$GUEST_BASH" -c 'echo hi | tr a-z A-Z') || fail "bash -c 'echo hi | tr a-z A-Z' exited with status $?"
[[ $out == HI ]] || fail "echo hi | tr a-z A-Z printed '$out'"
pass "bash pipeline into tr"

out=$(guest --sysroot "$GUEST_BASH" -c 'printf "pear\napple\nfig\n" | sort | tr "\n" " "') \
    || fail "a pipeline of sort and tr exited with status $?"
[[ $out == "apple fig pear " ]] || fail "printf | sort | tr printed '$out'"
pass "bash pipeline of two external commands"

out=$(guest --sysroot "$GUEST_BASH" -c 'x=$(echo inner | tr a-z A-Z); echo "got $x"') \
    || fail "command substitution exited with status $?"
[[ $out == "got INNER" ]] || fail "\$(echo inner | tr a-z A-Z) gave '$out'"
pass "bash \$(...)"

out=$(guest --sysroot "$GUEST_BASH" -c 'v=outer; (v=inner; echo "in $v"; exit 3); echo "status $? $v"') \
    || fail "a subshell exited with status $?"
[[ $out == $'in inner\nstatus 3 outer' ]] || fail "the subshell printed '$out'"
pass "bash subshell with its own variables and exit status"

status=0
guest --sysroot "$GUEST_BASH" -c 'exec /usr/bin/false' || status=$?
((status == 1)) || fail "bash -c 'exec /usr/bin/false' exited with status $status, not 1"
pass "exec of a sysroot program keeps the process and its exit status"

# What the guest puts in its environment is the new program's, not the host loader's that starts brisk.
status=0
guest --sysroot "$GUEST_BASH" -c 'LD_PRELOAD=/nonexistent/preload.so /usr/bin/busybox sh -c "echo \$LD_PRELOAD"' \
    >"$WORK/env.out" 2>"$WORK/env.err" || status=$?
((status == 0)) || fail "busybox sh -c 'echo \$LD_PRELOAD' exited with status $status: $(cat "$WORK/env.err")"
[[ $(cat "$WORK/env.out") == /nonexistent/preload.so ]] || fail "the guest's LD_PRELOAD is '$(cat "$WORK/env.out")'"
! grep -i preload "$WORK/env.err" >&2 || fail "the guest's LD_PRELOAD reached the host's loader"
pass "the guest's LD_PRELOAD reaches the guest only"

# coreutils timeout: SIGALRM (alarm, as timer_create is not there yet) ends the wait, and the
# SIGTERM it sends reaches the child's brisk, which dies of it as its guest would.
[[ -x $SYSROOT/usr/bin/timeout && -x $SYSROOT/usr/bin/sleep ]] || fail "sysroot $SYSROOT has no timeout or sleep"
status=0
guest --sysroot "$SYSROOT/usr/bin/timeout" 1 /usr/bin/sleep 5 2>"$WORK/timeout.err" || status=$?
((status == 124)) || fail "timeout 1 sleep 5 exited with status $status, not 124: $(cat "$WORK/timeout.err")"
grep -q "guest killed by SIGTERM" "$WORK/timeout.err" || fail "sleep did not die of SIGTERM: $(cat "$WORK/timeout.err")"
pass "timeout 1 sleep 5 exits 124"
