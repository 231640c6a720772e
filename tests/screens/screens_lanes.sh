#!/bin/sh
# Headless screens of the lanes view (7): one row per lane grouped by rank, busy, awaited,
# idle, sort, Enter to the timeline, 80x24 and 200x60.  Expected values are computed here
# from the raw per-call columns (--events ... --csv: start, duration, await, task) with awk,
# not taken from the view: a task lane's busy time is the union of its calls, which for the
# shared profiles is its one root call (handle_request, main), and its awaited time is that
# call's await.  Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"
scr="$tmp/s"
shared="$shared_root/data"

# ms NS-IN-SECONDS: the viewer's 4 significant digits for 10 ms .. 1 s ("106.5 ms", "18.36 ms")
ms() { awk -v x="$1" 'BEGIN { v = x * 1000; printf(v >= 100 ? "%.1f ms" : "%.2f ms", v) }'; }
sec() { awk -v x="$1" 'BEGIN { printf("%.3f s", x) }'; }

if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "screens_lanes.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi

# --- small.h5: two thread lanes on rank 0 (tests/gen/FIXTURES.md)
screen 80x24 "7" "$fx/small.h5"
check "small: exits 0" [ "$rc" = 0 ]
check "small: the lanes view is 7" rowhas 1 "\[7 lanes\]"
check "small: a rank total row" has "r0: 2 lanes"
check "small: a MainThread row" has "  MainThread"
check "small: a Worker-1 row" has "  Worker-1"
check "small: column titles" rowhas 3 "Lane.*Busy.*Share.*Awaited"
check "small: 24 lines" [ "$(lines)" = 24 ]

a="$shared/extended/async_server.h5"
d="$top_src/data/demo.h5"
if [ -f "$a" ]; then
    # The task whose root call awaited longest, from the raw columns.
    "$sv" --events handle_request --csv "$a" >"$tmp/ev" 2>/dev/null
    set -- $(awk -F, 'NR > 1 && $7 + 0 > m { m = $7; d = $5; t = $12 } END { split(t, w, " "); print w[1], m, d }' "$tmp/ev")
    task=$1 aw=$(ms "$2") busy=$(ms "$3")
    screen 200x60 "7" "$a"
    check "async: one key answers which task waits most ($task, $aw)" rowhas 2 "waits most: r0 task $task handle_request $aw"
    check "async: sorted by Awaited, the first lane is $task" rowhas 5 "task $task "
    check "async: its busy time is its root call ($busy)" rowhas 5 "$busy"
    check "async: and its awaited time ($aw)" rowhas 5 "$busy .*$aw"
    check "async: threads show no awaited time" has "MainThread .* -  "
    check "async: 60 lines" [ "$(lines)" = 60 ]
    check "async: no line wider than 200" [ "$(widest)" -le 200 ]
    # Sorting: < moves to Share (from Awaited), I inverts: the least awaited lane first.
    screen 200x60 "7I" "$a"
    check "I: inverted (ascending) sort" rowhas 3 "▲Awaited"
    check "I: the total row stays on top" rowhas 4 "r0: "
    screen 200x60 "7<" "$a"
    check "<: sort by the column to the left" rowhas 3 "▼Share"
    # Enter: the lane in the timeline, its longest top-level call selected.
    screen 80x24 "7j<Enter>" "$a"
    check "Enter: opens the timeline" rowhas 1 "\[1 timeline\]"
    check "Enter: the lane's call is selected" has "handle_request  rank 0  thread MainThread  task $task"
    screen 80x24 "7" "$a" --ascii
    check "async ascii: only ASCII" ascii_only
    check "async ascii: the header still answers" rowhas 2 "waits: r0 $task"
fi

if [ -f "$d" ]; then
    "$sv" --events main --csv "$d" >"$tmp/ev" 2>/dev/null
    set -- $(awk -F, 'NR > 1 && $7 + 0 > m { m = $7; d = $5; r = $1; t = $12 } END { print r, t, m, d }' "$tmp/ev")
    rk=$1 task=$2 aw=$(ms "$3") busy=$(sec "$4")
    screen 120x40 "7" "$d"
    check "demo: waits most is r$rk $task ($aw)" rowhas 2 "waits most: r$rk task $task $aw"
    check "demo: rank 0's group" has "r0: [0-9]* lanes"
    check "demo: rank 1's group" has "r1: [0-9]* lanes"
    check "demo: r$rk's $task busy $busy" has "task $task  *$busy  *[0-9]*%  *$aw"
    screen 80x24 "7" "$d"
    check "demo 80x24: 24 lines" [ "$(lines)" = 24 ]
    check "demo 80x24: no line wider than 80" [ "$(widest)" -le 80 ]
    check "demo 80x24: the answer is on screen" rowhas 2 "waits: r$rk $task [0-9]"
fi

# --- tables that lose columns at 80 say so and scroll sideways (regions, lanes)
if [ -f "$d" ]; then
    screen 80x24 "3" "$d"
    check "regions 80x24: the header counts the hidden columns" rowhas 3 "▸ *[0-9][0-9]*\( more\)*"
    check "regions 80x24: Excl kept before Imbal" rowhas 3 "Excl  *Imbal$"
    screen 80x24 "3l" "$d"
    check "regions l: Calls scrolled out, Total first" rowhas 3 "^ Region .* more  *▼Total "
    screen 80x24 "3lh" "$d"
    check "regions lh: back" rowhas 3 "^ Region .* more  *Calls "
    screen 200x24 "3" "$d"
    check "regions 200x24: every column, no marker" hasnt "▸"
    screen 80x24 "7" "$d"
    check "lanes 80x24: the header counts the hidden columns" rowhas 3 "▸ *[0-9][0-9]*\( more\)*"
    screen 80x24 "7lll" "$d"
    check "lanes lll: Busiest scrolls into view" rowhas 3 "Busiest"
