#!/bin/sh
# Headless screens of the aggregate views: rank imbalance (9), duration over time and
# callers/callees, at 80x24 and wider, in colour, mono and ASCII.  The figures on agg4.h5 are
# the hand-computed ones of tests/gen/FIXTURES.md; on the shared profiles they come from awk
# over the raw calls (--events REGION --csv), never from the views.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/../lib.sh"
scr="$tmp/s"
a="$fx/agg4.h5"
need_fixture "$a"

# ---------------------------------------------------------------- imbalance (9)
for mode in "" --mono --ascii; do
    screen 80x24 "9" "$a" $mode
    check "imbalance $mode: exits 0, 24 lines of 80" sh -c "[ $rc = 0 ] && [ \$(wc -l <'$scr') = 24 ]"
    check "imbalance $mode: fits 80 columns" [ "$(widest)" -le 80 ]
    # io: totals 300, 300, 1000 on ranks 0..2, rank 3 not run: 1000 / 533.3 - 1 = 87.5%
    check "imbalance $mode: io first, 87.5%, excess 466.7 ns, 3 of 4 ran, r2" \
        hasx "^.io +87\.5% +466\.7 ns +1\.000 us +533\.3 ns +3/4 +r2$"
    # work: 2000, 2400, 1600, 2000: 2400 / 2000 - 1 = 20.0%, excess 400 ns
    check "imbalance $mode: work second, 20.0%, 400 ns, r1" \
        hasx "^.work +20\.0% +400 ns +2\.400 us +2\.000 us +4/4 +r1$"
    check "imbalance $mode: the straggler in time and percent" \
        has "straggler rank 2: finishes 466.7 ns (+87.5%) after the mean of 3 ranks"
    check "imbalance $mode: rank 3 listed as not run" hasx "^ rank 3 +not run$"
    check "imbalance $mode: rank 2's bar and total" hasx "^ rank 2 .* 1\.000 us$"
done
check "imbalance --ascii: ASCII only" ascii_only
screen 80x24 "9j" "$a"
check "imbalance j: work's straggler rank 1" has "straggler rank 1: finishes 400 ns (+20.0%) after the mean of 4 ranks"
screen 80x24 "9jjjj" "$a"
check "imbalance on a one-rank region: says so" has "one rank ran it (rank 0): no imbalance"
screen 80x24 "9<Enter>" "$a"
check "imbalance Enter: the straggler's calls (rank 2 of io)" sh -c "head -n 2 '$scr' | grep -q 'Calls of io, rank 2 only: 1 call'"
check "imbalance Enter: Esc leads back" rowhas 1 "Esc: imbalance"
screen 80x24 "9>" "$a"
check "imbalance >: sorted by the next column" rowhas 2 "sort: Max desc"
check "imbalance >: main (20 us) first" hasx "^.main +0\.0% "
screen 80x24 "9<<" "$a"
check "imbalance <<: by name, io then kernel" sh -c "sed -n '4,5p' '$scr' | awk '{ print \$1 }' | tr -d '▶' | tr '\n' ' ' | grep -qx 'io kernel '"
screen 80x24 "9" "$a" --ranks 2,3
check "imbalance --ranks 2,3: io ran on one of two ranks" hasx "^.io +0\.0% +0 ns +1\.000 us +1\.000 us +1/2 +r2$"
screen 80x24 "9" "$fx/small.h5"
check "imbalance on one rank: the header in the singular" rowhas 2 "^ 4 regions over 1 rank  sort"
screen 80x24 "9G" "$fx/legacy_empty_region.h5"
check "imbalance: a region without calls ran on no rank, unknown" hasx "^.empty +- +- +- +- +0/1 +-$"
screen 80x24 "9j" "$a"
sed 1d "$scr" >"$tmp/inmem"
screen 80x24 "9j" "$a" --out-of-core
check "imbalance out of core: the same table and bars as in memory" sh -c "sed 1d '$scr' | cmp -s - '$tmp/inmem'"
SCOPEVIEW_TEST_STATS=hold
export SCOPEVIEW_TEST_STATS
screen 80x24 "9" "$a" --out-of-core
unset SCOPEVIEW_TEST_STATS
check "imbalance out of core before the statistics: computing, no numbers" sh -c "grep -q 'computing' '$scr' && ! grep -q '87.5%' '$scr'"
screen 120x40 "9" "$a"
check "imbalance 120x40: fits" [ "$(widest)" -le 120 ]

