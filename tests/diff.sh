#!/bin/sh
# --diff and --check on the real binary: A/A on every shared profile passes, a second run of
# the demo workload with one region 20 % slower (svgen demo --slow) fails on exactly that
# region and its ancestors' paths, a legacy base against a schema-3 run of the same workload
# matches everything by name and path, and the exit statuses (0 pass, 1 regression, 2 usage).
. "${0%/*}/lib.sh"
gen="$top_build/svgen"
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
    sed 's/^/  | /' "$tmp/out" | head -40
}
expect_rc() { # expect_rc WANT NAME
    if [ "$rc" = "$1" ]; then ok; else bad "$2: exit $rc, want $1"; fi
}

if [ ! -x "$sv" ] || [ ! -x "$gen" ]; then
    echo "diff.sh: $sv or $gen missing (run from make check)"
    exit 99
fi

# --- usage errors: 2
run --check "$tmp/none.h5"
expect_rc 2 "--check with one file"
run --diff
expect_rc 2 "--diff without files"
run --check --metric p42 a.h5 b.h5
expect_rc 2 "--metric p42"
run --check --max-regression -5 a.h5 b.h5
expect_rc 2 "--max-regression -5"
run --metric p95 a.h5
expect_rc 2 "--metric without --diff or --check"
run --check --json a.h5 b.h5
expect_rc 2 "--check --json"
run --diff --check a.h5 b.h5
expect_rc 2 "--diff --check"
run --check a.h5 b.h5 c.h5
expect_rc 2 "--check with three files"

# --- A/A: every shared profile against itself passes and flags nothing
n=0
for f in "$shared"/data/real/*.h5 "$shared"/data/extended/*.h5 "$shared"/data/upstream/*.h5; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    run --check "$f" "$f"
    expect_rc 0 "A/A --check $f"
    has '^OK: no significant regression' || bad "A/A $f: no OK line"
    run --diff "$f" "$f" --json
    expect_rc 0 "A/A --diff --json $f"
    has '"flagged": {"regions_slower": 0, "regions_faster": 0, "paths_slower": 0, "paths_faster": 0}' ||
        bad "A/A $f flags something"
done
[ "$n" -gt 10 ] || skip "shared profiles not found under $shared: A/A"

# --- the demo workload, a run 20 % slower in precond (a leaf under main > timestep > solve)
"$gen" demo --layout legacy "$tmp/base.h5" >/dev/null 2>&1 &&
    "$gen" demo --layout legacy --slow precond=20 "$tmp/slow.h5" >/dev/null 2>&1 &&
    "$gen" demo --layout schema3 "$tmp/s3.h5" >/dev/null 2>&1 || {
    echo "FAIL: svgen demo --slow / --layout"
    exit 1
}
run --check "$tmp/base.h5" "$tmp/slow.h5"
expect_rc 1 "--check on the slower run"
has '^region precond: total +' || bad "precond not reported"
has '^path main > timestep > solve > precond: total +' || bad "precond's path not reported"
# every flagged row is precond or one of its ancestors
grep '^region ' "$tmp/out" | sed 's/^region \([^:]*\):.*/\1/' | while read -r r; do
    case $r in precond | solve | timestep | main) ;; *) echo "FAIL: region $r flagged" ;; esac
done >"$tmp/extra"
grep '^path ' "$tmp/out" | sed 's/^path \([^:]*\):.*/\1/' | while read -r p; do
    case "main > timestep > solve > precond" in "$p"*) ;; *) echo "FAIL: path $p flagged" ;; esac
done >>"$tmp/extra"
if [ -s "$tmp/extra" ]; then bad "rows beyond precond and its ancestors: $(cat "$tmp/extra")"; else ok; fi
has '^FAIL: [0-9]* regressions* beyond 5%' || bad "no FAIL line"
run --check --max-regression 50 "$tmp/base.h5" "$tmp/slow.h5"
expect_rc 0 "--max-regression 50 passes a 20 % regression"
run --check "$tmp/slow.h5" "$tmp/base.h5"
expect_rc 0 "faster is not a regression"
run --check --metric p50 "$tmp/base.h5" "$tmp/slow.h5"
expect_rc 1 "--metric p50"
run --check --include 'io' "$tmp/base.h5" "$tmp/slow.h5"
expect_rc 0 "--include io leaves precond out on both sides"
run --check --rank 1 "$tmp/base.h5" "$tmp/slow.h5"
expect_rc 1 "--rank 1"
run --check --rank 7 "$tmp/base.h5" "$tmp/slow.h5"
expect_rc 1 "--rank 7 does not exist"
grep -q 'no rank 7' "$tmp/err" || bad "--rank 7: no message"

