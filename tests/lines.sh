#!/bin/sh
# Line profiles and hardware counters (auxiliary records of rank<N> groups): --lines in its
# three formats, the counters in --json, the source pane's gutter and the info view.
# Expected values by hand from h5dump of ../shared/data/upstream:
#   sp3-basic.h5 rank0/line_profile/0: region solve, function cg, examples/heat.py, first line 20,
#     unit 1e-9 s, lines 21-24, hits 40 1400 1400 40, times 210000 9.8e6 6.1e6 100000 (ns);
#     total 16 210 000 ns = 16.21 ms; shares 1.3 60.5 37.6 0.6 %; per hit 5.250 us, 7.000 us,
#     4.357 us (6.1e6/1400), 2.500 us; source from line 20 "def cg(A, b):" ... "    return x".
#   sp3-gpu.h5 rank0/perf_events: assemble and solve, calls 30; solve cycles 9100000000,
#     instructions 14200000000 (per call 303333333.33, 473333333.33); assemble 2400000000,
#     5000000000.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/lib.sh"
scr="$tmp/s"
show_err=1
up=${SV_SHARED_DIR:-$top_src/../shared}/data/upstream

errhas() { grep -qF -- "$1" "$tmp/err"; }
# near A B: equal to 1e-9 relative
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
    exit !(d <= 1e-9 * m + 1e-300) }'; }
# json_field LINE KEY: the value of KEY in line number LINE of the output
json_field() { sed -n "$1p" "$tmp/s" | sed -n "s/.*\"$2\": \([^,}]*\).*/\1/p"; }

[ -x "$sv" ] || {
    echo "lines.sh: $sv missing (run from make check)"
    exit 99
}
# --- a generated profile (tests/gen/FIXTURES.md, col3_full.h5): rank0/line_profile/0 is region
# inner, function inner, app.py first line 20, unit 1e-9 s, lines 21 and 22 with hits 3 and 3,
# times 150 and 90 ns: total 240 ns, shares 62.5 and 37.5 %, per hit 50 and 30 ns; source
# "def inner():" from line 20.  rank0/perf_events/outer: 2 calls, cycles 1000, instructions 2500.
full="$fx/col3_full.h5"
need_fixture "$full"
run --lines inner "$full"
check "generated: exit 0" [ "$rc" = 0 ]
check "generated: heading" hasf "region: inner  line profiles: 1"
check "generated: record heading" hasf "rank 0  inner  app.py:20  total 240 ns"
check "generated: line 21" has "^ *21  *3  *150 ns  *50 ns  *62\.5  *x = 1$"
check "generated: line 22" has "^ *22  *3  *90 ns  .*ns  *37\.5  *return x$"
run --lines inner --csv "$full"
row22=$(grep '^0,inner,app.py,22,' "$tmp/s")
check "generated csv: line 22 time 90 ns" near "$(echo "$row22" | cut -d, -f6)" 9e-08
check "generated csv: line 22 per hit 30 ns" near "$(echo "$row22" | cut -d, -f7)" 3e-08
check "generated csv: line 22 percent" near "$(echo "$row22" | cut -d, -f8)" 37.5
run --json "$full"
check "generated json: outer's cycles" hasf '{"source": "perf_events", "name": "cycles", "value": 1000, "calls": 2, "per_call": 500}'
check "generated json: outer's instructions" hasf '"name": "instructions", "value": 2500, "calls": 2, "per_call": 1250}'
run --lines outer "$full"
check "generated: a region without a line profile: exit 1" [ "$rc" = 1 ]

if [ ! -f "$up/sp3-basic.h5" ]; then
    skip "$up/sp3-basic.h5 not found: its cross-checks were left out"
    finish
fi
basic="$up/sp3-basic.h5"
gpu="$up/sp3-gpu.h5"

# --- --lines: the table
run --lines solve "$basic"
check "lines: exit 0" [ "$rc" = 0 ]
check "lines: heading" hasf "region: solve  line profiles: 1"
check "lines: record heading" hasf "rank 0  cg  examples/heat.py:20  total 16.21 ms"
check "lines: column names" has "line  *hits  *time  *per hit  *%  *source"
check "lines: line 21" has "^ *21  *40  *210\.0 us  *5\.250 us  *1\.3  *x = 0\*b$"
check "lines: line 22" has "^ *22  *1400  *9\.800 ms  *7\.000 us  *60\.5  *for k in range(it):$"
check "lines: line 23" has "^ *23  *1400  *6\.100 ms  *4\.357 us  *37\.6  *x += step(A, x)$"
check "lines: line 24" has "^ *24  *40  *100\.0 us  *2\.500 us  *0\.6  *return x$"
check "lines: four rows" [ "$(grep -c '^ *2[1-4] ' "$tmp/s")" = 4 ]
check "lines: no control bytes" clean

