#!/bin/bash
# The JIT's ETE fast path (docs/ete.md, "The engine rule"): runs PROG under --trace with CONFIG on the
# JIT and on the interpreter, to its end (when CUTS is -) or stopped by --max-insns at each of CUTS,
# and requires the two ete_0.bin streams to be the same bytes, trc_pkt_lister to list the JIT's
# with no error, atoms in it, and the JIT to have run translated code (more blocks translated than
# a hart on the interpreter path translates).
#   ete_jit.sh BRISK PROG CONFIG OPT CUTS
# CONFIG: a --trace-config argument, a file in which <name> and <name.end> stand for the address of
# PROG's symbol name and the first address after it; OPT: one more option for brisk, or -; with --ctr=..., CTR
# records in U and S from the same ring records as the unit, and the two CTR buffers (--ctr-dump)
# must be the same too; CUTS: comma-separated instruction counts, or - for a run to the program's
# end (it must print PASS).
set -euo pipefail
(($# == 5)) || { echo "usage: $0 BRISK PROG CONFIG OPT CUTS" >&2; exit 2; }
BRISK=$1 PROG=$2 CONFIG=$3 OPT=$4 CUTS=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/ete_listing.sh"
command -v trc_pkt_lister >/dev/null || fail "trc_pkt_lister is missing (scripts/setup installs it)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [[ -f $CONFIG ]] && sed 's/#.*//' "$CONFIG" | grep -q '<'; then
    while read -r addr size type name; do
        [[ -n $name ]] || { echo "s/<$type>/0x$addr/g"; continue; }  # a label: no size
        echo "s/<$name>/0x$addr/g; s/<$name\.end>/0x$(printf %x $((16#$addr + 16#$size)))/g"
    done < <(riscv64-unknown-elf-nm -S "$PROG") >"$WORK/symbols.sed"
    sed -f "$WORK/symbols.sed" "$CONFIG" >"$WORK/config"
    ! sed 's/#.*//' "$WORK/config" | grep '<' >&2 || fail "$CONFIG names a symbol $PROG does not have"
    CONFIG=$WORK/config
fi
opts=()
[[ $OPT == - ]] || opts=("$OPT")
IFS=, read -ra cuts <<<"$CUTS"
for cut in "${cuts[@]}"; do
    limit=() want=0
    [[ $cut == - ]] || limit=(--max-insns "$cut") want=125
    for engine in jit interp; do
        dir=$WORK/$engine.$cut
        status=0 dump=()
        [[ $OPT != --ctr=* ]] || dump=(--ctr-dump="$dir.ctr")
        "$BRISK" system --bios none -m 64M --engine=$engine --kernel "$PROG" --trace "$dir" \
            --trace-config "$CONFIG" "${opts[@]}" "${dump[@]}" "${limit[@]}" --stats >"$WORK/console" 2>&1 || status=$?
        [[ $status == "$want" ]] || { cat "$WORK/console" >&2; fail "$engine, cut $cut: status $status, expected $want"; }
        [[ $cut != - ]] || grep -q '^PASS' "$WORK/console" || { cat "$WORK/console" >&2; fail "$engine: the program did not pass"; }
        if [[ $engine == jit ]]; then
            blocks=$(sed -n 's/^brisk: jit: \([0-9]*\) blocks translated.*/\1/p' "$WORK/console")
            # On the interpreter path only the program's tail, once it disabled its unit, is translated:
            # about 10 blocks, none in a run cut before.
            min=0
            [[ $cut != - ]] || min=20
            ((${blocks:-0} > min)) || { cat "$WORK/console" >&2; fail "cut $cut: the JIT translated ${blocks:-0} blocks (not the fast path)"; }
        fi
    done
    cmp "$WORK/jit.$cut/ete_0.bin" "$WORK/interp.$cut/ete_0.bin" ||
        fail "cut $cut: the JIT's stream ($(stat -c %s "$WORK/jit.$cut/ete_0.bin") bytes) is not the interpreter's ($(stat -c %s "$WORK/interp.$cut/ete_0.bin") bytes)"
    if [[ $OPT == --ctr=* ]]; then
        [[ -s $WORK/jit.$cut.ctr ]] || fail "cut $cut: no CTR dump"
        cmp "$WORK/jit.$cut.ctr" "$WORK/interp.$cut.ctr" || fail "cut $cut: the JIT's CTR buffer is not the interpreter's"
    fi
    ete_listing "$WORK/jit.$cut" "$WORK/listing" "cut $cut: "
    atoms=$(grep -c 'I_ATOM_F' "$WORK/listing" || true)
    ((atoms > 0)) || fail "cut $cut: no atoms in the stream"
    echo "ok: cut $cut: $(stat -c %s "$WORK/jit.$cut/ete_0.bin") bytes the same on both engines, $atoms atom packets, $blocks blocks translated"
done
