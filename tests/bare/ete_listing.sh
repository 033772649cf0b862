# Sourced by the ETE test scripts, which define fail(): ete_listing DIR LISTING [WHAT] writes
# trc_pkt_lister's listing of the snapshot in DIR to LISTING, which must reach the end of the trace
# with no error, bad, reserved, incomplete or unsynchronised packet. WHAT prefixes the failures.
ete_listing() {
    local dir=$1 listing=$2 what=${3:-} bad
    (cd "$dir" && trc_pkt_lister -ss_dir . -logstdout) >"$listing" 2>&1 || fail "${what}trc_pkt_lister failed"
    grep -q 'END OF TRACE DATA' "$listing" || fail "${what}trc_pkt_lister did not reach the end of the trace"
    for bad in ERROR BAD_ RESERVED INCOMPLETE NOTSYNC; do
        ! grep -q "$bad" "$listing" || { grep "$bad" "$listing" | head >&2; fail "${what}$bad in the listing"; }
    done
}
