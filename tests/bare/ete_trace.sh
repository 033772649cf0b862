#!/bin/bash
# The harts feed their ETE trace units (docs/ete.md, "The hook"): runs a tests/bare/ete_trace.c
# (or ete_autofdo.c) program with --trace DIR on ENGINE, lists the snapshot with Debian's
# trc_pkt_lister (libopencsd-bin) and compares its packets with the ones the program's known code
# must give, at the addresses nm and objdump find in PROG; brisk trace-decode must decode it.
#   ete_trace.sh SCENARIO BRISK PROG ENGINE
# SCENARIO: range, start_stop, el, pecomp, bb, bb_range, autofdo, autofdo_opts (with --trace-opts cycles,timestamps) or
# autofdo_smp (with --smp 2).
set -euo pipefail
(($# == 4)) || { echo "usage: $0 SCENARIO BRISK PROG ENGINE" >&2; exit 2; }
SCENARIO=$1 BRISK=$2 PROG=$3 ENGINE=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/ete_listing.sh"
for tool in trc_pkt_lister riscv64-unknown-elf-nm riscv64-unknown-elf-objdump; do
    command -v $tool >/dev/null || fail "$tool is missing (scripts/setup installs it)"
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

args=()
[[ $SCENARIO == autofdo* ]] && args=(--trace-config autofdo:9,4)
[[ $SCENARIO == autofdo_opts ]] && args+=(--trace-opts cycles,timestamps)
# Two harts on host threads: hart 1 waits in WFI on the interpreter, its unit enabled too, and
# hart 0's stream is the same.
[[ $SCENARIO == autofdo_smp ]] && args+=(--smp 2)
"$BRISK" system --bios none -m 64M --engine="$ENGINE" --kernel "$PROG" --trace "$WORK/trace" "${args[@]}" \
    >"$WORK/console" 2>&1 || { status=$?; cat "$WORK/console" >&2; fail "brisk system exited with $status"; }
grep -q '^PASS' "$WORK/console" || { cat "$WORK/console" >&2; fail "the program did not pass"; }
ete_listing "$WORK/trace" "$WORK/listing"
# Each packet as "OFFSET TYPE DETAILS", short addresses without their "~[...]" bits.
sed -n 's/^Idx:\([0-9]*\); ID:[0-9a-fx]*;\t\([A-Z0-9_]*\) : [^;]*;* *\(.*\)$/\1 \2 \3/p' "$WORK/listing" |
    sed 's/ ~\[0x[0-9A-F]*\]//; s/ *$//' >"$WORK/packets"

sym() { printf '0x%016X' "0x$(riscv64-unknown-elf-nm "$PROG" | awk -v s="$1" '$3 == s {print $1}')"; }
hex() { printf '0x%016X' "$1"; }
# The exception type an exception packet at OFFSET carries (docs/ete.md: the RISC-V cause).
exception_type() { echo $((($(od -An -tu1 -j$(($1 + 1)) -N1 "$WORK/trace/ete_0.bin") >> 1) & 0x1f)); }
# "TYPE DETAILS" of every packet, one a line.
types() { cut -d' ' -f2- "$WORK/packets"; }
expect() {
    diff -u <(printf '%s\n' "$@") <(types) >"$WORK/diff" || { cat "$WORK/diff" >&2; fail "$SCENARIO: unexpected packets"; }
}
check_exception() {  # CAUSE: the only exception packet's type
    local off
    off=$(awk '$2 == "I_EXCEPT" {print $1}' "$WORK/packets")
    [[ $(exception_type "$off") == "$1" ]] || fail "$SCENARIO: exception type $(exception_type "$off"), expected $1"
}
m3='Ctxt: AArch64,EL3, S;'
sync=('I_ASYNC' 'I_TRACE_INFO INFO=0x0 { CC.0, TSTATE.0 }')

case $SCENARIO in
range)
    # The loop's E E N, the ecall's exception (cause 11, return address, the handler), Trace On
    # after the handler at ete_after, and the ret's E with its target in main.
    handler=$(sym m_direct)
    riscv64-unknown-elf-objdump -d "$PROG" >"$WORK/disassembly"
    ret=$(hex "0x$(grep -A1 'jal.*<ete_pattern>$' "$WORK/disassembly" | tail -1 | awk '{print $1}' | tr -d :)")
    expect "${sync[@]}" 'I_TRACE_ON' "I_ADDR_CTXT_L_64IS1 Addr=$(sym ete_pattern); $m3" 'I_ATOM_F3 EEN' \
        'I_EXCEPT Inst Fault; Ret Addr Follows;' "I_ADDR_S_IS1 Addr=$(sym ete_ecall)" \
        "I_ADDR_CTXT_L_64IS1 Addr=$handler; $m3" \
        'I_TRACE_ON' "I_ADDR_CTXT_L_64IS1 Addr=$(sym ete_after); $m3" 'I_ATOM_F1 E' "I_ADDR_S_IS1 Addr=$ret"
    check_exception 11
    ;;
start_stop)
    # Started at ete_ss: E N; stopped after ete_ss_stop, so not the branch after it.
    expect "${sync[@]}" 'I_TRACE_ON' "I_ADDR_CTXT_L_64IS1 Addr=$(sym ete_ss); $m3" 'I_ATOM_F2 EN'
    ;;