# the regions view uses the same definition and lists rank 3
screen 100x30 "3b" "$a"
check "regions b: io 87.5%, slowest r2" hasx "^.io +3 +1\.600 us .* 87\.5% +r2$"
check "regions b: rank 3 of io: not run" hasx "^   rank 3: not run *$"
screen 100x30 "3bjjjjjjjjjjjjjj<Enter>" "$a"
check "regions b: Enter on a not-run row says so" has "rank 3 did not run io"

# ---------------------------------------------------------------- duration over time (D)
# step on rank 0: 150 ns, then 51..69 ns (FIXTURES.md): p50 60.5, p95 69 + 0.05 * 81 = 73.05,
# p99 69 + 0.81 * 81 = 134.6; warm-up 150 / 60 = 2.50x; drift of the line through 51..69 from
# 51.9 to 68.1 ns: +31.2%
for mode in "" --mono --ascii; do
    screen 80x24 "3/step<Enter>D" "$a" $mode
    check "series $mode: 24 lines within 80 columns" sh -c "[ \$(wc -l <'$scr') = 24 ] && [ $(widest) -le 80 ]"
    check "series $mode: step, 20 calls, p50, p95" has "step  all ranks, 20 calls  p50 60.50 ns  p95 73.05 ns  y: linear"
    check "series $mode: warm-up 2.50x" has "warm-up: first call 150 ns, 2.50x the median of the rest (60 ns)"
    check "series $mode: drift +31.2%, one outlier above p99 134.6 ns" \
        has "drift: +31.2% from first to last tenth (fitted)  outliers: 1 above p99 134.6 ns"
    check "series $mode: one mark per call, the legend says so" has "one \(dot\|mark\) per call"
    check "series $mode: the first call's column" has "column 1: 1 call, 150 ns .. 150 ns"
done
check "series --ascii: ASCII only" ascii_only
screen 80x24 "3/step<Enter>D<Enter>" "$a"
check "series Enter: the timeline" rowhas 1 "\[1 timeline\]"
check "series Enter: the column's slowest call selected" has "Slowest call of column 1: step on rank 0, call index 0, 150 ns"
screen 80x24 "3/step<Enter>D<End><Enter>" "$a"
check "series End Enter: the last call (69 ns)" has "Slowest call of column 69: step on rank 0, call index 19, 69 ns"
screen 80x24 "3/step<Enter>Dxy" "$a"
check "series x: call index axis" has "x: call index (in start order)"
check "series y: log scale" has "y: log"
screen 80x24 "3/work<Enter>Dr" "$a"
check "series r: one rank" has "work  rank 0, 2 calls"
screen 80x24 "3/work<Enter>Drr" "$a"
check "series rr: the next rank" has "work  rank 1, 2 calls"
# every rank shown: each rank in its colour / mark.  work (FIXTURES.md) lasts 1200 on rank 1,
# 1000 on ranks 0 and 3 (one cell: the lower rank's mark), 800 on rank 2: in the first call's
# column rank 1's mark is on top, then rank 0's, then rank 2's
marks_of_column() { # the rank marks in the plot's first column, top to bottom
    sed -n '4,18p' "$scr" | LC_ALL=$UTF8 sed -n 's/^[^|│]*[|│]\(.\).*/\1/p' |
        LC_ALL=$UTF8 grep -v '^[-. ┈─]*$' | tr -d '\n'
}
screen 80x24 "3/work<Enter>D" "$a" --ascii
check "series, every rank, ASCII: a legend of the ranks' marks" has " ranks: 0 \* 1 o 2 + 3 x  a shared cell: the rank with the most marks$"
check "series, every rank, ASCII: 1200 (rank 1) above 1000 (rank 0) above 800 (rank 2)" \
    [ "$(marks_of_column)" = "o*+" ]
