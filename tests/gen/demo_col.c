/* demo_col: the demo workload (demo.c) written as today's scope-profiler
 * writes it: columnar schema 3 (or 2), per-thread buffers concatenated per
 * region, lane tables with their extra columns, a line profile of `solve`
 * and perf-event counters on each rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "gen_columnar.h"
#include "gen_json.h"

typedef struct key {
    int64_t a, b;
    size_t index;
} key;

static int cmp_key(const void *x, const void *y)
{
    const key *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->index > q->index) - (p->index < q->index);
}

/* Everything the profile points into, owned here. */
typedef struct col_store {
    gc_row rows[DEMO_RANKS * R_COUNT];
    size_t nrows;
    gc_thread threads[DEMO_RANKS * T_COUNT];
    gc_task tasks[DEMO_RANKS * DEMO_MAX_TASKS];
    char *task_split[DEMO_RANKS * DEMO_MAX_TASKS];
    gc_line_profile lines[DEMO_RANKS];
    gc_perf perf[DEMO_RANKS * 2];
    uint64_t perf_values[DEMO_RANKS * 2][2];
    int64_t *owned[DEMO_RANKS * R_COUNT * 8];
    size_t nowned;
    const char **metas[DEMO_RANKS * R_COUNT];
    char *tags[R_COUNT];
    int64_t lp_lines[DEMO_RANKS][11], lp_hits[DEMO_RANKS][11];
    double lp_times[DEMO_RANKS][11];
} col_store;

static int64_t *col_alloc(col_store *st, size_t n)
{
    int64_t *v = gen_alloc(n, sizeof *v);
    st->owned[st->nowned++] = v;
    return v;
}

/* Call ids: entry order on the rank, from 0 as upstream numbers them. */
static int64_t *entry_ids(const sim *s)
{
    key *k = gen_alloc(s->ncalls, sizeof *k);
    for (size_t i = 0; i < s->ncalls; i++)
        k[i] = (key){s->calls[i].start, 0, i};
    qsort(k, s->ncalls, sizeof *k, cmp_key);
    int64_t *id = gen_alloc(s->ncalls, sizeof *id);
    for (size_t i = 0; i < s->ncalls; i++)
        id[k[i].index] = (int64_t)i;
    free(k);
    return id;
}

static char *tags_json(const demo_region *reg)
{
    char buf[256] = "[";
    for (size_t i = 0; i < reg->ntags; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s\"%s\"", i ? ", " : "",
                 reg->tags[i]);
    if (!reg->ntags && reg->tag)
        snprintf(buf + 1, sizeof buf - 1, "\"%s\"", reg->tag);
    strcat(buf, "]");
    return gen_strdup(buf);
}

/* One row: REGION's calls of rank D, each thread's buffer after the other
 * (threads in table order), recorded order within a thread. */
static void add_row(col_store *st, const demo_rank *d, int region, const int64_t *id)
{
    const sim *s = &d->sim;
    size_t n = 0;
    for (size_t i = 0; i < s->ncalls; i++)
        n += s->calls[i].region == region;
    if (!n)
        return;
    key *k = gen_alloc(n, sizeof *k);
    size_t m = 0;
    for (size_t i = 0; i < s->ncalls; i++)
        if (s->calls[i].region == region)
            k[m++] = (key){s->calls[i].thread, id[i], i};
    qsort(k, n, sizeof *k, cmp_key);
    int64_t *v[8];
    for (int c = 0; c < 8; c++)
        v[c] = col_alloc(st, n);
    const char **meta = gen_alloc(n, sizeof *meta);
    const demo_region *reg = &demo_regions[region];
    for (size_t j = 0; j < n; j++) {
        const sim_call *c = &s->calls[k[j].index];
        v[0][j] = c->start, v[1][j] = c->end, v[2][j] = id[k[j].index];
        v[3][j] = c->parent < 0 ? -1 : id[c->parent];
        v[4][j] = c->thread, v[5][j] = c->task, v[6][j] = c->task >= 0 ? c->await_ns : 0;
        v[7][j] = reg->cols & COL_GPU ? c->gpu_ns : -1;
        meta[j] = reg->cols & COL_META && c->meta ? c->meta : "";
    }
    free(k);
    st->metas[st->nrows] = meta;
    if (!st->tags[region])
        st->tags[region] = tags_json(reg);
    st->rows[st->nrows++] = (gc_row){.region = reg->name,
                                     .rank = d->rank,
                                     .n = n,
                                     .start = v[0],
                                     .end = v[1],
                                     .opt = {[GC_GPU] = v[7],
                                             [GC_CALL] = v[2],
                                             [GC_PARENT] = v[3],
                                             [GC_THREAD] = v[4],
                                             [GC_TASK] = v[5],
                                             [GC_AWAIT] = v[6]},
                                     .meta = meta,
                                     .source_file = reg->file,
                                     .source_line = reg->line,
                                     .source_text = reg->text,
                                     .tags_json = st->tags[region]};
}

