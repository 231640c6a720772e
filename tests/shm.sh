#!/bin/sh
# The loading child hands the region columns over in a sealed memfd the viewer maps read-only
# (src/isolate/wire.c); SCOPEVIEW_TEST_PIPE=1 forces the fallback, the columns through the
# pipe.  Both ways must give the same output byte for byte, stdout, stderr and exit status:
# --events of regions of every file (the calls themselves), --json, and the viewer's batch
# screens (its statistics computed from the mapped columns), on every fixture, the shared
# profiles and generated ones (threads, ids, GPU and await columns, schema 1, 2 and 3, JSON,
# native traces).  A strace, when installed, shows the memfd crossing the socket.
. "${0%/*}/lib.sh"
svgen="$top_build/svgen"
need_fixture "$svgen" "$fx/col3_full.h5"
g="$tmp/g"
mkdir -p "$g"

same() { # FILE ARGS...
    f=$1
    shift
    SCOPEVIEW_TEST_PIPE=1 "$sv" "$@" "$f" >"$tmp/a" 2>"$tmp/ea"
    ra=$?
    "$sv" "$@" "$f" >"$tmp/b" 2>"$tmp/eb"
    rb=$?
    [ "$ra" = "$rb" ] && cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ea" "$tmp/eb" && return 0
    echo "  $* $f: exit $ra / $rb"
    diff "$tmp/a" "$tmp/b" | head -5 | cut -c1-300
    diff "$tmp/ea" "$tmp/eb" | head -5 | cut -c1-300
    return 1
}
# The first three regions (names without a comma or a quote) of FILE, one a line.
regions_of() {
    SCOPEVIEW_TEST_PIPE=1 "$sv" --csv "$1" 2>/dev/null | sed 1d | cut -d, -f1 | grep -v '"' |
        sort -u | head -3
}
all_same() {
    for f in "$@"; do
        same "$f" --json || return 1
        same "$f" --batch --size 120x40 || return 1
        same "$f" --batch --size 120x40 --keys 2 || return 1
        for r in $(regions_of "$f"); do
            same "$f" --events "$r" --csv || return 1
        done
    done
}

check "fixtures: shared = piped" all_same "$fx"/*.h5 "$fx"/*.json
if need_shared "shared profiles"; then
    check "shared profiles: shared = piped" all_same $(find "$shared/data" -name '*.h5' | sort)
fi
"$svgen" stream-mix "$g/threads.h5" --calls 60000 --ranks 2 --threads >/dev/null
"$svgen" stream-mix "$g/ids.h5" --calls 60000 --ids --gzip --chunk 1000 >/dev/null
"$svgen" stream-mix "$g/s2.h5" --calls 6000 --unsorted --schema2 >/dev/null
"$svgen" extended "$g/extended.h5" 40000 >/dev/null
"$svgen" legacy "$g/legacy.h5" 100003 >/dev/null
"$svgen" demo --layout json-gz "$g/demo.json.gz" >/dev/null
"$svgen" spt "$g/spt" 3000 >/dev/null
check "generated files: shared = piped" all_same "$g"/*.h5 "$g/demo.json.gz" "$g/spt/run_rank00001.spt"

# The path taken: the child creates the memfd and passes it; the fallback does neither.
if command -v strace >/dev/null 2>&1; then
    strace -f -o "$tmp/trace" -e trace=memfd_create,sendmsg "$sv" --events solve "$g/legacy.h5" \
        >/dev/null 2>&1
    check "the columns cross in a sealed memfd" grep -q 'SCM_RIGHTS' "$tmp/trace"
    SCOPEVIEW_TEST_PIPE=1 strace -f -o "$tmp/trace2" -e trace=memfd_create,sendmsg "$sv" \
        --events solve "$g/legacy.h5" >/dev/null 2>&1
    check "the fallback sends no memfd" sh -c "! grep -q scopeview-columns '$tmp/trace2'"
fi
finish
