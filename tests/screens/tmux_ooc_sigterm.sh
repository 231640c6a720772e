#!/bin/sh
# SIGTERM while the out-of-core viewer's window child is stopped (a real terminal, tmux 100x30):
# zooming in starts a child that reads the window's calls (src/ooc/ooc_window.c), which
# SCOPEVIEW_TEST_WINDOW=stop makes SIGSTOP itself at once; then the viewer gets SIGTERM.
# Quitting gives up the window read (src/ooc/ooc_job.c, isolate_options.cancel): the stopped
# child is killed at once and the viewer ends with status 143 within 3 s, not after the
# child's stall deadline (10 s), and no child is left behind.  Skipped (exit 77) when tmux or
# pgrep is not installed.
. "${0%/*}/../lib.sh"
scr="$tmp/screen"
if ! command -v tmux >/dev/null 2>&1 || ! command -v pgrep >/dev/null 2>&1; then
    echo "SKIP: tmux or pgrep is not installed"
    exit 77
fi
. "${0%/*}/../tmux_lib.sh"
f="$tmp/a.h5"
"$top_build/svgen" bench-schema3 "$f" --calls 400000 >/dev/null || exit 99
# Windows of at most 2000 calls (the first screen is the overview); the shell records the pid.
start ooc 100 30 "sh -c 'echo \$\$ >$tmp/sv.pid; exec env TERM=xterm-256color LANG=C.UTF-8 SCOPEVIEW_TEST_OOC_CAP=2000 SCOPEVIEW_TEST_WINDOW=stop \"$sv\" --memory 16M --out-of-core \"$f\"'"
check "the overview first" wait_for ooc "overview (out of core) *$" 300
pid=$(cat "$tmp/sv.pid")
# stopped_child: prints the pid of a child of the viewer in state T (stopped)
stopped_child() {
    for c in $(pgrep -P "$pid"); do
        grep -q '^State:.*T' "/proc/$c/status" 2>/dev/null && echo "$c" && return 0
    done
    return 1
}
n=0
child=
while [ $n -lt 40 ]; do
    t send-keys -t ooc +
    sleep 0.2
    child=$(stopped_child) && break
    n=$((n + 1))
done
check "zooming in started a window child, now stopped" test -n "$child"
sleep 0.5
check "the viewer waits for it (no exit yet)" hasnt "SV-EXIT="
kill -TERM "$pid"
check "SIGTERM: the viewer ends with status 143 within 3 s" wait_for ooc "SV-EXIT=143" 30
check "the stopped child was ended" sh -c "! kill -0 $child 2>/dev/null"
check "the tty has canonical input and echo back" wait_for ooc "^MODES: icanon echo" 20

finish
