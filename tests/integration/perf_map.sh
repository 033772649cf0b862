#!/usr/bin/env bash
# --perf-map with threads and fork (tests/guest/perf_map.c):
#   - it describes the first thread's code (README): the map of a run whose second thread alone runs
#     thread_only() names main's block and no block inside thread_only() or thread_main();
#   - a forked child starts its own /tmp/perf-PID.map from a copy of its parent's
#     (docs/architecture.md): the child's map begins with the parent's lines up to the fork, which name
#     before_fork(), and goes on with child_only()'s blocks, which the parent's never names.
#   - with --tier2=on each region's code has a line of its own, tier2_PC by its entry block's pc
#     (tests/guest/tier2_loop.c).
#   - the trampolines' thunks are named brisk_*, and with BRISK_JIT_DUMP=1 scripts/jit-disasm
#     disassembles a block from the arena's dump: its code ends in the jump of its direct exit.
# PERF_MAP_GUEST is the built tests/guest/perf_map, TIER2_LOOP_GUEST tests/guest/tier2_loop.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

PROG=${PERF_MAP_GUEST:?PERF_MAP_GUEST must name the built tests/guest/perf_map}
[[ -x $PROG ]] || fail "no guest program at $PROG"

# A function's start and end from the symbol table, as two hex numbers.
riscv64-linux-gnu-nm -S "$PROG" >"$WORK/syms"
range() { awk -v f="$1" '$4 == f { print $1, $2 }' "$WORK/syms"; }
# blocks_in MAP FUNCTION: the map's lines naming a block that starts inside the function.
blocks_in() {
    local start size
    read -r start size < <(range "$2")
    [[ -n $start ]] || fail "no symbol $2 in $PROG"
    python3 - "$1" "$start" "$size" <<'PY'
import re, sys
start, size = int(sys.argv[2], 16), int(sys.argv[3], 16)
for line in open(sys.argv[1]):
    if re.fullmatch(r"[0-9a-f]+ [0-9a-f]+ brisk_[a-z]+\n", line):  # the trampolines' thunks
        continue
    m = re.fullmatch(r"[0-9a-f]+ [0-9a-f]+ guest_([0-9a-f]+)_\d+\n", line)
    if not m:
        sys.exit(f"not a perf map line: {line!r}")
    if start <= int(m.group(1), 16) < start + size:
        print(line, end="")
PY
}
maps=()
trap 'rm -rf "$WORK" "${maps[@]}"' EXIT

# Every block is translated at its first run (--jit-threshold=0): main's first block runs once.
# --- a second thread's code is not in the map ----------------------------------------------------
"$BRISK" run --engine=jit --jit-threshold=0 --perf-map "$PROG" thread >"$WORK/out" 2>"$WORK/err" &
pid=$!
maps+=("/tmp/perf-$pid.map")
status=0
wait $pid || status=$?
((status == 0)) || fail "thread: exit status $status: $(head -2 "$WORK/err")"
map=/tmp/perf-$pid.map
[[ -s $map ]] || fail "thread: --perf-map wrote no $map"
main_pc=$(range main | awk '{ print $1 }' | sed 's/^0*//')
grep -qE "^[0-9a-f]+ [0-9a-f]+ guest_${main_pc}_[0-9]+$" "$map" \
    || fail "thread: $map does not name main's first block guest_${main_pc}_"
[[ -z $(blocks_in "$map" thread_only) && -z $(blocks_in "$map" thread_main) ]] \
    || fail "thread: $map names the second thread's blocks: $(blocks_in "$map" thread_only) $(blocks_in "$map" thread_main)"
pass "thread: $map names main's blocks ($(wc -l <"$map") lines) and none of the second thread's function"

