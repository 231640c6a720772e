#!/bin/sh
# Headless screens of the calls drill-down (view 4), the source pane and the info view (5).
# Expected values come by hand from tests/gen/FIXTURES.md (small.h5: outer durations 500 and
# 1000 ns, call 1 exclusive 400 with children inner[1100,1200] and io/write[1300,1300]; inner
# durations 100 500 400 with GPU 50 - 70) and from shared/data/expected/*.json (max_duration,
# num_calls, total_duration), formatted here with the viewer's rule (4 significant digits).
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"
scr="$tmp/s"
shared="$shared_root/data"

# Line number of the first line matching a fixed string (0 when none).
line_of() { grep -nF -- "$1" "$tmp/s" | head -n 1 | cut -d: -f1 | grep . || echo 0; }

# The viewer's duration format (util/timefmt.c): four significant digits, adaptive unit.
fmt_ns() {
    awk -v ns="$1" 'BEGIN {
        split("ns us ms s", unit, " "); v = ns + 0; u = 1
        a = v < 0 ? -v : v
        while (u < 4 && a >= 999.95) { v /= 1000; a /= 1000; u++ }
        if (u == 1 && v == int(v)) printf "%.0f %s\n", v, unit[u]
        else if (a < 9.9995) printf "%.3f %s\n", v, unit[u]
        else if (a < 99.995) printf "%.2f %s\n", v, unit[u]
        else printf "%.1f %s\n", v, unit[u]
    }'
}

# "name rank num_calls max_ns total_ns" per object of an expected/*.json file.
expected_rows() {
    awk '
        /"name":/ { s = $0; sub(/.*"name": "/, "", s); sub(/",?$/, "", s); name = s }
        /"rank":/ { r = $2; sub(/,/, "", r) }
        /"num_calls":/ { c = $2; sub(/,/, "", c) }
        /"total_duration":/ { t = $2; sub(/,/, "", t) }
        /"max_duration":/ { m = $2; sub(/,/, "", m);
            printf "%s %s %s %.0f %.0f\n", name, r, c, m * 1e9, t * 1e9 }
    ' "$1"
}

# The list rows of the calls view: every line between the table head and the detail rule.
list_rows() {
    awk '/duration.*excl/ && !head { head = 1; next } head && /call [0-9]+ .*recorded/ { exit } head' "$tmp/s"
}
# Durations (first column) of the list rows in ns, one per line.
list_durations() {
    list_rows | sed 's/^[^0-9]*//' | awk 'NF >= 2 {
        m = 1; if ($2 == "us") m = 1e3; else if ($2 == "ms") m = 1e6; else if ($2 == "s") m = 1e9
        printf "%.0f\n", $1 * m }'
}
non_increasing() { list_durations | awk 'NR > 1 && $1 > prev { bad = 1 } { prev = $1 } END { exit bad }'; }

if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "screens_calls.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi
small="$fx/small.h5"

# --- drill-down on small.h5: outer (calls 500 and 1000 ns)
screen 80x24 "3/^outer\$<Enter>4" "$small"
check "outer: exits 0" [ "$rc" = 0 ]
check "outer: calls is view 4" rowhas 1 "\[4 calls\]"
check "outer: header says all ranks and count" rowhas 2 "Calls of outer, all ranks (1): 2 calls, slowest first"
check "outer: histogram percentiles (numpy on 500, 1000)" hasf "min 500 ns  p50 750 ns  p95 975 ns  p99 995 ns  max 1.000 us"
check "outer: p50 marked on the axis" has "p50"
check "outer: slowest first" [ "$(list_durations | tr '\n' ' ')" = "1000 500 " ]
check "outer: call 2 decomposition" hasf "wall 1.000 us = exclusive 200 ns + children 800 ns"
check "outer: call 2 top-level" hasf "parents: none"
check "outer: 80 columns" [ "$(widest)" -le 80 ]
check "outer: 24 rows" [ "$(lines)" = 24 ]
check "outer: no control bytes" clean

