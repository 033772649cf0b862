#!/bin/bash
# The ETE resources in the stream: tests/bare/ete_resources.c under --trace, its packets listed by
# Debian's trc_pkt_lister (libopencsd-bin) with no errors, and its one window with events enabled
# giving an Event packet (header 0x70 | the events, docs/ete.md "The stream") at each step an
# event is active, in the order ete_win runs them: 16 of event 1 (range A only, pair 3 in the
# reserved row 0b001), 32 of event 0 (A and B, pair 2), 3 of event 2 (the single address).
#   ete_resources.sh BRISK PROG
set -euo pipefail
(($# == 2)) || { echo "usage: $0 BRISK PROG" >&2; exit 2; }
BRISK=$1 PROG=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/ete_listing.sh"
command -v trc_pkt_lister >/dev/null || fail "trc_pkt_lister is missing (scripts/setup installs it)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$BRISK" system --bios none -m 64M --kernel "$PROG" --trace "$WORK/trace" >"$WORK/console" 2>&1 ||
    { cat "$WORK/console" >&2; fail "brisk system failed"; }
grep -q '^PASS' "$WORK/console" || { cat "$WORK/console" >&2; fail "the program did not pass"; }
ete_listing "$WORK/trace" "$WORK/listing"
# trc_pkt_lister names an Event packet but not its events: read its header byte.
events=$(sed -n 's/^Idx:\([0-9]*\);.*I_EVENT .*/\1/p' "$WORK/listing" | while read -r off; do
    od -An -tx1 -j"$off" -N1 "$WORK/trace/ete_0.bin" | tr -d ' '
done | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }')
[[ $events == "72 x16, 71 x32, 74 x3" ]] || fail "Event packets: '$events', want '72 x16, 71 x32, 74 x3'"
echo "ok: Event packets $events"