el)
    # EL3 excluded: run_trampoline's jalr to ete_user (E, address), its loop and ret (E N E), the
    # return address, and the closing ecall's exception (cause 8) to the M-mode handler.
    riscv64-unknown-elf-objdump -d "$PROG" >"$WORK/disassembly"
    listing=$(awk '/<run_trampoline>:/ {f = 1; next} f && NF == 0 {exit} f' "$WORK/disassembly")
    after_jalr=$(hex "0x$(sed -n 2p <<<"$listing" | awk '{print $1}' | tr -d :)")
    ecall=$(hex "0x$(grep -w ecall <<<"$listing" | awk '{print $1}' | tr -d :)")
    expect "${sync[@]}" 'I_TRACE_ON' "I_ADDR_CTXT_L_64IS1 Addr=$(sym run_trampoline); Ctxt: AArch64,EL0, NS;" \
        'I_ATOM_F1 E' "I_ADDR_S_IS1 Addr=$(sym ete_user)" 'I_ATOM_F3 ENE' "I_ADDR_S_IS1 Addr=$after_jalr" \
        'I_EXCEPT Reserved; Ret Addr Follows;' "I_ADDR_S_IS1 Addr=$ecall" \
        "I_ADDR_CTXT_L_64IS1 Addr=$(sym m_direct); $m3"
    check_exception 8
    ;;
pecomp)
    # The breakpoint on ete_bp is not traced (trace had not started); it starts at the handler.
    head -4 "$WORK/packets" | cut -d' ' -f2- >"$WORK/first"
    diff -u <(printf '%s\n' "${sync[@]}" 'I_TRACE_ON' "I_ADDR_CTXT_L_64IS1 Addr=$(sym m_direct); $m3") "$WORK/first" ||
        fail "pecomp: trace does not start at the breakpoint handler"
    ! grep -q I_EXCEPT "$WORK/packets" || fail "pecomp: an exception packet, though the breakpoint came before trace"
    ;;
bb | bb_range)
    # ete_bb twice, each from the call in main (found by objdump) back to the instruction after
    # it. Without branch broadcasting only the ret's target follows the atoms (E E E N E N E);
    # with it everywhere so do the jal's, the taken bnez's and the beqz's; in range 1 (the loop)
    # only the jal's and the bnez's.
    grep -q '^TRCCONFIGR=0x8$' "$WORK/trace/ETE_0.ini" || fail "$SCENARIO: ETE_0.ini does not give TRCCONFIGR.BB"
    riscv64-unknown-elf-objdump -d "$PROG" >"$WORK/disassembly"
    mapfile -t rets < <(grep -A1 'jal.*<ete_bb>$' "$WORK/disassembly" | grep -v 'jal.*<ete_bb>$' | grep -v '^--' |
        awk '{print $1}' | tr -d :)
    case ${#rets[@]} in
    1) rets+=("${rets[0]}") ;;
    2) ;;
    *) fail "$SCENARIO: ${#rets[@]} calls of ete_bb in main" ;;
    esac
    on=('I_TRACE_ON' "I_ADDR_CTXT_L_64IS1 Addr=$(sym ete_bb); $m3")
    loop=$(sym ete_bb_loop) j=$(sym ete_bb_j)
    if [[ $SCENARIO == bb ]]; then
        tail=('I_ATOM_F2 NE' "I_ADDR_S_IS1 Addr=$(sym ete_bb_out2)" 'I_ATOM_F2 NE')
    else
        tail=('I_ATOM_F3 NEN' 'I_ATOM_F1 E')
    fi
    expect "${sync[@]}" "${on[@]}" 'I_ATOM_F6 EEEN' 'I_ATOM_F3 ENE' "I_ADDR_S_IS1 Addr=$(hex "0x${rets[0]}")" \
        "${sync[@]}" "${on[@]}" 'I_ATOM_F1 E' "I_ADDR_S_IS1 Addr=$j" 'I_ATOM_F1 E' "I_ADDR_S_IS1 Addr=$loop" \
        'I_ATOM_F1 E' "I_ADDR_S_IS1 Addr=$j" "${tail[@]}" "I_ADDR_S_IS1 Addr=$(hex "0x${rets[1]}")"
    ;;
