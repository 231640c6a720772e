#!/bin/sh
# Hostile and changing files, each written by tests/hostile_gen (whose comments give
# the contents every expectation here follows from): the isolated load (src/isolate/isolate.c),
# the memory budget (budget.c), checked time arithmetic, warnings capped (warncap.c), the
# messages that must tell the truth.  Every run checks its exit status and stderr; the memory
# checks read the peak RSS of scopeview and its loading child (tests/peakrss, wait4).
. "${0%/*}/lib.sh"
gen="$top_build/tests/hostile_gen"
peak="$top_build/tests/peakrss"
need_fixture "$gen" "$peak" "$fx/small.h5"
h="$tmp/h"
mkdir -p "$h"
err="$tmp/err"

# runp LIMIT_KB ARGS...: run, then check the peak RSS against LIMIT_KB.
runp() {
    lim=$1
    shift
    "$peak" "$tmp/rss" "$sv" "$@" >"$scr" 2>"$err"
    rc=$?
    rss=$(cat "$tmp/rss")
}
under() { [ "$rss" -le "$1" ]; }
one_line() { [ "$(lines "$err")" = 1 ]; }
asan=no
grep -q __asan_init "$sv" && asan=yes

# --- a call 1e19 ns after the profile's zero (beyond INT64_MAX): never negative, never wrapped.
"$gen" span "$h/span.h5"
run --events late --csv "$h/span.h5"
check "span: --events exit 0" [ "$rc" = 0 ]
# 5e18 - (-5e18) = 1e19 ns = 10000000000 s, widened to a double (exact here).
check "span: start 1e10 s, not negative" hasf "0,0,10000000000,10000000000,2e-07,2e-07"
check "span: no minus sign in the times" hasnt ',-'
run --events late "$h/span.h5"
check "span: text start 10000000000.0 s" hasf "10000000000.0 s"
screen 120x20 '<Down><Enter>' "$h/span.h5"
check "span: the timeline draws (exit 0)" [ "$rc" = 0 ]
check "span: no negative time on the timeline" hasnt ' -[0-9]'

# --- a duration that overflows: named so, not "ends before it starts".
"$gen" overflow "$h/overflow.h5"
run --summary "$h/overflow.h5"
check "overflow: exit 0 (the region is dropped)" [ "$rc" = 0 ]
check "overflow: the warning says the duration overflows" \
    hasf "region huge: call 0 lasts longer than 2^63 ns (start -5000000000000000000, end 5000000000000000000); region dropped" "$err"
check "overflow: not 'ends before it starts'" hasnt "before it starts" "$err"
check "overflow: the other region stays" has "^ok " "$scr"

# --- source line numbers from INT64_MAX - 1: 9223372036854775806, ...807, ...808.
"$gen" lineno "$h/lineno.h5"
screen 80x12 '3s' "$h/lineno.h5"
check "lineno: exit 0" [ "$rc" = 0 ]
check "lineno: first line number" hasf "9223372036854775806 │ a = 1"
check "lineno: INT64_MAX" hasf "9223372036854775807 │ b = 2"
check "lineno: past INT64_MAX, not negative" hasf "9223372036854775808 │ c = 3"

# --- CSV cells a spreadsheet would run: a leading ' (OWASP), none with --csv-raw.
"$gen" formula "$h/formula.h5"
run --csv "$h/formula.h5"
check "csv: =1+1 prefixed" has "^\"'=1+1\",0,1,"
check "csv: +1 prefixed" has "^\"'+1\",0,1,"
check "csv: -1 prefixed" has "^\"'-1\",0,1,"
check "csv: @SUM(1) prefixed" has "^\"'@SUM(1)\",0,1,"
check "csv: plain name untouched" has "^plain,0,1,"
check "csv: source file =evil.py prefixed" hasf ",\"'=evil.py\","
check "csv: numbers untouched (no ' before a number)" hasnt ",\"'[0-9]"
run --csv --csv-raw "$h/formula.h5"
check "csv-raw: cells as they are" has "^=1+1,0,1,"
check "csv-raw: source file as it is" hasf ",=evil.py,"
run --events '=1+1' --csv "$h/formula.h5"
check "events csv: exit 0" [ "$rc" = 0 ]

# --- a full disk: the reason, not "write error".
if [ -w /dev/full ]; then
    "$sv" --events inner --rank 0 "$fx/small.h5" >/dev/full 2>"$err"
    rc=$?
    check "full disk: --events exit 1" [ "$rc" = 1 ]
    check "full disk: says No space left on device" \
        hasf "scopeview: cannot write the output: No space left on device" "$err"
fi

