/* stream_rank: pass 2 of the out-of-core columnar load (stream_col.h): a
 * rank's exclusive totals and its rows' percentiles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/nest.h"
#include "model/par.h"
#include "stream_col_internal.h"
#include "stream_pf.h"
#include "util/text.h"

typedef struct rank_rows {
    sc_row **v; /* streamed, committed rows in byte order of their names */
    size_t n;
    uint64_t calls;
} rank_rows;

static int cmp_row_name(const void *a, const void *b)
{
    const sc_row *x = *(sc_row *const *)a, *y = *(sc_row *const *)b;
    return strcmp(x->r->name, y->r->name);
}

static bool gather(sc_row **v, size_t n, rank_rows *rr)
{
    rr->v = malloc((n ? n : 1) * sizeof *rr->v);
    rr->n = 0;
    rr->calls = 0;
    if (!rr->v)
        return false;
    for (size_t j = 0; j < n; j++) {
        sc_row *row = v[j];
        if (row && row->r) {
            rr->v[rr->n++] = row;
            rr->calls += row->n;
        }
    }
    qsort(rr->v, rr->n, sizeof *rr->v, cmp_row_name);
    return true;
}

/* ------------------------------------------------------------ the sweep */

typedef struct src_ctx {
    sc_reader rd;
    sc_row *row;
    bool feed; /* the durations go to the row's percentile buckets */
    sc_pf *pf; /* the reads on a second thread (stream_pf.h), or NULL */
    size_t j;  /* the row's index there */
} src_ctx;

static int src_refill(void *vctx, stream_src *src)
{
    src_ctx *x = vctx;
    if (x->pf && !x->row->mem) {
        const sc_chunk *ch = sc_pf_next(x->pf, x->j);
        src->s = ch->buf[SC_START];
        src->e = ch->buf[SC_END];
        src->len = ch->len;
        return ch->rc;
    }
    if (x->row->mem) { /* schema 1 in memory: the whole row at once */
        if (x->rd.pos)
            return 0;
        x->rd.pos = x->row->n;
        src->s = x->row->r->start_ns;
        src->e = x->row->r->end_ns;
        src->len = x->row->r->n;
        return src->len > 0;
    }
    int k = sc_reader_next(&x->rd);
    if (k <= 0)
        return k;
    src->s = x->rd.buf[SC_START];
    src->e = x->rd.buf[SC_END];
    src->len = x->rd.len;
    if (x->feed)
        stream_pct_feed(&x->row->pct, x->rd.dur, x->rd.len);
    return 1;
}

size_t sc_pct_cap(const sc_file *sf, size_t nrows)
{
    uint64_t v = sf->budget / 4 / sizeof(int64_t) / (nrows ? nrows : 1);
    return v < 4096 ? 4096 : (size_t)v;
}

static sv_err alloc_pcts(sc_file *sf, rank_rows *rr)
{
    size_t cap = sc_pct_cap(sf, rr->n);
    for (size_t j = 0; j < rr->n; j++)
        if (rr->v[j]->n > 0 && !rr->v[j]->mem && !rr->v[j]->pct_early &&
            !stream_pct_alloc(&rr->v[j]->pct, cap))
            return SV_ERR_NOMEM;
    return SV_OK;
}

