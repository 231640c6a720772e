#!/bin/sh
# Headless screens of view 2 (call tree) and view 3 (regions): numbers against the independent
# expected statistics (shared/data/expected) and the hand-computed fixtures (tests/gen/FIXTURES.md),
# tree structure, expand/collapse, sorting, scopes, recursion folding, per-rank rows, summary-only
# marks, search, filter, drill-down, and the screen's shape at 80x24, 160x50 and small sizes.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"

shape() { # shape COLS ROWS NAME
    check "$3: exit 0" [ "$rc" = 0 ]
    check "$3: $2 lines" [ "$(lines)" = "$2" ]
    check "$3: no line wider than $1" [ "$(widest)" -le "$1" ]
    check "$3: no control bytes" clean
}
# The line number of the first screen line matching an extended regex (0: none).
line_of() { grep -nE -- "$1" "$tmp/out" | head -n 1 | cut -d: -f1 | sed 's/^$/0/'; }
above() { # above RE1 RE2: both present, RE1's line before RE2's
    a=$(line_of "$1")
    b=$(line_of "$2")
    [ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ "$a" -lt "$b" ]
}
current_tab() { head -n 1 "$tmp/out" | grep -o '\[[0-9] [^]]*\]' | head -n 1; }
cursor_line() { grep -E '^(▶|>)' "$tmp/out" | head -n 1; }
# A regex matching text literally.
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# --- expected statistics (JSON lists, one "key": value per line, "name" first in each object)
# exp FILE NAME RANK KEY: the value as printed in the JSON ("null" when unknown)
exp() {
    awk -v want="$2" -v rank="$3" -v key="$4" '
        /^  "name": / { n = $0; sub(/^  "name": "/, "", n); sub(/",$/, "", n); r = "" }
        /^  "rank": / { r = $2; sub(/,$/, "", r) }
        $1 == "\"" key "\":" && n == want && r == rank { v = $2; sub(/,$/, "", v); print v; exit }
    ' "$1"
}
# sum_exp FILE NAME KEY: the sum over ranks
sum_exp() {
    awk -v want="$2" -v key="$3" '
        /^  "name": / { n = $0; sub(/^  "name": "/, "", n); sub(/",$/, "", n) }
        $1 == "\"" key "\":" && n == want { v = $2; sub(/,$/, "", v); s += v }
        END { printf "%.17g\n", s }
    ' "$1"
}
# ns SECONDS: nanoseconds, four significant digits and a unit, as the views show durations
# ("850 ns", "12.35 us", "1.234 s"); written here from that rule, not from the code.
ns() {
    awk -v s="$1" 'BEGIN {
        v = s * 1e9; a = v < 0 ? -v : v; u = 1
        split("ns us ms s", unit, " ")
        while (u < 4 && a >= 999.95) { v /= 1000; a /= 1000; u++ }
        if (u == 1 && v == int(v)) printf "%.0f %s\n", v, unit[u]
        else if (a < 9.9995) printf "%.3f %s\n", v, unit[u]
        else if (a < 99.995) printf "%.2f %s\n", v, unit[u]
        else printf "%.1f %s\n", v, unit[u]
    }'
}
calls_of() { exp "$1" "$2" "$3" num_calls; }

if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "screens_tree.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi
small="$fx/small.h5"
legacy="$fx/legacy_small.h5"
hostile="$fx/fault_hostile_strings.h5"

