#!/bin/sh
# Every Markdown table of README.md and doc/*.md renders: a header, then a separator row
# (|---|), then rows, all with the same number of cells (a table cut after its header, as
# the README's performance table once was, shows as a lone "|").  Prints "N passed, N
# failed"; exits non-zero when anything failed.
. "${0%/*}/lib.sh"
for f in "$top_src/README.md" "$top_src"/doc/*.md; do
    [ -f "$f" ] || continue
    out=$(awk '
        /^```/ { fence = !fence; n = 0; next }
        fence { next }
        /^\|/ {
            line = $0; gsub(/`[^`]*`/, "", line); c = gsub(/\|/, "|", line)
            n++
            if (n == 1) { cells = c; start = NR; next }
            if (n == 2 && $0 !~ /^\|[-:| ]+\|[ ]*$/) { print FILENAME ":" NR ": no separator row after the header of line " start; next }
            if (c != cells) print FILENAME ":" NR ": " c - 1 " cells, the header of line " start " has " cells - 1
            next
        }
        { if (n == 1) print FILENAME ":" start ": a table header with no rows"; n = 0 }
        END { if (n == 1) print FILENAME ":" start ": a table header with no rows" }' "$f")
    if [ -z "$out" ]; then ok; else bad "$out"; fi
done
finish