static sv_err sweep_rank(sc_file *sf, rank_rows *rr, rank_data *rk, int64_t *excl)
{
    /* With a second thread the reads go there, into two chunks a row
     * (start and end each) and the durations, shorter ones
     * (sc_pf_chunk_len). */
    bool two = par_threads() > 1;
    size_t cap = two ? sc_pf_chunk_len(stream_chunk_len(sf->budget, rr->n, 5))
                     : stream_chunk_len(sf->budget, rr->n, 3);
    stream_src *srcs = calloc(rr->n ? rr->n : 1, sizeof *srcs);
    src_ctx *ctx = calloc(rr->n ? rr->n : 1, sizeof *ctx);
    /* rows whose percentiles pass 1 kept (pct_early) are read without their durations */
    sc_row **feed = calloc(rr->n ? rr->n : 1, sizeof *feed);
    sv_err e = srcs && ctx && feed ? alloc_pcts(sf, rr) : SV_ERR_NOMEM;
    for (size_t j = 0; !e && j < rr->n; j++)
        feed[j] = rr->v[j]->pct_early ? NULL : rr->v[j];
    sc_pf *pf = !e && two ? sc_pf_start(sf, rr->v, feed, rr->n, 3u, cap, SC_PF_PCT) : NULL;
    free(feed);
    for (size_t j = 0; !e && j < rr->n; j++) {
        ctx[j].row = rr->v[j];
        ctx[j].feed = !rr->v[j]->pct_early;
        ctx[j].pf = pf;
        ctx[j].j = j;
        if (!pf && !rr->v[j]->mem &&
            !sc_reader_init(&ctx[j].rd, sf, rr->v[j], 3u, cap, ctx[j].feed))
            e = SV_ERR_NOMEM;
        srcs[j] = (stream_src){.reg = (uint32_t)j, .refill = src_refill, .ctx = &ctx[j]};
    }
    stream_sweep_out out = {excl, 0, false, false};
    if (!e && sf->rd.log_reads)
        fprintf(stderr, "scopeview: stream rank %d: pass 2 reads its calls again\n", rk->rank);
    if (!e && stream_sweep(srcs, rr->n, &out) != 0)
        e = SV_ERR_FORMAT;
    sc_pf_stop(pf);
    if (!e) {
        rk->ninferred_lanes = out.nlanes;
        if (out.capped)
            profile_warn(rk->owner,
                         "%s: rank %d: calls overlap partly on more than %d inferred lanes; "
                         "the rest are drawn on the last lane",
                         rk->owner->path, rk->rank, 256);
    }
    for (size_t j = 0; ctx && j < rr->n; j++)
        sc_reader_free(&ctx[j].rd);
    free(srcs);
    free(ctx);
    return e;
}

/* ------------------------------------------------------------ in memory */

/* Reads the rank's kept columns whole into a scratch profile and nests it
 * with nest.c: call ids, lane columns or rows out of start order, when the
 * calls fit the budget. */
static sv_err read_whole(sc_file *sf, sc_row *row, region *t)
{
    unsigned want = 3u | (row->keep & (1u << SC_THREAD | 1u << SC_TASK));
    if (row->keep & (1u << SC_CALL) && row->keep & (1u << SC_PARENT))
        want |= 1u << SC_CALL | 1u << SC_PARENT;
    int64_t **dst[SC_NCOL] = {&t->start_ns,   &t->end_ns,     NULL,         &t->call_ids,
                              &t->parent_ids, &t->thread_ids, &t->task_ids, NULL};
    size_t n = (size_t)row->n, m = n ? n : 1;
    for (int k = 0; k < SC_NCOL; k++)
        if (want & (1u << k) && dst[k] && !(*dst[k] = malloc(m * sizeof(int64_t))))
            return SV_ERR_NOMEM;
    if (row->mem) { /* schema 1 in memory: a copy of its columns */
        const int64_t *src[SC_NCOL] = {
            row->r->start_ns,   row->r->end_ns,   NULL, row->r->call_ids, row->r->parent_ids,
            row->r->thread_ids, row->r->task_ids, NULL};
        for (int k = 0; k < SC_NCOL; k++)
            if (want & (1u << k) && dst[k] && *dst[k] && src[k] && n)
                memcpy(*dst[k], src[k], n * sizeof(int64_t));
        return SV_OK;
    }
    sc_reader rd;
    size_t cap = stream_chunk_len(sf->budget, 1, SC_NCOL);
    if (!sc_reader_init(&rd, sf, row, want, cap, true)) {
        sc_reader_free(&rd);
        return SV_ERR_NOMEM;
    }
    size_t at = 0;
    int k;
    while ((k = sc_reader_next(&rd)) == 1) {
        for (int c = 0; c < SC_NCOL; c++)
            if (rd.want & (1u << c) && dst[c] && *dst[c])
                memcpy(*dst[c] + at, rd.buf[c], rd.len * sizeof(int64_t));
        stream_pct_feed(&row->pct, rd.dur, rd.len);
        at += rd.len;
    }
    sc_reader_free(&rd);
    return k < 0 ? SV_ERR_FORMAT : SV_OK;
}

