#!/bin/sh
# The out-of-core viewer in a real terminal (tmux 100x30) while its pass over the calls is
# stopped: SCOPEVIEW_TEST_OVERVIEW=stop makes the loading child SIGSTOP itself as its pass
# begins (src/ooc/ooc_h5.c).  The first frame is the timeline's skeleton with the progress
# line; keys work (the regions view from the stored statistics, the help); q quits at once
# (the open's job kills the stopped child: src/ooc/ooc_open_job.c), not after the child's
# stall deadline (10 s), and no child is left behind.  Then, without the hook, the overview
# replaces the skeleton on its own.  Skipped (exit 77) when tmux or pgrep is not installed.
. "${0%/*}/../lib.sh"
scr="$tmp/screen"
if ! command -v tmux >/dev/null 2>&1 || ! command -v pgrep >/dev/null 2>&1; then
    echo "SKIP: tmux or pgrep is not installed"
    exit 77
fi
. "${0%/*}/../tmux_lib.sh"
f="$tmp/a.h5"
"$top_build/svgen" bench-schema3 "$f" --calls 400000 >/dev/null || exit 99
run_env="TERM=xterm-256color LANG=C.UTF-8"
start early 100 30 "sh -c 'echo \$\$ >$tmp/sv.pid; exec env $run_env SCOPEVIEW_TEST_OVERVIEW=stop \"$sv\" --out-of-core \"$f\"'"
check "the skeleton first, with the progress line" wait_for early "mapping the calls: 0% of 4.0e5 read, rank 0 (1 of 1)" 300
pid=$(cat "$tmp/sv.pid")
stopped_child() {
    for c in $(pgrep -P "$pid"); do
        grep -q '^State:.*T' "/proc/$c/status" 2>/dev/null && echo "$c" && return 0
    done
    return 1
}
child=$(stopped_child)
check "its loading child is stopped" test -n "$child"
t send-keys -t early 3
check "keys work: the regions view from the stored statistics" wait_for early "stored in the file (summary_statistics)" 50
t send-keys -t early '?'
check "keys work: the help" wait_for early "close the help" 50
t send-keys -t early q q
check "q: the viewer ends with status 0 within 3 s" wait_for early "SV-EXIT=0" 30
check "the stopped child was ended" sh -c "! kill -0 $child 2>/dev/null"
check "the tty has canonical input and echo back" wait_for early "^MODES: icanon echo" 20

# Without the hook the overview comes in on its own and the timeline draws its calls.
start full 100 30 "env $run_env \"$sv\" --out-of-core \"$f\""
check "the timeline replaces the skeleton" wait_for full "1 lane  out of core" 300
check "with the calls" wait_for full "r0 .*\\[main" 100
t send-keys -t full q
check "q after the overview: exit 0" wait_for full "SV-EXIT=0" 30

finish
