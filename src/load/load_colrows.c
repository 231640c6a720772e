/* load_colrows: one row of the columnar layouts at a time: schema-3
 * decoding (a running int64 sum per row, overflow checked), the per-call
 * checks against the rank's lane tables, the row's strings (tags and
 * event_metadata are JSON text), stored summaries, and the commit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsontext.h"
#include "model/par.h"
#include "load_columnar_internal.h"
#include "stream_col.h"

/* ------------------------------------------------------------ per row */

/* Schema 3: starts are a running sum of the row's deltas, ends start +
 * duration; false at the first int64 overflow (index in *bad).  *neg:
 * some duration is negative. */
static bool decode_row(region *t, size_t *bad, bool *neg)
{
    int64_t s = 0;
    bool nd = false;
    for (size_t i = 0; i < t->n; i++) {
        if (i == 0)
            s = t->start_ns[0];
        else if (__builtin_add_overflow(s, t->start_ns[i], &s)) {
            *bad = i;
            return false;
        }
        t->start_ns[i] = s;
        nd |= t->end_ns[i] < 0;
        if (__builtin_add_overflow(s, t->end_ns[i], &t->end_ns[i])) {
            *bad = i;
            return false;
        }
    }
    *neg = nd;
    return true;
}

static bool all_equal(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != x)
            return false;
    return true;
}

static bool any_at_least(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] >= x)
            return true;
    return false;
}

/* A row's decoding and its first end before start: pure work on the row's
 * own columns (check_rows dropped overlapping rows), done for all rows of a
 * rank at once on par.c's threads; check_events warns in row order. */
typedef struct lc_pre {
    bool ok;    /* decoded (or nothing to decode) */
    size_t bad; /* else: where the start time overflows */
    size_t ebs; /* the first end before start (n: none) */
} lc_pre;

typedef struct lc_pre_job {
    lc_file *lf;
    const size_t *rows;
    lc_pre *pre;
    int schema;
} lc_pre_job;

static void decode_check(region *t, int schema, lc_pre *o)
{
    /* Decoded without overflow, end < start only where a duration is
     * negative: the decoding tells whether to look (a pass saved). */
    bool neg = true;
    o->ok = schema < 3 || decode_row(t, &o->bad, &neg);
    o->ebs = o->ok && neg ? ld_first_end_before_start(t->start_ns, t->end_ns, t->n) : t->n;
}

static void pre_task(void *ctx, size_t j)
{
    lc_pre_job *pj = ctx;
    region *t = &pj->lf->stage[pj->rows[j]];
    if (t->has_event_data)
        decode_check(t, pj->schema, &pj->pre[j]);
}

/* The rank's rows decoded and checked on threads; NULL (check_events does
 * it row by row) on one thread or without memory. */
static lc_pre *pre_rows(ld_ctx *c, lc_file *lf, const size_t *rows, size_t n)
{
    int nt = par_threads();
    if (nt < 2 || n < 2)
        return NULL;
    lc_pre *pre = calloc(n, sizeof *pre);
    if (!pre)
        return NULL;
    lc_pre_job pj = {lf, rows, pre, c->schema};
    par_job job = {n, pre_task, &pj, NULL, NULL, 0};
    par_run(&job, nt);
    return pre;
}

/* Checks of one row's calls; false when the row must go.  pre: the row's
 * decoding done beforehand, or NULL. */
