#!/bin/sh
# The background nesting in a real terminal (tmux, 80x24): the first screen says "computing…"
# while the worker runs (SCOPEVIEW_TEST_CALLS=delay:MS makes it publish MS ms late, as on a
# slow machine), keys are taken meanwhile (3 shows the regions at once), and the timeline fills
# in by itself once the nesting arrives, with no key pressed (the terminal's poll brings it in).
# Skipped (exit 77) when tmux is not installed.  Prints "N passed, N failed".
. "${0%/*}/../lib.sh"
scr="$tmp/screen"
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux is not installed"
    exit 77
fi
need_fixture "$fx/small.h5"
. "${0%/*}/../tmux_lib.sh"

t new-session -d -s bg -x 80 -y 24 \
    "cd '$tmp'; env TERM=xterm-256color LANG=C.UTF-8 SCOPEVIEW_TEST_CALLS=delay:4000 '$sv' '$small'; sleep 600"
check "first screen: computing" wait_for bg "computing… (call nesting, in the background)"
check "first screen: the timeline's tab" has "\[1 timeline\]"
t send-keys -t bg 3
check "3 while computing: the regions at once" wait_for bg "\[3 regions\]" 20
check "3 while computing: their rows" wait_for bg "Total" 20
t send-keys -t bg 1
check "1: back to the timeline" wait_for bg "\[1 timeline\]" 20
# No key from here on: the nesting arrives (4 s after it was done) and the screen redraws.
# (MainThread is on the overview already: the lanes' count and a call bar are not.)
check "the timeline fills in by itself" wait_for bg "(32 ns/col)  2 lanes" 100
check "with the calls' bars" wait_for bg "\[outer" 20
check "and says computing no more" wait_until bg hasnt "computing…"
t send-keys -t bg q

finish
