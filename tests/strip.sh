#!/bin/sh
# The batch statistics (--json, --csv, --summary) load in a child that sends the model without
# its calls (src/model/strip.c: each region in the out-of-core form, kilobytes instead of 16
# bytes a call).  The output must be what the model with its calls gives, byte for byte, stdout
# and stderr: SCOPEVIEW_IN_PROCESS=1 (no child, nothing stripped) against the default, on
# every fixture, the shared profiles and generated ones (threads, tasks, ids, GPU and await
# columns, schema 1, 2 and 3).  test_strip checks that the calls are gone.
. "${0%/*}/lib.sh"
svgen="$top_build/svgen"
need_fixture "$svgen" "$fx/col3_full.h5"
g="$tmp/g"
mkdir -p "$g"

same() { # FILE MODE
    SCOPEVIEW_IN_PROCESS=1 "$sv" "$2" "$1" >"$tmp/a" 2>"$tmp/ea"
    ra=$?
    "$sv" "$2" "$1" >"$tmp/b" 2>"$tmp/eb"
    rb=$?
    [ "$ra" = "$rb" ] && cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ea" "$tmp/eb" && return 0
    echo "  $2 $1: exit $ra / $rb"
    diff "$tmp/a" "$tmp/b" | head -5 | cut -c1-300
    diff "$tmp/ea" "$tmp/eb" | head -5 | cut -c1-300
    return 1
}
all_same() {
    for f in "$@"; do
        for m in --json --csv --summary; do
            same "$f" "$m" || return 1
        done
    done
}

check "fixtures: stripped = with calls" all_same "$fx"/*.h5
if need_shared "shared profiles"; then
    check "shared profiles: stripped = with calls" all_same $(find "$shared/data" -name '*.h5' | sort)
fi
"$svgen" stream-mix "$g/threads.h5" --calls 6000 --ranks 2 --threads >/dev/null
"$svgen" stream-mix "$g/ids.h5" --calls 6000 --ids >/dev/null
"$svgen" stream-mix "$g/s2.h5" --calls 6000 --unsorted --schema2 >/dev/null
"$svgen" extended "$g/extended.h5" 4000 >/dev/null
"$svgen" demo "$g/demo.h5" >/dev/null
check "generated: stripped = with calls" all_same "$g"/*.h5

finish
