#!/bin/sh
# --imbalance and --timeseries REGION: every figure checked against awk over the raw calls
# (--events REGION --csv: rank, call_index, start, end, duration), never against the
# program's own tables.  Imbalance is max / mean - 1 of the per-rank totals over the ranks
# that ran the region.  Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/lib.sh"
need_fixture "$fx/agg4.h5"

# imb_check FILE [OPTIONS]: each region of --imbalance --csv against the raw calls.
imb_check() {
    f=$1
    shift
    run --imbalance --csv "$@" "$f"
    check "$f: --imbalance --csv exits 0" [ "$rc" = 0 ]
    cp "$scr" "$tmp/imb.csv"
    check "$f: header" sh -c "head -n 1 '$tmp/imb.csv' | grep -qx 'region,imbalance,excess,max,mean,ranks_ran,ranks,straggler,not_run'"
    nranks=$("$sv" --json "$@" "$f" | grep -o '"rank": [0-9]*' | sort -u | wc -l)
    tail -n +2 "$tmp/imb.csv" | cut -d, -f1 | while read -r name; do
        "$sv" --events "$name" --csv "$@" "$f" 2>/dev/null >"$tmp/ev.csv"
        [ "$(wc -l <"$tmp/ev.csv")" -gt 1 ] || continue # summary only: no raw calls
        want=$(awk -F, 'NR > 1 { t[$1] += $5 }
            END { s = 0; k = 0; m = -1
                  for (r in t) { s += t[r]; k++; if (t[r] > m || (t[r] == m && r + 0 < mr)) { m = t[r]; mr = r + 0 } }
                  printf "%.17g %.17g %d %d", m / (s / k) - 1, m - s / k, k, mr }' "$tmp/ev.csv")
        got=$(awk -F, -v n="$name" '$1 == n { printf "%.17g %.17g %d %d", $2, $3, $6, $8 }' "$tmp/imb.csv")
        echo "$name|$want|$got"
    done >"$tmp/pairs"
    while IFS='|' read -r name want got; do
        check "$f: $name imbalance, excess, ranks ran, straggler: $want" \
            awk -v a="$want" -v b="$got" 'BEGIN { split(a, x, " "); split(b, y, " ")
                for (i = 1; i <= 4; i++) { d = x[i] - y[i]; if (d < 0) d = -d
                    if (d > 1e-9 * (x[i] < 0 ? -x[i] : x[i]) + 1e-15) exit 1 }
                exit 0 }'
    done <"$tmp/pairs"
    check "$f: every region checked" [ "$(wc -l <"$tmp/pairs")" -ge 1 ]
    check "$f: sorted by excess, largest first" sh -c "tail -n +2 '$tmp/imb.csv' | awk -F, '\$3 != \"\" { if (NR > 1 && \$3 + 0 > p + 1e-15) exit 1; p = \$3 + 0 }'"
}

imb_check "$fx/agg4.h5"
# the fixture's own hand-computed answers (FIXTURES.md): io over ranks 0..2, rank 3 not run
check "agg4: io 87.5%, rank 3 not run" sh -c "grep -q '^io,0.874999999999999[0-9]*,4.66666666666666[0-9]*e-07,1e-06,5.33333333333333[0-9]*e-07,3,4,2,3$' '$tmp/imb.csv'"
run --imbalance --json "$fx/agg4.h5"
check "agg4 --json: io's per-rank rows name rank 3 as not run" has '"rank": 3, "ran": false, "total": null'
check "agg4 --json: the definition is stated" has '"definition": "max / mean - 1'
run --imbalance --csv --ranks 2,3 "$fx/agg4.h5"
check "agg4 --ranks 2,3: io ran on one rank of two, 0" has "^io,0,0,1e-06,1e-06,1,2,2,3$"
imb_check "$fx/agg4.h5" -x '^io$'