screen 80x24 "3/^outer\$<Enter>4j" "$small"
check "outer call 1: decomposition wall 500 = 400 + 100" hasf "wall 500 ns = exclusive 400 ns + children 100 ns"
check "outer call 1: recorded index" hasf "call 0 (id 1) on rank 0, of 2 recorded"
check "outer call 1: two children" hasf "children: 2, slowest first"
check "outer call 1: child inner 100 ns" has "inner  *100 ns  *100 ns"
check "outer call 1: child io/write 0 ns" has "io/write  *0 ns  *0 ns"
check "outer call 1: cursor on the second row" [ "$(list_rows | sed -n 2p | cut -c1-3)" = "▶" ]

# inner: GPU column, metadata, parents
screen 80x24 "3/^inner\$<Enter>4j" "$small"
check "inner: three calls slowest first" [ "$(list_durations | tr '\n' ' ')" = "500 400 100 " ]
check "inner: GPU column" has "GPU"
# GPU device time overlaps the host time: beside the sum, with its share (70 / 400)
check "inner call 3: host terms add up" hasf "wall 400 ns = exclusive 400 ns + children 0 ns"
check "inner call 3: GPU beside the sum, not a term" hasf "GPU 70 ns (18%, overlap)"
check "inner call 3: GPU is no term of the sum" hasnt "+ GPU"
check "inner call 3: parent outer" hasf "parents: outer"
check "inner call 3: {} is no metadata" hasf "metadata: none"
screen 80x24 "3/^inner\$<Enter>4jj" "$small"
check "inner call 1: metadata shown" hasf 'metadata: {"i": 1}'
check "inner call 1: GPU 50 ns" hasf "GPU 50 ns (50%, overlap)"

# sorting
screen 80x24 "3/^inner\$<Enter>4>>" "$small"
check "sort: > > is GPU" rowhas 2 "by GPU (largest first)"
check "sort: GPU 70 first" [ "$(list_rows | sed -n 1p | grep -c '70 ns')" = 1 ]
screen 80x24 "3/^inner\$<Enter>4I" "$small"
check "sort: I inverts" rowhas 2 "by duration (fastest first)"
check "sort: fastest first" [ "$(list_durations | tr '\n' ' ')" = "100 400 500 " ]
screen 80x24 "3/^inner\$<Enter>4<" "$small"
check "sort: < from duration wraps to the last column" rowhas 2 "by thread"
screen 80x24 "3/^inner\$<Enter>4<<<" "$small"
check "sort: < < < is start, earliest first (its natural order)" rowhas 2 "by start (earliest first)"
check "sort: earliest first" [ "$(list_durations | tr '\n' ' ')" = "100 500 400 " ]

# Enter jumps to the timeline; Esc comes back to the same row
screen 80x24 "3/^outer\$<Enter>4j<Enter>" "$small"
check "jump: timeline is shown" rowhas 1 "\[1 timeline\]"
check "jump: the call is selected there" has "dur 500 ns"
screen 80x24 "3/^outer\$<Enter>4j<Enter><Esc>" "$small"
check "back: calls view again" rowhas 1 "\[4 calls\]"
check "back: same row" [ "$(list_rows | sed -n 2p | cut -c1-3)" = "▶" ]
check "back: same call" hasf "wall 500 ns = exclusive 400 ns + children 100 ns"

# summary-only
screen 80x24 "3/^reduce\$<Enter>4" "$small"
check "reduce: summary-only message" hasf "no event data for this region (summary-only)"
check "reduce: header" rowhas 2 "summary-only, no recorded calls"
check "reduce: one column per rank" has "^   stored  *rank 0$"
check "reduce: stored num_calls 4" has "^   calls  *4$"
check "reduce: stored total 4000 ns" has "^   total  *4\.000 us$"
check "reduce: stored min 500 ns" has "^   min  *500 ns$"
check "reduce: stored max 1500 ns" has "^   max  *1\.500 us$"
check "reduce: stored mean 1000 ns" has "^   mean  *1\.000 us$"
check "reduce: nothing else stored" hasnt "p50"

