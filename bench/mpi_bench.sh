#!/bin/sh
# mpi_bench.sh: the MPI batch run against the serial one (bench/README.md
# "MPI").  Run from a build directory configured --with-mpi, after
# `make scopeview bench/runstat`:
#
#   sh ../bench/mpi_bench.sh FILE [ROUNDS]
#
# ROUNDS (3) rounds, every configuration once a round, interleaved: serial
# (`scopeview --json`, the isolated load), serial in-process
# (SCOPEVIEW_IN_PROCESS=1), `mpirun -np 1`, `-np 2`, `-np 4`; each output
# compared with the in-process run's (any difference is reported and fails
# the script).  Prints the median wall clock and CPU (user + system of the
# command and every process it waited for, from bench/runstat) of each, and
# the ratio to the serial run.  MPI_BENCH_NP="1 2 4" picks the process
# counts; MPI_BENCH_OLD=PATH adds `mpirun -np 2 PATH` (another build, for
# before/after); MPI_BENCH_ARGS adds mpirun options (`--bind-to none`: Open MPI
# binds one or two processes one to a core, so `-np 1` gets one CPU of the
# serial run's two).  Open MPI's settings for a single machine are set here.
set -eu

[ $# -ge 1 ] || { echo "usage: mpi_bench.sh FILE [ROUNDS]" >&2; exit 2; }
F=$1
N=${2:-3}
SV=./scopeview
RS=./bench/runstat
for t in "$SV" "$RS"; do
    [ -x "$t" ] || { echo "mpi_bench: $t is missing (make scopeview bench/runstat)" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "mpi_bench: no mpirun (Debian openmpi-bin)" >&2; exit 1; }
OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
OMPI_MCA_plm=${OMPI_MCA_plm:-isolated}
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl OMPI_MCA_plm OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
TMP=$(mktemp -d "${TMPDIR:-/tmp}/svmpibench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

CONFIGS="serial inproc"
for np in ${MPI_BENCH_NP:-1 2 4}; do CONFIGS="$CONFIGS np$np"; done
[ -n "${MPI_BENCH_OLD:-}" ] && CONFIGS="$CONFIGS old2"

SCOPEVIEW_IN_PROCESS=1 "$SV" --json "$F" >"$TMP/ref.json"
bad=0
i=0
while [ "$i" -lt "$N" ]; do
    for c in $CONFIGS; do
        case $c in
        serial) set -- "$SV" --json "$F" ;;
        inproc) set -- env SCOPEVIEW_IN_PROCESS=1 "$SV" --json "$F" ;;
        np*) set -- mpirun --oversubscribe ${MPI_BENCH_ARGS:-} -np "${c#np}" "$SV" --json "$F" ;;
        old2) set -- mpirun --oversubscribe ${MPI_BENCH_ARGS:-} -np 2 "$MPI_BENCH_OLD" --json "$F" ;;
        esac
        RUNSTAT_OUT="$TMP/one" "$RS" "$@" >"$TMP/out.json" 2>"$TMP/err" || true
        if ! cmp -s "$TMP/out.json" "$TMP/ref.json"; then
            echo "mpi_bench: $c: output differs from the serial run's: $(head -c 200 "$TMP/err")" >&2
            bad=1
        fi
        cat "$TMP/one" >>"$TMP/$c"
    done
    i=$((i + 1))
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "$F: --json, median of $N interleaved rounds${MPI_BENCH_ARGS:+, mpirun $MPI_BENCH_ARGS}; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
ser=$(awk '{ print $1 }' "$TMP/serial" | median)
printf '%-8s %9s %10s %9s   %s\n' run wall "vs serial" CPU "each round: wall/CPU"
for c in $CONFIGS; do
    w=$(awk '{ print $1 }' "$TMP/$c" | median)
    cpu=$(awk '{ print $2 + $3 }' "$TMP/$c" | median)
    printf '%-8s %7.3f s %9.2fx %7.3f s   %s\n' "$c" "$w" "$(awk -v a="$w" -v b="$ser" 'BEGIN { print a / b }')" \
        "$cpu" "$(awk '{ printf "%.2f/%.2f ", $1, $2 + $3 }' "$TMP/$c")"
done
exit "$bad"