check "series, every rank, ASCII: ASCII only" ascii_only
screen 80x24 "3/work<Enter>D" "$a" --mono
check "series, every rank, mono: a glyph a rank" has " ranks: 0 ● 1 ○ 2 ◆ 3 ◇  a shared"
check "series, every rank, mono: ○ above ● above ◆" [ "$(marks_of_column)" = "○●◆" ]
screen 80x24 "3/work<Enter>D" "$a"
check "series, every rank, colour: braille dots, the legend in the ranks' colours" \
    has " ranks: 0 ⣿ 1 ⣿ 2 ⣿ 3 ⣿  a shared"
check "series, every rank: 24 lines" [ "$(lines)" = 24 ]
screen 80x24 "3/work<Enter>Dr" "$a" --ascii
check "series, one rank: no ranks' legend" hasnt " ranks:"
screen 80x24 "3/step<Enter>D" "$a" --ascii
check "series, a region of one rank: no ranks' legend" hasnt " ranks:"
screen 80x24 "D" "$a"
check "series without a selection says what to do" has "No region selected"
screen 80x24 "D" "$a" --out-of-core
check "series out of core without a selection says what to do" has "No region selected"
screen 80x24 "3/solve<Enter>D" "$a" --out-of-core
check "series out of core: drawn from the bins (screens_ooc_series.sh checks the figures)" \
    hasf "min, mean, max per"

# ---------------------------------------------------------------- callers and callees (B)
# solve on rank 0 (FIXTURES.md): called from main > work (300 ns) and main > io (100 ns), the
# inner solve counted in its outer call; calls kernel 3 times, 170 ns; self 120 + 50 + 60 ns
for mode in "" --mono --ascii; do
    screen 80x24 "3/solve<Enter>B" "$a" $mode
    check "callers $mode: 24 lines within 80 columns" sh -c "[ \$(wc -l <'$scr') = 24 ] && [ $(widest) -le 80 ]"
    check "callers $mode: 2 outermost calls, 400 ns, the recursive one said" \
        has "solve  all ranks: 2 calls, 400 ns (1 recursive call inside them)"
    check "callers $mode: main > work 1 call 300 ns 75.0%" hasx "^.? main > work +1 +300 ns +75\.0%$"
    check "callers $mode: main > io 1 call 100 ns 25.0%" hasx "^.? main > io +1 +100 ns +25\.0%$"
    check "callers $mode: self 230 ns 57.5%" hasx "^.? \(self: its own exclusive time\) +230 ns +57\.5% +230 ns +57\.5%$"
    check "callers $mode: kernel 3 calls 170 ns 42.5%" hasx "^.? kernel +3 +170 ns +42\.5% +170 ns +42\.5%$"
done
check "callers --ascii: ASCII only" ascii_only
screen 80x24 "3/solve<Enter>B<Enter>" "$a"
check "callers Enter on a path: centred on its direct caller (work, 8 calls)" has "work  all ranks: 8 calls, 8.000 us"
screen 80x24 "3/solve<Enter>B<End><Enter>" "$a"
check "callers Enter on a callee: centred on kernel, three paths" has "kernel  all ranks: 3 calls, 170 ns"
check "callers kernel: the path through the inner solve" hasx "^.? main > work > solve > solve +1 +30 ns +17\.6%$"
screen 80x24 "3/work<Enter>Br" "$a"
check "callers r: rank 0's work" has "work  rank 0: 2 calls, 2.000 us"
screen 80x24 "B" "$a"
check "callers without a selection says what to do" has "No region selected"
screen 80x24 "B" "$a" --out-of-core
check "callers out of core without a selection says what to do" has "No region selected"
for k in "3/solve<Enter>B" "3/solve<Enter>B<End><Enter>" "3/work<Enter>Br"; do
    screen 80x24 "$k" "$a"
    cp "$scr" "$tmp/mem"
    screen 80x24 "$k" "$a" --out-of-core
    check "callers out of core '$k': the in-memory screen" cmp -s "$scr" "$tmp/mem"
