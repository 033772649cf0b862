# shellcheck shell=bash
# How every integration test reports: ok lines, one FAIL line and a non-zero exit, and the end of the
# guest console (the file in $console) when a system-mode check fails.
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
show_console() {
    echo "---- console (last 60 lines) ----" >&2
    tail -60 "$console" >&2
    echo "----" >&2
}
