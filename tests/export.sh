#!/bin/sh
# --export chrome|speedscope|folded and --folded on the command line: usage errors, the
# output file (never the input, never half written, /dev/full, a closed pipe, a file size
# limit), the filter and the time range, hostile names; figures worked out by hand from
# tests/gen/FIXTURES.md.  speedscope's own reading of the exports: export_speedscope.sh.
. "${0%/*}/lib.sh"

oc="$top_build/tests/outcheck"
small="$fx/small.h5"
nested="$fx/nested_names.h5"
need_fixture "$small" || exit 99

# --- usage errors: one line, exit 2, nothing written
for args in "--export bogus $small $tmp/o.json" "--export chrome $small" \
    "--export chrome --json $small $tmp/o.json" "--folded --events outer $small" \
    "--folded --from 1x $small" "--folded --from 2ms --to 1ms $small" "--json --from 1ms $small" \
    "--folded --to -1us $small" "--folded --from 0.0001ns $small" "--folded --rank 0 $small" \
    "--export chrome --folded $small $tmp/o.json"; do
    # shellcheck disable=SC2086 # word splitting of args is wanted
    run $args
    check "'$args' exits 2" [ "$rc" = 2 ]
    check "'$args' gives one line on stderr" [ "$(lines "$tmp/err")" = 1 ]
    check "'$args' prints nothing" [ ! -s "$tmp/out" ]
    check "'$args' writes no file" [ ! -e "$tmp/o.json" ]
done

# --- folded stacks by hand (FIXTURES.md: outer's own time 400 + 200, inner 100 + 500 + 400;
# io/write has no length, so its path has no own time and no line)
run --folded "$small"
check "--folded exits 0" [ "$rc" = 0 ]
printf 'outer 600\nouter;inner 1000\n' >"$tmp/want"
check "--folded: outer 600, outer;inner 1000" cmp -s "$tmp/want" "$tmp/out"
run --export folded "$small" -
check "--export folded FILE - is --folded" cmp -s "$tmp/want" "$tmp/out"
# [1050 ns, 1700 ns) from the zero (1000 ns) is [2050, 2700): outer[1] cut to 650 ns less
# inner[1] [2100, 2600] and inner[2] cut to [2500, 2700]: 50 own; inner 500 + 200.
run --folded --from 1050ns --to 1.7us "$small"
printf 'outer 50\nouter;inner 700\n' >"$tmp/want"
check "--folded --from 1050ns --to 1.7us: outer 50, outer;inner 700" cmp -s "$tmp/want" "$tmp/out"
run --folded --from 0.00000105 --to 1.7us "$small"
check "a bare --from is seconds" cmp -s "$tmp/want" "$tmp/out"
# nested_names: io [0,10] holds io/checkpoint [1,2] and io/summary [3,4]; deep/a/b/c
# [20,30] on rank 0, [5,7] on rank 2.
run --folded-ranks "$nested"
printf '%s\n' 'rank 0;deep/a/b/c 10' 'rank 0;io 8' 'rank 0;io;io/checkpoint 1' \
    'rank 0;io;io/summary 1' 'rank 2;deep/a/b/c 2' >"$tmp/want"
check "--folded-ranks: a rank frame first" cmp -s "$tmp/want" "$tmp/out"
run --folded "$nested"
printf '%s\n' 'deep/a/b/c 12' 'io 8' 'io;io/checkpoint 1' 'io;io/summary 1' >"$tmp/want"
check "--folded merges the ranks" cmp -s "$tmp/want" "$tmp/out"
run --folded-ranks --ranks 2 "$nested"
check "--ranks 2: rank 2 alone" [ "$(cat "$tmp/out")" = "rank 2;deep/a/b/c 2" ]
run --folded -x 'io/' "$nested"
printf '%s\n' 'deep/a/b/c 12' 'io 8' >"$tmp/want"
check "-x io/: the callees' time leaves with them" cmp -s "$tmp/want" "$tmp/out"

