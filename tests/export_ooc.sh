#!/bin/sh
# --export and --folded out of core (--out-of-core, or a file whose calls exceed --memory):
# the same output as the in-memory export of the same file (export.sh checks that one by
# hand), with the filter, a time range and --folded-ranks: folded stacks and speedscope byte
# for byte, the Chrome trace as a set of events; folded stacks of a rank nested from its call
# ids too, and the events of one within the budget (over it they fail with one line and
# leave no output file, as folded stacks of a time range do); a full device and a closed pipe
# behave as in memory; stored statistics that are not the calls' start the sweep over.
. "${0%/*}/lib.sh"

gen="$top_build/svgen"
"$gen" stream-mix "$tmp/t.h5" --calls 20000 --ranks 3 --threads >/dev/null || exit 99
"$gen" stream-mix "$tmp/ids.h5" --calls 3000 --ids >/dev/null || exit 99

# --- folded stacks: byte for byte the in-memory lines
for args in "" "--folded-ranks" "-i main" "-x io/write" "-i rec -i step" \
    "-x rec --ranks 0,2 --folded-ranks" "--from 0ns"; do
    # shellcheck disable=SC2086 # word splitting of args is wanted
    "$sv" --folded $args "$tmp/t.h5" >"$tmp/mem.txt" 2>"$tmp/mem.err"
    # shellcheck disable=SC2086
    run --folded --out-of-core $args "$tmp/t.h5"
    check "folded '$args' out of core: exit 0" [ "$rc" = 0 ]
    check "folded '$args' out of core: some lines" [ -s "$tmp/out" ]
    check "folded '$args' out of core: the in-memory lines" cmp -s "$tmp/mem.txt" "$tmp/out"
done
# Over the budget the export goes out of core by itself, as the viewer does: a file larger
# than --memory at once, a smaller one when its load finds it (in memory neither loads).
"$gen" stream-mix "$tmp/m.h5" --calls 100000 --ranks 2 --threads >/dev/null || exit 99
"$sv" --folded "$tmp/m.h5" >"$tmp/mem.txt"
for mem in 2M 8M; do
    run --folded --memory $mem "$tmp/m.h5"
    check "folded over --memory $mem: exit 0" [ "$rc" = 0 ]
    check "folded over --memory $mem: the in-memory lines" cmp -s "$tmp/mem.txt" "$tmp/out"
done
"$gen" stream-mix "$tmp/mids.h5" --calls 100000 --ids >/dev/null || exit 99
run --folded --memory 2M "$tmp/mids.h5"
check "folded over --memory, call ids: out of core, said" has "mids.h5: out of core: .*call ids" "$tmp/err"

# A range narrower than the calls needs them in memory.
run --export folded --out-of-core --from 1us "$tmp/t.h5" "$tmp/o.txt"
check "folded --from out of core: exit 1" [ "$rc" = 1 ]
check "folded --from out of core: one line" [ "$(lines "$tmp/err")" = 1 ]
check "folded --from out of core: says why" has "t.h5: out of core, folded stacks of a time range" "$tmp/err"
check "folded --from out of core: no output file" [ ! -e "$tmp/o.txt" ]

# --- Chrome trace: the in-memory events as a set (out of core they come in the sweep's
# order).  The sweep reads the await and GPU columns for it; these files have no call ids
# (a rank with them is done in memory, below).
events() { # FILE: its events, one a line, sorted
    grep '^{"ph"' "$1" | sed -e 's/},*$/}/' | LC_ALL=C sort
}
"$gen" stream-mix "$tmp/nt.h5" --calls 20000 --ranks 2 >/dev/null || exit 99
for f in t nt; do
    for args in "" "-i main" "-x rec" "--ranks 1"; do
        # shellcheck disable=SC2086 # word splitting of args is wanted
        "$sv" --export chrome $args "$tmp/$f.h5" "$tmp/mem.json" 2>"$tmp/mem.err"
        # shellcheck disable=SC2086
        run --export chrome --out-of-core $args "$tmp/$f.h5" "$tmp/ooc.json"
        check "chrome $f.h5 '$args' out of core: exit 0" [ "$rc" = 0 ]
        check "chrome $f.h5 '$args' out of core: valid JSON" "$top_build/tests/outcheck" json "$tmp/ooc.json"
        events "$tmp/mem.json" >"$tmp/mem.ev"
        events "$tmp/ooc.json" >"$tmp/ooc.ev"
        check "chrome $f.h5 '$args' out of core: events" [ "$(lines "$tmp/ooc.ev")" -gt 100 ]
        check "chrome $f.h5 '$args' out of core: the in-memory events" cmp -s "$tmp/mem.ev" "$tmp/ooc.ev"
        check "chrome $f.h5 '$args' out of core: the same warnings" cmp -s "$tmp/mem.err" "$tmp/err"
    done
