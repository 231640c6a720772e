#!/bin/sh
# The man page's key lists are the ones the command table (src/view/commands.def)
# generates: regenerate them and compare.  On a difference: `make man-keys`.
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
finish
