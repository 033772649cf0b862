#!/usr/bin/env bash
# brisk trace-decode on a real stream: the cached kernel booted under OpenSBI 1.9's fw_jump with
# Linux's AutoFDO strobing for 20 million instructions, decoded with only OpenSBI's ELF
# (fw_jump.elf, position-independent, loaded at 0x80000000): the firmware's code must decode
# without a mismatch (its SBI calls from S-mode as exceptions 9, the interrupts it takes), the
# kernel's be gaps, every listed instruction lie in the firmware, and --itrace give samples.
#   ete_decode_boot.sh BRISK
set -euo pipefail
(($# == 1)) || { echo "usage: $0 BRISK" >&2; exit 2; }
BRISK=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/../bare/ete_listing.sh"
CACHE=${BRISK_CACHE:-$HOME/.cache/brisk}
# shellcheck disable=SC1091
source "$CACHE/images/images.env" 2>/dev/null || fail "no $CACHE/images/images.env: run scripts/guest-images"
[[ -f $OPENSBI19_FW_JUMP_ELF ]] || fail "no $OPENSBI19_FW_JUMP_ELF"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

st=0
"$BRISK" system --bios "$OPENSBI19_FW_JUMP" --kernel "$KERNEL" --initrd "$INITRD_BUSYBOX" --append console=ttyS0 \
    --max-insns 20000000 --trace "$WORK/trace" --trace-config autofdo:2000,9 >"$WORK/console" 2>&1 || st=$?
((st == 125)) || { tail -5 "$WORK/console" >&2; fail "brisk system exited with $st, not 125 (--max-insns)"; }
ete_listing "$WORK/trace" "$WORK/packets"
st=0
"$BRISK" trace-decode "$WORK/trace" --elf "$OPENSBI19_FW_JUMP_ELF" --elf-base 0x80000000 >"$WORK/listing" \
    2>"$WORK/summary" || st=$?
((st == 0)) || { cat "$WORK/summary" >&2; fail "trace-decode exited with $st"; }
cat "$WORK/summary"
read -r insns gaps < <(sed -n 's/.*: \([0-9]*\) instructions, .*, \([0-9]*\) gaps .*/\1 \2/p' "$WORK/summary")
((insns > 100000 && gaps > 100)) || fail "$insns instructions and $gaps gaps decoded: too few"
grep -q '^# exception 9 (ecall from S-mode) at 0xffffffff8' "$WORK/listing" || fail "no SBI call from the kernel"
# Every listed instruction in the firmware's text (the first 256 KiB of RAM).
bad=$(awk '/^0x/ && ($1 < "0x0000000080000000" || $1 >= "0x0000000080040000")' "$WORK/listing" | wc -l)
((bad == 0)) || fail "$bad listed instructions outside the firmware"
"$BRISK" trace-decode "$WORK/trace" --elf "$OPENSBI19_FW_JUMP_ELF" --elf-base 0x80000000 --itrace=i1000 \
    -o "$WORK/script" 2>"$WORK/summary2" || fail "trace-decode --itrace failed: $(cat "$WORK/summary2")"
samples=$(grep -vc '^PERF_RECORD_MMAP2' "$WORK/script" || true)
((samples == insns / 1000)) || fail "$samples samples for $insns instructions at i1000"
echo "ok: OpenSBI decoded from a Linux boot's trace: $insns instructions, $gaps gaps, $samples samples"
