#!/usr/bin/env python3
"""A forked child's --timeout counts from the fork, and under brisk record a forked child writes
no profile (README "Processes"; docs/architecture.md "Processes in user mode"):
  fork_limits.py BRISK ENGINE PROG      (PROG: tests/guest/fork_limits)
The guest's parent ends before its child, so this script makes itself a child subreaper
(PR_SET_CHILD_SUBREAPER) to reap the orphaned child too, with its exit status and the time it
ended (CLOCK_MONOTONIC, the clock the guest reads)."""
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PR_SET_CHILD_SUBREAPER = 36


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def ok(msg):
    print(f"ok: {msg}")


def run_and_reap(argv, out, err, limit=20.0):
    """Starts argv and reaps it and every orphan it leaves: [(pid, status, end time)], brisk's first."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=out, stderr=err, start_new_session=True)  # its own group, to kill
    ended = []

    def on_alarm(*_):
        os.killpg(proc.pid, signal.SIGKILL)  # brisk and what it forked
        fail(f"{argv}: still running after {limit} s; ended so far {ended}")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        ended.append((pid, os.waitstatus_to_exitcode(status), time.monotonic()))
    signal.setitimer(signal.ITIMER_REAL, 0)
    proc.returncode = 0  # reaped above; keep Popen from waiting again
    return start, proc.pid, ended


def main():
    if len(sys.argv) != 4:
        print(f"usage: {sys.argv[0]} BRISK ENGINE PROG", file=sys.stderr)
        sys.exit(2)
    brisk, engine, prog = sys.argv[1:]
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        fail("prctl(PR_SET_CHILD_SUBREAPER) failed")
    work = tempfile.mkdtemp()
    try:
        check(brisk, engine, prog, work)
    finally:
        shutil.rmtree(work)


def check(brisk, engine, prog, work):

    # --timeout 1: the parent forks at 0.6 s (after its own start, so after `start` here) and is
    # stopped at 1 s; its child, re-armed at the fork, must spin on until fork + 1 s at least. A
    # child whose timeout counted from brisk's start would stop near 1 s, before 1.6 s; one with no
    # timeout would spin on until the limit.
    with open(f"{work}/t.out", "w+") as out, open(f"{work}/t.err", "w+") as err:
        start, parent, ended = run_and_reap([brisk, "run", f"--engine={engine}", "--timeout", "1", prog, "timeout"],
                                            out, err)
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    m = re.fullmatch(r"fork at (\d+)\.(\d{9})\n", text)
    if not m:
        fail(f"timeout: stdout {text!r}, stderr {errors!r}")
    fork_at = int(m[1]) + int(m[2]) / 1e9
    if len(ended) != 2 or ended[0][0] != parent:
        fail(f"timeout: want brisk and then its child to end, got {ended}; stderr {errors!r}")
    (_, parent_status, parent_end), (_, child_status, child_end) = ended
    if parent_status != 124 or child_status != 124:
        fail(f"timeout: exit statuses {parent_status} (parent) and {child_status} (child), want 124 and 124; "
             f"stderr {errors!r}")
    stopped = re.findall(r"^brisk: stopped: --timeout 1 s reached at pc 0x[0-9a-f]+, \d+ instructions$", errors,
                         re.M)
    if len(stopped) != 2 or len(errors.splitlines()) != 2:
        fail(f"timeout: want one stop line from each process, stderr {errors!r}")
    if fork_at - start < 0.6:
        fail(f"timeout: the guest forked {fork_at - start:.3f} s after the start, before 0.6 s")
    if parent_end - start < 1.0:
        fail(f"timeout: the parent ended {parent_end - start:.3f} s after the start, before its 1 s")
    if child_end - fork_at < 1.0:
        fail(f"timeout: the child ended {child_end - fork_at:.3f} s after its fork "
             f"({child_end - start:.3f} s after the start), before its own 1 s")
    ok(f"--timeout 1: parent stopped at {parent_end - start:.2f} s with 124, the child forked at "
       f"{fork_at - start:.2f} s stopped at {child_end - start:.2f} s with 124")

    # brisk record: the child outlives its parent, so a profile written at its exit would replace the
    # parent's. The file must hold floor(parent's instructions / period) samples, all the parent's,
    # and stderr one summary and one --stats line.
    period = 10007
    data = f"{work}/r.script"
    with open(f"{work}/r.out", "w+") as out, open(f"{work}/r.err", "w+") as err:
        start, parent, ended = run_and_reap([brisk, "record", f"--engine={engine}", "--format", "perfscript",
                                             "-o", data, "-c", str(period), "--stats", "--", prog, "record",
                                             "200000"], out, err)
        err.seek(0)
        errors = err.read()
    if len(ended) != 2 or ended[0][0] != parent or ended[0][1] != 3 or ended[1][1] != 0:
        fail(f"record: want brisk (status 3) and then its child (status 0) to end, got {ended}; "
             f"stderr {errors!r}")
    child = ended[1][0]
    insns = re.findall(r"^brisk: (\d+) instructions in ", errors, re.M)
    summaries = re.findall(r"^brisk record: (\d+) samples, (\d+) instructions in ", errors, re.M)
    if len(insns) != 1 or len(summaries) != 1:
        fail(f"record: want one --stats line and one summary, stderr {errors!r}")
    instret = int(insns[0])
    if summaries[0] != (str(instret // period), insns[0]):
        fail(f"record: summary {summaries[0]} for {instret} instructions at period {period}")
    with open(data) as f:
        samples = [line for line in f if not line.startswith("PERF_RECORD")]
    if len(samples) != instret // period or len(samples) < 100:
        fail(f"record: {len(samples)} samples in {data}, want floor({instret} / {period}) = {instret // period}")
    mmaps = re.findall(r"^PERF_RECORD_MMAP2 (\d+)/(\d+): ", open(data).read(), re.M)
    if not mmaps or set(mmaps) != {(str(parent), str(parent))}:
        fail(f"record: MMAP2 lines' pid/tid {set(mmaps)}, want only the parent's {parent}")
    ok(f"brisk record: the child ({child}) wrote no profile: {len(samples)} samples = floor({instret} / {period}), "
       f"one summary line")


if __name__ == "__main__":
    main()
