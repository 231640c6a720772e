#!/bin/sh
# Runs the real scopeview binary: exit statuses, one-line errors, batch outputs on the
# fixtures svgen writes, closed pipes, and that no control byte from a hostile file escapes.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/lib.sh"

if [ ! -x "$sv" ] || [ ! -f "$fx/small.h5" ]; then
    echo "cli.sh: $sv or $fx/small.h5 missing (run from make check)"
    exit 99
fi
small="$fx/small.h5"

# --- help, version, usage errors
run --help
check "--help exits 0" [ "$rc" = 0 ]
check "--help says Usage" has "^Usage: scopeview" "$tmp/out"
for opt in --summary --json --csv --events --rank --include --exclude --ranks --batch --size \
    --keys --ascii --mono --help --version "Exit status"; do
    check "--help mentions $opt" has "$opt" "$tmp/out"
done
check "--help writes nothing on stderr" [ ! -s "$tmp/err" ]
run --version
check "--version exits 0" [ "$rc" = 0 ]
check "--version prints scopeview X.Y.Z" grep -qx 'scopeview [0-9]*\.[0-9]*\.[0-9]*' "$tmp/out"

for args in "--bogus" "-q" "--events" "--size 0x24 $small" "--size 80x $small" \
    "--rank 0 $small" "--json --csv $small" "--summary --events outer $small" \
    "--ranks 0-x $small" "--include ( $small" "--rank -1 --events outer $small"; do
    # shellcheck disable=SC2086 # word splitting of args is wanted
    run $args
    check "'$args' exits 2" [ "$rc" = 2 ]
    check "'$args' gives one line on stderr" [ "$(lines "$tmp/err")" = 1 ]
    check "'$args' hints at --help" has "try 'scopeview --help'" "$tmp/err"
    check "'$args' prints nothing" [ ! -s "$tmp/out" ]
done

# --- several FILEs are one C-API rank set; other files cannot join one
run --summary "$small" "$small"
check "two schema-1 files exit 1" [ "$rc" = 1 ]
check "two schema-1 files: only rank files open together" has "only columnar rank files" "$tmp/err"

# --- files that do not load
for f in "$tmp/missing.h5" "$fx/fault_not_hdf5.h5" "$fx/fault_empty.h5" "$fx/fault_truncated.h5"; do
    run --summary "$f"
    check "$f exits 1" [ "$rc" = 1 ]
    check "$f: one line on stderr" [ "$(lines "$tmp/err")" = 1 ]
    check "$f: the message names the file" has "^scopeview: $f" "$tmp/err"
done
run --json "$fx/fault_not_hdf5.h5"
check "not HDF5 is said" has "not an HDF5 file" "$tmp/err"

# --- batch outputs on small.h5
run --summary "$small"
check "--summary exits 0" [ "$rc" = 0 ]
for name in outer inner io/write reduce "600 ns" "summary-only"; do
    check "--summary shows $name" has "$name" "$tmp/out"
done
cp "$tmp/out" "$tmp/summary"
"$sv" "$small" >"$tmp/piped" 2>/dev/null
check "piped without --batch prints the summary" cmp -s "$tmp/summary" "$tmp/piped"
run --json "$small"
check "--json exits 0" [ "$rc" = 0 ]
check "--json has total_exclusive_duration 6e-07" has '"total_exclusive_duration": 6e-07' "$tmp/out"
run --csv "$small"
check "--csv: header + 4 rows" [ "$(lines "$tmp/out")" = 5 ]
run --events inner --json "$small"
check "--events --json exits 0" [ "$rc" = 0 ]
check "--events --json has gpu 5e-08" has '"gpu": 5e-08' "$tmp/out"
run --csv --events outer --rank 0 "$small"
check "--csv before --events also chooses CSV" has "^call_index,start,end" "$tmp/out"
check "--events --csv: header + 2 calls" [ "$(lines "$tmp/out")" = 3 ]
run --events reduce "$small"
check "--events on a summary-only region exits 1" [ "$rc" = 1 ]
check "... with the event-data-unavailable error" has "event data unavailable" "$tmp/err"
check "... in one line" [ "$(lines "$tmp/err")" = 1 ]
run --events nope "$small"
check "--events on a missing region exits 1" [ "$rc" = 1 ]
check "... saying FILE: no region NAME" has "^scopeview: $small: no region nope$" "$tmp/err"

