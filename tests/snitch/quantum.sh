#!/bin/sh
# snitch.quantum_mode: tests/snitch/quantum.c in cycle order and with --quantum 64, on the
# interpreter and in translated code, must pass all three ways, the quantum runs, without stalls,
# taking fewer cluster cycles, and the translated one translating blocks (docs/snitch.md, "Quantum
# mode").
# usage: quantum.sh BRISK PROGRAM
set -u
cycles() {
  b=$1
  shift
  out=$("$b" system -M snitch --timeout 60 --stats "$@" 2>&1) || { echo "brisk failed: $out"; exit 1; }
  echo "$out" | grep -q '^PASS quantum' || { echo "no PASS line: $out"; exit 1; }
  echo "$out" | sed -n 's/^brisk: snitch: cluster cycles \([0-9]*\).*/\1/p'
  if echo "$out" | grep -q 'compute cores: [1-9][0-9]* blocks translated'; then echo translated; fi
}
brisk=$1 prog=$2
precise=$(cycles "$brisk" --kernel "$prog") || { echo "$precise"; exit 1; }
interp=$(cycles "$brisk" --quantum 64 --engine=interp --kernel "$prog") || { echo "$interp"; exit 1; }
jit=$(cycles "$brisk" --quantum 64 --kernel "$prog") || { echo "$jit"; exit 1; }
echo "cluster cycles: cycle order $precise, --quantum 64 on the interpreter $interp, translated" $jit
[ "$(echo "$precise" | wc -l)" = 1 ] && [ "$(echo "$interp" | wc -l)" = 1 ] || { echo "FAIL: translated code without the JIT"; exit 1; }
[ "$(echo "$jit" | sed -n 2p)" = translated ] || { echo "FAIL: no block translated with --quantum"; exit 1; }
jit=$(echo "$jit" | head -1)
for q in "$interp" "$jit"; do
  [ -n "$precise" ] && [ -n "$q" ] && [ "$q" -lt "$precise" ] || { echo "FAIL: quantum mode did not skip the stalls"; exit 1; }
done
echo PASS
