#!/bin/sh
# Native traces (.spt) from the command line: a run as a directory equals
# its files named one by one; the info view names each file's version and
# byte order; the source pane has the file and line but no text; damaged
# traces exit 1 with one line naming the file and the offset; with the
# shared data, --json on upstream/native matches expected/native-*.json.

. "${0%/*}/lib.sh"
jc="$top_build/tests/jsoncmp"
"$top_build/svgen" spt "$tmp/run" 200 >/dev/null || exit 99

run --json "$tmp/run"
cp "$scr" "$tmp/dir.json"
run --json "$tmp"/run/run_rank*.spt
check "--json: the directory equals its files named one by one" cmp -s "$tmp/dir.json" "$scr"
check "--json: four ranks" hasf '"num_ranks": 4,'
check "--json: the layout" hasf '"layout": "native"'
check "--json: each file's format" \
    hasf '"native trace, version 2, big-endian, rank 1", "native trace, version 1, little-endian, rank 2"'

screen 100x40 "5" "$tmp/run"
check "info: version and byte order of each file" hasf "native trace, version 1, big-endian, rank 3"
check "info: the layout" hasf "native traces (start and end times only)"
screen 120x20 "3s" "$tmp/run"
check "source pane: file and line, no text" hasx 'src/solver\.c:12  main'
check "source pane: says the text is not captured" hasf "source text not captured"

# one_line_error NAME WANT FILE...: exit 1, one line on stderr holding WANT.
one_line_error() {
    name=$1 want=$2
    shift 2
    run --json "$@"
    check "$name: exit 1" [ "$rc" = 1 ]
    check "$name: one line" [ "$(wc -l <"$tmp/err")" = 1 ]
    check "$name: '$want'" hasf "$want" "$tmp/err"
}
mkdir "$tmp/bad"
head -c 30 "$tmp/run/run_rank00000.spt" >"$tmp/bad/short.spt"
one_line_error "short trace" "$tmp/bad/short.spt: damaged native trace at offset 16: region count 5" \
    "$tmp/bad/short.spt"
head -c 3000 "$tmp/run/run_rank00000.spt" >"$tmp/bad/cut.spt"
one_line_error "truncated trace" "$tmp/bad/cut.spt: damaged native trace at offset" "$tmp/bad/cut.spt"
{ cat "$tmp/run/run_rank00002.spt"; printf 'xy'; } >"$tmp/bad/tail.spt"
one_line_error "trailing bytes" "2 trailing bytes after the last region" "$tmp/bad/tail.spt"
cp "$tmp/run/run_rank00002.spt" "$tmp/bad/again_rank00009.spt"
one_line_error "two files of one rank" \
    "$tmp/bad/again_rank00009.spt: rank 2, which $tmp/run/run_rank00002.spt claims too" \
    "$tmp/run" "$tmp/bad/again_rank00009.spt"
mkdir "$tmp/empty"
one_line_error "a directory without traces" "a directory without native traces" "$tmp/empty"

if need_shared "upstream/native"; then
    up="$shared_root/data/upstream"
    for d in "$up"/native/*/; do
        base=native-$(basename "$d")
        run --json "$d"
        check "--json $base matches expected/$base.json" "$jc" "$scr" "$up/expected/$base.json"
        check "--json $base: no warning" [ ! -s "$tmp/err" ]
        cp "$scr" "$tmp/d.json"
        # the files one by one, in reverse order: the same statistics
        run --json $(ls -r "$d"*)
        check "--json $base: the files named one by one match too" \
            "$jc" "$scr" "$up/expected/$base.json"
    done
fi
finish