# S on small.h5: outer's slowest call is call 1, id 4 (1000 ns)
screen 80x24 "3/^outer\$<Enter>4jS" "$small"
check "S: cursor back on the slowest" [ "$(list_rows | sed -n 1p | cut -c1-3)" = "▶" ]
check "S: status names it" hasf "Slowest call of outer over every rank: rank 0, call 1 (id 4), 1.000 us"

# ASCII and a large screen
screen 80x24 "3/^inner\$<Enter>4" "$small" --ascii
check "ascii: only ASCII" ascii_only
screen 160x50 "3/^outer\$<Enter>4" "$small"
check "160x50: 50 rows" [ "$(lines)" = 50 ]
check "160x50: at most 160 columns" [ "$(widest)" -le 160 ]

# --- source pane (small.h5: outer has app.py:10, two lines)
screen 80x24 "3/^outer\$<Enter>s" "$small"
check "source: header file:line" hasf "app.py:10  outer"
check "source: first line numbered 10" hasf '10 │ with Region("outer"):'
check "source: second line numbered 11" hasf "11 │     inner()"
check "source: below the view at 80 columns" [ "$(line_of 'app.py:10')" -gt 12 ]
screen 160x50 "3/^outer\$<Enter>s" "$small"
check "source 160: beside the view" hasf "│ app.py:10  outer"
check "source 160: lines" hasf '10 │ with Region("outer"):'
screen 80x24 "3/^inner\$<Enter>s" "$small"
check "source: none captured" hasf "no source captured"
screen 80x24 "3/^outer\$<Enter>4s" "$small"
check "source: beside the calls view too" hasf "11 │     inner()"
# the tree and the regions select their first row when nothing is selected yet
screen 80x24 "2s" "$small"
check "source: the tree's first row at once" hasf "app.py:10  outer"
screen 80x24 "3s" "$small"
check "source: the regions' first row at once" hasf "no source captured"
check "source: the regions' first row is reduce" grep -qx " reduce" "$tmp/s"
# (the tree selects outer, its first row; S keeps that selection)
screen 80x24 "2S3s" "$small"
check "source: a selection made elsewhere is kept" hasf "app.py:10  outer"
check "source: the regions' cursor follows it" grep -qE "^(▶|>)outer " "$tmp/s"
screen 80x24 "3/^outer\$<Enter>ss" "$small"
check "source: s again hides it" hasnt "app.py:10"
screen 80x24 "3/^outer\$<Enter>s" "$small" --ascii
check "source ascii: rule" hasf "10 | with Region"
check "source ascii: only ASCII" ascii_only

# hostile source text is shown escaped
screen 80x24 "3/evil<Enter>s" "$fx/fault_hostile_strings.h5"
check "hostile source: escaped" hasf '1 │ a\rb\x9b31mc\xff\xfed'
check "hostile source: file:line" hasf "evil.py:1"
check "hostile: no control bytes" clean

# a long source scrolls with J and }
screen 80x24 "3/big<Enter>s}}}JJK" "$fx/fault_huge_string.h5"
check "scroll: 3 pages of 9 + 2 - 1 lines" hasf "29-38/65536"
check "scroll: line 29 first" has "^ *29 │ 0123456789abcde"