static bool check_events(ld_ctx *c, lc_file *lf, size_t i, const rank_data *rk, const lc_pre *pre)
{
    region *t = &lf->stage[i];
    const char *name = row_name(lf, i);
    char item[64];
    size_t b;
    lc_pre here;
    if (!pre) {
        decode_check(t, c->schema, &here);
        pre = &here;
    }
    if (!pre->ok) {
        ld_warn(c, name, "dataset", ev_path(item, sizeof item, lf->tnames[0]),
                "start time overflows at call %zu; region dropped", pre->bad);
        return false;
    }
    if ((b = pre->ebs) < t->n) {
        ld_warn(c, name, "dataset", ev_path(item, sizeof item, lf->tnames[1]),
                "end < start at call %zu (start %lld, end %lld); region dropped", b,
                (long long)t->start_ns[b], (long long)t->end_ns[b]);
        return false;
    }
    if (t->gpu_ns && !any_at_least(t->gpu_ns, t->n, 0))
        ld_drop_col(&t->gpu_ns); /* -1 everywhere: no GPU timing */
    if (t->parent_ids && !t->call_ids)
        ld_drop_col(&t->parent_ids);
    int64_t tmax = rk->has_threads ? (int64_t)rk->threads.n - 1 : INT64_MAX;
    if (t->thread_ids && (b = ld_first_outside(t->thread_ids, t->n, -1, tmax)) < t->n) {
        ld_warn(c, name, "dataset", "events/thread_ids",
                "thread %lld at call %zu is outside the thread table of rank %d (%zu rows); "
                "column dropped",
                (long long)t->thread_ids[b], b, rk->rank, rk->has_threads ? rk->threads.n : 0);
        ld_drop_col(&t->thread_ids);
    }
    int64_t kmax = rk->has_tasks ? (int64_t)rk->tasks.n - 1 : INT64_MAX;
    if (t->task_ids && (b = ld_first_outside(t->task_ids, t->n, -1, kmax)) < t->n) {
        ld_warn(c, name, "dataset", "events/task_ids",
                "task %lld at call %zu is outside the task table of rank %d (%zu rows); "
                "column dropped",
                (long long)t->task_ids[b], b, rk->rank, rk->has_tasks ? rk->tasks.n : 0);
        ld_drop_col(&t->task_ids);
    }
    if (t->await_ns && (b = ld_first_bad_await(t->await_ns, t->start_ns, t->end_ns, t->n)) < t->n) {
        ld_warn(c, name, "dataset", "events/await_ns",
                "%lld at call %zu is outside [0, duration]; column dropped",
                (long long)t->await_ns[b], b);
        ld_drop_col(&t->await_ns);
    }
    return true;
}

static sv_err set_tags(ld_ctx *c, lc_file *lf, size_t i)
{
    region *t = &lf->stage[i];
    const char *s = lf->tags.v[i];
    if (!s[0])
        return SV_OK;
    jt_status js = jt_string_array(s, &t->tags, &t->ntags);
    if (js == JT_NOMEM)
        return SV_ERR_NOMEM;
    if (js == JT_BAD)
        ld_warn(c, row_name(lf, i), "dataset", "rank_region_index/tags",
                "rank %d: not a JSON array of strings; tags dropped", lf->ix.rank[i]);
    return SV_OK;
}

static sv_err set_meta(ld_ctx *c, lc_file *lf, size_t i)
{
    region *t = &lf->stage[i];
    const char *s = lf->meta.v[i];
    if (!s[0] || !t->has_event_data)
        return SV_OK;
    char **v;
    size_t n;
    jt_status js = jt_split_array(s, &v, &n);
    if (js == JT_NOMEM)
        return SV_ERR_NOMEM;
    if (js == JT_BAD) {
        ld_warn(c, row_name(lf, i), "dataset", "rank_region_index/event_metadata",
                "rank %d: not a JSON array; column dropped", lf->ix.rank[i]);
        return SV_OK;
    }
    if (n == 0)
        return SV_OK;
    if (n != t->n) {
        ld_warn(c, row_name(lf, i), "dataset", "rank_region_index/event_metadata",
                "rank %d: %zu objects for %zu calls; column dropped", lf->ix.rank[i], n, t->n);
        jt_free(v, n);
        return SV_OK;
    }
    t->event_meta = v;
    return SV_OK;
}

static sv_err dup_or_null(const char *s, char **out)
{
    *out = NULL;
    if (!s || !s[0])
        return SV_OK;
    *out = strdup(s);
    return *out ? SV_OK : SV_ERR_NOMEM;
}

