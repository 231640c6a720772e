#!/bin/sh
# Today's scope-profiler files from the command line: scopeview --json on
# every profile of ../shared/data/upstream matches expected/*.json (jsoncmp:
# numbers to 1e-9 relative); the generator's columnar faults give their
# message and exit status; a C-API rank set opens as one profile.
set -u
. "${0%/*}/lib.sh"
jc="$top_build/tests/jsoncmp"
up="$shared_root/data/upstream"
# A failure here shows the command's stderr.
bad() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    [ -s "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err"
}

if [ -d "$up" ]; then
    for h5 in "$up"/*.h5; do
        base=$(basename "$h5" .h5)
        if "$sv" --json "$h5" >"$tmp/out.json" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
            "$jc" "$tmp/out.json" "$up/expected/$base.json" 2>"$tmp/err"; then
            ok "--json $base matches expected/$base.json"
        else
            bad "--json $base matches expected/$base.json"
        fi
    done
    # --summary on a columnar file with summary_statistics reads no event column.
    "$sv" --summary "$up/sp3-basic.h5" >"$tmp/out" 2>"$tmp/err"
    if grep -q "per-call columns were not read" "$tmp/out" &&
        grep -q '^\* *solve  *0  *40  *17.01 ms  *425.3 us .* -  *-  *-  *73.98 us  *17.01 ms' "$tmp/out"; then
        ok "--summary sp3-basic from summary_statistics"
    else
        bad "--summary sp3-basic from summary_statistics"; cat "$tmp/out"
    fi
else
    skip "$up not found"
fi

# expect STATUS PATTERN ARGS...: exit status and a line of stderr.
expect() {
    want=$1 pat=$2
    shift 2
    "$sv" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ] && grep -q -- "$pat" "$tmp/err"; then
        ok "$* -> $want, '$pat'"
    else
        bad "$* -> $got (want $want), '$pat'"
    fi
}
expect 1 "scope_profiler_schema 4 is newer than this scopeview reads" --json "$fx/col3_schema4.h5"
expect 1 "no rank_region_index (top-level groups: junk, metadata, rank0, rank1)" --json "$fx/col3_noregion.h5"
expect 0 "events/gpu_durations: compressed with filter 40000, which this libhdf5 lacks.*h5repack -f NONE" --json "$fx/col3_nofilter.h5"
expect 0 "run past the end of events/durations" --json "$fx/col3_truncated.h5"
expect 0 "overlap those of region outer" --json "$fx/col3_overlap.h5"
expect 0 "run past the end of events/start_deltas (8 events)" --json "$fx/col3_pastend.h5"
expect 0 "outside the thread table of rank 0" --json "$fx/col3_badthread.h5"
expect 0 "capi_rank00000.h5 and the other files: the set has no file for rank 2 (of 0..3)" --json "$fx/capi_rank00000.h5" "$fx/capi_rank00001.h5" "$fx/capi_rank00003.h5"
if grep -q '"ranks": \[0, 1, 3\]' "$tmp/out" && [ "$(grep -c '{"name": ' "$tmp/out")" -eq 5 ]; then
    ok "the C-API set: ranks 0, 1, 3 and their 5 regions"
else
    bad "the C-API set: ranks 0, 1, 3 and their 5 regions"
fi
# The info view names the layout in scope-profiler's terms, and every file of a set.
if [ -d "$up" ]; then
    for pair in "sp3-basic:schema 3, columnar" "sp2-basic:schema 2, columnar" \
        "sp3-aggregate:schema 3, aggregate" "hdf5-schema-1:schema 1, extended"; do
        screen 80x24 5 "$up/${pair%%:*}.h5"
        check "info: ${pair%%:*} is ${pair#*:}" rowhas 5 "layout  ${pair#*:}"
    done
fi
# (from the fixtures' folder: a long build path must not cut the names off)
(cd "$fx" && screen 80x24 5 capi_rank00000.h5 capi_rank00001.h5 capi_rank00003.h5)
check "info: a C-API set lists its 3 files" hasx "files +3 \(one per rank\)" "$scr"
check "info: the set's last file" has "capi_rank00003.h5" "$scr"
# What still loads beside a fault: the file with a missing filter keeps every region.
"$sv" --json "$fx/col3_nofilter.h5" >"$tmp/out" 2>/dev/null
if [ "$(grep -c '{"name": ' "$tmp/out")" -eq 4 ]; then ok "col3_nofilter: 4 regions load"; else bad "col3_nofilter: 4 regions load"; fi

finish
