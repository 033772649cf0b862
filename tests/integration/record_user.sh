#!/usr/bin/env bash
# brisk record in user mode (docs/profiling.md): on tests/integration/record_prog.c, built here
# with debug info, a sample every PERIOD instructions exactly (floor(instret / PERIOD) samples, the
# same on both engines), ips in the hot loop, its back edge in the branch stacks, -j call keeping
# only calls, an MMAP2 line that places the program, perf script text llvm-profgen turns into a
# profile naming hot_loop; -e taken-branches, calls and returns totalling the --exact profile's
# counts and -e branch-misses a gshare model's (record_loops.S); the CTR window on record_loops.S's
# branch-poor and branch-rich loops; the progress line on a terminal (script(1)); record_fork.c's
# child not sampled and its execve failing with ENOSYS; a dynamic Debian program under --sysroot
# with its libraries' MMAP2 lines; and each bad input: one line, a non-zero exit, no output left
# behind.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

PROFGEN=/usr/lib/llvm-19/bin/llvm-profgen
[[ -x $PROFGEN ]] || fail "no llvm-profgen at $PROFGEN (Debian package llvm-19)"
PROG=$WORK/record_prog
riscv64-linux-gnu-gcc -O1 -g -static -o "$PROG" "$(dirname "$0")/record_prog.c" || fail "cannot build record_prog.c"
OTHER=jit
[[ $ENGINE == jit ]] && OTHER=interp