done
check "chrome out of core: no call id written" hasnt '"call_id"' "$tmp/ooc.json"
check "chrome out of core: await times written" has '"await_us":' "$tmp/ooc.json"
check "chrome out of core: GPU times written" has '"gpu_us":' "$tmp/ooc.json"
# A time range: the calls overlapping it, cut to it (a call cut at 300 us opens there), the
# lanes with none left out of the M events, as in memory; the same overlap warning.
for f in t nt; do
    for args in "--from 300us --to 700us" "--from 1ms" "--to 500us -x rec" "--from 0ns --to 1ns"; do
        # shellcheck disable=SC2086 # word splitting of args is wanted
        "$sv" --export chrome $args "$tmp/$f.h5" "$tmp/mem.json" 2>"$tmp/mem.err"
        # shellcheck disable=SC2086
        run --export chrome --out-of-core $args "$tmp/$f.h5" "$tmp/ooc.json"
        check "chrome $f.h5 '$args' out of core: exit 0" [ "$rc" = 0 ]
        check "chrome $f.h5 '$args' out of core: valid JSON" "$top_build/tests/outcheck" json "$tmp/ooc.json"
        events "$tmp/mem.json" >"$tmp/mem.ev"
        events "$tmp/ooc.json" >"$tmp/ooc.ev"
        check "chrome $f.h5 '$args' out of core: the in-memory events" cmp -s "$tmp/mem.ev" "$tmp/ooc.ev"
        check "chrome $f.h5 '$args' out of core: the same warnings" cmp -s "$tmp/mem.err" "$tmp/err"
    done
done
run --export chrome --out-of-core --from 300us --to 700us "$tmp/t.h5" "$tmp/ooc.json"
check "chrome --from 300us out of core: a call cut at the range's start" has '"ph":"B",.*"ts":300.000,' "$tmp/ooc.json"
check "chrome --to 700us out of core: a call cut at the range's end" has '"ph":"E",.*"ts":700.000,' "$tmp/ooc.json"
check "chrome --to 700us out of core: nothing later" hasnt '"ts":7[0-9][0-9]\.[0-9]*[1-9]' "$tmp/ooc.json"
"$sv" --export chrome "$tmp/t.h5" "$tmp/all.json"
run --export chrome --out-of-core --from 0ns --to 1ns "$tmp/t.h5" "$tmp/ooc.json"
check "chrome of the first ns out of core: fewer lanes named" \
    [ "$(grep -c '"thread_name"' "$tmp/ooc.json")" -lt "$(grep -c '"thread_name"' "$tmp/all.json")" ]
"$sv" --export chrome "$tmp/m.h5" "$tmp/mem.json"
run --export chrome --memory 2M "$tmp/m.h5" "$tmp/ooc.json"
check "chrome over --memory: exit 0" [ "$rc" = 0 ]
events "$tmp/mem.json" >"$tmp/mem.ev"
events "$tmp/ooc.json" >"$tmp/ooc.ev"
check "chrome over --memory: the in-memory events" cmp -s "$tmp/mem.ev" "$tmp/ooc.ev"

# --- speedscope: the lanes' events spilled by lane and written in the timeline's order, so
# the document is the in-memory one byte for byte.
for f in t nt; do
    for args in "" "-i main" "-x rec" "--ranks 1"; do
        # shellcheck disable=SC2086 # word splitting of args is wanted
        "$sv" --export speedscope $args "$tmp/$f.h5" "$tmp/mem.json" 2>"$tmp/mem.err"
        # shellcheck disable=SC2086
        run --export speedscope --out-of-core $args "$tmp/$f.h5" "$tmp/ooc.json"
        check "speedscope $f.h5 '$args' out of core: exit 0" [ "$rc" = 0 ]
        check "speedscope $f.h5 '$args' out of core: profiles" [ "$(grep -c '"type":"evented"' "$tmp/ooc.json")" -gt 0 ]
        check "speedscope $f.h5 '$args' out of core: the in-memory document" cmp -s "$tmp/mem.json" "$tmp/ooc.json"
        check "speedscope $f.h5 '$args' out of core: the same warnings" cmp -s "$tmp/mem.err" "$tmp/err"
    done
