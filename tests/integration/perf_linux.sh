#!/usr/bin/env bash
# perf in a Linux guest on brisk's counters: boots Debian's kernel with OpenSBI 1.9 and the perf
# initramfs, runs perf stat and perf record on /usr/bin/brisk-workload, and checks the counts against
# what the workload is known to do and against the same static binary under `brisk run --stats`.
#
#   perf_linux.sh BRISK [ENGINE]
#
# BRISK is the brisk binary; ENGINE, if given, is passed as --engine to both runs. PERF_TIMEOUT
# (seconds, default 180) bounds the boot.
set -euo pipefail

(($# == 1 || $# == 2)) || { echo "usage: $0 BRISK [ENGINE]" >&2; exit 2; }
BRISK=$1
ENGINE=${2:-}
TIMEOUT=${PERF_TIMEOUT:-180}
SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)
PERIOD=100000
EVENTS=cycles,instructions,branches,branch-misses,instructions:u,cycles:u
# README's cache-event names and raw rN (the same mhpmevent each way: the device tree's riscv,pmu map).
EVENTS+=,L1-dcache-loads:u,r9:u,L1-dcache-stores:u,ra:u,dTLB-load-misses:u,r10:u,r5:u
# OpenSBI lists what it found in the device tree's riscv,isa-extensions and probed.
EXTENSIONS="smcdeleg ssccfg smcsrind sscsrind smstateen sscofpmf smcntrpmf"

# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"

[[ -x $BRISK ]] || fail "no brisk binary at '$BRISK'"
images=$("$SCRIPTS/guest-images" --print) || fail "scripts/guest-images failed"
eval "$images"
for f in "$KERNEL" "$OPENSBI19_FW_JUMP" "$INITRD_PERF" "$WORKLOAD"; do
    [[ -f $f ]] || fail "guest image $f is missing: run scripts/guest-images"
done

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The host's count: the workload is static, so the guest's user mode retires the same instructions
# but for what its arguments, environment and auxiliary vector change in libc's start-up.
"$BRISK" run ${ENGINE:+--engine="$ENGINE"} --stats "$WORKLOAD" >"$WORK/host.out" 2>"$WORK/host.err" \
    || fail "brisk run $WORKLOAD exited with status $?: $(head -5 "$WORK/host.err")"
host_insns=$(sed -n 's/^brisk: \([0-9][0-9]*\) instructions.*/\1/p' "$WORK/host.err" "$WORK/host.out" | head -1)
[[ -n $host_insns ]] || fail "brisk run --stats printed no 'brisk: N instructions' line: $(head -5 "$WORK/host.err")"
host_line=$(grep '^brisk-workload: ' "$WORK/host.out") || fail "the workload printed nothing on the host"
pass "host: $host_insns instructions"

# brisk's count against an independent one: QEMU with one instruction per block and every block's
# run logged, both with an empty environment and stdout to /dev/null, so that libc's start-up does
# the same work.
command -v qemu-riscv64 >/dev/null || fail "qemu-riscv64 is missing (Debian package qemu-user)"
qemu_count() {
    env -i qemu-riscv64 -singlestep -d nochain,exec -D "$WORK/qemu.log" "$WORKLOAD" "$1" >/dev/null &&
        grep -c '^Trace' "$WORK/qemu.log"
}
brisk_count() {
    env -i "$BRISK" run ${ENGINE:+--engine="$ENGINE"} --stats "$WORKLOAD" "$1" 2>&1 >/dev/null |
        sed -n 's/^brisk: \([0-9]*\) instructions.*/\1/p'
}
q1=$(qemu_count 1000) q3=$(qemu_count 3000) b1=$(brisk_count 1000) b3=$(brisk_count 3000)
[[ -n $q1 && -n $q3 && -n $b1 && -n $b3 ]] || fail "the instruction counts: qemu $q1 $q3, brisk $b1 $b3"
((b1 == q1 && b3 == q3)) || fail "the workload's instructions: brisk $b1 and $b3, qemu-riscv64 $q1 and $q3"
pass "the workload retires $b1 and $b3 instructions (1000 and 3000 rounds) under brisk and qemu-riscv64 -singlestep"

# One boot runs everything; set -e makes a failing step the script's status. The kernel times its
# sample interrupts in wall-clock time and throttles sampling when they seem slow, which they do
# whenever the host is busy: perf_cpu_time_max_percent=0 turns that off. perf report writes to a file
# first: on the console it would colour its percentages.
script="set -e
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
perf stat -x, -e $EVENTS /usr/bin/brisk-workload
perf record -e instructions -c $PERIOD -o /tmp/p.data /usr/bin/brisk-workload
perf report -i /tmp/p.data --stdio --sort sym >/tmp/report
cat /tmp/report"
append="console=ttyS0 quiet brisk.cmd64=$(printf '%s' "$script" | base64 -w0)"
cmd=("$BRISK" system ${ENGINE:+--engine="$ENGINE"} -m 1G --smp 1 --bios "$OPENSBI19_FW_JUMP" --kernel "$KERNEL"
    --initrd "$INITRD_PERF" --append "$append")
printf -v shown "%q " "${cmd[@]}"
echo "running: $shown"

console=$WORK/console
set +e
timeout -k 10 "$TIMEOUT" "${cmd[@]}" </dev/null 2>&1 | tr -d '\r' >"$console"
status=${PIPESTATUS[0]}
set -e

check() {
    # check DESCRIPTION CONDITION...: CONDITION (a command) must succeed.
    local what=$1
    shift
    if "$@"; then
        pass "$what"
    else
        show_console
        fail "$what"
    fi
}
# within A B PERCENT: |A - B| <= PERCENT% of B.
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= p * b) }'; }

