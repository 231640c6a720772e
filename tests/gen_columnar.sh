#!/bin/sh
# The generator's columnar writer (tests/gen/gen_columnar.c), checked from
# outside by tests/colcheck (plain libhdf5, no generator or reader code):
# - the col3/col2/capi fixtures decode to the calls tests/gen/FIXTURES.md lists
#   (written out by hand below), and their stored summary_statistics and
#   exclusive totals equal what colcheck computes from the decoded columns;
# - the fault fixtures are broken exactly where FIXTURES.md says;
# - the demo in schema 3 and schema 2 decodes to the same calls, which are the
#   calls of the legacy layout of the same workload; the demo is deterministic,
#   schema 3 by default, under 1 MB, and data/demo.h5 is up to date with it; `--slow REGION=PCT` makes that region's calls PCT% longer
#   and keeps every region's call count;
# - bench-schema3 writes the same calls plain and gzip-compressed.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/lib.sh"
show_err=1
svgen="$top_build/svgen"
cc="$top_build/tests/colcheck"
for x in "$svgen" "$cc"; do
    [ -x "$x" ] || {
        echo "gen_columnar.sh: $x missing (run from make check)"
        exit 99
    }
done
[ -f "$fx/col3_full.h5" ] || {
    echo "gen_columnar.sh: fixtures missing (run from make check)"
    exit 99
}
decodes() { "$cc" check "$1" 2>"$tmp/err"; }
broken() { # FILE PATTERN: colcheck must fail and say PATTERN
    ! "$cc" check "$1" 2>"$tmp/err" && grep -q "$2" "$tmp/err"
}

# ------------------------------------------------------------ fixtures
for f in col3_full col2_full col3_fixedstr col3_nofilter col3_schema4 capi_rank00000 capi_rank00001 \
    capi_rank00003; do
    if [ "$f" = col3_nofilter ]; then
        # gpu_durations needs a filter no plugin has; the other columns read.
        check "$f: gpu_durations needs the missing filter" broken "$fx/$f.h5" \
            "/events/gpu_durations: unreadable"
        continue
    fi
    check "$f: invariants" decodes "$fx/$f.h5"
done
# FIXTURES.md, col3_full: rank region start end, row by row.
cat >"$tmp/want" <<'EOF'
0 outer 100 400
0 outer 500 900
0 inner 150 250
0 inner 600 700
0 inner 300 350
1 outer 1000 1600
1 solve 1100 1200
1 solve 1300 1500
EOF
for f in col3_full col2_full col3_fixedstr col3_nofilter; do
    "$cc" dump "$fx/$f.h5" >"$tmp/got" 2>/dev/null
    check "$f: the calls of FIXTURES.md" cmp -s "$tmp/want" "$tmp/got"
done
printf '0 outer 100 400\n0 outer 500 900\n0 inner 150 250\n0 inner 600 700\n0 inner 300 350\n' \
    >"$tmp/want0"
"$cc" dump "$fx/capi_rank00000.h5" >"$tmp/got" 2>/dev/null
check "capi rank 0: its calls" cmp -s "$tmp/want0" "$tmp/got"
"$cc" dump "$fx/capi_rank00003.h5" >"$tmp/got" 2>/dev/null
check "capi rank 3: its call" [ "$(cat "$tmp/got")" = "3 outer 2000 2500" ]
check "capi rank 2 is missing" [ ! -e "$fx/capi_rank00002.h5" ]
check "col2/col3: same calls" "$cc" same "$fx/col2_full.h5" "$fx/col3_full.h5"
check "badthread: thread 7 outside the table" broken "$fx/col3_badthread.h5" "thread_ids 7 not in"
check "overlap: event 1 in two rows" broken "$fx/col3_overlap.h5" "event 1 in two rows"
check "pastend: last row past N" broken "$fx/col3_pastend.h5" "row 3: event 8 past N = 8"
check "truncated: durations shorter" broken "$fx/col3_truncated.h5" "different lengths"

# ------------------------------------------------------------ the demo
for l in legacy schema2 schema3; do
    check "demo --layout $l: writes" "$svgen" demo --layout $l "$tmp/demo_$l.h5"
