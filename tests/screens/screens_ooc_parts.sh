#!/bin/sh
# The out-of-core overview in parts (src/ooc/ooc_part.c, src/ooc/ooc_open_job.c,
# src/view/timeline/tl_partial.c): the loading child sends the overview of the ranks swept so
# far after each rank (and of the rank being swept up to where it is, every 65536 calls), and
# the viewer's timeline draws them, everything not swept yet marked "?" (never blank, which
# would say it has no calls).  SCOPEVIEW_TEST_OVERVIEW=parts makes
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
check "part 1: one rank of four read" hasf "(1 of 4 ranks whole"
check "part 1: rank 0's lanes drawn" hasx "^ r0 lane 1 +[^ ?]"
check "part 1: nothing of rank 1 drawn" hasnt "^ r1 "
for k in 1 2 3; do
    check "part 1: rank $k marked not read" hasx "^ rank $k +\\?\\? (not read yet|being read|read, drawn next) \\?+$"
done
cp "$scr" "$tmp/part1"

parts 120x40 "<Ready>" "$f" --out-of-core
check "part 2: two ranks of four read" hasf "(2 of 4 ranks whole"
check "part 2: rank 0's rows as in part 1" \
    test "$(grep -A6 '^ r0 lane 1' "$tmp/part1")" = "$(grep -A6 '^ r0 lane 1' "$scr")"
check "part 2: rank 1's lanes drawn" hasx "^ r1 lane 1 +[^ ?]"
check "part 2: rank 1 no longer marked" hasnt "^ rank 1 "
check "part 2: ranks 2 and 3 marked not read" \
    test "$(grep -cE '^ rank [23] +\?\? (not read yet|being read|read, drawn next) \?+$' "$scr")" = 2
check "part 2: no blank row among the unread" hasnt "^ rank [23] *$"

parts 120x40 "<Ready><Ready>" "$f" --out-of-core
check "part 3: three ranks of four read" hasf "(3 of 4 ranks whole"

# The whole overview after the last part: today's screens.  The <Ready> after the one that
# brings the overview waits for the timeline's window of calls, as the screen without parts does.
for v in timeline regions lanes series; do
    screen 120x40 "" "$f" --out-of-core --view $v
    cp "$scr" "$tmp/whole"
    SCOPEVIEW_TEST_OVERVIEW=parts screen 120x40 "<Ready><Ready><Ready><Ready>" "$f" --out-of-core --view $v
    check "$v after the parts: as without them" cmp -s "$scr" "$tmp/whole"
done
screen 120x40 "++jj" "$f" --out-of-core
cp "$scr" "$tmp/whole"
SCOPEVIEW_TEST_OVERVIEW=parts screen 120x40 "<Ready><Ready><Ready><Ready>++jj" "$f" --out-of-core
check "keys after the parts: as without them" cmp -s "$scr" "$tmp/whole"

# One rank in slices of time: a part every 65536 calls swept, complete up to the start of the
# call being swept, the rest of the rank's rows marked (six parts, the overview, its window).
b="$tmp/b.h5"
"$top_build/svgen" bench-schema3 "$b" --calls 400000 >/dev/null || exit 99
unread() { sed -n "${1}p" "$scr" | tr -cd '?' | wc -c; } # '?' marks of screen row N
parts 110x16 "" "$b" --out-of-core
check "slice 1: rank 0 up to the frontier" hasx "drawn so far: [0-9]+% of the calls \(0 of 1 ranks whole, rank 0 up to [0-9.]+ [mu]?s\)"
check "slice 1: 65536 of the 400000 calls in" hasf "drawn so far: $((65536 * 100 / 400000))% of the calls"
check "slice 1: the main call drawn up to the frontier" rowhas 5 "^ r0  *main  *?*$"
check "slice 1: its rows drawn, then marked" hasx "^ {14}[^ ?]+\?+$"
u1=$(unread 6)
parts 110x16 "<Ready>" "$b" --out-of-core
check "slice 2: 131072 of the calls in" hasf "drawn so far: $((131072 * 100 / 400000))% of the calls"
u2=$(unread 6)
check "slice 2: fewer columns marked than in slice 1 ($u2 < $u1)" test "$u2" -lt "$u1"
check "slice 2: still marked to the end" hasx "^ {14}[^ ?]+\?+$"
screen 110x16 "" "$b" --out-of-core
cp "$scr" "$tmp/whole"
parts 110x16 "<Ready><Ready><Ready><Ready><Ready><Ready><Ready><Ready>" "$b" --out-of-core
check "one rank, after its slices: as without them" cmp -s "$scr" "$tmp/whole"

