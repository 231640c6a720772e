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
screen 80x24 "9" "$a" --ranks 2,3
check "imbalance --ranks 2,3: io ran on one of two ranks" hasx "^.io +0\.0% +0 ns +1\.000 us +1\.000 us +1/2 +r2$"
screen 120x40 "9" "$a"
check "imbalance 120x40: fits" [ "$(widest)" -le 120 ]

# the regions view uses the same definition and lists rank 3
screen 100x30 "3b" "$a"
check "regions b: io 87.5%, slowest r2" hasx "^.io +3 +1\.600 us .* 87\.5% +r2$"
check "regions b: rank 3 of io: not run" hasx "^   rank 3: not run *$"
screen 100x30 "3bjjjjjjjjjjjjjj<Enter>" "$a"
check "regions b: Enter on a not-run row says so" has "rank 3 did not run io"

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
fi
finish