/* A call's own thread time: its CPU share inside a task, else all of it. */
static int64_t own_time(const sim_call *c)
{
    return c->task >= 0 ? c->cpu : c->end - c->start;
}

static bool is_lane_root(const sim *s, const sim_call *c)
{
    if (c->parent < 0)
        return true;
    const sim_call *p = &s->calls[c->parent];
    return p->thread != c->thread || p->task != c->task;
}

static void add_threads(col_store *st, const demo_rank *d, int64_t base, size_t *nt)
{
    const sim *s = &d->sim;
    for (int t = 0; t < T_COUNT; t++) {
        int64_t first = -1, last = -1, cpu = 0;
        for (size_t i = 0; i < s->ncalls; i++) {
            const sim_call *c = &s->calls[i];
            if (c->thread != t)
                continue;
            first = first < 0 || c->start < first ? c->start : first;
            last = c->end > last ? c->end : last;
            if (is_lane_root(s, c) && (c->task < 0 || c->parent < 0))
                cpu += own_time(c);
        }
        st->threads[(*nt)++] =
            (gc_thread){.rank = d->rank,
                        .index = t,
                        .ident = 139872431646528LL + d->rank * 7340032LL + t * 8392704LL * (t > 0),
                        .native_id = 48211 + d->rank * 4 + t,
                        .daemon = t == T_LOADER,
                        .start_ns = t == T_MAIN ? base - 40 * MS : first - 90 * US,
                        .end_ns = t == T_LOADER ? last + 2 * MS : -1,
                        .cpu_ns = cpu,
                        .name = demo_thread_names[t]};
    }
}

static void add_tasks(col_store *st, const demo_rank *d, size_t *nk)
{
    const sim *s = &d->sim;
    for (int t = 0; t < d->ntasks; t++) {
        int64_t first = -1, last = -1, run = 0, susp = 0, steps = 1;
        for (size_t i = 0; i < s->ncalls; i++) {
            const sim_call *c = &s->calls[i];
            if (c->task != t)
                continue;
            first = first < 0 || c->start < first ? c->start : first;
            last = c->end > last ? c->end : last;
            if (is_lane_root(s, c)) {
                run += c->cpu;
                susp += c->await_ns;
            }
            steps += c->await_ns > 0;
        }
        char *name = gen_strdup(d->task_names[t]);
        char *sp = strchr(name, ' ');
        const char *coro = "";
        if (sp) {
            *sp = '\0';
            coro = sp + 1;
        }
        st->task_split[*nk] = name;
        st->tasks[(*nk)++] = (gc_task){.rank = d->rank,
                                       .index = t,
                                       .thread_index = T_MAIN,
                                       .created_ns = first - 12 * US,
                                       .done_ns = last + 8 * US,
                                       .steps = steps,
                                       .running_ns = run,
                                       .suspended_ns = susp,
                                       .kind = "task",
                                       .name = name,
                                       .coro_name = coro};
    }
}

/* solve's line profile: lines 42..52 of solver.py (the source text of the
 * region starts at 40), hits from the iteration counts, times from the
 * simulated rhs and precond totals. */
static void add_line_profile(col_store *st, const demo_rank *d, size_t *nl)
{
    int64_t ncalls = 0, rhs = 0, pre = 0, solve = 0;
    for (size_t i = 0; i < d->sim.ncalls; i++) {
        const sim_call *c = &d->sim.calls[i];
        int64_t dur = c->end - c->start;
        ncalls += c->region == R_SOLVE;
        solve += c->region == R_SOLVE ? dur : 0;
        rhs += c->region == R_RHS ? dur : 0;
        pre += c->region == R_PRECOND ? dur : 0;
    }
    int64_t it = ncalls * DEMO_SOLVER_ITERS, rest = solve - rhs - pre;
    const int64_t hits[11] = {ncalls, ncalls, it + ncalls, it, it, it, it, it, 0, it, ncalls};
    const double share[11] = {0.25, 0.05, 0.05, 0.02, 0, 0.02, 0, 0.21, 0, 0.35, 0.05};
    size_t k = *nl;
    for (int i = 0; i < 11; i++) {
        st->lp_lines[k][i] = 42 + i;
        st->lp_hits[k][i] = hits[i];
        st->lp_times[k][i] = i == 4 ? (double)rhs : i == 6 ? (double)pre : share[i] * (double)rest;
    }
    const demo_region *reg = &demo_regions[R_SOLVE];
    st->lines[(*nl)++] = (gc_line_profile){.rank = d->rank,
                                           .region = reg->name,
                                           .filename = reg->file,
                                           .function = "solve",
                                           .first_lineno = reg->line,
                                           .unit = 1e-9,
                                           .source = reg->text,
                                           .source_first_lineno = reg->line,
                                           .n = 11,
                                           .lines = st->lp_lines[k],
                                           .hits = st->lp_hits[k],
                                           .times = st->lp_times[k]};
}