# --- Chrome trace of small.h5 by hand: zero = 1000 ns; outer[0] [0, 0.5] us, exclusive
# 0.4 us (on its E); inner[0] gpu 0.05 us; io/write (no length) an instant on Worker-1
# (thread row 1: tid 4; MainThread, row 0, tid 2);
# inner[1] [1.1, 1.6] overlaps inner[2] [1.5, 1.9] partly: it ends at 1.5.
run --export chrome "$small" -
check "chrome exits 0" [ "$rc" = 0 ]
check "chrome: valid JSON, clean" "$oc" json "$tmp/out"
cp "$tmp/out" "$tmp/chrome.json"
check "chrome: displayTimeUnit ns" hasf '"displayTimeUnit":"ns"'
check "chrome: rank 0 is pid 1" hasf '{"ph":"M","pid":1,"name":"process_name","args":{"name":"rank 0"}}'
check "chrome: MainThread is tid 2" hasf '"pid":1,"tid":2,"name":"thread_name","args":{"name":"r0 MainThread"}}'
check "chrome: Worker-1 is tid 4" hasf '"pid":1,"tid":4,"name":"thread_name","args":{"name":"r0 Worker-1"}}'
check "chrome: thread_sort_index" hasf '"tid":4,"name":"thread_sort_index","args":{"sort_index":1}}'
check "chrome: outer[0] opens at 0" hasf '{"ph":"B","pid":1,"tid":2,"ts":0.000,"name":"outer","cat":"region","args":{"call_index":0,"call_id":1}}'
check "chrome: outer[0] closes at 0.5 us, 0.4 us its own" hasf '{"ph":"E","pid":1,"tid":2,"ts":0.500,"name":"outer","args":{"exclusive_us":0.400}}'
check "chrome: inner[0] with its GPU time" hasf '"ts":0.100,"name":"inner","cat":"region","args":{"call_index":0,"call_id":2,"gpu_us":0.050}}'
check "chrome: inner[0] closes with its exclusive time" hasf '"ts":0.200,"name":"inner","args":{"exclusive_us":0.100}}'
check "chrome: io/write an instant with its await time" hasf '{"ph":"i","s":"t","pid":1,"tid":4,"ts":0.300,"name":"io/write","cat":"region","args":{"call_index":0,"call_id":3,"exclusive_us":0.000,"await_us":0.000}}'
check "chrome: inner[1] cut where inner[2] starts" hasf '{"ph":"E","pid":1,"tid":2,"ts":1.500,"name":"inner","args":{"exclusive_us":0.500}}'
check "chrome: 5 opens, 5 closes" [ "$(grep -c '"ph":"B"' "$tmp/out")" = 5 ] && [ "$(grep -c '"ph":"E"' "$tmp/out")" = 5 ]
check "chrome: the cut is said once" [ "$(grep -c 'overlap a later call' "$tmp/err")" = 1 ]
run --export chrome --from 1050ns --to 1.7us "$small" -
check "chrome --from/--to: outer[1] opens at the range's start" hasf '{"ph":"B","pid":1,"tid":2,"ts":1.050,"name":"outer"'
check "chrome --from/--to: inner[2] closes at its end" hasf '{"ph":"E","pid":1,"tid":2,"ts":1.700,"name":"inner"'
check "chrome --from/--to: outer[0] left out" hasnt '"ts":0.000,'
run --export chrome -i inner "$small" -
check "chrome -i inner: no outer" hasnt '"name":"outer"'
check "chrome -i inner: three inner calls" [ "$(grep -c '"ph":"B".*"name":"inner"' "$tmp/out")" = 3 ]

# col3_full.h5's counters (FIXTURES.md): rank 0 outer cycles 1000, instructions 2500 at its
# first call (the zero); rank 1 solve cycles 777 at its first call, 1100 ns.
run --export chrome "$fx/col3_full.h5" -
check "chrome: counters as C events" hasf '{"ph":"C","pid":1,"ts":0.000,"name":"perf_events outer","args":{"cycles":1000,"instructions":2500}}'
check "chrome: rank 1's counters" hasf '{"ph":"C","pid":2,"ts":1.000,"name":"perf_events solve","args":{"cycles":777}}'
check "chrome: a task's lane" hasf '"name":"thread_name","args":{"name":"r0 Task-1"}}'

# --- speedscope's format: frames with file and line, a profile per lane, times from zero
run --export speedscope "$small" -
check "speedscope: valid JSON, clean" "$oc" json "$tmp/out"
check "speedscope: the schema" hasf '"$schema":"https://www.speedscope.app/file-format-schema.json"'
check "speedscope: outer's frame has its source" hasf '{"name":"outer","file":"app.py","line":10}'
check "speedscope: a profile per lane" [ "$(grep -c '"type":"evented"' "$tmp/out")" = 2 ]
check "speedscope: MainThread from 0 to 2 us" hasf '{"type":"evented","name":"r0 MainThread","unit":"nanoseconds","startValue":0,"endValue":2000,'
check "speedscope: Worker-1's call of no length" hasf '"name":"r0 Worker-1","unit":"nanoseconds","startValue":300,"endValue":300,"events":[{"type":"O","frame":1,"at":300},{"type":"C","frame":1,"at":300}]}'

# --- the output file
cp "$small" "$tmp/in.h5"
cksum <"$tmp/in.h5" >"$tmp/in.sum"
for fmt in chrome speedscope folded; do
    run --export $fmt "$tmp/in.h5" "$tmp/in.h5"
    check "$fmt onto its input: exit 1" [ "$rc" = 1 ]
    check "$fmt onto its input: refused" has "is the profile being exported: refusing to overwrite it" "$tmp/err"
    check "$fmt onto its input: the input unchanged" sh -c "cksum <'$tmp/in.h5' | cmp -s - '$tmp/in.sum'"
