#!/bin/sh
# The viewer out of core (src/cli/ooc_run.c, src/view/timeline/tl_window.c): a file whose
# columns exceed --memory opens out of core (checked on a generated file), --out-of-core opens
# any file so, and its timeline equals the in-memory one frame by frame wherever the calls of
# the view are read (a window), the header's mode indicator ("  out of core") aside, which the
# comparison strips from row 2.  A key sequence that zooms,
# pans, selects, steps and expands is replayed a key at a time: after each key the two screens
# are compared.  Details of a selected call: in memory the exclusive time and the number of
# children follow; out of core they do only when the call lies inside the calls read, else
# "excl — (reaches beyond the calls read)": the details are then compared up to "excl".
#
# Where the view holds more calls than a window may (SCOPEVIEW_TEST_OOC_CAP, a test hook for
# ooc_window_cap), the rows are the overview map's: the header says "overview (out of core)",
# the first row under the lanes is the map's legend (its numbers are test_ooc_map's and
# test_tl_ooc's), and no call is selectable there.  Views needing every call say they are not
# available, in one line naming the budget.
. "${0%/*}/../lib.sh"
# Under ThreadSanitizer (.ci/run's gate: the window and statistics jobs' threads) every run is
# several times slower: the walks are cut to a few files and filters; the frames they compare
# are the same code's, checked in full by the plain and ASan runs.
tsan=no
grep -q __tsan_init "$sv" 2>/dev/null && tsan=yes
scr="$tmp/s"
mem="$tmp/mem"
ooc="$tmp/ooc"

# The view's rows and details, the header's mode indicator blanked (a note right-aligned on
# the header stays where it was) and the header's trailing blanks dropped.  A call's event
# metadata ("meta {...}", the details' last item) is dropped too: a window does not read the
# metadata column yet (ooc_window), a gap of the window, not of the view.
strip_mode() { # FILE
    sed -e '2s/  out of core/             /' -e '2s/ *$//' -e 's/  meta {.*$//' "$1"
}

# The details panel (the 3 rows above the status line at 80x24) up to "excl": what a window
# knows exactly of a call (name, rank, start, duration).
details_head() { # FILE
    rows=$(wc -l <"$1")
    sed -n "$((rows - 3)),$((rows - 1))p" "$1" | tr '\n' ' ' | sed -e 's/ excl .*//' -e 's/  */ /g'
}

# The screen minus the details panel: title, header, ruler, lanes.
above_details() { # FILE
    rows=$(wc -l <"$1")
    strip_mode "$1" | sed -n "1,$((rows - 4))p"
}

