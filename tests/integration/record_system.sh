#!/usr/bin/env bash
# brisk system --record (docs/profiling.md): a Linux boot (boot_linux.sh, OpenSBI 1.9) recorded as
# perf script text has kernel samples and user samples (busybox's init and commands), told apart by
# the privilege the summary counts and by their addresses, each with its address space (satp's PPN)
# as its pid, named by a COMM satp-PPN before it, and pid 0 with satp Bare (physical addresses); a
# bare-metal ELF run in M mode, given as --vmlinux too, gets its MMAP2 line and machine samples (pid
# 0) named by its own functions; and the bad --record options fail with one line and leave no file.
#
#   record_system.sh BRISK BARE_ELF [ENGINE]
set -euo pipefail

(($# == 2 || $# == 3)) || { echo "usage: $0 BRISK BARE_ELF [ENGINE]" >&2; exit 2; }
BRISK=$1
BARE=$2
ENGINE=${3:-jit}
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/integration/report.sh
source "$HERE/report.sh"
[[ -x $BARE ]] || fail "no bare-metal test program at $BARE"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
console=$WORK/console

# --- a Linux boot --------------------------------------------------------------------------------
# boot_linux.sh splits BOOT_ARGS at spaces: the text format in one --record-opts word, and system's
# own --ctr-depth, which --record uses, for a smaller file.
# perf.data at boot.data for the pids and COMMs, the same samples as text at boot.data.script.
BOOT_ARGS="--record $WORK/boot.data --record-opts=--format=both --ctr-depth 16" BOOT_CONSOLE=$console \
    "$HERE/boot_linux.sh" "$BRISK" opensbi19 "$ENGINE"
[[ -s $WORK/boot.data && -s $WORK/boot.data.script ]] || fail "--record wrote nothing"
left=$(find "$WORK" -name 'boot.data?*' ! -name boot.data.script)
[[ -z $left ]] || fail "--record left $left behind"
line=$(grep -a '^brisk record: samples by privilege: ' "$console" | tr -d '\r') ||
    { show_console; fail "no samples-by-privilege line in the summary"; }
read -r user kernel machine <<<"$(sed 's/.*user \([0-9]*\), kernel \([0-9]*\), machine \([0-9]*\)$/\1 \2 \3/' <<<"$line")"
((user > 0 && kernel > 0)) || fail "$line: want user and kernel samples"
samples=$(grep -vc '^PERF_RECORD' "$WORK/boot.data.script" || true)
((samples == user + kernel + machine)) || fail "$samples sample lines, the summary counts $((user + kernel + machine))"
pass "$samples samples: $user user, $kernel kernel, $machine machine"
# Sv39: user addresses below 2^38, the kernel's at the top; OpenSBI's at RAM (0x80000000 and up).
kernel_ips=$(grep -Ec '^ffffffff[0-9a-f]{8} ' "$WORK/boot.data.script" || true)
user_ips=$(grep -Ev '^PERF_RECORD' "$WORK/boot.data.script" | awk '{ print $1 }' | grep -Ec '^[0-3]?[0-9a-f]{1,9}$' || true)
((kernel_ips > 0)) || fail "no sample ip in the kernel's addresses"
((user_ips >= user)) || fail "$user_ips sample ips below 2^38, want at least the $user user samples"
bad=$(grep -Ev '^PERF_RECORD' "$WORK/boot.data.script" | grep -Evc '^[0-9a-f]+( 0x[0-9a-f]+/0x[0-9a-f]+/[PM]/-/-/[0-9]+){0,16}$' || true)
((bad == 0)) || fail "$bad sample lines are not 'ip brstack' text of at most 16 entries"
grep -Eq '^ffffffff[0-9a-f]{8} 0xffffffff[0-9a-f]{8}/0xffffffff[0-9a-f]{8}/' "$WORK/boot.data.script" ||
    fail "no kernel branch stack"
pass "kernel and user sample ips, well-formed branch stacks of at most 16 entries"
# pids: each sample's is its address space, satp's PPN (its root page table, in RAM at 0x80000000),
# named satp-PPN by a COMM written before its first sample; M mode (perf's hypervisor) and satp Bare
# (the kernel before its MMU is on: physical ips) have pid 0, and only they. User samples come from
# more than one address space (init, the shell, the commands). perf report -D gives each record's
# file offset, the order brisk wrote them in, its time, and each sample's cpumode. perf orders the
# records by time, so a COMM timed after a sample it names leaves that sample unnamed.
command -v perf >/dev/null || fail "the host's perf is missing (Debian package linux-perf)"
perf report -D -i "$WORK/boot.data" 2>"$WORK/perf.err" | grep -E 'PERF_RECORD_(COMM|SAMPLE)' >"$WORK/boot.dump" ||
    fail "perf report -D on boot.data: $(head -3 "$WORK/perf.err")"
python3 - "$WORK/boot.dump" "$samples" "$user" <<'PY' || fail "the samples' pids and COMMs"
import re, sys
# perf sorts the records by time; the offsets tell the file's order. COMMs first.
named, named_at, users, n = {}, {}, set(), 0
for line in sorted(open(sys.argv[1]), key=lambda l: "PERF_RECORD_COMM" not in l):
    m = re.match(r"(\d+) (0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_COMM: (\S+):(\d+)/(\d+)$", line)
    if m:
        at, offset, name, pid = int(m.group(1)), int(m.group(2), 16), m.group(3), int(m.group(4))
        want = "swapper" if pid == 0 else f"satp-{pid:x}"
        if name != want or pid in named or m.group(5) != m.group(4):
            sys.exit(f"{line.strip()}: want one COMM {want} for pid {pid}")
        named[pid], named_at[pid] = offset, at
        continue
    m = re.match(r"(\d+) (0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\(IP, (0x[0-9a-f]+)\): (\d+)/(\d+): (0x[0-9a-f]+) ", line)
    if not m:
        sys.exit(f"cannot read: {line.strip()}")
    at, offset, mode, pid, tid, ip = (int(x, 0) for x in m.groups())
    n += 1
    bare = mode == 3 or (mode == 1 and 0x80000000 <= ip < 0x80000000 + (1 << 30))
    if tid != pid or pid not in named or named[pid] > offset or (pid == 0) != bare or (pid and not 0x80000 <= pid < 0xc0000):
        sys.exit(f"{line.strip()}: want pid 0 in M mode or at a physical ip, else a PPN in RAM named by a COMM before it")
    if named_at[pid] > at:
        sys.exit(f"{line.strip()}: its COMM is timed at {named_at[pid]}, after it")
    if mode == 2:
        users.add(pid)
if n != int(sys.argv[2]) or len(users) < 2:
    sys.exit(f"{n} samples, want {sys.argv[2]}; user samples in {len(users)} address spaces, want 2 or more")
print(f"ok: {n} samples: pid 0 in M mode and at physical ips, else satp's PPN, named satp-PPN by a COMM"
      f" written and timed before; the {sys.argv[3]} user samples in {len(users)} address spaces")
PY

# --- M mode, with --vmlinux ----------------------------------------------------------------------
"$BRISK" system --engine="$ENGINE" --bios none --kernel "$BARE" --record "$WORK/bare.data" \
    --record-opts '--format both -c 1009' --vmlinux "$BARE" >"$WORK/bare.out" 2>"$WORK/bare.err" ||
    fail "bare-metal run: $(cat "$WORK/bare.err")"
grep -Eq "^PERF_RECORD_MMAP2 4294967295/0: \[0x80000000\(0x[0-9a-f]+\) @ 0x[0-9a-f]+ 00:00 0 0\]: r-xp $BARE$" \
    "$WORK/bare.data.script" || fail "no kernel MMAP2 line for $BARE: $(head -2 "$WORK/bare.data.script")"
grep -Eq '^brisk record: samples by privilege: user 0, kernel 0, machine [1-9][0-9]*$' "$WORK/bare.err" ||
    fail "want only machine samples: $(cat "$WORK/bare.err")"
# The summary names functions of the ELF (its sized FUNC symbols), not just [file].
named=0
while read -r _ _ name; do
    riscv64-linux-gnu-nm -S "$BARE" | awk '$3 ~ /^[Tt]$/ { print $4 }' | grep -qx "$name" && named=$((named + 1))
done < <(sed -n '/hottest functions/,$p' "$WORK/bare.err" | tail -n +2)
((named > 0)) || fail "the summary names none of $BARE's functions: $(cat "$WORK/bare.err")"
pass "--vmlinux: the MMAP2 line, machine samples, $named of the hottest named from its symbols"
# satp Bare and M mode: every sample's pid is 0, and no address space is named.
machine=$(sed -n 's/^brisk record: samples by privilege: user 0, kernel 0, machine \([0-9]*\)$/\1/p' "$WORK/bare.err")
perf script -i "$WORK/bare.data" --show-task-events -F pid,tid,ip >"$WORK/bare.perf" 2>"$WORK/perf.err" ||
    fail "perf script on bare.data: $(head -3 "$WORK/perf.err")"
pids=$(grep -v PERF_RECORD_COMM "$WORK/bare.perf" | awk '{ print $1 }' | sort | uniq -c | xargs)
[[ $pids == "$machine 0/0" ]] && ! grep -q satp- "$WORK/bare.perf" ||
    fail "the bare ELF's samples by pid/tid: '$pids', want all $machine 0/0; $(grep -m3 COMM "$WORK/bare.perf")"
pass "the bare ELF's $machine samples have pid 0"

# --- bad input -----------------------------------------------------------------------------------
bad() {
    local what=$1 want=$2 status=0
    shift 2
    "$BRISK" system --bios none --kernel "$BARE" "$@" >"$WORK/out" 2>"$WORK/err" || status=$?
    ((status != 0)) || fail "$what: exit status 0"
    if (($(wc -l <"$WORK/err") != 1)) || ! grep -Eq "$want" "$WORK/err"; then
        fail "$what: stderr '$(head -3 "$WORK/err")', want one line matching '$want'"
    fi
    [[ -z $(find "$WORK" -maxdepth 1 -name 'bad.*') ]] || fail "$what: left $(find "$WORK" -name 'bad.*') behind"
    pass "$what"
}
bad "unknown event" "^brisk: -e: unknown event 'flops' " --record "$WORK/bad.data" --record-opts '-e flops'
bad "period 0" "^brisk: -c: '0' is not a positive number$" --record "$WORK/bad.data" --record-opts '-c 0'
bad "--exact with -c" "^brisk: --exact records every transfer: -c, -F, -e and --format do not apply$" \
    --record "$WORK/bad.data" --record-opts '--exact -c 5'
bad "--record-opts alone" "^brisk: --vmlinux and --record-opts are for --record FILE$" --record-opts '-c 5'
bad "--ctr and --record" "^brisk: --ctr and --record both set CTR up: give one$" --ctr --record "$WORK/bad.data"
bad "unwritable --record" "^brisk: cannot write the perf.data output $WORK/no/dir/x: No such file or directory$" --record "$WORK/no/dir/x"
bad "a missing --vmlinux" "vmlinux.*$WORK/none" --record "$WORK/bad.data" --vmlinux "$WORK/none"