static sv_err nest_in_memory(ld_ctx *c, sc_file *sf, rank_rows *rr, rank_data *rk, int64_t *excl)
{
    if (sf->rd.log_reads)
        fprintf(stderr, "scopeview: stream rank %d: pass 2 reads its calls again\n", rk->rank);
    profile *tp = profile_new(c->p->path);
    rank_data *trk = tp ? profile_add_rank(tp, rk->rank) : NULL;
    sv_err e = trk ? alloc_pcts(sf, rr) : SV_ERR_NOMEM;
    for (size_t j = 0; !e && j < rr->n; j++) {
        region *t = rank_add_region(trk, rr->v[j]->r->name);
        if (!t) {
            e = SV_ERR_NOMEM;
            break;
        }
        t->has_event_data = true;
        t->n = (size_t)rr->v[j]->n;
        e = read_whole(sf, rr->v[j], t);
    }
    sv_error err;
    if (!e)
        e = profile_finish_steps(tp, false, true, &err);
    for (size_t j = 0; !e && j < rr->n; j++) {
        const region *t = rank_region(&tp->ranks[0], rr->v[j]->r->name);
        excl[j] = t ? t->st.exclusive_total_ns : 0;
    }
    if (!e) {
        rk->explicit_ids = tp->ranks[0].explicit_ids;
        rk->ninferred_lanes = tp->ranks[0].ninferred_lanes;
        for (size_t w = 0; w < tp->nwarnings; w++)
            profile_warn(c->p, "%s", tp->warnings[w]);
    }
    profile_free(tp);
    return e;
}

/* ------------------------------------------------------------ more passes */

typedef struct pass_ctx {
    sc_file *sf;
    const sc_row *row;
} pass_ctx;

static int row_pass(void *vctx, stream_dur_fn fn, void *fctx)
{
    pass_ctx *x = vctx;
    if (x->sf->rd.log_reads) {
        char esc[256];
        text_escape_buf(esc, sizeof esc, x->row->r->name);
        fprintf(stderr, "scopeview: stream: %s read again\n", esc);
    }
    sc_reader rd;
    int k = sc_reader_init(&rd, x->sf, x->row, 3u, stream_chunk_len(x->sf->budget, 1, 3), true)
                ? 1
                : -1;
    while (k == 1 && (k = sc_reader_next(&rd)) == 1)
        fn(fctx, rd.dur, rd.len);
    sc_reader_free(&rd);
    return k < 0 ? -1 : 0;
}

static void ld_sum_fn(void *l, const int64_t *d, size_t n)
{
    stream_ld_sum(l, d, n);
}

static void ld_ss_fn(void *l, const int64_t *d, size_t n)
{
    stream_ld_ss(l, d, n);
}

static void collect_fn(void *pc, const int64_t *d, size_t n)
{
    stream_pct_feed(pc, d, n);
}

/* Percentiles (and, on hostile data, std) of one row after pass 2. */
static sv_err finish_row(sc_file *sf, sc_row *row, size_t nrows)
{
    region *r = row->r;
    pass_ctx px = {sf, row};
    if (row->n == 0 || row->mem) /* in memory: stats.c computes them */
        return SV_OK;
    if (row->pct.nb == 0 && stream_pct_need(&row->pct) > 0) {
        /* not collected by pass 2 (no sweep): one pass for the light buckets */
        if (!stream_pct_alloc(&row->pct, sc_pct_cap(sf, 1)))
            return SV_ERR_NOMEM;
        if (row->pct.nb && row_pass(&px, collect_fn, &row->pct) != 0)
            return SV_ERR_FORMAT;
    }
    stream_pct_resolve(&row->pct);
    if (stream_pct_refine(&row->pct, sc_pct_cap(sf, 1), row_pass, &px) != 0)
        return SV_ERR_FORMAT;
    stream_pct_result(&row->pct, &r->st);
    if (!row->moments_ok) {
        stream_ld l = {0, 0, 0, 0};
        if (row_pass(&px, ld_sum_fn, &l) != 0)
            return SV_ERR_FORMAT;
        l.mean = l.sum / (long double)l.n;
        if (row_pass(&px, ld_ss_fn, &l) != 0)
            return SV_ERR_FORMAT;
        r->st.std_ns = stream_ld_std(&l);
    }
    (void)nrows;
    return SV_OK;
}

