#!/bin/sh
# layout.sh: the include arrows between src/'s folders are the ones that
# doc/ARCHITECTURE.md's "layout" block allows, and no more.
#   - a file's folder is its first directory under src/ (src/view/timeline/x.c is "view");
#   - an include spelled "folder/file.h" is an arrow to that folder; a bare
#     "file.h" must name a file of the includer's own directory;
#   - only src/load includes libhdf5, only src/ui/term.c includes curses;
#   - nothing under src/ includes from tests/.
# Exit 1 naming every offending line.
set -u
top=${SV_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99
arch=doc/ARCHITECTURE.md
rules=$(awk '/^```layout$/{f=1;next} /^```/{f=0} f' "$arch")
[ -n "$rules" ] || { echo "layout.sh: no layout block in $arch" >&2; exit 1; }
awk -v rules="$rules" '
BEGIN {
    n = split(rules, lines, "\n")
    for (i = 1; i <= n; i++) {
        split(lines[i], w, /[: ]+/)
        # A folder may include only folders named on earlier lines: no circle.
        for (j = 2; j in w; j++) if (w[j] != "") {
            if (!(w[j] in known)) { print "layout block: " w[1] " -> " w[j] " points to a later line"; bad = 1 }
            allow[w[1] "," w[j]] = 1
        }
        known[w[1]] = 1
    }
}
FNR == 1 {
    file = FILENAME
    k = split(file, parts, "/")
    from = (k == 2) ? "main" : parts[2]
    dir = file; sub(/\/[^\/]*$/, "", dir)
    if (!(from in known)) { print file ": folder " from " is not in the layout block"; bad = 1 }
}
/^[ \t]*#[ \t]*include[ \t]*</ {
    if ($0 ~ /<(hdf5|H5[A-Za-z]*)\.h>/ && from != "load") { print file ":" FNR ": libhdf5 outside src/load"; bad = 1 }
    if ($0 ~ /<(n?curses|ncursesw\/[a-z]*)\.h>/ && file != "src/ui/term.c") { print file ":" FNR ": curses outside src/ui/term.c"; bad = 1 }
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
    inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
    if (inc !~ /\//) {
        if ((getline tmp < (dir "/" inc)) < 0) { print file ":" FNR ": \"" inc "\" is not in " dir "/ (spell it from src/)"; bad = 1 }
        close(dir "/" inc)
        next
    }
    split(inc, ip, "/"); to = ip[1]
    if (to == "tests") { print file ":" FNR ": includes from tests/"; bad = 1; next }
    if ((getline tmp < ("src/" inc)) < 0) { print file ":" FNR ": \"" inc "\" is not under src/"; bad = 1; close("src/" inc); next }
    close("src/" inc)
    if (to != from && !((from "," to) in allow)) { print file ":" FNR ": " from " -> " to " is not an allowed arrow (" inc ")"; bad = 1 }
}
END { exit bad }
' $(find src -name '*.[ch]' | sort) || { echo "layout.sh: include arrows differ from $arch" >&2; exit 1; }
echo "layout.sh: every include follows the arrows of $arch"