# hot_loop's [start, end), as numbers.
read -r HOT_START HOT_END <<<"$(riscv64-linux-gnu-nm -S "$PROG" | awk '$4 == "hot_loop" { print $1, $2 }')"
[[ -n $HOT_START ]] || fail "no hot_loop in $PROG"
HOT_START=$((16#$HOT_START))
HOT_END=$((HOT_START + 16#$HOT_END))

# --- exact sampling ------------------------------------------------------------------------------
PERIOD=10007
status=0
"$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/a.script" -c $PERIOD --stats -- "$PROG" 300000 \
    >"$WORK/out" 2>"$WORK/err" || status=$?
((status == 3)) || fail "brisk record exit status $status, want the program's 3 ($(tail -3 "$WORK/err"))"
[[ $(cat "$WORK/out") == "1313155556 -8142387210006613829" ]] || fail "program output '$(cat "$WORK/out")'"
instret=$(sed -n 's/^brisk: \([0-9]*\) instructions in .*/\1/p' "$WORK/err")
[[ -n $instret ]] || fail "no --stats line in: $(cat "$WORK/err")"
samples=$(grep -vc '^PERF_RECORD_MMAP2' "$WORK/a.script" || true)
((samples == instret / PERIOD)) || fail "$samples samples of $instret instructions, want floor($instret / $PERIOD)"
grep -q "^brisk record: $samples samples, $instret instructions in " "$WORK/err" ||
    fail "summary does not say $samples samples: $(cat "$WORK/err")"
pass "-c $PERIOD: $samples samples = floor($instret / $PERIOD), exit status 3 passed on"
# Sampling does not change what is counted: brisk run retires as many instructions.
status=0
"$BRISK" run --engine="$ENGINE" --stats "$PROG" 300000 >"$WORK/run.out" 2>"$WORK/run.err" || status=$?
run_instret=$(sed -n 's/^brisk: \([0-9]*\) instructions in .*/\1/p' "$WORK/run.err")
((status == 3 && run_instret == instret)) && cmp -s "$WORK/out" "$WORK/run.out" ||
    fail "brisk run: status $status, $run_instret instructions, '$(cat "$WORK/run.out")'; brisk record: $instret"
pass "brisk run retires the same $instret instructions as brisk record"

# The samples' ips, and the hot loop's back edge (its backward bnez) in the branch stacks.
in_hot=0
while read -r ip _; do
    ((16#$ip >= HOT_START && 16#$ip < HOT_END)) && in_hot=$((in_hot + 1))
done < <(grep -v '^PERF_RECORD' "$WORK/a.script" | cut -c1-20)
((in_hot * 10 >= samples * 9)) || fail "only $in_hot of $samples sample ips in hot_loop"
grep -q "hot_loop" "$WORK/err" || fail "summary does not name hot_loop: $(cat "$WORK/err")"
back_edge=
while read -r pc op args _; do
    pc=$((16#${pc%:}))
    to=$((16#${args#*,}))
    if [[ $op == bnez ]] && ((pc >= HOT_START && pc < HOT_END && to < pc)); then
        back_edge=$(printf '0x%x/0x%x/' $pc $to)
    fi
done < <(riscv64-linux-gnu-objdump -d --no-show-raw-insn "$PROG" | grep -P '^\s+[0-9a-f]+:\tbnez\t')
[[ -n $back_edge ]] || fail "no backward bnez in hot_loop"
with_edge=$(grep -c " $back_edge" "$WORK/a.script" || true)
((with_edge * 10 >= samples * 9)) || fail "only $with_edge of $samples branch stacks hold the back edge $back_edge"
grep -Eq '^brisk record: branch stack depth min [0-9]+ avg [0-9.]+ max 256 \(CTR depth 256\); [0-9]+ ns per sample in the handler$' "$WORK/err" ||
    fail "no full branch stacks: $(grep depth "$WORK/err")"
pass "sample ips in hot_loop ($in_hot of $samples), its back edge $back_edge in $with_edge branch stacks"

# The program's text mapping: its first executable PT_LOAD.
load=$(printf '0x%x' "$(riscv64-linux-gnu-readelf -lW "$PROG" | awk '$1 == "LOAD" && / R E / { print $3; exit }')")
grep -Eq "^PERF_RECORD_MMAP2 [0-9]+/[0-9]+: \[$load\(0x[0-9a-f]+\) @ 0x0 [0-9a-f]+:[0-9a-f]+ [0-9]+ 0\]: r-xp $PROG$" \
    "$WORK/a.script" || fail "no MMAP2 line for $PROG at $load: $(grep -m3 MMAP2 "$WORK/a.script")"
pass "MMAP2 line for the program at $load"

# stdout to a file as before: glibc's stdio takes another path for /dev/null.
"$BRISK" record --engine="$OTHER" --format perfscript -o "$WORK/b.script" -c $PERIOD -- "$PROG" 300000 \
    >"$WORK/out" 2>&1 || true
cmp -s <(grep -v '^PERF_RECORD' "$WORK/a.script") <(grep -v '^PERF_RECORD' "$WORK/b.script") ||
    fail "$ENGINE and $OTHER record different samples"
pass "$ENGINE and $OTHER record the same $samples samples"

# --- translations: a deadline that falls inside a block (a sample's, a window's) is interpreted
# past, to the block's first taken transfer (runtime/jit_engine.cpp, step_past_deadline), so that
# the exec loop goes on where blocks begin: brisk record translates blocks at the pcs brisk run
# does, some again under the recording key, and at no other pc.
if [[ $ENGINE == jit ]]; then
    block_pcs() { awk '$3 ~ /^guest_/ { split($3, n, "_"); print n[2] }' "$1" | sort -u; }
    "$BRISK" run --perf-map "$PROG" 300000 >/dev/null 2>&1 &
    run_pid=$!
    wait $run_pid || true
    "$BRISK" record --perf-map --format perfscript -o "$WORK/map.script" -c $PERIOD -- "$PROG" 300000 >/dev/null 2>&1 &
    rec_pid=$!
    wait $rec_pid || true
    run_map=/tmp/perf-$run_pid.map rec_map=/tmp/perf-$rec_pid.map
    [[ -s $run_map && -s $rec_map ]] || fail "--perf-map wrote no $run_map or $rec_map"
    extra=$(comm -13 <(block_pcs "$run_map") <(block_pcs "$rec_map") | head -5 | tr '\n' ' ')
    pcs=$(block_pcs "$rec_map" | wc -l)
    rm -f "$run_map" "$rec_map"
    [[ -z $extra ]] || fail "brisk record -c $PERIOD translated blocks at pcs where brisk run's do not begin: $extra"
    pass "brisk record -c $PERIOD: its blocks begin at $pcs pcs, all where brisk run's do"
fi

# --- llvm-profgen --------------------------------------------------------------------------------
"$PROFGEN" --perfscript "$WORK/a.script" --binary "$PROG" --format=text --output "$WORK/a.prof" 2>"$WORK/profgen.err" ||
    fail "llvm-profgen rejected the perf script text: $(cat "$WORK/profgen.err")"
# Function lines are NAME:TOTAL:HEAD; the hottest must be hot_loop.
hottest=$(awk -F: '/^[^ ]/ { if ($2 + 0 > max) { max = $2 + 0; f = $1 } } END { print f }' "$WORK/a.prof")
[[ $hottest == hot_loop ]] || fail "llvm-profgen's hottest function is '$hottest', want hot_loop: $(head -5 "$WORK/a.prof")"
grep -q '^cold:' "$WORK/a.prof" || fail "llvm-profgen's profile lacks cold: $(head -20 "$WORK/a.prof")"
pass "llvm-profgen --perfscript: hot_loop is the hottest function"

# --- --format both: perf.data for host perf, the same samples as text ----------------------------
"$BRISK" record --engine="$ENGINE" --format both -o "$WORK/both.data" -c $PERIOD -- "$PROG" 300000 >"$WORK/out" \
    2>"$WORK/both.err" || true
cmp -s <(grep -v '^PERF_RECORD' "$WORK/a.script") <(grep -v '^PERF_RECORD' "$WORK/both.data.script") ||
    fail "--format both: the text in both.data.script differs from --format perfscript's"
command -v perf >/dev/null || fail "the host's perf is missing (Debian package linux-perf)"
perf script -i "$WORK/both.data" -F ip,sym 2>"$WORK/perf.err" | awk '{ print $2 }' | sort | uniq -c | sort -rn >"$WORK/perf.syms"
read -r n top <<<"$(head -1 "$WORK/perf.syms")"
[[ $top == hot_loop && $n == "$in_hot" ]] ||
    fail "perf script on both.data: top symbol '$top' ($n samples), want hot_loop ($in_hot): $(head -3 "$WORK/perf.err")"
pass "--format both: perf script names hot_loop in $n samples, the text has the same samples"
# Every sample's pid and tid are the program's getpid (single-threaded), its period PERIOD, and the
# times increase.
guest_pid=$(sed -n 's/^pid 0*\([0-9]*\)$/\1/p' "$WORK/both.err")
[[ -n $guest_pid ]] || fail "record_prog printed no pid: $(cat "$WORK/both.err")"
perf script -i "$WORK/both.data" -F pid,tid,time,period 2>"$WORK/perf.err" >"$WORK/fields" ||
    fail "perf script -F pid,tid,time,period: $(head -3 "$WORK/perf.err")"
awk -v pid="$guest_pid" -v p=$PERIOD -v n="$samples" '
    { split($1, id, "/"); t = $2 + 0; if (id[1] != pid || id[2] != pid || $3 != p || (NR > 1 && t <= last)) bad++; last = t }
    END { if (NR != n || bad) { printf "%d samples (want %d), %d with a wrong pid/tid, period or time\n", NR, n, bad; exit 1 } }' \
    "$WORK/fields" || fail "perf script -F pid,tid,time,period: $(head -3 "$WORK/fields")"
pass "perf.data samples: pid = tid = $guest_pid (the guest's getpid), period $PERIOD, times increasing"

# --- -j call: only direct calls ------------------------------------------------------------------
"$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/call.script" -j call -c $PERIOD -- "$PROG" 300000 \
    >/dev/null 2>&1 || true
riscv64-linux-gnu-objdump -d --no-show-raw-insn "$PROG" >"$WORK/disasm"
python3 - "$WORK/call.script" "$WORK/disasm" <<'PY' || fail "-j call recorded other transfers"
import re, sys
insn = {int(m.group(1), 16): m.group(2) for m in re.finditer(r"^\s+([0-9a-f]+):\s+(\S+)", open(sys.argv[2]).read(), re.M)}
froms = [int(e.split("/")[0], 16) for l in open(sys.argv[1]) if not l.startswith("PERF_RECORD") for e in l.split()[1:]]
bad = sorted({f for f in froms if insn.get(f) not in ("jal", "call")})
if not froms or bad:
    sys.exit(f"{len(froms)} entries; not direct calls: {[hex(b) + ' ' + str(insn.get(b)) for b in bad[:5]]}")
print(f"ok: -j call: {len(froms)} branch-stack entries, all direct calls")
PY

# --- the default period, 100003, and -e cycles (one per instruction) -----------------------------
"$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/d.script" --stats -- "$PROG" 3000000 \
    >"$WORK/out" 2>"$WORK/err" || true
dinstret=$(sed -n 's/^brisk: \([0-9]*\) instructions in .*/\1/p' "$WORK/err")
dsamples=$(grep -vc '^PERF_RECORD' "$WORK/d.script" || true)
((dinstret > 0 && dsamples == dinstret / 100003)) || fail "no -c: $dsamples samples of $dinstret instructions, want floor(/100003)"
"$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/cy.script" -e cycles -c $PERIOD -- "$PROG" 300000 \
    >"$WORK/out" 2>"$WORK/err" || true
(($(grep -vc '^PERF_RECORD' "$WORK/cy.script") == instret / PERIOD)) || fail "-e cycles -c $PERIOD: not floor($instret / $PERIOD) samples"
pass "no -c: $dsamples samples = floor($dinstret / 100003); -e cycles samples as instructions do"

# --- the CTR window: 4 x depth instructions before each sample, doubled after a short stack and
# halved (to 4 x depth) after 8 full stacks in a row that spanned less than half of it
# record_loops.S's branch-poor loop: a taken branch every 10 instructions, so a window of W
# instructions holds about W / 10 of them; its branch-rich loop, one every 2. A stack's oldest entry
# (its CC counts from the window's opening, so its own cycles are left out) was recorded the sum of
# the younger entries' cycles plus the instructions since the youngest (straight on from its target
# to the sample's ip) before the sample: at most W - 1. A short stack must reach back to within 10
# of W. The poor loop's stacks are full from the third sample on, its window 16 x depth. The rich
# loop's full stacks span 2 x depth instructions: its first run, 6 samples, leaves the window as it
# is, and the poor loop's second pass has only full stacks; its second run, 48 samples, brings the
# window back to 4 x depth, so that the poor loop's third pass starts with two short stacks again.
POOR=$WORK/record_poor
rounds=500000 rich=300000
riscv64-linux-gnu-gcc -nostdlib -static -DPOOR -DROUNDS=$rounds -DRICH=$rich -o "$POOR" "$(dirname "$0")/record_loops.S" ||
    fail "cannot build record_loops.S -DPOOR"
period=100003
for depth in 16 256; do
    "$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/w.script" --ctr-depth "$depth" -c "$period" -- "$POOR" \
        >"$WORK/out" 2>"$WORK/err" || fail "record_loops -DPOOR: status $?: $(cat "$WORK/err")"
    python3 - "$WORK/w.script" "$depth" "$period" $((20 * rounds + 18 * rich)) <<'PY' || fail "--ctr-depth $depth -c $period: the window"
import sys
depth, period, pass_instructions = map(int, sys.argv[2:])
window, narrow, short, windows = 4 * depth, 0, [], [4 * depth]
for i, line in enumerate(l for l in open(sys.argv[1]) if not l.startswith("PERF_RECORD")):
    ip, *stack = line.split()
    cycles = [int(e.split("/")[5]) for e in stack]
    age = (int(ip, 16) - int(stack[0].split("/")[1], 16)) // 4 + sum(cycles[:-1])
    if age > window - 1 or (len(stack) < depth and age < window - 10):
        sys.exit(f"sample {i + 1}: {len(stack)} entries, the oldest {age} instructions back, window {window}")
    narrow = narrow + 1 if len(stack) == depth and 2 * age < window else 0
    if len(stack) < depth:
        short.append(i + 1)
        window = min(2 * window, period)
    if narrow == 8:
        window, narrow = max(window // 2, 4 * depth), 0
    if window != windows[-1]:
        windows.append(window)
third = pass_instructions // period + 1  # the third poor pass's first sample, give or take one
if windows != [k * depth for k in (4, 8, 16, 8, 4, 8, 16)] or \
        short[:2] != [1, 2] or len(short) != 4 or abs(short[2] - third) > 1 or short[3] != short[2] + 1:
    sys.exit(f"windows {windows}, short stacks at samples {short}")
print(f"ok: --ctr-depth {depth} -c {period}: windows {windows}, short stacks at samples {short}")
PY
    min=$(python3 -c "import sys; print(min(len(l.split()) - 1 for l in open(sys.argv[1]) if not l.startswith('PERF_RECORD')))" "$WORK/w.script")
    grep -Eq "^brisk record: branch stack depth min $min avg [0-9.]+ max $depth \(CTR depth $depth\); " "$WORK/err" ||
        fail "--ctr-depth $depth: the summary's depths: $(grep depth "$WORK/err")"
done

# --- -F: an adaptive period ----------------------------------------------------------------------
"$BRISK" record --engine="$ENGINE" -F 1000 -o "$WORK/f.data" -- "$PROG" 3000000 >"$WORK/out" 2>"$WORK/err" || true
perf script -i "$WORK/f.data" -F period 2>/dev/null | sort -u >"$WORK/periods"
(($(wc -l <"$WORK/periods") >= 2)) || fail "-F 1000: the periods did not adapt: $(head -3 "$WORK/periods") ($(tail -2 "$WORK/err"))"
pass "-F 1000: $(wc -l <"$WORK/periods") different periods"

# --- other events: -e branches ------------------------------------------------------------------
"$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/br.script" -e branches -c 1009 -- "$PROG" 300000 \
    >"$WORK/out" 2>"$WORK/err" || true
read -r bsamples branches <<<"$(sed -n 's/^brisk record: \([0-9]*\) samples, \([0-9]*\) branches in .*/\1 \2/p' "$WORK/err")"
[[ -n $branches ]] || fail "-e branches: no summary line: $(cat "$WORK/err")"
# hot_loop alone retires two conditional branches per iteration.
((branches > 2 * 300000 && bsamples == branches / 1009)) ||
    fail "-e branches -c 1009: $bsamples samples of $branches branches"
(($(grep -vc '^PERF_RECORD' "$WORK/br.script") == bsamples)) || fail "-e branches: sample lines differ from the summary"
pass "-e branches -c 1009: $bsamples samples = floor($branches / 1009)"

# --- brisk events by name: each total is the --exact profile's count --------------------------------
# The --exact profile holds every taken transfer of the program (static: all its code) by source;
# the disassembly tells a conditional branch, a call (jal or jalr that links ra or t0: Smctr's
# definition) and a return (ret) apart. Same stdout as the sampled runs: glibc takes another path
# for /dev/null.
"$BRISK" record --engine="$ENGINE" --exact -o "$WORK/ev.exact" -- "$PROG" 300000 >"$WORK/out" 2>"$WORK/err" || true
text_base=$(($(riscv64-linux-gnu-readelf -lW "$PROG" | awk '$1 == "LOAD" && / R E / { print $3; exit }') & ~4095))
python3 - "$WORK/ev.exact" "$WORK/disasm" $text_base >"$WORK/ev.counts" <<'PY' || fail "cannot count the --exact profile's transfers"
import re, sys
insn = {int(m.group(1), 16): (m.group(2), m.group(3))
        for m in re.finditer(r"^[ \t]+([0-9a-f]+):[ \t]+(\S+)[ \t]*(\S*)", open(sys.argv[2]).read(), re.M)}
lines = open(sys.argv[1]).read().split("\n")
ranges = int(lines[0])
counts = {"taken-branches": 0, "calls": 0, "returns": 0}
for line in lines[ranges + 2:ranges + 2 + int(lines[ranges + 1])]:
    pair, n = line.split(":")
    op, args = insn[int(pair.split("->")[0], 16) + int(sys.argv[3])]
    rd = args.split(",")[0] if "," in args else "ra"  # jal TARGET and jalr RS link ra
    if op[0] == "b":
        counts["taken-branches"] += int(n)
    elif op in ("jal", "jalr") and rd in ("ra", "t0"):
        counts["calls"] += int(n)
    elif op == "ret":
        counts["returns"] += int(n)
for k, v in counts.items():
    print(k, v)
PY
# Each sample falls right after the event that reached the period: its ip is the youngest
# branch-stack entry's target, and that entry is of the event's kind.
while read -r event want; do
    period=1009
    [[ $event == taken-branches ]] || period=7
    "$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/ev.script" -e "$event" -c $period -- "$PROG" 300000 \
        >"$WORK/out" 2>"$WORK/err" || true
    read -r esamples total <<<"$(sed -n "s/^brisk record: \([0-9]*\) samples, \([0-9]*\) $event in .*/\1 \2/p" "$WORK/err")"
    [[ -n $total ]] || fail "-e $event: no summary line: $(cat "$WORK/err")"
    ((total == want && esamples == total / period && esamples > 0)) ||
        fail "-e $event -c $period: $esamples samples of $total $event; the --exact profile has $want"
    (($(grep -vc '^PERF_RECORD' "$WORK/ev.script") == esamples)) || fail "-e $event: sample lines differ from the summary"
    python3 - "$WORK/ev.script" "$WORK/disasm" "$event" <<'PY' || fail "-e $event: a sample not right after its event"
import re, sys
insn = {int(m.group(1), 16): (m.group(2), m.group(3))
        for m in re.finditer(r"^[ \t]+([0-9a-f]+):[ \t]+(\S+)[ \t]*(\S*)", open(sys.argv[2]).read(), re.M)}
def kind(pc):
    op, args = insn.get(pc, ("?", ""))
    rd = args.split(",")[0] if "," in args else "ra"
    return "taken-branches" if op[0] == "b" else "calls" if op in ("jal", "jalr") and rd in ("ra", "t0") else "returns" if op == "ret" else op
for line in open(sys.argv[1]):
    if line.startswith("PERF_RECORD"):
        continue
    ip, youngest = line.split()[:2]
    frm, to = (int(x, 16) for x in youngest.split("/")[:2])
    if to != int(ip, 16) or kind(frm) != sys.argv[3]:
        sys.exit(f"sample at {ip}: youngest entry {youngest} ({kind(frm)})")
PY
    pass "-e $event -c $period: $esamples samples = floor($total / $period), $total = the --exact profile's count"
done <"$WORK/ev.counts"

# branch-misses on tests/integration/record_loops.S (no libc: its two branches are all the program
# runs), against a model of brisk's gshare predictor (csr/pmu.h; as tests/bare/pmu_misses.c's):
# the total, and each sample's ip, the pc after the branch whose miss reached a multiple of the
# period.
LOOPS=$WORK/record_loops
riscv64-linux-gnu-gcc -nostdlib -static -DROUNDS=200000 -DSEED=0x9e3779b97f4a7c15 -o "$LOOPS" \
    "$(dirname "$0")/record_loops.S" || fail "cannot build record_loops.S"
"$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/bm.script" -e branch-misses -c 1009 -- "$LOOPS" \
    >"$WORK/out" 2>"$WORK/err" || fail "record_loops: status $?: $(cat "$WORK/err")"
read -r msamples misses <<<"$(sed -n 's/^brisk record: \([0-9]*\) samples, \([0-9]*\) branch-misses in .*/\1 \2/p' "$WORK/err")"
PYTHONPATH="$(dirname "$0")" python3 - "$WORK/bm.script" "$misses" "$msamples" 1009 \
    "$(riscv64-linux-gnu-nm "$LOOPS" | awk '$3 == "bit_branch" || $3 == "loop_branch" { printf "%s ", $1 }')" <<'PY' ||
import sys
from gshare import Gshare
script, misses, samples, period = sys.argv[1], int(sys.argv[2] or -1), int(sys.argv[3] or -1), int(sys.argv[4])
bit_pc, loop_pc = sorted(int(a, 16) for a in sys.argv[5].split())
predictor, model, ips = Gshare(), 0, []
def branch(pc, taken, target):
    global model
    if predictor.branch(pc, taken):
        model += 1
        if model % period == 0:
            ips.append(target if taken else pc + 4)
x, mask = 0x9e3779b97f4a7c15, (1 << 64) - 1
for i in range(200000, 0, -1):
    x ^= (x << 13) & mask
    x ^= x >> 7
    x ^= (x << 17) & mask
    branch(bit_pc, (x & 1) == 0, bit_pc + 8)
    branch(loop_pc, i > 1, bit_pc - 28)
got = [int(l.split()[0], 16) for l in open(script) if not l.startswith("PERF_RECORD")]
if misses != model or samples != model // period or got != ips:
    sys.exit(f"{misses} branch-misses and {samples} samples, the model {model} and {model // period}; "
             f"first ips {[hex(i) for i in got[:3]]}, the model's {[hex(i) for i in ips[:3]]}")
print(f"ok: -e branch-misses -c {period}: {samples} samples = floor({misses} / {period}), the model's misses and ips")
PY
    fail "-e branch-misses: not the model's"

# The same loops ending in a load from address 0, sampled every 5003 misses: the fault comes 199
# misses after the last sample with the CTR window shut, while translated code keeps the misses since
# it last left in a host register (jit/x64/translator.h, HostRegs). Recovering from the host fault
# must count them: the total is the one above, the model's.
riscv64-linux-gnu-gcc -nostdlib -static -DROUNDS=200000 -DSEED=0x9e3779b97f4a7c15 -DFAULT -o "$LOOPS.fault" \
    "$(dirname "$0")/record_loops.S" || fail "cannot build record_loops.S with FAULT"
status=0
"$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/bmf.script" -e branch-misses -c 5003 -- \
    "$LOOPS.fault" >"$WORK/out" 2>"$WORK/err" || status=$?
fmisses=$(sed -n 's/^brisk record: [0-9]* samples, \([0-9]*\) branch-misses in .*/\1/p' "$WORK/err")
if [[ $status == 139 && -n $misses && $fmisses == "$misses" ]]; then
    pass "-e branch-misses -c 5003 up to a guest fault: $fmisses misses, status 139"
else
    fail "-e branch-misses up to a guest fault: status $status, $fmisses misses, not $misses: $(cat "$WORK/err")"
fi

# --- --exact: every transfer ---------------------------------------------------------------------
# hot_loop(300000): its bnez back edge is taken when i % 8 != 0 (262500 times), the jump back from
# the i % 8 == 0 arm 37500 times; offsets from the text segment at $load.
"$BRISK" record --engine="$ENGINE" --exact -o "$WORK/a.exact" -- "$PROG" 300000 >"$WORK/out" 2>"$WORK/err" || true
[[ -s $WORK/a.exact ]] || fail "--exact wrote nothing: $(cat "$WORK/err")"
from=${back_edge%%/*}
to=${back_edge#*/}
to=${to%/}
edge=$(printf '%x->%x' $((from - load)) $((to - load)))
grep -qx "$edge:262500" "$WORK/a.exact" || fail "--exact: '$(grep "^$edge:" "$WORK/a.exact")', want $edge:262500"
jump=$(riscv64-linux-gnu-objdump -d --no-show-raw-insn "$PROG" | grep -P '^\s+[0-9a-f]+:\tj\t' |
    while read -r pc _ target _; do
        pc=$((16#${pc%:}))
        if ((pc >= HOT_START && pc < HOT_END && 16#$target < pc)); then
            printf '%x->%x\n' $((pc - load)) $((16#$target - load))
        fi
    done)
[[ -n $jump ]] || fail "no backward j in hot_loop"
grep -qx "$jump:37500" "$WORK/a.exact" || fail "--exact: '$(grep "^$jump:" "$WORK/a.exact")', want $jump:37500"
"$BRISK" record --engine="$OTHER" --exact -o "$WORK/b.exact" -- "$PROG" 300000 >"$WORK/out" 2>&1 || true
cmp -s "$WORK/a.exact" "$WORK/b.exact" || fail "--exact: $ENGINE and $OTHER count differently"
pass "--exact: the back edges taken 262500 and 37500 times, the same on $OTHER"

# --- a dynamic program under --sysroot -----------------------------------------------------------
"$BRISK" record --engine="$ENGINE" --sysroot "$SYSROOT" --format perfscript -o "$WORK/xz.script" -c 100003 -- \
    "$SYSROOT/usr/bin/xz" --version >"$WORK/xz.out" 2>"$WORK/xz.err" || fail "xz --version: $(cat "$WORK/xz.err")"
for lib in /usr/bin/xz /usr/lib/riscv64-linux-gnu/ld-linux-riscv64-lp64d.so.1 \
    /usr/lib/riscv64-linux-gnu/liblzma.so.5 /usr/lib/riscv64-linux-gnu/libc.so.6; do
    grep -Eq "^PERF_RECORD_MMAP2 [0-9]+/[0-9]+: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+ .*\]: r-xp $lib(\.[0-9.]*)?$" \
        "$WORK/xz.script" || fail "no MMAP2 line for $lib: $(grep MMAP2 "$WORK/xz.script")"
done
pass "MMAP2 lines for xz, its interpreter, liblzma and libc, by their guest paths"

# --- the progress line on a terminal -------------------------------------------------------------
# script(1) gives brisk record a pty. record_prog sleeps 300 ms first, so the line is drawn at the
# start and again after the sleep: "\rbrisk record: EVENTS instructions, SAMPLES samples, T.T s\e[K",
# with SAMPLES = floor(EVENTS / PERIOD) (samples are exact), and cleared ("\r\e[K") before the
# summary. Without a terminal there is none.
command -v script >/dev/null || fail "no script(1) (Debian package bsdutils)"
status=0
script -qec "$(printf '%q ' "$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/tty.script" -c $PERIOD \
    -- "$PROG" 300000 300)" /dev/null >"$WORK/tty.out" </dev/null || status=$?
((status == 3)) || fail "brisk record under script(1): status $status: $(cat -v "$WORK/tty.out")"
python3 - "$WORK/tty.out" $PERIOD <<'PY' || fail "the progress line: $(cat -v "$WORK/tty.out")"
import re, sys
out, period = open(sys.argv[1], encoding="latin-1", newline="").read(), int(sys.argv[2])
lines = [(int(e), int(s), float(t)) for e, s, t in
         re.findall(r"\rbrisk record: (\d+) instructions, (\d+) samples, (\d+\.\d) s\x1b\[K", out)]
if len(lines) < 2 or out.count(" instructions, ") != len(lines):
    sys.exit(f"{len(lines)} progress lines, want 2 or more, all as \\rbrisk record: N instructions, N samples, T s\\e[K")
for (e0, s0, t0), (e1, s1, t1) in zip(lines, lines[1:]):
    if e1 < e0 or t1 < t0:
        sys.exit(f"the progress lines go backwards: {lines}")
if any(s != e // period for e, s, _ in lines) or lines[-1][2] < 0.3:
    sys.exit(f"the progress lines {lines}: want samples = floor(instructions / {period}), the last after the sleep")
m = re.search(r"\r\x1b\[Kbrisk record: (\d+) samples, (\d+) instructions in ", out)
if not m or int(m.group(1)) != int(m.group(2)) // period or int(m.group(2)) < lines[-1][0]:
    sys.exit("the summary does not follow the line cleared")
print(f"ok: {len(lines)} progress lines on a terminal, the last {lines[-1]}, cleared before the summary")
PY
"$BRISK" record --engine="$ENGINE" --format perfscript -o "$WORK/tty.script" -c $PERIOD -- "$PROG" 300000 300 \
    >"$WORK/out" 2>"$WORK/err" || true
! grep -q $'[\r\e]' "$WORK/err" || fail "a progress line without a terminal: $(cat -v "$WORK/err")"
pass "no progress line without a terminal"

# --- fork and execve: the child is not sampled, execve returns -ENOSYS ---------------------------
# record_fork.c: the child runs child_work, then the parent tries to execve itself and runs
# parent_work. Under brisk run the execve works (the program exits 5); under brisk record it fails
# with errno 38 (ENOSYS), and every sample is the parent's: its pid, in its code, as many as its own
# instructions give.
FORK=$WORK/record_fork
riscv64-linux-gnu-gcc -O1 -g -static -o "$FORK" "$(dirname "$0")/record_fork.c" || fail "cannot build record_fork.c"
status=0
"$BRISK" run --engine="$ENGINE" "$FORK" >"$WORK/fork.out" 2>"$WORK/fork.err" || status=$?
((status == 5)) && [[ $(cat "$WORK/fork.out") == "exec'd" ]] ||
    fail "brisk run record_fork: status $status, '$(cat "$WORK/fork.out")', want 5 and exec'd: $(cat "$WORK/fork.err")"
status=0
"$BRISK" record --engine="$ENGINE" -o "$WORK/fork.data" -c 10007 -- "$FORK" >"$WORK/fork.out" 2>"$WORK/fork.err" || status=$?
((status == 0)) && grep -qx 'child status 7, execve -1 errno 38, [01]' "$WORK/fork.out" ||
    fail "brisk record record_fork: status $status, '$(cat "$WORK/fork.out")': $(cat "$WORK/fork.err")"
grep -qx 'brisk: warning: execve is not implemented under brisk record; returning -ENOSYS' "$WORK/fork.err" ||
    fail "no ENOSYS warning: $(cat "$WORK/fork.err")"
parent=$(sed -n 's/^parent \([0-9]*\)$/\1/p' "$WORK/fork.err")
child=$(sed -n 's/^child \([0-9]*\)$/\1/p' "$WORK/fork.err")
[[ -n $parent && -n $child && $parent != "$child" ]] || fail "record_fork's pids: $(cat "$WORK/fork.err")"
read -r fsamples finstret <<<"$(sed -n 's/^brisk record: \([0-9]*\) samples, \([0-9]*\) instructions in .*/\1 \2/p' "$WORK/fork.err")"
perf script -i "$WORK/fork.data" -F pid,tid,ip,sym 2>"$WORK/perf.err" | awk '{ print $1, $3 }' | sort | uniq -c >"$WORK/fork.pids" ||
    fail "perf script on fork.data: $(head -3 "$WORK/perf.err")"
awk -v p="$parent" -v n="$fsamples" '$2 != p "/" p || $3 == "child_work" { bad++ } { total += $1; if ($3 == "parent_work") work = $1 }
    END { exit !(!bad && total == n && work * 10 >= n * 9) }' "$WORK/fork.pids" ||
    fail "samples by pid and function (parent $parent, child $child, $fsamples samples): $(cat "$WORK/fork.pids")"
# The child's own 7 million instructions would give as many samples again.
((fsamples == finstret / 10007 && finstret < 9000000)) ||
    fail "$fsamples samples of $finstret instructions: not the parent's alone"
pass "fork: $fsamples samples, all the parent's ($parent), none the child's ($child); execve: ENOSYS"

# --- bad input -----------------------------------------------------------------------------------
# bad DESCRIPTION REGEX ARGS...: one stderr line matching REGEX, a non-zero exit, no output file.
bad() {
    local what=$1 want=$2 status=0
    shift 2
    rm -f "$WORK"/bad.*
    "$BRISK" record --engine="$ENGINE" "$@" >"$WORK/bad.out" 2>"$WORK/err" || status=$?
    ((status != 0)) || fail "$what: exit status 0"
    if (($(wc -l <"$WORK/err") != 1)) || ! grep -Eq "$want" "$WORK/err"; then
        fail "$what: stderr '$(head -3 "$WORK/err")', want one line matching '$want'"
    fi
    local left
    left=$(find "$WORK" -maxdepth 1 -name 'bad.*' ! -name bad.out)
    [[ -z $left ]] || fail "$what: left $left behind"
    pass "$what"
}
OUT=(-o "$WORK/bad.data" --format perfscript)
bad "unknown event" "^brisk: -e: unknown event 'flops' \(accepted: cycles, instructions, branches, " \
    "${OUT[@]}" -e flops "$PROG" 10
bad "period 0" "^brisk: -c: '0' is not a positive number$" "${OUT[@]}" -c 0 "$PROG" 10
bad "depth CTR lacks" "^brisk: --ctr-depth: '48' is not one of 16, 32, 64, 128, 256$" "${OUT[@]}" --ctr-depth 48 "$PROG" 10
bad "depth --cpu left out" "^brisk: --ctr-depth 16: not one of the depths --cpu ctr-depths allows$" \
    "${OUT[@]}" --cpu rv64,ctr-depths=64 --ctr-depth 16 "$PROG" 10
bad "unwritable output" "^brisk: cannot write the perf script output $WORK/no/such/dir/x: No such file or directory$" \
    -o "$WORK/no/such/dir/x" --format perfscript "$PROG" 10
bad "-c and -F" "^brisk: -c and -F: give a period or a frequency, not both$" "${OUT[@]}" -c 1000 -F 100 "$PROG" 10
bad "missing PROG" "^brisk record: missing PROG \(see brisk record --help\)$" "${OUT[@]}"
bad "missing PROG after --" "^brisk record: missing PROG" "${OUT[@]}" --
bad "unknown filter" "^brisk: -j: unknown filter 'jumps' " "${OUT[@]}" -j any,jumps "$PROG" 10
bad "--exact without every taken transfer" "^brisk: -j call: --exact counts every taken transfer" \
    -o "$WORK/bad.exact" --exact -j call "$PROG" 10
bad "a program that does not load" "^brisk: .*not an ELF file" "${OUT[@]}" "$WORK/err"
