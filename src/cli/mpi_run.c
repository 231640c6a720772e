/* mpi_run: the MPI batch run (mpi_run.h): process 0 reads every row, the
 * others the rows of their share of the work (load_rows.h); each computes
 * its share, processes 1..N-1 send their results (a few bytes a row) to
 * process 0, which installs them, computes whatever did not come and
 * prints. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/budget.h"
#include "load/load_rows.h"
#include "load/loader.h"
#include "mpi_run.h"
#include "model/par.h"
#include "model/sanity.h"
#include "util/text.h"
#include "util/hooks.h"

#define TAG_RESULT 1

/* The launcher's rank and size (Open MPI, then PMIx / PMI), before MPI_Init:
 * the modes that are not split never initialise MPI. */
static int env_int(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v)
            return atoi(v);
    }
    return -1;
}

mpi_role mpi_run_role(const cli_options *o)
{
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", NULL};
    static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", NULL};
    int size = env_int(size_vars);
    if (size < 1)
        return MPI_ROLE_NONE;
    bool split =
        !o->compare && (o->mode == CLI_JSON || o->mode == CLI_CSV || o->mode == CLI_SUMMARY);
    if (split)
        return MPI_ROLE_SPLIT;
    return env_int(rank_vars) > 0 ? MPI_ROLE_BYSTANDER : MPI_ROLE_NONE;
}

/* SCOPEVIEW_MPI_VERBOSE=1: each process says what it read and how long
 * its steps took, to see the balance (and, in the tests, that the work was
 * split at all). */
static bool verbose(void)
{
    const char *v = hook_value(HOOK_MPI_VERBOSE);
    return v && *v && strcmp(v, "0") != 0;
}

/* This process's CPU seconds (every thread), for the verbose lines. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void say_share(int me, int np, const profile *p)
{
    size_t rows = 0, calls = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        rows++;
        calls += p->regions[i]->n;
    }
    fprintf(stderr, "scopeview: MPI process %d of %d: %zu rows, %zu calls\n", me, np, rows, calls);
}

static sv_err load_once(const char *path, const isolate_options *how, load_options *lo,
                        load_budget *b, profile **p, sv_error *err)
{
    /* main's budget, resolved by cli_parse: never the 0 that would mean "no limit" here. */
    *b = (load_budget){.limit = how->budget};
    lo->budget = b;
    sv_err e = how->paths && how->npaths > 1 ? profile_load_set(how->paths, how->npaths, lo, p, err)
                                             : profile_load(path, lo, p, err);
    lo->budget = NULL;
    return e;
}

/* A load in this process, charged to the memory budget: process 0's whole
 * (statistics deferred when others share the work: defer), as the serial
 * load does it (isolate.c iso_load: out of core when the batch output's
 * columns exceed the budget, the same message when even that fails);
 * another's part (statistics computed, never streamed). */
static sv_err load_here(const char *path, const isolate_options *how, const load_part *pt,
                        bool defer, profile **p, sv_error *err)
{
    load_budget b;
    /* A split run shares the calls out: process 0 streams only what exceeds the budget. */
    int stream = how->stream == LOAD_STREAM_PREFER ? LOAD_STREAM_AUTO : how->stream;
    load_sink sink = pt ? load_sink_part(pt)
                        : load_sink_stream(stream, defer ? LOAD_FINISH_NONE : LOAD_FINISH_ALL);
    load_options lo = {.stored_statistics = how->stored_statistics, .sink = &sink};
    sv_err e = load_once(path, how, &lo, &b, p, err);
    /* Loaded again as load_sink_retry says (a schema-1 file over the budget: streamed). */
    while (load_sink_retry(&sink, e, &b)) {
        budget_free(&b);
        sv_error_clear(err);
        e = load_once(path, how, &lo, &b, p, err);
    }
    budget_free(&b); /* its record of the datasets read; the figures stay */
    if (e == SV_ERR_NOMEM && b.exceeded) {
        char epath[400];
        text_escape_buf(epath, sizeof epath, path);
        budget_message(&b, epath, err->msg, sizeof err->msg);
        isolate_budget_note(&b, sink.stream, false, err->msg, sizeof err->msg);
    }
    return e;
}

/* True when the load streamed (out of core, stream.h): its statistics and
 * nesting are done already. */
static bool streamed(const profile *p)
{
    for (size_t i = 0; i < p->nregions; i++)
        if (p->regions[i]->streamed)
            return true;
    return false;
}

/* ------------------------------------------------------------ process k */

/* Process k > 0: its rows, their statistics, its ranks' nesting; the
 * results to process 0 (an empty message when anything failed: process 0
 * then does that share itself). */