# --timeseries: the series equals the raw calls in start order; the head's figures
ts_check() { # FILE REGION [RANK]
    f=$1 name=$2 rk=${3:-}
    if [ -n "$rk" ]; then
        run --timeseries "$name" --csv --rank "$rk" "$f"
    else
        run --timeseries "$name" --csv "$f"
    fi
    check "$f $name ${rk:+rank $rk}: --timeseries --csv exits 0" [ "$rc" = 0 ]
    tail -n +2 "$scr" >"$tmp/got.csv"
    "$sv" --events "$name" --csv "$f" 2>/dev/null | tail -n +2 |
        awk -F, -v rk="$rk" 'rk == "" || $1 == rk { print $1 "," $2 "," $3 "," $5 }' |
        sort -t, -k3,3g -k1,1n -k2,2n >"$tmp/want.csv"
    check "$f $name ${rk:+rank $rk}: one row per call, start order" cmp -s "$tmp/got.csv" "$tmp/want.csv"
    if [ -n "$rk" ]; then
        run --timeseries "$name" --json --rank "$rk" "$f"
    else
        run --timeseries "$name" --json "$f"
    fi
    cp "$scr" "$tmp/ts.json"
    # warm-up: the first call against the median of the rest; outliers above the p99
    set -- $(awk -F, '{ d[NR] = $4 } END {
        n = NR; for (i = 2; i <= n; i++) r[i - 1] = d[i]
        m = n - 1; for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
        med = m % 2 ? r[(m + 1) / 2] : (r[m / 2] + r[m / 2 + 1]) / 2
        for (i = 1; i <= n; i++) a[i] = d[i]
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        pos = 0.99 * (n - 1); lo = int(pos); p99 = a[lo + 1] + (pos - lo) * ((lo + 2 <= n ? a[lo + 2] : a[lo + 1]) - a[lo + 1])
        out = 0; for (i = 1; i <= n; i++) if (d[i] > p99 * (1 + 1e-12)) out++
        printf "%.6g %d %d\n", d[1] / med, out, n }' "$tmp/want.csv")
    check "$f $name: warm-up ratio $1" sh -c "grep -q '\"warmup_ratio\": ' '$tmp/ts.json' && [ \"\$(sed -n 's/.*\"warmup_ratio\": \\([^,]*\\),.*/\\1/p' '$tmp/ts.json' | awk '{ printf \"%.6g\", \$1 }')\" = '$1' ]"
    check "$f $name: $2 calls above the p99" has "\"outliers_above_p99\": $2,"
    check "$f $name: $3 calls" has "\"calls\": $3,"
}
ts_check "$fx/agg4.h5" step
check "agg4 step: warm-up 2.5" has '"warmup_ratio": 2.5,'
# drift of the calls after the first: 51..69 ns at even spacing, a line from 51.9 to 68.1
check "agg4 step: drift +31.2% (51.9 to 68.1 ns)" sh -c "grep -q '\"drift\": 0.31213872832369' '$tmp/ts.json'"
ts_check "$fx/agg4.h5" work 1
check "agg4 work --rank 1: two calls of 1.2 us" has '"max": 1.2e-06,'

run --timeseries io --rank 3 --json "$fx/agg4.h5"
check "timeseries: no region on that rank, one line, exit 1" sh -c "[ $rc = 1 ] && [ \$(wc -l <'$tmp/err') = 1 ] && grep -q 'agg4.h5: no region io on rank 3' '$tmp/err'"
run --timeseries step "$fx/agg4.h5"
check "timeseries without a format: a usage error" [ "$rc" = 2 ]
run --imbalance --summary "$fx/agg4.h5"
check "imbalance with --summary: a usage error" [ "$rc" = 2 ]
run --imbalance --csv --rank 1 "$fx/agg4.h5"
check "imbalance with --rank: a usage error naming --ranks" sh -c "[ $rc = 2 ] && grep -q 'use --ranks' '$tmp/err'"
run --timeseries "$(printf 'x\033[31m')" --json "$fx/agg4.h5"
check "timeseries: an escape in the name is not printed raw" clean "$tmp/err"

if need_shared "shared profiles"; then
    for f in real/solver_mpi4.h5 extended/gpu_train.h5 real/solver.h5 upstream/sp3-basic.h5; do
        [ -f "$shared_root/data/$f" ] && imb_check "$shared_root/data/$f"
    done
    imb_check "$shared_root/data/real/solver_mpi4.h5" --ranks 1,3
    ts_check "$shared_root/data/real/solver_mpi4.h5" solve
    ts_check "$shared_root/data/real/solver_mpi4.h5" solve 2
fi
finish
