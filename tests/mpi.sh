#!/bin/sh
# The MPI batch run (./configure --with-mpi): under mpirun with 2 and 4
# processes, --json, --csv and --summary (--json alone on 4) print exactly what the serial run
# prints (stdout byte for byte, the same exit status and the same warnings)
# on every shared profile and on generated ones of every layout; the work is
# really split (SCOPEVIEW_MPI_VERBOSE: every process read some, process 0
# used the others' results and redid none); results lost on the way change
# nothing.  A SKIP when the build has no MPI.
set -u
. "${0%/*}/lib.sh"
if [ "${SV_WITH_MPI:-0}" != 1 ]; then
    echo "SKIP: not configured --with-mpi"
    exit 77
fi
command -v mpirun >/dev/null || {
    echo "SKIP: no mpirun (Debian package openmpi-bin)"
    exit 77
}
# Open MPI refuses root unless told (CI runs as root), and must not look for
# a network or a batch system.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl OMPI_MCA_plm
export OMPI_MCA_rmaps_base_oversubscribe
mpi() { # mpi NP ARGS...
    lib_np=$1
    shift
    mpirun --oversubscribe --allow-run-as-root -np "$lib_np" "$sv" "$@"
}

# same NP ARGS...: the MPI run's stdout, status and sorted warnings equal the
# serial run's (mpirun adds its own lines on a failure: those are not ours).
same() {
    s_np=$1
    shift
    SCOPEVIEW_IN_PROCESS=1 "$sv" "$@" >"$tmp/ser.out" 2>"$tmp/ser.err"
    s_rc=$?
    mpi "$s_np" "$@" >"$tmp/mpi.out" 2>"$tmp/mpi.err"
    m_rc=$?
    grep '^scopeview' "$tmp/ser.err" | sort >"$tmp/ser.w"
    grep '^scopeview' "$tmp/mpi.err" | sort >"$tmp/mpi.w"
    if [ "$s_rc" != "$m_rc" ]; then
        echo "  exit status: serial $s_rc, mpirun -np $s_np $m_rc"
        sed 's/^/  stderr: /' "$tmp/mpi.err" | head -20
        return 1
    fi
    if ! cmp -s "$tmp/ser.out" "$tmp/mpi.out"; then
        echo "  stdout differs (- serial, + mpirun -np $s_np):"
        diff -u "$tmp/ser.out" "$tmp/mpi.out" | head -20 | sed 's/^/  /'
        return 1
    fi
    if ! cmp -s "$tmp/ser.w" "$tmp/mpi.w"; then
        echo "  warnings differ (- serial, + mpirun -np $s_np):"
        diff -u "$tmp/ser.w" "$tmp/mpi.w" | head -20 | sed 's/^/  /'
        return 1
    fi
}

# every FILE... (one profile): the three outputs on 2 processes, --json on 4
# (each mpirun costs a second to start: the suite stays short).
every() {
    for e_run in "2 --json" "2 --csv" "2 --summary" "4 --json"; do
        # shellcheck disable=SC2086 # NP and the mode, split on purpose
        check "mpirun -np $e_run ${1##*/}${2:+ (+$(($# - 1)) files)}" same $e_run "$@"
    done
}

# Generated profiles: schema 3 (5 rows of up to 80 000 calls), schema 2,
# schema 1 legacy and extended (2 ranks x 4 threads), aggregate, a C-API set.
gen="$top_build/svgen"
"$gen" bench-schema3 "$tmp/s3.h5" --calls 200000 >/dev/null &&
    "$gen" bench-schema3 "$tmp/s3z.h5" --calls 50000 --gzip >/dev/null &&
    "$gen" demo --layout schema2 "$tmp/s2.h5" >/dev/null &&
    "$gen" demo --layout legacy "$tmp/legacy.h5" >/dev/null &&
    "$gen" demo --layout aggregate "$tmp/agg.h5" >/dev/null &&
    "$gen" demo --layout capi "$tmp/capi" >/dev/null &&
    "$gen" extended "$tmp/ext.h5" 20000 >/dev/null || {
    echo "FAIL: svgen could not write the profiles"
    exit 1
}
for h5 in "$tmp/s3.h5" "$tmp/s3z.h5" "$tmp/s2.h5" "$tmp/legacy.h5" "$tmp/agg.h5" "$tmp/ext.h5" \
    "$top_src/data/demo.h5"; do
    every "$h5"
done
every "$tmp/capi_rank00000.h5" "$tmp/capi_rank00001.h5"
# Filters, and the errors: a missing file, a file that is not HDF5, a rank
# the file lacks, a memory budget the file exceeds (streamed, as serially).
check "--json --ranks 1 --exclude" same 2 --json --ranks 1 --exclude 'mpi_*' "$tmp/s2.h5"
check "missing file" same 2 --json "$tmp/none.h5"
echo "not HDF5" >"$tmp/text.h5"
check "not HDF5" same 4 --summary "$tmp/text.h5"
check "--ranks 9" same 2 --csv --ranks 9 "$tmp/ext.h5"
check "--memory 1M: out of core on process 0, as the serial run" same 2 --json --memory 1M "$tmp/ext.h5"
check "--memory 64K: schema 2 out of core, its warnings" same 2 --json --memory 64K "$tmp/s2.h5"
# Modes that are not split run on process 0 alone: printed once.
check "--diff --json (not split)" same 2 --json --diff "$tmp/s2.h5" "$tmp/legacy.h5"
check "--events (not split)" same 2 --events main --csv "$tmp/s2.h5"