done

if need_shared "shared profiles"; then
    f="$shared_root/data/real/solver_mpi4.h5"
    # Each region's imbalance from the raw calls: max / mean - 1 of the per-rank totals.
    screen 100x40 "9" "$f"
    for r in main timestep solve assemble precond rhs io/checkpoint; do
        im=$("$sv" --events "$r" --csv "$f" | awk -F, 'NR > 1 { t[$1] += $5 }
            END { s = 0; k = 0; m = 0; for (x in t) { s += t[x]; k++; if (t[x] > m) m = t[x] }
                  printf "%.1f%%", 100 * (m / (s / k) - 1) }')
        check "mpi4 imbalance view: $r $im" hasx "^.$r +$(printf '%s' "$im" | sed 's/\./\\./') "
    done
    # solve over the four ranks from the raw calls: count, warm-up ratio, calls above the p99
    set -- $("$sv" --events solve --csv "$f" | tail -n +2 | sort -t, -k3,3g -k1,1n -k2,2n | awk -F, '
        { d[NR] = $5 }
        END { n = NR; for (i = 2; i <= n; i++) r[i - 1] = d[i]; m = n - 1
              for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
              med = m % 2 ? r[(m + 1) / 2] : (r[m / 2] + r[m / 2 + 1]) / 2
              for (i = 1; i <= n; i++) a[i] = d[i]
              for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
              pos = 0.99 * (n - 1); lo = int(pos); p99 = a[lo + 1] + (pos - lo) * (a[lo + 2] - a[lo + 1])
              o = 0; for (i = 1; i <= n; i++) if (d[i] > p99) o++
              printf "%d %.2f %d\n", n, d[1] / med, o }')
    screen 80x24 "3/solve<Enter>D" "$f"
    check "mpi4 series: solve, $1 calls over every rank" has "solve  all ranks, $1 calls"
    check "mpi4 series: warm-up $2x" has "$2x the median of the rest"
    check "mpi4 series: $3 outliers above the p99" has "outliers: $3 above p99"
    check "mpi4 series: binned at 80 columns, the legend says so" has "min, median and max of up to"
    # solver.h5's solve against the independently computed statistics (expected/solver.json):
    # its calls and total, its exclusive total as self, rhs and precond (called only by solve)
    js="$shared_root/data/expected/solver.json"
    xv() { awk -v want="$1" -v key="$2" '/^  "name": / { n = $0; sub(/^  "name": "/, "", n); sub(/",$/, "", n) }
        $1 == "\"" key "\":" && n == want { v = $2; sub(/,$/, "", v); print v; exit }' "$js"; }
    ns() { awk -v s="$1" 'BEGIN { v = s * 1e9; a = v < 0 ? -v : v; u = 1; split("ns us ms s", unit, " ")
        while (u < 4 && a >= 999.95) { v /= 1000; a /= 1000; u++ }
        if (u == 1 && v == int(v)) printf "%.0f %s", v, unit[u]; else if (a < 9.9995) printf "%.3f %s", v, unit[u]
        else if (a < 99.995) printf "%.2f %s", v, unit[u]; else printf "%.1f %s", v, unit[u] }'; }
    screen 100x24 "3/^solve<Enter>B" "$shared_root/data/real/solver.h5"
    check "solver callers: solve's calls and total" has "solve  all ranks: $(xv solve num_calls) calls, $(ns "$(xv solve total_duration)")"
    check "solver callers: self is solve's exclusive total" hasx "self: its own exclusive time\) +$(ns "$(xv solve total_exclusive_duration)") "
    for r in rhs precond; do
        check "solver callers: $r $(xv $r num_calls) calls, $(ns "$(xv $r total_duration)")" \
            hasx "^.? $r +$(xv $r num_calls) +$(ns "$(xv $r total_duration)") "
    done
    g="$shared_root/data/extended/gpu_train.h5"
    screen 80x24 "3/allreduce<Enter>D" "$g"
    check "series of a summary-only region: says so" has "no recorded calls (summary only)"
fi
finish