# ============================================================ fixtures (hand-computed)
# small.h5: outer (2 calls, 1500 ns, exclusive 600) > inner (3 calls, 1000 ns, GPU 120 ns),
# io/write (1 call of 0 ns, await column); reduce is summary-only (4 calls, total 4000 ns).
screen 80x24 "2" "$small"
shape 80 24 "tree small.h5"
check "tree small: current view is [2 tree]" [ "$(current_tab)" = "[2 tree]" ]
check "tree small: outer row" hasx "^▶ +2 +1\.500 us +600 ns .*▾ outer$"
check "tree small: inner under outer, share 66.7%" hasx "^ +3 +1\.000 us +1\.000 us .* 66\.7% .*├── inner$"
check "tree small: io/write last child" hasx "^ +1 +0 ns +0 ns .*└── io/write$"
check "tree small: GPU column (120 ns for inner)" hasx "GPU .*Call path( +▸ [0-9]+ more)?$"
check "tree small: await column" hasx "Await .*Call path( +▸ [0-9]+ more)?$"
check "tree small: summary-only reduce has no calls in the tree" hasnt "reduce"
check "tree small: scope all ranks in the header" has "scope: all ranks"
screen 160x50 "2" "$small"
shape 160 50 "tree small.h5 160x50"
check "tree small 160: inner GPU 120 ns, await - (no column)" hasx "^ +3 +1\.000 us .* +- +120 ns +├── inner$"
check "tree small 160: io/write await 0 ns, GPU -" hasx "^ +1 +0 ns .* +0 ns +- +└── io/write$"
# thread scopes, chosen from a list (r): all, thread 0 (MainThread), thread 1 (Worker-1)
screen 80x24 "2r" "$small"
check "tree small r: a list of the scopes" has "Scope of the tree"
check "tree small r: all ranks first, the current one" has "^▶ all ranks$"
check "tree small r: MainThread" has "^  rank 0, thread MainThread$"
check "tree small r: Worker-1" has "^  rank 0, thread Worker-1$"
check "tree small r: says how many" has "1 of 3 "
screen 80x24 "2r/work<Enter>" "$small"
check "tree small r /work: the search finds Worker-1" has "^▶ rank 0, thread Worker-1$"
screen 80x24 "2r/work<Enter><Enter>" "$small"
check "tree small r /work Enter: that scope" has "scope: rank 0, thread Worker-1"
screen 80x24 "2rj<Esc>" "$small"
check "tree small r Esc: the scope stays" has "scope: all ranks"
screen 80x24 "2rj<Enter>" "$small"
check "tree small r: thread MainThread" has "scope: rank 0, thread MainThread"
check "tree small r: io/write (Worker-1) gone" hasnt "io/write"
check "tree small r: outer keeps its 2 calls" hasx "^▶ +2 +1\.500 us +600 ns .*outer$"
screen 80x24 "2rjj<Enter>" "$small"
check "tree small rr: thread Worker-1" has "scope: rank 0, thread Worker-1"
check "tree small rr: io/write is top-level there" hasx "^▶ +1 +0 ns .* io/write$"
check "tree small rr: outer gone" hasnt "outer"
screen 80x24 "2rjj<Enter>rg<Enter>" "$small"
check "tree small r g Enter: back to all ranks" has "scope: all ranks"

# legacy_small.h5 (FIXTURES.md): a[0] holds b[0] a[1] b[1] (b[1] holds b[2]); c[0] overlaps
# b[0] partly, so it ran on another thread: top-level on inferred lane 2, as c[1].
# Nodes: a 1000/760, a>b 2 calls 140/40, a>a 100/100, a>b>b 100/100, c 2 calls 320/320.
screen 80x24 "2E" "$legacy"
shape 80 24 "tree legacy_small.h5"
check "tree legacy: a" hasx "^▶ +1 +1\.000 us +760 ns .*▾ a$"
check "tree legacy: a>b (2 calls)" hasx "^ +2 +140 ns +40 ns .*├─▾ b$"
check "tree legacy: a>b>b" hasx "^ +1 +100 ns +100 ns .*│ └── b$"
check "tree legacy: a>a (recursion shown)" hasx "^ +1 +100 ns +100 ns .*└── a$"
check "tree legacy: no c inside a" hasnt "── c$"
check "tree legacy: c top-level, both calls" hasx "^ +2 +320 ns +320 ns .*   c$"
screen 80x24 "2RE" "$legacy"
check "tree legacy R: header says folded, and over which calls" has "recursion: folded, outermost calls"
# folded: a[1] into a[0]; b[2] into b[1].  Calls, Incl, Mean, Max: the outermost calls
# (a[0]: 1 call, 1000 ns; a>b: b[0] 40 + b[1] 100); Excl sums every folded call.
check "tree legacy R: a is 1 outermost call, exclusive summed (760 + 100)" \
    hasx "^▶ +1 +1\.000 us +860 ns +1\.000 us +1\.000 us .*▾ a$"
check "tree legacy R: b is 2 outermost calls, 140 ns both ways, mean 70" \
    hasx "^ +2 +140 ns +140 ns +70 ns +100 ns .*── b$"
check "tree legacy R: no a inside a" [ "$(grep -cE '(├|└)── a$' "$tmp/out")" = 0 ]

