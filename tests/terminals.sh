#!/bin/sh
# Hostile terminals beyond tests/screens/tmux.sh and tests/screens/screens.sh:
# - every batch output and the headless screen into a pipe whose reader is gone: exit 141,
#   nothing on stderr; into a closed stdout or a full disk: exit 1 with one line, no crash;
# - in a real terminal (tmux): a storm of resizes while frames are drawn (down to 1x1 and
#   back), then the screen matches the final size and q still quits with the terminal
#   restored; SIGWINCH storms; SIGINT in the middle of drawing a big profile.
# The tmux part is skipped (visibly) without tmux.  Prints "N passed, N failed".
. "${0%/*}/lib.sh"
scr="$tmp/screen"
if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "terminals.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi
. "${0%/*}/tmux_lib.sh"
tmux_wait=100 # wait_for: up to 10 s
hostile=$(cd "$fx" && pwd)/fault_hostile_strings.h5

# --- closed and failing outputs, for every batch output and the headless screen
for args in --summary --json --csv "--events inner" "--events inner --json" \
    "--events inner --csv" "--batch --size 200x60" "--batch --size 500x200 --keys 2"; do
    # The reader is gone before scopeview writes.
    {
        sleep 1
        # shellcheck disable=SC2086
        "$sv" $args "$small" 2>"$tmp/err"
        echo $? >"$tmp/rc"
    } | true
    check "$args into a closed pipe: exit 141" [ "$(cat "$tmp/rc")" = 141 ]
    check "$args into a closed pipe: quietly" [ ! -s "$tmp/err" ]
    # shellcheck disable=SC2086
    "$sv" $args "$small" >&- 2>"$tmp/err"
    rc=$?
    check "$args with stdout closed: exit 1" [ "$rc" = 1 ]
    check "$args with stdout closed: one line" [ "$(wc -l <"$tmp/err")" = 1 ]
    if [ -w /dev/full ]; then
        # shellcheck disable=SC2086
        "$sv" $args "$small" >/dev/full 2>"$tmp/err"
        check "$args into a full disk: exit 1" [ $? = 1 ]
    fi
done
# A hostile profile into a pipe that closes after the first bytes.
"$sv" --json "$hostile" 2>"$tmp/err" | head -c 10 >/dev/null
check "hostile --json | head -c 10: nothing on stderr" [ ! -s "$tmp/err" ]

if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux is not installed (terminal part)"
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
    exit
fi

wait_row() { # wait_row SESSION ROW PATTERN
    n=0
    while [ $n -lt 100 ]; do
        cap "$1"
        row_has "$2" "$3" && return 0
        sleep 0.1
        n=$((n + 1))
    done
    return 1
}
restored() { wait_for "$1" "^MODES:" && has "^MODES: icanon echo"; }
run_env="env TERM=xterm-256color LANG=C.UTF-8"

# --- resizes while frames are drawn: keys and resizes interleaved without waiting
start storm 80 24 "$run_env '$sv' '$hostile'"
check "storm: first screen" wait_for storm "fault_hostile_strings"
for size in 120x40 1x1 200x60 2x2 40x10 300x100 10x3 81x25 5x50 160x8 80x24; do
    t resize-window -t storm -x "${size%x*}" -y "${size#*x}"
    t send-keys -t storm Tab
done
t resize-window -t storm -x 100 -y 30
check "storm: the status bar ends up on row 30" wait_row storm 30 "? help"
check "storm: the title is redrawn" row_has 1 "fault_hostile_strings"
# display columns, not bytes (mawk's length counts bytes: a "▶" is 3)
check "storm: no line wider than 100" [ "$(LC_ALL=$UTF8 wc -L <"$tmp/screen")" -le 100 ]
if command -v pkill >/dev/null; then
    i=0
    pid=$(t list-panes -t storm -F '#{pane_pid}')
    while [ $i -lt 50 ]; do
        pkill -WINCH -P "$pid" 2>/dev/null
        i=$((i + 1))
    done
fi
t send-keys -t storm 2
check "storm: after a SIGWINCH storm the keys still work" wait_for storm "\[2 "
t send-keys -t storm q
check "storm: q quits with 0" wait_for storm "SV-EXIT=0"
check "storm: the terminal is restored" restored storm

# --- SIGINT while a large profile is being drawn
"$top_build/svgen" deep "$tmp/deep.h5" 100000 >/dev/null 2>&1
start intr 200 60 "$run_env '$sv' '$tmp/deep.h5'"
check "deep profile shows up" wait_for intr "deep\.h5"
t send-keys -t intr End Enter 2 End
t send-keys -t intr C-c
check "Ctrl-C during drawing exits 130" wait_for intr "SV-EXIT=130"
check "Ctrl-C during drawing restores the terminal" restored intr

finish
