#!/bin/sh
# A profile replaced, rewritten, truncated or deleted under the open viewer (a real terminal,
# tmux 180x30): out of core (--memory 16M --out-of-core, windows of at most 2000 calls through
# the SCOPEVIEW_TEST_OOC_CAP hook, so the first screen is the overview), zooming in after the
# change asks for a window of calls; its read finds that the path is no longer the file opened
# (src/ooc/ooc_window.c: device, inode, size, mtime, the index's digest) and the viewer says
# so and keeps the overview: never a crash (the window of another file has other lanes than
# the map's rows), never an empty timeline marked "out of core".  In memory, every view and
# the selection's details still draw from the profile loaded.  The viewer quits with status 0
# each time.  Skipped (exit 77) when tmux is not installed.
. "${0%/*}/../lib.sh"
scr="$tmp/screen"
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux is not installed"
    exit 77
fi
. "${0%/*}/../tmux_lib.sh"
a="$tmp/a.h5" b="$tmp/b.h5" b1="$tmp/b1.h5"
# a: one rank, one lane of nested calls; b1: one rank with thread lanes (more lanes than a's
# on the same rank); b: two ranks with thread lanes
"$top_build/svgen" bench-schema3 "$a" --calls 200000 >/dev/null || exit 99
"$top_build/svgen" stream-mix "$b1" --calls 200000 --ranks 1 --threads >/dev/null || exit 99
"$top_build/svgen" stream-mix "$b" --calls 200000 --ranks 2 --threads >/dev/null || exit 99
run_env="env TERM=xterm-256color LANG=C.UTF-8 SCOPEVIEW_TEST_OOC_CAP=2000"

# zoom_in SESSION: + until the header is no longer the overview's ("loading" waited for)
zoom_in() {
    n=0
    while [ $n -lt 25 ]; do
        t send-keys -t "$1" +
        sleep 0.2
        m=0
        while cap "$1" && row_has 2 "loading calls" && [ $m -lt 100 ]; do
            sleep 0.1
            m=$((m + 1))
        done
        row_has 2 "overview (out of core)" || break
        n=$((n + 1))
    done
}

# --- out of core: cp b1 over the path (same inode, new size), mv b over it (a new inode),
# truncated to half, deleted
for how in cp mv truncate rm; do
    cp "$a" "$tmp/v-$how.h5"
    start "$how" 180 30 "$run_env '$sv' --memory 16M --out-of-core '$tmp/v-$how.h5' 2>'$tmp/$how.err'"
    # the whole overview, not the early frame's "overview (out of core): coming as ...": a
    # change during the pass ends the open instead
    check "$how: the overview first" wait_for "$how" "overview (out of core) *$" 300
    case $how in
    cp) cp "$b1" "$tmp/v-$how.h5" ;;
    mv) cp "$b" "$tmp/b-copy.h5" && mv "$tmp/b-copy.h5" "$tmp/v-$how.h5" ;;
    truncate) truncate -s 1600000 "$tmp/v-$how.h5" ;;
    rm) rm "$tmp/v-$how.h5" ;;
    esac
    zoom_in "$how"
    check "$how: the viewer says the file changed" \
        wait_for "$how" "the file changed since it was opened: quit and open it again" 50
    check "$how: the overview kept, its calls not read" row_has 2 "overview: the calls could not"
    check "$how: the map's row still drawn" has "^▶r0 *│main"
    check "$how: never an empty window marked out of core" sh -c "! sed -n 2p '$scr' | grep -q ' out of core$'"
    t send-keys -t "$how" q
    check "$how: q quits with status 0" wait_for "$how" "SV-EXIT=0" 50
    check "$how: nothing from a sanitizer" sh -c "! grep -q 'ERROR: \|runtime error' '$tmp/$how.err'"
done

# --- in memory: every view, the selection and the source pane after the file was replaced
cp "$a" "$tmp/m.h5"
start mem 100 30 "$run_env '$sv' '$tmp/m.h5' 2>'$tmp/mem.err'"
check "in memory: the timeline first" wait_for mem "1 lane" 300
cp "$b" "$tmp/m.h5"
for k in + + + Enter ] 2 Enter 3 Down Enter 4 Enter 5 7 1 s; do
    t send-keys -t mem "$k"
    sleep 0.2
done
check "in memory: still the profile loaded (its one lane)" wait_for mem "1 lane" 50
t send-keys -t mem q
check "in memory: q quits with status 0" wait_for mem "SV-EXIT=0" 50
check "in memory: nothing from a sanitizer" sh -c "! grep -q 'ERROR: \|runtime error' '$tmp/mem.err'"
finish