done
# Gaps of seconds between a lane's events (the spill packs a time since the event before
# in 32 bits, a longer one whole): main [0 s, 20 s] holding a at 1 s and 10 s, main at 30 s.
cat >"$tmp/gap.json" <<'EOF'
{"format": "scope-profiler-profile", "format_version": 1, "time_unit": "nanoseconds",
 "num_ranks": 1, "event_data_available": true, "metadata": {}, "regions": [
 {"name": "main", "rank": 0, "start_times_ns": [1000000000000, 1030000000000],
  "end_times_ns": [1020000000000, 1031000000000]},
 {"name": "a", "rank": 0, "start_times_ns": [1001000000000, 1010000000000],
  "end_times_ns": [1002000000000, 1010500000000]}]}
EOF
run --export speedscope --out-of-core "$tmp/gap.json" -
check "speedscope of gaps of seconds out of core: exit 0" [ "$rc" = 0 ]
check "speedscope of gaps of seconds out of core: the events by hand" has \
    '"events":\[{"type":"O","frame":1,"at":0},{"type":"O","frame":0,"at":1000000000},{"type":"C","frame":0,"at":2000000000},{"type":"O","frame":0,"at":10000000000},{"type":"C","frame":0,"at":10500000000},{"type":"C","frame":1,"at":20000000000},{"type":"O","frame":1,"at":30000000000},{"type":"C","frame":1,"at":31000000000}\]' "$tmp/out"
"$sv" --export speedscope "$tmp/m.h5" "$tmp/mem.json"
run --export speedscope --memory 2M "$tmp/m.h5" -
check "speedscope over --memory to stdout: exit 0" [ "$rc" = 0 ]
check "speedscope over --memory: the in-memory document" cmp -s "$tmp/mem.json" "$tmp/out"
for f in t nt; do
    for args in "--from 300us --to 700us" "--from 1ms" "--to 500us -i main" "--from 0ns --to 1ns"; do
        # shellcheck disable=SC2086 # word splitting of args is wanted
        "$sv" --export speedscope $args "$tmp/$f.h5" "$tmp/mem.json" 2>"$tmp/mem.err"
        # shellcheck disable=SC2086
        run --export speedscope --out-of-core $args "$tmp/$f.h5" "$tmp/ooc.json"
        check "speedscope $f.h5 '$args' out of core: exit 0" [ "$rc" = 0 ]
        check "speedscope $f.h5 '$args' out of core: the in-memory document" cmp -s "$tmp/mem.json" "$tmp/ooc.json"
        check "speedscope $f.h5 '$args' out of core: the same warnings" cmp -s "$tmp/mem.err" "$tmp/err"
    done
done
run --export speedscope --out-of-core --from 300us --to 700us "$tmp/t.h5" "$tmp/ooc.json"
check "speedscope --from 300us out of core: a call opened at the range's start" has '"type":"O","frame":[0-9]*,"at":300000}' "$tmp/ooc.json"
check "speedscope --to 700us out of core: profiles end at the range's end" has '"endValue":700000,' "$tmp/ooc.json"

# A closed pipe: 141, nothing said, as in memory.
for fmt in chrome speedscope; do
    sh -c "'$sv' --export $fmt --out-of-core '$tmp/m.h5' - 2>'$tmp/err'; echo \$? >'$tmp/rc'" | head -c 10 >/dev/null
    check "$fmt out of core to a closed pipe: 141" [ "$(cat "$tmp/rc")" = 141 ]
    check "$fmt out of core to a closed pipe: nothing said" [ ! -s "$tmp/err" ]
done