# the summary lists the region first by |delta| among flagged ones, marked SLOWER
run --diff "$tmp/base.h5" "$tmp/slow.h5" --summary
expect_rc 0 "--diff --summary"
has '^precond .* SLOWER' || bad "--summary: precond not SLOWER"
has '^allreduce .*untested' || bad "--summary: summary-only allreduce not untested"

# JSON and CSV: the same rows; null where unknown
run --diff "$tmp/base.h5" "$tmp/slow.h5" --json
expect_rc 0 "--diff --json"
has '"name": "allreduce", "path": null, .*"u": null, "z": null, "p": null' ||
    bad "--json: allreduce's test not null"
has '"kind": "path", "name": "precond", "path": "main > timestep > solve > precond"' ||
    bad "--json: precond path"
rows_json=$(grep -c '"kind": ' "$tmp/out")
run --diff "$tmp/base.h5" "$tmp/slow.h5" --csv
expect_rc 0 "--diff --csv"
rows_csv=$(($(wc -l <"$tmp/out") - 1))
[ "$rows_json" = "$rows_csv" ] && ok || bad "--json has $rows_json rows, --csv $rows_csv"

# --- legacy base against a schema-3 run of the same workload: everything matches
run --diff "$tmp/base.h5" "$tmp/s3.h5" --json
expect_rc 0 "legacy vs schema 3"
# (allreduce is summary-only in the legacy file, so it has no call path there; the schema-3
# writer stores its calls, so that one path is new)
if grep -v '"name": "allreduce"' "$tmp/out" | grep -q '"state": "new"\|"state": "gone"'; then
    bad "legacy vs schema 3: unmatched rows"
else ok; fi
grep '"kind": "region", "name": "allreduce"' "$tmp/out" | grep -q '"state": "both"' ||
    bad "legacy vs schema 3: allreduce region unmatched"
has '"regions_slower": 0, "regions_faster": 0, "paths_slower": 0, "paths_faster": 0' ||
    bad "legacy vs schema 3 flags something"
has '"kind": "path", "name": "precond", "path": "main > timestep > solve > precond", .*"state": "both"' ||
    bad "legacy vs schema 3: precond path"

# --- --fail-on-new: paths only in NEW fail the gate
if [ -f "$shared/data/upstream/sp3-basic.h5" ]; then
    run --check --exclude solve "$shared/data/upstream/hdf5-schema-1.h5" "$shared/data/upstream/sp3-basic.h5"
    expect_rc 0 "new rows alone pass without --fail-on-new"
    run --check --fail-on-new --exclude solve "$shared/data/upstream/hdf5-schema-1.h5" \
        "$shared/data/upstream/sp3-basic.h5"
    expect_rc 1 "--fail-on-new"
    has '^path main > timestep: only in NEW' || bad "--fail-on-new: main > timestep not listed"
