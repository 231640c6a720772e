#!/bin/sh
# Every signal restores the terminal (src/ui/term_signal.c): scopeview runs in a detached
# tmux pane; SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM and SIGSEGV are sent from outside.  Each must
# end the process with that same signal (the shell reports 128 + N) and leave the pane out of
# the alternate screen, with the cursor shown, mouse reporting off and the tty modes back
# (canonical input and echo).  Skipped (exit 77) when tmux is not installed.
. "${0%/*}/../lib.sh"
scr="$tmp/screen"
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux is not installed"
    exit 77
fi
if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "tmux_signals.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi
. "${0%/*}/../tmux_lib.sh"
# The pane's modes as tmux tracks them: alternate screen, cursor shown, any mouse mode.
modes() { t display -p -t "$1" '#{alternate_on} #{cursor_flag} #{mouse_any_flag}'; }
in_viewer() { [ "$(modes "$1")" = "1 0 1" ]; }
restored() { [ "$(modes "$1")" = "0 1 0" ]; }
tty_back() { wait_for "$1" "^MODES:" && has "^MODES: icanon echo"; }

# One session per signal: the shell records scopeview's pid, execs it, then reports.
# (Linux numbers: dash's kill -l does not map names.)
for pair in QUIT:3 USR1:10 USR2:12 ALRM:14 SEGV:11; do
    sig=${pair%:*}
    num=${pair#*:}
    s=$(echo "$sig" | tr 'A-Z' 'a-z')
    t new-session -d -s "$s" -x 80 -y 24 \
        "cd '$tmp'; ulimit -c 0; sh -c 'echo \$\$ >$tmp/$s.pid; exec env TERM=xterm-256color LANG=C.UTF-8 \"$sv\" \"$small\"'; echo SV-EXIT=\$?; echo MODES: \$(stty -a | tr ' ;' '\n\n' | grep -x -- '-\{0,1\}\(icanon\|echo\)'); sleep 600"
    check "$sig: the viewer starts" wait_for "$s" "small\.h5"
    check "$sig: the pane is in the viewer's modes (alternate screen, no cursor, mouse)" \
        in_viewer "$s"
    kill -"$sig" "$(cat "$tmp/$s.pid")"
    check "$sig: the process ends with SIG$sig ($((128 + num)))" \
        wait_for "$s" "SV-EXIT=$((128 + num))"
    check "$sig: alternate screen left, cursor shown, mouse off" restored "$s"
    check "$sig: the tty has canonical input and echo back" tty_back "$s"
done

finish
