#!/bin/sh
# The real binary in a real terminal: tmux runs scopeview in a detached 80x24 pane; keys are
# sent with send-keys and the screen read with capture-pane.  Checks the first screen, help,
# resizing (larger, too small, back), quitting with q, SIGTERM and Ctrl-C restoring the
# terminal, TERM=dumb and an unset TERM, stdin not a terminal, and monochrome on vt100.
# Skipped (exit 77) when tmux is not installed.  Prints "N passed, N failed".
. "${0%/*}/../lib.sh"
scr="$tmp/screen"
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux is not installed"
    exit 77
fi
if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "tmux.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi
. "${0%/*}/../tmux_lib.sh"
start80() { start "$1" 80 24 "$2"; }
restored() { # the shell after scopeview: canonical input and echo are back on
    wait_for "$1" "^MODES:" && has "^MODES: icanon echo"
}
run_env="env TERM=xterm-256color LANG=C.UTF-8"

# --- first screen, help, resize, quit
start80 ui "$run_env '$sv' '$small'"
check "first screen appears" wait_for ui "small\.h5"
check "title bar shows the current view" has "^  *\[1 "
check "status bar shows the help key" row_has 24 "? help"
t send-keys -t ui '?'
check "? opens the help" wait_for ui "Help: keys and legend"
t send-keys -t ui q
check "q closes the help" wait_until ui hasnt "Help: keys"
check "after the help the view is back" has "^  *\[1 "
t resize-window -t ui -x 100 -y 30
check "after a resize to 100x30 the status bar is on row 30" wait_until ui row_has 30 "? help"
check "after a resize the title is redrawn" has "^  *\[1 "
t resize-window -t ui -x 30 -y 8
check "at 30x8 the screen says it is too small" wait_for ui "Terminal too small"
check "at 30x8 the message gives the size" has "(30x8)"
t resize-window -t ui -x 80 -y 24
check "back at 80x24 the interface recovers" wait_for ui "^  *\[1 "
check "back at 80x24 the message is gone" wait_until ui hasnt "too small"
check "back at 80x24 the status bar is on row 24" wait_until ui row_has 24 "? help"
# A storm of resizes, some while keys are being handled, ending at 1x1 then 80x24.
i=1
while [ $i -le 30 ]; do
    t resize-window -t ui -x $((20 + i * 7)) -y $((4 + i))
    [ $((i % 5)) = 0 ] && t send-keys -t ui '?'
    i=$((i + 1))
done
t resize-window -t ui -x 1 -y 1
t resize-window -t ui -x 80 -y 24
check "after a storm of resizes the screen is whole at 80x24" wait_until ui row_has 24 "? help"
check "after a storm of resizes the title is there" has "^  *\[1 "
t send-keys -t ui q
check "q quits with status 0" wait_for ui "SV-EXIT=0"
check "q leaves the terminal restored" restored ui
check "q leaves the alternate screen" hasnt "? help"

# --- signals restore the terminal
start80 sig "sh -c 'echo \$\$ >$tmp/pid; exec $run_env \"$sv\" \"$small\"'"
check "second session starts" wait_for sig "small\.h5"
kill -TERM "$(cat "$tmp/pid")"
check "SIGTERM exits with 143" wait_for sig "SV-EXIT=143"
check "SIGTERM restores the terminal" restored sig
start80 int "$run_env '$sv' '$small'"
check "third session starts" wait_for int "small\.h5"
t send-keys -t int C-c
check "Ctrl-C exits with 130" wait_for int "SV-EXIT=130"
check "Ctrl-C restores the terminal" restored int

# --- terminals that cannot show it
start80 dumb "env TERM=dumb '$sv' '$small'"
check "TERM=dumb exits 1" wait_for dumb "SV-EXIT=1"
check "TERM=dumb says why and what to use" has "terminal 'dumb' cannot show the interface; use --summary"
start80 noterm "env -u TERM '$sv' '$small'"
check "no TERM exits 1" wait_for noterm "SV-EXIT=1"
check "no TERM points to the batch outputs" has "TERM is not set.*--batch"
start80 unknown "env TERM=no-such-terminal '$sv' '$small'"
check "an unknown TERM exits 1" wait_for unknown "SV-EXIT=1"
check "an unknown TERM is named" has "unknown terminal 'no-such-terminal'"

# --- stdin not a terminal: keys come from /dev/tty
start80 stdin "$run_env '$sv' '$small' </dev/null"
check "stdin from /dev/null still shows the interface" wait_for stdin "small\.h5"
t send-keys -t stdin q
check "and q still quits" wait_for stdin "SV-EXIT=0"

# --- monochrome on a terminal without colours
start80 mono "env TERM=vt100 LANG=C.UTF-8 '$sv' '$small'"
check "vt100 shows the interface" wait_for mono "small\.h5"
t capture-pane -p -e -t mono >"$tmp/sgr"
check "vt100 gets no colours" sh -c "! grep -q '\[[0-9;]*[34][0-7]m' '$tmp/sgr'"
check "vt100 still shows the title in reverse video" grep -q "$(printf '\033')\[[0-9;]*7m" "$tmp/sgr"
t send-keys -t mono q
check "vt100 quits" wait_for mono "SV-EXIT=0"
# --- NO_COLOR (https://no-color.org): no colours on a colour terminal, still reverse video
start80 nocolor "env NO_COLOR=1 $run_env '$sv' '$small'"
check "NO_COLOR shows the interface" wait_for nocolor "small\.h5"
t capture-pane -p -e -t nocolor >"$tmp/sgr"
check "NO_COLOR gets no colours" sh -c "! grep -q '\[[0-9;]*[34][0-7]m' '$tmp/sgr' && ! grep -q '[34]8;5;' '$tmp/sgr'"
check "NO_COLOR still shows the title in reverse video" grep -q "$(printf '\033')\[[0-9;]*7m" "$tmp/sgr"
t send-keys -t nocolor q
check "NO_COLOR quits" wait_for nocolor "SV-EXIT=0"
start80 color "$run_env '$sv' '$small'"
check "xterm-256color shows the interface" wait_for color "small\.h5"
check "xterm-256color draws the bars (the nesting may come a frame later)" wait_for color "\[outer"
t capture-pane -p -e -t color >"$tmp/sgr"
check "xterm-256color gets colours" grep -q "$(printf '\033')\[[0-9;]*4[0-7]m" "$tmp/sgr"
check "xterm-256color bars use the 256-colour palette" grep -q "48;5;[0-9]*" "$tmp/sgr"
t send-keys -t color q

finish
