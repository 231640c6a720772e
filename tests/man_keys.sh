#!/bin/sh
# The man page's key lists are the ones the command table (src/view/commands.def)
# generates: regenerate them and compare (on a difference: `make man-keys`); and the help
# screen shows every one of those lines.
. "${0%/*}/lib.sh"
man="$top_src/doc/scopeview.1"
"$top_build/tests/man_keys" "$man" >"$tmp/man" 2>"$tmp/err"
check "tests/man_keys writes the man page" [ $? = 0 ]
if ! diff -u "$man" "$tmp/man" >"$tmp/diff"; then
    bad "doc/scopeview.1's key lists differ from src/view/commands.def: run make man-keys"
    sed 's/^/  /' "$tmp/diff"
else
    ok
fi

# The help screen lists the same lines: every help line's keys (the man page's .TP labels)
# start a line of the whole help, shown at once on a tall screen.
need_fixture "$fx/small.h5"
"$top_build/tests/man_keys" --labels >"$tmp/labels"
check "every scope has help lines" [ "$(wc -l <"$tmp/labels")" -gt 40 ]
screen 160x400 "?" "$fx/small.h5"
check "the whole help fits in 400 rows" has "lines 1-\([0-9]*\) of \1$"
starts_line() { lib_look "a line starting '$1'" && awk -v l="$1" 'index($0, l) == 1 { f = 1 } END { exit !f }' "$scr"; }
while IFS= read -r label; do
    # the key column is at most 20 wide: a longer label is cut with an ellipsis
    cut=$(printf '%s' "$label" | cut -c1-19)
    check "the help screen lists '$label'" starts_line " $cut"
done <"$tmp/labels"
finish
