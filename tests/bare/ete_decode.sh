#!/bin/bash
# brisk trace-decode (docs/ete.md, "Decoding") against known code: runs tests/bare/ete_decode.c
# under full trace (ete_decode.cfg) and checks that the decoded listing holds exactly the
# instruction sequence flow() must execute, spelled from nm and objdump (not from the decoder), the
# ecall's exception line, trace starting at the ELF's entry, and a decoded count that is the
# run's instructions but the few after its last branch. Then a corrupt stream, a missing
# directory and the wrong ELF must each give one line and status 1.
#   ete_decode.sh BRISK PROG CONFIG
set -euo pipefail
(($# == 3)) || { echo "usage: $0 BRISK PROG CONFIG" >&2; exit 2; }
BRISK=$1 PROG=$2 CONFIG=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/ete_listing.sh"
for tool in riscv64-unknown-elf-nm riscv64-unknown-elf-objdump riscv64-unknown-elf-readelf; do
    command -v $tool >/dev/null || fail "$tool is missing (scripts/setup installs it)"
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

st=0
"$BRISK" system --bios none -m 64M --stats --kernel "$PROG" --trace "$WORK/trace" --trace-config "$CONFIG" \
    >"$WORK/console" 2>&1 || st=$?
((st == 0)) || { cat "$WORK/console" >&2; fail "brisk system exited with $st"; }
grep -q '^PASS' "$WORK/console" || { cat "$WORK/console" >&2; fail "the program did not pass"; }
ete_listing "$WORK/trace" "$WORK/packets"
"$BRISK" trace-decode "$WORK/trace" --elf "$PROG" >"$WORK/listing" 2>"$WORK/summary" || st=$?
((st == 0)) || { cat "$WORK/summary" >&2; fail "trace-decode exited with $st"; }
cat "$WORK/summary"

riscv64-unknown-elf-nm "$PROG" >"$WORK/nm"
sym() { awk -v s="$1" '$3 == s {printf "0x%s\n", $1}' "$WORK/nm"; }
# Every instruction address of PROG, "DECIMAL 0x%016x".
riscv64-unknown-elf-objdump -d "$PROG" | sed -n 's/^ *\([0-9a-f][0-9a-f]*\):\t.*/\1/p' |
    while read -r a; do printf '%d 0x%016x\n' "0x$a" "0x$a"; done >"$WORK/addresses"
# range FROM TO: the instruction addresses in [FROM, TO), as the listing prints them.
range() { awk -v lo=$(($(sym "$1"))) -v hi=$(($(sym "$2"))) '$1 >= lo && $1 < hi {print $2}' "$WORK/addresses"; }
for s in flow flow_loop flow_ret1 flow_ret2 flow_ecall flow_resume flow_leaf flow_leaf2 flow_handler flow_end; do
    [[ -n $(sym $s) ]] || fail "no symbol $s in $PROG"
done

# The expected sequence, from flow's first instruction to its ret.
{
    range flow flow_loop
    for _ in 1 2 3; do
        range flow_loop flow_ret1   # addi, jal flow_leaf
        range flow_leaf flow_leaf2  # addi, ret
        range flow_ret1 flow_ret2   # jalr flow_leaf2
        range flow_leaf2 flow_handler
        range flow_ret2 flow_ecall  # bnez
    done
    printf '# exception 11 (ecall from M-mode) at 0x%x, handler 0x%x (EL3)\n' "$(sym flow_ecall)" "$(sym flow_handler)"
    range flow_handler flow_end     # the ecall did not retire; mret returns past it
    range flow_resume flow_leaf
} >"$WORK/expected"
first=$(printf '0x%016x' "$(sym flow)")
start=$(grep -n "^$first " "$WORK/listing" | cut -d: -f1)
[[ $(wc -w <<<"$start") == 1 ]] || fail "flow's first instruction is in the listing $(wc -w <<<"$start") times, not once"
# The listing from there, pcs only (the exception line whole).
n=$(wc -l <"$WORK/expected")
sed -n "$start,$((start + n - 1))p" "$WORK/listing" | sed 's/^\(0x[0-9a-f]*\)  .*/\1/' >"$WORK/got_pcs"
diff -u "$WORK/expected" "$WORK/got_pcs" || fail "the decoded sequence of flow() differs from the program's"
# After flow's ret, main goes on at the instruction after its call.
next=$(sed -n "$((start + n))p" "$WORK/listing" | cut -d' ' -f1)
call=$(sed -n "$((start - 1))p" "$WORK/listing" | cut -d' ' -f1)
# (main calls it with auipc ra and a 4-byte jalr ra)
sed -n "$((start - 1))p" "$WORK/listing" | grep -q "^$call  jalr* ra," || fail "the instruction before flow ($call) is no call"
(( next == call + 4 )) || fail "after flow's ret the listing goes on at $next, not after the call at $call"
# flow_leaf runs three times in the whole run, the handler once.
leaf=$(grep -c "^$(printf '0x%016x' "$(sym flow_leaf)") " "$WORK/listing" || true)
[[ $leaf == 3 ]] || fail "flow_leaf ran $leaf times in the listing, not 3"
# The exceptions: flow's ecall, then run_in's return to M from U and from S (run_trampoline's ecall).
ecall=$(riscv64-unknown-elf-objdump -d "$PROG" | awk '/<run_trampoline>:/ {f = 1} f && !done && $3 == "ecall" {sub(":", "", $1); print "0x" $1; done = 1}')
[[ -n $ecall ]] || fail "no ecall in run_trampoline"
diff -u <(printf '# exception %s at 0x%x, handler 0x%x (EL3)\n' \
    "11 (ecall from M-mode)" "$(sym flow_ecall)" "$(sym flow_handler)" \
    "8 (ecall from U-mode)" "$ecall" "$(sym m_direct)" "9 (ecall from S-mode)" "$ecall" "$(sym m_direct)") \
    <(grep '^# exception' "$WORK/listing") || fail "the exception lines differ"
# Trace starts at the entry, once; it is never off, so no other Trace On.
entry=$(riscv64-unknown-elf-readelf -h "$PROG" | awk '/Entry point/ {print $4}')
[[ $(sed -n 2p "$WORK/listing") == "# trace on at $entry (EL3)" ]] || fail "trace does not start at the entry $entry: $(sed -n 2p "$WORK/listing")"
[[ $(grep -c '^# trace on' "$WORK/listing") == 1 ]] || fail "more than one Trace On under full trace"
# Every retired instruction but those after the last branch (the finisher's store) is listed.
decoded=$(grep -c '^0x' "$WORK/listing")
retired=$(sed -n 's/^brisk: \([0-9]*\) instructions in .*/\1/p' "$WORK/console")
((retired - decoded >= 0 && retired - decoded <= 16)) ||
    fail "$decoded instructions decoded of $retired retired: more than the tail after the last branch is missing"
# The periodic A-Sync (TRCSYNCPR 8) came in the middle.
syncs=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().count(bytes(11) + b"\x80"))' "$WORK/trace/ete_0.bin")
((syncs >= 3)) || fail "only $syncs A-Sync packets in the stream: TRCSYNCPR 8 did not take"
echo "ok: flow() decoded exactly ($(wc -l <"$WORK/expected") lines); $decoded of $retired instructions listed"

# --- errors: one line, status 1 -------------------------------------------------------------------
expect_error() {  # WHAT REGEX ARGS...
    local what=$1 re=$2 status=0
    shift 2
    "$BRISK" trace-decode "$@" >/dev/null 2>"$WORK/err" || status=$?
    [[ $status == 1 ]] || fail "$what: status $status, expected 1"
    [[ $(wc -l <"$WORK/err") == 1 ]] || { cat "$WORK/err" >&2; fail "$what: not one line"; }
    grep -Eq "$re" "$WORK/err" || fail "$what: '$(cat "$WORK/err")' does not match '$re'"
}
expect_error "missing directory" "brisk: $WORK/none is no trace snapshot: no snapshot.ini" "$WORK/none" --elf "$PROG"
expect_error "not an ELF" "brisk: .*/snapshot.ini is not an ELF file" "$WORK/trace" --elf "$WORK/trace/snapshot.ini"
# An executable segment of 252 GiB in memory and 4 KiB in the file: only the file's bytes are code
# (a decoder that allocated p_memsz failed with bad_alloc), and the stream runs none of it.
mkdir "$WORK/elf" && python3 "$(dirname "$0")/../integration/make_elf.py" "$WORK/elf" >/dev/null
expect_error "a huge p_memsz" "brisk: .*/ete_0.bin: .*code" "$WORK/trace" --elf "$WORK/elf/giant-memsz"
cp -r "$WORK/trace" "$WORK/cut"
head -c 40 "$WORK/trace/ete_0.bin" >"$WORK/cut/ete_0.bin"
printf '\x86\x00' >>"$WORK/cut/ete_0.bin"
expect_error "truncated stream" "brisk: .*/ete_0.bin: offset 40: the packet with header 0x86 is cut short" "$WORK/cut" --elf "$PROG"
# The code of another program: the stream's branches are not where it has them.
other=$(dirname "$PROG")/ete_autofdo
[[ -f $other ]] || fail "no $other (tests/bare builds it)"
expect_error "the wrong ELF" "brisk: .*/ete_0.bin: offset [0-9]+: .*the stream does not match the program" "$WORK/trace" --elf "$other"
echo "ok: errors"