# $fe_opts: options given to both runs (a filter: -i, -x, --ranks).  $fe_cap: the most calls a
# window may hold (SCOPEVIEW_TEST_OOC_CAP; default: any number, every frame a window); with a
# small one the overview's frames (the map's rows) are not compared, the windows' are.
fe_opts=
fe_cap=1000000000000
frames_equal() { # NAME FILE KEY... : in memory and out of core, after each key
    fe_name=$1 fe_file=$2
    shift 2
    fe_keys=
    fe_n=0
    for fe_k in "" "$@"; do
        fe_keys="$fe_keys$fe_k"
        # shellcheck disable=SC2086
        env -u TERM "$sv" --batch --size 80x24 $fe_opts --keys "$fe_keys" "$fe_file" >"$mem" \
            2>"$tmp/err"
        # shellcheck disable=SC2086
        env -u TERM SCOPEVIEW_TEST_OOC_CAP=$fe_cap "$sv" --batch --size 80x24 $fe_opts \
            --out-of-core --keys "$fe_keys" "$fe_file" >"$ooc" 2>>"$tmp/err"
        fe_rc=$?
        if [ "$fe_rc" != 0 ]; then
            check "$fe_name after '$fe_keys': out of core exits 0 (got $fe_rc: $(head -c 300 "$tmp/err"))" false
            return
        fi
        if sed -n 2p "$ooc" | grep -q "overview"; then
            fe_n=$((fe_n + 1)) # the map's rows (small $fe_cap): test_tl_ooc's
            continue
        fi
        if sed -n 1p "$ooc" | grep -q "\[1 timeline\]" && ! sed -n 2p "$ooc" | grep -q "no lanes"; then
            # the timeline, from a window (a profile without event data has no lanes to read)
            cp "$ooc" "$scr"
            # said when it fits: the in-memory header plus "  out of core" within 80 columns
            if [ $(($(sed -n 2p "$mem" | LC_ALL=$UTF8 wc -m) - 1 + 13)) -le 80 ]; then
                check "$fe_name after '$fe_keys': the header says out of core" rowhas 2 "  out of core"
            else
                check "$fe_name after '$fe_keys': no cut indicator" hasnt "out of co…"
            fi
        fi
        if grep -q "reaches beyond the calls read" "$ooc"; then
            above_details "$mem" >"$tmp/a1"
            above_details "$ooc" >"$tmp/a2"
            fe_same=1
            cmp -s "$tmp/a1" "$tmp/a2" || fe_same=0
            [ "$(details_head "$mem")" = "$(details_head "$ooc")" ] || fe_same=0
        else
            strip_mode "$mem" >"$tmp/a1"
            strip_mode "$ooc" >"$tmp/a2"
            fe_same=1
            cmp -s "$tmp/a1" "$tmp/a2" || fe_same=0
        fi
        if [ "$fe_same" = 0 ]; then
            echo "  $fe_name after keys '$fe_keys' (- in memory, + out of core):"
            diff -u "$mem" "$ooc" | sed 's/^/  /' | head -60
        fi
        check "$fe_name: frame $fe_n (keys '$fe_keys') out of core = in memory" [ "$fe_same" = 1 ]
        fe_n=$((fe_n + 1))
    done
}

# Zoom in at the cursor, pan, move between rows, select, step, zoom to it, expand every lane,
# zoom out, jump to the end, step back.
walk="+ + + l l j <Enter> ] ] z E - h G ["

if need_shared "shared profiles out of core"; then
    for f in "$shared"/data/real/*.h5 "$shared"/data/upstream/*.h5; do
        [ -f "$f" ] || continue
        case $tsan:${f##*/} in yes:solver.h5 | yes:sp3-basic.h5 | no:*) ;; *) continue ;; esac
        case $f in *_rank0000[1-9].h5) continue ;; esac # a C-API set's other ranks
        # shellcheck disable=SC2086
        frames_equal "${f##*/}" "$f" $walk
    done
fi

# A generated larger profile: 2 ranks, threads, recursion, ties, zero-length calls.
big="$tmp/mix.h5"
"$top_build/svgen" stream-mix "$big" --calls 200000 --ranks 2 --threads >/dev/null 2>&1 ||
    check "svgen stream-mix" false
# shellcheck disable=SC2086
# Lanes by busy time (> : the map's totals out of core) and idle lanes hidden (H) too.
# shellcheck disable=SC2086
[ -f "$big" ] && [ "$tsan" = no ] &&
    frames_equal "stream-mix 200k" "$big" ">" $walk + + + + + l j j "<Enter>" ] H - -

# [ and ] past the calls read: windows of at most 50 calls, zoomed in; a step whose neighbour
# lies beyond the window is looked for through the map (tl_window_seek_step) and taken as in
# memory: the same selection, the same view.
steps="+ + + + + + l <Enter> ] ] ] ] ] ] ] ] ] ] ] ] [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ j"
steps="$steps ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] k k [ [ [ [ [ [ ["
fe_cap=50
if need_shared "steps past the calls read"; then
    # shellcheck disable=SC2086
    frames_equal "solver.h5, windows of 50 calls" "$shared/data/real/solver.h5" $steps
fi
# shellcheck disable=SC2086
[ -f "$big" ] && [ "$tsan" = no ] &&
    frames_equal "stream-mix 200k, windows of 50 calls" "$big" + + + + + + + + + + $steps
fe_cap=1000000000000

