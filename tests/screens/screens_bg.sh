#!/bin/sh
# The background nesting (src/model/calls_job.c): the screens that need per-call nesting say
# "computing…" while it runs, keys pressed meanwhile are honoured, and once it is done the
# screens equal those of a run that waited for it.  SCOPEVIEW_TEST_CALLS=hold (a test hook)
# keeps the worker's results back until the key <Ready>, so every screen here is deterministic.
# The values after <Ready> are the ones the waiting run shows (checked against hand-worked
# and expected values by screens.sh, screens_tree.sh and test_nest); here: that they are the
# same, and that a held screen states no value it does not have.
. "${0%/*}/../lib.sh"
scr="$tmp/s"
need_fixture "$fx/small.h5"
f="$fx/small.h5"

held() { # held SIZE KEYS FILE [OPTIONS...]: screen with the worker held
    SCOPEVIEW_TEST_CALLS=hold screen "$@"
}

# Timeline (the first frame): the frame is there, lanes to come.
held 80x24 "" "$f"
check "held timeline: exits 0" [ "$rc" = 0 ]
check "held timeline: the tab bar" rowhas 1 "\[1 timeline\]"
check "held timeline: says computing" has "computing… (call nesting, in the background)"
check "held timeline: no lane drawn yet (no call bars)" hasnt "outer"
check "held timeline: lanes not counted yet, not 'no lanes'" rowhas 2 "lanes: computing…"
check "held timeline: never says there are no lanes" hasnt "no lanes"
held 80x24 "" "$f" --ascii
check "held timeline, ascii: computing..." has "computing\.\.\. (call nesting"
check "held timeline, ascii: only ASCII" ascii_only

# Meanwhile an overview (src/view/timeline/tl_overview.c): one row per recorded thread, the calls
# starting in each column.  small.h5: MainThread starts 1000 1100 2000 2100 2500, Worker-1
# 1300; the span [1000, 3000] fitted to 64 columns at 80x24 is 32 ns a column (the header's
# 2.048 us), so MainThread's calls start in columns (s - 1000) / 32 = 0 3 31 34 46 and
# Worker-1's in 9, one call each: the lowest level (1+).
held 80x24 "" "$f"
check "overview 80x24: the time axis of the lanes" rowhas 2 "0\.000 us \.\. 2\.048 us  (32 ns/col)"
check "overview 80x24: the ruler" rowhas 3 "┬0\.0 us"
check "overview 80x24: MainThread (the cursor row, marked), starts in columns 0 3 31 34 46" \
    rowhas 4 "^▶r0 MainThread │∶  ∶ \{27\}∶  ∶ \{11\}∶$"
check "overview 80x24: Worker-1, a start in column 9" rowhas 5 "^ r0 Worker-1   │ \{9\}∶$"
check "overview 80x24: the legend says what the strips count" \
    rowhas 6 "overview: calls starting per column (approx.) ∶ 1+ ∷ 2+ ▓ 10+"
check "overview 80x24: computing below the rows" rowhas 7 "computing… (call nesting"
held 80x24 "" "$f" --ascii
check "overview ascii: MainThread" rowhas 4 "^>r0 MainThread |:  : \{27\}:  : \{11\}:$"
check "overview ascii: the legend" rowhas 6 "calls starting per column (approx.) : 1+ % 2+ @ 10+"
check "overview ascii: only ASCII" ascii_only
# 200x60: 172 columns of 12 ns (2000 / 172 rounded up; header 2.064 us): columns 0 8 83 91
# 125, and 25 for Worker-1.
held 200x60 "" "$f"
check "overview 200x60: 12 ns a column" rowhas 2 "0\.000 us \.\. 2\.064 us  (12 ns/col)"
check "overview 200x60: MainThread, starts in columns 0 8 83 91 125" \
    rowhas 4 "^▶r0 MainThread \{13\}│∶ \{7\}∶ \{74\}∶ \{7\}∶ \{33\}∶$"
check "overview 200x60: Worker-1, column 25" rowhas 5 "^ r0 Worker-1 \{15\}│ \{25\}∶$"
check "overview 200x60: legend, then computing" rowhas 7 "computing… (call nesting"
# Rows that do not fit say how many more: demo.h5's 8 rows (2 ranks, 4 threads each) in
# 10 lines keep 3 rows, "+5 more rows", the legend and the computing line.
if [ -f "$top_src/data/demo.h5" ]; then
    held 80x10 "" "$top_src/data/demo.h5"
    check "overview 80x10: the first rank's first row" rowhas 4 "^▶r0 MainThread │"
    check "overview 80x10: +5 more rows" rowhas 7 "^ +5 more rows$"
    check "overview 80x10: the legend" rowhas 8 "overview: calls starting per column"
    check "overview 80x10: computing" rowhas 9 "computing…"
fi