# --- info view
# From the fixtures' directory: the path shown is then the same wherever the tree lives.
cd "$fx" && screen 80x24 "5" small.h5 && cd "$OLDPWD" || exit 99
check "info: view 5" rowhas 1 "\[5 info\]"
check "info: path" has "path  *small\.h5$"
check "info: size in bytes" has "size  *[0-9]* bytes"
check "info: metadata sorted" [ "$(line_of 'gpu ')" -lt "$(line_of 'hostname ')" ] 
check "info: metadata sorted 2" [ "$(line_of 'hostname ')" -lt "$(line_of 'python_version ')" ]
check "info: fixed-length string value" has "python_version  *3\.11\.7"
check "info: bool value" has "gpu  *True"
check "info: thread table MainThread 11 101" has "0  MainThread  *11  *101"
check "info: thread table Worker-1 12 102" has "1  Worker-1  *12  *102"
screen 80x24 "5<End>" "$small"
check "info: six calls" has "calls  *6$"
check "info: regions without event data" hasf "Regions without event data (1)"
check "info: reduce listed" has "reduce  *0  *4  *4\.000 us"
check "info: no warnings" hasf "Loader warnings (0)"
screen 80x24 "5<End>" "$fx/fault_length.h5"
check "info fault: one warning" hasf "Loader warnings (1)"
# The warning wraps where the path's length puts it: read it joined up.
joined() { tr -s ' \n' '  ' <"$tmp/s" | grep -qF -- "$1"; }
check "info fault: names region and dataset" joined "rank 0: region bad: dataset end_times: 2 elements, start_times has 3"
screen 80x24 "5" "$fx/fault_hostile_strings.h5"
check "info hostile: OSC 52 escaped" hasf 'clip  \x1b]52;c;SGVsbG8=\x07'
check "info hostile: no control bytes" clean
screen 80x24 "5" "$fx/fault_region_no_regions.h5"
check "info no ranks: says so" hasf "no rank groups in the file"
check "info no ranks: exits 0" [ "$rc" = 0 ]
screen 80x24 "5jj" "$small"
check "info: scrolls" rowhas 2 "size"
screen 160x50 "5" "$small" --ascii
check "info ascii: only ASCII" ascii_only

# Loader warnings go to stderr, which the screen covers: the header counts them and W (or a
# click on the count) opens them in the info view (fault_length.h5 drops one region, FIXTURES.md)
screen 100x24 "" "$fx/fault_length.h5"
check "warnings: the header counts 1" rowhas 1 "1 warning (W)$"
check "warnings: the timeline is current" rowhas 1 "\[1 timeline\]"
screen 80x12 "W" "$fx/fault_length.h5"
check "warnings W: info view" rowhas 1 "\[5 info\]"
check "warnings W: scrolled to the list" has "^ Loader warnings (1)$"
check "warnings W: the dropped region" joined "region bad: dataset end_times"
check "warnings W: the file's top is scrolled away" hasnt "^ File$"
screen 100x24 "" "$small"
check "warnings: none, no marker" hasnt "warning"
screen 80x12 "W" "$small"
check "warnings W without warnings: says none" has "none: the file loaded cleanly"

# legacy_small.h5 records no threads and c[0] overlaps b[0] partly: two inferred lanes, and a
# one-line note says so (FIXTURES.md)
screen 100x30 "5" "$fx/legacy_small.h5"
check "info legacy: rank 0 has 2 inferred lanes" has "^ *0  *3  *7  *inferred  *2 lanes (inferred)$"
check "info legacy: the note" hasf "The file records no threads; lanes were inferred where calls overlap partly"
screen 100x30 "5" "$small"
check "info small: threads recorded, no note" hasnt "lanes were inferred"

# --- shared profiles
if [ -f "$shared/real/solver.h5" ] && [ -f "$shared/expected/solver.json" ]; then
    expected_rows "$shared/expected/solver.json" >"$tmp/exp"
    while read -r name rank calls max total; do
        want=$(fmt_ns "$max")
        screen 160x50 "3/^$name\$<Enter>4" "$shared/real/solver.h5"
        check "solver $name: header count $calls" rowhas 2 "Calls of $name, all ranks (1): $calls call"
        check "solver $name: slowest is max_duration $want" \
            [ "$(list_rows | sed -n 1p | sed 's/^[^0-9]*//' | awk '{print $1 " " $2}')" = "$want" ]
        check "solver $name: slowest first" non_increasing
        check "solver $name: no control bytes" clean
    done <"$tmp/exp"

    # solver_mpi4: S takes the longest call of solve over every rank: the largest max_duration
    expected_rows "$shared/expected/solver_mpi4.json" | awk '$1 == "solve"' |
        sort -k4,4n | tail -n 1 >"$tmp/slow"
    read -r name rank calls max total <"$tmp/slow"
    want=$(fmt_ns "$max")
    screen 80x24 "3/^solve\$<Enter>4S" "$shared/real/solver_mpi4.h5"
    check "mpi4 S: over every rank, on rank $rank" hasf "Slowest call of solve over every rank: rank $rank,"
    check "mpi4 S: its max_duration $want" hasf ", $want"
    check "mpi4 S: cursor on it" [ "$(list_rows | grep '▶' | sed 's/^[^0-9]*//' | awk '{print $1 " " $2}')" = "$want" ]
    all=$(expected_rows "$shared/expected/solver_mpi4.json" | awk '$1 == "solve" { n += $3 } END { print n }')
    screen 80x24 "3/^solve\$<Enter>4" "$shared/real/solver_mpi4.h5"
    check "mpi4: all ranks, $all calls" rowhas 2 ", all ranks (4): $all calls"
    screen 80x24 "3/^solve\$<Enter>4Sr" "$shared/real/solver_mpi4.h5"
    check "mpi4 r: one rank" rowhas 2 ", rank $rank only: $calls calls"
    check "mpi4 r: every row on that rank" [ "$(list_rows | awk -v r="$rank" '$(NF) != r' | wc -l | tr -d ' ')" = 0 ]
