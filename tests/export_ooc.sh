#!/bin/sh
# --export and --folded out of core (--out-of-core, or a file whose calls exceed --memory):
# the same output as the in-memory export of the same file (export.sh checks that one by
# hand), with the filter and --folded-ranks; a rank the sweep cannot nest (call ids) and a
# time range that needs single calls fail with one line and leave no output file; a full
# device and a closed pipe behave as in memory.
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

# --- call ids: the sweep does not follow them
for fmt in folded; do
    run --export $fmt --out-of-core "$tmp/ids.h5" "$tmp/o.txt"
    check "$fmt of call ids out of core: exit 1" [ "$rc" = 1 ]
    check "$fmt of call ids out of core: one line" [ "$(lines "$tmp/err")" = 1 ]
    check "$fmt of call ids out of core: names the file and why" has "ids.h5: out of core: .*call ids" "$tmp/err"
    check "$fmt of call ids out of core: no output file" [ ! -e "$tmp/o.txt" ]
    check "$fmt of call ids in memory: exit 0" "$sv" --export $fmt "$tmp/ids.h5" "$tmp/o.txt"
    rm -f "$tmp/o.txt"
done

# --- a full device, as in memory
if [ -w /dev/full ]; then
    for fmt in folded; do
        run --export $fmt --out-of-core "$tmp/t.h5" /dev/full
        check "$fmt out of core to /dev/full: exit 1" [ "$rc" = 1 ]
        check "$fmt out of core to /dev/full: the reason" has "cannot write /dev/full: No space left on device" "$tmp/err"
    done
fi
finish