done
# Before the load: a file that is not even a profile is refused as OUT, not read.
cp "$fx/fault_not_hdf5.h5" "$tmp/junk.h5"
run --export chrome "$tmp/junk.h5" "$tmp/junk.h5"
check "onto its input: refused before the load" has "refusing to overwrite" "$tmp/err"
check "onto its input: the file was not read" hasnt "not an HDF5 file" "$tmp/err"
ln -s in.h5 "$tmp/link.h5"
run --export chrome "$tmp/in.h5" "$tmp/link.h5"
check "onto a link to the input: refused" [ "$rc" = 1 ]
check "the link unchanged" [ -L "$tmp/link.h5" ]

mkdir "$tmp/outdir"
run --export chrome "$small" "$tmp/outdir/t.json"
check "to a file: exit 0" [ "$rc" = 0 ]
check "to a file: nothing on stdout" [ ! -s "$tmp/out" ]
check "to a file: the same as to stdout" cmp -s "$tmp/chrome.json" "$tmp/outdir/t.json"
check "to a file: no temporary file left" [ "$(ls -A "$tmp/outdir")" = t.json ]
check "to a file: mode as umask gives" [ "$(umask 022 && "$sv" --folded "$small" >/dev/null && stat -c %a "$tmp/outdir/t.json")" = 644 ]

if [ -w /dev/full ]; then
    run --export chrome "$small" /dev/full
    check "/dev/full: exit 1" [ "$rc" = 1 ]
    check "/dev/full: the reason" has "cannot write /dev/full: No space left on device" "$tmp/err"
    check "/dev/full: one error" [ "$(grep -vc warning "$tmp/err")" = 1 ]
    check "/dev/full is still a device" [ -c /dev/full ]
fi
run --export chrome "$small" "$tmp/nodir/t.json"
check "a missing directory: exit 1" [ "$rc" = 1 ]
check "a missing directory: the reason" has "cannot write $tmp/nodir/t.json: No such file or directory" "$tmp/err"

# A full disk, as a file size limit: the export stops with the reason, the earlier file
# under the final name stays as it was and no temporary file is left.
"$top_build/svgen" stream-mix "$tmp/big.h5" --calls 20000 >/dev/null || exit 99
echo "earlier" >"$tmp/outdir/big.json"
(
    trap '' XFSZ
    ulimit -f 64
    exec "$sv" --export chrome "$tmp/big.h5" "$tmp/outdir/big.json"
) >"$tmp/out" 2>"$tmp/err"
rc=$?
check "past the file size limit: exit 1" [ "$rc" = 1 ]
check "past the file size limit: the reason" has "cannot write .*big.json: File too large" "$tmp/err"
check "past the file size limit: the earlier file kept" [ "$(cat "$tmp/outdir/big.json")" = earlier ]
check "past the file size limit: no temporary file" [ "$(ls -A "$tmp/outdir" | sort | tr '\n' ' ')" = "big.json t.json " ]

# A closed pipe: 141, as every output (folded stacks of big.h5 fit a pipe's buffer).
for fmt in chrome speedscope; do
    sh -c "'$sv' --export $fmt '$tmp/big.h5' - 2>'$tmp/err'; echo \$? >'$tmp/rc'" | head -c 10 >/dev/null
    check "$fmt to a closed pipe: 141" [ "$(cat "$tmp/rc")" = 141 ]
    check "$fmt to a closed pipe: nothing said" [ ! -s "$tmp/err" ]
done

# --- a file that does not load fails as every output does
run --export chrome "$fx/fault_not_hdf5.h5" "$tmp/o.json"
check "not HDF5: exit 1" [ "$rc" = 1 ]
check "not HDF5: said" has "not an HDF5 file" "$tmp/err"
check "not HDF5: nothing written" [ ! -e "$tmp/o.json" ]

# --- hostile names: valid JSON with every control escaped, clean folded text
if [ -f "$fx/fault_hostile_strings.h5" ]; then
    for fmt in chrome speedscope; do
        run --export $fmt "$fx/fault_hostile_strings.h5" -
        check "hostile names, $fmt: exit 0" [ "$rc" = 0 ]
        check "hostile names, $fmt: valid JSON, clean" "$oc" json "$tmp/out"
    done
    run --folded "$fx/fault_hostile_strings.h5"
    check "hostile names, folded: clean" "$oc" clean "$tmp/out"
    check "hostile names, folded: a weight on every line" [ -z "$(grep -v ' [0-9][0-9]*$' "$tmp/out")" ]
fi
finish