static void set_summary(lc_file *lf, size_t i)
{
    region *t = &lf->stage[i];
    uint64_t n = lf->cnt[i];
    if (lf->excl && lf->excl[i] >= 0) {
        t->has_stored_exclusive = true;
        t->stored_exclusive_ns = lf->excl[i];
    }
    if (!lf->sum)
        return;
    const h5u_sumstat *s = &lf->sum[i];
    region_summary *rs = &t->stored;
    t->has_stored_summary = true;
    rs->known = 1u << SUM_NUM_CALLS;
    rs->v[SUM_NUM_CALLS] = (double)n;
    if (n == 0)
        return;
    static const int keys[] = {SUM_TOTAL, SUM_MIN,         SUM_MAX,     SUM_FIRST,
                               SUM_LAST,  SUM_FIRST_START, SUM_LAST_END};
    const int64_t vals[] = {s->total, s->minimum,       s->maximum,    s->first,
                            s->last,  s->start_minimum, s->end_maximum};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        rs->known |= 1u << keys[k];
        rs->v[keys[k]] = (double)vals[k];
    }
    /* A NaN or infinite moment (a damaged row) is unknown, never printed. */
    if (s->has_moments && isfinite(s->mean) && isfinite(s->m2) && s->m2 >= 0) {
        rs->known |= 1u << SUM_MEAN | 1u << SUM_STD;
        rs->v[SUM_MEAN] = s->mean;
        rs->v[SUM_STD] = sqrt(s->m2 / (double)n);
    }
    if (s->has_gpu && s->gpu_count > 0) {
        rs->known |= 1u << SUM_GPU_TOTAL;
        rs->v[SUM_GPU_TOTAL] = (double)s->gpu_total;
    }
    if (t->has_stored_exclusive) {
        rs->known |= 1u << SUM_EXCLUSIVE_TOTAL;
        rs->v[SUM_EXCLUSIVE_TOTAL] = (double)t->stored_exclusive_ns;
    }
}

/* Strings and stored values of row i. */
static sv_err row_attrs(ld_ctx *c, lc_file *lf, size_t i)
{
    region *t = &lf->stage[i];
    sv_err e = SV_OK;
    if (lf->files.n)
        e = dup_or_null(lf->files.v[i], &t->source_file);
    if (!e && lf->texts.n)
        e = dup_or_null(lf->texts.v[i], &t->source_text);
    if (lf->lines && lf->lines[i] >= 0) {
        t->has_lineno = true;
        t->source_lineno = lf->lines[i];
    }
    if (!e && lf->tags.n)
        e = set_tags(c, lf, i);
    if (!e && lf->meta.n)
        e = set_meta(c, lf, i);
    set_summary(lf, i);
    return e;
}

/* Native data (C API, imports) had every id -1: that is no call graph. */
static void drop_fake_ids(lc_file *lf, const size_t *rows, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        region *t = &lf->stage[rows[j]];
        if (t->call_ids && !all_equal(t->call_ids, t->n, -1))
            return;
    }
    for (size_t j = 0; j < n; j++) {
        ld_drop_col(&lf->stage[rows[j]].call_ids);
        ld_drop_col(&lf->stage[rows[j]].parent_ids);
    }
}

sv_err lc_commit_rank(ld_ctx *c, lc_file *lf, const ld_lane_tables *lt, int rank,
                      const size_t *rows, size_t n)
{
    rank_data *rk = ld_rank(c, rank);
    if (!rk)
        return SV_ERR_NOMEM;
    c->rank = rank;
    sv_err e = ld_lane_tables_rank(c, lt, rk);
    /* An MPI part holds some of the rank's rows only: the merge decides
     * on all of them (load_rows_finish). */
    if (lf->events && !lf->share)
        drop_fake_ids(lf, rows, n);
    /* Out of core: pass 1 over the rank's rows (stream_col.h). */
    if (!e && lf->sc)
        e = sc_rank_begin(c, lf, rk, rows, n);
    lc_pre *pre = !e && !lf->sc ? pre_rows(c, lf, rows, n) : NULL;
    for (size_t j = 0; !e && j < n; j++) {
        size_t i = rows[j];
        region *t = &lf->stage[i];
        bool keep = true;
        if (t->has_event_data)
            keep =
                lf->sc ? sc_row_check(c, lf, i) : check_events(c, lf, i, rk, pre ? &pre[j] : NULL);
        if (keep)
            e = row_attrs(c, lf, i);
        if (keep && !e && !t->has_event_data && !t->has_stored_summary) {
            ld_warn(c, row_name(lf, i), NULL, NULL, "no event data and no summary; dropped");
            keep = false;
        }
        if (keep && !e)
            e = ld_stage_commit(rk, row_name(lf, i), t);
        if (keep && !e && lf->sc)
            sc_row_committed(lf, i, rk->regions[rk->nregions - 1]);
    }
    free(pre);
    if (!e && lf->sc)
        e = sc_rank_finish(c, lf, rk, rows, n);
    /* the out-of-core viewer's pass may take the rank now (load_sink.h pass) */
    const load_sink *s = lf->sc && !lf->share ? ld_sink(c) : NULL;
    load_pass_at at = {LOAD_PASS_RANK, rk, rows, n, false};
    if (!e && s && s->pass)
        e = s->pass(s->pass_ctx, c, lf, &at);
    c->rank = -1;
    return e;
}
