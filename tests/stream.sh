#!/bin/sh
# The out-of-core batch outputs (src/load/stream*.c): --json, --csv and --summary
# streamed in chunks must print exactly what the in-memory load prints, byte for byte, stdout
# and stderr: on every shared profile, every fixture and generated profiles (svgen stream-mix:
# recursion, ties, zero-length calls, partial overlaps, GPU and await columns; with thread
# columns, call ids, rows out of start order, gzip, schema 2), with chunks of 1, 3 and 7 calls
# (SCOPEVIEW_STREAM_CHUNK) so that every chunk edge is crossed; schema-1 files from svgen too.  A file whose columns exceed
# --memory streams by itself; the viewer says it cannot; exclusive times that cannot be
# computed within the budget come from the file with a warning, never a wrong number.
. "${0%/*}/lib.sh"
svgen="$top_build/svgen"
need_fixture "$svgen" "$fx/col3_full.h5"
g="$tmp/g"
mkdir -p "$g"

# same FILE MODE CHUNK [ARGS...]: streamed == in memory, stdout and stderr.
same() {
    f=$1 m=$2 ch=$3
    shift 3
    "$sv" "$m" "$@" "$f" >"$tmp/a" 2>"$tmp/ea"
    ra=$?
    SCOPEVIEW_STREAM_CHUNK=$ch "$sv" --out-of-core "$m" "$@" "$f" >"$tmp/b" 2>"$tmp/eb"
    rb=$?
    [ "$ra" = "$rb" ] && cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ea" "$tmp/eb" && return 0
    echo "  $m $f (chunk $ch): exit $ra / $rb"
    diff "$tmp/a" "$tmp/b" | head -5 | cut -c1-300
    diff "$tmp/ea" "$tmp/eb" | head -5 | cut -c1-300
    return 1
}

all_same() { # CHUNK FILE...: every mode of every FILE
    ch=$1
    shift
    for f in "$@"; do
        for m in --json --csv --summary; do
            same "$f" "$m" "$ch" || return 1
        done
    done
}

