#!/bin/sh
# Headless screens of the timeline (view 1): lanes, bars, ruler, await shading, selection
# details, zoom and pan, search, help, small and large sizes, ASCII and monochrome.
# Expected values are worked out by hand from tests/gen/FIXTURES.md (small.h5: data from
# 1000 to 3000 ns; at 80x24 the time axis has 64 columns, so the fit is 32 ns per column
# and the cursor starts at column 32, i.e. 2024 ns) and from the shared profiles.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"
scr="$tmp/s"
shared="$shared_root/data"


if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "screens_timeline.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi
small="$fx/small.h5"

# --- small.h5 at 80x24: lanes, ruler, bars, header
screen 80x24 "" "$small"
check "small: exits 0" [ "$rc" = 0 ]
check "small: 24 lines" [ "$(lines)" = 24 ]
check "small: timeline is view 1" rowhas 1 "1 timeline"
# The header shows one digit more than tells two columns apart (32 ns: 10 ns, so 0.001 us).
check "small: fit is 32 ns per column over 0 .. 2.048 us" rowhas 2 "0\.000 us \.\. 2\.048 us  (32 ns/col)"
check "small: two thread lanes" rowhas 2 "2 lanes"
check "small: the summary-only region is counted" rowhas 2 "1 region without event data"
# Ruler: step 500 ns (15.6 columns); the label at column 31 would cover the cursor (32).
check "small: ruler 0.0 us" rowhas 3 "┬0\.0 us"
check "small: ruler 0.5 us" rowhas 3 "┬0\.5 us"
check "small: ruler 1.5 us" rowhas 3 "┬1\.5 us"
check "small: ruler cursor marker" rowhas 3 "▼"
check "small: cursor time" rowhas 3 "@1\.024 us"
check "small: lane MainThread first" rowhas 4 "r0 MainThread"
check "small: outer bars in the first row" rowhas 4 "\[outer"
check "small: inner in depth row 1" rowhas 5 "inner"
check "small: lane Worker-1 after its depth rows" rowhas 6 "r0 Worker-1"
check "small: no selection yet" has "No call selected"
check "small: the hint is not cut" hasnt "No call selected.*…"
check "small: no control bytes" clean

# --- deep zoom on a real profile: the header's two ends and the cursor differ
if [ -f "$shared/real/solver.h5" ]; then
    screen 80x24 "++++++++++++++++" "$shared/real/solver.h5"
    hdr=$(row 2)
    a=$(echo "$hdr" | sed 's/^ *\([^ ]* [a-z]*\) \.\. .*/\1/')
    b=$(echo "$hdr" | sed 's/^.* \.\. \([^ ]* [a-z]*\)  (.*/\1/')
    check "deep zoom: the range's ends differ ($a .. $b)" [ -n "$a" ] && [ "$a" != "$b" ]
    check "deep zoom: 6 ns per column shows every ns digit" rowhas 2 "ms \.\. [0-9]*\.[0-9]\{6\} ms  (6 ns/col)"
    screen 80x24 "--------------------" "$shared/real/solver.h5"
    check "zoom out never shows time before zero" hasnt "@-"
    check "zoom out never shows time before zero (header)" rowhas 2 "^ 0\.0* [a-z]* \.\."
fi