run --lines solve --rank 0 "$basic"
check "lines --rank 0: same rows" has "^ *22  *1400  *9\.800 ms"

# --- --lines --csv
run --lines solve --csv "$basic"
check "csv: exit 0" [ "$rc" = 0 ]
check "csv: header" [ "$(sed -n 1p "$tmp/s")" = "rank,function,filename,line,hits,time,time_per_hit,percent,source" ]
check "csv: 5 lines" [ "$(lines)" = 5 ]
row22=$(grep '^0,cg,examples/heat.py,22,' "$tmp/s")
check "csv: line 22 hits" [ "$(echo "$row22" | cut -d, -f5)" = 1400 ]
check "csv: line 22 time 0.0098 s" near "$(echo "$row22" | cut -d, -f6)" 0.0098
check "csv: line 22 per hit 7e-6 s" near "$(echo "$row22" | cut -d, -f7)" 0.000007
check "csv: line 22 percent" near "$(echo "$row22" | cut -d, -f8)" "$(awk 'BEGIN { printf "%.17g", 980000000 / 16210000 }')"
check "csv: line 22 source" [ "$(echo "$row22" | cut -d, -f9-)" = "    for k in range(it):" ]

# --- --lines --json
run --lines solve --json "$basic"
check "json: exit 0" [ "$rc" = 0 ]
check "json: region" hasf '"region": "solve"'
n=$(grep -n '"line": 23' "$tmp/s" | cut -d: -f1)
check "json: a row for line 23" [ -n "$n" ]
check "json: line 23 rank" [ "$(json_field "$n" rank)" = 0 ]
check "json: line 23 hits" [ "$(json_field "$n" hits)" = 1400 ]
check "json: line 23 time" near "$(json_field "$n" time)" 0.0061
check "json: line 23 per hit" near "$(json_field "$n" time_per_hit)" "$(awk 'BEGIN { printf "%.17g", 0.0061 / 1400 }')"
check "json: line 23 function" [ "$(json_field "$n" function)" = '"cg"' ]
check "json: line 23 source" hasf '"source": "        x += step(A, x)"}'
check "json: four rows" [ "$(grep -c '"line": ' "$tmp/s")" = 4 ]

# --- no line profile
run --lines assemble "$basic"
check "missing region: exit 1" [ "$rc" = 1 ]
check "missing region: message" errhas "no line profile for region assemble"
check "missing region: nothing on stdout" [ ! -s "$tmp/s" ]
run --lines solve --rank 1 "$basic"
check "other rank: exit 1" [ "$rc" = 1 ]
check "other rank: message" errhas "no line profile for region solve on rank 1"
run --lines solve "$gpu"
check "file without line profiles: exit 1" [ "$rc" = 1 ]
check "file without line profiles: says so" errhas "the file has no line profile"
run --lines solve --events solve "$basic"
check "--lines with --events: usage" [ "$rc" = 2 ]
run --lines solve --json --csv "$basic"
check "--lines with --json and --csv: usage" [ "$rc" = 2 ]

# --- counters in --json
run --json "$gpu"
check "counters json: exit 0" [ "$rc" = 0 ]
solve=$(grep '"name": "solve"' "$tmp/s")
check "counters: solve cycles" hasf '{"source": "perf_events", "name": "cycles", "value": 9100000000, "calls": 30, "per_call": '
check "counters: solve per call" near "$(echo "$solve" | sed 's/.*"name": "cycles"[^}]*"per_call": \([^}]*\)}.*/\1/')" "$(awk 'BEGIN { printf "%.17g", 9100000000 / 30 }')"
check "counters: solve instructions" near "$(echo "$solve" | sed 's/.*"name": "instructions", "value": \([0-9]*\).*/\1/')" 14200000000
assemble=$(grep '"name": "assemble"' "$tmp/s")
check "counters: assemble cycles" near "$(echo "$assemble" | sed 's/.*"name": "cycles", "value": \([0-9]*\).*/\1/')" 2400000000
check "counters: only where recorded" [ "$(grep -c '"counters"' "$tmp/s")" = 2 ]

# --- info view: counters and line profiles
screen 100x60 "5" "$gpu"
check "info: counters heading" hasf "Counters (4)"
# per call: 9100000000 / 30 = 303333333.3 and 5000000000 / 30 = 166666666.7, whole units
check "info: solve cycles row" has "^ *0  *solve  *cycles  *9100000000  *303333333$"
check "info: assemble instructions row" has "^ *0  *assemble  *instructions  *5000000000  *166666667$"
screen 100x60 "5" "$basic"
check "info: line profiles heading" hasf "Line profiles (1;"
check "info: the record" has "^ *0  *solve  *cg  examples/heat.py:20  *4  *16\.21 ms$"

