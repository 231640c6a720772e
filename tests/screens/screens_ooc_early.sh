#!/bin/sh
# The out-of-core viewer's early frame (src/cli/ooc_run.c, src/ui/ooc_pending.c): before its
# pass over the calls the viewer draws from the file's index.  SCOPEVIEW_TEST_OVERVIEW=stop
# stops the loading child (SIGSTOP) as its pass begins, so the headless screen is the early
# frame: the timeline's skeleton (ruler over the span the stored statistics give, a row per
# rank) with the progress line, the regions view from the stored statistics (marked `*`; the
# calls add up to those generated), the other views saying they come with the overview.
# Quitting then exits at once (the stopped child is killed), not after the child's stall
# deadline.  SCOPEVIEW_TEST_OVERVIEW=hold holds the finished overview until <Ready>: every
# view's screen then equals the one --batch prints without the hook (the whole open first).
. "${0%/*}/../lib.sh"
f="$tmp/s3.h5"
"$top_build/svgen" bench-schema3 "$f" --calls 200000 >/dev/null || exit 99
need_fixture "$fx/col2_full.h5" "$fx/legacy_small.h5"
stop() { SCOPEVIEW_TEST_OVERVIEW=stop SCOPEVIEW_TEST_STATS=hold screen "$@"; }

stop 120x30 "" "$f" --out-of-core
check "early: exit 0" test "$rc" = 0
check "early: the timeline says the overview is coming" rowhas 2 "overview (out of core): coming"
check "early: the ruler spans the stored statistics (0 to 289.2 ms)" hasx "│0 ns .*289.2 ms│"
check "early: the progress line, beside the rank's row" rowhas 4 "rank 0 .*mapping the calls: 0% of 2.0e5 read, rank 0 (1 of 1)"

stop 120x30 "" "$f" --out-of-core --view regions
check "early regions: every region from the stored statistics" test "$(grep -c '^.[a-z]* \*  ' "$scr")" = 5
check "early regions: their calls add up to the 200000 generated" \
    test "$(awk '{ for (i = 2; i < NF; i++) if ($i == "*") { n += $(i + 1); break } } END { print n }' "$scr")" = 200000
check "early regions: marked as stored, the rest coming" hasf "* stored in the file (summary_statistics)"
cp "$scr" "$tmp/early_regions"
SCOPEVIEW_TEST_STATS=hold screen 120x30 "" "$f" --out-of-core --view regions
check "early regions: as once the overview is in, statistics still coming" cmp -s "$scr" "$tmp/early_regions"

stop 120x30 "" "$f" --out-of-core --view tree
check "early tree: comes with the overview" hasf "this view comes with the overview"
check "early tree: with the progress line" hasf "mapping the calls: 0% of 2.0e5 read, rank 0 (1 of 1)"
check "early tree: no figure" hasnt "[0-9] ms"

stop 100x12 "" "$fx/col2_full.h5" --out-of-core
check "two ranks: a row each, the second still pending" rowhas 5 "^ rank 1 *pending"
check "two ranks: the first of two swept" hasx "mapping the calls: 0% of [0-9.e]+ read, rank [0-9]+ \(1 of 2\)"

# Quitting while the child is stopped: at once, not after its stall deadline (10 s).
t0=$(date +%s)
stop 100x12 "3q" "$f" --out-of-core
t1=$(date +%s)
check "quit during the pass: exit 0" test "$rc" = 0
check "quit during the pass: within 3 s" test $((t1 - t0)) -le 3

# Once the overview is in: today's screens, view by view, and after keys.
for file in "$f" "$fx/col2_full.h5" "$fx/legacy_small.h5"; do
    for v in timeline regions tree info flame; do
        screen 100x30 "" "$file" --out-of-core --view $v
        cp "$scr" "$tmp/whole"
        SCOPEVIEW_TEST_OVERVIEW=hold screen 100x30 "<Ready>" "$file" --out-of-core --view $v
        check "${file##*/} $v: after <Ready> as the whole open's" cmp -s "$scr" "$tmp/whole"
    done
done
screen 100x30 "++jj" "$f" --out-of-core
cp "$scr" "$tmp/whole"
SCOPEVIEW_TEST_OVERVIEW=hold screen 100x30 "3<Ready>1++jj" "$f" --out-of-core
check "keys after <Ready>: as the whole open's" cmp -s "$scr" "$tmp/whole"

finish
