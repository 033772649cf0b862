#!/usr/bin/env bash
# brisk run --ctr across the creation of a thread: tests/guest/ctr_clone makes known calls, returns
# and taken branches, clones a thread that takes one branch and exits, makes more, waits for the
# thread and exits. Both threads' --ctr-dump sections (the thread's at its exit, then the main
# thread's) must be the records a model works out from the program's labels and disassembly (as
# ctr_user.sh's), under the JIT and the interpreter alike: the records made before the clone, still
# in the JIT's ring when the thread is created (runtime/linux_threads.cpp), reach both buffers, and
# the thread's cycle count goes on from its parent's.
# CTR_CLONE_GUEST is the built tests/guest/ctr_clone.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

CLONE=${CTR_CLONE_GUEST:?CTR_CLONE_GUEST must name the built tests/guest/ctr_clone}
[[ -x $CLONE ]] || fail "no guest program at $CLONE"

riscv64-linux-gnu-nm "$CLONE" >"$WORK/syms"
riscv64-linux-gnu-objdump -d "$CLONE" >"$WORK/disasm"
PYTHONPATH="$(dirname "$0")" python3 - "$WORK/syms" "$WORK/disasm" >"$WORK/want" <<'PY'
import re, sys
from gshare import Gshare
syms = {l.split()[2]: int(l.split()[0], 16) for l in open(sys.argv[1]) if len(l.split()) == 3}
insns = sorted(int(m.group(1), 16) for m in re.finditer(r"^\s+([0-9a-f]+):\t", open(sys.argv[2]).read(), re.M))
# What the main thread of ctr_clone.S executes, in order; the not-taken branches are not recorded
# (--ctr is any) but run the predictor.
run = [("loop", "f", "direct-call"), ("f", "loop_ret", "function-return"), ("loop_br", "loop", "taken-branch"),
       ("loop", "f", "direct-call"), ("f", "loop_ret", "function-return"), ("loop_br", "loop", "taken-branch"),
       ("loop", "f", "direct-call"), ("f", "loop_ret", "function-return"), ("loop_br", None, "not-taken-branch"),
       ("clone_br", None, "not-taken-branch"), ("clone_br+4", None, "not-taken-branch"),
       ("after_call", "f", "direct-call"), ("f", "after_ret", "function-return"),
       ("after_ind", "g", "indirect-call"), ("g", "after_ind_ret", "function-return")]
addr = lambda name: syms[name[:-2]] + 4 if name.endswith("+4") else syms[name]
predictor = Gshare()
lines, pc, elapsed, first = [], syms["_start"], 0, True
thread = None
for src, dst, kind in run:
    if src == "clone_br":
        # The thread starts as a copy of this hart before the clone's ecall retired: it takes the
        # branch to child, with the predictor and cycle count as they are here.
        s, t = syms["clone_br"], syms["child"]
        cycles = elapsed + sum(1 for a in insns if pc <= a <= s) - 1
        thread = lines + [f"{s:#x}/{t:#x}/{'P' if predictor.predicts_taken(s) else 'M'}/-/-/{cycles} taken-branch"]
    s = addr(src)
    t = addr(dst) if dst else s + 4
    misp = kind.endswith("taken-branch") and predictor.branch(s, kind == "taken-branch")
    elapsed += sum(1 for a in insns if pc <= a <= s)
    pc = t
    if kind == "not-taken-branch":
        continue
    lines.append(f"{s:#x}/{t:#x}/{'M' if misp else 'P'}/-/-/{0 if first else elapsed} {kind}")
    elapsed, first = 0, False
print(f"# ctr: hart 0 thread TID at exit: {len(thread)} valid entries of 256, youngest first")
print("\n".join(reversed(thread)))
print(f"# ctr: hart 0 at exit: {len(lines)} valid entries of 256, youngest first")
print("\n".join(reversed(lines)))
PY

for engine in jit interp; do
    status=0
    "$BRISK" run --engine="$engine" --ctr --ctr-dump="$WORK/$engine.raw" "$CLONE" >"$WORK/out" 2>"$WORK/err" || status=$?
    ((status == 0)) || fail "--engine=$engine: exit status $status: $(head -2 "$WORK/err")"
    [[ ! -s $WORK/err ]] || fail "--engine=$engine: stderr '$(head -2 "$WORK/err")'"
    sed -E 's/^(# ctr: hart 0 thread )[0-9]+ /\1TID /' "$WORK/$engine.raw" >"$WORK/$engine.dump"
    diff -u "$WORK/want" "$WORK/$engine.dump" >&2 || fail "--engine=$engine: the dump differs from the model's"
    pass "--engine=$engine: both threads' dumps across the clone are the model's $(($(wc -l <"$WORK/want") - 2)) records"
done
cmp -s "$WORK/jit.dump" "$WORK/interp.dump" || fail "the JIT's dump differs from the interpreter's"
pass "the JIT's dump equals the interpreter's"