# regions of small.h5: reduce is summary-only, marked, unknowns "-"
screen 160x50 "3" "$small"
shape 160 50 "regions small.h5"
check "regions small: reduce marked and first by total" hasx "^▶reduce \* +4 +4\.000 us +1\.000 us +500 ns +1\.500 us +- +- +- +- +- "
check "regions small: footnote" has "* no event data"
check "regions small: inner p50 400 ns, mean 333.3 ns" hasx "^ inner +3 +1\.000 us +333\.3 ns +100 ns +500 ns +400 ns "
check "regions small: no imbalance column on one rank" hasnt "Imbal"
check "regions small: GPU column (inner 120 ns)" hasx "^ inner .* 120 ns"
check "regions small: await share column" has "Await"
screen 80x24 "3b" "$small"
check "regions small b: one rank, no breakdown" has "One rank"

# nested_names.h5: ranks 0, 2 and 5 (5 has no regions); deep/a/b/c lasts 10 ns on rank 0 and
# 2 ns on rank 2: imbalance max / mean - 1 over the ranks that ran it, 10 / 6 - 1 = 66.7%,
# slowest r0 (rank 5 did not run it: not counted as 0, which gave 60.0%); io (10 ns, rank 0
# only): 0.0%; agg is summary-only (2 calls, 30 ns).
screen 120x24 "3" "$fx/nested_names.h5"
shape 120 24 "regions nested_names"
check "regions nested: deep/a/b/c 2 calls, 12 ns, 66.7%, r0" hasx "^.deep/a/b/c +2 +12 ns .* 66\.7% +r0$"
check "regions nested: io 0.0% (rank 0 alone ran it)" hasx "^.io +1 +10 ns .* 0\.0% +r0$"
check "regions nested: agg marked, mean 15 ns, max unknown" hasx "^.agg \* +2 +30 ns +15 ns +- "
screen 120x24 "3b" "$fx/nested_names.h5"
check "regions nested b: deep/a/b/c rank 2 row" hasx "^   rank 2 +1 +2 ns "
check "regions nested b: rank 5 listed as not run" hasx "^   rank 5: not run *$"
check "regions nested b: a one-rank region has no slow mark" sh -c "! grep -qE '^   rank 0 \*.* slow' '$tmp/out'"

# ============================================================ shared reference profiles
if [ ! -f "$shared/data/real/solver.h5" ]; then
    skip "$shared/data not found: shared-profile screens skipped"