# --- 3000 warnings of one kind: 100, then one counting line.
"$gen" warnings "$h/warn.h5" 3000
run --summary "$h/warn.h5"
check "warnings: exit 0" [ "$rc" = 0 ]
check "warnings: 101 lines on stderr" [ "$(lines "$err")" = 101 ]
check "warnings: the count of the rest" \
    hasf "scopeview: warning: and 2 900 more like it: 2 elements, start_times has 1; column dropped" "$err"
screen 100x300 '5' "$h/warn.h5"
check "warnings: the info view has the count too" hasf "and 2 900 more like it"

# --- stored summaries that contradict themselves: warned, shown as stored.
"$gen" stored "$h/stored.h5"
run --json "$h/stored.h5"
check "stored: exit 0" [ "$rc" = 0 ]
check "stored: negative num_calls" hasf "region neg: stored summary: num_calls is negative" "$err"
check "stored: negative std" hasf "region neg: stored summary: std_ns is negative" "$err"
check "stored: first start after last end" \
    hasf "region backwards: stored summary: first_start_ns is after last_end_ns" "$err"
check "stored: nothing about the consistent one" hasnt "region fine" "$err"
check "stored: 3 warnings" [ "$(lines "$err")" = 3 ]

# --- an unsigned time of 2^63 + 100: libhdf5 clamps it to INT64_MAX; never silently.
"$gen" uint64 "$h/uint64.h5"
run --summary "$h/uint64.h5"
check "uint64: exit 0" [ "$rc" = 0 ]
check "uint64: warned" \
    hasf "region big: dataset end_times: a time reaches 9223372036854775807 ns (2^63 - 1), the largest one held: a larger one in the file, or a sum past it, is clamped to it; times may be wrong" "$err"

# --- one rank group hard-linked as rank0..rank50: loaded once, the aliases warned.
"$gen" alias "$h/alias.h5" 50
runp 0 --json "$h/alias.h5"
check "alias: exit 0" [ "$rc" = 0 ]
check "alias: one rank" hasf '"num_ranks": 1,'
check "alias: warned" \
    hasf "group rank17: the same group as an earlier rank group (a hard link); ignored" "$err"
check "alias: 50 warnings" [ "$(lines "$err")" = 50 ]

# --- one region's columns hard-linked into 200 more: read once, the links dropped and warned.
"$gen" linked "$h/linked.h5" 200
runp 0 --summary "$h/linked.h5"
check "linked: exit 0" [ "$rc" = 0 ]
check "linked: r0 with its 100 000 calls" has "^r0  *0  *100000 "
check "linked: one region" [ "$(grep -c '^r[0-9]' "$scr")" = 1 ]
check "linked: warned" \
    hasf "region r1: dataset start_times: the same dataset as one read before (a hard link); not read again; region dropped" "$err"
check "linked: 100 warnings and the count of the other 100" \
    hasf "and 100 more like it: the same dataset as one read before (a hard link); not read again; region dropped" "$err"
check "linked: peak memory of one copy ($rss KiB)" under 65536

# --- 2 x 400M int64 never written, in a sparse file of ~24 KiB: the budget refuses it at once.
"$gen" noalloc "$h/noalloc.h5" 400000000
runp 0 --memory 256M --json "$h/noalloc.h5"
check "noalloc: exit 1" [ "$rc" = 1 ]
check "noalloc: one line" one_line
check "noalloc: names the budget and the column" \
    hasf "noalloc.h5: the load needs more than the memory budget of 256 MiB (--memory); the biggest columns: /rank0/regions/big/start_times 3.0 GiB" "$err"
check "noalloc: peak memory far below the budget ($rss KiB)" under 65536
check "noalloc: nothing on stdout" [ ! -s "$scr" ]
runp 0 --memory 256M --batch --size 80x24 "$h/noalloc.h5"
check "noalloc: the viewer refuses the same way" [ "$rc" = 1 ]
# --- the same in schema 3 (today's default layout): the /events columns are charged too.
"$gen" noalloc3 "$h/noalloc3.h5" 400000000
runp 0 --memory 256M --json "$h/noalloc3.h5"
check "noalloc3: exit 1" [ "$rc" = 1 ]
check "noalloc3: one line" one_line
check "noalloc3: names the budget and the event column" \
    hasf "noalloc3.h5: the load needs more than the memory budget of 256 MiB (--memory); the biggest columns: /events/start_deltas 3.0 GiB" "$err"
check "noalloc3: peak memory far below the budget ($rss KiB)" under 65536
run --memory 12X "$h/noalloc.h5"
check "--memory 12X is a usage error" [ "$rc" = 2 ]
check "--memory 12X says what it wants" hasf "--memory wants a size such as 512M or 2G, not '12X'" "$err"