# --- ranks swept as the file is read (a rank without call ids or lanes columns is read once):
# the sweep guesses the span and the time zero from the stored statistics.  Here main's first
# start is stored 1 ns early (with -x main only the zero is wrong): the sweep starts over at
# the file's end (the output file rewound) and every export is the in-memory one; a Chrome
# trace to a pipe, which cannot rewind, is swept at the file's end.
"$gen" stream-mix "$tmp/bad.h5" --calls 20000 --ranks 2 --bad-summary >/dev/null || exit 99
for args in "" "-x main" "--ranks 1"; do
    for e in folded speedscope chrome; do
        # shellcheck disable=SC2086 # word splitting of args is wanted
        "$sv" --export $e $args "$tmp/bad.h5" "$tmp/mem.json" 2>"$tmp/mem.err"
        # shellcheck disable=SC2086
        run --export $e --out-of-core $args "$tmp/bad.h5" "$tmp/ooc.json"
        check "$e of stored statistics not the calls' '$args' out of core: exit 0" [ "$rc" = 0 ]
        check "$e of stored statistics not the calls' '$args' out of core: the same warnings" \
            cmp -s "$tmp/mem.err" "$tmp/err"
        if [ "$e" = chrome ]; then
            events "$tmp/mem.json" >"$tmp/mem.ev"
            events "$tmp/ooc.json" >"$tmp/ooc.ev"
            check "chrome of stored statistics not the calls' '$args' out of core: valid JSON" \
                "$top_build/tests/outcheck" json "$tmp/ooc.json"
            check "chrome of stored statistics not the calls' '$args' out of core: the in-memory events" \
                cmp -s "$tmp/mem.ev" "$tmp/ooc.ev"
            # shellcheck disable=SC2086
            "$sv" --export chrome --out-of-core $args "$tmp/bad.h5" - 2>/dev/null | cat >"$tmp/pipe.json"
            check "chrome of stored statistics not the calls' '$args' through a pipe: the same document" \
                cmp -s "$tmp/ooc.json" "$tmp/pipe.json"
        else
            check "$e of stored statistics not the calls' '$args' out of core: the in-memory output" \
                cmp -s "$tmp/mem.json" "$tmp/ooc.json"
        fi
    done
done

# --- call ids: the sweep does not follow them.  Folded stacks come from the call paths, which
# a rank nested in memory from its ids gives as the in-memory tree does.
run --export folded --out-of-core "$tmp/ids.h5" "$tmp/o.txt"
check "folded of call ids out of core: exit 0" [ "$rc" = 0 ]
"$sv" --export folded "$tmp/ids.h5" "$tmp/mem.txt"
check "folded of call ids out of core: the in-memory lines" cmp -s "$tmp/mem.txt" "$tmp/o.txt"
rm -f "$tmp/o.txt"
# The events of a rank nested from its call ids, done in memory within the budget, walked as
# in memory: the same events with their call ids (the Chrome trace compared whole here),
# the same speedscope document; a row out of start order the same.  Over the budget the
# export fails with the reason and no output file.
"$gen" stream-mix "$tmp/ids3.h5" --calls 20000 --ids --ranks 3 --threads >/dev/null || exit 99
"$gen" stream-mix "$tmp/uns.h5" --calls 20000 --unsorted --ranks 2 >/dev/null || exit 99
all_events() { # FILE: its events, one a line, sorted
    grep '^{"ph"' "$1" | sed -e 's/},*$/}/' | LC_ALL=C sort
}
for f in ids ids3 uns; do
    for args in "" "--from 300us --to 700us" "-x rec"; do
        # shellcheck disable=SC2086 # word splitting of args is wanted
        "$sv" --export chrome $args "$tmp/$f.h5" "$tmp/mem.json" 2>"$tmp/mem.err"
        # shellcheck disable=SC2086
        run --export chrome --out-of-core $args "$tmp/$f.h5" "$tmp/ooc.json"
        check "chrome $f.h5 '$args' out of core: exit 0" [ "$rc" = 0 ]
        all_events "$tmp/mem.json" >"$tmp/mem.ev"
        all_events "$tmp/ooc.json" >"$tmp/ooc.ev"
        check "chrome $f.h5 '$args' out of core: events" [ "$(lines "$tmp/ooc.ev")" -gt 100 ]
        check "chrome $f.h5 '$args' out of core: the in-memory events, call ids too" cmp -s "$tmp/mem.ev" "$tmp/ooc.ev"
        check "chrome $f.h5 '$args' out of core: the same warnings" cmp -s "$tmp/mem.err" "$tmp/err"
        # shellcheck disable=SC2086
        "$sv" --export speedscope $args "$tmp/$f.h5" "$tmp/mem.json" 2>"$tmp/mem.err"
        # shellcheck disable=SC2086
        run --export speedscope --out-of-core $args "$tmp/$f.h5" "$tmp/ooc.json"
        check "speedscope $f.h5 '$args' out of core: exit 0" [ "$rc" = 0 ]
        check "speedscope $f.h5 '$args' out of core: the in-memory document" cmp -s "$tmp/mem.json" "$tmp/ooc.json"
    done
