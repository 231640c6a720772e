#!/bin/sh
# ci.sh: a short, fixed-seed run of the three fuzz targets for CI (installs nothing).
#
#   sh tests/fuzz/ci.sh [DIR]
#
# Copies the source tree's tracked files (git ls-files, so an in-tree build does not clash)
# into DIR (default: a new temporary directory, removed after a clean run unless FUZZ_CI_KEEP=1),
# configures it with --enable-fuzzer CC=clang (every object with coverage, ASan and UBSan,
# -fno-sanitize-recover), builds fuzz_load, fuzz_json, fuzz_spt and svgen, writes the seeds
# with svgen (the same files for a given commit: svgen is deterministic) and runs each target
# from seed 1 for a fixed number of inputs:
#
#   fuzz_load  FUZZ_CI_H5_RUNS (default 400): HDF5 profiles, svgen fixtures under 64 KiB
#   fuzz_json  FUZZ_CI_JSON_RUNS (default 5000): JSON profiles, plain and gzip'd
#   fuzz_spt   FUZZ_CI_SPT_RUNS (default 10000): native traces, every version and byte order
#
# (about 150 s in all on a busy 2-core machine, 400 inputs of fuzz_load taking 60 s of it).
# FUZZ_CI_RSS_MB (2048) is each target's memory limit; FUZZ_CI_REUSE=1 skips the build when
# DIR holds one.
# Exit 1 on any crash, leak, sanitizer report or timeout in scopeview's code; 2 when the
# build or the seeds fail.  libhdf5 is not instrumented and crashes on some damaged files by
# itself (the viewer contains that in its loading child): a fuzz_load crash whose first frame
# is in libhdf5 is reported and does not fail the run.  Needs clang and its libFuzzer and
# sanitizer runtimes (Debian 12: clang-14 and libclang-rt-14-dev) besides the build deps.
set -u
temp=0
src=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
start=$(date +%s)
if [ $# -gt 0 ]; then
    dir=$1
    mkdir -p "$dir" || exit 2
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/sv-fuzz-ci.XXXXXX") || exit 2
    temp=1
fi
dir=$(cd "$dir" && pwd)
log=$dir/build.log
say() { echo "fuzz-ci: $*"; }

command -v clang >/dev/null 2>&1 || {
    say "clang is not installed (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2
    exit 2
}

# --- build, from a copy of the tracked sources (FUZZ_CI_REUSE=1: DIR's earlier build as it is)
b=$dir/tree
if [ "${FUZZ_CI_REUSE:-0}" = 1 ] && [ -x "$b/tests/fuzz/fuzz_spt" ]; then
    say "reusing the build in $b"
else
    say "building in $dir (log: $log)"
    mkdir -p "$b" || exit 2
    (cd "$src" && git ls-files -z | xargs -0 tar -cf -) | tar -xf - -C "$b" || {
        say "cannot copy the sources (a git checkout is needed)" >&2
        exit 2
    }
    (
        cd "$b" && sh autogen.sh && ./configure -q --enable-fuzzer CC=clang &&
            make -j"${FUZZ_CI_JOBS:-2}" tests/fuzz/fuzz_load tests/fuzz/fuzz_json \
                tests/fuzz/fuzz_spt svgen
    ) >"$log" 2>&1 || {
        tail -n 30 "$log"
        say "build failed" >&2
        exit 2
    }
    say "built in $(($(date +%s) - start)) s"
fi

# --- seeds
s=$dir/seeds
rm -rf "$s" "$dir/artifacts" "$dir"/corpus-*
mkdir -p "$s/h5" "$s/json" "$s/spt" "$dir/artifacts" || exit 2
"$b/svgen" fixtures "$s/h5" >/dev/null &&
    "$b/svgen" bench-schema3 "$s/json/bench.json" --calls 60 --json >/dev/null &&
    "$b/svgen" bench-schema3 "$s/json/bench.json.gz" --calls 60 --json --gzip >/dev/null &&
    "$b/svgen" demo --layout json-gz "$s/json/demo.json.gz" >/dev/null &&
    "$b/svgen" spt "$s/spt/run" 30 >/dev/null || {
    say "svgen could not write the seeds" >&2
    exit 2
}
find "$s/h5" -type f -size +64k -delete
find "$s/h5" -type f ! -name '*.h5' -delete

# first_frame LOG: the first stack frame outside the sanitizers, libFuzzer and libc
first_frame() {
    grep -aE '^ +#[0-9]+ ' "$1" |
        grep -vE '__asan|__interceptor|__sanitizer|__ubsan|__lsan|asan_|sanitizer_common|compiler-rt|fuzzer::|libc\.so|libc_start|/libc-|/sysdeps/|in __(mem|str)[a-z0-9_]* |in (malloc|calloc|realloc|free|memcpy|memmove|memset|strlen|strdup) ' |
        head -n 1
}

# run NAME RUNS DICT MAXLEN SEEDDIR: one target from seed 1; 0 when clean
bad=0
run() {
    name=$1 runs=$2 dict=$3 maxlen=$4 seeds=$5
    corpus=$dir/corpus-$name
    mkdir -p "$corpus"
    t0=$(date +%s)
    set -- -seed=1 -runs="$runs" -timeout=20 -rss_limit_mb="${FUZZ_CI_RSS_MB:-2048}" -max_len="$maxlen" \
        -artifact_prefix="$dir/artifacts/$name-"
    [ -n "$dict" ] && set -- "$@" -dict="$src/tests/fuzz/$dict"
    LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp ASAN_OPTIONS=detect_leaks=1 \
        FUZZ_LOAD_TMPDIR=$dir "$b/tests/fuzz/$name" "$@" "$corpus" "$seeds" \
        >"$dir/$name.log" 2>&1
    rc=$?
    # -a: the log quotes inputs; libFuzzer ends a clean run with "Done N runs"
    execs=$(grep -ao '^Done [0-9]* runs' "$dir/$name.log" | tr -dc '0-9')
    say "$name: ${execs:-?} inputs from seed 1 in $(($(date +%s) - t0)) s, exit $rc"
    [ "$rc" = 0 ] && return 0
    frame=$(first_frame "$dir/$name.log")
    if [ "$name" = fuzz_load ] && echo "$frame" | grep -q libhdf5; then
        say "$name: a crash inside libhdf5 (contained by the loading child): $frame"
        return 0
    fi
    tail -n 40 "$dir/$name.log"
    say "$name FAILED: $(echo "$frame" | sed 's/^ *//')"
    ls "$dir/artifacts/$name-"* 2>/dev/null | sed 's/^/fuzz-ci:   input /'
    bad=1
}
run fuzz_load "${FUZZ_CI_H5_RUNS:-400}" hdf5.dict 262144 "$s/h5"
run fuzz_json "${FUZZ_CI_JSON_RUNS:-5000}" json.dict 65536 "$s/json"
run fuzz_spt "${FUZZ_CI_SPT_RUNS:-10000}" "" 65536 "$s/spt/run"
say "done in $(($(date +%s) - start)) s"
if [ "$bad" = 0 ] && [ "$temp" = 1 ] && [ "${FUZZ_CI_KEEP:-0}" != 1 ]; then
    rm -rf "$dir"
elif [ "$bad" != 0 ]; then
    say "logs and inputs kept in $dir"
fi
exit "$bad"
