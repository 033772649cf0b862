#!/usr/bin/env bash
# A signal sent to brisk from outside is the guest's: its handler runs, or without one it ends the
# guest as Linux would (128 + 15), while the guest waits in pause() or spins in translated code;
# SIGINT, SIGQUIT, SIGCHLD, SIGWINCH, SIGUSR2, SIGUSR1, SIGALRM and SIGHUP reach its handler too.
#   host_signals.sh BRISK ENGINE GUEST (tests/guest/sigterm.c)
set -uo pipefail
# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"
(($# == 3)) || { echo "usage: $0 BRISK ENGINE GUEST" >&2; exit 2; }
BRISK=$1
ENGINE=$2
GUEST=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# expect ACTION WAIT STATUS OUTPUT [SIG]: SIGSIG (SIGTERM by default) once the guest says ready;
# brisk must exit with STATUS and the guest's stdout be "ready" then OUTPUT.
expect() {
    local action=$1 wait=$2 want=$3 output=$4 sig=${5:-TERM}
    local out=$WORK/out.$action.$wait.$sig
    mkfifo "$out"
    timeout -k 5 120 "$BRISK" run --engine="$ENGINE" "$GUEST" "$action" "$wait" "$(kill -l "$sig")" >"$out" 2>"$WORK/err" &
    local pid=$! line rc=0
    exec 3<"$out"
    read -r line <&3
    [[ $line == ready ]] || fail "$action/$wait: the guest printed '$line' first, want 'ready'"
    # To brisk itself: timeout, its parent, would take SIGCHLD or SIGWINCH as its own.
    local brisk_pid
    brisk_pid=$(<"/proc/$pid/task/$pid/children")
    [[ $brisk_pid =~ ^[0-9]+\ ?$ ]] || fail "$action/$wait: no brisk under timeout $pid ('$brisk_pid')"
    kill -"$sig" "${brisk_pid% }"
    local rest
    rest=$(cat <&3)
    exec 3<&-
    wait "$pid" || rc=$?
    ((rc == want)) || fail "$action/$wait: exit status $rc (want $want); stderr: $(cat "$WORK/err")"
    [[ $rest == "$output" ]] || fail "$action/$wait: the guest printed '$rest' after ready, want '$output'"
    pass "$action/$wait: status $rc${rest:+, '$rest'}"
}

for wait in pause spin; do
    expect handler "$wait" 3 "got SIGTERM from a process"
    expect default "$wait" 143 ""
    grep -qx 'brisk: guest killed by SIGTERM: sent by process [0-9]*' "$WORK/err" \
        || fail "default/$wait: stderr '$(cat "$WORK/err")'"
done

# The other signals the README names as the guest's (SIGUSR1 without --ctr-dump, SIGALRM without
# --timeout), each to the guest's handler.
for sig in INT QUIT CHLD WINCH USR2 USR1 ALRM HUP; do
    expect handler pause 3 "got SIG$sig from a process" $sig
done

# A signal ignored when brisk starts is ignored by the guest, as across execve: SIGTERM does nothing,
# and the SIGHUP sent after it ends the guest.
mkfifo "$WORK/out.ignored"
(trap '' TERM; exec "$BRISK" run --engine="$ENGINE" "$GUEST" default pause) >"$WORK/out.ignored" 2>"$WORK/err" &
pid=$!
exec 3<"$WORK/out.ignored"
read -r line <&3
[[ $line == ready ]] || fail "ignored: the guest printed '$line' first, want 'ready'"
kill -TERM "$pid"
sleep 0.3
kill -HUP "$pid"
exec 3<&-
rc=0
wait "$pid" || rc=$?
((rc == 129)) || fail "ignored: exit status $rc (want 129, SIGHUP); stderr: $(cat "$WORK/err")"
pass "ignored SIGTERM: the guest goes on until SIGHUP, status 129"
