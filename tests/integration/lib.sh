# shellcheck shell=bash
# Shared by the integration tests, which run as: TEST.sh BRISK ENGINE
# BRISK is the brisk binary; a path to qemu-riscv64 instead checks the test itself against QEMU.
set -euo pipefail

(($# == 2)) || { echo "usage: $0 BRISK ENGINE" >&2; exit 2; }
BRISK=$1
ENGINE=$2
SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts" && pwd)
SYSROOT=$("$SCRIPTS/guest-sysroot" --print-dir)
BUSYBOX=$SYSROOT/usr/bin/busybox

# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"

[[ -x $BRISK ]] || fail "no brisk binary at '$BRISK'"
[[ -x $BUSYBOX && -e $SYSROOT/usr/bin/xz ]] || fail "sysroot $SYSROOT is incomplete: run scripts/guest-sysroot"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# guest [--sysroot] PROGRAM ARG...: runs a riscv64 Linux program; --sysroot resolves its ELF
# interpreter and libraries under $SYSROOT.
guest() {
    local opts=()
    if [[ $1 == --sysroot ]]; then
        shift
        opts=(--sysroot "$SYSROOT")
    fi
    if [[ ${BRISK##*/} == qemu-riscv64* ]]; then
        ((${#opts[@]} == 0)) || opts=(-L "$SYSROOT")
        "$BRISK" "${opts[@]}" "$@"
    else
        "$BRISK" run --engine="$ENGINE" "${opts[@]}" "$@"
    fi
}

# make_data FILE BYTES: deterministic data, alternating 4 KiB of text and of pseudo-random bytes,
# so compressors see both easy and incompressible input.
make_data() {
    LC_ALL=C awk -v n="$2" 'BEGIN {
        s = 1; out = 0
        while (out < n) {
            if (int(out / 4096) % 2 == 0) {
                line = sprintf("%08d brisk integration data, seed %u\n", out, s)
                printf "%s", line
                out += length(line)
            } else {
                s = (s * 1664525 + 1013904223) % 4294967296
                printf "%c", int(s / 16777216)
                out++
            }
        }
    }' | head -c "$2" >"$1"
    [[ $(stat -c %s "$1") == "$2" ]] || fail "could not generate $2 bytes of test data in $1"
}

# show FILE: the first bytes of an output, for failure messages.
show() { head -c 200 "$1" | od -An -c | head -5; }
