#!/usr/bin/env bash
# Boots Debian's riscv64 kernel with OpenSBI and the busybox initramfs, lets the image's /init run
# three commands and power off, and checks the console and the exit status.
#
#   boot_linux.sh BRISK FIRMWARE [ENGINE]
#
# BRISK is the brisk binary (run as `BRISK system --bios ... --kernel ... --initrd ... --append ...`);
# a path to qemu-system-riscv64 instead checks the test itself against QEMU. FIRMWARE is opensbi16 or
# opensbi19 (fw_jump), or opensbi16-dynamic / opensbi19-dynamic (fw_dynamic). ENGINE, if given, is
# passed to brisk as --engine. A FIRMWARE ending in -elf boots the same build's position-independent
# ELF (fw_jump.elf, fw_dynamic.elf), which brisk loads at the start of RAM (QEMU 7.2 cannot load it).
# FIRMWARE default gives brisk no --bios, --kernel or --initrd: it must boot the cached kernel,
# OpenSBI 1.9's fw_jump and the busybox initramfs by itself.
# BOOT_TIMEOUT (seconds, default 300) bounds the whole run. Tests built on this one set BOOT_ARGS
# (more brisk options, split at spaces), BOOT_CMD (one more guest command, without double quotes)
# and BOOT_CONSOLE (a file that gets the console).
set -euo pipefail

(($# == 2 || $# == 3)) || { echo "usage: $0 BRISK opensbi16|opensbi19[-dynamic][-elf] [ENGINE]" >&2; exit 2; }
BRISK=$1
FIRMWARE=$2
ENGINE=${3:-}
TIMEOUT=${BOOT_TIMEOUT:-300}
SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)
# The known value of `echo -n brisk | sha256sum`, so a broken host tool cannot hide a guest bug.
BRISK_SHA256=201cd0cd6b8a35ff9f9585f9cf54270eb640a4ba547751c6233cde7e7111fe14

# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"

[[ -x $BRISK ]] || fail "no emulator binary at '$BRISK'"
images=$("$SCRIPTS/guest-images" --print) || fail "scripts/guest-images failed"
eval "$images"
case $FIRMWARE in
    opensbi16) fw=$OPENSBI16_FW_JUMP ;;
    opensbi19) fw=$OPENSBI19_FW_JUMP ;;
    opensbi16-dynamic) fw=$OPENSBI16_FW_DYNAMIC ;;
    opensbi19-dynamic) fw=$OPENSBI19_FW_DYNAMIC ;;
    opensbi16-elf) fw=$OPENSBI16_FW_JUMP_ELF ;;
    opensbi19-elf) fw=$OPENSBI19_FW_JUMP_ELF ;;
    opensbi16-dynamic-elf) fw=$OPENSBI16_FW_DYNAMIC_ELF ;;
    opensbi19-dynamic-elf) fw=$OPENSBI19_FW_DYNAMIC_ELF ;;
    default) fw=$OPENSBI19_FW_JUMP ;;
    *) fail "unknown firmware '$FIRMWARE' (opensbi16, opensbi19, opensbi16-dynamic, opensbi19-dynamic, each with -elf)" ;;
esac

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# quiet keeps kernel messages from splitting the command output; the init reads brisk.cmd itself.
append="console=ttyS0 quiet brisk.cmd=\"uname -a; cat /proc/cpuinfo; echo -n brisk | sha256sum${BOOT_CMD:+; $BOOT_CMD}\""
read -ra extra <<<"${BOOT_ARGS:-}"
# The lockstep checker runs the guest some 35 times slower while the guest's clock keeps host time:
# the soft-lockup watchdog would take that for a hung CPU.
[[ $ENGINE != check ]] || append="nowatchdog $append"
if [[ ${BRISK##*/} == qemu-system-riscv64* ]]; then
    cmd=("$BRISK" -M virt -m 1G -smp 1 -nographic -bios "$fw" -kernel "$KERNEL" -initrd "$INITRD_BUSYBOX"
        -append "$append")
elif [[ $FIRMWARE == default ]]; then
    cmd=("$BRISK" system ${ENGINE:+--engine="$ENGINE"} -m 1G --smp 1 --append "$append" "${extra[@]}")
else
    cmd=("$BRISK" system ${ENGINE:+--engine="$ENGINE"} -m 1G --smp 1 --bios "$fw" --kernel "$KERNEL"
        --initrd "$INITRD_BUSYBOX" --append "$append" "${extra[@]}")
fi
printf -v shown "%q " "${cmd[@]}"
echo "running: $shown"

# The console goes to a file with carriage returns removed; the time of the init marker is noted
# as it arrives, for the boot-time report.
console=$WORK/console
start=$EPOCHREALTIME
set +e
timeout -k 10 "$TIMEOUT" "${cmd[@]}" </dev/null 2>&1 | while IFS= read -r line || [[ -n $line ]]; do
    line=${line%$'\r'}
    printf '%s\n' "$line"
    [[ $line != BRISK-INIT-START* ]] || echo "$EPOCHREALTIME" >"$WORK/marker"
done >"$console"
status=${PIPESTATUS[0]}
set -e
end=$EPOCHREALTIME
[[ -z ${BOOT_CONSOLE:-} ]] || cp "$console" "$BOOT_CONSOLE"

check() {
    # check DESCRIPTION GREP-ARGS...: the console must contain a matching line.
    local what=$1
    shift
    if grep -Eq "$@" "$console"; then
        pass "$what"
    else
        show_console
        fail "$what: no console line matches '${*: -1}'"
    fi
}

((status != 124 && status != 137)) || { show_console; fail "timed out after $TIMEOUT s"; }
[[ -s $console ]] || fail "the emulator exited with status $status and printed nothing"
! grep -Eq 'Kernel panic|Oops|BUG:|Unable to handle kernel' "$console" \
    || { show_console; fail "the kernel crashed"; }
version=1.9
[[ $FIRMWARE != opensbi16* ]] || version=1.6
check "OpenSBI $version ran" "^OpenSBI v${version//./\\.}\$"
check "init started" '^BRISK-INIT-START kernel=6\.12\.'
check "uname -a: Linux 6.12 riscv64" '^Linux brisk 6\.12\.[^ ]+ .* riscv64( GNU/Linux)?$'
check "/proc/cpuinfo: isa rv64imafdc" '^isa[[:space:]]*: rv64imafdc'
check "/proc/cpuinfo: mmu sv39/sv48/sv57" '^mmu[[:space:]]*: sv(39|48|57)$'
check "sha256 of 'brisk'" "^$BRISK_SHA256  -\$"
check "all commands succeeded" '^BRISK-CMD-DONE status=0 failed=0$'
check "init powered off" '^BRISK-POWEROFF'
((status == 0)) || { show_console; fail "the emulator exited with status $status after poweroff, want 0"; }
pass "exit status 0"

if [[ -f $WORK/marker ]]; then
    awk -v s="$start" -v m="$(<"$WORK/marker")" -v e="$end" -v fw="${fw##*/images/}" \
        'BEGIN { printf "boot time (%s): init marker after %.2f s, exit after %.2f s\n", fw, m - s, e - s }'
fi