# --- a forked child's map: the parent's, then its own --------------------------------------------
"$BRISK" run --engine=jit --jit-threshold=0 --perf-map "$PROG" fork >"$WORK/out" 2>"$WORK/err" &
pid=$!
maps+=("/tmp/perf-$pid.map")
status=0
wait $pid || status=$?
child=$(cat "$WORK/out")
[[ $child =~ ^[0-9]+$ ]] && maps+=("/tmp/perf-$child.map")
((status == 0)) || fail "fork: exit status $status: $(head -2 "$WORK/err")"
[[ $child =~ ^[0-9]+$ && $child != "$pid" ]] || fail "fork: the child printed '$child', not a pid other than brisk's $pid"
parent_map=/tmp/perf-$pid.map child_map=/tmp/perf-$child.map
[[ -s $parent_map ]] || fail "fork: no parent map $parent_map"
[[ -s $child_map ]] || fail "fork: the child wrote no map $child_map"
# The lines both maps start with: the parent's up to the fork.
common=$({ cmp "$parent_map" "$child_map" 2>/dev/null || true; } | sed -n 's/.* line \([0-9]*\)$/\1/p')
[[ -n $common ]] || fail "fork: the two maps are equal or one is a prefix of the other"
head -n $((common - 1)) "$child_map" >"$WORK/copied"
tail -n +"$common" "$child_map" >"$WORK/child_own"
[[ -n $(blocks_in "$WORK/copied" before_fork) ]] \
    || fail "fork: the lines the child's map shares with the parent's ($((common - 1))) do not name before_fork()"
[[ -n $(blocks_in "$WORK/child_own" child_only) ]] \
    || fail "fork: the child's own lines do not name child_only(): $(head -3 "$WORK/child_own")"
[[ -z $(blocks_in "$parent_map" child_only) ]] || fail "fork: the parent's map names child_only()"
[[ -z $(blocks_in "$WORK/copied" child_only) ]] || fail "fork: the copied lines name child_only()"
pass "fork: the child's $child_map starts with the parent's $((common - 1)) lines (before_fork among them) and adds child_only()'s"

# --- tier 2's regions are named too: the address and size of their code, by their entry's pc ------
LOOP=${TIER2_LOOP_GUEST:?TIER2_LOOP_GUEST must name the built tests/guest/tier2_loop}
"$BRISK" run --engine=jit --tier2=on --perf-map "$LOOP" >"$WORK/out" 2>"$WORK/err" &
pid=$!
maps+=("/tmp/perf-$pid.map")
status=0
wait $pid || status=$?
((status == 0)) || fail "tier2: exit status $status: $(head -2 "$WORK/err")"
map=/tmp/perf-$pid.map
regions=$(grep -E '^[0-9a-f]+ [0-9a-f]*[1-9a-f][0-9a-f]* tier2_[0-9a-f]+$' "$map" || true)
[[ -n $regions ]] || fail "tier2: $map names no region"
while read -r _ _ name; do
    grep -qE " guest_${name#tier2_}_[0-9]+$" "$map" || fail "tier2: $name starts at no block's pc"
done <<<"$regions"
pass "tier2: $map names $(wc -l <<<"$regions") regions, each at a block's pc"

# --- the thunks' names, and a block's host code from BRISK_JIT_DUMP=1 through scripts/jit-disasm ---
BRISK_JIT_DUMP=1 "$BRISK" run --engine=jit --jit-threshold=0 --perf-map "$PROG" thread >"$WORK/out" 2>"$WORK/err" &
pid=$!
maps+=("/tmp/perf-$pid.map" "/tmp/perf-$pid.code")
status=0
wait $pid || status=$?
((status == 0)) || fail "dump: exit status $status: $(head -2 "$WORK/err")"
map=/tmp/perf-$pid.map
for thunk in enter exit helper access link dispatch; do
    grep -qE "^[0-9a-f]+ [0-9a-f]*[1-9a-f][0-9a-f]* brisk_$thunk$" "$map" || fail "dump: $map does not name brisk_$thunk"
done
"$SCRIPTS/jit-disasm" "$pid" "guest_${main_pc}_" >"$WORK/disasm" || fail "dump: jit-disasm failed"
# Every block ends in a direct exit's or a dispatch's jmp.
grep -q "^== guest_${main_pc}_" "$WORK/disasm" || fail "dump: no block guest_${main_pc}_ in: $(head -3 "$WORK/disasm")"
grep -qE '^ *[0-9a-f]+:.*\sjmp\s' "$WORK/disasm" || fail "dump: guest_${main_pc}_ has no jmp: $(head -20 "$WORK/disasm")"
pass "dump: $map names the thunks; jit-disasm shows guest_${main_pc}_ ($(grep -c '^ *[0-9a-f]*:' "$WORK/disasm") host instructions)"