else
    skip "shared data not found in $shared"
fi

# S is the slowest call of the region over every rank and lane, even where another rank has
# the larger total (gpu_train.h5: load_batch and optimizer, expected/gpu_train.json); a per-rank
# row (b) acts on its own rank: S and Enter stay on it
if [ -f "$shared/extended/gpu_train.h5" ] && [ -f "$shared/expected/gpu_train.json" ]; then
    for reg in load_batch optimizer; do
        expected_rows "$shared/expected/gpu_train.json" | awk -v n="$reg" '$1 == n' >"$tmp/rows"
        top=$(sort -k4,4n "$tmp/rows" | tail -n 1)
        r=$(echo "$top" | cut -d' ' -f2)
        want=$(fmt_ns "$(echo "$top" | cut -d' ' -f4)")
        busiest=$(sort -k5,5n "$tmp/rows" | tail -n 1 | cut -d' ' -f2)
        check "gpu S $reg: the largest total is on another rank ($busiest, not $r)" [ "$busiest" != "$r" ]
        screen 120x30 "3/^$reg\$<Enter>S" "$shared/extended/gpu_train.h5"
        check "gpu S $reg: timeline" rowhas 1 "\[1 timeline\]"
        check "gpu S $reg: rank $r's call, $want = the region's Max" \
            hasf "Slowest call of $reg over every rank: rank $r, call"
        check "gpu S $reg: duration $want" has "Slowest call of $reg .*, $want\$"
        check "gpu S $reg: the selected call lasts $want" has "$reg  rank $r .* dur $want "
        screen 120x30 "3/^$reg\$<Enter>4S" "$shared/extended/gpu_train.h5"
        check "gpu S $reg in the calls view: cursor on $want" \
            [ "$(list_rows | grep '▶' | sed 's/^[^0-9]*//' | awk '{print $1 " " $2}')" = "$want" ]
        # per-rank rows follow the merged row in rank order: rank 0, then rank 1
        for k in 0 1; do
            down=$([ "$k" = 0 ] && echo "<Down>" || echo "<Down><Down>")
            want=$(fmt_ns "$(awk -v k="$k" '$2 == k { print $4 }' "$tmp/rows")")
            screen 120x30 "3/^$reg\$<Enter>b${down}S" "$shared/extended/gpu_train.h5"
            check "gpu b S $reg rank $k: stays on rank $k" hasf "Slowest call of $reg on rank $k: call"
            check "gpu b S $reg rank $k: its max $want" has "Slowest call of $reg on rank $k: .*, $want\$"
            check "gpu b S $reg rank $k: the selected call" has "$reg  rank $k .* dur $want "
            screen 120x30 "3/^$reg\$<Enter>b${down}<Enter>" "$shared/extended/gpu_train.h5"
            c=$(awk -v k="$k" '$2 == k { print $3 }' "$tmp/rows")
            check "gpu b Enter $reg rank $k: rank $k only" rowhas 2 "Calls of $reg, rank $k only: $c calls"
        done
        screen 120x30 "3/^$reg\$<Enter>b<Enter>" "$shared/extended/gpu_train.h5"
        check "gpu b Enter $reg merged row: all ranks" rowhas 2 "Calls of $reg, all ranks (2)"
    done
