#!/bin/sh
# The statistics after the first frame (src/isolate/isolate_defer.c,
# wire_stats.c, stats_job.c): the viewer's loading child sends the columns first, then the
# statistics.  SCOPEVIEW_TEST_STATS=hold (a test hook) keeps them back until the key <Ready>,
# so every screen here is deterministic.  Meanwhile the regions view shows the file's stored
# summary_statistics, marked so, or says "computing…"; the other views that need them wait;
# keys are honoured; once they are in, every screen equals the run that waited for them.
# The figures while held are the file's (tests/gen/FIXTURES.md col3_full: outer totals 700 on
# rank 0 and 600 on rank 1, exclusive totals 500 + 300), worked out by hand there.
. "${0%/*}/../lib.sh"
scr="$tmp/s"
gen="$top_build/tests/hostile_gen"
need_fixture "$fx/col3_full.h5" "$fx/small.h5" "$gen"
c3="$fx/col3_full.h5"
small="$fx/small.h5"

held() { # held SIZE KEYS FILE [OPTIONS...]: screen with the statistics held back
    SCOPEVIEW_TEST_STATS=hold screen "$@"
}

# Regions (3) of a schema-3 file with summary_statistics: the stored figures at once.
held 120x16 "3" "$c3"
check "held regions: exits 0" [ "$rc" = 0 ]
check "held regions: the key 3 was honoured" rowhas 1 "\[3 regions\]"
check "held regions: marked as the file's" has "stored in the file (summary_statistics)"
check "held regions: says the rest is computing" has "computing… (statistics, in the background)"
check "held regions: outer's stored total 700 + 600 ns, its stored exclusive 500 + 300 ns" \
    hasx "^▶outer \* +3 +1\.300 us .* 800 ns"
check "held regions: no percentile stored, none shown" hasx "^▶outer \* +3 .* - +- "
screen 120x16 "3" "$c3"
cp "$scr" "$tmp/want"
check "waited regions: not marked" hasnt "stored in the file"
held 120x16 "3<Ready>" "$c3"
check "regions after <Ready> equal the waited ones" cmp -s "$scr" "$tmp/want"
check "regions after <Ready>: not marked" hasnt "stored in the file"

# A file without stored statistics: nothing to show yet, and nothing false.
held 100x14 "3" "$small"
check "held regions, nothing stored: computing" has "computing… (statistics, in the background)"
check "held regions, nothing stored: no table" hasnt "Calls"
held 100x14 "3" "$small" --ascii
check "held regions, ascii: computing..." has "computing\.\.\. (statistics"
check "held regions, ascii: only ASCII" ascii_only
screen 100x14 "3" "$small"
cp "$scr" "$tmp/want"
held 100x14 "3<Ready>" "$small"
check "small regions after <Ready> equal the waited ones" cmp -s "$scr" "$tmp/want"

# Keys during the computation: the cursor moves on the stored rows (sorted by total: outer,
# solve, inner) and stays on its region when the statistics arrive.
held 120x16 "3j" "$c3"
check "held regions: j moved the cursor to solve" hasx "^▶solve \*"
held 120x16 "3j<Ready>" "$c3"
cp "$scr" "$tmp/a"
check "after <Ready>: the cursor still on solve" hasx "^▶solve "
screen 120x16 "3j" "$c3"
check "keys before and after <Ready>: the waited screen" cmp -s "$scr" "$tmp/a"
held 120x16 "3j<Ready>4" "$c3"
cp "$scr" "$tmp/a"
screen 120x16 "3j4" "$c3"
check "drill after <Ready>: the calls of the region chosen while held" cmp -s "$scr" "$tmp/a"

# The views that need the statistics wait for them: the timeline and the info view's nesting.
held 100x14 "" "$c3"
check "held timeline: computing (statistics)" has "computing… (statistics, in the background)"
screen 100x14 "" "$c3"
cp "$scr" "$tmp/want"
held 100x14 "<Ready>" "$c3"
check "timeline after <Ready> equals the waited one" cmp -s "$scr" "$tmp/want"
held 100x40 "5" "$small"
check "held info: the nesting column says computing" hasx "^ +0 +[0-9]+ +[0-9]+ +computing…"
screen 100x40 "5" "$small"
cp "$scr" "$tmp/want"
check "waited info: the nesting is known" hasnt "computing"
held 100x40 "5<Ready>" "$small"
check "info after <Ready> equals the waited one" cmp -s "$scr" "$tmp/want"

# Both held (the statistics and the viewer's nesting): <Ready> releases both.
SCOPEVIEW_TEST_CALLS=hold held 100x14 "2<Ready>" "$c3"
cp "$scr" "$tmp/a"
screen 100x14 "2" "$c3"
check "both held, <Ready>: the tree equals the waited one" cmp -s "$scr" "$tmp/a"

# A region whose duration overflows is dropped before the columns cross, with the same
# warning as the batch outputs (tests/isolate.sh): the same screens as an in-process load.
"$gen" overflow "$tmp/overflow.h5"
screen 100x14 "3" "$tmp/overflow.h5"
cp "$scr" "$tmp/a"
cp "$tmp/err" "$tmp/a.err"
check "overflow: the warning on stderr" has "region huge: call 0 lasts longer than 2^63 ns" "$tmp/err"
SCOPEVIEW_IN_PROCESS=1 screen 100x14 "3" "$tmp/overflow.h5"
check "overflow: the regions equal the in-process load's" cmp -s "$scr" "$tmp/a"
check "overflow: the same warnings" cmp -s "$tmp/err" "$tmp/a.err"
# Warnings that come with the statistics reach stderr too (headless), after the screen's load.
screen 100x14 "3" "$fx/fault_orphan_parent.h5"
cp "$tmp/err" "$tmp/a.err"
SCOPEVIEW_IN_PROCESS=1 screen 100x14 "3" "$fx/fault_orphan_parent.h5"
check "orphan parents: the nesting's warning as in-process" cmp -s "$tmp/err" "$tmp/a.err"
check "orphan parents: the warning is there" has "name a parent id that is no call" "$tmp/err"

finish