((status != 124 && status != 137)) || { show_console; fail "timed out after $TIMEOUT s"; }
! grep -Eq 'Kernel panic|Oops|BUG:|Unable to handle kernel' "$console" || { show_console; fail "the kernel crashed"; }
check "the guest ran every step (BRISK-CMD-DONE status=0)" grep -q '^BRISK-CMD-DONE status=0 failed=0$' "$console"
check "the guest powered off and brisk exited 0 (status $status)" test "$status" -eq 0

# OpenSBI 1.9's banner.
isa=$(sed -n 's/^Boot HART ISA Extensions *: *//p' "$console" | head -1)
[[ -n $isa ]] || { show_console; fail "no 'Boot HART ISA Extensions' line in OpenSBI's banner"; }
for ext in $EXTENSIONS; do
    [[ ,$isa, == *,$ext,* ]] || fail "OpenSBI's 'Boot HART ISA Extensions' lacks $ext: $isa"
done
pass "OpenSBI sees $EXTENSIONS"

# Both guest runs compute what the host run did.
[[ $(grep -Fxc "$host_line" "$console") == 2 ]] \
    || { show_console; fail "the guest's workload output differs from the host's: $host_line"; }
rounds=$(sed -n 's/.* rounds=\([0-9]*\) .*/\1/p' <<<"$host_line")
pass "workload output matches the host's (rounds=$rounds)"

# perf stat -x, lines: VALUE,UNIT,EVENT,... with VALUE <not supported> or <not counted> when it failed.
declare -A count
# perf prints a hardware-cache event's name without its :u.
for ev in ${EVENTS//,/ }; do
    name=$ev
    case $ev in L1-*:u | dTLB-*:u) name=${ev%:u} ;; esac
    v=$(awk -F, -v e="$name" '$3 == e && $1 ~ /^([0-9]+|<.*>)$/ { print $1; exit }' "$console")
    [[ $v =~ ^[0-9]+$ ]] || { show_console; fail "perf stat: $ev was not counted (got '${v:-no line}')"; }
    count[$ev]=$v
