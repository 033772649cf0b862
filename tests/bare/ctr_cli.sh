#!/bin/bash
# The mode filters of brisk system's --ctr and of --record's -j (README "Control transfer records",
# docs/profiling.md "System mode"): tests/bare/ctr_cli.c makes transfers in S (three calls) and in U
# (two calls). `u` records U's alone and `k` S's alone, both exactly, youngest first with their CC;
# with neither the dump holds both; a type filter goes with a mode (call,k: S's three calls). Under
# --record -j any,u / any,k, every sample's branch stack holds only that mode's transfers, and the
# longest holds all of them (with -j any, all of both modes').
#   ctr_cli.sh BRISK PROG ENGINE
set -euo pipefail
(($# == 3)) || { echo "usage: $0 BRISK PROG ENGINE" >&2; exit 2; }
BRISK=$1 PROG=$2 ENGINE=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
command -v riscv64-unknown-elf-nm >/dev/null || fail "riscv64-unknown-elf-nm is missing (scripts/setup installs it)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

declare -A at
while read -r addr _ name; do at[$name]=$((0x$addr)); done < <(riscv64-unknown-elf-nm "$PROG")
for s in run_trampoline s_fn s_call1 s_call2 s_call3 s_ret s_leaf u_fn u_call1 u_call2 u_ret u_leaf; do
    [[ -n ${at[$s]:-} ]] || fail "no symbol $s in $PROG"
done
# The jalr's length (crt0.S may compress it): the objdump line's encoding, 4 or 8 hex digits.
enc=$(riscv64-unknown-elf-objdump -d --start-address="${at[run_trampoline]}" --stop-address=$((at[run_trampoline] + 2)) "$PROG" |
    awk -F'\t' '/^ *[0-9a-f]+:/ { gsub(/ /, "", $2); print $2 }')
[[ $enc =~ ^[0-9a-f]{4}([0-9a-f]{4})?$ ]] || fail "cannot read the instruction at run_trampoline"
jalr_len=$((${#enc} / 2))
# rec FROM TO CC TYPE: a dump line; FROM and TO are symbol[+offset].
addr() { local s=${1%+*} off=0; [[ $1 != *+* ]] || off=${1#*+}; printf '0x%x' $((at[$s] + off)); }
rec() { printf '%s/%s/P/-/-/%s %s\n' "$(addr "$1")" "$(addr "$2")" "$3" "$4"; }

# Oldest first. CC counts the instructions retired in recording modes since the previous record,
# the transfer's own included (0 for the first: CCV is clear); the leaf's calls and returns are
# jumps, whose MISP is 0 (P). run_trampoline's `jalr t0` enters each function, which returns to
# the instruction after it.
s_recs() {  # $1: CC of the first (0 when nothing was recorded before)
    rec run_trampoline s_fn "$1" co-routine-swap
    rec s_call1 s_leaf 2 direct-call; rec s_leaf s_call1+4 1 function-return
    rec s_call2 s_leaf 1 direct-call; rec s_leaf s_call2+4 1 function-return
    rec s_call3 s_leaf 1 direct-call; rec s_leaf s_call3+4 1 function-return
    rec s_ret run_trampoline+$jalr_len 3 function-return
}
u_recs() {
    rec run_trampoline u_fn "$1" co-routine-swap
    rec u_call1 u_leaf 2 direct-call; rec u_leaf u_call1+4 1 function-return
    rec u_call2 u_leaf 1 direct-call; rec u_leaf u_call2+4 1 function-return
    rec u_ret run_trampoline+$jalr_len 3 function-return
}

# dump FILTERS EXPECTED-FILE: --ctr=FILTERS --ctr-dump must give exactly EXPECTED (oldest first).
dump() {
    local filters=$1 want=$2 n
    "$BRISK" system --bios none -m 64M --engine="$ENGINE" --ctr="$filters" --ctr-dump="$WORK/dump" \
        --kernel "$PROG" >"$WORK/console" 2>&1 || { cat "$WORK/console" >&2; fail "--ctr=$filters: exit status $?"; }
    grep -qx 'PASS ctr_cli' "$WORK/console" || { cat "$WORK/console" >&2; fail "--ctr=$filters: no PASS line"; }
    n=$(wc -l <"$want")
    tac "$want" | sed "1i # ctr: hart 0 at exit: $n valid entries of 256, youngest first" >"$WORK/want.dump"
    diff -u "$WORK/want.dump" "$WORK/dump" >&2 || fail "--ctr=$filters: the dump differs (- expected, + brisk)"
    pass "--ctr=$filters: exactly the $n expected entries"
}
s_recs 0 >"$WORK/s"
u_recs 0 >"$WORK/u"
dump any,u "$WORK/u"
dump u "$WORK/u"
dump any,k "$WORK/s"
dump k "$WORK/s"
# Both modes (the default): S's, then U's, whose first record counts S's last instructions, the two
# of `li a7, RUN_MAGIC` (its ecall traps without retiring; M does not record), and U's jalr.
{ s_recs 0; u_recs 3; } >"$WORK/both"
dump any "$WORK/both"
dump any,u,k "$WORK/both"
grep direct-call "$WORK/s" | sed '1s|/P/-/-/2 |/P/-/-/0 |; 2,$s|/P/-/-/1 |/P/-/-/2 |' >"$WORK/calls"
dump call,k "$WORK/calls"

# brisk record -j: every branch stack within the mode's transfers, the longest all of them.
record() {
    local filters=$1 want=$2 longest
    "$BRISK" system --bios none -m 64M --engine="$ENGINE" --kernel "$PROG" --record "$WORK/rec" \
        --record-opts "--format perfscript -c 101 -j $filters" >"$WORK/console" 2>&1 ||
        { cat "$WORK/console" >&2; fail "-j $filters: exit status $?"; }
    grep -qx 'PASS ctr_cli' "$WORK/console" || { cat "$WORK/console" >&2; fail "-j $filters: no PASS line"; }
    cut -d/ -f1,2 "$want" | sort -u >"$WORK/allowed"
    grep -v '^PERF_RECORD' "$WORK/rec" | tr ' ' '\n' | grep / | cut -d/ -f1,2 | sort -u >"$WORK/seen"
    [[ -s $WORK/seen ]] || fail "-j $filters: no branch stack in $(grep -vc '^PERF_RECORD' "$WORK/rec") samples"
    comm -13 "$WORK/allowed" "$WORK/seen" >"$WORK/extra"
    [[ ! -s $WORK/extra ]] || fail "-j $filters: transfers of another mode: $(tr '\n' ' ' <"$WORK/extra")"
    longest=$(grep -v '^PERF_RECORD' "$WORK/rec" | awk '{ print NF - 1 }' | sort -n | tail -1)
    ((longest == $(wc -l <"$want"))) || fail "-j $filters: the longest branch stack has $longest entries, want $(wc -l <"$want")"
    pass "-j $filters: $(grep -vc '^PERF_RECORD' "$WORK/rec") samples, branch stacks of that mode's transfers only"
}
record any,u "$WORK/u"
record any,k "$WORK/s"
record any "$WORK/both"