# --- the filter (f): only matching calls, density included, and the header says so.
# The expected count is the sum of num_calls of the regions matching /io\/check/ in the
# oracle's expected/solver.json (summed here by awk, not by scopeview).
if [ -f "$shared/real/solver.h5" ]; then
    want=$(awk '/"name":/ { n = $0 } /"num_calls":/ { if (n ~ /io\/check/) { gsub(/[^0-9]/, "", $0); s += $0 } }
                END { print s + 0 }' "$shared/expected/solver.json")
    screen 80x24 "/io/check<Enter>f" "$shared/real/solver.h5"
    check "filter: header names the filter and counts $want calls" rowhas 2 "filter /io/check/: $want calls"
    check "filter: main (not matching) is not drawn" hasnt "\[main"
    check "filter: the axis stays the profile's (starts at 0)" rowhas 2 "^ 0\.00 ms"
    screen 80x24 "/io/check<Enter>ff" "$shared/real/solver.h5"
    check "filter off: every call again" has "\[main"
    check "filter off: no filter in the header" hasnt "filter /"
    screen 80x24 "/nosuchregion<Enter>f" "$shared/real/solver.h5"
    check "filter without match: says so" has "No call matches the filter"
fi

# --- selection and details
screen 80x24 "<Enter>" "$small"
check "Enter: selects outer[1] under the cursor (2024 ns)" has "outer  rank 0  thread MainThread  start 1\.000 us  dur 1\.000 us  excl 200 ns"
check "Enter: children and source" has "children 2  src app\.py:10"
check "Enter: held, no await column, no GPU" has "held 1\.000 us  awaited -  gpu -"
# The selected call outer[1] spans [2000, 3000) ns: columns (2000-1000)/32 = 31 and
# (2999-1000)/32 = 62 of the time axis (screen columns 16 + 31 = 47 and 78) are marked on
# the other lanes where they are empty (checked in ASCII, where cut counts columns).
check "band: marked on Worker-1 (UTF-8)" rowhas 6 "╎.*╎"
screen 80x24 "<Enter>" "$small" --ascii
check "band: the selection's first column marked on Worker-1" [ "$(row 6 | cut -c48)" = ":" ]
check "band: its last column too" [ "$(row 6 | cut -c79)" = ":" ]
check "band: nothing marked between (only the cursor)" [ "$(row 6 | cut -c49-78 | tr -d ' .')" = "" ]
screen 80x24 "/inner<Enter>" "$small"
check "search: first inner after the cursor is inner[1]" has "inner  rank 0  thread MainThread  start 1\.100 us  dur 500 ns"
check "search: status bar names the search" has "/inner/"
screen 80x24 "/inner<Enter>n" "$small"
check "n: inner[2] with its GPU time" has "start 1\.500 us  dur 400 ns  excl 400 ns"
check "n: gpu 70 ns" has "gpu 70 ns"
screen 80x24 "/inner<Enter>N" "$small"
check "N: inner[0] with metadata" has 'start 100 ns  dur 100 ns'
check "N: its metadata" has 'meta {"i": 1}'
check "N: gpu 50 ns" has "gpu 50 ns"
screen 80x24 "/inner<Enter>NN" "$small"
check "N past the first wraps around (inner: 3 calls, the last)" has "Match 3 of 3: /inner/ (wrapped around)"
check "N wrapped to inner[2]" has "start 1\.500 us"
screen 80x24 "/write<Enter>" "$small"
check "zero-length io/write on Worker-1" has "io/write  rank 0  thread Worker-1  start 300 ns  dur 0 ns"
check "io/write: awaited 0 ns" has "awaited 0 ns"
screen 80x24 "/nomatch<Enter>" "$small"
check "search without a match says so" has "No call matches /nomatch/"
screen 80x24 "j]" "$small"
check "]: first call of the row after the cursor: inner[1]" has "start 1\.100 us  dur 500 ns"
screen 80x24 "j]]" "$small"
check "]]: inner[2]" has "start 1\.500 us  dur 400 ns"
screen 80x24 "j]]]" "$small"
check "]]]: end of the row" has "No later call in this row"
screen 80x24 "j]][" "$small"
check "]][: back to inner[1]" has "start 1\.100 us  dur 500 ns"
screen 80x24 "z" "$small"
check "z without a selection" has "No call selected: Enter selects"

# --- zoom and pan (cursor at column 32)
screen 80x24 "+" "$small"
# the cursor column's start 1000 + 32*32 = 2024 stays; npc 16; t0 = 2024 - 32*16 = 1512
check "+: 16 ns per column around the cursor" rowhas 2 "0\.512 us \.\. 1\.536 us  (16 ns/col)"
check "+: the cursor keeps its time" rowhas 3 "@1\.024 us"
screen 80x24 "=" "$small"
check "=: zooms in too" rowhas 2 "(16 ns/col)"
screen 80x24 "+-" "$small"
check "+-: back to the fit" rowhas 2 "0\.000 us \.\. 2\.048 us  (32 ns/col)"
screen 80x24 "-" "$small"
# The widest view is the fit: the data (2000 ns) over 64 columns, ceil(2000/64) = 32 ns, so
# a zoom out from it shows no time the profile does not have.
check "-: the fit stays, no time past the end" rowhas 2 "0\.000 us \.\. 2\.048 us  (32 ns/col)"
check "-: and says so" has "Zoomed out as far as it goes"
screen 80x24 "++++0" "$small"
check "0: fits again" rowhas 2 "0\.000 us \.\. 2\.048 us  (32 ns/col)"
screen 80x24 "++++++++++++" "$small"
check "zoom in stops at 1 ns per column" rowhas 2 "(1 ns/col)"
check "and says so" has "Zoomed in as far as it goes"
screen 80x24 "------" "$small"
check "zoom out stops at the fit" rowhas 2 "(32 ns/col)"
check "and says so" has "Zoomed out as far as it goes"
screen 80x24 "+l" "$small"
# pan 64/8 = 8 columns of 16 ns: t0 = 1512 + 128 = 1640
check "l pans right by an eighth" rowhas 2 "0\.640 us \.\. 1\.664 us"
screen 80x24 "+h" "$small"
check "h pans left" rowhas 2 "0\.384 us \.\. 1\.408 us"
screen 80x24 "+<Right><Left>" "$small"
check "arrows pan" rowhas 2 "0\.512 us \.\. 1\.536 us"
screen 80x24 "++<Home>" "$small"
check "Home shows the start" rowhas 2 "^ 0 ns \.\. "
screen 80x24 "<Enter>z" "$small"
# outer[1] is 1000 ns: room for 1333 over 64 columns -> 21 ns per column
check "z zooms to the selected call" rowhas 2 "(21 ns/col)"
check "z keeps the selection" has "outer  rank 0"

# --- the mouse (headless: the pointer is at the middle of the view area, column 40, row
# 12; the time axis starts at column 16, so the pointer is over time column 24)
screen 80x24 "<WheelUp>" "$small"
# tc = 1000 + 24*32 = 1768; npc 16; t0 = 1768 - 24*16 = 1384
check "wheel up zooms in at the pointer" rowhas 2 "0\.384 us \.\. 1\.408 us  (16 ns/col)"
screen 80x24 "<WheelDown>" "$small"
# npc 32 (the widest, the fit): t0 stays at the data's start
check "wheel down zooms out no further than the fit" rowhas 2 "^ 0\.000 us \.\. 2\.048 us  (32 ns/col)"
screen 80x24 "<Click>" "$small"
check "a click below the lanes moves the cursor column" rowhas 3 "@768 ns"

# --- legacy_small.h5: no thread ids; c[0] overlaps b[0] partly, so the rank has two inferred
# lanes (FIXTURES.md): lane 1 holds a and b in three depth rows, lane 2 holds c[0] and c[1]
screen 80x24 "" "$fx/legacy_small.h5"
check "legacy: two lanes" rowhas 2 "2 lanes$"
check "legacy: lane r0 lane 1" rowhas 4 "r0 lane 1"
check "legacy: no event-data note" hasnt "without event data"
check "legacy: depth row 2 has b2" row 6 | grep -q "│"
check "legacy: lane 2 after lane 1's three rows" rowhas 7 "r0 lane 2"
check "legacy: c[1] on lane 2" rowhas 7 "\[c  *\]"
screen 120x24 "" "$fx/legacy_small.h5"
check "legacy 120: lanes marked inferred" rowhas 4 "r0 lane 1 (inferred)"
check "legacy 120: second lane marked inferred" rowhas 7 "r0 lane 2 (inferred)"

# --- legacy_threads2.h5 (FIXTURES.md): two threads, no thread ids: task[60,160] overlaps
# step[50,90] partly, so it and its step go to inferred lane 2; no bar is drawn over another
screen 120x12 "" "$fx/legacy_threads2.h5"
check "threads2: two lanes" rowhas 2 "2 lanes$"
check "threads2: lane 1, two tasks" rowhas 4 "r0 lane 1 (inferred) .*\[task  *\]  *.*\[task  *\]"
check "threads2: lane 1's steps under them" rowhas 5 "\[step  *\]  *\[step  *\]  *.*\[step  *\]"
check "threads2: lane 2, the overlapping task" rowhas 6 "r0 lane 2 (inferred) .*\[task  *\]"
check "threads2: lane 2's step" rowhas 7 "\[step  *\]"
screen 80x10 "2E" "$fx/legacy_threads2.h5"
check "threads2 tree: task 3 calls, 300 ns, exclusive 30 + 20 + 20" has "^▶ *3  *300 ns  *70 ns .*▾ task$"
check "threads2 tree: step 4 calls, 230 ns, exclusive 230" has "^ *4  *230 ns  *230 ns .*└── step$"

# --- hostile strings never reach the screen raw
screen 80x24 "<Enter>" "$fx/fault_hostile_strings.h5"
check "hostile: exits 0" [ "$rc" = 0 ]
check "hostile: no control bytes" clean

# --- help lists the timeline keys and legend
screen 100x60 "?" "$small"
check "help: zoom to selected" has "zoom to the selected call"
screen 100x60 "?<End>" "$small"
check "help: await legend" has "hatched share (and N% after the name)"
check "help: where the await position comes from, and when it is unknown" has "account for it (executor work"
check "help: density legend is load" has "busy under a third"
check "help: filter legend" has "holds only the matching calls"
check "help: folded lane legend" has "+N deeper"

# --- sizes
screen 40x10 "" "$small"
check "40x10: draws lanes" has "r0 Ma…ad"
check "40x10: 10 lines" [ "$(lines)" = 10 ]
screen 30x8 "" "$small"
check "30x8: too small is said" grep -qi "small" "$tmp/s"

# --- ASCII and monochrome
screen 80x24 "/inner<Enter>" "$small" --ascii
check "ascii: only ASCII bytes" ascii_only
check "ascii: ruler ticks" rowhas 3 "+0\.0 us"
check "ascii: selection details" has "inner  rank 0"
screen 80x24 "" "$small" --mono
check "mono: same bars" rowhas 4 "\[outer"

# --- shared profiles
if [ -f "$shared/extended/async_server.h5" ]; then
    a="$shared/extended/async_server.h5"
    screen 80x24 "" "$a"
    check "async: 44 lanes" rowhas 2 "44 lanes"
    check "async: MainThread lane" has "r0 MainThread"
    check "async: executor thread lanes (cut in the middle)" has "r0 Thread…-0_0"
    # 44 lanes do not fit 80x24: each lane shows one row and the tasks are grouped under the
    # thread that ran them (MainThread ran every task: count them from the raw calls), the
    # group opened as far as its tasks fit.
    for r in $("$sv" --csv "$a" | awk -F, 'NR > 1 && $4 == "true" { print $1 }' | sort -u); do
        "$sv" --events "$r" --csv "$a" | awk -F, 'NR > 1 && $12 != "" { print $12 }'
    done | sort -u >"$tmp/tasks"
    ntasks=$(wc -l <"$tmp/tasks" | tr -d ' ')
    check "async: the $ntasks tasks grouped under MainThread" rowhas 5 "▾ [0-9]* of $ntasks\( tasks\)* *│"
    check "async: the threads on one screen" has "r0 Thread…-0_1"
    screen 80x24 "j<Enter>" "$a"
    check "async: Enter on the group shows its tasks" has "^   Task-2 h"
    check "async: the group's row says it is open" rowhas 5 "▾ $ntasks tasks"
    screen 80x24 "j<Enter>jc" "$a"
    check "async: c on a task folds its group again" rowhas 5 "▸ $ntasks tasks"
    screen 80x24 "T" "$a"
    check "async T: one row per task" has "^ r0 Task-2 "
    check "async: await shading" has "░"
    screen 80x24 "T>" "$a"
    check "async >: the lanes by busy time, the busiest (Task-20) first" rowhas 4 "r0 Task-20"
    screen 80x24 "H" "$a"
    check "async H: idle lanes hidden, and said so" rowhas 2 "idle ones hidden"
    screen 80x24 "/db_query<Enter>" "$a"
    check "async: details name the task" has "task Task-"
    check "async: held and awaited" grep -q "held [0-9.]* [num]*s  awaited [0-9.]* [num]*s" "$tmp/s"
    check "async: source and metadata" has 'src /srv/app/db.py:88  .*meta {"table"'
    screen 80x24 "/db_query<Enter>z" "$a" --ascii
    check "async ascii: await hatch with the share (1.793 of 1.812 ms)" has "db_query 99% awaited///"
    check "async ascii: only ASCII" ascii_only
    # o: the calls on other lanes overlapping the selected db_query (Task-30's). Counted here
    # from every region's raw calls (--events, awk): start < end of the selection, end (a
    # zero-length call: start + 1 ns) > its start, and not on Task-30's lane.
    for r in $("$sv" --csv "$a" | awk -F, 'NR > 1 && $4 == "true" { print $1 }' | sort -u); do
        "$sv" --events "$r" --csv "$a" | awk -F, 'NR > 1'
    done >"$tmp/ev"
    set -- $(awk -F, '$12 == "Task-30 handle_request" && $5 > 0.0018 && $5 < 0.0019 { print $3, $4 }' "$tmp/ev")
    want=$(awk -F, -v t0="$1" -v t1="$2" '{ s = $3 + 0; e = $4 + 0; if (e <= s) e = s + 1e-9
        if (s < t1 && e > t0 && $12 != "Task-30 handle_request") n++ } END { print n + 0 }' "$tmp/ev")
    screen 80x24 "/db_query<Enter>o" "$a"
    check "o: $want calls on other lanes overlap the selection" rowhas 4 "^ $want calls on other lanes overlap the selection"
    check "o: an executor thread's compress among them" has "ThreadPoolExecutor.*compress"
    screen 80x24 "/db_query<Enter>o<Down><Enter>" "$a"
    check "o Down Enter: selects the second (Task-2's handle_request)" has "handle_request  rank 0  thread MainThread  task Task-2 "
    check "o Enter: the list closes" hasnt "overlap the selection"
    screen 80x24 "/db_query<Enter>o<Esc>" "$a"
    check "o Esc: closes, the timeline stays" hasnt "overlap the selection"
    check "o Esc: the selection stays" has "db_query  rank 0  thread MainThread  task Task-30"
    screen 80x24 "o" "$a"
    check "o without a selection says so" has "No call selected on the timeline"
    screen 200x60 "" "$a"
    check "async 200x60: 60 lines" [ "$(lines)" = 60 ]
    check "async 200x60: no line wider than 200" [ "$(widest)" -le 200 ]
    check "async 200x60: full thread names" has "r0 ThreadPoolExecutor-0_0"

    screen 80x24 "" "$shared/extended/gpu_train.h5"
    check "gpu: one region without event data" rowhas 2 "1 region without event data"
    # the name does not fit beside the range at 80 columns: the count alone, never cut
    check "gpu: the note is not cut" sh -c "sed -n 2p '$tmp/s' | grep -q 'without event data\$'"
    check "gpu: no selection, the hint wraps onto a second line" has "^ \[ \] step through a row"
    screen 80x24 "/forward<Enter>" "$shared/extended/gpu_train.h5"
    check "gpu: forward has GPU time" grep -q "gpu [0-9.]* [num]*s" "$tmp/s"

    screen 80x24 "" "$shared/real/solver_mpi4.h5"
    check "mpi4: 4 lanes" rowhas 2 "4 lanes"
    for r in 0 1 2 3; do
        check "mpi4: rank $r lane" grep -q "^.r$r  *│" "$tmp/s"
    done
    screen 200x60 "" "$shared/real/solver_mpi4.h5"
    check "mpi4 200x60: main bars" has "\[main"
    check "mpi4 200x60: no line wider than 200" [ "$(widest)" -le 200 ]

    screen 80x24 "<Click>" "$shared/real/solver_mpi4.h5"
    # rows from screen row 3: r0 r1 (4 rows each), then r2 depth 0, 1: row 12 is r2 depth 1
    check "click selects the call under the pointer" has "timestep  rank 2"
    screen 80x24 "jjjc" "$shared/real/solver_mpi4.h5"
    check "c folds a lane to fewer rows" rowhas 5 "^ r1 "
    # r0 has 4 depth rows (timestep, rhs, ...); folded to one, it still says 3 are hidden
    check "c keeps the +N deeper marker (+3 beside the name)" rowhas 4 "r0 .*+3│"
    screen 80x24 "C" "$shared/real/solver_mpi4.h5"
    check "C keeps the marker on every lane" rowhas 7 "r3 .*+3│"
    screen 80x24 "jjjce" "$shared/real/solver_mpi4.h5"
    check "e unfolds it again" rowhas 8 "^ r1 "
    screen 80x24 "<PgDn>" "$shared/real/solver_mpi4.h5"
    check "PgDn scrolls (the last rank stays on screen)" has "r3 "
    screen 100x30 "3/solve<Enter>d<Enter>" "$shared/real/solver.h5"
    check "a call chosen in the calls view is shown on the timeline" rowhas 1 "\[1 timeline\]"
    check "and selected there" has "solve  rank 0  start"
    screen 80x24 "e" "$shared/extended/recursion.h5"
    check "recursion: e shows every depth row" hasnt "deeper"
    screen 80x24 "" "$shared/extended/recursion.h5"
    check "recursion: deep lane folded" has "+[0-9]* deeper"
else
    skip "shared data not found in $shared"
fi

if [ -f "$top_src/data/demo.h5" ]; then
    screen 200x60 "" "$top_src/data/demo.h5"
    check "demo 200x60: exits 0" [ "$rc" = 0 ]
    check "demo 200x60: task lanes" has "r0 Task-1"
    screen 80x24 "/solve<Enter>nnz" "$top_src/data/demo.h5"
    check "demo: search and zoom" [ "$rc" = 0 ]
    # 80x24: every thread of both ranks and their tasks (grouped) on the first screen, rank 0's
    # group opened as far as it fits. Tasks per rank counted from the raw calls: distinct task
    # names of rank 0's calls.
    dm="$top_src/data/demo.h5"
    for r in $("$sv" --csv "$dm" | awk -F, 'NR > 1 && $4 == "true" { print $1 }' | sort -u); do
        "$sv" --events "$r" --csv "$dm" | awk -F, 'NR > 1 && $1 == 0 && $12 != "" { print $12 }'
    done | sort -u >"$tmp/tasks0"
    nt=$(wc -l <"$tmp/tasks0" | tr -d ' ')
    screen 80x24 "" "$dm"
    for k in 0 1; do
        check "demo 80x24: rank $k's executor threads" has "r$k Thread…-0_0"
        check "demo 80x24: rank $k's data-loader" has "^ r$k data-loader"
        [ $k = 0 ] && gwant="▾[0-9]*/$nt" || gwant="▸$nt"
        check "demo 80x24: rank $k's $nt tasks under MainThread" has "^ r$k Ma.*ad $gwant"
    done
fi

finish