# Up / down move a cursor row on the overview (marked as the lanes' is); it stops at the
# last row and at the first.
held 80x24 "j" "$f"
check "overview j: MainThread no longer marked" rowhas 4 "^ r0 MainThread │"
check "overview j: the cursor on Worker-1" rowhas 5 "^▶r0 Worker-1   │ \{9\}∶$"
held 80x24 "jjj" "$f"
check "overview jjj: stays on the last row" rowhas 5 "^▶r0 Worker-1   │"
held 80x24 "jjjk" "$f"
check "overview jjjk: back on the first row" rowhas 4 "^▶r0 MainThread │"
check "overview jjjk: one row marked" [ "$(grep -c "^▶" "$scr")" = 1 ]
# Once the lanes arrive the cursor stays on its thread: j on the overview then <Ready>
# is the screen of the waited run moved to Worker-1 (MainThread shows 2 depth rows: jj).
held 80x24 "j<Ready>" "$f"
cp "$scr" "$tmp/a"
check "j<Ready>: the cursor on Worker-1's lane" hasx "^▶r0 Worker-1 "
screen 80x24 "jj" "$f"
check "j<Ready>: the waited run's screen after jj" cmp -s "$scr" "$tmp/a"
# demo.h5's 8 rows in 80x10 show 3: the rows scroll with the cursor.  Rows in order: r0
# MainThread, Thread…-0_0, Thread…-0_1, data-loader, then r1's the same.
if [ -f "$top_src/data/demo.h5" ]; then
    d="$top_src/data/demo.h5"
    held 80x10 "jjjj" "$d"
    check "overview 80x10 jjjj: scrolled to the third row" rowhas 4 "^ r0 Thread…-0_1│"
    check "overview 80x10 jjjj: the cursor on r1 MainThread, the last shown" \
        rowhas 6 "^▶r1 MainThread │"
    check "overview 80x10 jjjj: still +5 more rows" rowhas 7 "^ +5 more rows$"
    held 80x10 "<PgDn>" "$d"
    check "overview 80x10 PgDn: a page less one row down (2), the first shown" \
        rowhas 4 "^▶r0 Thread…-0_1│"
    held 80x10 "<PgDn><PgDn><PgDn><PgDn>" "$d"
    check "overview 80x10 PgDn x4: the last row, at the bottom" rowhas 6 "^▶r1 data-loader│"
    held 80x10 "<PgDn><PgDn><PgDn><PgDn><PgUp>" "$d"
    check "overview 80x10 PgDn x4 PgUp: two rows up (the cursor stays the last shown)" \
        rowhas 6 "^▶r1 Thread…-0_0│"
    check "overview 80x10 PgDn x4 PgUp: scrolled with it (data-loader first)" \
        rowhas 4 "^ r0 data-loader│"
    held 80x24 "jjjjj<Ready>" "$d"
    check "overview r1 Thread…-0_0, then <Ready>: the lane of r1 Thread…-0_0 marked" \
        hasx "^▶r1 Thread…-0_0│"
    check "... one row marked" [ "$(grep -c "^▶" "$scr")" = 1 ]
    held 80x24 "jjjj<Ready>" "$d"
    check "overview r1 MainThread, then <Ready>: its lane marked (folded: ▸)" \
        hasx "^▶r1 Mai…ead ▸[0-9]+│"
fi

# Then the values: the same screen as the run that waited.
screen 80x24 "" "$f"
cp "$scr" "$tmp/want"
check "waited timeline: lanes drawn" has "MainThread"
held 80x24 "<Ready>" "$f"
check "<Ready>: the timeline equals the waited one" cmp -s "$scr" "$tmp/want"

# Tree (2): computing, then the tree of the waited run.
held 80x24 "2" "$f"
check "held tree: the key 2 was honoured" rowhas 1 "\[2 tree\]"
check "held tree: says computing" has "computing…"
check "held tree: no Excl column yet" hasnt "Excl"
screen 80x24 "2" "$f"
cp "$scr" "$tmp/want"
held 80x24 "2<Ready>" "$f"
check "tree after <Ready> equals the waited one" cmp -s "$scr" "$tmp/want"
check "tree after <Ready>: Excl shown" has "Excl"

# Keys during the computation: switch to the regions (they need no nesting: shown at once,
# Excl from the loader's totals) and move the cursor; then the nesting arrives.
held 80x24 "3j" "$f"
cp "$scr" "$tmp/held3"
screen 80x24 "3j" "$f"
check "regions while held equal the waited ones (keys 3 j honoured)" cmp -s "$scr" "$tmp/held3"
check "regions while held: the cursor moved to row 2" hasx "^▶"
held 80x24 "3j<Ready>1" "$f"
cp "$scr" "$tmp/a"
screen 80x24 "3j1" "$f"
check "keys before and after <Ready>: the same timeline as without waiting" cmp -s "$scr" "$tmp/a"

# Timeline keys pressed while it computes (pan, zoom, next lane) do no harm, and the view
# fits the data once the nesting is there.
held 80x24 "hl+-jk<Ready>" "$f"
check "timeline keys while held: exits 0" [ "$rc" = 0 ]
check "timeline keys while held: lanes drawn after <Ready>" has "MainThread"

# Lanes (7) and calls (4) wait too.
held 80x24 "7" "$f"
check "held lanes view: says computing" has "computing…"
screen 80x24 "7" "$f"
cp "$scr" "$tmp/want"
held 80x24 "7<Ready>" "$f"
check "lanes after <Ready> equal the waited ones" cmp -s "$scr" "$tmp/want"
held 80x24 "4" "$f"
check "held calls view: says computing" has "computing…"

# Quitting while it computes ends at once and cleanly.
held 80x24 "q" "$f"
check "q while held: exits 0" [ "$rc" = 0 ]
check "q while held: nothing on stderr" [ ! -s "$tmp/err" ]

finish