fi
# --- the compare view, headless, at 80x24 and 200x60: the slowed region first, flagged, with
# both histograms; the regions, distributions and timelines screens
screen() { # screen SIZE KEYS [FILES]: the headless screen in $tmp/out
    size=$1 keys=$2
    shift 2
    run --diff --batch --size "$size" --keys "$keys" "$@"
}
want() { # want NAME PATTERN: the pattern is on the screen, or print it and the screen
    if grep -q -- "$2" "$tmp/out"; then ok; else bad "$1: no line matching '$2'"; fi
}
for size in 80x24 200x60; do
    screen $size 6 "$tmp/base.h5" "$tmp/slow.h5"
    expect_rc 0 "compare view $size"
    # 200 columns list every screen; 80 only the current one, so the counts still show
    if [ "$size" = 80x24 ]; then
        want "tree $size: header" '^ base.h5 → slow.h5  \[paths\]  2 slower, 0 faster (p<0.01, ≥5%)$'
    else
        want "tree $size: header" '^ base.h5 → slow.h5  \[paths\] regions  distributions  flame  timelines'
    fi
    want "tree $size: precond selected and flagged" '^▶ *precond .*▲ slow'
    want "tree $size: its parent open and flagged" '^ *▾ solve .*▲ slow'
    want "tree $size: an unflagged ancestor open" '^ *▾ timestep '
    want "tree $size: histogram pane" '^ precond: base ░ (1152 calls)  new █ (1152)'
    want "tree $size: base marks" '^ base .*|.*:'
    want "tree $size: new marks" '^ new .*|.*:'
    screen $size 6m "$tmp/base.h5" "$tmp/slow.h5"
    want "regions $size: header" '\[regions\]'
    want "regions $size: solve first by |delta|" '^ solve .*▲ slow'
    want "regions $size: precond still selected" '^▶precond .*▲ slow'
    screen $size 6mm "$tmp/base.h5" "$tmp/slow.h5"
    want "distributions $size" '^ precond: base ░ (1152 calls)  new █ (1152)  both ▓'
    want "distributions $size: axis" '^ *765.5 us .*1.425 ms$'
    screen $size 6M "$tmp/base.h5" "$tmp/slow.h5"
    want "timelines $size: header" '\[timelines\]  2 slower'
    want "timelines $size: aligned at the starts" '^ aligned at their starts'
    want "timelines $size: BASE" '^BASE base.h5'
    want "timelines $size: NEW" '^NEW  slow.h5'
    want "timelines $size: main in both" '^ r0 Task-1 main│\[main═'
    [ "$(grep -c '^ r0 Task-1 main│\[main═' "$tmp/out")" = 2 ] && ok || bad "timelines $size: main twice"
    screen $size '6Ma]' "$tmp/base.h5" "$tmp/slow.h5"
    want "timelines $size: anchored" '^ aligned on call 2 of precond'
done
screen 100x30 6M --rank 1 "$tmp/base.h5" "$tmp/slow.h5"
want "timelines --rank 1: rank 1's lanes" '^ r1 Task-1 main'
if grep -q '^ r0 ' "$tmp/out"; then bad "timelines --rank 1 shows rank 0"; else ok; fi
screen 200x60 '6Ma+++' "$tmp/base.h5" "$tmp/slow.h5"
want "timelines zoomed: names in the bars" '\[solve═*\]'
screen 80x24 6 "$tmp/base.h5" "$tmp/base.h5"
want "compare A/A: nothing flagged" ' 0 slower, 0 fas'
if grep -q 'slow$\|fast$' "$tmp/out"; then bad "compare A/A marks a row"; else ok; fi
# without --diff the compare view has no tab and no key
run --batch --size 100x24 --keys 6 "$tmp/base.h5"
if head -1 "$tmp/out" | grep -q compare; then bad "a compare tab without --diff"; else ok; fi
grep -q 'The compare view compares two runs' "$tmp/out" || bad "6 without --diff: no message"

# hostile region names (control bytes, bidi overrides, invalid UTF-8) never reach an output
# or the screen raw
clean() {
    ! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1" &&
        ! LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"
}
"$gen" hostile "$tmp/hostile.h5" >/dev/null 2>&1 || bad "svgen hostile"
for out in --summary --json --csv; do
    run --diff "$tmp/hostile.h5" "$tmp/hostile.h5" $out
    expect_rc 0 "hostile --diff $out"
    if clean "$tmp/out"; then ok; else bad "hostile --diff $out: a control byte escaped"; fi
done
run --check "$tmp/hostile.h5" "$tmp/hostile.h5"
expect_rc 0 "hostile --check"
for keys in 6 6m 6mm 6M; do
    run --diff --batch --size 120x40 --keys $keys "$tmp/hostile.h5" "$tmp/hostile.h5"
    if clean "$tmp/out"; then ok; else bad "hostile compare screen $keys: a control byte escaped"; fi
done

# a file that is not a profile: 1 and one line
echo "not hdf5" >"$tmp/bad.h5"
run --check "$tmp/bad.h5" "$tmp/base.h5"
expect_rc 1 "--check on a bad file"

finish