# One rank (the 200 000-call file): process 0 reads every row, nests and
# computes the statistics; process 1 nests no rank, so it reads no row only
# for their statistics (load_rows.h); process 0 had nothing to do again.
redone0="(0 rows' statistics and 0 ranks' nesting done again)"
SCOPEVIEW_MPI_VERBOSE=1 mpi 2 --json "$tmp/s3.h5" >/dev/null 2>"$tmp/err"
check "process 0 read every row" grep -q 'MPI process 0 of 2: 5 rows, 200000 calls' "$tmp/err"
check "one rank: process 1 read no call" grep -q 'MPI process 1 of 2: [0-9]* rows, 0 calls' "$tmp/err"
check "one rank: process 0 redid nothing" grep -qF "$redone0" "$tmp/err"
# Several ranks: a rank nested by process 1, its results used.
SCOPEVIEW_MPI_VERBOSE=1 mpi 2 --json "$tmp/s2.h5" >/dev/null 2>"$tmp/err"
check "schema 2: process 1 nested a rank" grep -q 'MPI process 1: .*, [1-9][0-9]* ranks nested' "$tmp/err"
check "schema 2: process 0 used it" grep -qF "$redone0" "$tmp/err"
# Schema 1: the regions of the extended file spread over 4 processes.
SCOPEVIEW_MPI_VERBOSE=1 mpi 4 --json "$tmp/ext.h5" >/dev/null 2>"$tmp/err"
check "schema 1: 4 processes read rows" test "$(grep -c 'MPI process [0-3] of 4: [1-9]' "$tmp/err")" = 4
check "schema 1: process 0 used the others' statistics" grep -qF "$redone0" "$tmp/err"
# Each process's threads: the machine's CPUs shared among the processes, at least one each,
# so that np processes never run more threads than CPUs (unbound: without a binding each
# process may run on every CPU); SCOPEVIEW_THREADS, when set, is the user's.
cpus=$(getconf _NPROCESSORS_ONLN)
for np in 1 2 4; do
    want=$((cpus / np))
    [ "$want" -ge 1 ] || want=1
    [ "$want" -le 16 ] || want=16
    SCOPEVIEW_MPI_VERBOSE=1 mpirun --oversubscribe --allow-run-as-root --bind-to none -np "$np" \
        "$sv" --json "$tmp/s3.h5" >/dev/null 2>"$tmp/err"
    check "-np $np on $cpus CPUs: $want threads each" \
        grep -q "MPI: $np processes on this machine, $want threads each" "$tmp/err"
done
SCOPEVIEW_THREADS=3 SCOPEVIEW_MPI_VERBOSE=1 mpi 2 --json "$tmp/s3.h5" >/dev/null 2>"$tmp/err"
check "SCOPEVIEW_THREADS=3: the user's count kept (no line of ours)" \
    test "$(grep -c "threads each" "$tmp/err")" = 0
# Results lost on the way (a test hook): process 0 does the work itself,
# the output unchanged.
SCOPEVIEW_MPI_TEST_LOSE=1
export SCOPEVIEW_MPI_TEST_LOSE
check "results lost: schema 3 output unchanged" same 2 --json "$tmp/s3.h5"
check "results lost: schema 2 output unchanged" same 4 --csv "$tmp/s2.h5"
SCOPEVIEW_MPI_VERBOSE=1 mpi 2 --json "$tmp/s2.h5" >/dev/null 2>"$tmp/err"
check "results lost: process 0 redid them" grep -q "([1-9][0-9]* rows' statistics and [1-9][0-9]* ranks' nesting done again)" "$tmp/err"
unset SCOPEVIEW_MPI_TEST_LOSE

# Every fixture of tests/gen/FIXTURES.md (faults included: the same warnings
# and exit status).  col3_mixed_ids.h5: outer's exclusive time stays 1000 ns
# (1e-06 s) when its row and inner's are read by two processes.
need_fixture "$fx/col3_mixed_ids.h5"
for h5 in "$fx"/*.h5; do
    check "mpirun -np 2 --json fixture ${h5##*/}" same 2 --json "$h5"
done
mpi 2 --json "$fx/col3_mixed_ids.h5" >"$scr" 2>"$tmp/err"
check "col3_mixed_ids: outer's exclusive time by its call id" \
    hasf '"name": "outer", "rank": 0, "num_calls": 1' "$scr"
check "col3_mixed_ids: 1000 ns" hasx '"name": "outer".*"total_exclusive_duration": 1e-06,' "$scr"

# Every shared profile.
if need_shared "MPI runs on the shared profiles"; then
    for h5 in "$shared_root"/data/real/*.h5 "$shared_root"/data/extended/*.h5 \
        "$shared_root"/data/upstream/*.h5; do
        every "$h5"
    done
fi
finish
