/* finish: the step after loading that makes a profile usable: sort ranks,
 * regions and metadata, compute every region's statistics (stats.c), number
 * the calls and compute the exclusive totals (nest.c); and, on demand, the
 * per-call nesting the views need.
 *
 * It sits above profile.c (the data and its producer API), stats.c and
 * nest.c, so none of those needs another: profile.c knows neither nesting
 * nor statistics, and nest.c only reports through profile_warn(). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nest.h"
#include "par.h"
#include "profile.h"
#include "stats.h"
#include "util/text.h"

static int cmp_rank(const void *a, const void *b)
{
    const rank_data *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_region_name(const void *a, const void *b)
{
    const region *x = *(region *const *)a, *y = *(region *const *)b;
    return strcmp(x->name, y->name);
}

static int cmp_meta(const void *a, const void *b)
{
    return strcmp(((const meta_entry *)a)->key, ((const meta_entry *)b)->key);
}

/* Sorting ranks moves the rank_data structs, so back pointers are reset. */
static void fix_owners(profile *p)
{
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &p->ranks[i];
        rk->owner = p;
        if (rk->nregions)
            qsort(rk->regions, rk->nregions, sizeof *rk->regions, cmp_region_name);
        size_t g = 0;
        for (size_t j = 0; j < rk->nregions; j++) {
            rk->regions[j]->owner = rk;
            rk->regions[j]->rank = rk->rank;
            rk->regions[j]->gidx0 = g;
            g += rk->regions[j]->n;
        }
        rk->ncalls = g;
    }
}

static sv_err build_region_list(profile *p, sv_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nranks; i++)
        n += p->ranks[i].nregions;
    free(p->regions);
    p->regions = calloc(n ? n : 1, sizeof *p->regions);
    if (!p->regions)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    p->nregions = 0;
    for (size_t i = 0; i < p->nranks; i++)
        for (size_t j = 0; j < p->ranks[i].nregions; j++)
            p->regions[p->nregions++] = p->ranks[i].regions[j];
    return SV_OK;
}

static void compute_min_start(profile *p)
{
    p->has_min_start = false;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        /* a streamed region (out of core) keeps its calls' count in st */
        if (!r->has_event_data || (r->n == 0 && !(r->streamed && r->st.num_calls > 0)))
            continue;
        if (!p->has_min_start || r->st.first_start_ns < p->min_start_ns)
            p->min_start_ns = r->st.first_start_ns;
        p->has_min_start = true;
    }
}

static void warn_dropped(profile *p, const rank_data *rk, const region *r, const char *why)
{
    char name[160];
    text_escape_buf(name, sizeof name, r->name);
    profile_warn(p, "%s: rank %d: region %s: %s; region dropped", p->path, rk->rank, name, why);
}

/* Statistics of every region; a region whose columns break the model's
 * invariants is dropped with a warning, like any other bad region. */
static sv_err compute_rank_stats(profile *p, rank_data *rk, sv_error *err)
{
    size_t keep = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        region *r = rk->regions[j];
        sv_error e1;
        sv_err e = stats_compute_region(r, &e1);
        if (e == SV_ERR_NOMEM)
            return sv_error_set(err, e, "%s: %s", p->path, e1.msg);
        if (e) {
            warn_dropped(p, rk, r, e1.msg);
            region_free(r);
            continue;
        }
        rk->regions[keep++] = r;
    }
    rk->nregions = keep;
    return SV_OK;
}

/* --- the same step on threads (par.h) -------------------------------
 *
 * Regions' statistics are independent of each other, and so are ranks'
 * nestings; a rank's nesting and its regions' statistics write disjoint
 * fields (stats_compute_region() leaves exclusive_total_ns alone, the
 * nesting touches nothing else).  Tasks: one nesting per rank, first (the
 * longest), then the statistics in chunks of regions.
 *
 * The serial step drops a region whose calls end before they start before
 * it nests, and the nesting's call numbers depend on the regions kept.  A
 * rank's nesting task therefore first checks its regions the way the
 * statistics will (stats_durations_valid(), at memory speed) and leaves a
 * rank with a bad region for after the drops.  Warnings come out in the
 * serial order: the drops in the loader's order of ranks and regions, then
 * each rank's nesting warnings in rank order (par_warns, replayed). */

/* A chunk of regions for one statistics task: enough calls to be worth a
 * task, few enough regions to spread a many-region profile. */
#define FIN_CHUNK_CALLS ((size_t)1 << 18)
#define FIN_CHUNK_REGIONS 512
/* Scratch memory a rank's nesting may take, per call (the explicit links'
 * arrays or the inferred sweep's order keys), and what threads may add to
 * the serial run's peak: 64 MiB, or 4 bytes a call of the whole profile. */
