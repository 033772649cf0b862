#!/bin/sh
# snitch.quantum: tests/snitch/quantum.c in cycle order and with --quantum 64 must both pass, and
# the quantum run, without stalls, must take fewer cluster cycles (docs/snitch.md, "Quantum mode").
# usage: quantum.sh BRISK PROGRAM
set -u
cycles() {
  b=$1
  shift
  out=$("$b" system -M snitch --timeout 60 --stats "$@" 2>&1) || { echo "brisk failed: $out"; exit 1; }
  echo "$out" | grep -q '^PASS quantum' || { echo "no PASS line: $out"; exit 1; }
  echo "$out" | sed -n 's/^brisk: snitch: cluster cycles \([0-9]*\)$/\1/p'
}
brisk=$1 prog=$2
precise=$(cycles "$brisk" --kernel "$prog") || { echo "$precise"; exit 1; }
quantum=$(cycles "$brisk" --quantum 64 --kernel "$prog") || { echo "$quantum"; exit 1; }
echo "cluster cycles: cycle order $precise, --quantum 64 $quantum"
[ -n "$precise" ] && [ -n "$quantum" ] && [ "$quantum" -lt "$precise" ] || { echo "FAIL: quantum mode did not skip the stalls"; exit 1; }
echo PASS