static void worker(const char *path, const isolate_options *how, int me, int np)
{
    load_nest_list nests = {0};
    load_part pt = {me, np, &nests};
    profile *q = NULL;
    sv_error err;
    sv_error_clear(&err);
    char *buf = NULL;
    size_t len = 0;
    double t0 = MPI_Wtime();
    sv_err e = path ? load_here(path, how, &pt, false, &q, &err) : SV_ERR_IO;
    double t1 = MPI_Wtime();
    if (!e && verbose())
        say_share(me, np, q);
    double c1 = cpu_s();
    if (!e)
        e = load_rows_encode(q, &nests, &buf, &len, &err);
    /* A test hook: results lost on the way, process 0 does it all. */
    const char *lose = hook_value(HOOK_MPI_TEST_LOSE);
    if (e || len > INT_MAX || (lose && strcmp(lose, "1") == 0))
        len = 0;
    if (verbose())
        fprintf(stderr,
                "scopeview: MPI process %d: rows read with their statistics %.3f s (CPU %.3f s), "
                "%zu ranks nested and results written %.3f s (CPU %.3f s)\n",
                me, t1 - t0, c1, nests.n, MPI_Wtime() - t1, cpu_s() - c1);
    MPI_Send(buf ? buf : "", (int)len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
    free(buf);
    profile_free(q);
    load_nest_list_free(&nests);
}

/* ------------------------------------------------------------ process 0 */

/* Process `from`'s results, installed into p (w NULL: only received).
 * Waits by polling with a pause, not in MPI_Probe, which spins on a core
 * the other processes may need (two cores, or more processes than cores). */
static void receive(int from, profile *p, rows_work *w)
{
    MPI_Status st;
    int ready = 0;
    for (;;) {
        MPI_Iprobe(from, TAG_RESULT, MPI_COMM_WORLD, &ready, &st);
        if (ready)
            break;
        struct timespec pause = {0, 1000000}; /* 1 ms */
        nanosleep(&pause, NULL);
    }
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    char *buf = malloc(n > 0 ? (size_t)n : 1);
    char one;
    MPI_Recv(buf ? buf : &one, buf ? n : 0, MPI_BYTE, from, TAG_RESULT, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (buf && w && n > 0)
        load_rows_apply(p, w, buf, (size_t)n);
    free(buf);
}

static int print_failure(const sv_error *err, sv_err rc)
{
    fprintf(stderr, "scopeview: %s\n", err->msg);
    return sv_err_exit_status(rc);
}

/* Process 0: every row, its share of the work, the others' results, then
 * whatever is missing. */
static int leader(const char *path, const isolate_options *how, int np, profile **out)
{
    sv_error err;
    sv_error_clear(&err);
    profile *p = NULL;
    rows_work *w = NULL;
    double t0 = MPI_Wtime();
    /* One process: the serial load, statistics beside the nesting (par.h). */
    sv_err rc = load_here(path, how, NULL, np > 1, &p, &err);
    double t1 = MPI_Wtime(), c1 = cpu_s();
    bool done = !rc && (np == 1 || streamed(p));
    if (!rc) {
        profile_check_values(p);
        if (verbose())
            say_share(0, np, p);
    }
    if (!rc && !done)
        rc = load_rows_own(p, np, &w, &err);
    double t2 = MPI_Wtime(), c2 = cpu_s();
    for (int from = 1; from < np; from++)
        receive(from, p, rc || done ? NULL : w);
    double t3 = MPI_Wtime();
    if (!rc && !done)
        rc = load_rows_complete(p, w, &err);
    size_t redo_stats, redo_ranks;
    load_rows_redone(w, &redo_stats, &redo_ranks);
    rows_work_free(w);
    if (verbose())
        fprintf(stderr,
                "scopeview: MPI process 0: rows read %.3f s (CPU %.3f s), own share %.3f s (CPU "
                "%.3f s), the others' results waited for %.3f s, the rest %.3f s (%zu rows' "
                "statistics and %zu ranks' nesting done again)\n",
                t1 - t0, c1, t2 - t1, c2 - c1, t3 - t2, MPI_Wtime() - t3, redo_stats, redo_ranks);
    if (rc) {
        profile_free(p);
        return print_failure(&err, rc);
    }
    for (size_t i = 0; i < p->nwarnings; i++)
        fprintf(stderr, "scopeview: warning: %s\n", p->warnings[i]);
    *out = p;
    return 0;
}

/* Each process's threads (par.h: the load's decode, statistics and
 * nesting): the machine's CPUs shared among the processes on it, so that
 * they never run more threads than CPUs between them (a serial run already
 * uses every CPU).  SCOPEVIEW_THREADS, when set, is the user's. */
static void share_cpus(void)
{
    const char *set = hook_value(HOOK_THREADS);
    if (set && *set)
        return;
    int here = 1;
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &here);
        MPI_Comm_free(&node);
    }
    char v[16];
    snprintf(v, sizeof v, "%d", par_threads_shared(here));
    setenv("SCOPEVIEW_THREADS", v, 1);
    if (verbose())
        fprintf(stderr, "scopeview: MPI: %d processes on this machine, %s threads each\n", here, v);
}

int mpi_run_load(const cli_options *o, const isolate_options *how, profile **p)
{
    *p = NULL;
    MPI_Init(NULL, NULL);
    int me = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    share_cpus();
    sv_error err;
    sv_error_clear(&err);
    char *demo = o->file ? NULL : cli_find_demo(&err);
    const char *path = o->file ? o->file : demo;
    int status = 0;
    if (me == 0 && path) {
        status = leader(path, how, np, p);
    } else if (me == 0) { /* the others fail alike: their messages are drained */
        status = print_failure(&err, err.code);
        for (int from = 1; from < np; from++)
            receive(from, NULL, NULL);
    } else {
        worker(path, how, me, np);
        status = 0; /* process 0 reports */
    }
    free(demo);
    MPI_Finalize();
    return status;
}