fi

if [ -f "$shared/extended/async_server.h5" ]; then
    screen 160x50 "3/^handle_request\$<Enter>4" "$shared/extended/async_server.h5"
    check "async: awaited and held columns" has "held  *awaited"
    check "async: task names" has "Task-"
    check "async: awaited beside the decomposition" has "awaited [0-9.]* [mun]*s ([0-9]*% of wall)"
    screen 100x60 "5" "$shared/extended/async_server.h5"
    check "async info: task table" has "tasks of rank 0 (41)"
    check "async info: task on MainThread" has "Task-2 handle_request  *0 (MainThread)"
fi

# gpu_train.h5: the third region's slowest call; the host terms add up to the wall
# time, the GPU device time is an overlap with its share of the wall (numbers read back from
# the line itself and checked with awk, not pasted)
if [ -f "$shared/extended/gpu_train.h5" ]; then
    screen 160x30 "3<Down><Down><Enter>" "$shared/extended/gpu_train.h5"
    check "gpu: calls view" rowhas 1 "\[4 calls\]"
    dec=$(grep -o "wall [^=]*= exclusive [0-9.]* [mun]*s + children [0-9.]* [mun]*s" "$tmp/s")
    check "gpu: decomposition line" [ -n "$dec" ]
    to_ns() { awk '{ v = $1; u = $2; m = u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1
        printf "%.0f\n", v * m }'; }
    w=$(echo "$dec" | sed 's/^wall \([^=]*\) = .*/\1/' | to_ns)
    e=$(echo "$dec" | sed 's/.*exclusive \([0-9.]* [mun]*s\) .*/\1/' | to_ns)
    c=$(echo "$dec" | sed 's/.*children \([0-9.]* [mun]*s\)$/\1/' | to_ns)
    # four significant digits each: the sum within rounding of the shown wall
    check "gpu: exclusive + children = wall ($e + $c vs $w)" \
        awk -v w="$w" -v e="$e" -v c="$c" 'BEGIN { d = e + c - w; exit !(d * d <= (w * 0.001) ^ 2) }'
    check "gpu: GPU shown as an overlap with its share" \
        has "GPU device time [0-9.]* [mun]*s overlaps ([0-9]*% of wall)"
    check "gpu: GPU is no term of the sum" hasnt "+ GPU"
    screen 80x24 "3<Down><Down><Enter>" "$shared/extended/gpu_train.h5"
    check "gpu 80: abbreviated, still an overlap" has "children [0-9.]* [mun]*s; GPU [0-9.]* [mun]*s ([0-9]*%, overlap)"
fi

# --- the list moves as the shared table moves (table.c): wheel, paging, a click on a row
screen 100x30 "3/inner<Enter>4<WheelDown>" "$small"
check "wheel down: three rows, stopping at the last (100 ns)" has "^▶ *100 ns"
screen 100x30 "3/inner<Enter>4<WheelDown><WheelUp>" "$small"
check "wheel up: back to the slowest (500 ns)" has "^▶ *500 ns"
screen 100x30 "3/inner<Enter>4<End><Home><PgDn>" "$small"
check "End Home PgDn: the last row" has "^▶ *100 ns"
check "... and the details follow it (the first call recorded)" hasf "call 0 (id 2) on rank 0, of 3 recorded"
if need_shared "a click in the calls list (solver.h5)"; then
    # No pointer in the headless screen: a click lands mid-view, row 13 of 80x24.
    screen 80x24 '3/^solve$<Enter>4<Click>' "$shared/real/solver.h5"
    check "click: the row under the pointer gets the cursor" rowhas 13 "^▶"
    check "click: only that row" [ "$(grep -c '^▶' "$scr")" = 1 ]
fi
finish