# --- a crash in the loading child (the test hook makes the child crash at the load's first
# progress report): contained, one line; with the file changed first, that is the news.
cp "$fx/small.h5" "$h/crash.h5"
SCOPEVIEW_TEST_DURING_LOAD=crash "$sv" --json "$h/crash.h5" >"$scr" 2>"$err"
rc=$?
check "crash: exit 1, not a signal" [ "$rc" = 1 ]
check "crash: one line" one_line
if [ "$asan" = no ]; then
    check "crash: libhdf5 crashed" \
        hasf "crash.h5: the file is damaged (libhdf5 crashed while reading it: Segmentation fault)" "$err"
else # ASan catches the signal and ends the child with its own status
    check "crash: damaged" hasf "crash.h5: the file is damaged (" "$err"
fi
cp "$fx/small.h5" "$h/change.h5"
SCOPEVIEW_TEST_DURING_LOAD="truncate=1000,crash" \
    "$sv" --json "$h/change.h5" >"$scr" 2>"$err"
rc=$?
check "changed then crashed: exit 1" [ "$rc" = 1 ]
check "changed then crashed: says the file changed" \
    hasf "change.h5: the file changed while it was being read (is a job still writing it?); try again when it is complete" "$err"
# Changed under the load without a crash: loaded, with a warning that says so.
cp "$fx/small.h5" "$h/change2.h5"
SCOPEVIEW_TEST_DURING_LOAD="truncate=1000" \
    "$sv" --json "$h/change2.h5" >"$scr" 2>"$err"
rc=$?
check "changed: exit 0 or 1, never a signal" sh -c "[ $rc = 0 ] || [ $rc = 1 ]"
if [ "$rc" = 0 ]; then
    check "changed: warned" hasf "the file changed while it was being read" "$err"
else
    check "changed: one line" one_line
fi

# --- a file held open by a writer: a SWMR writer's reads with SWMR-read; another's (here one
# that died without closing) is "being written", not "damaged".
mkfifo "$tmp/hold"
"$gen" swmr "$h/swmr.h5" <"$tmp/hold" >"$tmp/swmr.out" 2>&1 &
exec 7>"$tmp/hold"
n=0
while [ $n -lt 50 ] && ! grep -q open "$tmp/swmr.out"; do sleep 0.1; n=$((n + 1)); done
run --json "$h/swmr.h5"
check "swmr writer: loads (exit 0)" [ "$rc" = 0 ]
check "swmr writer: the region is there" hasf '"name": "ok", "rank": 0, "num_calls": 1,'
exec 7>&-
wait
"$gen" dead "$h/dead.h5"
run --json "$h/dead.h5"
check "dead writer: exit 1" [ "$rc" = 1 ]
check "dead writer: one line" one_line
check "dead writer: being written, not damaged" \
    hasf "dead.h5: the file is being written by another program (or one that stopped without closing it; h5clear -s clears that mark); try again when it is closed" "$err"

# --- a column compressed with a filter no plugin provides: the filter is named.
"$gen" nofilter "$h/nofilter.h5"
run --json "$h/nofilter.h5"
check "missing filter: exit 0" [ "$rc" = 0 ]
check "missing filter: the filter named, and what to do" \
    hasf "region ok: dataset thread_ids: compressed with filter 40000, which this libhdf5 lacks; decompress it with 'h5repack -f NONE in.h5 out.h5'; column dropped" "$err"

# --- many metadata attributes (an old-format header: libhdf5 finds each by a linear scan of
# names, so n of them cost n^2): only the first 1024 by name are read, with a warning.
"$gen" attrs "$h/attrs.h5" 5000
t0=$(date +%s)
run --json "$h/attrs.h5"
t1=$(date +%s)
check "attrs: exit 0" [ "$rc" = 0 ]
check "attrs: the warning" hasf "group metadata: 5000 attributes; the first 1024 (by name) kept" "$err"
# Which are kept, by byte order of the names, worked out by sort(1), not by scopeview.
i=0
while [ $i -lt 5000 ]; do echo "k$i"; i=$((i + 1)); done | LC_ALL=C sort >"$tmp/names"
last=$(sed -n 1024p "$tmp/names")
next=$(sed -n 1025p "$tmp/names")
check "attrs: the 1024th name by byte order ($last) kept" hasf "\"$last\": \"${last#k}\""
check "attrs: the 1025th ($next) not kept" hasnt "\"$next\""
check "attrs: 1024 keys" [ "$(grep -o '"k[0-9]*":' "$scr" | wc -l)" = 1024 ]
check "attrs: within 5 s ($((t1 - t0)) s)" [ $((t1 - t0)) -le 5 ]

finish
