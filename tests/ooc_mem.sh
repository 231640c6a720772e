#!/bin/sh
# The viewer out of core stays within its memory budget: the peak resident size of
# scopeview and the children it waits for (tests/peakrss: the loading child's scan, the windows'
# reads), with --memory 16M on a generated schema-3 file whose columns are about 24 MB (1.5x the
# budget; the overview map takes an eighth of the budget, ooc_map_cells_cap), a key sequence
# that zooms in until windows are read, then out.  SV_OOC_BIG=1 runs the
# issue's case instead: --memory 256M on about 1 GB of columns (64M calls; a 1 GB file in
# $TMPDIR, a few minutes).
. "${0%/*}/lib.sh"
peak="$top_build/tests/peakrss"
if [ "${SV_OOC_BIG:-0}" = 1 ]; then
    calls=64000000 budget=256M budget_kib=262144
else
    calls=1500000 budget=16M budget_kib=16384
fi
f="$tmp/big.h5"
"$top_build/svgen" bench-schema3 "$f" --calls "$calls" >/dev/null 2>&1 || {
    echo "svgen bench-schema3 failed"
    exit 99
}
keys="++++++++++++++++++++<Enter>]]]--------------------"
env -u TERM "$peak" "$tmp/kib" "$sv" --batch --size 80x24 --memory "$budget" --keys "$keys" \
    "$f" >"$tmp/out" 2>"$tmp/err"
rc=$?
scr="$tmp/out"
check "--memory $budget over $calls calls: the viewer runs (exit 0; $(head -c 300 "$tmp/err"))" \
    [ "$rc" = 0 ]
check "it ran out of core (the header says overview)" has "overview (out of core)"
kib=$(cat "$tmp/kib" 2>/dev/null || echo 0)
echo "peak RSS ${kib} KiB with --memory $budget ($calls calls)"
within() { [ "$kib" -gt 0 ] && [ "$kib" -le "$budget_kib" ]; }
# Not under AddressSanitizer: its shadow memory would dominate (hostile.sh's rule).
if grep -q __asan_init "$sv"; then
    echo "peak RSS not checked: AddressSanitizer build"
else
    check "peak RSS ${kib} KiB within the budget ($budget_kib KiB)" within
fi
# Zoomed in far enough, a window was read: the details of a selected call show.
env -u TERM "$sv" --batch --size 80x24 --memory "$budget" --keys "++++++++++++++++++++<Enter>" \
    "$f" >"$tmp/out" 2>"$tmp/err"
check "zoomed in 20 times: the calls were read (header 'out of core')" rowhas 2 "  out of core$"
check "zoomed in: a call selected, its start and duration" hasx " start .* dur "
# The lanes view opens over the budget too, from the sweep's figures.
env -u TERM "$sv" --batch --size 80x24 --memory "$budget" --keys 7 "$f" >"$tmp/out" 2>"$tmp/err"
check "the lanes view: its table out of core" grep -q "Lane .*Busy" "$tmp/out"
finish