#define FIN_NEST_BYTES_PER_CALL 16
#define FIN_LANES_BYTES_PER_CALL 48 /* the sweep's sort keys of a rank with lanes */
#define FIN_EXTRA_MIN ((uint64_t)64 << 20)
#define FIN_EXTRA_PER_CALL 4

typedef struct fin_par {
    profile *p;
    bool stats, nest;
    /* Every region in the loader's order, rank after rank: rank i's are
     * orig[rank_off[i] .. rank_off[i + 1]). */
    region **orig;
    size_t norig, *rank_off;
    sv_err *st_e; /* per region */
    char **st_msg;
    size_t *chunk_off; /* chunk c: orig[chunk_off[c] .. chunk_off[c + 1]) */
    size_t nchunks;
    /* Per rank; nest_ran false: left for after the drops. */
    bool *nest_ran;
    sv_err *nest_e;
    char **nest_msg;
    size_t *redo; /* phase two: the ranks left */
    size_t nredo;
    par_warns *warns; /* per task: ranks' nestings, then chunks */
    uint64_t *weight;
} fin_par;

static char *msg_dup(const char *m)
{
    char *d = strdup(m);
    if (!d)
        d = strdup("out of memory");
    return d;
}

static bool rank_durations_valid(const rank_data *rk)
{
    for (size_t j = 0; j < rk->nregions; j++)
        if (!stats_durations_valid(rk->regions[j]))
            return false;
    return true;
}

static void fin_nest_rank(fin_par *f, size_t i)
{
    sv_error e1;
    sv_err e = nest_rank_totals(&f->p->ranks[i], &e1);
    f->nest_ran[i] = true;
    f->nest_e[i] = e;
    if (e)
        f->nest_msg[i] = msg_dup(e1.msg);
}

static void fin_stats_chunk(fin_par *f, size_t c)
{
    for (size_t k = f->chunk_off[c]; k < f->chunk_off[c + 1]; k++) {
        sv_error e1;
        sv_err e = stats_compute_region(f->orig[k], &e1);
        f->st_e[k] = e;
        if (e)
            f->st_msg[k] = msg_dup(e1.msg);
    }
}

static void fin_task(void *ctx, size_t t)
{
    fin_par *f = ctx;
    size_t nn = f->nest ? f->p->nranks : 0;
    if (t >= nn) {
        fin_stats_chunk(f, t - nn);
        return;
    }
    /* Without statistics no region is dropped: nothing to wait for.  With
     * the per-call build's totals (nest_share.h) the model was shown, so a
     * region dropped here fails the statistics whatever the totals: they
     * are taken at once, without reading the columns to check first. */
    if (!f->stats || f->p->nest_given || rank_durations_valid(&f->p->ranks[t]))
        fin_nest_rank(f, t);
}

static void fin_redo_task(void *ctx, size_t t)
{
    fin_par *f = ctx;
    fin_nest_rank(f, f->redo[t]);
}

static void fin_free(fin_par *f)
{
    for (size_t k = 0; f->st_msg && k < f->norig; k++)
        free(f->st_msg[k]);
    for (size_t i = 0; f->nest_msg && i < f->p->nranks; i++)
        free(f->nest_msg[i]);
    size_t ntasks = (f->nest ? f->p->nranks : 0) + f->nchunks;
    for (size_t t = 0; f->warns && t < ntasks; t++)
        par_warns_free(&f->warns[t]);
    free(f->orig);
    free(f->rank_off);
    free(f->st_e);
    free(f->st_msg);
    free(f->chunk_off);
    free(f->nest_ran);
    free(f->nest_e);
    free(f->nest_msg);
    free(f->redo);
    free(f->warns);
    free(f->weight);
}

/* The loader's order of regions and the statistics chunks over it. */
static void fin_plan(fin_par *f)
{
    profile *p = f->p;
    size_t k = 0, calls = 0;
    f->nchunks = 0;
    for (size_t i = 0; i < p->nranks; i++) {
        f->rank_off[i] = k;
        for (size_t j = 0; j < p->ranks[i].nregions; j++) {
            region *r = p->ranks[i].regions[j];
            if (f->stats &&
                (calls >= FIN_CHUNK_CALLS || k - f->chunk_off[f->nchunks] >= FIN_CHUNK_REGIONS)) {
                f->chunk_off[++f->nchunks] = k;
                calls = 0;
            }
            calls += r->n;
            f->orig[k++] = r;
        }
    }
    f->rank_off[p->nranks] = k;
    if (f->stats && k > f->chunk_off[f->nchunks])
        f->chunk_off[++f->nchunks] = k;
}