/* ------------------------------------------------------------ the rank */

/* ------------------------------------------------------------ one thread at a time */

/* A rank with a thread column (and no task column, no call ids): nest_infer.c sorts its calls
 * by (thread, start, -end, region, index) and sweeps them with one stack, so each thread nests
 * alone: one merge of the rank's rows per thread, each row filtered to that thread's calls (in
 * start order within a thread even when the per-thread buffers were concatenated). */
#define LANE_PASSES_MAX 64

typedef struct lane_ctx {
    sc_reader rd;
    sc_row *row;
    int64_t thread;
    bool feed; /* the first pass feeds the percentile buckets */
    int64_t *fs, *fe;
} lane_ctx;

static int lane_refill(void *vctx, stream_src *src)
{
    lane_ctx *x = vctx;
    bool has = (x->row->keep & (1u << SC_THREAD)) != 0;
    for (;;) {
        int k = sc_reader_next(&x->rd);
        if (k <= 0)
            return k;
        if (x->feed)
            stream_pct_feed(&x->row->pct, x->rd.dur, x->rd.len);
        size_t m = 0;
        for (size_t i = 0; i < x->rd.len; i++) {
            int64_t t = has ? x->rd.buf[SC_THREAD][i] : -1;
            if (t == x->thread) {
                x->fs[m] = x->rd.buf[SC_START][i];
                x->fe[m++] = x->rd.buf[SC_END][i];
            }
        }
        if (m) {
            src->s = x->fs;
            src->e = x->fe;
            src->len = m;
            return 1;
        }
    }
}

/* The threads of the rank's calls (-1 for rows without the column), sorted; 0 when more than
 * LANE_PASSES_MAX. */
static size_t rank_threads(const rank_rows *rr, int64_t *out)
{
    size_t n = 0;
    for (size_t j = 0; j < rr->n; j++) {
        const region *r = rr->v[j]->r;
        bool has = (rr->v[j]->keep & (1u << SC_THREAD)) != 0;
        size_t cnt = has ? r->stream_nthreads : rr->v[j]->n > 0;
        for (size_t i = 0; i < cnt; i++) {
            int64_t t = has ? r->stream_threads[i] : -1;
            size_t k = 0;
            while (k < n && out[k] != t)
                k++;
            if (k < n)
                continue;
            if (n == LANE_PASSES_MAX)
                return 0;
            out[n++] = t;
        }
    }
    return n;
}

/* 0 ok; SV_ERR_RANGE: a row is not in start order within a thread (the caller nests another
 * way; the percentile buckets are reset). */
static sv_err lanes_rank(sc_file *sf, rank_rows *rr, rank_data *rk, int64_t *excl,
                         const int64_t *threads, size_t nt)
{
    size_t cap = stream_chunk_len(sf->budget, rr->n, 6);
    stream_src *srcs = calloc(rr->n ? rr->n : 1, sizeof *srcs);
    lane_ctx *ctx = calloc(rr->n ? rr->n : 1, sizeof *ctx);
    sv_err e = srcs && ctx ? alloc_pcts(sf, rr) : SV_ERR_NOMEM;
    for (size_t ti = 0; !e && ti < nt; ti++) {
        if (sf->rd.log_reads)
            fprintf(stderr, "scopeview: stream rank %d: pass 2 reads its calls again\n", rk->rank);
        for (size_t j = 0; !e && j < rr->n; j++) {
            lane_ctx *x = &ctx[j];
            *x = (lane_ctx){.row = rr->v[j], .thread = threads[ti], .feed = ti == 0};
            size_t c = cap < rr->v[j]->n ? cap : (size_t)rr->v[j]->n;
            x->fs = malloc((c ? c : 1) * sizeof *x->fs);
            x->fe = malloc((c ? c : 1) * sizeof *x->fe);
            if (!x->fs || !x->fe ||
                !sc_reader_init(&x->rd, sf, rr->v[j], 3u | 1u << SC_THREAD, cap, true))
                e = SV_ERR_NOMEM;
            srcs[j] = (stream_src){.reg = (uint32_t)j, .refill = lane_refill, .ctx = x};
        }
        stream_sweep_out out = {excl, 0, false, true};
        int rc = e ? 0 : stream_sweep(srcs, rr->n, &out);
        if (rc == -2)
            e = SV_ERR_RANGE;
        else if (rc)
            e = SV_ERR_FORMAT;
        for (size_t j = 0; j < rr->n; j++) {
            sc_reader_free(&ctx[j].rd);
            free(ctx[j].fs);
            free(ctx[j].fe);
            ctx[j].fs = ctx[j].fe = NULL;
        }
    }
    if (e == SV_ERR_RANGE)
        for (size_t j = 0; j < rr->n; j++) {
            stream_pct_free(&rr->v[j]->pct);
            excl[j] = 0;
        }
    if (!e)
        rk->ninferred_lanes = 0;
    free(srcs);
    free(ctx);
    return e;
}

