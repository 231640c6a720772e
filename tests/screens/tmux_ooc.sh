#!/bin/sh
# The viewer out of core in a real terminal (tmux, 80x24; src/view/timeline/tl_window.c): a file whose
# columns exceed --memory (96 MB against 64M) opens (no refusal), the first screen is the overview drawn from the
# map ("overview (out of core)" and its legend), and zooming in reads the calls of the view on a
# worker thread: the screen fills in with call bars by itself once they arrive (the terminal's
# poll brings them in), the header then saying "out of core".  The views needing every call say
# so.  SCOPEVIEW_TEST_OOC_CAP (a test hook for ooc_window_cap) makes a window hold at most 2000
# calls, so the first screen is the overview whatever the budget's share.  Skipped (exit 77)
# when tmux is not installed.
. "${0%/*}/../lib.sh"
scr="$tmp/screen"
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux is not installed"
    exit 77
fi
. "${0%/*}/../tmux_lib.sh"
# 96 MB of schema-3 columns (6M calls) over --memory 64M (the overview map alone may take tens
# of MB, so no smaller budget).
mix="$tmp/b3.h5"
"$top_build/svgen" bench-schema3 "$mix" --calls 6000000 >/dev/null 2>&1
[ -f "$mix" ] || {
    echo "svgen bench-schema3 failed"
    exit 99
}
how="--memory 64M"

start ooc 80 24 "env TERM=xterm-256color LANG=C.UTF-8 SCOPEVIEW_TEST_OOC_CAP=2000 '$sv' $how '$mix'"
check "opens out of core ($how): the overview from the map" wait_for ooc "overview (out of core) *$" 300
check "not refused" hasnt "memory budget"
check "the map's legend under the rows" wait_until ooc has "^ overview"
check "the timeline's tab" has "\[1 timeline\]"
# Zoom in at the cursor until the view spans at most 2000 calls: then the calls are read (each
# + waits for a window being read to come in, so a slow machine does not zoom past it).
n=0
while [ $n -lt 40 ]; do
    t send-keys -t ooc +
    sleep 0.2
    m=0
    while cap ooc && row_has 2 "loading calls" && [ $m -lt 100 ]; do
        sleep 0.1
        m=$((m + 1))
    done
    row_has 2 "  out of core$" && break
    n=$((n + 1))
done
check "zoomed in: the calls of the view are read (header 'out of core')" \
    wait_for ooc "  out of core$" 100
check "zoomed in: a call's bar, named (bench.py's main spans the view)" \
    wait_until ooc rowhas 4 "│main"
check "zoomed in: no longer the overview" hasnt "overview (out of core)"
# A call of the window selected: under the cursor, else the next or the previous in its row.
for k in Enter ] [; do
    t send-keys -t ooc "$k"
    wait_for ooc " start .* dur " 20 && break
done
check "a call of the window selected: its start and duration" wait_for ooc " start .* dur " 20
t send-keys -t ooc 4
check "4: the calls view lists the region's slowest calls" wait_for ooc "slowest first" 50
t send-keys -t ooc 1 0
check "0 (the whole profile) again: the overview" wait_for ooc "overview (out of core)" 50
t send-keys -t ooc q
check "q quits with status 0" wait_for ooc "SV-EXIT=0" 50

finish
