#!/usr/bin/env bash
# brisk run --ctr: tests/guest/transfer (every Smctr transfer type) gives exactly the expected
# --ctr-dump lines, worked out here from its symbols and disassembly: the transfers youngest first,
# the cycles since the previous record (1 per instruction; 0 for the first, whose CCV is clear), and
# M for the conditional branches pmu::Gshare mispredicts (csr/pmu.cpp). SIGUSR1 dumps the buffer
# and the guest goes on. Bad filters and depths get one line and a non-zero exit.
# CTR_TRANSFER_GUEST is the built tests/guest/transfer.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

TRANSFER=${CTR_TRANSFER_GUEST:?CTR_TRANSFER_GUEST must name the built tests/guest/transfer}
[[ -x $TRANSFER ]] || fail "no guest program at $TRANSFER"

# --- command-line errors -------------------------------------------------------------------------
# expect_error DESCRIPTION REGEX ARGS...: one stderr line matching REGEX and exit status 1.
expect_error() {
    local what=$1 want=$2 status=0
    shift 2
    "$BRISK" run "$@" >"$WORK/out" 2>"$WORK/err" || status=$?
    ((status == 1)) || fail "$what: exit status $status, want 1 ($(head -2 "$WORK/err"))"
    if (($(wc -l <"$WORK/err") != 1)) || ! grep -Eq "$want" "$WORK/err"; then
        fail "$what: stderr '$(head -3 "$WORK/err")', want one line matching '$want'"
    fi
    pass "$what"
}
expect_error "unknown filter" "^brisk: --ctr: unknown filter 'jumps' \(accepted: any, any_call, .*not_taken.*\)$" \
    --ctr=any,jumps "$TRANSFER"
expect_error "empty filter" "^brisk: --ctr: unknown filter '' " --ctr=call,,return "$TRANSFER"
expect_error "bad depth" "^brisk: --ctr-depth: '100' is not one of 16, 32, 64, 128, 256$" \
    --ctr --ctr-depth 100 "$TRANSFER"
expect_error "S-mode filter in user mode" "^brisk: --ctr: filter 'k' records S-mode" --ctr=k "$TRANSFER"
expect_error "M-mode filter in user mode" "^brisk: --ctr: filter 'hv' records M-mode" --ctr=any,hv "$TRANSFER"
expect_error "depth the CPU leaves out" "^brisk: --ctr-depth 16: not one of the depths" \
    --cpu rv64,ctr-depths=64 --ctr --ctr-depth 16 "$TRANSFER"
expect_error "--ctr without Smctr" "^brisk: --ctr and --ctr-depth need Smctr" --cpu rv64,smctr=off,ssctr=off --ctr "$TRANSFER"

# --- exact dump of every transfer type -----------------------------------------------------------
# expected FILTER_TYPES...: the dump the transfer guest must leave when the listed types are recorded.
expected() {
    riscv64-linux-gnu-nm "$TRANSFER" >"$WORK/syms"
    riscv64-linux-gnu-objdump -d "$TRANSFER" >"$WORK/disasm"
    PYTHONPATH="$(dirname "$0")" python3 - "$WORK/syms" "$WORK/disasm" "$@" <<'EOF'
import re, sys
from gshare import Gshare
syms = {l.split()[2]: int(l.split()[0], 16) for l in open(sys.argv[1]) if len(l.split()) == 3}
insns = sorted(int(m.group(1), 16) for m in re.finditer(r"^\s+([0-9a-f]+):\t", open(sys.argv[2]).read(), re.M))
recorded = set(sys.argv[3:])
# What transfer.S executes, in order (tests/unit/test_transfer.cpp has the same list).
run = [("br_nt", "br_nt_next", "not-taken-branch"), ("br_nt_next", "br_t_to", "taken-branch"),
       ("loop_br", "loop", "taken-branch"), ("loop_br", "loop_next", "not-taken-branch"),
       ("cbr_nt", "cbr_nt_next", "not-taken-branch"), ("cbr_nt_next", "cbr_t_to", "taken-branch"),
       ("call_ra", "f_ret_ra", "direct-call"), ("f_ret_ra", "call_ra_next", "function-return"),
       ("call_ra_next", "f_ret_t0", "direct-call"), ("f_ret_t0", "call_t0_next", "function-return"),
       ("call_ind", "f_ret_c", "indirect-call"), ("f_ret_c", "call_ind_next", "function-return"),
       ("call_c", "f_ret_c", "indirect-call"), ("f_ret_c", "call_c_next", "function-return"),
       ("call_rara", "f_ret_ra", "indirect-call"), ("f_ret_ra", "call_rara_next", "function-return"),
       ("jmp", "jmp_to", "direct-jump"), ("cjmp", "cjmp_to", "direct-jump"),
       ("jmp_ind", "jmp_ind_to", "indirect-jump"), ("cjmp_ind", "cjmp_ind_to", "indirect-jump"),
       ("swap", "coroutine", "co-routine-swap"), ("coroutine", "swap_next", "co-routine-swap"),
       ("other_ind", "other_ind_to", "other-indirect-jump"), ("other_dir", "other_dir_to", "other-direct-jump")]
predictor = Gshare()
# Each transfer ends a straight-line run of instructions from the previous transfer's target.
lines, pc, elapsed, first = [], syms["_start"], 0, True
for src, dst, kind in run:
    s, t = syms[src], syms[dst]
    misp = kind.endswith("taken-branch") and predictor.branch(s, kind == "taken-branch")
    elapsed += sum(1 for a in insns if pc <= a <= s)
    pc = t
    if kind not in recorded:
        continue
    lines.append(f"{s:#x}/{t:#x}/{'M' if misp else 'P'}/-/-/{0 if first else elapsed} {kind}")
    elapsed, first = 0, False
print(f"# ctr: hart 0 at exit: {len(lines)} valid entries of 256, youngest first")
print("\n".join(reversed(lines)))
EOF
}

