#!/bin/sh
# The man page's key lists are the ones the command table (src/view/commands.def)
# generates: regenerate them and compare.  On a difference: `make man-keys`.
top_src=${SV_TOP_SRCDIR:-..}
top_build=${SV_TOP_BUILDDIR:-.}
man="$top_src/doc/scopeview.1"
tmp=$(mktemp "${TMPDIR:-/tmp}/sv-man.XXXXXX") || exit 99
trap 'rm -f "$tmp"' EXIT INT TERM
"$top_build/tests/man_keys" "$man" >"$tmp" || { echo "FAIL: man_keys could not run"; exit 1; }
if ! diff -u "$man" "$tmp"; then
    echo "FAIL: doc/scopeview.1's key lists differ from src/view/commands.def: run make man-keys"
    exit 1
fi
echo "PASS: doc/scopeview.1 lists the keys of src/view/commands.def"
