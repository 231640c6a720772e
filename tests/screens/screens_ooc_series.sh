#!/bin/sh
# The series view (D) out of core (src/ooc/ooc_bins.c, src/view/series_ooc.c): the loading
# child's sweep bins every call by start time; the view draws min, mean and max per column
# from the bins and never a median.  Every figure on the 80x24 screens is computed here with
# awk over the raw calls (--events of the same file, loaded in memory): the grid (1024 bins of
# integer ns over the profile's span: first start to last end), a column's calls, min, max
# and mean, the longest call (the y axis' top), the warm-up (the first call against the mean
# of the others) and the drift (the mean of the calls in the last tenth of the region's bins
# against the first tenth's: floor(bins / 10) bins each).
. "${0%/*}/../lib.sh"

# fmt NS: a time as the screens write it (4 significant digits, whole ns below 1 us).
fmt_awk='
function fmt(v,   a, u, p, units) {
    split("ns us ms s", units, " ")
    a = v < 0 ? -v : v; u = 1
    while (u < 4 && a >= 999.95) { v /= 1000; a /= 1000; u++ }
    p = a < 9.9995 ? 3 : a < 99.995 ? 2 : 1
    if (u == 1 && (v - int(v + 0.5) < 0 ? int(v + 0.5) - v : v - int(v + 0.5)) < 0.5 * 10 ^ -p)
        return sprintf("%d %s", int(v + 0.5), units[u])
    return sprintf("%.*f %s", p, v, units[u])
}'

# calls FILE: every call as "region rank pos start_ns end_ns", from --events in memory.
calls() {
    "$sv" --csv "$1" | awk -F, 'NR > 1 && !seen[$1]++ { print $1 }' >"$tmp/names"
    while read -r r; do
        "$sv" --events "$r" --csv "$1" | awk -F, -v r="$r" 'NR > 1 {
            printf "%s %s %s %.0f %.0f\n", r, $1, $2, $3 * 1e9, $4 * 1e9 }'
    done <"$tmp/names"
}

# figures CALLS REGION RANK DOTS_PER_CELL PLOT_W COLUMN: the view's figures (RANK -1: all).
figures() {
    awk -v reg="$2" -v rank="$3" -v dx="$4" -v pw="$5" -v col="$6" "$fmt_awk"'
    { s[NR] = $4; e[NR] = $5; if (NR == 1 || $4 < t0) t0 = $4; if (NR == 1 || $5 > t1) t1 = $5
      keep[NR] = $1 == reg && (rank < 0 || $2 == rank); rk[NR] = $2; pos[NR] = $3 }
    END {
        w = int((t1 - t0) / 1024) + 1
        n = 0
        for (i = 1; i <= NR; i++) if (keep[i]) {
            b = int((s[i] - t0) / w); bin[i] = b
            if (!n || b < lo) lo = b
            if (!n || b > hi) hi = b
            d = e[i] - s[i]; sum += d; n++
            if (n == 1 || d > mx) mx = d
            if (n == 1 || s[i] < fs || (s[i] == fs && (rk[i] < fr || (rk[i] == fr && pos[i] < fp)))) {
                fs = s[i]; fd = d; fr = rk[i]; fp = pos[i]
            }
        }
        m = hi - lo + 1; ndots = pw * dx; per = int((m + ndots - 1) / ndots)
        c0 = lo + (col - 1) * dx * per; c1 = c0 + dx * per
        k = int(m / 10)
        for (i = 1; i <= NR; i++) if (keep[i]) {
            d = e[i] - s[i]; b = bin[i]
            if (b >= c0 && b < c1) { cn++; cs += d; if (cn == 1 || d < cmn) cmn = d; if (cn == 1 || d > cmx) cmx = d
                # the slowest of the column: the longest, then the earliest start, position, rank
                if (cn == 1 || d > sd || (d == sd && (s[i] < ss || (s[i] == ss && (pos[i] < sp || (pos[i] == sp && rk[i] < sr)))))) {
                    sd = d; ss = s[i]; sp = pos[i]; sr = rk[i]
                }
            }
            if (b < lo + k) { fn++; fsum += d }
            if (b > hi - k) { ln++; lsum += d }
        }
        printf "calls=%d\n", n
        printf "max=%s\n", fmt(mx)
        printf "column=column %d: %d calls, %s .. %s, mean %s\n", col, cn, fmt(cmn), fmt(cmx), fmt(cs / cn)
        rest = (sum - fd) / (n - 1)
        printf "warmup=warm-up: first call %s, %.2fx the mean of the rest (%s)\n", fmt(fd), fd / rest, fmt(rest)
        mf = fsum / fn; ml = lsum / ln
        printf "drift=drift: %+.1f%% mean of its last %d of %d bins vs first %d\n", 100 * (ml - mf) / mf, k, m, k
        printf "bins=%d\n", m
        printf "slow=%s|%s|%d|%d\n", fmt(sd), fmt(ss - t0), sr, sp
    }' "$1" >"$tmp/fig"
}