else
    real="$shared/data/real"
    ext="$shared/data/extended"
    want="$shared/data/expected"

    # --- solver.h5: main > timestep > solve > precond, rhs; assemble; io/checkpoint
    js="$want/solver.json"
    screen 100x24 "2" "$real/solver.h5"
    shape 100 24 "tree solver"
    for r in main timestep solve precond rhs assemble io/checkpoint; do
        c=$(calls_of "$js" "$r" 0)
        i=$(re "$(ns "$(exp "$js" "$r" 0 total_duration)")")
        x=$(re "$(ns "$(exp "$js" "$r" 0 total_exclusive_duration)")")
        m=$(re "$(ns "$(exp "$js" "$r" 0 max_duration)")")
        check "tree solver: $r = expected calls $c, incl, excl, max" \
            hasx "^.? +$c +$i +$x +[0-9.]+ [mun]?s +$m .* $(re "$r")\$"
    done
    check "tree solver: main at the top, 100%" hasx "100\.0% ▾ main$"
    check "tree solver: timestep only child of main" hasx "└─▾ timestep$"
    check "tree solver: solve under timestep" hasx "^[^│]*├─▾ solve$"
    check "tree solver: precond under solve" hasx "│ ├── precond$"
    check "tree solver: rhs last under solve" hasx "│ └── rhs$"
    check "tree solver: assemble under timestep" hasx "  ├── assemble$"
    check "tree solver: io/checkpoint last under timestep" hasx "  └── io/checkpoint$"
    check "tree solver: sorted by inclusive, solve before assemble" above "solve$" "assemble$"
    check "tree solver: header shows the sort" hasx "▼Incl"

    # expand / collapse (cursor: main, timestep, solve)
    screen 100x24 "2jjc" "$real/solver.h5"
    check "c collapses solve" hasx "^▶ .*├─▸ solve$"
    check "c hides precond and rhs" sh -c "! grep -qE 'precond|rhs' '$tmp/out'"
    check "c keeps assemble" has "assemble"
    screen 100x24 "2jjc<Enter>" "$real/solver.h5"
    check "Enter opens it again" has "│ └── rhs"
    screen 100x24 "2jj<Left>" "$real/solver.h5"
    check "Left collapses" hasx "^▶ .*▸ solve$"
    screen 100x24 "2jj<Left><Left>" "$real/solver.h5"
    check "Left on a closed node goes to the parent" hasx "^▶ .* timestep$"
    screen 100x24 "2C" "$real/solver.h5"
    check "C collapses all: one row" [ "$(grep -cE '(▸|▾|──) ' "$tmp/out")" = 1 ]
    check "C: main closed" hasx "^▶ .*▸ main$"
    screen 100x24 "2C<Right>" "$real/solver.h5"
    check "Right opens main: timestep shown closed" hasx "└─▸ timestep$"
    screen 100x24 "2C<Right><Right>" "$real/solver.h5"
    check "Right on an open node goes to its first child" hasx "^▶ .* timestep$"
    screen 100x24 "2CE" "$real/solver.h5"
    check "E opens all" has "│ └── rhs"
    screen 100x24 "2Cjjjje" "$real/solver.h5"
    check "e opens only the cursor node" hasx "^▶ .*▾ main$"
    check "e: timestep still closed" hasx "└─▸ timestep$"

    # sorting: < from Incl goes to Calls; children sorted within their parent
    screen 100x24 "2<" "$real/solver.h5"
    check "tree <: header ▼Calls" hasx "▼Calls"
    check "tree <: rhs (270 calls) before precond (60)" above "rhs$" "precond$"
    screen 100x24 "2<I" "$real/solver.h5"
    check "tree <I: header ▲Calls" hasx "▲Calls"
    check "tree <I: precond before rhs" above "precond$" "rhs$"
    screen 100x24 "2>" "$real/solver.h5"
    check "tree >: header ▼Excl" hasx "▼Excl"
    check "tree >: assemble (9.2 ms excl) before solve (3.5 ms)" above "assemble$" "solve$"

    # search and filter in the tree
    screen 100x24 "2C/rhs<Enter>" "$real/solver.h5"
    check "tree search opens the way to rhs" hasx "^▶ .*└── rhs$"
    screen 100x24 "2/rhs<Enter>f" "$real/solver.h5"
    check "tree filter: header" has "filter: rhs"
    check "tree filter: rhs and its ancestors" sh -c "grep -q 'rhs\$' '$tmp/out' && grep -q 'solve\$' '$tmp/out' && grep -q 'main\$' '$tmp/out'"
    check "tree filter: assemble, precond, io gone" sh -c "! grep -qE 'assemble|precond|checkpoint' '$tmp/out'"
    check "tree filter: rhs is now the last child" hasx "└── rhs$"
    screen 100x24 "2/rhs<Enter>ff" "$real/solver.h5"
    check "tree filter off again" has "assemble"

    # drill-down and selection
    screen 100x24 "2jjd" "$real/solver.h5"
    check "d opens view 4" sh -c "head -n 1 '$tmp/out' | grep -q '\[4 '"
    check "d: view 4 shows solve" has "solve"
    screen 100x24 "2jj3" "$real/solver.h5"
    check "regions follow the tree's selection" hasx "^▶solve "
    # a call selected in the timeline: the tree opens the way to its node
    screen 100x30 "1jjj<Enter>" "$real/solver.h5"
    picked=$(grep -E '^ [^ ]+  rank [0-9]+  start ' "$tmp/out" | head -n 1 | awk '{print $1}')
    check "timeline selected a call (details line)" [ -n "$picked" ]
    screen 100x30 "2C1jjj<Enter>2" "$real/solver.h5"
    check "tree follows the timeline's call ($picked), opening its path" \
        sh -c "grep -E '^▶' '$tmp/out' | grep -qE ' $(re "$picked")\$'"

    # --include / --exclude / --ranks narrow both views as they narrow the batch outputs
    screen 100x24 "2" "$real/solver.h5" --exclude timestep
    check "tree --exclude timestep: solve hangs on main" hasx "├─▾ solve$"
    check "tree --exclude timestep: no timestep" hasnt "timestep"
    screen 100x24 "3" "$real/solver.h5" --include "(main|rhs)\$"
    check "regions --include: 2 of 2 regions" has "2 of 2 regions"
    check "regions --include: rhs, not precond" sh -c "grep -q '^.rhs ' '$tmp/out' && ! grep -q precond '$tmp/out'"

    # --- regions of solver.h5: every column equals the expected statistics
    screen 160x30 "3" "$real/solver.h5"
    shape 160 30 "regions solver 160"
    for r in main timestep solve assemble precond rhs io/checkpoint; do
        pat="^.?$(re "$r") +$(calls_of "$js" "$r" 0)"
        for k in total_duration average_duration min_duration max_duration p50_duration \
            p95_duration p99_duration std_duration total_exclusive_duration; do
            pat="$pat +$(re "$(ns "$(exp "$js" "$r" 0 $k)")")"
        done
        check "regions solver: $r row = expected" hasx "$pat\$"
    done
    check "regions solver: sorted by total (main first)" above "^.?main " "^.?timestep "
    check "regions solver: io/checkpoint last by total" above "^.?rhs " "^.?io/checkpoint "
    check "regions solver: no imbalance on one rank" hasnt "Imbal"
    check "regions solver: 7 of 7" has "7 of 7 regions"
    screen 80x24 "3" "$real/solver.h5"
    shape 80 24 "regions solver 80x24"
    check "regions 80x24 keeps Calls, Total, Max, P95" hasx "Calls +▼Total .*Max .*P95"
    check "regions 80x24 drops Min" hasnt " Min "
    # sorting
    screen 160x30 "3I" "$real/solver.h5"
    check "regions I: ▲Total" has "▲Total"
    check "regions I: io/checkpoint first" above "^.?io/checkpoint " "^.?rhs "
    screen 160x30 "3<" "$real/solver.h5"
    check "regions <: ▼Calls, rhs (270) first" sh -c "grep -q '▼Calls' '$tmp/out' && sed -n 4p '$tmp/out' | grep -q '^.rhs '"
    screen 160x30 "3>" "$real/solver.h5"
    check "regions >: ▼Mean" has "▼Mean"
    order=$(for r in main timestep solve assemble precond rhs io/checkpoint; do
        echo "$(exp "$js" "$r" 0 average_duration) $r"
    done | sort -gr | awk '{print $2}' | tr '\n' ' ')
    got=$(sed -n '4,10p' "$tmp/out" | sed 's/^.//' | awk '{print $1}' | tr '\n' ' ')
    check "regions >: rows in expected mean order ($order)" [ "$got" = "$order" ]
    screen 160x30 "3<<" "$real/solver.h5"
    check "regions <<: Region▲ (names A-Z)" sh -c "grep -q 'Region▲' '$tmp/out' && sed -n 4p '$tmp/out' | grep -q '^.assemble '"
    # search, filter, Enter
    screen 100x24 "3/e<Enter>" "$real/solver.h5"
    check "regions search: first match after the cursor (timestep)" hasx "^▶timestep "
    screen 100x24 "3/e<Enter>n" "$real/solver.h5"
    check "regions n: next match (solve)" hasx "^▶solve "
    screen 100x24 "3/e<Enter>nN" "$real/solver.h5"
    check "regions N: previous match (timestep)" hasx "^▶timestep "
    screen 100x24 "3/^(rhs|solve)\$<Enter>f" "$real/solver.h5"
    check "regions filter: header" hasf 'filter: ^(rhs|solve)$'
    check "regions filter: 2 of 7" has "2 of 7 regions"
    check "regions filter: only solve and rhs" [ "$(grep -cE '^.(rhs|solve) ' "$tmp/out")" = 2 ]
    check "regions filter: main gone" sh -c "! grep -qE '^.main ' '$tmp/out'"
    screen 100x24 "3/zzz<Enter>f" "$real/solver.h5"
    check "regions filter without match says so" has "No region matches the filter"
    screen 100x24 "3jj<Enter>" "$real/solver.h5"
    check "Enter on a region opens view 4" sh -c "head -n 1 '$tmp/out' | grep -q '\[4 '"
    check "Enter: view 4 shows solve" has "solve"

    # --- solver_mpi4.h5: merged over 4 ranks, imbalance and slowest rank
    js="$want/solver_mpi4.json"
    screen 100x24 "3" "$real/solver_mpi4.h5"
    shape 100 24 "regions solver_mpi4"
    check "regions mpi4: Imbal and Slow columns" hasx "Imbal +Slow$"
    for r in main timestep solve assemble precond rhs io/checkpoint; do
        t0=$(exp "$js" "$r" 0 total_duration)
        t1=$(exp "$js" "$r" 1 total_duration)
        t2=$(exp "$js" "$r" 2 total_duration)
        t3=$(exp "$js" "$r" 3 total_duration)
        im=$(awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
            m = a; s = 0; if (b > m) m = b; if (c > m) m = c; if (d > m) m = d
            printf "%.1f%%", 100 * (m / ((a + b + c + d) / 4) - 1) }')
        slow=$(printf '%s 0\n%s 1\n%s 2\n%s 3\n' "$t0" "$t1" "$t2" "$t3" | sort -gr -k1,1 |
            head -n 1 | awk '{print $2}')
        calls=$(awk "BEGIN { print $(calls_of "$js" "$r" 0) + $(calls_of "$js" "$r" 1) + \
            $(calls_of "$js" "$r" 2) + $(calls_of "$js" "$r" 3) }")
        tot=$(re "$(ns "$(sum_exp "$js" "$r" total_duration)")")
        check "regions mpi4: $r calls $calls, total, imbalance $im, slowest r$slow" \
            hasx "^.?$(re "$r") +$calls +$tot .* $(re "$im") +r$slow\$"
    done
    screen 100x24 "3" "$real/solver_mpi4.h5" --ranks 2
    t=$(re "$(ns "$(exp "$js" main 2 total_duration)")")
    check "regions --ranks 2: main is rank 2's" hasx "^.main +1 +$t "
    check "regions --ranks 2: one rank, no imbalance column" hasnt "Imbal"
    screen 100x24 "2rj<Enter>" "$real/solver_mpi4.h5" --ranks 2,3
    check "tree --ranks 2,3: first rank scope is rank 2" has "scope: rank 2 "
    screen 100x40 "3b" "$real/solver_mpi4.h5"
    shape 100 40 "regions mpi4 breakdown"
    check "b: header says per rank on" has "per rank: on"
    for k in 0 1 2 3; do
        t=$(re "$(ns "$(exp "$js" main $k total_duration)")")
        check "b: main rank $k row with its own total" hasx "^   rank $k +1 +$t "
    done
    check "b: rank rows follow their region" above "^.?main " "^   rank 0 "
    screen 80x24 "2" "$real/solver_mpi4.h5"
    shape 80 24 "tree mpi4"
    c=$(awk "BEGIN { print $(calls_of "$js" solve 0) + $(calls_of "$js" solve 1) + \
        $(calls_of "$js" solve 2) + $(calls_of "$js" solve 3) }")
    check "tree mpi4: solve merges the 4 ranks ($c calls)" hasx "^ +$c +.*├─▾ solve$"
    screen 80x24 "2rjjj<Enter>" "$real/solver_mpi4.h5"
    check "tree mpi4 rrr: scope rank 2" has "scope: rank 2 "
    c=$(calls_of "$js" solve 2)
    i=$(re "$(ns "$(exp "$js" solve 2 total_duration)")")
    check "tree mpi4 rank 2: solve = rank 2's calls and total" hasx "^ +$c +$i .*solve$"

    # --- gpu_train.h5: summary-only allreduce, GPU totals, thread scopes
    js="$want/gpu_train.json"
    screen 160x50 "3" "$ext/gpu_train.h5"
    shape 160 50 "regions gpu_train"
    tot=$(re "$(ns "$(sum_exp "$js" allreduce total_duration)")")
    check "regions gpu: allreduce marked, 100 calls, summed total" \
        hasx "^.?allreduce \* +100 +$tot "
    check "regions gpu: footnote" has "* no event data"
    check "regions gpu: allreduce percentiles unknown" hasx "^.?allreduce \* .* - +- +- "
    g=$(re "$(ns "$(sum_exp "$js" forward gpu_total_duration)")")
    check "regions gpu: forward GPU total over ranks" hasx "^.?forward .* $g +[0-9.]+%"
    screen 80x24 "3" "$ext/gpu_train.h5"
    shape 80 24 "regions gpu_train 80x24"
    check "regions gpu 80x24: allreduce still marked" has "allreduce \*"
    screen 80x24 "2" "$ext/gpu_train.h5"
    shape 80 24 "tree gpu_train"
    check "tree gpu: GPU column" has "GPU"
    check "tree gpu: epoch > train_step > backward" sh -c "grep -q '▾ epoch\$' '$tmp/out' && grep -q '└─▾ train_step\$' '$tmp/out' && grep -q '├── backward\$' '$tmp/out'"
    check "tree gpu: no GPU timing shown as -" hasx " - ▾ epoch$"
    screen 80x24 "2rjj<Enter>" "$ext/gpu_train.h5"
    check "tree gpu rr: rank 0 MainThread" has "scope: rank 0, thread MainThread"
    check "tree gpu rr: loader thread's load_batch gone" hasnt "load_batch"
    c=$(calls_of "$js" forward 0)
    check "tree gpu rr: forward has rank 0's $c calls" hasx "^ +$c .*├── forward$"

    # --- recursive.h5: 276 calls of fib nested in itself
    js="$want/recursive.json"
    # folded, a row counts the outermost calls: those are the fib calls directly under work
    # (the unfolded tree's work > fib row), with the same inclusive time and maximum
    screen 100x24 "2E" "$real/recursive.h5"
    outer=$(grep -E '(├|└)─[▾▸] __main__\.fib$' "$tmp/out" | head -n 1 | awk '{ print $1, $2 " " $3, $8 " " $9 }')
    screen 100x24 "2R" "$real/recursive.h5"
    x=$(re "$(ns "$(exp "$js" __main__.fib 0 total_exclusive_duration)")")
    oc=$(echo "$outer" | cut -d' ' -f1)
    oi=$(re "$(echo "$outer" | cut -d' ' -f2-3)")
    om=$(re "$(echo "$outer" | cut -d' ' -f4-5)")
    check "tree recursive R: one fib row, the $oc outermost calls, their Incl and Max, exclusive = region total" \
        hasx "^ +$oc +$oi +$x +[0-9.]+ [mun]?s +$om .*── __main__\.fib$"
    check "tree recursive R: fewer than every call" [ "$oc" -lt "$(calls_of "$js" __main__.fib 0)" ]
    check "tree recursive R: header says outermost calls" has "folded, outermost calls"
    screen 100x24 "2" "$real/recursive.h5"
    check "tree recursive: fib nested in fib" hasx "└─▸ __main__\.fib$"

    # --- recursion.h5: deep paths stay inside the column
    screen 80x24 "2E" "$ext/recursion.h5"
    shape 80 24 "tree recursion E"
    check "tree recursion: cut levels shown as …N" hasx "…[0-9]+ +└─"
    screen 160x50 "2E" "$ext/recursion.h5"
    shape 160 50 "tree recursion E 160x50"

    # --- every file, both views, a few sizes: shape only
    for f in "$real/solver.h5" "$real/solver_mpi4.h5" "$real/recursive.h5" "$ext/async_server.h5" \
        "$ext/gpu_train.h5" "$ext/recursion.h5"; do
        for k in 2 2E 2R 2rE 3 3b 3I; do
            screen 40x10 "$k" "$f"
            shape 40 10 "$(basename "$f") '$k' 40x10"
            screen 160x50 "$k<PgDn><End><Up>" "$f"
            shape 160 50 "$(basename "$f") '$k' moved 160x50"
        done
    done
fi

# a thread scope with a long name: the keys' hints go, the sort stays
demo="${SV_TOP_SRCDIR:-..}/data/demo.h5"
if [ -f "$demo" ]; then
    screen 80x24 "2rjjj<Enter>" "$demo"
    check "tree demo rrr: a long thread scope keeps the sort" \
        hasx "^ scope: rank 0, thread ThreadPoolExecutor-0_0  recursion: shown  sort: Incl desc$"
fi

# ============================================================ ASCII and hostile strings
screen 80x24 "2" "$small" --ascii
shape 80 24 "tree --ascii"
check "tree --ascii: only ASCII" ascii_only
check "tree --ascii: guides" has "\`-- io/write"
screen 80x24 "3" "$small" --ascii
check "regions --ascii: only ASCII" ascii_only
check "regions --ascii: sort mark v" has "vTotal"
for k in 2 3; do
    screen 80x24 "$k" "$hostile"
    shape 80 24 "hostile view $k"
    check "hostile view $k: name escaped" has 'evil\\x1b\[31mred\\x07'
done

finish
