#!/usr/bin/env bash
# Linux boots with CTR present and recording: boot_linux.sh with OpenSBI 1.9 under `--ctr=any,not_taken
# --ctr-dump=FILE` (U- and S-mode recording on from reset, which OpenSBI leaves alone). The guest must
# see smctr and ssctr in its device tree, boot to poweroff as without CTR, and the dump at exit must be
# a full 256-entry buffer of well-formed brstack lines with kernel addresses.
#
#   ctr_linux.sh BRISK [ENGINE]
set -euo pipefail

(($# == 1 || $# == 2)) || { echo "usage: $0 BRISK [ENGINE]" >&2; exit 2; }
BRISK=$1
ENGINE=${2:-jit}
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/integration/report.sh
source "$HERE/report.sh"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
dump=$WORK/dump
console=$WORK/console

BOOT_ARGS="--ctr=any,not_taken --ctr-dump=$dump" BOOT_CONSOLE=$console \
    BOOT_CMD="echo dt-isa=\$(cat /proc/device-tree/cpus/cpu@0/riscv,isa)" \
    "$HERE/boot_linux.sh" "$BRISK" opensbi19 "$ENGINE"

grep -Eq '^dt-isa=rv64.*_smctr_.*_ssctr(_|$)' "$console" \
    || { show_console; fail "the device tree's riscv,isa lacks smctr or ssctr"; }
pass "device tree: riscv,isa has smctr and ssctr"
# OpenSBI 1.9 lists what it detected; with Ssctr it sets mstateen0.CTR for S mode.
grep -Eq '^Boot HART ISA Extensions *: .*\bsmctr,ssctr\b' "$console" \
    || { show_console; fail "OpenSBI did not detect smctr and ssctr"; }
pass "OpenSBI detected smctr and ssctr"
# Linux 6.12 knows neither, so /proc/cpuinfo's isa line does not list them (boot_linux.sh checks the rest).

[[ -s $dump ]] || fail "--ctr-dump wrote nothing to $dump"
head -1 "$dump" | grep -Eq '^# ctr: hart 0 at exit: 256 valid entries of 256, youngest first$' \
    || fail "dump header: '$(head -1 "$dump")', want a full buffer of 256"
pass "dump: 256 valid entries"
types='exception|interrupt|trap-return|not-taken-branch|taken-branch|indirect-call|direct-call|indirect-jump'
types+='|direct-jump|co-routine-swap|function-return|other-indirect-jump|other-direct-jump'
bad=$(tail -n +2 "$dump" | grep -Evc "^0x[0-9a-f]+/0x[0-9a-f]+/[PM]/-/-/[0-9]+ ($types)\$" || true)
((bad == 0)) || fail "$bad dump lines are not brstack text: $(tail -n +2 "$dump" | grep -Ev '/-/-/' | head -3)"
(($(tail -n +2 "$dump" | wc -l) == 256)) || fail "dump: $(tail -n +2 "$dump" | wc -l) entry lines, want 256"
pass "dump: 256 lines of 0xFROM/0xTO/P|M/-/-/CYCLES TYPE"
grep -Eq '^0xffffffff[0-9a-f]{8}/0xffffffff[0-9a-f]{8}/' "$dump" || fail "dump: no kernel-to-kernel transfer"
pass "dump: kernel addresses"
# The youngest record is the kernel's, before the SBI call that powers off: M mode is not recorded,
# and without MTE neither is the trap into it.
sed -n 2p "$dump" | grep -Eq '^0xffffffff[0-9a-f]{8}/0xffffffff' || fail "youngest entry: '$(sed -n 2p "$dump")'"
pass "dump: the youngest entry is the kernel's"
grep -Eq '/-/-/[1-9][0-9]* ' "$dump" || fail "dump: every cycle count is 0"
pass "dump: cycle counts"
