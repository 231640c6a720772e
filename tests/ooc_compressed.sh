#!/bin/sh
# Highly compressible files stream out of core; sparse and lying ones do not
# (src/load/stream_col.c sc_claim): plausibility is judged per column by the stored sizes of
# its chunks and its filter, not by the file's size.  12M calls of one region, each 1000 ns
# long, one every 1500 ns, gzip level 9 with shuffle (svgen bench-schema3 --flat): constant
# columns, 183 MiB of them in a file of about 260 KiB (700:1).  Under --memory 128M it loads by
# streaming for --json (12M calls, 12 s in all, each 1 us: 12e6 x 1000 ns) and opens in the
# out-of-core viewer.  A sparse file declaring 6 GiB (hostile_gen noalloc3) is still refused,
# and the message says why it was not streamed instead of "even streamed the load needs more"
# or the schema 1 note.
. "${0%/*}/lib.sh"
gen="$top_build/tests/hostile_gen"
need_fixture "$top_build/svgen" "$gen"
f="$tmp/flat.h5"
"$top_build/svgen" bench-schema3 "$f" --calls 12000000 --flat >/dev/null || exit 99
kib=$(du -k "$f" | cut -f1)
check "the file stores under 400 KiB ($kib KiB) for 183 MiB of columns" [ "$kib" -lt 400 ]

run --memory 128M --json "$f"
check "--memory 128M --json: exit 0" [ "$rc" = 0 ]
check "--json: no error" [ ! -s "$tmp/err" ]
check "--json: the 12M calls" hasf '"name": "tick", "rank": 0, "num_calls": 12000000,' "$scr"
check "--json: 12 s in all, each 1 us" \
    hasf '"total_duration": 12, "average_duration": 1e-06, "min_duration": 1e-06, "max_duration": 1e-06, "std_duration": 0,' "$scr"

screen 100x12 "" "$f" --memory 128M --out-of-core
check "the out-of-core viewer opens it: exit 0" [ "$rc" = 0 ]
check "the out-of-core viewer: the overview" has "overview (out of core)"
check "the out-of-core viewer: no refusal" hasnt "memory budget" "$tmp/err"

# --- sparse: 2 x 400M int64 allocated early, never written, in a file of ~28 KiB
"$gen" noalloc3 "$tmp/sparse.h5" 400000000
for how in "--json" "--out-of-core --batch --size 80x24"; do
    # shellcheck disable=SC2086 # $how: the options, split
    run --memory 256M $how "$tmp/sparse.h5"
    check "sparse, $how: refused (exit 1)" [ "$rc" = 1 ]
    check "sparse, $how: one line" [ "$(lines "$tmp/err")" = 1 ]
    check "sparse, $how: names the budget" \
        hasf "sparse.h5: the load needs more than the memory budget of 256 MiB (--memory)" "$tmp/err"
    check "sparse, $how: says why it was not streamed" \
        hasx "; not streamed out of core: its event columns claim 6.0 GiB of storage, the file occupies [0-9]+ KiB on disk \(a sparse file\)$" "$tmp/err"
    check "sparse, $how: not 'even streamed'" hasnt "even streamed" "$tmp/err"
    check "sparse, $how: not the schema 1 note" hasnt "schema 1" "$tmp/err"
done

# --- lying: the columns gzip'd but no chunk written (fill values only), 16 x 400M bytes
# declared: not streamed, and the in-memory load drops the region (no call is invented).
"$gen" nochunk3 "$tmp/lying.h5" 400000000
run --memory 256M --json "$tmp/lying.h5"
check "lying: exit 0" [ "$rc" = 0 ]
check "lying: the region's calls dropped, with a warning" \
    hasf "lying.h5: rank 0: region big: no event data and no summary; dropped" "$tmp/err"
check "lying: no call read" hasnt '"num_calls": [1-9]' "$scr"

finish
