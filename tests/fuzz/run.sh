#!/bin/sh
# make fuzz: runs tests/fuzz/fuzz_load for FUZZ_SECONDS (default 60) from a seed
# corpus the generator writes, then sorts every crash, hang and leak libFuzzer
# kept into "libhdf5" (the first frame outside the sanitizer runtime and libc
# is in libhdf5: expected, contained by the probe) and "scopeview" (anything
# else: a bug to fix).  Each libhdf5 input is also run through the real binary,
# which must print the one-line damaged message and exit 1.
#
# Output in tests/fuzz/out/ of the build tree: corpus/ (kept between runs),
# artifacts/, fuzz.log and report.txt.  Exits 1 when scopeview's own code
# crashed or a libhdf5 crash was not contained.
#
# Then tests/fuzz/fuzz_json (JSON profiles) runs FUZZ_JSON_RUNS inputs
# (default 20000) with the fixed seed 1 from JSON seeds the generator writes
# (json/ beside the others): there every crash, leak or timeout is a bug.
# Run from the build directory; SV_TOP_SRCDIR (or $top_srcdir) names the sources.
set -u
src=${SV_TOP_SRCDIR:-$(dirname "$0")/../..}
seconds=${FUZZ_SECONDS:-60}
fuzz=./tests/fuzz/fuzz_load
jfuzz=./tests/fuzz/fuzz_json
# (tests/fuzz/fuzz_spt, the native traces' target, runs after it from its own seeds)
sv=$(pwd)/scopeview
out=tests/fuzz/out
[ -x "$fuzz" ] && [ -x "$jfuzz" ] && [ -x ./svgen ] && [ -x "$sv" ] || {
    echo "run.sh: build tests/fuzz/fuzz_load, fuzz_json, svgen and scopeview first (make fuzz)" >&2
    exit 2
}
mkdir -p "$out/seeds" "$out/corpus" "$out/artifacts" "$out/triage" || exit 2