autofdo | autofdo_smp)
    if [[ $SCENARIO == autofdo_smp ]]; then
        [[ -s $WORK/trace/ete_1.bin ]] || fail "autofdo_smp: hart 1's stream is empty"
        grep -q '^ETE_1=ETB_1$' "$WORK/trace/trace.ini" || fail "autofdo_smp: trace.ini has no stream for hart 1"
    fi
    # Window 9, period 4: trace is on for 10 of every 50 instructions. ete_loop's 1000 instructions
    # hold exactly 20 window starts, and each window of 10 of them five taken branches (all but
    # the last window, which may reach the loop's end).
    lo=$(sym ete_loop) hi=$(sym ete_loop_end)
    # Addresses as fixed-width hex compare as strings.
    awk -v lo="$lo" -v hi="$hi" '
        $2 == "I_TRACE_ON" {on = 1; next}
        on && $2 == "I_ADDR_CTXT_L_64IS1" {on = 0; a = substr($3, 6, 18); w = (a >= lo && a < hi) ? ++n : 0; next}
        w && $2 ~ /^I_ATOM/ {atoms[w] = atoms[w] $3}
        END {for (i = 1; i <= n; i++) print atoms[i]}' "$WORK/packets" >"$WORK/windows"
    [[ $(wc -l <"$WORK/windows") == 20 ]] || { cat "$WORK/windows" >&2; fail "autofdo: $(wc -l <"$WORK/windows") windows in the loop, expected 20"; }
    head -19 "$WORK/windows" | grep -vx EEEEE >&2 && fail "autofdo: a window in the loop without exactly five E atoms"
    ;;
autofdo_opts)
    # TRCCONFIGR.CCI and TS: Trace Info with CC and threshold 0, a Timestamp after each, a Cycle
    # Count after each atom; in ete_loop's windows each count but a window's first is the two
    # instructions of a turn.
    lo=$(sym ete_loop) hi=$(sym ete_loop_end)
    awk -v lo="$lo" -v hi="$hi" '
        $2 == "I_TRACE_INFO" {infos++; if ($0 !~ /CC\.1, TSTATE\.0 }; CC_THRESHOLD=0x0$/) bad = bad "trace info: " $0 "\n"}
        prev == "I_TRACE_INFO" && $2 != "I_TIMESTAMP" {bad = bad "no timestamp after trace info at " $1 "\n"}
        prev ~ /^I_ATOM_F1/ && $2 != "I_CCNT_F1" {bad = bad "no cycle count after the atom at " $1 "\n"}
        $2 == "I_ADDR_CTXT_L_64IS1" && prev == "I_TRACE_ON" {a = substr($3, 6, 18); inloop = a >= lo && a < hi; first = 1}
        $2 == "I_CCNT_F1" && inloop {if (!first && $3 != "Count=0x2") bad = bad "loop cycle count " $3 " at " $1 "\n"; first = 0; counts++}
        {prev = $2}
        END {if (!infos || !counts) bad = bad "no trace info or no loop cycle counts\n"; printf "%s", bad}' \
        "$WORK/packets" >"$WORK/bad"
    [[ ! -s $WORK/bad ]] || { head "$WORK/bad" >&2; fail "autofdo_opts: packets out of place"; }
    ;;
*) fail "unknown scenario $SCENARIO" ;;
esac
# brisk trace-decode walks the same stream through PROG's code without a mismatch, and finds as
# many Trace On and exception packets as trc_pkt_lister.
"$BRISK" trace-decode "$WORK/trace" --elf "$PROG" >"$WORK/decoded" 2>"$WORK/decode.err" ||
    { cat "$WORK/decode.err" >&2; fail "$SCENARIO: brisk trace-decode failed"; }
for what in "I_TRACE_ON:# trace on" "I_EXCEPT:# exception"; do
    want=$(grep -c "^[0-9]* ${what%%:*}\b" "$WORK/packets" || true) got=$(grep -c "^${what#*:}" "$WORK/decoded" || true)
    [[ $want == "$got" ]] || fail "$SCENARIO: trace-decode lists $got '${what#*:}' lines, trc_pkt_lister $want packets"
done
if [[ $SCENARIO == bb* ]]; then
    # The run without branch broadcasting and the one with it decode to the same instructions.
    awk -v dir="$WORK" '/^# trace on/ {n++} n {print > (dir "/session" n)}' "$WORK/decoded"
    [[ -s $WORK/session2 ]] || fail "$SCENARIO: trace-decode lists fewer than two runs of ete_bb"
    diff -u "$WORK/session1" "$WORK/session2" || fail "$SCENARIO: trace-decode lists other instructions with BB on"
    (($(grep -c '^0x' "$WORK/session1") == 10)) || fail "$SCENARIO: not ete_bb's 10 instructions in a run"
fi
echo "ok: $SCENARIO on $ENGINE: $(wc -l <"$WORK/packets") packets as expected; $(cat "$WORK/decode.err")"