typedef enum { NEST_SWEEP, NEST_LANES, NEST_MEMORY, NEST_STORED } nest_how;

static nest_how choose(const sc_file *sf, const rank_rows *rr, const char **why)
{
    bool ids = false, any = false, lanes = false, sorted = true, tasks = false, mem = false;
    uint64_t bytes = 0;
    for (size_t j = 0; j < rr->n; j++) {
        const sc_row *row = rr->v[j];
        bool has_ids = (row->keep & (1u << SC_CALL)) && (row->keep & (1u << SC_PARENT));
        if (row->n > 0) {
            ids = any ? ids && has_ids : has_ids;
            any = true;
        }
        lanes |= (row->keep & (1u << SC_THREAD | 1u << SC_TASK)) != 0;
        tasks |= (row->keep & (1u << SC_TASK)) != 0;
        mem |= row->mem;
        sorted &= row->in_order;
        /* columns, then nest.c's per-call arrays (sorted keys: 40 bytes) */
        bytes += row->n * (7 * sizeof(int64_t) + 48);
    }
    *why = ids ? "call ids" : lanes ? "thread or task columns" : "rows out of start order";
    if (!ids && !lanes && sorted)
        return NEST_SWEEP;
    if (!ids && lanes && !tasks && !mem)
        return NEST_LANES; /* falls back below when a row is out of order within a thread */
    return bytes <= sf->budget / 2 ? NEST_MEMORY : NEST_STORED;
}

static void use_stored(ld_ctx *c, rank_rows *rr, const rank_data *rk, const char *why)
{
    size_t missing = 0;
    for (size_t j = 0; j < rr->n; j++) {
        region *r = rr->v[j]->r;
        if (r->has_stored_exclusive) {
            r->st.exclusive_total_ns = r->stored_exclusive_ns;
        } else {
            r->stream_excl_unknown = true;
            missing++;
        }
    }
    profile_warn(c->p,
                 "%s: rank %d: out-of-core: exclusive times need the rank's calls in memory (%s) "
                 "and they exceed the budget: the file's exclusive_totals are shown%s",
                 c->path, rk->rank, why, missing ? ", null where it has none" : "");
}

/* Pass 1's sweep (stream_one.c) when it swept exactly these rows in this
 * order: its totals, its lanes, and the early percentiles for finish_row
 * (a row they miss reads its own, as after a sweep that collected none). */
static bool one_take(sc_file *sf, rank_rows *rr, rank_data *rk, int64_t *excl)
{
    const sc_one *o = &sf->one;
    if (!o->ok || o->n != rr->n)
        return false;
    for (size_t j = 0; j < rr->n; j++)
        if (o->v[j] != rr->v[j])
            return false;
    memcpy(excl, o->excl, rr->n * sizeof *excl);
    rk->ninferred_lanes = o->nlanes;
    if (o->capped)
        profile_warn(rk->owner,
                     "%s: rank %d: calls overlap partly on more than %d inferred lanes; "
                     "the rest are drawn on the last lane",
                     rk->owner->path, rk->rank, 256);
    for (size_t j = 0; j < rr->n; j++) {
        sc_row *row = rr->v[j];
        if (row->early_on && row->n > 0 && !stream_early_apply(&row->early, &row->pct))
            stream_pct_free(&row->pct);
        stream_early_free(&row->early);
    }
    return true;
}