# --- seeds: the fixtures below 256 KiB, small generated scenarios, kept inputs
seeds=$out/seeds
./svgen fixtures "$seeds" >/dev/null || exit 2
./svgen legacy "$seeds/gen_legacy.h5" 20 >/dev/null
./svgen extended "$seeds/gen_extended.h5" 40 >/dev/null
./svgen deep "$seeds/gen_deep.h5" 50 >/dev/null
./svgen cycle-long "$seeds/gen_cycle.h5" 20 >/dev/null
./svgen many-regions "$seeds/gen_many.h5" 20 3 >/dev/null
for f in "$src"/tests/regress/*.h5; do
    [ -f "$f" ] && cp "$f" "$seeds/"
done
find "$seeds" -type f -size +256k -delete

# --- fuzz: one worker process, crashes/hangs/OOMs recorded and skipped
# (FUZZ_SECONDS=0: only sort the artifacts already kept)
[ "$seconds" -gt 0 ] && echo "fuzz: ${seconds} s from $(ls "$seeds" | wc -l) seeds; log in $out/fuzz.log"
LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp
# Inputs are written there (RAM when /dev/shm exists); crashed workers leave theirs.
FUZZ_LOAD_TMPDIR=$(mktemp -d /dev/shm/sv-fuzz.XXXXXX 2>/dev/null || mktemp -d "$out/tmp.XXXXXX")
export LSAN_OPTIONS FUZZ_LOAD_TMPDIR
trap 'rm -rf "$FUZZ_LOAD_TMPDIR"' EXIT INT TERM
[ "$seconds" -gt 0 ] && ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$fuzz" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
    -dict="$src/tests/fuzz/hdf5.dict" -artifact_prefix="$out/artifacts/" \
    "$out/corpus" "$seeds" >"$out/fuzz.log" 2>&1
execs=$(grep -o '^#[0-9]*' "$out/fuzz.log" 2>/dev/null | tail -n 1 | tr -d '#')
echo "fuzz: ${execs:-0} executions, corpus $(ls "$out/corpus" | wc -l) inputs"

# --- native traces: a short run of fuzz_spt from fixed seeds (every version and byte order
# of svgen spt), the same every time (-seed=1, a fixed number of inputs); its crashes join the
# artifacts below (a trace is read by scopeview's own code: any crash is scopeview's).
spt_seeds=$out/spt-seeds
mkdir -p "$spt_seeds" "$out/spt-corpus"
./svgen spt "$spt_seeds/run" 30 >/dev/null && mv "$spt_seeds"/run/*.spt "$spt_seeds"/ &&
    rmdir "$spt_seeds/run"
[ "$seconds" -gt 0 ] && [ -x ./tests/fuzz/fuzz_spt ] && ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    ./tests/fuzz/fuzz_spt -seed=1 -runs="${SPT_RUNS:-20000}" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$out/artifacts/spt-" "$out/spt-corpus" "$spt_seeds" \
    >"$out/fuzz_spt.log" 2>&1
[ "$seconds" -gt 0 ] && echo "fuzz_spt: $(grep -o '^#[0-9]*' "$out/fuzz_spt.log" | tail -n 1 | tr -d '#') executions"

# --- triage: classify every artifact by its first frame that is not runtime
# first_frame LOG: the first stack frame outside sanitizers, libFuzzer and libc
first_frame() {
    grep -E '^ +#[0-9]+ ' "$1" |
        grep -vE '__asan|__interceptor|__sanitizer|__ubsan|__lsan|asan_|sanitizer_common|compiler-rt|fuzzer::|libc\.so|libc_start|/libc-|/sysdeps/|in __(mem|str)[a-z0-9_]* |in (malloc|calloc|realloc|free|memcpy|memmove|memset|strlen|strdup) ' |
        head -n 1
}
nlib=0 nown=0 nflaky=0 nuncontained=0
report=$out/report.txt
: >"$report"
for a in "$out"/artifacts/*; do
    [ -f "$a" ] || continue
    name=$(basename "$a")
    log=$out/triage/$name.log
    target=$fuzz
    case $name in spt-*) target=./tests/fuzz/fuzz_spt ;; esac
    ASAN_OPTIONS=detect_leaks=1:symbolize=1 timeout 60 "$target" -timeout=10 -rss_limit_mb=2048 \
        "$a" >"$log" 2>&1
    rc=$?
    frame=$(first_frame "$log")
    kind=$(grep -oE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer|UndefinedBehaviorSanitizer): [A-Za-z-]+' "$log" | head -n 1)
    if [ "$rc" = 0 ]; then
        class=flaky
        nflaky=$((nflaky + 1))
    elif echo "$frame" | grep -q 'libhdf5'; then
        class=libhdf5
        nlib=$((nlib + 1))
        # The real binary, probe on: one line, exit 1, no core.
        msg=$(ulimit -c 0 && ASAN_OPTIONS=detect_leaks=0 "$sv" --json "$a" 2>&1 >/dev/null)
        src_rc=$?
        if [ "$src_rc" != 1 ] || [ "$(printf '%s\n' "$msg" | wc -l)" != 1 ] ||
            ! printf '%s\n' "$msg" | grep -q 'damaged\|not an HDF5\|truncated'; then
            class="libhdf5 NOT CONTAINED (exit $src_rc: $msg)"
            nuncontained=$((nuncontained + 1))
        fi
    else
        class=scopeview
        nown=$((nown + 1))
    fi
    printf '%s\t%s\t%s\t%s\n' "$class" "$name" "${kind:-exit $rc}" \
        "$(echo "$frame" | sed 's/^ *//')" >>"$report"
done
echo "triage: $nlib in libhdf5, $nown in scopeview, $nflaky not reproduced," \
    "$nuncontained libhdf5 crashes not contained; details in $report"
sort "$report" | cut -c1-200

# --- JSON profiles: a short run with a fixed seed; no third-party crash is expected
jseeds=$out/json/seeds
mkdir -p "$jseeds" "$out/json/corpus" "$out/json/artifacts" || exit 2
./svgen bench-schema3 "$jseeds/bench.json" --calls 60 --json >/dev/null &&
    ./svgen bench-schema3 "$jseeds/bench.json.gz" --calls 60 --json --gzip >/dev/null &&
    ./svgen demo --layout json-gz "$jseeds/demo.json.gz" >/dev/null || exit 2
jruns=${FUZZ_JSON_RUNS:-20000}
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$jfuzz" -seed=1 -runs="$jruns" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -dict="$src/tests/fuzz/json.dict" \
    -artifact_prefix="$out/json/artifacts/" "$out/json/corpus" "$jseeds" >"$out/json/fuzz.log" 2>&1
jrc=$?
echo "fuzz_json: $jruns runs from seed 1, exit $jrc; log in $out/json/fuzz.log"
[ "$jrc" = 0 ] || tail -n 30 "$out/json/fuzz.log"
[ "$nown" = 0 ] && [ "$nuncontained" = 0 ] && [ "$jrc" = 0 ]
