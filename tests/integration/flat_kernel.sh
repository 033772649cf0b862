#!/usr/bin/env bash
# A flat-binary kernel (tests/bare/flat_kernel.c, objcopy -O binary) boots under OpenSBI at 0x80200000:
# under fw_jump of OpenSBI 1.6 and 1.9 and fw_dynamic of 1.9, it must print its PASS line through
# SBI and power off with status 0 (a failed check in it stops with status 3; a kernel loaded
# elsewhere, or not entered, hangs until brisk's --timeout gives 124).
#
#   flat_kernel.sh BRISK FLAT_BIN [ENGINE]
#
# BRISK is the brisk binary; a path to qemu-system-riscv64 instead checks the test against QEMU.
set -euo pipefail

(($# == 2 || $# == 3)) || { echo "usage: $0 BRISK FLAT_BIN [ENGINE]" >&2; exit 2; }
BRISK=$1
FLAT=$2
ENGINE=${3:-}
SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)
# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"

[[ -x $BRISK ]] || fail "no emulator binary at '$BRISK'"
[[ -f $FLAT ]] || fail "no flat kernel at '$FLAT'"
# A flat binary: neither an ELF nor a RISC-V Linux Image (whose header says where it goes).
[[ $(head -c 4 "$FLAT" | od -An -tx1 | tr -d ' ') != 7f454c46 ]] || fail "$FLAT is an ELF"
[[ $(dd if="$FLAT" bs=1 skip=56 count=4 status=none) != RSC$'\x05' ]] || fail "$FLAT is a Linux Image"
images=$("$SCRIPTS/guest-images" --print) || fail "scripts/guest-images failed"
eval "$images"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
console=$WORK/console

for fw in "$OPENSBI16_FW_JUMP" "$OPENSBI19_FW_JUMP" "$OPENSBI19_FW_DYNAMIC"; do
    name=${fw##*/images/}
    version=${name#opensbi-}
    version=${version%%-*}
    if [[ ${BRISK##*/} == qemu-system-riscv64* ]]; then
        cmd=(timeout 20 "$BRISK" -M virt -m 256M -smp 1 -nographic -bios "$fw" -kernel "$FLAT")
    else
        cmd=("$BRISK" system ${ENGINE:+--engine="$ENGINE"} -m 256M --timeout 20 --bios "$fw" --kernel "$FLAT")
    fi
    set +e
    "${cmd[@]}" </dev/null 2>&1 | tr -d '\r' >"$console"
    status=${PIPESTATUS[0]}
    set -e
    for want in "OpenSBI v$version" 'Domain0 Next Address +: 0x0000000080200000' 'Domain0 Next Mode +: S-mode' \
                'PASS flat_kernel'; do
        grep -Eqx "$want" "$console" || { show_console; fail "$name: no console line '$want'"; }
    done
    ((status == 0)) || { show_console; fail "$name: exit status $status, want 0"; }
    pass "$name: the flat kernel ran at 0x80200000 in S-mode, PASS, status 0"
done