# --- filters
run --json --include in "$small"
check "--include is anchored at the start" [ "$(grep -c '{"name"' "$tmp/out")" = 1 ]
run --json --exclude o --exclude i "$small"
check "--exclude is repeatable" [ "$(grep -c '{"name"' "$tmp/out")" = 1 ]
run --json --ranks 0-3,5 "$fx/nested_names.h5"
check "--ranks 0-3,5 exits 0" [ "$rc" = 0 ]
check "--ranks 0-3,5 keeps ranks 0, 2 and 5" has '"ranks": \[0, 2, 5\]' "$tmp/out"
# A rank the file lacks is an error that lists the ranks it has (nested_names.h5: 0, 2, 5);
# a range needs one rank of the file in it.
run --json --ranks 1,3 "$fx/nested_names.h5"
check "--ranks 1,3 (no such ranks) exits 2" [ "$rc" = 2 ]
check "--ranks 1,3 names the rank and lists the file's" has "has no rank 1; its ranks are 0,2,5$" "$tmp/err"
check "--ranks 1,3 prints nothing on stdout" [ ! -s "$tmp/out" ]
run --summary --ranks 0,5,7 "$fx/nested_names.h5"
check "--ranks 0,5,7: 7 is missing, exit 2" [ "$rc" = 2 ]
check "--ranks 0,5,7 names 7" has "has no rank 7;" "$tmp/err"
run --summary --ranks 3-4 "$fx/nested_names.h5"
check "--ranks 3-4 (an empty range) exits 2" [ "$rc" = 2 ]
check "--ranks 3-4 says the range" has "has no rank in 3-4;" "$tmp/err"
run --summary --ranks 1-2 "$fx/nested_names.h5"
check "--ranks 1-2 (holds rank 2) exits 0" [ "$rc" = 0 ]

# --- the demo lookup
SCOPEVIEW_DEMO="$small" "$sv" --summary >"$tmp/out" 2>"$tmp/err"
check "SCOPEVIEW_DEMO names the demo" has "small.h5" "$tmp/out"
SCOPEVIEW_DEMO="$tmp/none.h5" "$sv" --summary >"$tmp/out" 2>"$tmp/err"
check "a missing demo exits 1" [ $? = 1 ]

# --- closed and failing outputs
# The reader is gone before scopeview writes: a clean EPIPE, status 141, nothing on stderr.
{
    sleep 1
    "$sv" --json "$small" 2>"$tmp/err"
    echo $? >"$tmp/rc"
} | true
check "writing to a closed pipe exits 141" [ "$(cat "$tmp/rc")" = 141 ]
check "... quietly" [ ! -s "$tmp/err" ]
"$sv" --events inner "$small" 2>"$tmp/err" | head -c1 >/dev/null
check "'| head -c1' does not crash" [ ! -s "$tmp/err" ]
if [ -w /dev/full ]; then
    "$sv" --csv "$small" >/dev/full 2>"$tmp/err"
    check "a full disk exits 1" [ $? = 1 ]
    check "... with a message" has "cannot write" "$tmp/err"
fi

# --- hostile strings: every output, stderr included, stays free of control bytes
hostile="$fx/fault_hostile_strings.h5"
evil=$(printf 'evil\033[31mred\007')
hostile_run() { # hostile_run N ARGS...
    out="$tmp/h$1"
    shift
    "$sv" "$@" "$hostile" >"$out" 2>&1
    check "hostile output $out is produced" [ -s "$out" ]
    check "hostile output $out has no control byte" clean "$out"
}
hostile_run 1 --summary
hostile_run 2 --json
hostile_run 3 --csv
hostile_run 4 --events "$evil"
hostile_run 5 --events "$evil" --json
hostile_run 6 --events "$evil" --csv
run --bogus "$(printf '\033]52;c;x\007')"
check "a hostile argument is escaped in the usage error" clean "$tmp/err"

finish
