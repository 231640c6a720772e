#!/bin/sh
# The exports (--export chrome, --export speedscope, --folded) loaded by speedscope's own
# page in headless Chromium and read back (tests/export_speedscope.py says how), on profiles
# the generator writes and, when ../shared is present, every shared profile that loads.
# Needs Chromium, python3 with jsonschema and the speedscope npm package (its release
# directory: $SV_SPEEDSCOPE_DIR, else the cache that scripts/install-test-viewers fills,
# ${XDG_CACHE_HOME:-~/.cache}/scopeview/speedscope); skips without them.
. "${0%/*}/lib.sh"

release=${SV_SPEEDSCOPE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/scopeview/speedscope/node_modules/speedscope/dist/release}
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ ! -f "$release/index.html" ] || [ ! -f "$release/file-format-schema.json" ]; then
    echo "export_speedscope.sh: SKIP: no speedscope package at $release (scripts/install-test-viewers)"
    exit 77
fi
if [ -z "$chromium" ] || ! python3 -c 'import jsonschema' 2>/dev/null; then
    echo "export_speedscope.sh: SKIP: needs chromium and python3-jsonschema"
    exit 77
fi
gen="$top_build/svgen"
"$gen" demo "$tmp/demo.h5" >/dev/null &&
    "$gen" stream-mix "$tmp/mix.h5" --calls 3000 --ranks 2 >/dev/null &&
    "$gen" stream-mix "$tmp/mix_threads_ids.h5" --calls 3000 --threads --ids >/dev/null &&
    "$gen" extended "$tmp/extended.h5" 400 >/dev/null &&
    "$gen" legacy "$tmp/legacy.h5" 500 >/dev/null || exit 99
set -- "$fx/small.h5" "$fx/legacy_small.h5" "$fx/nested_names.h5" "$fx/legacy_threads2.h5" \
    "$fx/col3_full.h5" \
    "$tmp"/*.h5
if [ -d "$shared/data" ]; then
    # JSON profiles and native traces join once scopeview opens them.
    for f in "$shared"/data/real/*.h5 "$shared"/data/extended/*.h5 "$shared"/data/upstream/*.h5 \
        "$shared"/data/upstream/json/* "$shared"/data/upstream/native/*; do
        [ -e "$f" ] && "$sv" --summary "$f" >/dev/null 2>&1 && set -- "$@" "$f"
    done
else
    skipped=$((skipped + 1))
fi
mkdir -p "$tmp/work" "$tmp/work_ooc"
SV_CHROMIUM=$chromium python3 "$top_src/tests/export_speedscope.py" "$sv" "$release" "$tmp/work" "$@"
rc=$?
# The same read back of the exports out of core, on the generated profiles the sweep nests
# (no call ids): threads, inferred lanes, schema 1.
"$gen" stream-mix "$tmp/ooc_threads.h5" --calls 3000 --ranks 2 --threads >/dev/null || exit 99
SV_EXPORT_ARGS=--out-of-core SV_CHROMIUM=$chromium python3 "$top_src/tests/export_speedscope.py" \
    "$sv" "$release" "$tmp/work_ooc" "$tmp/mix.h5" "$tmp/ooc_threads.h5" "$tmp/legacy.h5" \
    "$fx/legacy_threads2.h5" || rc=1
[ $rc = 0 ] && [ "$skipped" != 0 ] && echo "export_speedscope.sh: shared profiles absent, generated ones only"
exit $rc