# The command line's filter (-i, -x, --ranks) out of core: the map keeps the calls it keeps,
# lane depths counting those only, as the in-memory timeline does (lanes_build(p, filter)); the
# windows' calls are filtered alike.  The title says "filtered by options" in both.
if need_shared "filters out of core"; then
    filters='"--ranks 1-2" "-i step" "-x solve" "-x main --ranks 0,3"'
    [ "$tsan" = yes ] && filters='"--ranks 1-2"'
    eval "set -- $filters"
    for fe_opts in "$@"; do
        # shellcheck disable=SC2086
        frames_equal "solver_mpi4.h5 $fe_opts" "$shared/data/real/solver_mpi4.h5" $walk
    done
    fe_opts=
fi
if [ -f "$big" ]; then
    filters='"-x rec" "-i overlap" "--ranks 0 -x main"'
    [ "$tsan" = yes ] && filters='"-i overlap"'
    eval "set -- $filters"
    for fe_opts in "$@"; do
        # shellcheck disable=SC2086
        frames_equal "stream-mix 200k $fe_opts" "$big" $walk + + l j "<Enter>"
    done
    fe_opts=
    # The overview (no window: at most 10 calls a window) has the filtered lanes.
    env -u TERM "$sv" --batch --size 80x24 -i overlap --keys "" "$big" >"$mem"
    env -u TERM SCOPEVIEW_TEST_OOC_CAP=10 "$sv" --batch --size 80x24 -i overlap --out-of-core \
        --keys "" "$big" >"$scr"
    want=$(sed -n 2p "$mem" | grep -o "[0-9]* lanes\?")
    check "overview, -i overlap: the in-memory lanes ($want)" rowhas 2 "  $want  overview (out of core)$"
    check "overview, -i overlap: filtered, said so" rowhas 1 "filtered by options"
fi

# Over --memory: 24 MB of schema-3 columns (1.5M calls) against 16M (the overview map takes an
# eighth of the budget, ooc_map_cells_cap): out of core by itself, the overview first, the
# series from its bins.  Then 4 lanes (2 ranks, threads; 60 MB) within 16M.
b3="$tmp/b3.h5"
"$top_build/svgen" bench-schema3 "$b3" --calls 1500000 >/dev/null 2>&1 || check "svgen bench-schema3" false
env -u TERM "$sv" --batch --size 80x24 --memory 16M --keys D "$b3" >"$scr" 2>"$tmp/err"
rc=$?
check "over --memory: opens (exit 0; $(head -c 200 "$tmp/err"))" [ "$rc" = 0 ]
check "over --memory: not refused" hasnt "memory budget"
check "over --memory: the series view opens" hasf "No region selected"
env -u TERM "$sv" --batch --size 80x24 --memory 16M "$b3" >"$scr" 2>"$tmp/err"
check "over --memory: the first frame is the overview" rowhas 2 "  overview (out of core)$"
rm -f "$b3"
"$top_build/svgen" stream-mix "$b3" --calls 1500000 --ranks 2 --threads >/dev/null 2>&1 ||
    check "svgen stream-mix 1.5M" false
env -u TERM "$sv" --batch --size 80x24 --memory 16M "$b3" >"$scr" 2>"$tmp/err"
rc=$?
check "4 lanes over --memory 16M: opens, the map within the budget (exit 0; $(head -c 200 "$tmp/err"))" \
    [ "$rc" = 0 ]
check "4 lanes over --memory 16M: the overview of 4 lanes" rowhas 2 "  4 lanes  overview (out of core)$"
rm -f "$b3"

# The overview: with windows of at most 100 calls, the whole of solver.h5 is the map's.
# Without the shared data (distcheck), a generated file of 20 000 calls:
# small.h5's few calls would all fit one window, and there is no overview.
f="$tmp/ovw.h5"
if [ -d "$shared/data" ]; then
    f="$shared/data/real/solver.h5"
else
    "$top_build/svgen" stream-mix "$f" --calls 20000 --threads >/dev/null 2>&1 ||
        check "svgen stream-mix 20000" false
