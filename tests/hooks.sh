#!/bin/sh
# hooks.sh: every environment variable scopeview reads is a row of
# src/util/hooks.def, read through hook_value(), and doc/ARCHITECTURE.md's
# "Test hooks" table lists exactly those rows.
set -u
top=${SV_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99
bad=0
direct=$(grep -rn 'getenv("SCOPEVIEW_' src || true)
if [ -n "$direct" ]; then
    echo "hooks.sh: read SCOPEVIEW_ variables through hook_value() (src/util/hooks.h):"
    echo "$direct"
    bad=1
fi
def=$(sed -n 's/^HOOK([A-Z_]*, "\(SCOPEVIEW_[A-Z_]*\)".*/\1/p' src/util/hooks.def | sort)
doc=$(awk '/^## Test hooks/{f=1;next} /^## /{f=0} f' doc/ARCHITECTURE.md |
    sed -n 's/^| `\(SCOPEVIEW_[A-Z_]*\)`.*/\1/p' | sort)
[ -n "$def" ] || { echo "hooks.sh: no HOOK rows in src/util/hooks.def"; exit 1; }
if [ "$def" != "$doc" ]; then
    echo "hooks.sh: hooks.def and ARCHITECTURE.md's Test hooks table differ:"
    printf '%s\n' "$def" >/tmp/hooks_def.$$; printf '%s\n' "$doc" >/tmp/hooks_doc.$$
    diff /tmp/hooks_def.$$ /tmp/hooks_doc.$$
    rm -f /tmp/hooks_def.$$ /tmp/hooks_doc.$$
    bad=1
fi
[ "$bad" = 0 ] && echo "hooks.sh: $(printf '%s\n' "$def" | wc -l) variables, each in hooks.def and documented"
exit "$bad"