static bool fin_alloc(fin_par *f, profile *p, bool stats, bool nest)
{
    memset(f, 0, sizeof *f);
    f->p = p;
    f->stats = stats;
    f->nest = nest;
    for (size_t i = 0; i < p->nranks; i++)
        f->norig += p->ranks[i].nregions;
    size_t nr = p->nranks, no = f->norig ? f->norig : 1, ntasks = nr + no;
    f->orig = malloc(no * sizeof *f->orig);
    f->rank_off = malloc((nr + 1) * sizeof *f->rank_off);
    f->st_e = calloc(no, sizeof *f->st_e);
    f->st_msg = calloc(no, sizeof *f->st_msg);
    f->chunk_off = calloc(no + 1, sizeof *f->chunk_off);
    f->nest_ran = calloc(nr ? nr : 1, sizeof *f->nest_ran);
    f->nest_e = calloc(nr ? nr : 1, sizeof *f->nest_e);
    f->nest_msg = calloc(nr ? nr : 1, sizeof *f->nest_msg);
    f->redo = malloc((nr ? nr : 1) * sizeof *f->redo);
    f->warns = calloc(ntasks, sizeof *f->warns);
    f->weight = calloc(ntasks, sizeof *f->weight);
    return f->orig && f->rank_off && f->st_e && f->st_msg && f->chunk_off && f->nest_ran &&
           f->nest_e && f->nest_msg && f->redo && f->warns && f->weight;
}

static uint64_t nest_bytes_per_call(const rank_data *rk)
{
    for (size_t j = 0; j < rk->nregions; j++)
        if (rk->regions[j]->thread_ids || rk->regions[j]->task_ids)
            return FIN_LANES_BYTES_PER_CALL;
    return FIN_NEST_BYTES_PER_CALL;
}

/* Each task's scratch memory (bytes, roughly from above), and the cap on
 * the running tasks' sum: the largest task plus the extra allowed. */
static uint64_t fin_weights(fin_par *f)
{
    profile *p = f->p;
    size_t nn = f->nest ? p->nranks : 0;
    uint64_t big = 0, calls = 0;
    for (size_t i = 0; i < p->nranks; i++)
        calls += p->ranks[i].ncalls;
    for (size_t i = 0; i < nn; i++)
        f->weight[i] = (uint64_t)p->ranks[i].ncalls * nest_bytes_per_call(&p->ranks[i]);
    for (size_t c = 0; c < f->nchunks; c++) {
        /* Percentiles copy at most an eighth of a region's durations. */
        uint64_t w = 0;
        for (size_t k = f->chunk_off[c]; k < f->chunk_off[c + 1]; k++)
            w += f->orig[k]->n;
        f->weight[nn + c] = w;
    }
    for (size_t t = 0; t < nn + f->nchunks; t++)
        big = f->weight[t] > big ? f->weight[t] : big;
    uint64_t extra = calls * FIN_EXTRA_PER_CALL;
    return big + (extra > FIN_EXTRA_MIN ? extra : FIN_EXTRA_MIN);
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (region *const *)a, y = (uintptr_t) * (region *const *)b;
    return (x > y) - (x < y);
}

/* Region drops in the serial order; true when a rank lost one. */
static sv_err fin_drops(fin_par *f, bool *dropped, sv_error *err)
{
    profile *p = f->p;
    *dropped = false;
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &p->ranks[i];
        size_t a = f->rank_off[i], b = f->rank_off[i + 1];
        for (size_t k = a; k < b; k++) {
            if (f->st_e[k] == SV_ERR_NOMEM)
                return sv_error_set(err, SV_ERR_NOMEM, "%s: %s", p->path, f->st_msg[k]);
            if (f->st_e[k])
                warn_dropped(p, rk, f->orig[k], f->st_msg[k]);
        }
        size_t nbad = 0;
        for (size_t k = a; k < b; k++)
            if (f->st_e[k])
                f->orig[a + nbad++] = f->orig[k]; /* orig[a..b) is not needed again */
        if (!nbad)
            continue;
        /* rk->regions is sorted by name by now: keep the rest in that order. */
        qsort(f->orig + a, nbad, sizeof *f->orig, cmp_ptr);
        size_t keep = 0;
        for (size_t j = 0; j < rk->nregions; j++) {
            region *r = rk->regions[j];
            if (!bsearch(&r, f->orig + a, nbad, sizeof *f->orig, cmp_ptr))
                rk->regions[keep++] = r;
        }
        for (size_t k = a; k < a + nbad; k++)
            region_free(f->orig[k]);
        rk->nregions = keep;
        *dropped = true;
    }
    return SV_OK;
}

