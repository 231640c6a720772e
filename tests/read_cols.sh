#!/bin/sh
# --json, --csv and --summary read only the columns their output needs (loader.h stats_only):
# no event_metadata, which only the calls show; --events reads it.  SCOPEVIEW_READ_LOG=1 names
# each dataset a load reads (in process, so that its stderr is seen).  The values are checked
# elsewhere (test_columnar: the skipped columns' loads by hand; strip.sh, regress.sh).
. "${0%/*}/lib.sh"
svgen="$top_build/svgen"
need_fixture "$svgen" "$fx/col3_full.h5"
"$svgen" extended "$tmp/ext.h5" 400 >/dev/null || exit 99

reads() { # MODE... FILE: the datasets read, one a line
    SCOPEVIEW_IN_PROCESS=1 SCOPEVIEW_READ_LOG=1 "$sv" "$@" 2>&1 >/dev/null |
        sed -n 's/^scopeview: read //p'
}
# The file has metadata and the mode reads it (or not: "no"); its start times are read.
reads_meta() { # yes|no FILE MODE...
    want=$1
    shift
    f=$1
    shift
    reads "$@" "$f" >"$tmp/log"
    grep -q 'start_\(times\|deltas\)$' "$tmp/log" || { echo "  $*: no start times read"; return 1; }
    n=$(grep -c '/event_metadata$' "$tmp/log")
    [ "$want" = yes ] && [ "$n" -gt 0 ] && return 0
    [ "$want" = no ] && [ "$n" = 0 ] && return 0
    echo "  $* $f: $n event_metadata reads"
    return 1
}
for f in "$fx/col3_full.h5" "$tmp/ext.h5"; do
    for m in --json --csv --summary; do
        check "$m ${f##*/}: no event_metadata read" reads_meta no "$f" "$m"
    done
    r=$("$sv" --csv "$f" | sed -n '2s/,.*//p')
    check "--events ${f##*/}: event_metadata read" reads_meta yes "$f" --events "$r"
done
quiet() { # the log is off by default
    SCOPEVIEW_IN_PROCESS=1 "$sv" --events "$r" "$tmp/ext.h5" 2>&1 >/dev/null |
        grep -q '^scopeview: read' && return 1
    return 0
}
check "no log without SCOPEVIEW_READ_LOG" quiet
finish