# The first frame with bars (SCOPEVIEW_TEST_OVERVIEW=first: the first part that draws some).  The
# loading child reads each rank once, pass 1's checks and statistics on the chunks the sweep
# takes (ooc_h5.c), so the parts come from the first read of the calls, and the progress line
# says how far the pass is.  What a part draws is final: every lane row up to its first '?' as
# the last part draws it.
prefix_same() { # FRAME LATER
    awk 'NR == FNR { a[FNR] = $0; next }
        FNR >= 5 && FNR <= 8 { i = index(a[FNR], "?")
            if (i < 2 || substr($0, 1, i - 1) != substr(a[FNR], 1, i - 1)) bad = 1 }
        END { exit bad }' "$1" "$2"
}
SCOPEVIEW_TEST_OVERVIEW=first SCOPEVIEW_TEST_STATS=hold screen 110x16 "" "$b" --out-of-core
check "first bars: the rank filling in" rowhas 2 "filling in"
check "first bars: the progress line says how far" \
    rowhas 3 "mapping the calls: [0-9]*% of 4.0e5 read, rank 0 (1 of 1)"
check "first bars: drawn, then marked" hasx "^ {14}[^ ?]+\?+$"
cp "$scr" "$tmp/first"
parts 110x16 "<Ready><Ready><Ready><Ready><Ready>" "$b" --out-of-core
check "first bars: as the last part draws them" prefix_same "$tmp/first" "$scr"

# A rank whose one row out of start order shows only at its end (svgen --late-unsorted): the
# parts drew it up to frontiers that then did not hold every call before them, so the child
# takes them back (ooc_parts_withdraw) and the rank shows as not drawn (read, or being read
# again), never as drawn with a call missing; the last screen is the one without parts.
u="$tmp/late.h5"
"$top_build/svgen" stream-mix "$u" --calls 400000 --late-unsorted >/dev/null || exit 99
screen 110x16 "" "$u" --out-of-core
cp "$scr" "$tmp/whole"
keys="" bars=0 back=0 steps=0
while [ "$steps" -lt 20 ]; do
    parts 110x16 "$keys" "$u" --out-of-core
    grep -q "drawn so far" "$scr" || break
    if grep -qE '^ {14}[^ ?]+\?+$' "$scr"; then
        bars=$((bars + 1))
    elif [ "$bars" -gt 0 ] && grep -qE '^ rank 0 +\?\? (read, drawn next|being read) \?+$' "$scr" &&
        grep -qF "drawn so far: 0% of the calls (0 of 1 ranks whole)" "$scr"; then
        back=$((back + 1))
    fi
    keys="$keys<Ready>" steps=$((steps + 1))
done
check "late row out of order: parts with bars first ($bars)" test "$bars" -gt 0
check "late row out of order: then taken back ($back)" test "$back" -gt 0
check "late row out of order: the last screen as without parts" cmp -s "$scr" "$tmp/whole"

# One rank under 65536 calls: no part (the whole overview follows the only rank).
g="$tmp/one.h5"
"$top_build/svgen" stream-mix "$g" --calls 20000 --ranks 1 >/dev/null || exit 99
screen 100x20 "" "$g" --out-of-core
cp "$scr" "$tmp/whole"
SCOPEVIEW_TEST_OVERVIEW=parts screen 100x20 "" "$g" --out-of-core
check "one rank: the whole overview at once" cmp -s "$scr" "$tmp/whole"
finish