done
check "demo schema3: invariants" decodes "$tmp/demo_schema3.h5"
check "demo schema2: invariants" decodes "$tmp/demo_schema2.h5"
check "demo: schema 2 and 3 decode alike" "$cc" same "$tmp/demo_schema2.h5" "$tmp/demo_schema3.h5"
check "demo: the legacy layout's calls" "$cc" legacy "$tmp/demo_schema3.h5" "$tmp/demo_legacy.h5"
"$svgen" demo "$tmp/again.h5"
check "demo: schema 3 by default, deterministic" cmp -s "$tmp/demo_schema3.h5" "$tmp/again.h5"
check "demo: schema attribute 3" [ "$("$cc" schema "$tmp/again.h5")" = 3 ]
check "demo: schema attribute 2" [ "$("$cc" schema "$tmp/demo_schema2.h5")" = 2 ]
check "demo: legacy has no schema attribute" [ "$("$cc" schema "$tmp/demo_legacy.h5")" = 1 ]
demo=${SV_TOP_SRCDIR:-..}/data/demo.h5
check "data/demo.h5 is svgen demo's output (make demo)" "$cc" same "$demo" "$tmp/again.h5"
size=$(wc -c <"$tmp/demo_schema3.h5")
check "demo schema3: under 1 MB ($size bytes)" [ "$size" -lt 1000000 ]
check "demo --layout aggregate: writes" "$svgen" demo --layout aggregate "$tmp/agg.h5"
check "demo aggregate: the schema-3 run's counts and totals" \
    "$cc" agg "$tmp/agg.h5" "$tmp/demo_schema3.h5"
check "col3_aggregate: col3_full's counts and totals" "$cc" agg "$fx/col3_aggregate.h5" \
    "$fx/col3_full.h5"
check "demo --layout capi: writes" "$svgen" demo --layout capi "$tmp/capi"
check "demo capi: one file per rank" [ -f "$tmp/capi_rank00000.h5" ] && [ -f "$tmp/capi_rank00001.h5" ]
"$cc" dump "$tmp/capi_rank00000.h5" >"$tmp/capi.txt"
"$cc" dump "$tmp/capi_rank00001.h5" >>"$tmp/capi.txt"
check "demo capi: schema 2" [ "$("$cc" schema "$tmp/capi_rank00001.h5")" = 2 ]
check "demo capi: the schema-3 run's calls" \
    [ "$(sort "$tmp/capi.txt")" = "$("$cc" dump "$tmp/demo_schema3.h5" | sort)" ]
"$cc" dump "$tmp/demo_schema3.h5" >"$tmp/base.txt"
check "demo: two ranks" [ "$(cut -d' ' -f1 "$tmp/base.txt" | sort -u | wc -l)" -eq 2 ]
check "demo --slow: writes" "$svgen" demo --layout schema3 --slow rhs=50 "$tmp/slow.h5"
check "demo --slow: invariants" decodes "$tmp/slow.h5"
"$cc" dump "$tmp/slow.h5" >"$tmp/slow.txt"
counts() { cut -d' ' -f1,2 "$1" | sort | uniq -c; }
check "demo --slow: same calls per region" [ "$(counts "$tmp/base.txt")" = "$(counts "$tmp/slow.txt")" ]
# total duration of REGION over both ranks in a dump
total() { awk -v r="$2" '$2 == r { t += $4 - $3 } END { printf "%.0f", t }' "$1"; }
ratio() { awk -v a="$(total "$tmp/slow.txt" "$1")" -v b="$(total "$tmp/base.txt" "$1")" \
    'BEGIN { printf "%.3f", a / b }'; }
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
r=$(ratio rhs)
check "demo --slow rhs=50: rhs 1.5x longer ($r)" within "$r" 1.45 1.55
r=$(ratio assemble)
check "demo --slow rhs=50: assemble unchanged but for jitter ($r)" within "$r" 0.95 1.05
check "demo --slow solve=50: writes" "$svgen" demo --slow solve=50 "$tmp/slow_solve.h5"
"$cc" dump "$tmp/slow_solve.h5" >"$tmp/slow.txt"
r=$(ratio solve)
check "demo --slow solve=50: solve (not a leaf) 1.5x longer ($r)" within "$r" 1.45 1.55
r=$(ratio rhs)
check "demo --slow solve=50: its child rhs unchanged but for jitter ($r)" within "$r" 0.95 1.05
"$cc" dump "$tmp/slow.h5" >"$tmp/slow.txt"
check "demo --slow: other jitter" sh -c "! cmp -s '$tmp/base.txt' '$tmp/slow.txt'"
"$svgen" demo --layout schema3 --slow rhs=50 "$tmp/slow2.h5"
check "demo --slow: deterministic" cmp -s "$tmp/slow.h5" "$tmp/slow2.h5"
check "demo: a bad --slow is a usage error" sh -c "'$svgen' demo --slow nosuch=5 '$tmp/x.h5' 2>/dev/null; [ \$? = 2 ]"

# ------------------------------------------------------------ bench input
check "bench-schema3: writes" "$svgen" bench-schema3 "$tmp/b.h5" --calls 5003
check "bench-schema3 --gzip: writes" "$svgen" bench-schema3 "$tmp/bz.h5" --calls 5003 --gzip
check "bench-schema3: invariants" decodes "$tmp/b.h5"
check "bench-schema3: plain and gzip alike" "$cc" same "$tmp/b.h5" "$tmp/bz.h5"
check "bench-schema3: 5003 calls" [ "$("$cc" dump "$tmp/b.h5" | wc -l)" -eq 5003 ]

finish
