#!/bin/sh
# The man page's key lists are the ones the command table (src/ui/commands.def)
# generates: regenerate them and compare (on a difference: `make man-keys`); and the help
# screen shows every one of those lines.
. "${0%/*}/lib.sh"
man="$top_src/doc/scopeview.1"
"$top_build/tests/man_keys" "$man" >"$tmp/man" 2>"$tmp/err"
check "tests/man_keys writes the man page" [ $? = 0 ]
if ! diff -u "$man" "$tmp/man" >"$tmp/diff"; then
    bad "doc/scopeview.1's key lists differ from src/ui/commands.def: run make man-keys"
    sed 's/^/  /' "$tmp/diff"
else
    ok
fi

# The help screen lists the same lines: every help line's keys (the man page's .TP labels)
# start a line of the whole help, shown at once on a tall screen.  With --diff: the compare
# view's section shows only in compare mode.
need_fixture "$fx/small.h5"
"$top_build/tests/man_keys" --labels >"$tmp/labels"
check "every scope has help lines" [ "$(wc -l <"$tmp/labels")" -gt 40 ]

# Without --diff the compare view has no key, so the help has no compare section and the
# view keys skip it; with --diff both are there.
screen 160x400 "?" "$fx/small.h5"
check "one file: the help is shown" has "lines 1-\([0-9]*\) of \1$"
check "one file: no compare view section" hasnt "^6 compare view"
check "one file: no compare marks" hasnt "^ Marks  *slow / fast"
check "one file: the view keys skip 6" has "^ 1 2 3 4 5 7 8 9 D B  *open a view by number: 1 timeline, 2 tree, 3 regions, 4 calls, 5 info, 7 lanes, 8 flame, 9 imbalance, D series, B callers$"
check "one file: the view keys name no compare view" hasnt "6 compare"
screen 160x400 "?" "$fx/small.h5" --diff "$fx/small.h5"
check "--diff: a compare view section" has "^6 compare view$"
check "--diff: the compare marks" has "^ Marks  *slow / fast"
check "--diff: the view keys list 6" has "^ 1 2 3 4 5 6 7 8 9 D B  *open a view by number: .*, 5 info, 6 compare, 7 lanes, 8 flame, 9 imbalance, D series, B callers$"
check "the whole help fits in 400 rows" has "lines 1-\([0-9]*\) of \1$"
starts_line() { lib_look "a line starting '$1'" && awk -v l="$1" 'index($0, l) == 1 { f = 1 } END { exit !f }' "$scr"; }
while IFS= read -r label; do
    # the key column is at most 20 wide: a longer label is cut with an ellipsis
    cut=$(printf '%s' "$label" | cut -c1-19)
    check "the help screen lists '$label'" starts_line " $cut"
done <"$tmp/labels"
finish