done
"$sv" --export chrome --out-of-core "$tmp/ids3.h5" "$tmp/ooc.json"
check "chrome of call ids out of core: call ids written" [ "$(grep -c '"call_id":' "$tmp/ooc.json")" -gt 1000 ]
check "chrome of call ids out of core: await times written" has '"await_us":' "$tmp/ooc.json"
check "chrome of call ids out of core: GPU times written" has '"gpu_us":' "$tmp/ooc.json"
for fmt in chrome speedscope; do
    run --export $fmt --memory 2M "$tmp/mids.h5" "$tmp/o.txt"
    check "$fmt of call ids over the budget: exit 1" [ "$rc" = 1 ]
    check "$fmt of call ids over the budget: names the file and why" has "mids.h5: out of core: .*call ids" "$tmp/err"
    check "$fmt of call ids over the budget: no output file" [ ! -e "$tmp/o.txt" ]
done

# A rank swept by time whose rows have call ids but not all of them parent ids: the sweep
# nests it by start and end, and a call of a row with ids carries its call_id, as in memory
# (outer's two calls 7 and 9; inner has none).
printf '%s' '{"format": "scope-profiler-profile", "format_version": 1, "time_unit": "nanoseconds",
 "num_ranks": 1, "event_data_available": true, "metadata": {}, "regions": [
 {"name": "outer", "rank": 0, "start_times_ns": [1000, 5000], "end_times_ns": [4000, 9000],
  "call_ids": [7, 9], "parent_ids": [-1, -1]},
 {"name": "inner", "rank": 0, "start_times_ns": [1500, 6000], "end_times_ns": [2500, 8000]}]}' >"$tmp/mixid.json"
run --export chrome --out-of-core "$tmp/mixid.json" "$tmp/ooc.json"
check "chrome of a row's call ids swept by time: exit 0" [ "$rc" = 0 ]
check "chrome of a row's call ids swept by time: outer's first id" has '"ts":0.000,"name":"outer","cat":"region","args":{"call_index":0,"call_id":7}}' "$tmp/ooc.json"
check "chrome of a row's call ids swept by time: outer's second id" has '"ts":4.000,"name":"outer","cat":"region","args":{"call_index":1,"call_id":9}}' "$tmp/ooc.json"
check "chrome of a row's call ids swept by time: none for inner" [ "$(grep '"name":"inner"' "$tmp/ooc.json" | grep -c '"call_id"')" = 0 ]
"$sv" --export chrome "$tmp/mixid.json" "$tmp/mem.json"
all_events "$tmp/mem.json" >"$tmp/mem.ev"
all_events "$tmp/ooc.json" >"$tmp/ooc.ev"
check "chrome of a row's call ids swept by time: the in-memory events" cmp -s "$tmp/mem.ev" "$tmp/ooc.ev"
# The same read from a file's columns (tests/gen/FIXTURES.md col3_call_only.h5: no parent ids;
# inner's ids the sentinel -1, which in memory are its call ids too).
need_fixture "$fx/col3_call_only.h5"
run --export chrome --out-of-core "$fx/col3_call_only.h5" "$tmp/ooc.json"
check "chrome of call ids without parents out of core: exit 0" [ "$rc" = 0 ]
check "chrome of call ids without parents out of core: outer's ids" [ "$(grep '"name":"outer","cat"' "$tmp/ooc.json" | sed -n 's/.*"call_id":\([-0-9]*\).*/\1/p' | tr '\n' ' ')" = "7 9 " ]
check "chrome of call ids without parents out of core: inner's ids" [ "$(grep '"name":"inner","cat"' "$tmp/ooc.json" | sed -n 's/.*"call_id":\([-0-9]*\).*/\1/p' | tr '\n' ' ')" = "-1 -1 " ]
"$sv" --export chrome "$fx/col3_call_only.h5" "$tmp/mem.json"
all_events "$tmp/mem.json" >"$tmp/mem.ev"
all_events "$tmp/ooc.json" >"$tmp/ooc.ev"
check "chrome of call ids without parents out of core: the in-memory events" cmp -s "$tmp/mem.ev" "$tmp/ooc.ev"

# --- a full device, as in memory
if [ -w /dev/full ]; then
    for fmt in folded chrome speedscope; do
        run --export $fmt --out-of-core "$tmp/t.h5" /dev/full
        check "$fmt out of core to /dev/full: exit 1" [ "$rc" = 1 ]
        check "$fmt out of core to /dev/full: the reason" has "cannot write /dev/full: No space left on device" "$tmp/err"
    done
fi
finish
