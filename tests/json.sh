#!/bin/sh
# JSON profiles (.json, .json.gz) from the command line: scope-profiler's
# own files (../shared/data/upstream/json) match their expected statistics
# through --json (jsoncmp: 1e-9 relative); the generator's demo written as
# a JSON profile gives what its schema-3 file gives; every kind of bad
# document exits 1 with one line naming the file and the JSON path.
set -u
. "${0%/*}/lib.sh"
jc="$top_build/tests/jsoncmp"
gen="$top_build/svgen"
up="$shared_root/data/upstream"
bad() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    [ -s "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err"
}

if [ -d "$up/json" ]; then
    for f in "$up"/json/*.json*; do
        base=$(basename "$f")
        base=${base%.gz}
        base=${base%.json}
        if "$sv" --json "$f" >"$tmp/out.json" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
            "$jc" "$tmp/out.json" "$up/expected/json-$base.json" 2>"$tmp/err"; then
            ok "--json $base matches expected/json-$base.json"
        else
            bad "--json $base matches expected/json-$base.json"
        fi
    done
else
    skip "$up/json not found"
fi

# The demo (2 ranks, asyncio tasks, threads, GPU, line profiles) as schema 3
# and as JSON: the outputs differ in the file name and its format line only
# (and the HDF5 file's perf counters, which the JSON format does not carry).
"$gen" demo "$tmp/demo.h5" && "$gen" demo --layout json "$tmp/demo.json" &&
    "$gen" demo --layout json-gz "$tmp/demo.json.gz" || exit 99
same() { # same WHAT ARGS...: the output on demo.h5 equals the one on both JSON files
    what=$1
    shift
    "$sv" "$@" "$tmp/demo.h5" 2>&1 | sed 's/, "counters": \[[^]]*\]//; s/demo\.h5/demo.X/g; /"file_formats": /d' >"$tmp/h5.out"
    for j in demo.json demo.json.gz; do
        "$sv" "$@" "$tmp/$j" 2>&1 | sed "s/$j/demo.X/g; /\"file_formats\": /d" >"$tmp/j.out"
        if [ -s "$tmp/h5.out" ] && cmp -s "$tmp/h5.out" "$tmp/j.out"; then
            ok "$what: $j as demo.h5"
        else
            bad "$what: $j as demo.h5"
            diff "$tmp/h5.out" "$tmp/j.out" | head -20
        fi
    done
}
same "--json" --json
cp "$tmp/h5.out" "$tmp/h5.out.json"
same "--csv" --csv
same "--summary" --summary
same "--lines solve" --lines solve
same "--events fetch" --events fetch
# Told by content, not by name: the gzip'd JSON under an HDF5 name opens the same.
cp "$tmp/demo.json.gz" "$tmp/renamed.h5"
"$sv" --json "$tmp/renamed.h5" 2>&1 | sed 's/renamed\.h5/demo.X/g; /"file_formats": /d' >"$tmp/j.out"
if cmp -s "$tmp/j.out" "$tmp/h5.out.json"; then ok "renamed.h5 (a JSON profile) opens as JSON"; else bad "renamed.h5 (a JSON profile) opens as JSON"; fi

# Comparing: the JSON run against its HDF5 twin has nothing to flag; against a
# run whose solve is 30% slower, --check fails naming it.
"$gen" demo --layout json-gz --slow solve=30 "$tmp/slow.json.gz" || exit 99
run --check "$tmp/demo.h5" "$tmp/demo.json.gz"
if [ "$rc" -eq 0 ]; then ok "--check demo.h5 demo.json.gz: no change"; else bad "--check demo.h5 demo.json.gz: no change"; cat "$scr"; fi
run --check "$tmp/demo.json" "$tmp/slow.json.gz"
if [ "$rc" -eq 1 ] && grep -q "^region solve: total +29" "$scr"; then
    ok "--check demo.json slow.json.gz: solve slower"
else
    bad "--check demo.json slow.json.gz: solve slower"
    cat "$scr"
fi

# The info view names the container and the layout; a key the format lacks is listed there.
screen 100x30 5 "$tmp/demo.json.gz"
check "info: demo.json.gz is a gzip'd JSON profile" rowhas 5 "layout  JSON profile, gzip'd (format_version 1; schema-3 columns)"
screen 100x30 5 "$tmp/demo.json"
check "info: demo.json is a JSON profile" rowhas 5 "layout  JSON profile (format_version 1; schema-3 columns)"

# expect PATTERN FILE: exit 1, one line on stderr naming FILE and PATTERN.
expect() {
    "$sv" --json "$tmp/$2" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$2: .*$1" "$tmp/err" &&
        clean "$tmp/err"; then
        ok "$2 -> 1, '$1'"
    else
        bad "$2 -> $got (want 1), '$1'"
    fi
}
head='{"format": "scope-profiler-profile", "format_version": 1'
region() { printf '%s, "regions": [{"name": "r", "rank": 0, "start_times_ns": %s, "end_times_ns": %s}]}' "$head" "$1" "$2"; }
head -c 4000 "$tmp/demo.json" >"$tmp/truncated.json"
expect "JSON regions\[[0-9]*\].*premature EOF" truncated.json
gzip -c "$tmp/demo.json" | head -c 3000 >"$tmp/truncated.json.gz"
expect "gzip: unexpected end of file" truncated.json.gz
printf '%s, "regions": [}' "$head" >"$tmp/malformed.json"
expect "JSON regions\[0\] (byte [0-9]*): malformed JSON" malformed.json
printf '{"format": "chrome-trace", "format_version": 1}' >"$tmp/other.json"
expect 'JSON format (byte [0-9]*): format "chrome-trace" is not a scope-profiler profile' other.json
printf '{"format": "scope-profiler-profile", "format_version": 2}' >"$tmp/version.json"
expect "format_version 2 is not one this scopeview reads (1); upgrade scopeview" version.json
printf '{"format_version": 1, "regions": []}' >"$tmp/noformat.json"
expect 'not a scope-profiler profile: a JSON object without "format"' noformat.json
region '[1, 99999999999999999999]' '[2, 3]' >"$tmp/range.json"
expect "JSON regions\[0\].start_times_ns\[1\] (byte [0-9]*): integer out of range" range.json
region '[1.5]' '[2]' >"$tmp/float.json"
expect "JSON regions\[0\].start_times_ns\[0\] (byte [0-9]*): not an integer (a number)" float.json
printf '%s, "regions": [{"name": "r", "rank": -2}]}' "$head" >"$tmp/rank.json"
expect "JSON regions\[0\].rank (byte [0-9]*): rank -2 is outside" rank.json
printf '%s, "metadata": {"host": "a\377b"}}' "$head" >"$tmp/utf8.json"
expect "JSON metadata.host (byte [0-9]*): malformed JSON: lexical error: invalid bytes in UTF8 string" utf8.json
{ printf '%s, "metadata": {"x": "' "$head"; head -c 20000000 /dev/zero | tr '\0' a; printf '"}}'; } >"$tmp/huge.json"
expect "JSON metadata.x (byte [0-9]*): a string or number longer than 16 MiB" huge.json
{ printf '%s, "regions": [], "x": ' "$head"; head -c 1000 /dev/zero | tr '\0' '['; } >"$tmp/deep.json"
expect "nested deeper than 32 containers" deep.json
printf '%s, "regions": []} {}' "$head" >"$tmp/trailing.json"
expect "JSON (top level) (byte 74): malformed JSON: parse error: trailing garbage" trailing.json
# A document past --memory: refused with the budget's message, not an out-of-memory crash.
"$gen" bench-schema3 "$tmp/big.json.gz" --calls 2000000 --json --gzip || exit 99
"$sv" --json --memory 16M "$tmp/big.json.gz" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "big.json.gz: the load needs more than the memory budget of 16 MiB" "$tmp/err"; then
    ok "2M calls under --memory 16M: the budget's message"
else
    bad "2M calls under --memory 16M: the budget's message"
fi
# The viewer over --memory: the in-memory load is refused, and so is the out-of-core
# one (a JSON profile is not streamed), naming the columns by their JSON path.
"$sv" --batch --size 100x30 --memory 16M "$tmp/big.json.gz" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q "the biggest columns: regions\[[0-9]\].end_times_ns 3.1 MiB, .*a schema 1 file or a JSON profile must fit the budget" "$tmp/err"; then
    ok "viewer under --memory 16M: refused, the columns named"
else
    bad "viewer under --memory 16M: refused, the columns named"
fi
# The memory rule: the viewer's whole headless run (statistics, nesting, lanes) and --json on
# those 2M calls hold at most 2 x their columns (32 MB) + 32 MiB, the loading child included.
if grep -q __asan_init "$sv"; then
    echo "peak RSS not checked: AddressSanitizer build" # its shadow memory dominates
else
    limit=$(((2 * 32000000 + 32 * 1048576) / 1024))
    for mode in "--batch --size 100x30" --json; do
        # shellcheck disable=SC2086 # two words
        env -u TERM "$top_build/tests/peakrss" "$tmp/kib" "$sv" $mode "$tmp/big.json.gz" >/dev/null 2>"$tmp/err"
        kib=$(cat "$tmp/kib" 2>/dev/null || echo 0)
        if [ "$kib" -gt 0 ] && [ "$kib" -le "$limit" ]; then
            ok "2M calls, $mode: peak RSS $kib KiB <= $limit KiB"
        else
            bad "2M calls, $mode: peak RSS $kib KiB <= $limit KiB"
        fi
    done
fi
# A region that breaks the layout's rules is dropped with a warning; the others load.
printf '%s, "regions": [{"name": "a", "rank": 0, "start_times_ns": [5, 6], "end_times_ns": [1, 9]}, {"name": "b", "rank": 0, "start_times_ns": [1], "end_times_ns": [2], "colour": 1}]}' "$head" >"$tmp/semantic.json"
run --json "$tmp/semantic.json"
if [ "$rc" -eq 0 ] && grep -q "rank 0: region a: key regions\[0\].end_times_ns: end < start at call 0" "$tmp/err" &&
    grep -q "JSON regions\[1\].colour: key not part of format_version 1; ignored" "$tmp/err" &&
    [ "$(grep -c '"name": ' "$scr")" -eq 1 ]; then
    ok "semantic faults: a warning each, region b loads"
else
    bad "semantic faults: a warning each, region b loads"
fi
screen 200x40 5 "$tmp/semantic.json"
check "info: the unknown key is listed" has "JSON regions\[1\].colour: key not part of format_version 1; ignored" "$scr"
finish