fi
ovw() { # KEYS [OPTIONS...]: the screen out of core with windows of 100 calls at most ($hold:
    # SCOPEVIEW_TEST_WINDOW, the window's worker held until <Ready>)
    ovw_keys=$1
    shift
    env -u TERM SCOPEVIEW_TEST_OOC_CAP=100 SCOPEVIEW_TEST_WINDOW="${hold:-}" "$sv" --batch \
        --size 80x24 --out-of-core --keys "$ovw_keys" "$@" "$f" >"$scr" 2>"$tmp/err"
    rc=$?
}
ovw ""
check "overview: exits 0" [ "$rc" = 0 ]
check "overview: the header says it is the overview" rowhas 2 "  overview (out of core)$"
check "overview: lanes counted from the map" rowhas 2 "[0-9] lanes\? "
check "overview: the legend under the rows says what they show" rowhas 21 "^ overview"
check "overview: no 'No call selected' hint (nothing is selectable)" hasnt "No call selected"
ovw "<Enter>"
check "overview: Enter says to zoom in" hasf "The overview holds no single call: zoom in (+)"
ovw "]"
check "overview: ] says to zoom in, never 'no later call'" hasf "The overview holds no single call"
ovw "/main<Enter>"
check "overview: search is not offered" hasf "Searching the calls is not available out of core"
# H on the overview: lanes with a call in view stay (the map says which), as in memory.
ovw "H"
cut -c1-15 "$scr" | sed -n '4,20p' >"$tmp/l1"
env -u TERM "$sv" --batch --size 80x24 --keys H "$f" | cut -c1-15 | sed -n '4,20p' >"$tmp/l2"
check "overview: H keeps the lanes busy in view, as in memory" cmp -s "$tmp/l1" "$tmp/l2"
check "overview: H says so in the header" rowhas 2 "idle ones hidden"
# Rows as in memory: the same lane labels and depth rows.
env -u TERM "$sv" --batch --size 80x24 "$f" >"$mem"
cut -c1-15 "$scr" | sed -n '4,20p' >"$tmp/l1"
cut -c1-15 "$mem" | sed -n '4,20p' >"$tmp/l2"
check "overview: the lane labels and rows are the in-memory ones" cmp -s "$tmp/l1" "$tmp/l2"

# A window being read: the map meanwhile, "loading calls…", then the window (<Ready>).
hold=hold
ovw "+++++++"
if row 2 | grep -q "overview (out of core)$"; then
    skip "loading calls: solver.h5 needs more zooming for a window of 100 calls"
else
    check "held window: the header says loading" rowhas 2 "  overview, loading calls…$"
    check "held window: the map's legend" rowhas 21 "^ overview"
    ovw "+++++++<Ready>"
    check "held window, then <Ready>: the window's calls" rowhas 2 "  out of core$"
    env -u TERM "$sv" --batch --size 80x24 --keys "+++++++" "$f" >"$mem"
    strip_mode "$scr" >"$tmp/a1"
    strip_mode "$mem" >"$tmp/a2"
    check "held window, then <Ready>: = in memory" cmp -s "$tmp/a1" "$tmp/a2"
    ovw "+++++++" --ascii
    check "held window, ascii: loading calls..." rowhas 2 "loading calls\.\.\.$"
fi
hold=

