#!/bin/sh
# The out-of-core overview in parts (src/ooc/ooc_part.c, src/ooc/ooc_open_job.c,
# src/view/timeline/tl_partial.c): the loading child sends the overview of the ranks swept so
# far after each rank, and the viewer's timeline draws them, every rank not swept yet marked
# "?" (never blank, which would say it has no calls).  SCOPEVIEW_TEST_OVERVIEW=parts makes
# the child send a part after every rank and the viewer show them one per <Ready>, then the
# whole overview: the successive screens are checked, and the last one equals the screen
# without parts, view by view and after keys.
. "${0%/*}/../lib.sh"
f="$tmp/m4.h5"
"$top_build/svgen" stream-mix "$f" --calls 40000 --ranks 4 >/dev/null || exit 99
parts() { SCOPEVIEW_TEST_OVERVIEW=parts SCOPEVIEW_TEST_STATS=hold screen "$@"; }

parts 120x40 "" "$f" --out-of-core
check "part 1: exit 0" test "$rc" = 0
check "part 1: the timeline fills in" rowhas 2 "overview (out of core): filling in"
check "part 1: one rank of four read" hasf "overview so far: 1 of 4 ranks read"
check "part 1: rank 0's lanes drawn" hasx "^ r0 lane 1 +[^ ?]"
check "part 1: nothing of rank 1 drawn" hasnt "^ r1 "
for k in 1 2 3; do
    check "part 1: rank $k marked not read" hasx "^ rank $k +\\?\\? (not read yet|being read) \\?+$"
done
cp "$scr" "$tmp/part1"

parts 120x40 "<Ready>" "$f" --out-of-core
check "part 2: two ranks of four read" hasf "overview so far: 2 of 4 ranks read"
check "part 2: rank 0's rows as in part 1" \
    test "$(grep -A6 '^ r0 lane 1' "$tmp/part1")" = "$(grep -A6 '^ r0 lane 1' "$scr")"
check "part 2: rank 1's lanes drawn" hasx "^ r1 lane 1 +[^ ?]"
check "part 2: rank 1 no longer marked" hasnt "^ rank 1 "
check "part 2: ranks 2 and 3 marked not read" \
    test "$(grep -cE '^ rank [23] +\?\? (not read yet|being read) \?+$' "$scr")" = 2
check "part 2: no blank row among the unread" hasnt "^ rank [23] *$"

parts 120x40 "<Ready><Ready>" "$f" --out-of-core
check "part 3: three ranks of four read" hasf "overview so far: 3 of 4 ranks read"

# The whole overview after the last part: today's screens.
for v in timeline regions lanes series; do
    screen 120x40 "" "$f" --out-of-core --view $v
    cp "$scr" "$tmp/whole"
    SCOPEVIEW_TEST_OVERVIEW=parts screen 120x40 "<Ready><Ready><Ready>" "$f" --out-of-core --view $v
    check "$v after the parts: as without them" cmp -s "$scr" "$tmp/whole"
done
screen 120x40 "++jj" "$f" --out-of-core
cp "$scr" "$tmp/whole"
SCOPEVIEW_TEST_OVERVIEW=parts screen 120x40 "<Ready><Ready><Ready>++jj" "$f" --out-of-core
check "keys after the parts: as without them" cmp -s "$scr" "$tmp/whole"

# One rank: no part (the whole overview follows the only rank), as before.
g="$tmp/one.h5"
"$top_build/svgen" stream-mix "$g" --calls 20000 --ranks 1 >/dev/null || exit 99
screen 100x20 "" "$g" --out-of-core
cp "$scr" "$tmp/whole"
SCOPEVIEW_TEST_OVERVIEW=parts screen 100x20 "" "$g" --out-of-core
check "one rank: the whole overview at once" cmp -s "$scr" "$tmp/whole"
finish