all=(not-taken-branch taken-branch direct-call function-return indirect-call direct-jump indirect-jump
    co-routine-swap other-indirect-jump other-direct-jump)
# check_dump DESCRIPTION FILTERS TYPES...
check_dump() {
    local what=$1 filters=$2
    shift 2
    expected "$@" >"$WORK/want"
    "$BRISK" run --engine="$ENGINE" --ctr="$filters" --ctr-dump="$WORK/dump" "$TRANSFER" \
        || fail "$what: the transfer guest exited with status $?"
    diff -u "$WORK/want" "$WORK/dump" >&2 || fail "$what: the dump differs from the expected lines"
    pass "$what: $(($(wc -l <"$WORK/want") - 1)) exact lines"
}
check_dump "--ctr=any" any "${all[@]:1}"
check_dump "--ctr=any,not_taken" any,not_taken "${all[@]}"
check_dump "--ctr=cond,not_taken" cond,not_taken not-taken-branch taken-branch
check_dump "--ctr=call,ind_call,ind_jmp" call,ind_call,ind_jmp direct-call indirect-call indirect-jump \
    other-indirect-jump
check_dump "--ctr=return" return function-return co-routine-swap

# The dump goes to brisk's stderr by default, after the guest's own output.
"$BRISK" run --engine="$ENGINE" --ctr --ctr-dump "$TRANSFER" 2>"$WORK/err" || fail "--ctr-dump to stderr: status $?"
expected "${all[@]:1}" | diff -u - "$WORK/err" >&2 || fail "--ctr --ctr-dump: stderr differs from the expected dump"
pass "--ctr --ctr-dump prints the same dump to stderr"

# --ctr-depth 16 keeps the 16 youngest.
"$BRISK" run --engine="$ENGINE" --ctr=any,not_taken --ctr-depth 16 --ctr-dump="$WORK/dump" "$TRANSFER"
{
    echo "# ctr: hart 0 at exit: 16 valid entries of 16, youngest first"
    expected "${all[@]}" | sed -n 2,17p
} >"$WORK/want"
diff -u "$WORK/want" "$WORK/dump" >&2 || fail "--ctr-depth 16: the dump is not the 16 youngest records"
pass "--ctr-depth 16 keeps the 16 youngest records"

# --- SIGUSR1 -------------------------------------------------------------------------------------
# The guest says it started, then spins until $WORK/go exists; brisk dumps on SIGUSR1 while it
# spins, and the guest finishes normally after that.
rm -f "$WORK/dump"
mkfifo "$WORK/started"
"$BRISK" run --engine="$ENGINE" --ctr --ctr-dump="$WORK/dump" "$BUSYBOX" sh -c \
    "echo started >$WORK/started; while [ ! -e $WORK/go ]; do :; done; echo finished" >"$WORK/out" &
pid=$!
read -r line <"$WORK/started"
[[ $line == started ]] || fail "SIGUSR1: the guest did not start"
kill -USR1 "$pid"
until grep -q 'on SIGUSR1' "$WORK/dump"; do
    kill -0 "$pid" 2>/dev/null || fail "SIGUSR1: brisk ended before dumping"
    sleep 0.1
done
touch "$WORK/go"
status=0
wait "$pid" || status=$?
((status == 0)) || fail "SIGUSR1: brisk exited with status $status, want 0 (the guest goes on)"
[[ $(<"$WORK/out") == finished ]] || fail "SIGUSR1: the guest printed '$(<"$WORK/out")', want 'finished'"
grep -c '^# ctr: ' "$WORK/dump" | grep -qx 2 || fail "SIGUSR1: want two dumps, got: $(grep '^# ctr: ' "$WORK/dump")"
sed -n 1p "$WORK/dump" | grep -Eq '^# ctr: hart 0 on SIGUSR1: 256 valid entries of 256, youngest first$' \
    || fail "SIGUSR1: first dump header '$(sed -n 1p "$WORK/dump")'"
sed -n 258p "$WORK/dump" | grep -Eq '^# ctr: hart 0 at exit: 256 valid entries of 256, youngest first$' \
    || fail "SIGUSR1: second dump header '$(sed -n 258p "$WORK/dump")'"
pass "SIGUSR1 dumps 256 entries and the guest runs on to its exit dump"
