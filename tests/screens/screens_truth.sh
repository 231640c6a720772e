#!/bin/sh
# Headless screens that must not mislead: names that differ only at their
# ends stay apart (cut in the middle with a mark, never at the end), rank
# rows of the lanes view say what holds for the rank, and so on.  Each part
# runs at 80x24, 120x40 and 200x50, in colour, mono and ASCII, on generated
# fixtures (tests/gen/FIXTURES.md); the values are worked out there by hand.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"
pool="$fx/pool.h5"
need_fixture "$pool"
sizes="80x24 120x40 200x50"
modes="colour mono ascii"

# shot SIZE KEYS MODE: the screen of pool.h5.
shot() {
    if [ "$3" = colour ]; then
        screen "$1" "$2" "$pool"
    else
        screen "$1" "$2" "$pool" "$(mode_opt "$3")"
    fi
}

# A name cut at its end: "ThreadPoolExecutor" followed by a mark and nothing
# that tells the pool's threads apart.
cut_at_end() { grep -q -- 'ThreadPoolExecutor[-_0-9]*\(…\|~\)  ' "$scr"; }
# Each of the three pool threads is told apart by its tail.
tails_apart() {
    for t in 0_0 0_1 0_2; do
        grep -q -- "Thread.*$t" "$scr" || return 1
    done
}

# --- 1. names: the distinguishing tail is kept (lanes, calls, overlaps)
# The header's idlest lane is the idlest thread's (a task may idle longer): narrow headers
# keep saying so.
for size in 60x20 70x20; do
    shot "$size" 7 colour
    check "lanes $size: the idlest is called a thread's" hasnt "idlest: "
done
for size in $sizes; do
    for mode in $modes; do
        shot "$size" 7 "$mode"
        check "lanes $size $mode: the three pool threads apart" tails_apart
        check "lanes $size $mode: no name cut at its end" eval '! cut_at_end'
        check "lanes $size $mode: the header's idlest thread keeps its tail" \
            rowhas 2 "idlest.* r0 Thread.*0_0 5.900 ms"
        check "lanes $size $mode: no line wider than $size" [ "$(widest)" -le "${size%x*}" ]
        shot "$size" 3d "$mode"
        check "calls $size $mode: the thread names apart" tails_apart
        check "calls $size $mode: no name cut at its end" eval '! cut_at_end'
        shot "$size" 3So "$mode"
        check "overlaps $size $mode: the lanes apart" has "r0 Thread.*0_1 .*compress"
        check "overlaps $size $mode: no name cut at its end" eval '! cut_at_end'
    done
done

# --- 2. lanes view, rank rows: the busiest region summed over the lanes
# (compress 3 ms on each of three lanes, 9 ms, beats main's 4 ms on one),
# idle while every lane is idle (1.5 ms of the 8.9 ms span, not the 22.6 ms
# sum of the lanes' idle times).
for size in 120x40 200x50; do
    for mode in $modes; do
        shot "$size" 7 "$mode"
        check "rank row $size $mode: busiest is compress" has "r0: 4 lanes .* compress "
        check "rank row $size $mode: idle 1.500 ms" has "r0: 4 lanes  *13.00 ms  *37%  *-  *1.500 ms"
        check "rank row $size $mode: the legend says how" hasx "idle while every lane is idle|idle: all idle$"
    done
done
for mode in $modes; do
    shot 80x24 7 "$mode"
    check "rank row 80x24 $mode: idle 1.500 ms" has "r0: 4 lanes  *13.00 ms  *37%  *-  *1.500 ms"
    check "rank row 80x24 $mode: the legend in two lines, uncut" has "Rank rows: .*idle: all idle$"
    check "rank row 80x24 $mode: the first legend line uncut" has "Load: busy over time$"
done

# --- 12. S with nothing selected: the region with the most exclusive time
# (small.h5: inner 1000 ns, outer 600, io/write 0; the largest inclusive
# total, outer, is the root), and the status says which rule chose it.
small="$fx/small.h5"
need_fixture "$small"
for size in $sizes; do
    for mode in $modes; do
        if [ "$mode" = colour ]; then screen "$size" S "$small"; else screen "$size" S "$small" "$(mode_opt "$mode")"; fi
        check "S $size $mode: the hot region and the rule" hasf "Most exclusive time: inner; slowest call:"
    done
done

