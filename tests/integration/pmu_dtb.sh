#!/usr/bin/env bash
# The Linux perf names of README's event table are what the machine's device tree gives Linux: read
# the table from README.md, and for each row check the /pmu node of `brisk system --dumpdtb` (which
# OpenSBI's SBI PMU turns into mhpmevent writes):
#   - a named perf event: riscv,event-to-mhpmevent maps its SBI event id to exactly the row's
#     mhpmevent, and riscv,event-to-mhpmcounters lets it use every programmable counter;
#   - raw `rN`: perf passes N as the raw event's data, and OpenSBI writes it to mhpmevent, so N must
#     be the row's mhpmevent and riscv,raw-event-to-mhpmcounters must match it on those counters.
# Every event-to-mhpmevent row must come from the table.
#   pmu_dtb.sh BRISK
# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"
set -uo pipefail
(($# == 1)) || { echo "usage: $0 BRISK" >&2; exit 2; }
BRISK=$1
README=$(dirname "${BASH_SOURCE[0]}")/../../README.md
command -v fdtget >/dev/null || fail "fdtget is missing (Debian package device-tree-compiler)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Linux's perf names onto SBI PMU event ids: hardware events are type 0 with the code; cache events
# are type 1 (bits 16+) with code cache_id << 3 | op << 1 | result (L1D 0, DTLB 3; read 0, write
# 1; access 0, miss 1).
declare -A SBI_ID=(
    [cycles]=$((0x1)) [instructions]=$((0x2)) [branches]=$((0x5)) [branch-misses]=$((0x6))
    [L1-dcache-loads]=$((1 << 16 | 0 << 3 | 0 << 1 | 0))
    [L1-dcache-stores]=$((1 << 16 | 0 << 3 | 1 << 1 | 0))
    [dTLB-load-misses]=$((1 << 16 | 3 << 3 | 0 << 1 | 1))
)
HPM=$((0xfffffff8))  # hpmcounter3..31

"$BRISK" system --dumpdtb "$WORK/virt.dtb" || fail "--dumpdtb: exit status $?"
[[ $(fdtget "$WORK/virt.dtb" /pmu compatible) == riscv,pmu ]] || fail "/pmu is not compatible with riscv,pmu"
cells() { fdtget -t x "$WORK/virt.dtb" /pmu "$1" || fail "/pmu has no $1"; }
read -ra ev2sel <<<"$(cells riscv,event-to-mhpmevent)"
read -ra ev2ctr <<<"$(cells riscv,event-to-mhpmcounters)"
read -ra raw <<<"$(cells riscv,raw-event-to-mhpmcounters)"
((${#ev2sel[@]} % 3 == 0 && ${#ev2ctr[@]} % 3 == 0 && ${#raw[@]} % 5 == 0)) ||
    fail "/pmu's cell counts: ${#ev2sel[@]}, ${#ev2ctr[@]}, ${#raw[@]}"
declare -A selector counters
for ((i = 0; i < ${#ev2sel[@]}; i += 3)); do
    selector[$((16#${ev2sel[i]}))]=$((16#${ev2sel[i + 1]} << 32 | 16#${ev2sel[i + 2]}))
done
for ((i = 0; i < ${#ev2ctr[@]}; i += 3)); do
    for ((e = 16#${ev2ctr[i]}; e <= 16#${ev2ctr[i + 1]}; e++)); do counters[$e]=$((16#${ev2ctr[i + 2]})); done
done
# raw_counters N: the counters of the raw-event rows that match N.
raw_counters() {
    local c=0 i match mask
    for ((i = 0; i < ${#raw[@]}; i += 5)); do
        match=$((16#${raw[i]} << 32 | 16#${raw[i + 1]}))
        mask=$((16#${raw[i + 2]} << 32 | 16#${raw[i + 3]}))
        if ((($1 & mask) == match)); then c=$((c | 16#${raw[i + 4]})); fi
    done
    echo $c
}

# README's rows: | 0x05 | taken conditional branches | raw `r5` |
# shellcheck disable=SC2016  # the backquotes are the README's, not expansions
rows=$(sed -n '/^| mhpmevent | event | Linux perf name/,/^$/p' "$README" |
    sed -n -e 's/^| \(0x[0-9a-f]*\) | .* | raw `\([^`]*\)` |$/\1 raw \2/p' \
        -e 's/^| \(0x[0-9a-f]*\) | .* | `\([^`]*\)` |$/\1 named \2/p')
[[ $(wc -l <<<"$rows") == 16 ]] || fail "README's event table: want 16 rows with a perf name, got: $rows"
named=0
while read -r sel kind name; do
    sel=$((sel))
    if [[ $kind == raw ]]; then
        [[ $name =~ ^r([0-9a-f]+)$ ]] || fail "README: raw name '$name'"
        ((16#${BASH_REMATCH[1]} == sel)) || fail "README: raw $name on the row of mhpmevent $sel"
        c=$(raw_counters "$sel")
        (((c & HPM) == HPM)) || fail "raw $name: riscv,raw-event-to-mhpmcounters gives counters $(printf %#x "$c")"
        pass "raw $name: mhpmevent $(printf %#04x "$sel") on hpmcounter3..31"
    else
        [[ -n ${SBI_ID[$name]:-} ]] || fail "README names perf event '$name', which this test does not know"
        id=${SBI_ID[$name]}
        [[ -n ${selector[$id]:-} ]] || fail "$name: no riscv,event-to-mhpmevent row for SBI event $(printf %#x "$id")"
        ((selector[$id] == sel)) ||
            fail "$name: SBI event $(printf %#x "$id") selects mhpmevent $(printf %#x "${selector[$id]}"), README $(printf %#x "$sel")"
        (((${counters[$id]:-0} & HPM) == HPM)) ||
            fail "$name: riscv,event-to-mhpmcounters gives counters $(printf %#x "${counters[$id]:-0}")"
        named=$((named + 1))
        pass "$name: SBI event $(printf %#x "$id") -> mhpmevent $(printf %#04x "$sel") on hpmcounter3..31"
    fi
done <<<"$rows"
((named == ${#SBI_ID[@]})) || fail "README names $named of the ${#SBI_ID[@]} perf events"
((${#selector[@]} == named)) || fail "riscv,event-to-mhpmevent has ${#selector[@]} rows, the README $named"
pass "riscv,event-to-mhpmevent holds exactly README's $named named events"