/* The ranks left for after the drops, nested now; then the first error in
 * rank order, and the nesting warnings in rank order. */
static sv_err fin_nest_rest(fin_par *f, int nthreads, sv_error *err)
{
    profile *p = f->p;
    f->nredo = 0;
    for (size_t i = 0; i < p->nranks; i++)
        if (!f->nest_ran[i])
            f->redo[f->nredo++] = i;
    par_job job = {f->nredo, fin_redo_task, f, NULL, NULL, 0};
    par_warns *w = malloc((f->nredo ? f->nredo : 1) * sizeof *w);
    if (!w)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    memset(w, 0, (f->nredo ? f->nredo : 1) * sizeof *w);
    job.warns = w;
    par_run(&job, nthreads);
    for (size_t t = 0; t < f->nredo; t++) {
        par_warns_free(&f->warns[f->redo[t]]);
        f->warns[f->redo[t]] = w[t];
    }
    free(w);
    for (size_t i = 0; i < p->nranks; i++)
        if (f->nest_e[i])
            return sv_error_set(err, f->nest_e[i], "%s", f->nest_msg[i]);
    for (size_t i = 0; i < p->nranks; i++)
        par_warns_replay(p, &f->warns[i]);
    return SV_OK;
}

/* The finishing step on nthreads threads; false (nothing done) when its
 * own tables cannot be allocated. */
static bool finish_threaded(profile *p, bool stats, bool nest, int nthreads, sv_err *out,
                            sv_error *err)
{
    fin_par f;
    if (!fin_alloc(&f, p, stats, nest)) {
        fin_free(&f);
        return false;
    }
    fin_plan(&f);
    /* Nesting reads the regions sorted by name and numbered (a no-op for
     * the statistics, which only read each region's own columns). */
    fix_owners(p);
    size_t nn = nest ? p->nranks : 0;
    par_job job = {nn + f.nchunks, fin_task, &f, f.warns, f.weight, 0};
    job.weight_cap = fin_weights(&f);
    par_run(&job, nthreads);
    for (size_t c = 0; c < f.nchunks; c++)
        par_warns_replay(p, &f.warns[nn + c]); /* none: the statistics do not warn */
    bool dropped = false;
    sv_err e = stats ? fin_drops(&f, &dropped, err) : SV_OK;
    if (!e && dropped)
        fix_owners(p);
    if (!e)
        e = build_region_list(p, err);
    if (!e)
        compute_min_start(p);
    if (!e && nest)
        e = fin_nest_rest(&f, nthreads, err);
    fin_free(&f);
    *out = e;
    return true;
}

/* The step on one thread (SCOPEVIEW_THREADS=1, one processor, or no
 * memory for the threaded step's own tables): the reference test_par
 * compares the threaded step with. */
static sv_err finish_serial(profile *p, bool stats, bool nest, sv_error *err)
{
    for (size_t i = 0; stats && i < p->nranks; i++) {
        sv_err e = compute_rank_stats(p, &p->ranks[i], err);
        if (e)
            return e;
    }
    fix_owners(p);
    sv_err e = build_region_list(p, err);
    if (e)
        return e;
    compute_min_start(p);
    return nest ? nest_compute_totals(p, err) : SV_OK;
}

sv_err profile_finish_steps(profile *p, bool stats, bool nest, sv_error *err)
{
    if (p->nranks)
        qsort(p->ranks, p->nranks, sizeof *p->ranks, cmp_rank);
    if (p->nmeta)
        qsort(p->meta, p->nmeta, sizeof *p->meta, cmp_meta);
    int nthreads = par_threads();
    sv_err e;
    if (nthreads > 1 && (stats || nest) && finish_threaded(p, stats, nest, nthreads, &e, err))
        return e;
    return finish_serial(p, stats, nest, err);
}

void profile_stored_min_start(profile *p)
{
    if (p->has_min_start)
        return;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (r->has_event_data || !r->has_stored_summary ||
            !(r->stored.known & (1u << SUM_FIRST_START)))
            continue;
        int64_t v = (int64_t)r->stored.v[SUM_FIRST_START];
        if (!p->has_min_start || v < p->min_start_ns)
            p->min_start_ns = v;
        p->has_min_start = true;
    }
}

sv_err profile_finish(profile *p, sv_error *err)
{
    return profile_finish_steps(p, true, true, err);
}

sv_err profile_ensure_calls(profile *p, sv_error *err)
{
    return nest_build_calls(p, err);
}