static const char *const perf_names[2] = {"cycles", "instructions"};

/* Counters at 2.4 GHz with 1.6 (assemble) and 2.1 (solve) instructions per cycle. */
static void add_perf(col_store *st, const demo_rank *d, size_t *np)
{
    static const int regions[2] = {R_ASSEMBLE, R_SOLVE};
    static const double ipc[2] = {1.6, 2.1};
    for (int k = 0; k < 2; k++) {
        int64_t calls = 0, total = 0;
        for (size_t i = 0; i < d->sim.ncalls; i++)
            if (d->sim.calls[i].region == regions[k]) {
                calls++;
                total += d->sim.calls[i].end - d->sim.calls[i].start;
            }
        uint64_t *v = st->perf_values[*np];
        v[0] = (uint64_t)((double)total * 2.4);
        v[1] = (uint64_t)((double)v[0] * ipc[k]);
        st->perf[(*np)++] = (gc_perf){.rank = d->rank,
                                      .region = demo_regions[regions[k]].name,
                                      .calls = calls,
                                      .n = 2,
                                      .names = perf_names,
                                      .values = v};
    }
}

void demo_write_columnar(const char *path, demo_rank *ranks, int nranks, const demo_opts *o)
{
    col_store *st = gen_alloc(1, sizeof *st);
    size_t nt = 0, nk = 0, nl = 0, np = 0;
    int64_t first = INT64_MAX;
    for (int r = 0; r < nranks; r++) {
        const demo_rank *d = &ranks[r];
        int64_t *id = entry_ids(&d->sim);
        for (int g = 0; g < R_COUNT; g++)
            add_row(st, d, g, id);
        free(id);
        for (size_t i = 0; i < d->sim.ncalls; i++)
            first = d->sim.calls[i].start < first ? d->sim.calls[i].start : first;
        add_threads(st, d, DEMO_BASE_NS + d->rank * 310 * US, &nt);
        add_tasks(st, d, &nk);
        add_line_profile(st, d, &nl);
        add_perf(st, d, &np);
    }
    const gen_kv meta[] = {
        {"hostname", GEN_STR, "gpu-node-07", 0, 0},
        {"label", GEN_STR, o->slow_region >= 0 ? "surrogate (slow run)" : "surrogate", 0, 0},
        {"metadata_detail", GEN_STR, "full", 0, 0},
        {"platform", GEN_STR, "Linux-5.15.0-105-generic-x86_64-with-glibc2.35", 0, 0},
        {"python_version", GEN_STR, "3.11.9", 0, 0},
        {"scope_profiler_version", GEN_STR, "0.7.1", 0, 0},
        {"timestamp", GEN_STR, "2026-11-28T14:03:12.481920+00:00", 0, 0},
        {"start_time_ns", GEN_INT, NULL, first - 40 * MS, 0},
        {"mpi_size", GEN_INT, NULL, nranks, 0},
        {"num_nodes", GEN_INT, NULL, 1, 0},
        {"omp_num_threads", GEN_INT, NULL, 8, 0},
        {"total_cores", GEN_INT, NULL, 64, 0},
        {"cuda_device", GEN_STR, "NVIDIA A100-SXM4-40GB", 0, 0},
        {"user", GEN_STR, "ana", 0, 0},
        {"working_directory", GEN_STR, "/home/ana/surrogate", 0, 0},
    };
    gc_profile p = {.rows = st->rows,
                    .nrows = st->nrows,
                    .threads = st->threads,
                    .nthreads = nt,
                    .tasks = st->tasks,
                    .ntasks = nk,
                    .lines = st->lines,
                    .nlines = nl,
                    .perf = st->perf,
                    .nperf = np,
                    .meta = meta,
                    .nmeta = sizeof meta / sizeof meta[0]};
    int timing = o->layout == DEMO_SCHEMA2 ? 2 : 3;
    if (o->layout == DEMO_CAPI)
        gc_write_capi(path, &p, -1);
    else if (o->layout == DEMO_AGGREGATE)
        gc_write_aggregated(path, &p);
    else if (o->layout == DEMO_JSON || o->layout == DEMO_JSON_GZ)
        gj_write(path, &p, &(gj_opts){.gzip = o->layout == DEMO_JSON_GZ});
    else
        gc_write(path, &p, &(gc_opts){.timing = timing, .no_event_meta = timing == 2});
    for (size_t i = 0; i < st->nowned; i++)
        free(st->owned[i]);
    for (size_t i = 0; i < st->nrows; i++)
        free(st->metas[i]);
    for (size_t i = 0; i < nk; i++)
        free(st->task_split[i]);
    for (int g = 0; g < R_COUNT; g++)
        free(st->tags[g]);
    free(st);
}