# --- 8. one numbering of calls: the status line and the calls view name a
# call by its --events call_index and the file's call id, worked out here
# from the --events rows (inner's slowest call: index 1, id 5, 500 ns).
"$sv" --events inner --csv "$small" >"$tmp/ev" 2>/dev/null
set -- $(awk -F, 'NR > 1 && $5 + 0 > m { m = $5; i = $2; id = $13 } END { print i, id }' "$tmp/ev")
idx=$1 id=$2
check "events: inner's slowest is index 1, id 5 (FIXTURES.md)" [ "$idx $id" = "1 5" ]
for size in $sizes; do
    screen "$size" S "$small"
    check "S $size: the status names call $idx (id $id)" hasf "rank 0, call $idx (id $id), 500 ns"
    screen "$size" "3/^inner\$<Enter>4" "$small"
    check "calls $size: the details name call $idx (id $id)" hasf "call $idx (id $id) on rank 0, of 3 recorded"
done

# --- 13. / inside the ? help, as in less: the first line at or below the
# top that holds the pattern goes to the top, n and N move between matches,
# the header counts them, and a pattern that is nowhere says so.
# help_body N: row N of the help's text (row 3 is its first line).
for size in $sizes; do
    for mode in $modes; do
        opt=$(mode_opt "$mode")
        screen "$size" "?/zoom<Enter>" "$pool" $opt
        check "help / $size $mode: the match heads the text" sh -c "sed -n 3p '$scr' | grep -qi zoom"
        check "help / $size $mode: the header counts it" rowhas 2 "/zoom/: match 1 of [0-9]"
        first=$(sed -n 3p "$scr")
        screen "$size" "?/zoom<Enter>n" "$pool" $opt
        check "help n $size $mode: the next match" rowhas 2 "/zoom/: match 2 of"
        check "help n $size $mode: another zoom line on top" sh -c "sed -n 3p '$scr' | grep -qi zoom"
        check "help n $size $mode: a different line" [ "$(sed -n 3p "$scr")" != "$first" ]
        screen "$size" "?/zoom<Enter>nN" "$pool" $opt
        check "help N $size $mode: back to the first" [ "$(sed -n 3p "$scr")" = "$first" ]
        screen "$size" "?/no such words<Enter>" "$pool" $opt
        check "help / $size $mode: not found" rowhas "${size#*x}" "Pattern not found in the help: /no such words/"
    done
done
screen 80x24 "?/zoom<Enter>" "$pool" --ascii
check "help / ascii: only ASCII" ascii_only
screen 80x24 "?/zoom<Enter>q" "$pool"
check "help q: closes it after a search" rowhas 1 "\[1 timeline\]"

# --- 9. navigation stays inside the profile: pool.h5 spans 0.1 .. 9.0 ms,
# 8.9 ms; zooming out past the fit and End show no time after its end
# (the header reads 8.90 / 8.900 ms, as the lanes view's 8.900 ms), and End
# puts the cursor in the view's last column, the one holding the end.
# view_end: the header's right time in ms ("0.00 ms .. 8.90 ms  (...)").
view_end() { sed -n 2p "$scr" | sed -n 's/^ *[0-9.]* [mu]*s \.\. \([0-9.]*\) ms .*/\1/p'; }
cursor_ms() { sed -n 3p "$scr" | sed -n 's/^ *@\([0-9.]*\) ms.*/\1/p'; }
per_col_us() { sed -n 2p "$scr" | sed -n 's/.*(\([0-9.]*\) us\/col).*/\1/p'; }
for size in $sizes; do
    for mode in $modes; do
        opt=$(mode_opt "$mode")
        screen "$size" "---" "$pool" $opt
        check "zoom out $size $mode: the view ends at 8.9 ms" awk -v e="$(view_end)" 'BEGIN { exit !(e == 8.9) }'
        check "zoom out $size $mode: says it goes no further" has "Zoomed out as far as it goes"
        screen "$size" "+G" "$pool" $opt
        check "End $size $mode: the view ends at 8.9 ms" awk -v e="$(view_end)" 'BEGIN { exit !(e == 8.9) }'
        check "End $size $mode: the cursor in the last column" \
            awk -v c="$(cursor_ms)" -v w="$(per_col_us)" 'BEGIN { exit !(c < 8.9 && c + w / 1000 >= 8.89) }'
        screen "$size" 7 "$pool" $opt
        check "lanes $size $mode: the same span" hasx "4 lanes(,| over) 8\.900 ms"
    done
done