get() { sed -n "s/^$1=//p" "$tmp/fig"; }

# check_enter NAME: after Enter the timeline has the column's slowest call ($tmp/fig) selected.
check_enter() {
    IFS='|' read -r sd ss sr sp <<EOF
$(get slow)
EOF
    check "$1: Enter said the slowest, call $sp of rank $sr, $sd" \
        hasf "on rank $sr, call index $sp, $sd, at $ss"
    check "$1: the timeline opened out of core" has "out of core"
    check "$1: the timeline selected it ($sd at $ss, rank $sr)" \
        hasx "^ [^ ]+  rank $sr  (thread [^ ]+  )?start $ss  dur $sd  "
}

# check_series NAME: the screen holds the figures of $tmp/fig.
check_series() {
    check "$1: the view opens out of core" hasnt "not available"
    check "$1: $(get calls) calls" hasf "$(get calls) calls"
    check "$1: $(get column)" hasf "$(get column)"
    check "$1: the longest call $(get max) tops the y axis" hasx "^$(get max) +[|│]"
    check "$1: $(get warmup)" hasf "$(get warmup)"
    check "$1: $(get drift)" hasf "$(get drift)"
    check "$1: min, mean and max, said; no median" hasf "min, mean, max per"
    check "$1: no median drawn" hasnt "median of"
    check "$1: no control characters" clean
}

p="$tmp/p.h5"
"$top_build/svgen" bench-schema3 "$p" --calls 200000 >/dev/null 2>&1 || check "svgen bench-schema3" false
calls "$p" >"$tmp/calls"
check "the raw calls: 200 000 of them" [ "$(wc -l <"$tmp/calls")" -ge 200000 ]

# --- 1. one rank's region over --memory, ASCII (a mark a column) and braille (2 dots a cell)
figures "$tmp/calls" solve -1 1 69 1
screen 80x24 "3/solve<Enter>D" "$p" --ascii --memory 2M
check "over --memory the viewer opens out of core (exit 0: $(head -c 200 "$tmp/err"))" [ "$rc" = 0 ]
check_series "solve, ascii, column 1"
check "solve: the p50 and p95 lines from its exact statistics" hasf "-: p50  .: p95"
figures "$tmp/calls" solve -1 1 69 6
screen 80x24 "3/solve<Enter>D<Right><Right><Right><Right><Right>" "$p" --ascii --memory 2M
check_series "solve, ascii, column 6"
screen 80x24 "3/solve<Enter>D<Right><Right><Right><Right><Right><Enter>" "$p" --ascii --memory 2M
check_enter "solve over --memory, column 6"
figures "$tmp/calls" precond -1 2 69 9
screen 80x24 "3/precond<Enter>D<Right><Right><Right><Right><Right><Right><Right><Right>" "$p" --out-of-core
check_series "precond, braille, column 9"
screen 80x24 "3/precond<Enter>D<Right><Right><Right><Right><Right><Right><Right><Right><Enter>" "$p" --out-of-core
check "Enter: the column's slowest call, said" hasf "Slowest of column 9: precond on rank 0"
check_enter "precond, column 9"

# --- 2. two ranks, nested from call ids (the sweep flattens them: the bins come through the
#        flat hook), every rank in its mark and one rank alone
m="$tmp/ids.h5"
"$top_build/svgen" stream-mix "$m" --calls 20000 --ranks 2 --ids >/dev/null 2>&1 || check "svgen stream-mix --ids" false
calls "$m" >"$tmp/mcalls"
figures "$tmp/mcalls" step -1 1 69 4
screen 80x24 "3/^step<Enter>D<Right><Right><Right>" "$m" --ascii --out-of-core
check_series "step, ranks nested from call ids, all ranks"
check "all ranks: each rank's mark" hasx "ranks: 0 \* 1 o"
check "all ranks: no percentiles over several ranks, said" hasf "percentiles of one rank only"
screen 80x24 "3/^step<Enter>D<Right><Right><Right><Enter>" "$m" --ascii --out-of-core
check_enter "step, call ids (bins fed unnested: the lane looked for), column 4"
figures "$tmp/mcalls" step 1 1 69 2
screen 80x24 "3/^step<Enter>Drr<Right>" "$m" --ascii --out-of-core
check_series "step, rank 1"
screen 80x24 "3/^step<Enter>Drr<Right><Enter>" "$m" --ascii --out-of-core
check_enter "step, rank 1, column 2"
check "rank 1 alone" hasf "rank 1, "

# --- 3. --timeseries holds every call of the region: over --memory it says it does not stream
run --timeseries solve --csv --memory 2M "$p"
check "--timeseries over --memory: exit 1" [ "$rc" = 1 ]
check "... in one line" [ "$(wc -l <"$tmp/err")" = 1 ]
check "... saying it does not stream" grep -q -- "--timeseries and --export do not stream" "$tmp/err"

finish
