#!/bin/sh
# Inputs kept from fuzzing and byte flips (tests/regress/README.md): files on which libhdf5
# 1.10.8 itself crashes, hangs or asks for gigabytes.  The real binary, through its isolated
# load (src/isolate/isolate.c), must print one line "scopeview: FILE: the file is damaged (...)", exit 1, leave no
# core file (even with `ulimit -c unlimited`) and leave the file unchanged.
# Prints "N passed, N failed"; exits non-zero when anything failed.
. "${0%/*}/lib.sh"
rg="$top_src/tests/regress"
[ -x "$sv" ] || {
    echo "regress.sh: $sv missing (run from make check)"
    exit 99
}
sv=$(cd "$(dirname "$sv")" && pwd)/scopeview
rg=$(cd "$rg" && pwd)
# A sanitizer build has no RLIMIT_AS in the probe (ASan reserves terabytes up front), so the
# file that asks libhdf5 for a 4 GiB buffer would really get it there: skipped.
asan=no
grep -q __asan_init "$sv" && asan=yes

# run FILE ARGS...: in an empty directory that allows core files, with the environment
# assignments in $svenv; sets rc, $tmp/out, $tmp/err
svenv=
cores=unlimited
run() {
    file=$1
    shift
    rm -rf "$tmp/cwd" && mkdir "$tmp/cwd"
    # shellcheck disable=SC2086
    (cd "$tmp/cwd" && ulimit -c $cores 2>/dev/null
        env $svenv "$sv" "$@" "$file" >"$tmp/out" 2>"$tmp/err" </dev/null)
    rc=$?
}
no_core() { [ -z "$(ls -A "$tmp/cwd")" ]; }
one_line() { [ "$(wc -l <"$tmp/err")" = 1 ]; }
damaged() { grep -q "^scopeview: $1: the file is damaged (.*)\$" "$tmp/err"; }

# damaged_file NAME [REASON]: every batch output and the headless screen give the message
damaged_file() {
    f="$rg/$1"
    sum=$(cksum <"$f")
    for args in --json --summary "--csv" "--batch --size 80x24"; do
        # shellcheck disable=SC2086
        run "$f" $args
        check "$1 $args: exit 1" [ "$rc" = 1 ]
        check "$1 $args: one line on stderr" one_line
        check "$1 $args: says the file is damaged" damaged "$f"
        [ -n "${2:-}" ] && check "$1 $args: says why ($2)" grep -q "$2" "$tmp/err"
        check "$1 $args: nothing on stdout" [ ! -s "$tmp/out" ]
        check "$1 $args: no core file" no_core
    done
    check "$1: the file is unchanged" [ "$(cksum <"$f")" = "$sum" ]
}

damaged_file hdf5_segv_global_heap.h5 "libhdf5 crashed"
damaged_file hdf5_segv_vlen_length.h5 "libhdf5 crashed"
# nomem_file NAME ARGS: libhdf5 asks for gigabytes; under the memory budget (the loading
# child's address-space limit) the allocation fails at once: the group or column is dropped
# with a warning that says so (exit 0), or under ASan (no address-space limit) the child
# crashes: damaged, exit 1.  Fast either way.  nomem_json: the batch output that reads the
# damaged item (--json reads no column it does not need).
nomem_json=--json
nomem_file() {
    name=$1
    f="$rg/$1"
    shift
    sum=$(cksum <"$f")
    for args in "$nomem_json" "--batch --size 80x24"; do
        t0=$(date +%s)
        # shellcheck disable=SC2086
        run "$f" "$@" $args
        t1=$(date +%s)
        check "$name $args: exit 0 or 1" sh -c "[ '$rc' = 0 ] || [ '$rc' = 1 ]"
        if [ "$rc" = 0 ]; then
            check "$name $args: warns of the failed allocation" \
                grep -q "warning: .*memory allocation failed" "$tmp/err"
        else
            check "$name $args: one line on stderr" one_line
            check "$name $args: says the file is damaged" damaged "$f"
        fi
        check "$name $args: within 8 s" [ $((t1 - t0)) -le 8 ]
        check "$name $args: no core file" no_core
    done
    check "$name: the file is unchanged" [ "$(cksum <"$f")" = "$sum" ]
}
nomem_file hdf5_huge_cache_entry.h5
if [ "$asan" = no ]; then
    # The huge buffer is region inner's event_metadata, which only its calls show.
    nomem_json="--events inner --json"
    nomem_file hdf5_huge_vlen_buffer.h5 --memory 512M
    nomem_json=--json
else
    echo "SKIP: hdf5_huge_vlen_buffer.h5 (sanitizer build: no address-space limit)"
fi

# The hang: libhdf5 loops in its global heap cache; the watchdog ends it (10 s without
# progress), once is enough.
f="$rg/hdf5_hang_global_heap.h5"
sum=$(cksum <"$f")
# A sparse copy 64 GiB long: the deadlines follow the bytes the file really stores (its
# allocated blocks), so the watchdog still ends it after 10 s, not 10 s + 1 s per 64 MiB.
sparse="$tmp/sparse_hang.h5"
cp "$f" "$sparse" && truncate -s 64G "$sparse" 2>/dev/null || sparse=
run "${sparse:-$f}" --json
check "hang: exit 1" [ "$rc" = 1 ]
check "hang: one line" one_line
check "hang: says the file is damaged" damaged "${sparse:-$f}"
check "hang: says it made no progress for 10 s" grep -q "made no progress for 10 s" "$tmp/err"
check "hang: the file is unchanged" [ "$(cksum <"$f")" = "$sum" ]
if command -v pgrep >/dev/null; then
    # [s]: the pattern must not match the command line of the shell running pgrep
    check "hang: no loading process left behind" \
        sh -c "! pgrep -f '[s]copeview --json ${sparse:-$f}' >/dev/null"
fi
[ -n "$sparse" ] && rm -f "$sparse"

# In-process the same SEGV takes the process down: the isolated load is what contains it.
if [ "$asan" = no ]; then
    run "$rg/hdf5_segv_global_heap.h5" --json
    rc_probe=$rc
    svenv=SCOPEVIEW_IN_PROCESS=1 cores=0
    run "$rg/hdf5_segv_global_heap.h5" --json 2>/dev/null
    svenv= cores=unlimited
    check "SCOPEVIEW_IN_PROCESS=1 really loads in-process (libhdf5 SIGSEGV)" [ "$rc" -ge 128 ]
    check "... while isolated it is exit 1" [ "$rc_probe" = 1 ]
fi

# libhdf5 reads freed memory on this one: harmless with glibc's malloc (loads, with
# warnings), a SEGV under ASan (then damaged).  Either way no crash and clean stderr.
f="$rg/hdf5_attr_table_release.h5"
run "$f" --json
check "attr table: exit 0 or 1" sh -c "[ '$rc' = 0 ] || [ '$rc' = 1 ]"
check "attr table: no core file" no_core
if [ "$rc" = 1 ]; then
    check "attr table: damaged in one line" damaged "$f"
else
    check "attr table: warns about the metadata group" grep -q "group metadata" "$tmp/err"
fi

finish
