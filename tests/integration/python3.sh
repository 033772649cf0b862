#!/usr/bin/env bash
# Debian's python3: four threads computing at once (guest threads on host threads), subprocess
# running riscv64 programs of the sysroot (posix_spawn's clone3, execve, wait4), and signal handlers
# run by alarm, setitimer and os.kill, while the threads run and in a sleep.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

PY=$SYSROOT/usr/bin/python3
[[ -x $PY ]] || fail "sysroot $SYSROOT has no python3: run scripts/guest-sysroot"

# py NAME SCRIPT: runs the script under the guest's python3; its stdout is in $WORK/NAME.out, and
# anything brisk (or python) says on stderr fails the test.
py() {
    printf '%s\n' "$2" >"$WORK/test_$1.py"
    guest --sysroot "$PY" "$WORK/test_$1.py" >"$WORK/$1.out" 2>"$WORK/$1.err" \
        || fail "python3 $1 exited with status $?: $(cat "$WORK/$1.err")"
    [[ ! -s $WORK/$1.err ]] || fail "python3 $1 wrote to stderr: $(cat "$WORK/$1.err")"
}

# Each thread k folds i*k for i < N into a hash: the host's awk computes the same four.
N=20000
py threads "
import threading
N = $N
barrier = threading.Barrier(4)
results, tids = {}, {}
def work(k):
    barrier.wait()  # all four exist and run at once
    tids[k] = threading.get_native_id()
    h = 0
    for i in range(N):
        h = (h * 31 + i * k) % 1000003
    results[k] = h
threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
for t in threads: t.start()
for t in threads: t.join()
print(' '.join(str(results[k]) for k in range(1, 5)))
print(len(set(tids.values()) | {threading.get_native_id()}))
"
expected=$(awk -v n=$N 'BEGIN {
    for (k = 1; k <= 4; k++) { h = 0; for (i = 0; i < n; i++) h = (h * 31 + i * k) % 1000003; printf "%s%d", (k > 1 ? " " : ""), h }
}')
[[ $(sed -n 1p "$WORK/threads.out") == "$expected" ]] \
    || fail "the four threads computed '$(sed -n 1p "$WORK/threads.out")', not '$expected'"
[[ $(sed -n 2p "$WORK/threads.out") == 5 ]] \
    || fail "the main thread and the four threads had $(sed -n 2p "$WORK/threads.out") distinct thread ids, not 5"
pass "python3: 4 threads on 4 thread ids computed $expected"

py subprocess "
import subprocess
r = subprocess.run(['/usr/bin/sort'], input='pear\napple\nfig\n', capture_output=True, text=True)
print(repr(r.stdout), r.returncode)
r = subprocess.run(['/usr/bin/busybox', 'sh', '-c', 'echo \$0; exit 7', 'from-busybox'], stdout=subprocess.PIPE)
print(r.stdout.decode().strip(), r.returncode)
# Its brisk says what killed it, as brisk does: not this test's stderr.
r = subprocess.run(['/usr/bin/sh', '-c', 'kill -TERM \$\$'], stderr=subprocess.DEVNULL)
print(r.returncode)
print(subprocess.check_output('/usr/bin/ls /usr/bin/python3', shell=True).decode().strip())
"
[[ $(cat "$WORK/subprocess.out") == "'apple\nfig\npear\n' 0
from-busybox 7
-15
/usr/bin/python3" ]] || fail "python3 subprocess printed: $(cat "$WORK/subprocess.out")"
pass "python3 subprocess: coreutils sort, busybox sh's exit status, a child killed by SIGTERM, shell=True"

py signals "
import os, signal, threading, time
# alarm: the handler's exception ends a sleep that would outlast the test's timeout.
class Alarm(Exception): pass
def on_alarm(sig, frame): raise Alarm()
signal.signal(signal.SIGALRM, on_alarm)
signal.alarm(1)
try:
    time.sleep(3600)
    print('slept through the alarm')
except Alarm:
    print('alarm interrupted sleep')
# alarm while threads compute: the main thread runs the handler, the threads carry on.
fired = []
signal.signal(signal.SIGALRM, lambda sig, frame: fired.append(sig))
stop = threading.Event()
counts = [0, 0]
def spin(k):
    while not stop.is_set(): counts[k] += 1
threads = [threading.Thread(target=spin, args=(k,)) for k in range(2)]
for t in threads: t.start()
signal.alarm(1)
while not fired: pass
stop.set()
for t in threads: t.join()
print('alarm', fired, all(counts))
# setitimer: a periodic ITIMER_REAL, three expirations, then off.
ticks = []
def on_tick(sig, frame):
    ticks.append(sig)
    if len(ticks) == 3: signal.setitimer(signal.ITIMER_REAL, 0)
signal.signal(signal.SIGALRM, on_tick)
signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
while len(ticks) < 3: time.sleep(0.01)
print('itimer', len(ticks), signal.getitimer(signal.ITIMER_REAL))
# os.kill to itself: the handler runs before kill returns to the next statement.
got = []
signal.signal(signal.SIGUSR1, lambda sig, frame: got.append((sig, os.getpid())))
os.kill(os.getpid(), signal.SIGUSR1)
print('usr1', got == [(signal.SIGUSR1, os.getpid())])
# A blocked signal waits: sigpending shows it, sigwait takes it without the handler.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})
signal.signal(signal.SIGUSR2, lambda sig, frame: got.append('handler'))
os.kill(os.getpid(), signal.SIGUSR2)
print('pending', signal.sigpending() == {signal.SIGUSR2}, signal.sigwait({signal.SIGUSR2}) == signal.SIGUSR2, len(got))
"
[[ $(cat "$WORK/signals.out") == "alarm interrupted sleep
alarm [14] True
itimer 3 (0.0, 0.0)
usr1 True
pending True True 1" ]] || fail "python3 signals printed: $(cat "$WORK/signals.out")"
pass "python3 signals: alarm's handler ends a sleep and runs beside computing threads; setitimer; os.kill; sigwait"
