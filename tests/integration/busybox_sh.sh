#!/usr/bin/env bash
# busybox sh runs a script of builtins only (no fork or exec): loops, arithmetic, functions,
# parameter expansion, case, printf, and its exit status reaches the host.
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2016 # expanded by the guest's shell
script='
total=0
i=1
while [ "$i" -le 100 ]; do
    total=$((total + i * i))
    i=$((i + 1))
done
echo "sum of squares 1..100 = $total"
a=0 b=1 n=0
while [ $n -lt 20 ]; do t=$((a + b)); a=$b; b=$t; n=$((n + 1)); done
echo "fib(20) = $a"
fact() { r=1; k=$1; while [ $k -gt 1 ]; do r=$((r * k)); k=$((k - 1)); done; }
fact 20
echo "20! = $r"
word=brisk-riscv64-emulator
echo "prefix=${word%%-*} suffix=${word##*-} length=${#word}"
set -- alpha beta gamma delta
echo "argc=$# last=$4"
for w in "$@"; do
    case $w in a*) echo "$w starts with a" ;; *a) echo "$w ends with a" ;; esac
done
printf "%05d|%x|%o|%s|%d\n" 42 255 8 $((1 << 40)) $((-7 / 2))
x=7
if [ $((x % 2)) -eq 1 ] && [ -n "$word" ]; then echo odd; fi
exit 3
'
cat >"$WORK/want" <<'WANT'
sum of squares 1..100 = 338350
fib(20) = 6765
20! = 2432902008176640000
prefix=brisk suffix=emulator length=22
argc=4 last=delta
alpha starts with a
beta ends with a
gamma ends with a
delta ends with a
00042|ff|10|1099511627776|-3
odd
WANT

status=0
guest "$BUSYBOX" sh -c "$script" >"$WORK/out" || status=$?
[[ $status == 3 ]] || fail "busybox sh exited with status $status, want 3 (from 'exit 3')"
diff -u "$WORK/want" "$WORK/out" >&2 || fail "busybox sh printed the wrong output (diff above: - want, + got)"
pass "busybox sh script output and exit status"