done
pass "perf stat counted $EVENTS"

iu=${count[instructions:u]}
check "instructions:u ($iu) within 1% of brisk run's $host_insns" within "$iu" "$host_insns" 1
# The 1% allows for the start-up differences above (a few thousand instructions in practice); the
# kernel's share of the run is larger, so the next check keeps user and kernel apart as well.
check "instructions:u ($iu) < instructions (${count[instructions]})" test "$iu" -lt "${count[instructions]}"
# One cycle per instruction: with the same filter the two counts are equal. perf starts and stops the
# all-mode counters one after the other in the kernel, which retires a few thousand instructions in
# between; in user mode nothing runs in between, so there they must agree exactly.
check "cycles:u == instructions:u (${count[cycles:u]})" test "${count[cycles:u]}" -eq "$iu"
check "cycles (${count[cycles]}) within 0.1% of instructions (${count[instructions]})" \
    within "${count[cycles]}" "${count[instructions]}" 0.1
# hot_loop retires one branch per round (it is assembly), branchy_loop at least one per iteration
# (rounds/8 + 1 of them: the data-dependent if).
known=$((rounds + rounds / 8 + 1))
check "branches (${count[branches]}) >= the workload's $known" test "${count[branches]}" -ge "$known"
check "0 < branch-misses (${count[branch-misses]}) < branches" \
    test "${count[branch-misses]}" -gt 0 -a "${count[branch-misses]}" -lt "${count[branches]}"

# The named cache events count what the README's table says: user-mode counts of one run, so equal to
# the raw selectors' exactly; raw r5 (taken conditional branches) against brisk record's total of the
# same static binary on the host, within 1% for the start-up differences above.
for pair in L1-dcache-loads:u,r9:u L1-dcache-stores:u,ra:u dTLB-load-misses:u,r10:u; do
    named=${pair%,*} raw=${pair#*,}
    check "$named (${count[$named]}) == $raw (${count[$raw]})" test "${count[$named]}" -eq "${count[$raw]}"
done
check "L1-dcache-loads:u (${count[L1-dcache-loads:u]}) > 0 and L1-dcache-stores:u (${count[L1-dcache-stores:u]}) > 0" \
    test "${count[L1-dcache-loads:u]}" -gt 0 -a "${count[L1-dcache-stores:u]}" -gt 0
"$BRISK" record ${ENGINE:+--engine="$ENGINE"} -e taken-branches -c 1000003 --ctr-depth 16 --format perfscript \
    -o "$WORK/taken.script" -- "$WORKLOAD" >/dev/null 2>"$WORK/taken.err" || fail "brisk record -e taken-branches: $(cat "$WORK/taken.err")"
host_taken=$(sed -n 's/^brisk record: [0-9]* samples, \([0-9]*\) taken-branches in .*/\1/p' "$WORK/taken.err")
[[ -n $host_taken ]] || fail "brisk record -e taken-branches gave no total: $(cat "$WORK/taken.err")"
check "r5:u (${count[r5:u]}) within 1% of brisk record's $host_taken taken branches" within "${count[r5:u]}" "$host_taken" 1

# perf record: one sample per $PERIOD instructions. The record run retires a little more than the
# stat run (each sample's interrupt and write-out, about 1%), hence 2%.
samples=$(sed -n 's/^\[ perf record: Captured and wrote .* (\([0-9]*\) samples) \]$/\1/p' "$console")
[[ -n $samples ]] || { show_console; fail "perf record printed no sample count"; }
expected=$((count[instructions] / PERIOD))
check "perf record: $samples samples within 2% of $expected" within "$samples" "$expected" 2
first=$(awk '/^#/ { next } $1 ~ /^[0-9.]+%$/ && $2 ~ /^\[/ { print $3; exit }' "$console")
check "perf report: hot_loop is the first symbol (got '${first:-none}')" test "$first" = hot_loop
