#!/bin/sh
# smp_runs.sh repeat N <brisk command...>: runs a bare-metal program N times; each run must
#   print "PASS" and exit 0 (races between harts on host threads show up in some runs only).
# smp_runs.sh same <brisk command...>: runs it twice with --stats; the console output and the
#   instructions retired must be the same both times (--smp-threads=1 is deterministic).
set -u
mode=$1
shift
case $mode in
repeat)
  n=$1
  shift
  i=1
  while [ "$i" -le "$n" ]; do
    out=$("$@" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q '^PASS '; then
      printf 'run %s of %s: exit status %s\n%s\n' "$i" "$n" "$rc" "$out"
      exit 1
    fi
    i=$((i + 1))
  done
  echo "$n runs passed"
  ;;
same)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for k in 1 2; do
    "$@" --stats >"$tmp/out$k" 2>"$tmp/err$k" || { echo "run $k: exit status $?"; cat "$tmp/out$k" "$tmp/err$k"; exit 1; }
    grep -o '^brisk: [0-9]* instructions' "$tmp/err$k" >"$tmp/insns$k" || { echo "run $k: no --stats line"; exit 1; }
  done
  cmp -s "$tmp/out1" "$tmp/out2" || { echo "the console output differs"; diff "$tmp/out1" "$tmp/out2"; exit 1; }
  cmp -s "$tmp/insns1" "$tmp/insns2" || { echo "instructions retired differ:"; cat "$tmp/insns1" "$tmp/insns2"; exit 1; }
  grep -q '^PASS ' "$tmp/out1" || { echo "no PASS line"; cat "$tmp/out1"; exit 1; }
  cat "$tmp/out1" "$tmp/insns1"
  ;;
*)
  echo "usage: smp_runs.sh repeat N command... | same command..." >&2
  exit 2
  ;;
esac