# --- the fixtures (every columnar fault included) and the shared profiles
check "fixtures streamed = in memory (chunk 3)" all_same 3 "$fx"/*.h5
if need_shared "shared profiles"; then
    check "shared profiles streamed = in memory (chunk 3)" \
        all_same 3 $(find "$shared/data" -name '*.h5' | sort)
    check "shared profiles streamed = in memory (chunk 1)" \
        all_same 1 $(find "$shared/data" -name '*.h5' | sort)
fi

# --- generated: each case a reason for the streaming code to take another path
"$svgen" stream-mix "$g/plain.h5" --calls 6000 --ranks 2
"$svgen" stream-mix "$g/threads.h5" --calls 6000 --ranks 2 --threads
"$svgen" stream-mix "$g/ids.h5" --calls 6000 --ids
"$svgen" stream-mix "$g/unsorted.h5" --calls 6000 --unsorted --schema2
"$svgen" stream-mix "$g/all.h5" --calls 6000 --ranks 3 --threads --ids --unsorted --gzip --chunk 100
"$svgen" stream-mix "$g/gzip.h5" --calls 20000 --ranks 2 --gzip --chunk 333
# schema 1: legacy (recursion, partial overlaps), extended (2 ranks x 4 threads, every column),
# ids nested 300 deep, many regions
"$svgen" legacy "$g/legacy.h5" 6000
"$svgen" extended "$g/extended.h5" 4000
"$svgen" deep "$g/deep.h5" 300
"$svgen" many-regions "$g/many.h5" 200 5
for ch in 1 3 7 4096; do
    check "generated streamed = in memory (chunk $ch)" all_same $ch "$g"/*.h5
done
check "--ranks and --include stream too" same "$g/plain.h5" --json 5 --ranks 1 --include 'rec*'
# the streamed model crosses the wire whole (threads lists, flags): in-process = isolated
inproc() {
    "$sv" --out-of-core --json "$1" >"$tmp/a" 2>&1
    SCOPEVIEW_IN_PROCESS=1 "$sv" --out-of-core --json "$1" >"$tmp/b" 2>&1
    cmp -s "$tmp/a" "$tmp/b" && grep -q '"threads": \[0, 1\]' "$tmp/a"
}
check "streamed, in process = isolated (threads)" inproc "$g/threads.h5"
# a C-API rank set (several files, one profile)
set3() {
    "$sv" --json "$fx/capi_rank00000.h5" "$fx/capi_rank00001.h5" "$fx/capi_rank00003.h5" \
        >"$tmp/a" 2>&1
    SCOPEVIEW_STREAM_CHUNK=2 "$sv" --out-of-core --json "$fx/capi_rank00000.h5" \
        "$fx/capi_rank00001.h5" "$fx/capi_rank00003.h5" >"$tmp/b" 2>&1
    cmp -s "$tmp/a" "$tmp/b"
}
check "C-API rank set streamed = in memory" set3
# --lines reads the line profiles, not the calls: streamed, the same tables (solve has two)
"$svgen" demo "$tmp/demo.h5"
check "--lines solve streamed = in memory" same "$tmp/demo.h5" --lines 3 solve
check "--lines json streamed = in memory" same "$tmp/demo.h5" --lines 3 solve --json

# The sweep (no ids, no lanes, rows in start order) on a known answer: the streamed exclusive
# totals of plain.h5 add up, per rank, to the wall time its calls cover (sum of exclusive =
# union of every call's interval, lanes aside): checked against the in-memory nesting above;
# here that they are not all zero and not all the totals (nesting happened).
run --out-of-core --json "$g/plain.h5"
check "streamed exclusive below total for main" \
    sh -c "grep '\"name\": \"main\", \"rank\": 0' '$scr' | grep -qv '\"total_exclusive_duration\": 0,'"

# --- a file whose columns exceed the budget streams by itself: 200 000 calls of 4 columns
# (start, duration, GPU, await) are 6.4 MB of columns against a 4 MiB budget.
"$svgen" stream-mix "$g/big.h5" --calls 200000 --gzip
"$sv" --json "$g/big.h5" >"$tmp/inmem" 2>"$tmp/einmem"
run --memory 4M --json "$g/big.h5"
check "4M budget: the load streams (exit 0)" [ "$rc" = 0 ]
check "4M budget: output = in memory" cmp -s "$scr" "$tmp/inmem"
run --memory 4M --csv "$g/big.h5"
"$sv" --csv "$g/big.h5" >"$tmp/inmem_csv" 2>/dev/null
check "4M budget: csv = in memory" cmp -s "$scr" "$tmp/inmem_csv"
# A rank the sweep takes is read once: pass 1's checks and statistics, the sweep and the calls
# near each percentile in the same read (stream_one.c; 200 000 calls, so that the percentiles
# come from windows, not from every duration held); rows out of start order need pass 2.
passes() { # WANT MEMORY FILE: the passes the streamed load says it made, sorted and counted
    SCOPEVIEW_IN_PROCESS=1 SCOPEVIEW_READ_LOG=1 "$sv" --memory "$2" --out-of-core --json "$3" \
        2>&1 >/dev/null | sed -n 's/^scopeview: stream[^:]*: //p' | sort | uniq -c |
        sed 's/^ *//' >"$tmp/passes"
    [ "$(cat "$tmp/passes")" = "$1" ] && return 0
    echo "  $3:"
    cat "$tmp/passes"
    return 1
}
check "4M budget: one read a rank" passes "1 pass 1 and the sweep in one read" 4M "$g/big.h5"
"$svgen" stream-mix "$g/big_uns.h5" --calls 200000 --unsorted
check "rows out of order: pass 2 nests in memory" passes "1 pass 2 reads its calls again" 64M \
    "$g/big_uns.h5"
# schema 1: the columns are known only as they are read: the load fails over the budget and
# runs again, streamed (6.4 MB of start and end times against 4 MiB)
"$svgen" legacy "$g/big1.h5" 400000
"$sv" --json "$g/big1.h5" >"$tmp/inmem1" 2>/dev/null
run --memory 4M --json "$g/big1.h5"
check "schema 1, 4M budget: the load streams (exit 0)" [ "$rc" = 0 ]
check "schema 1, 4M budget: output = in memory" cmp -s "$scr" "$tmp/inmem1"
# its rows of 64 Ki calls and more keep the durations near their percentiles in pass 1, so that
# pass 2 reads their start and end times only; within 10 MiB the windows of some rows overflow
# and pass 2 collects their durations instead: the same numbers either way
early_same() { # ARGS...: every mode streamed with ARGS = in memory
    for m in --json --csv --summary; do
        "$sv" "$m" "$g/big1.h5" >"$tmp/a" 2>&1
        "$sv" --out-of-core "$@" "$m" "$g/big1.h5" >"$tmp/b" 2>&1
        cmp -s "$tmp/a" "$tmp/b" || return 1
    done
}
check "schema 1, percentiles from pass 1 = in memory" early_same
check "schema 1, pass 1's windows overflow = in memory" early_same --memory 10M
# the viewer opens it out of core (cli/ooc_run.c; tests/screens/screens_ooc.sh compares the
# screens), or ooc_open says the budget it could not map the file within
run --memory 4M --batch --size 80x24 "$g/big.h5"
check "viewer over budget: not refused for its columns" hasnt "the viewer has no" "$tmp/err"
check "viewer over budget: out of core (exit 0, the timeline) or the budget named" \
    sh -c '{ [ "$1" = 0 ] && grep -q "timeline\]" "$3"; } || grep -q "memory budget" "$2"' _ \
    "$rc" "$tmp/err" "$scr"

