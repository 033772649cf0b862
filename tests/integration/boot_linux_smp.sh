#!/usr/bin/env bash
# Linux on two harts, each on a host thread of its own: boots Debian's kernel with OpenSBI 1.9 and
# the busybox initramfs with -smp 2, checks that the guest brings both CPUs online, runs two
# sha256sum processes at once, one pinned to each CPU, checks both digests and that /proc/stat
# counts work on both CPUs, and powers off. BOOTS times over (default 3): a race between hart
# threads need not show in every boot.
#
#   boot_linux_smp.sh BRISK [ENGINE]
#
# BRISK is the brisk binary; ENGINE, if given, is passed as --engine. SMP_ARGS adds brisk options
# (split at spaces, e.g. --smp-threads=1); BOOT_TIMEOUT (seconds, default 300) bounds each boot.
set -euo pipefail

(($# == 1 || $# == 2)) || { echo "usage: $0 BRISK [ENGINE]" >&2; exit 2; }
BRISK=$1
ENGINE=${2:-}
TIMEOUT=${BOOT_TIMEOUT:-300}
BOOTS=${BOOTS:-3}
SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)
# sha256 of 8 MiB of zeros, the guest's input: known here, so that a broken host tool cannot hide a
# guest bug.
ZEROS_SHA256=2daeb1f36095b44b318410b3f4e8b5d989dcc7bb023d1426c492dab0a3053e74

# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"

[[ -x $BRISK ]] || fail "no brisk binary at '$BRISK'"
images=$("$SCRIPTS/guest-images" --print) || fail "scripts/guest-images failed"
eval "$images"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# /proc/stat's cpuN line: user nice system idle ...; busy is user + nice + system, in ticks. Each
# job prints the CPU it ran on (field 39 of /proc/self/stat) and its digests.
script='set -e
echo "SMP online=$(cat /sys/devices/system/cpu/online) nproc=$(nproc)"
dd if=/dev/zero of=/tmp/zeros bs=1M count=8 2>/dev/null
busy() { awk -v c="cpu$1" '"'"'$1 == c { print $2 + $3 + $4 }'"'"' /proc/stat; }
before0=$(busy 0); before1=$(busy 1)
for c in 0 1; do
    taskset -c $c sh -c "for i in 1 2 3; do sha256sum /tmp/zeros; done; echo cpu=\$(cut -d\" \" -f39 /proc/self/stat)" >/tmp/job$c &
done
wait
after0=$(busy 0); after1=$(busy 1)
for c in 0 1; do sed "s/^/SMP job$c /" /tmp/job$c; done
echo "SMP busy0=$((after0 - before0)) busy1=$((after1 - before1))"'
append="console=ttyS0 quiet brisk.cmd64=$(printf '%s' "$script" | base64 -w0)"
read -ra extra <<<"${SMP_ARGS:-}"
cmd=("$BRISK" system ${ENGINE:+--engine="$ENGINE"} -m 1G --smp 2 --bios "$OPENSBI19_FW_JUMP" --kernel "$KERNEL"
    --initrd "$INITRD_BUSYBOX" --append "$append" "${extra[@]}")
printf -v shown "%q " "${cmd[@]}"
echo "running $BOOTS times: $shown"

console=$WORK/console
check() {
    # check DESCRIPTION GREP-ARGS...: the console must contain a matching line.
    local what=$1
    shift
    if grep -Eq "$@" "$console"; then
        pass "boot $boot: $what"
    else
        show_console
        fail "boot $boot: $what: no console line matches '${*: -1}'"
    fi
}

for ((boot = 1; boot <= BOOTS; boot++)); do
    start=$EPOCHREALTIME
    set +e
    timeout -k 10 "$TIMEOUT" "${cmd[@]}" </dev/null 2>&1 | tr -d '\r' >"$console"
    status=${PIPESTATUS[0]}
    set -e
    end=$EPOCHREALTIME
    ((status != 124 && status != 137)) || { show_console; fail "boot $boot: timed out after $TIMEOUT s"; }
    ! grep -Eq 'Kernel panic|Oops|BUG:|Unable to handle kernel|rcu_.*stall|soft lockup' "$console" \
        || { show_console; fail "boot $boot: the kernel crashed or stalled"; }
    check "both CPUs online" '^SMP online=0-1 nproc=2$'
    for c in 0 1; do
        [[ $(grep -c "^SMP job$c $ZEROS_SHA256  /tmp/zeros\$" "$console") == 3 ]] \
            || { show_console; fail "boot $boot: job $c did not print the right digest three times"; }
        check "job $c ran on CPU $c" "^SMP job$c cpu=$c\$"
    done
    pass "boot $boot: both jobs' digests are right"
    read -r busy0 busy1 < <(sed -n 's/^SMP busy0=\([0-9]*\) busy1=\([0-9]*\)$/\1 \2/p' "$console")
    [[ -n ${busy1:-} ]] || { show_console; fail "boot $boot: no SMP busy line"; }
    ((busy0 > 0 && busy1 > 0)) || { show_console; fail "boot $boot: /proc/stat: CPU 0 busy $busy0, CPU 1 busy $busy1 ticks"; }
    pass "boot $boot: /proc/stat counts work on both CPUs ($busy0 and $busy1 ticks)"
    check "all commands succeeded" '^BRISK-CMD-DONE status=0 failed=0$'
    check "init powered off" '^BRISK-POWEROFF'
    ((status == 0)) || { show_console; fail "boot $boot: brisk exited with status $status after poweroff, want 0"; }
    awk -v b="$boot" -v s="$start" -v e="$end" 'BEGIN { printf "ok: boot %d: exit status 0 after %.2f s\n", b, e - s }'
done
