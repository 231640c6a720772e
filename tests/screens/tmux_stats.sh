#!/bin/sh
# The statistics after the first frame in a real terminal (tmux, 100x24): while they are
# computed (SCOPEVIEW_TEST_STATS=delay:MS makes them arrive MS ms late, as on a slow machine)
# the regions view shows the file's stored summary_statistics, marked so; keys are taken; the
# real figures replace them by themselves once they arrive, with no key pressed (the
# terminal's poll brings them in).  Skipped (exit 77) when tmux is not installed.
. "${0%/*}/../lib.sh"
scr="$tmp/screen"
if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux is not installed"
    exit 77
fi
need_fixture "$fx/col3_full.h5"
. "${0%/*}/../tmux_lib.sh"

t new-session -d -s st -x 100 -y 24 \
    "cd '$tmp'; env TERM=xterm-256color LANG=C.UTF-8 SCOPEVIEW_TEST_STATS=delay:4000 '$sv' '$fx/col3_full.h5'; sleep 600"
check "first screen: computing" wait_for st "computing… ("
t send-keys -t st 3
check "3 while computing: the regions at once" wait_for st "\[3 regions\]" 20
# (waited for too: the tab bar is drawn before the body, and a slow build, ThreadSanitizer on
# a loaded machine, was captured in between)
check "3 while computing: the file's figures, marked" \
    wait_for st "stored in the file (summary_statistics)" 20
t send-keys -t st j
check "j while computing: the cursor on solve" wait_for st "▶solve \*" 20
# No key from here on: the statistics arrive (4 s after they were done) and the screen redraws.
check "the statistics replace the stored figures by themselves" wait_for st "▶solve  " 100
check "and the marker is gone" wait_until st hasnt "stored in the file"
t send-keys -t st q

finish