# Every view opens out of core; searching the calls still needs them.
ovw "D"
check "view D: the series, asking for a region" hasf "No region selected"
# The calls view and S use the sweep's slowest calls (screens_ooc_calls.sh checks them).
ovw "4"
check "view 4 without a region: says how to pick one" hasf "No region selected"
ovw 7 # the lanes view opens, from the sweep's figures (screens_ooc_lanes.sh checks them)
check "view 7: the lanes' table" rowhas 3 "Lane .*Busy"
ovw "3S"
check "S out of core: the slowest call selected" hasx "Slowest call of .* over every rank: rank"
# Several ranks: a row merging them (per rank on, b) has its percentiles only in memory (the
# durations of every rank together); out of core its P95 says "-", never the percentile of no
# durations; the ranks' own rows, and every other column, are the in-memory numbers.
if need_shared "regions out of core, 4 ranks"; then
    f4="$shared/data/real/solver_mpi4.h5"
    env -u TERM "$sv" --batch --size 80x24 --out-of-core --keys 3b "$f4" | sed 's/^▶/>/' >"$tmp/r1"
    env -u TERM "$sv" --batch --size 80x24 --keys 3b "$f4" | sed 's/^▶/>/' >"$tmp/r2"
    cut -c1-47,58- "$tmp/r1" >"$tmp/r1c"
    cut -c1-47,58- "$tmp/r2" >"$tmp/r2c"
    check "regions, 4 ranks, out of core: all but P95 = in memory" cmp -s "$tmp/r1c" "$tmp/r2c"
    # P95 of each row (columns 48-57): merged rows "-", rank rows as in memory
    cut -c48-57 "$tmp/r1" | sed -n '4,20p' | tr -d ' ' >"$tmp/p1"
    cut -c48-57 "$tmp/r2" | sed -n '4,20p' | tr -d ' ' >"$tmp/p2"
    sed -n '4,20p' "$tmp/r1" | cut -c1-9 >"$tmp/kind"
    bad_p95=$(paste -d'|' "$tmp/kind" "$tmp/p1" "$tmp/p2" | awk -F'|' '
        $1 ~ /rank/ { if ($2 != $3) print "rank row: " $2 " != " $3; next }
        $1 != "" && $2 != "-" { print "merged row: " $2 }')
    check "regions, 4 ranks, out of core: merged P95 '-', ranks' P95 = in memory ($bad_p95)" \
        [ -z "$bad_p95" ]
fi
# --ranks naming a rank the file lacks: the usage error of the in-memory viewer (exit 2).
if need_shared "--ranks out of core"; then
    env -u TERM "$sv" --batch --out-of-core --ranks 7 "$shared/data/real/solver_mpi4.h5" \
        >"$scr" 2>"$tmp/err"
    rc=$?
    check "--ranks 7 out of core: exit 2 (got $rc)" [ "$rc" = 2 ]
    check "--ranks 7 out of core: says which ranks there are" \
        hasf "has no rank 7; its ranks are 0-3" "$tmp/err"
fi
# The regions view shows the streamed statistics: the in-memory numbers.
ovw "3"
env -u TERM "$sv" --batch --size 80x24 --keys 3 "$f" >"$mem"
check "regions view out of core = in memory" cmp -s "$scr" "$mem"

# The statistics after the first frame (ooc.h: pass 2 follows the map as a tail), held back
# by SCOPEVIEW_TEST_STATS=hold until <Ready>.  col3_full's stored figures (FIXTURES.md: outer
# 700 + 600 ns, exclusive 500 + 300) show at once, marked; the timeline never waits for them.
c3="$fx/col3_full.h5"
SCOPEVIEW_TEST_STATS=hold screen 120x16 3 "$c3" --out-of-core
check "held, out of core: regions marked as the file's" has "stored in the file (summary_statistics)"
check "held, out of core: the rest computing" has "computing… (statistics, in the background)"
check "held, out of core: outer's stored total 1.300 us, exclusive 800 ns" \
    hasx "^▶outer \* +3 +1\.300 us .* 800 ns"
check "held, out of core: no percentile before pass 2" hasx "^▶outer \* +3 .* - +- "
screen 120x16 3 "$c3" --out-of-core
cp "$scr" "$tmp/want"
SCOPEVIEW_TEST_STATS=hold screen 120x16 "3<Ready>" "$c3" --out-of-core
check "held, out of core, then <Ready>: the waited regions" cmp -s "$scr" "$tmp/want"
check "after <Ready>, out of core: not marked" hasnt "stored in the file"
SCOPEVIEW_TEST_STATS=hold screen 100x14 "" "$c3" --out-of-core
check "held, out of core: the timeline is drawn (exit $rc)" rowhas 2 "  out of core$"
check "held, out of core: the timeline does not wait" hasnt "computing"
screen 100x14 "" "$c3" --out-of-core
cp "$scr" "$tmp/want"
SCOPEVIEW_TEST_STATS=hold screen 100x14 "<Ready>" "$c3" --out-of-core
check "held timeline, out of core, then <Ready>: the waited one" cmp -s "$scr" "$tmp/want"

finish