# --- the source pane's gutter
screen 100x30 "3/^solve\$<Enter>s" "$basic"
check "gutter: exit 0" [ "$rc" = 0 ]
check "gutter: caption" hasf "line profile cg: 16.21 ms total, top 3 marked"
# The region's own text (heat.py:47-48) holds none of the profiled lines (21-24): the pane shows
# it, then the record's source (cg, from line 20) under a labelled row.  Gutter: time in 8 columns, hits in 4, a bar of 4
# scaled to the slowest line (9.8 ms): 6.1/9.8*4 = 2.5 -> 2 cells, any other time at least 1;
# the three slowest lines (22, 23, 21) marked.
check "gutter: header names the region's own file and line" hasf "examples/heat.py:47  solve"
check "gutter: the region's own line 47" grep -qF " 47 │ with sp.region(\"solve\"" "$tmp/s"
check "gutter: cg's part labelled with its file and line" hasf "── line profile: cg  examples/heat.py:20"
check "gutter: line 20 has no figures" grep -qxF "                    20 │ def cg(A, b):" "$tmp/s"
check "gutter: line 21" grep -qxF "210.0 us   40 █   ▶ 21 │     x = 0*b" "$tmp/s"
check "gutter: line 22" grep -qxF "9.800 ms 1400 ████▶ 22 │     for k in range(it):" "$tmp/s"
check "gutter: line 23" grep -qxF "6.100 ms 1400 ██  ▶ 23 │         x += step(A, x)" "$tmp/s"
check "gutter: line 24, not among the top 3" grep -qxF "100.0 us   40 █     24 │     return x" "$tmp/s"
check "gutter: 100 columns" [ "$(widest)" -le 100 ]
check "gutter: 30 rows" [ "$(lines)" = 30 ]
check "gutter: no control bytes" clean
screen 80x24 "3/^solve\$<Enter>s" "$basic"
check "gutter 80x24: line 23" grep -qxF "6.100 ms 1400 ██  ▶ 23 │         x += step(A, x)" "$tmp/s"
check "gutter 80x24: caption" hasf "line profile cg: 16.21 ms total, top 3 marked"
check "gutter 80x24: 80 columns" [ "$(widest)" -le 80 ]
check "gutter 80x24: 24 rows" [ "$(lines)" = 24 ]
screen 160x40 "3/^solve\$<Enter>s" "$basic"
check "gutter 160: beside the view" has "│9\.800 ms 1400 ████▶ 22 │     for k"
check "gutter 160: 160 columns" [ "$(widest)" -le 160 ]
# 120 columns: a 48-column pane keeps only the time and the mark
screen 120x30 "3/^solve\$<Enter>s" "$basic"
check "gutter 120: narrow gutter, line 22" has "│9\.800 ms ▶ 22 │     for k"
check "gutter 120: narrow gutter, line 24 unmarked" has "│100\.0 us   24 │     return x"
screen 80x24 "3/^solve\$<Enter>s" "$basic" --ascii
check "gutter ascii: bar and mark" grep -qxF "9.800 ms 1400 ####> 22 |     for k in range(it):" "$tmp/s"
check "gutter ascii: only ASCII" ascii_only
screen 100x30 "3/^assemble\$<Enter>s" "$basic"
check "gutter: none for a region without a line profile" hasnt "line profile cg"

# --- strings from the file with terminal escapes, BEL, CR: escaped everywhere
# (the profile is written by tests/test_load_aux: region "ev ESC [31mil", function
# "fn ESC ]0;pwn BEL", file "f BEL .py", source "a ESC [2Jb" / "line CR 2", counter "cyc ESC [5mles")
hp="$tmp/hostile.h5"
if "$top_build/tests/unit/test_load_aux" --write-hostile-profile "$hp"; then
    evil=$(printf 'ev\033[31mil')
    for fmt in "" --json --csv; do
        run --lines "$evil" $fmt "$hp"
        check "hostile --lines $fmt: exit 0" [ "$rc" = 0 ]
        check "hostile --lines $fmt: no control bytes" clean
        check "hostile --lines $fmt: rows" [ "$(grep -c '[12]' "$tmp/s")" -ge 2 ]
    done
    run --lines "$evil" "$hp"
    check "hostile --lines: function escaped" hasf 'fn\x1b]0;pwn\x07'
    check "hostile --lines: source escaped" hasf 'a\x1b[2Jb'
    run --json "$hp"
    check "hostile --json: counters" hasf '"name": "cyc\u001b[5mles", "value": 100, "calls": 2, "per_call": 50}'
    check "hostile --json: no control bytes" clean
    screen 100x30 "3s" "$hp"
    check "hostile gutter: exit 0" [ "$rc" = 0 ]
    check "hostile gutter: shown" has "5 ns    1 .* 1 │ a"
    check "hostile gutter: no control bytes" clean
    screen 100x40 "5" "$hp"
    check "hostile info: counter row" hasf 'cyc\x1b[5mles'
    check "hostile info: no control bytes" clean
else
    bad "tests/unit/test_load_aux --write-hostile-profile failed"
fi

finish