sv_err sc_rank_finish(ld_ctx *c, lc_file *lf, rank_data *rk, const size_t *rows, size_t n)
{
    sc_file *sf = lf->sc;
    sc_row **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return SV_ERR_NOMEM;
    for (size_t j = 0; j < n; j++)
        v[j] = sf->rows[rows[j]];
    sv_err e = sc_finish_rows(c, sf, rk, v, n);
    free(v);
    return e;
}

/* A preferred stream (load_sink.h LOAD_STREAM_PREFER) gives up rather than show stored
 * exclusive totals: the in-memory load it stands for would have nested the rank. */
static sv_err decline(sc_file *sf, int64_t *excl, rank_rows *rr)
{
    *sf->declined = true;
    free(excl);
    free(rr->v);
    return SV_ERR_NOMEM;
}

sv_err sc_finish_rows(ld_ctx *c, sc_file *sf, rank_data *rk, sc_row **v, size_t n)
{
    rank_rows rr;
    if (!gather(v, n, &rr))
        return SV_ERR_NOMEM;
    int64_t *excl = calloc(rr.n ? rr.n : 1, sizeof *excl);
    sv_err e = excl ? SV_OK : SV_ERR_NOMEM;
    const char *why = "";
    nest_how how = rr.n ? choose(sf, &rr, &why) : NEST_SWEEP;
    if (sf->declined && how == NEST_STORED)
        return decline(sf, excl, &rr);
    if (sf->stats_later && how != NEST_STORED) {
        free(excl); /* pass 2 is the full load's (load_sink.h stats_later) */
        free(rr.v);
        return e;
    }
    if (!e && rr.n && how == NEST_SWEEP && one_take(sf, &rr, rk, excl)) {
        for (size_t j = 0; !e && j < rr.n; j++) {
            rr.v[j]->r->st.exclusive_total_ns = excl[j];
            e = finish_row(sf, rr.v[j], rr.n);
        }
        sc_one_free(sf);
        free(excl);
        free(rr.v);
        return e;
    }
    sc_one_free(sf);
    /* Pass 2 collects what pass 1 did not keep (schema 1's long rows keep theirs when the
     * streaming sweep takes the rank: no durations to feed then). */
    for (size_t j = 0; j < rr.n; j++) {
        sc_row *row = rr.v[j];
        row->pct_early = how == NEST_SWEEP && row->early_on && row->n > 0 && !row->mem &&
                         stream_early_apply(&row->early, &row->pct);
        stream_early_free(&row->early);
    }
    if (!e && rr.n && how == NEST_LANES) {
        int64_t threads[LANE_PASSES_MAX];
        size_t nt = rank_threads(&rr, threads);
        e = nt ? lanes_rank(sf, &rr, rk, excl, threads, nt) : SV_ERR_RANGE;
        if (e == SV_ERR_RANGE) { /* not the common case after all: as any other */
            e = SV_OK;
            how =
                rr.calls * (7 * sizeof(int64_t) + 48) <= sf->budget / 2 ? NEST_MEMORY : NEST_STORED;
        }
    }
    if (sf->declined && how == NEST_STORED)
        return decline(sf, excl, &rr);
    if (!e && rr.n && how == NEST_SWEEP)
        e = sweep_rank(sf, &rr, rk, excl);
    else if (!e && rr.n && how == NEST_MEMORY)
        e = nest_in_memory(c, sf, &rr, rk, excl);
    else if (!e && rr.n && how == NEST_STORED)
        use_stored(c, &rr, rk, why);
    for (size_t j = 0; !e && j < rr.n; j++) {
        if (how != NEST_STORED)
            rr.v[j]->r->st.exclusive_total_ns = excl[j];
        e = finish_row(sf, rr.v[j], rr.n);
    }
    free(excl);
    free(rr.v);
    return e;
}