# --- thread columns under a budget too small to nest in memory: one merge per thread, exact
run --memory 64K --out-of-core --json "$g/threads.h5"
"$sv" --json "$g/threads.h5" >"$tmp/inmem_t" 2>/dev/null
check "threads over budget: exact (one pass per thread)" cmp -s "$scr" "$tmp/inmem_t"
check "threads over budget: no warning" [ ! -s "$tmp/err" ]

# --- exclusive times the budget cannot hold (call ids need the rank in memory): the file's
# exclusive_totals, said in a warning; every other value exact.
run --memory 64K --out-of-core --json "$g/ids.h5"
check "ids over budget: exit 0" [ "$rc" = 0 ]
check "ids over budget: warning" hasf "the file's exclusive_totals are shown" "$tmp/err"
"$sv" --json "$g/ids.h5" 2>/dev/null | sed 's/"total_exclusive_duration": [^,]*,//' >"$tmp/x1"
sed 's/"total_exclusive_duration": [^,]*,//' "$scr" >"$tmp/x2"
check "ids over budget: the rest = in memory" cmp -s "$tmp/x1" "$tmp/x2"

# --- --json, --csv and --summary stream a large file the sweep takes in one read by themselves
# (LOAD_STREAM_PREFER: event columns of 64 MiB and more; SCOPEVIEW_STREAM_PREFER=0 here takes
# every file): the same bytes as in memory; ids and lanes stay in memory; a rank the stream
# could only give stored exclusive totals sends the load back to memory.
pref_same() { # FILE...: every mode, preferred = in memory (stdout and stderr)
    for f in "$@"; do
        for m in --json --csv --summary; do
            "$sv" "$m" "$f" >"$tmp/a" 2>"$tmp/ea"
            SCOPEVIEW_STREAM_PREFER=0 "$sv" "$m" "$f" >"$tmp/b" 2>"$tmp/eb"
            cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ea" "$tmp/eb" && continue
            echo "  $m $f: preferred differs"
            return 1
        done
    done
}
check "preferred stream = in memory (fixtures, generated)" pref_same "$fx"/*.h5 "$g"/*.h5
if need_shared "shared profiles"; then
    check "preferred stream = in memory (shared profiles)" \
        pref_same $(find "$shared/data" -name '*.h5' | sort)
fi
streams() { # PREFER FILE [ARGS]: the number of streamed passes a plain --json logs
    p=$1 f=$2
    shift 2
    SCOPEVIEW_STREAM_PREFER=$p SCOPEVIEW_IN_PROCESS=1 SCOPEVIEW_READ_LOG=1 "$sv" --json "$@" "$f" \
        2>&1 >/dev/null | grep -c '^scopeview: stream'
}
check "preferred: a plain file streams in one read" [ "$(streams 0 "$g/plain.h5")" = 2 ]
check "preferred: not below the threshold" [ "$(streams 1073741824 "$g/plain.h5")" = 0 ]
check "preferred: call ids load in memory" [ "$(streams 0 "$g/ids.h5")" = 0 ]
check "preferred: thread columns load in memory" [ "$(streams 0 "$g/threads.h5")" = 0 ]
# a schema-1 rank of more than 64 regions declines: 65 streamed (two datasets each), then all
# 200 read in memory
"$svgen" many-regions "$g/many200.h5" 200 5
logs() { # PREFER FILE: the datasets a --json load reads
    SCOPEVIEW_STREAM_PREFER=$1 SCOPEVIEW_IN_PROCESS=1 SCOPEVIEW_READ_LOG=1 "$sv" --json "$2" \
        2>&1 >/dev/null | grep -c '^scopeview: read '
}
check "preferred: a rank of many regions loads in memory" \
    [ "$(logs 0 "$g/many200.h5")" = $(($(logs 1073741824 "$g/many200.h5") + 130)) ]
reads() { # PREFER: how often the 16M load of big_uns.h5 reads its durations
    SCOPEVIEW_STREAM_PREFER=$1 SCOPEVIEW_IN_PROCESS=1 SCOPEVIEW_READ_LOG=1 "$sv" --memory 16M \
        --json "$g/big_uns.h5" 2>&1 >/dev/null | grep -c 'read /events/durations'
}
# rows out of start order, 200 000 calls: nested in memory they fit 16 MiB, streamed the
# rank's calls would need more than half of it
"$sv" --memory 16M --json "$g/big_uns.h5" >"$tmp/inmem_u" 2>&1
SCOPEVIEW_STREAM_PREFER=0 "$sv" --memory 16M --json "$g/big_uns.h5" >"$tmp/pref_u" 2>&1
check "preferred, declined: output = in memory" cmp -s "$tmp/inmem_u" "$tmp/pref_u"
once=$(reads 1073741824)
check "in memory: the durations read" [ "$once" -gt 0 ]
check "preferred, declined: streamed, then read in memory" [ "$(reads 0)" = $((2 * once)) ]

finish