fi

# --- g / G: the first and last row (as less and vi), in every table
if [ -f "$d" ]; then
    screen 80x24 "3G" "$d"
    check "regions G: the cursor on the last row" sh -c "grep '^▶' '$tmp/s' | grep -q ."
    screen 80x24 "3Gg" "$d"
    check "regions Gg: back on the first row (main, the largest total)" has "^▶main "
    screen 80x24 "7G" "$d"
    check "lanes G: the last row is rank 1's last lane" sh -c "grep '^▶' '$tmp/s' | grep -qv ': [0-9]* lanes'"
    screen 80x24 "7Gg" "$d"
    check "lanes Gg: the first row is rank 0's total" has "^▶r0: 21 lanes"
    screen 80x24 "G" "$d"
    # The demo ends at 3.045 s; at 47.58 ms per column the cursor's column starts within a
    # column before it.
    check "timeline G: the cursor on the profile's last column" rowhas 3 "@\(2\.99[7-9]\|3\.0[0-4][0-9]\) s"
fi

# --- search says "match k of n": n from the oracle (num_calls of the regions matching, summed by
# awk from expected/solver.json), k by position: from the start the first, from the end the last.
if [ -f "$shared/real/solver.h5" ]; then
    n=$(awk '/"name":/ { nm = $0 } /"num_calls":/ { if (nm ~ /io\/check/) { gsub(/[^0-9]/, "", $0); s += $0 } }
             END { print s + 0 }' "$shared/expected/solver.json")
    screen 80x24 "g/io/check<Enter>" "$shared/real/solver.h5"
    check "timeline search from the start: match 1 of $n" has "Match 1 of $n: /io/check/"
    screen 80x24 "g/io/check<Enter>nn" "$shared/real/solver.h5"
    check "timeline n n: match 3 of $n" has "Match 3 of $n: /io/check/"
    screen 80x24 "G/io/check<Enter>N" "$shared/real/solver.h5"
    check "timeline from the end, N: match $((n - 1)) of $n" has "Match $((n - 1)) of $n: /io/check/"
fi
if [ -f "$d" ]; then
    m=$("$sv" --csv "$d" | awk -F, 'NR > 1 && $1 ~ /io/ { print $1 }' | sort -u | wc -l | tr -d ' ')
    screen 80x24 "3/io<Enter>n" "$d"
    check "regions search: match 2 of $m" has "Match 2 of $m: /io/"
fi

# --- f: the lanes of the matching regions' calls only (compress runs on the executor threads:
# two lanes per rank, counted from the raw calls)
if [ -f "$d" ]; then
    "$sv" --events compress --csv "$d" | awk -F, 'NR > 1 { print $1 "/" $9 }' | sort -u >"$tmp/cl"
    ncl=$(wc -l <"$tmp/cl" | tr -d ' ')
    screen 80x24 "7/compress<Enter>f" "$d"
    check "lanes f: $ncl lanes ran compress, and the filter is named" rowhas 2 "$ncl lanes (filter /compress/)"
    check "lanes f: no task lane" hasnt "task Task"
    screen 80x24 "7/nosuch<Enter>f" "$d"
    check "lanes f without a match says so" has "No call matches the filter"
fi

# tree: k of n over the call paths in preorder; small.h5 (FIXTURES.md): outer > inner, io/write,
# so /o/ matches outer and io/write: from outer, n finds io/write (2 of 2), then outer (1 of 2).
screen 80x24 "2/o<Enter>" "$fx/small.h5"
check "tree search: match 2 of 2" has "Match 2 of 2: /o/"
screen 80x24 "2/o<Enter>n" "$fx/small.h5"
check "tree search n: match 1 of 2" has "Match 1 of 2: /o/"

# --- Esc walks back through every jump, and the title says where it goes
if [ -f "$d" ]; then
    screen 80x24 "3<Enter><Enter>" "$d"
    check "jumps: regions, Enter (calls), Enter (timeline)" rowhas 1 "\[1 timeline\]"
    check "the title shows the way back" rowhas 1 "Esc: calls < regions"
    screen 80x24 "3<Enter><Enter><Esc>" "$d"
    check "Esc: back to the calls" rowhas 1 "\[4 calls\]"
    check "then the way back is the regions" rowhas 1 "Esc: regions"
    screen 80x24 "3<Enter><Enter><Esc><Esc>" "$d"
    check "Esc Esc: back to the regions" rowhas 1 "\[3 regions\]"
    check "nothing left to go back to" hasnt "Esc: "
    screen 80x24 "3<Enter><Enter><Esc><Enter><Esc><Esc><Esc>" "$d"
    check "calls -> timeline -> calls -> regions, a third Esc stays" rowhas 1 "\[3 regions\]"
    screen 80x24 "3<Enter><Enter>2" "$d"
    check "a switch by the user forgets the jumps" hasnt "Esc: "
    if need_shared "the title at 80 columns (solver_threads_small.h5)"; then
        screen 80x24 "3<Enter><Enter>" "$shared/real/solver_threads_small.h5"
        check "80 columns: views by key, the way back and the whole file name" \
            rowhas 1 "\[1 timeline\] 2 3 4 5 7 8 9 D B  Esc: calls < regions  solver_threads_small\.h5"
    fi
fi

finish
