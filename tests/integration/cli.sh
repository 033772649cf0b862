#!/usr/bin/env bash
# What the README says of brisk's command line, checked against the real thing: every option its
# usage block names is in --help; --stats' count, wall time and MIPS; --perf-map's block names; QEMU's
# single-dash spellings; and --dumpdtb, whose device tree must place and describe the virt devices
# as QEMU's own `-M virt,dumpdtb` does, list exactly the extensions the README names, and drop one
# that --cpu turns off. The guests are make_elf.py's spins.
#   cli.sh BRISK ENGINE
set -uo pipefail
# shellcheck source=tests/integration/report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"
(($# == 2)) || { echo "usage: $0 BRISK ENGINE" >&2; exit 2; }
BRISK=$1
ENGINE=$2
README=$(dirname "${BASH_SOURCE[0]}")/../../README.md
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 "$(dirname "${BASH_SOURCE[0]}")/make_elf.py" "$WORK" || fail "make_elf.py failed"
for tool in fdtget qemu-system-riscv64; do
    command -v $tool >/dev/null || fail "$tool is missing (run scripts/setup)"
done

# --- --help: every option of the README's usage block, per command -------------------------------
usage=$(awk '/^brisk run /,/^```$/' "$README")
[[ -n $usage ]] || fail "no usage block in $README"
for cmd in run system record; do
    "$BRISK" "$cmd" --help >"$WORK/help" 2>&1 || fail "brisk $cmd --help: exit status $?"
    # The command's lines: from "brisk CMD" to the next "brisk ".
    opts=$(awk -v c="brisk $cmd" 'index($0, "brisk ") == 1 { on = index($0, c " ") == 1 } on' <<<"$usage" |
        grep -oE -- '(^|[[ |])--?[a-z][a-z0-9-]*' | sed 's/^[[ |]//' | sort -u)
    [[ -n $opts ]] || fail "the README's usage block has no options for brisk $cmd"
    for o in $opts; do
        grep -qE -- "(^|[ ,])$o([ ,=[{]|$)" "$WORK/help" || fail "brisk $cmd --help does not describe $o, which the README lists"
    done
    pass "brisk $cmd --help describes the README's $(wc -w <<<"$opts") options"
done
"$BRISK" --help >"$WORK/help" 2>&1 || fail "brisk --help: exit status $?"
for cmd in run system record; do grep -q "^  $cmd" "$WORK/help" || fail "brisk --help does not list $cmd"; done
pass "brisk --help lists run, system and record"

# --- --stats: instructions retired (exact, as --max-insns stops there), wall time and MIPS ---------
n=200000000
start=$EPOCHREALTIME
"$BRISK" run --engine="$ENGINE" --stats --max-insns $n "$WORK/spin" 2>"$WORK/err"
rc=$?
outer=$(echo "$EPOCHREALTIME - $start" | bc -l)
((rc == 125)) || fail "--stats --max-insns $n: exit status $rc, want 125: $(cat "$WORK/err")"
line=$(grep '^brisk: [0-9]* instructions in' "$WORK/err") || fail "--stats printed no count: $(cat "$WORK/err")"
[[ $line =~ ^brisk:\ ([0-9]+)\ instructions\ in\ ([0-9.]+)\ s\ \(([0-9.]+)\ MIPS\)$ ]] || fail "--stats line '$line'"
count=${BASH_REMATCH[1]} wall=${BASH_REMATCH[2]} mips=${BASH_REMATCH[3]}
((count == n)) || fail "--stats counts $count instructions, want $n"
# The wall time lies within what the shell saw; MIPS is the count over it, to the printed digits.
(($(echo "$wall > 0 && $wall <= $outer" | bc -l))) || fail "--stats wall time $wall s, the shell measured $outer s"
(($(echo "m = $count / $wall / 1000000 - $mips; m < 0.01 * $mips && -m < 0.01 * $mips + 0.05 * $count / $wall / $wall / 1000000000" | bc -l))) ||
    fail "--stats: $mips MIPS for $count instructions in $wall s"
pass "--stats: $count instructions in $wall s ($mips MIPS), inside the shell's $outer s"

# --- jit is the default engine: only it reports translated blocks ---------------------------------
"$BRISK" run --stats --max-insns 1000 "$WORK/spin" 2>"$WORK/err"
grep -q '^brisk: jit: [0-9]* blocks translated' "$WORK/err" || fail "with no --engine, --stats shows no JIT: $(cat "$WORK/err")"
"$BRISK" run --engine=interp --stats --max-insns 1000 "$WORK/spin" 2>"$WORK/err"
! grep -q '^brisk: jit:' "$WORK/err" || fail "--engine=interp reports translated blocks: $(cat "$WORK/err")"
pass "jit is the default engine"

# --- --stats counts the links and dispatches: spin's jump to itself never leaves translated code (a
# loop in one block goes back into it, docs/architecture.md "Code layout of a block"): the exec loop
# looks the block up once for its first run, which the interpreter makes, and once to enter its
# translation, and links nothing -----------------------------------------------------------------
"$BRISK" run --stats --max-insns 1000000 "$WORK/spin" 2>"$WORK/err"
grep -q '^brisk: jit: 1 blocks translated .*, 0 links, 2 dispatches (2 looked up in the block table),.*, 1 first runs interpreted;' "$WORK/err" ||
    fail "a million instructions of spin should take no link, one run interpreted and two dispatches: $(grep '^brisk: jit:' "$WORK/err")"
"$BRISK" run --stats --jit-threshold=0 --max-insns 1000000 "$WORK/spin" 2>"$WORK/err"
grep -q '^brisk: jit: 1 blocks translated .*, 0 links, 1 dispatches (1 looked up in the block table), [^;]*flushes;' "$WORK/err" ||
    fail "--jit-threshold=0: spin should take no link, one dispatch and no run interpreted: $(grep '^brisk: jit:' "$WORK/err")"
pass "--stats: no link and two dispatches for spin's million instructions (one with --jit-threshold=0)"

# --- an unimplemented system call: -ENOSYS each time, one warning ---------------------------------
"$BRISK" run --engine="$ENGINE" "$WORK/acct-twice" 2>"$WORK/err"
rc=$?
((rc == 256 - 38)) || fail "acct twice: exit status $rc, want 218 (-ENOSYS as the exit code): $(cat "$WORK/err")"
[[ $(grep -c 'syscall acct (89) is not implemented; returning -ENOSYS' "$WORK/err") == 1 && $(wc -l <"$WORK/err") == 1 ]] ||
    fail "acct twice: want one warning line, got: $(cat "$WORK/err")"
pass "an unimplemented syscall returns -ENOSYS twice with one warning: $(cat "$WORK/err")"

# --- --perf-map: /tmp/perf-PID.map names the spin's block by its guest pc -------------------------
"$BRISK" run --engine=jit --perf-map --max-insns 1000 "$WORK/spin" 2>/dev/null &
pid=$!
wait $pid
map=/tmp/perf-$pid.map
[[ -s $map ]] || fail "--perf-map wrote no $map"
grep -qE '^[0-9a-f]+ [0-9a-f]+ guest_11000_' "$map" || fail "$map has no block at the spin's pc 0x11000: $(head -3 "$map")"
rm -f "$map"
pass "--perf-map: $map names the block at 0x11000"

# --- QEMU's single-dash spellings ------------------------------------------------------------------
"$BRISK" system -bios none -kernel "$WORK/bare-spin" -m 64M -smp 2 -cpu rv64,zbb=off -append x \
    --max-insns 1000 --engine="$ENGINE" 2>"$WORK/err"
rc=$?
((rc == 125)) || fail "system -bios -kernel -m -smp -cpu -append: exit status $rc, want 125: $(cat "$WORK/err")"
"$BRISK" run -cpu rv64,zbb=off --max-insns 1000 --engine="$ENGINE" "$WORK/spin" 2>"$WORK/err"
rc=$?
((rc == 125)) || fail "run -cpu: exit status $rc, want 125: $(cat "$WORK/err")"
pass "single-dash -bios, -kernel, -m, -smp, -cpu and -append (system) and -cpu (run)"

# --- --dumpdtb against QEMU's virt -----------------------------------------------------------------
"$BRISK" system --dumpdtb "$WORK/brisk.dtb" -m 256M --smp 2 || fail "--dumpdtb: exit status $?"
qemu-system-riscv64 -M virt,dumpdtb="$WORK/qemu.dtb" -m 256M -smp 2 -nographic >/dev/null 2>&1 ||
    fail "qemu-system-riscv64 could not dump its device tree"
prop() { fdtget -t x "$1" "$2" "$3" 2>/dev/null; }
sprop() { fdtget "$1" "$2" "$3" 2>/dev/null; }
for node in /memory@80000000 /soc/clint@2000000 /soc/plic@c000000 /soc/serial@10000000 /soc/test@100000 \
    /cpus/cpu@0 /cpus/cpu@1; do
    # (riscv,ndev: QEMU 7.2 says 96 for sources 1-95, one too many, which later QEMU corrects.)
    for p in reg compatible interrupts device_type timebase-frequency; do
        q=$(sprop "$WORK/qemu.dtb" "$node" "$p") && [[ $p != compatible ]] && q=$(prop "$WORK/qemu.dtb" "$node" "$p")
        [[ -n $q ]] || continue
        b=$(sprop "$WORK/brisk.dtb" "$node" "$p") && [[ $p != compatible ]] && b=$(prop "$WORK/brisk.dtb" "$node" "$p")
        # QEMU sizes its PLIC window for its 512 harts at most, brisk for the harts it has.
        [[ $node == /soc/plic@c000000 && $p == reg ]] && q=${q% *} b=${b% *}
        [[ $b == "$q" ]] || fail "device tree $node $p: brisk '$b', QEMU virt '$q'"
    done
done
b=$(prop "$WORK/brisk.dtb" /cpus timebase-frequency) q=$(prop "$WORK/qemu.dtb" /cpus timebase-frequency)
[[ $b == "$q" ]] || fail "timebase-frequency: brisk $b, QEMU $q"
pass "--dumpdtb: memory, CLINT, PLIC, UART, test device and CPUs as QEMU's virt places them"

# The extensions: riscv,isa-extensions is the README's list, and riscv,isa spells the same.
readme_exts=$(grep -A3 '^RV64IMAFDC, ' "$README" | sed '/^$/,$d' | grep -oE '\b(RV64IMAFDC|Z[a-z]+|S[a-z]+)\b' |
    tr 'A-Z' 'a-z' | sed 's/^rv64imafdc$/i m a f d c/' | tr ' ' '\n' | sort -u)
[[ -n $readme_exts ]] || fail "no extension list in $README"
dt_exts=$(fdtget "$WORK/brisk.dtb" /cpus/cpu@0 riscv,isa-extensions | tr ' ' '\n' | sort -u)
[[ $dt_exts == "$readme_exts" ]] ||
    fail "riscv,isa-extensions differs from the README's list: $(diff <(echo "$readme_exts") <(echo "$dt_exts") | grep '^[<>]' | tr '\n' ' ')"
isa=$(fdtget "$WORK/brisk.dtb" /cpus/cpu@0 riscv,isa)
spelled=$(sed -E 's/^rv64//; s/^([a-z]+)_/\1 /; s/_/ /g' <<<"$isa" | awk '{ n = split($1, s, ""); for (i = 1; i <= n; i++) print s[i]; for (i = 2; i <= NF; i++) print $i }' | sort -u)
[[ $spelled == "$dt_exts" ]] || fail "riscv,isa '$isa' and riscv,isa-extensions differ"
pass "device tree: the README's $(wc -l <<<"$dt_exts") extensions, in riscv,isa and riscv,isa-extensions"

for ext in zbb c sstc zicboz; do
    "$BRISK" system --dumpdtb "$WORK/off.dtb" --cpu "rv64,$ext=off" || fail "--cpu rv64,$ext=off --dumpdtb: exit status $?"
    off=$(fdtget "$WORK/off.dtb" /cpus/cpu@0 riscv,isa-extensions | tr ' ' '\n' | sort -u)
    [[ $(comm -23 <(echo "$dt_exts") <(echo "$off")) == "$ext" && -z $(comm -13 <(echo "$dt_exts") <(echo "$off")) ]] ||
        fail "--cpu rv64,$ext=off: the device tree's extensions change by '$(diff <(echo "$dt_exts") <(echo "$off") | grep '^[<>]' | tr '\n' ' ')'"
    isa=$(fdtget "$WORK/off.dtb" /cpus/cpu@0 riscv,isa)
    [[ ${#ext} == 1 && ${isa%%_*} != *$ext* || ${#ext} -gt 1 && $isa != *_${ext}* ]] || fail "--cpu rv64,$ext=off: riscv,isa '$isa' still has $ext"
done
pass "--cpu rv64,EXT=off drops exactly EXT from the device tree (zbb, c, sstc, zicboz)"

# --- the single-dash spellings take effect: their device tree, value by value ----------------------
"$BRISK" system -m 256M -smp 2 -cpu rv64,zbb=off -append "console=x y" --dumpdtb "$WORK/dash.dtb" ||
    fail "single-dash --dumpdtb: exit status $?"
[[ $(prop "$WORK/dash.dtb" /memory@80000000 reg) == "0 80000000 0 10000000" ]] ||
    fail "-m 256M: memory reg '$(prop "$WORK/dash.dtb" /memory@80000000 reg)'"
[[ $(prop "$WORK/dash.dtb" /cpus/cpu@1 reg) == 1 ]] && ! sprop "$WORK/dash.dtb" /cpus/cpu@2 reg >/dev/null ||
    fail "-smp 2: the harts are not cpu@0 and cpu@1"
[[ $(sprop "$WORK/dash.dtb" /chosen bootargs) == "console=x y" ]] ||
    fail "-append: bootargs '$(sprop "$WORK/dash.dtb" /chosen bootargs)'"
off=$(fdtget "$WORK/dash.dtb" /cpus/cpu@0 riscv,isa-extensions | tr ' ' '\n' | sort -u)
[[ $(comm -23 <(echo "$dt_exts") <(echo "$off")) == zbb && -z $(comm -13 <(echo "$dt_exts") <(echo "$off")) ]] ||
    fail "-cpu rv64,zbb=off: the extensions change by '$(diff <(echo "$dt_exts") <(echo "$off") | grep '^[<>]' | tr '\n' ' ')'"
"$BRISK" system --memory 256M --smp 2 --cpu rv64,zbb=off --append "console=x y" --dumpdtb "$WORK/long.dtb" ||
    fail "--dumpdtb with the long spellings: exit status $?"
cmp -s "$WORK/dash.dtb" "$WORK/long.dtb" || fail "-m -smp -cpu -append give another tree than their long spellings"
# (--dumpdtb loads no images, so -initrd shows in how an empty one is refused.)
: >"$WORK/empty"
"$BRISK" system -bios none -kernel "$WORK/bare-spin" -initrd "$WORK/empty" 2>"$WORK/err"
rc=$?
((rc == 1)) && grep -q '^brisk: .*the initrd .*/empty is empty' "$WORK/err" ||
    fail "-initrd EMPTY: exit status $rc, stderr: $(cat "$WORK/err")"
pass "-m, -smp, -cpu and -append reach the device tree as their long spellings do, and -initrd is read"