# --- 10. layout at width: a name column no wider than its longest name
# when every column fits (the numbers stay next to their names), inferred
# lanes named without a cut in the middle, and the lanes view sorted by
# the first column that has values when no lane awaited anything.
legacy="$fx/legacy_small.h5"
need_fixture "$legacy"
for mode in $modes; do
    opt=$(mode_opt "$mode")
    screen 200x50 3 "$pool" $opt
    # "compress" is the longest name (8) in a column of at least 14: the
    # calls (6) end within 14 + 1 + 8 columns of the margin.
    check "regions 200x50 $mode: Calls next to the names" hasx "^.compress {1,14}6  "
    for size in 100x30 $sizes; do
        screen "$size" 1 "$legacy" $opt
        check "timeline $size $mode: inferred lanes uncut" hasnt "i…rred\|i~rred"
        check "timeline $size $mode: lane 2 named" has "r0 lane 2"
        screen "$size" 7 "$pool" $opt
        check "lanes $size $mode: no awaits, sorted by Busy" hasx "(▼|v)Busy"
    done
done

# --- 7. words that agree with the screen: the help's legend explains the
# cursor marks the timeline draws (the same glyphs, found on the screen),
# the man page counts the views views.def lists and says what the density
# glyphs show as the help does (make man-keys writes both from the code).
for mode in $modes; do
    opt=$(mode_opt "$mode")
    for size in $sizes; do
        screen "$size" "?/cursor column starts<Enter>" "$pool" $opt
        check "legend $size $mode: the cursor's time" has "^ @4.18 ms  *left of the ruler"
        check "legend $size $mode: the ruler's cursor" has "on the ruler: the cursor column"
        check "legend $size $mode: the cursor column" has "down the lanes: the cursor column"
        check "legend $size $mode: the selected call's edges" has "the first and last columns"
    done
    # the glyphs the legend shows are the ones the timeline draws
    screen 80x24 "?/cursor column starts<Enter>" "$pool" $opt
    cur=$(grep "down the lanes: the cursor column" "$scr" | sed 's/^ \(.\).*/\1/')
    edge=$(grep "the first and last columns" "$scr" | sed 's/^ \(.\).*/\1/')
    screen 80x24 "<Enter>l" "$pool" $opt
    check "timeline $mode: draws the legend's cursor column ($cur)" hasf "$cur"
    check "timeline $mode: draws the legend's selection edge ($edge)" hasf "$edge"
done
man="$top_src/doc/scopeview.1"
nviews=$(grep -c '^VIEW(' "$top_src/src/ui/views.def")
words="one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
nword=$(echo "$words" | cut -d' ' -f"$nviews")
check "man: views.def has views" [ "$nviews" -ge 7 ]
check "man: says $nword views, as views.def" hasf "The interface has $nword views" "$man"
check "man: no five views" hasnt "five views" "$man"
check "man: density glyphs by load, as the help" hasf "Several calls in a cell, by load" "$man"
check "man: no call counts for them" hasnt "for 2.*3, 4.*9 and 10 or more calls" "$man"
check "man: the cursor marks" hasf "On the ruler: the cursor column." "$man"

# --- 11. shown where a user looks (tasks_unfinished.h5, FIXTURES.md): a
# task that never finished (done_ns -1) and the region's tags in the
# timeline's details and the info view, the region's first and last
# calls' durations (a warm-up) in the calls view's title.
tu="$fx/tasks_unfinished.h5"
need_fixture "$tu"
for mode in $modes; do
    opt=$(mode_opt "$mode")
    for size in $sizes; do
        screen "$size" "S4j<Enter>" "$tu" $opt
        check "details $size $mode: Task-2 unfinished" has "task Task-2 (unfinished)"
        check "details $size $mode: the region's tags" has "tags net,hot"
        screen "$size" "3<Enter>4" "$tu" $opt
        # (at 80 columns the title's end is cut, with its mark)
        check "calls $size $mode: the first call (warm-up)" has "slowest first; first 400 ns, last"
        [ "$size" = 80x24 ] ||
            check "calls $size $mode: and the last" has "slowest first; first 400 ns, last 150 ns$"
        screen "$size" "S" "$tu" $opt
        check "details $size $mode: Task-1 finished" hasnt "Task-1 (unfinished)"
        screen "$size" "5" "$tu" $opt
        check "info $size $mode: the tasks' done column" has "Task-2  *0 (MainThread)  .* unfinished  "
        check "info $size $mode: Task-1 done at 420 ns (520 - 100)" has "Task-1  *0 (MainThread)  .* 420 ns  "
        screen "$size" "5G" "$tu" $opt
        check "info $size $mode: the tags" has "serve  *0  *net, hot"
    done
done

finish
