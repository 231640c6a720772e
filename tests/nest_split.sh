#!/bin/sh
# One rank's inferred nesting cut by time into parts on threads (src/model/nest_split.c, from
# 2^20 calls) must give what the whole sweep gives: --json (exclusive totals, inferred lanes)
# and --csv byte for byte, stdout and stderr, with SCOPEVIEW_THREADS=1 (one sweep), 2 and 4
# (that many parts), on generated one-rank files of just over 2^20 calls: svgen's nested
# schema-3 and legacy files, and stream-mix (recursion, ties, zero-length calls, partial
# overlaps: inferred lanes; a region out of start order: the whole sweep).  And out of core,
# the reads on a second thread (stream_pf.c) against one thread.
. "${0%/*}/lib.sh"
svgen="$top_build/svgen"
g="$tmp/g"
mkdir -p "$g"
n=1100000
"$svgen" bench-schema3 "$g/s3.h5" --calls $n >/dev/null
"$svgen" legacy "$g/legacy.h5" $n >/dev/null
"$svgen" stream-mix "$g/mix.h5" --calls $n >/dev/null
"$svgen" stream-mix "$g/unsorted.h5" --calls $n --unsorted >/dev/null

# same FILE MODE: 2 and 4 threads print what 1 prints.
same() {
    SCOPEVIEW_THREADS=1 "$sv" "$2" "$1" >"$tmp/a" 2>"$tmp/ea" || return 1
    for t in 2 4; do
        SCOPEVIEW_THREADS=$t "$sv" "$2" "$1" >"$tmp/b" 2>"$tmp/eb" || return 1
        cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ea" "$tmp/eb" && continue
        echo "  $2 $1: $t threads differ from 1"
        diff "$tmp/a" "$tmp/b" | head -5 | cut -c1-300
        diff "$tmp/ea" "$tmp/eb" | head -5 | cut -c1-300
        return 1
    done
}

# The files are what the test is about: one rank of over 2^20 calls.
for f in s3 legacy mix; do
    check "$f.h5: one rank" sh -c "'$sv' --json '$g/$f.h5' | grep -q '\"num_ranks\": 1,'"
done
for f in s3 legacy mix unsorted; do
    check "$f.h5 --json" same "$g/$f.h5" --json
    check "$f.h5 --csv" same "$g/$f.h5" --csv
done
# The viewer's per-call nesting (parents, inferred lanes: calls_job.c) cut into parts too: the
# --batch screens that show it (the timeline's lanes, the call tree, the lanes view) must not
# change with the threads.
same_screen() {
    SCOPEVIEW_THREADS=1 "$sv" --batch --size 160x50 --view "$2" "$1" >"$tmp/a" 2>"$tmp/ea" || return 1
    for t in 2 4; do
        SCOPEVIEW_THREADS=$t "$sv" --batch --size 160x50 --view "$2" "$1" >"$tmp/b" 2>"$tmp/eb" ||
            return 1
        cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ea" "$tmp/eb" && continue
        echo "  --view $2 $1: $t threads differ from 1"
        diff "$tmp/a" "$tmp/b" | head -5 | cut -c1-300
        return 1
    done
}
for f in legacy mix unsorted; do
    for v in timeline tree lanes; do
        check "$f.h5 --batch --view $v" same_screen "$g/$f.h5" $v
    done
done
check "mix.h5: the timeline shows inferred lanes" \
    sh -c "'$sv' --batch --size 160x50 --view lanes '$g/mix.h5' | grep -q 'inferred'"

# Out of core (src/load/stream_pf.c): with a second thread the reads go there, into two
# buffers a row; the streamed --json must not change, whatever the chunks' length.
same_ooc() {
    SCOPEVIEW_THREADS=1 SCOPEVIEW_STREAM_CHUNK=$2 "$sv" --out-of-core --json "$1" \
        >"$tmp/a" 2>"$tmp/ea" || return 1
    SCOPEVIEW_THREADS=2 SCOPEVIEW_STREAM_CHUNK=$2 "$sv" --out-of-core --json "$1" \
        >"$tmp/b" 2>"$tmp/eb" || return 1
    cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ea" "$tmp/eb" && return 0
    echo "  --out-of-core --json $1 (chunk $2): 2 threads differ from 1"
    diff "$tmp/a" "$tmp/b" | head -5 | cut -c1-300
    return 1
}
for f in s3 mix unsorted; do
    for ch in 1000 100000; do
        check "$f.h5 streamed, chunk $ch" same_ooc "$g/$f.h5" $ch
    done
done
"$sv" --json "$g/mix.h5" >"$tmp/inmem"
SCOPEVIEW_THREADS=2 SCOPEVIEW_STREAM_CHUNK=1000 "$sv" --out-of-core --json "$g/mix.h5" >"$tmp/ooc"
check "mix.h5 streamed on two threads = in memory" cmp -s "$tmp/inmem" "$tmp/ooc"
finish
