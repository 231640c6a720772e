# tmux_lib.sh: the real binary in a detached tmux pane, for the tests that need a terminal
# (sourced after lib.sh, once the script knows tmux is there).  A private server per test run,
# so the user's own tmux sessions are never touched; lib_cleanup stops it.
sv=$(cd "$(dirname "$sv")" && pwd)/scopeview
small=$(cd "$fx" 2>/dev/null && pwd)/small.h5
tmux_sock="sv-${lib_test%.sh}-$$"
t() { tmux -L "$tmux_sock" -f /dev/null "$@"; }
lib_cleanup() { t kill-server 2>/dev/null; }

# start NAME COLS ROWS COMMAND: a detached session whose shell runs COMMAND, then reports how it
# ended (SV-EXIT=) and the terminal modes (MODES:), and stays open to be read.
start() {
    t new-session -d -s "$1" -x "$2" -y "$3" \
        "cd '$tmp'; $4; echo SV-EXIT=\$?; echo MODES: \$(stty -a | tr ' ;' '\n\n' | grep -x -- '-\{0,1\}\(icanon\|echo\)'); sleep 600"
}
cap() { t capture-pane -p -t "$1" >"$tmp/screen"; }
# poll TENTHS SESSION COMMAND...: captures the pane every tenth of a second until COMMAND
# succeeds, at most TENTHS times.  A pass returns at the first match, so a long limit costs
# time only on a failure, and a sanitizer build on a loaded machine still gets its frame in time.
poll() {
    limit=$1 session=$2
    shift 2
    n=0
    while [ $n -lt "$limit" ]; do
        cap "$session"
        "$@" && return 0
        sleep 0.1
        n=$((n + 1))
    done
    return 1
}
# wait_for SESSION PATTERN [TENTHS]: until the pane has PATTERN (${tmux_wait:-150} tenths by
# default).
wait_for() { poll "${3:-${tmux_wait:-150}}" "$1" has "$2"; }
row_has() { sed -n "${1}p" "$tmp/screen" | grep -q -- "$2"; }
# wait_until SESSION COMMAND...: until COMMAND succeeds on the pane, as long as wait_for.
# A check of a part of the screen below the one waited for waits too: the terminal is written
# top to bottom, and a slow build (ThreadSanitizer on a loaded machine) is captured in between.
wait_until() {
    session=$1
    shift
    poll "${tmux_wait:-150}" "$session" "$@"
}
