/* ooc_h5: ooc_open's pass over a streamed columnar file (ooc_h5.h).
 *
 * How each rank is done (the rank's rows with calls, pass 1's verdicts):
 * - no call ids and every row in (start, -end) order: swept (ooc_scan.h),
 *   windowable unless its inferred lanes leave no checkpoint;
 * - call ids, or a row out of order: its rows read whole into a scratch
 *   profile, nested by nest.c and indexed by lanes_build (the map then is
 *   the in-memory one exactly), when they fit half the budget; else every
 *   call at depth 0 of its thread / task lane (an approximate overview).
 *   Not windowable either way; the skeleton says so. */
#include "ooc_h5.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/filter.h"
#include "isolate/isolate.h"
#include "model/lanes.h"
#include "model/par.h"
#include "load/stream_col_internal.h"
#include "util/hooks.h"
#include "util/text.h"
#include "ooc_h5_internal.h"

#define OOC_CHUNK_MAX ((size_t)1 << 16)

static void meter_report(meter *m, bool always)
{
    uint64_t t = m->total ? m->total : 1;
    uint64_t d = m->done < t ? m->done : t;
    ooc_sweep s = m->last;
    /* calls below 2^50: the product fits */
    s.permyriad = (uint32_t)(d < ((uint64_t)1 << 50) ? d * 10000 / t : d / (t / 10000));
    bool news = always || s.permyriad / 10 != m->last.permyriad / 10;
    m->last = s;
    if (news && m->c->opt && m->c->opt->progress)
        m->c->opt->progress(m->c->opt->progress_ctx, OOC_SWEEP_MARK, ooc_sweep_pack(s));
}

void oh_meter_rank(meter *m, size_t k, size_t nr)
{
    m->last.rank = (uint32_t)(k + 1);
    m->last.nranks = (uint32_t)nr;
    meter_report(m, true);
}

static void meter_add(meter *m, size_t calls)
{
    if (!m || !m->total) /* not the sweep (plan's count of lane keys) */
        return;
    m->done += calls;
    meter_report(m, false);
}

static int cmp_rank(const void *a, const void *b)
{
    int x = ((const hrank *)a)->rk->rank, y = ((const hrank *)b)->rk->rank;
    return (x > y) - (x < y);
}

int oh_cmp_reg(const void *a, const void *b)
{
    return strcmp((*(region *const *)a)->name, (*(region *const *)b)->name);
}

bool oh_hrank_init(hrank *hr, rank_data *rk)
{
    size_t n = rk->nregions;
    hr->rk = rk;
    hr->regs = malloc((n ? n : 1) * sizeof *hr->regs);
    hr->rows = malloc((n ? n : 1) * sizeof *hr->rows);
    hr->reg = malloc((n ? n : 1) * sizeof *hr->reg);
    if (!hr->regs || !hr->rows || !hr->reg)
        return false;
    if (n)
        memcpy(hr->regs, rk->regions, n * sizeof *hr->regs);
    qsort(hr->regs, n, sizeof *hr->regs, oh_cmp_reg);
    return true;
}

size_t oh_reg_index(const hrank *hr, const char *name)
{
    size_t lo = 0, hi = hr->rk->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int k = strcmp(hr->regs[mid]->name, name);
        if (k == 0)
            return mid;
        if (k < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

static hrank *find_rank(hpass *hp, int rank)
{
    size_t lo = 0, hi = hp->nr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (hp->r[mid].rk->rank == rank)
            return &hp->r[mid];
        if (hp->r[mid].rk->rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ------------------------------------------------------------ sources */

struct prefetch;

typedef struct hsrc {
    sc_reader rd;
    /* With a reader thread (prefetch): the chunk the sweep takes (cur)
     * and the one read meanwhile (nxt), the reader's answer for it. */
    struct prefetch *pf;
    int64_t *cur[SC_NCOL], *nxt[SC_NCOL];
    bool full, ended, busy;
    bool failed; /* a read failed (not memory): the load says so */
    int k;
    uint64_t base;
    size_t len;
    meter *m; /* the pass's progress, or NULL */
    /* Pass 1 on every chunk the sweep takes (hrank.read): its state, and
     * the chunk's as the reader left it (ovf; pos after it). */
    sc_file *sf;
    sc_row *row;
    stream_acc acc;
    int64_t ps, pe;
    bool p1, eof;
    uint64_t pos;
    bool ovf;
    size_t ovf_at;
} hsrc;

/* Pass 1's work on the chunk the sweep takes (its columns: buf); false
 * when out of memory. */
static bool src_pass1(hsrc *x, int64_t *const *buf, size_t len, uint64_t pos, bool ovf,
                      size_t ovf_at)
{
    if (!x->p1)
        return true;
    sc_reader t;
    memset(&t, 0, sizeof t);
    memcpy(t.buf, buf, sizeof t.buf);
    t.sf = x->sf;
    t.row = x->row;
    t.len = len;
    t.pos = pos;
    t.ovf = ovf;
    t.ovf_at = ovf_at;
    return sc_pass1_chunk(x->sf, x->row, &t, &x->acc, &x->ps, &x->pe);
}

static int src_refill(void *vctx, ooc_src *src)
{
    hsrc *x = vctx;
    src->base = x->rd.pos;
    int k = sc_reader_next(&x->rd);
    x->failed |= k < 0;
    x->eof |= k == 0;
    if (k <= 0)
        return k;
    if (!src_pass1(x, x->rd.buf, x->rd.len, x->rd.pos, x->rd.ovf, x->rd.ovf_at)) {
        x->failed = true;
        return -1;
    }
    src->s = x->rd.buf[SC_START];
    src->e = x->rd.buf[SC_END];
    src->thr = x->rd.buf[SC_THREAD];
    src->task = x->rd.buf[SC_TASK];
    src->await = x->rd.buf[SC_AWAIT];
    src->gpu = x->rd.buf[SC_GPU];
    src->ids = x->rd.buf[SC_CALL];
    src->len = x->rd.len;
    meter_add(x->m, x->rd.len);
    return 1;
}

/* ------------------------------------------------------------ reader thread */

/* Both cores: a thread reads and decodes every row's next chunk
 * while the sweep takes the current one.  Only that thread calls libhdf5
 * during the sweep; it is not used in-process (the load's progress
 * callback is the caller's, for its own thread) nor with one thread. */
typedef struct prefetch {
    pthread_mutex_t mu;
    pthread_cond_t need, ready;
    hsrc *x;
    size_t n, next;
    bool stop;
    pthread_t th;
} prefetch;

static hsrc *pf_pick(prefetch *pf)
{
    for (size_t i = 0; i < pf->n; i++) {
        hsrc *w = &pf->x[(pf->next + i) % pf->n];
        if (!w->full && !w->ended && !w->busy) {
            pf->next = (pf->next + i + 1) % pf->n;
            return w;
        }
    }
    return NULL;
}

static void *pf_main(void *arg)
{
    prefetch *pf = arg;
    pthread_mutex_lock(&pf->mu);
    for (;;) {
        hsrc *w = NULL;
        while (!pf->stop && !(w = pf_pick(pf)))
            pthread_cond_wait(&pf->need, &pf->mu);
        if (pf->stop)
            break;
        w->busy = true;
        pthread_mutex_unlock(&pf->mu);
        for (int c = 0; c < SC_NCOL; c++)
            w->rd.buf[c] = w->nxt[c];
        uint64_t base = w->rd.pos;
        int k = sc_reader_next(&w->rd);
        pthread_mutex_lock(&pf->mu);
        w->busy = false;
        w->full = true;
        w->ended = k <= 0;
        w->k = k;
        w->base = base;
        w->len = w->rd.len;
        w->pos = w->rd.pos;
        w->ovf = w->rd.ovf;
        w->ovf_at = w->rd.ovf_at;
        pthread_cond_broadcast(&pf->ready);
    }
    pthread_mutex_unlock(&pf->mu);
    return NULL;
}

static int pf_refill(void *vctx, ooc_src *src)
{
    hsrc *w = vctx;
    prefetch *pf = w->pf;
    pthread_mutex_lock(&pf->mu);
    while (!w->full)
        pthread_cond_wait(&pf->ready, &pf->mu);
    int k = w->k;
    w->failed |= k < 0;
    w->eof |= k == 0;
    uint64_t pos = w->pos; /* the reader thread's until the lock is let go */
    bool ovf = w->ovf;
    size_t ovf_at = w->ovf_at;
    src->base = w->base;
    src->len = k > 0 ? w->len : 0;
    for (int c = 0; c < SC_NCOL; c++) { /* the chunk read becomes the sweep's */
        int64_t *t = w->cur[c];
        w->cur[c] = w->nxt[c];
        w->nxt[c] = t;
    }
    w->full = false;
    pthread_cond_signal(&pf->need);
    pthread_mutex_unlock(&pf->mu);
    if (k <= 0)
        return k;
    if (!src_pass1(w, w->cur, src->len, pos, ovf,
                   ovf_at)) { /* the reader thread reads the next meanwhile */
        w->failed = true;
        return -1;
    }
    src->s = w->cur[SC_START];
    src->e = w->cur[SC_END];
    src->thr = w->cur[SC_THREAD];
    src->task = w->cur[SC_TASK];
    meter_add(w->m, src->len);
    src->await = w->cur[SC_AWAIT];
    src->gpu = w->cur[SC_GPU];
    src->ids = w->cur[SC_CALL];
    return 1;
}

/* The second set of buffers and the thread; false: read on this thread. */
static bool pf_start(prefetch *pf, hsrc *x, ooc_src *srcs, size_t n)
{
    memset(pf, 0, sizeof *pf);
    if (isolate_disabled() || par_threads() < 2 || n == 0)
        return false;
    for (size_t j = 0; j < n; j++)
        memcpy(x[j].cur, x[j].rd.buf, sizeof x[j].cur);
    for (size_t j = 0; j < n; j++)
        for (int c = 0; c < SC_NCOL; c++)
            if (x[j].rd.buf[c] && !(x[j].nxt[c] = malloc(x[j].rd.cap * sizeof(int64_t))))
                return false;
    pf->x = x;
    pf->n = n;
    pthread_mutex_init(&pf->mu, NULL);
    pthread_cond_init(&pf->need, NULL);
    pthread_cond_init(&pf->ready, NULL);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, PAR_STACK_BYTES);
    bool ok = pthread_create(&pf->th, &at, pf_main, pf) == 0;
    pthread_attr_destroy(&at);
    if (!ok) {
        pthread_mutex_destroy(&pf->mu);
        pthread_cond_destroy(&pf->need);
        pthread_cond_destroy(&pf->ready);
        pf->n = 0;
        return false;
    }
    for (size_t j = 0; j < n; j++) {
        x[j].pf = pf;
        srcs[j].refill = pf_refill;
    }
    return true;
}

static void pf_stop(prefetch *pf)
{
    if (!pf->n)
        return;
    pthread_mutex_lock(&pf->mu);
    pf->stop = true;
    pthread_cond_broadcast(&pf->need);
    pthread_mutex_unlock(&pf->mu);
    pthread_join(pf->th, NULL);
    pthread_mutex_destroy(&pf->mu);
    pthread_cond_destroy(&pf->need);
    pthread_cond_destroy(&pf->ready);
    pf->n = 0;
}

static unsigned lane_cols(const sc_row *row)
{
    return row->keep & (1u << SC_THREAD | 1u << SC_TASK);
}

/* The columns a sink or an export's hook reads beside them (ooc_scan.aux,
 * ooc_sink_hook.aux): only those the row has. */
static unsigned aux_cols(const sc_row *row)
{
    return row->keep & (1u << SC_AWAIT | 1u << SC_GPU);
}

/* Readers of the rank's rows (lane columns as kept); false on NOMEM.
 * sets: chunk buffers per reader (2 with a reader thread). */
static bool open_srcs(hpass *hp, const hrank *hr, ooc_src *srcs, hsrc *x, size_t sets)
{
    size_t cap = stream_chunk_len(hp->sf->budget, sets * hr->nrows, hr->read ? SC_NCOL + 1 : 4);
    /* chunks that stay in the caches between the read, the decode and the
     * sweep (SCOPEVIEW_STREAM_CHUNK's small test values pass) */
    cap = cap < OOC_CHUNK_MAX ? cap : OOC_CHUNK_MAX;
    for (size_t j = 0; j < hr->nrows; j++) {
        bool want = hp->h->sc.aux || (hp->h->hook && hp->h->hook->aux);
        unsigned aux = want ? aux_cols(hr->rows[j]) : 0;
        if (hp->h->hook && hp->h->hook->ids)
            aux |= hr->rows[j]->keep & 1u << SC_CALL;
        unsigned cols = hr->read ? hr->rows[j]->open : 3u | lane_cols(hr->rows[j]) | aux;
        if (!sc_reader_init(&x[j].rd, hp->sf, hr->rows[j], cols, cap, false))
            return false;
        if (hr->read) { /* pass 1's checks and statistics on the chunks read */
            x[j].sf = hp->sf;
            x[j].row = hr->rows[j];
            x[j].p1 = true;
            if (!stream_acc_init(&x[j].acc))
                return false;
            sc_pass1_begin(hr->rows[j]);
        }
        x[j].m = &hp->m;
        srcs[j] =
            (ooc_src){.reg = hr->reg[j], .n = hr->rows[j]->n, .refill = src_refill, .ctx = &x[j]};
    }
    return true;
}

static void close_srcs(hsrc *x, size_t n)
{
    for (size_t j = 0; x && j < n; j++) {
        if (x[j].p1)
            stream_acc_free(&x[j].acc);
        if (x[j].pf || x[j].nxt[SC_START]) { /* the buffers are cur and nxt */
            for (int c = 0; c < SC_NCOL; c++) {
                free(x[j].cur[c]);
                free(x[j].nxt[c]);
                x[j].rd.buf[c] = NULL;
            }
        }
        sc_reader_free(&x[j].rd);
    }
    free(x);
}

/* Whether the map keeps row j's calls (ooc_h5.filter). */
bool oh_row_kept(const hpass *hp, const hrank *hr, size_t j)
{
    const region_filter *f = hp->h->filter;
    const char *name = hr->names ? hr->names[j] : hr->rows[j]->r->name;
    return !f || (filter_match_rank(f, hr->rk->rank) && filter_match_name(f, name));
}

/* ------------------------------------------------------------ modes */

void oh_choose(hpass *hp, hrank *hr)
{
    bool ids = true, sorted = true;
    unsigned ncols = 2, aux = 0;
    for (size_t j = 0; j < hr->nrows; j++) {
        const sc_row *row = hr->rows[j];
        aux |= aux_cols(row); /* read for the call paths' Await and GPU (ooc_sinks.c) */
        ids &= (row->keep & (1u << SC_CALL)) && (row->keep & (1u << SC_PARENT));
        hr->lanes |= lane_cols(row) != 0;
        sorted &= row->in_order;
    }
    hr->ids = ids && hr->nrows;
    ncols += hr->ids ? 2 : 0;
    ncols += hr->lanes ? 2 : 0;
    ncols += (aux >> SC_AWAIT & 1u) + (aux >> SC_GPU & 1u);
    if (!hr->nrows)
        hr->mode = M_NONE;
    else if (!hr->ids && sorted)
        hr->mode = M_SWEEP;
    else /* the columns, nest.c's keys and parents, the lanes' rows */
        hr->mode = hr->calls * (ncols * 8 + 64) <= hp->sf->budget / 2 ? M_MEMORY : M_FLAT;
}

/* Distinct lanes.h keys of a rank with lane columns (one pass over them
 * when a row has tasks; else the threads pass 1 listed). */
static int count_keys(hpass *hp, const hrank *hr, size_t *n)
{
    ooc_keyset ks = {0};
    bool tasks = false, ok = true;
    for (size_t j = 0; j < hr->nrows; j++)
        tasks |= oh_row_kept(hp, hr, j) && (hr->rows[j]->keep & (1u << SC_TASK)) != 0;
    for (size_t j = 0; ok && !tasks && j < hr->nrows; j++) {
        const region *r = hr->rows[j]->r;
        if (!oh_row_kept(hp, hr, j))
            continue;
        if (!(hr->rows[j]->keep & (1u << SC_THREAD)))
            ok = ooc_keyset_add(&ks, -1, -1);
        for (size_t i = 0; ok && (hr->rows[j]->keep & (1u << SC_THREAD)) && i < r->stream_nthreads;
             i++)
            ok = ooc_keyset_add(&ks, r->stream_threads[i], -1);
    }
    int rc = ok ? 0 : -1;
    hsrc *x = tasks ? calloc(hr->nrows, sizeof *x) : NULL;
    ooc_src *srcs = tasks ? calloc(hr->nrows, sizeof *srcs) : NULL;
    if (tasks && (!x || !srcs || !open_srcs(hp, hr, srcs, x, 1)))
        rc = -1;
    for (size_t j = 0; tasks && rc == 0 && j < hr->nrows; j++) {
        int k = 0;
        if (!oh_row_kept(hp, hr, j))
            continue;
        while (rc == 0 && (k = src_refill(&x[j], &srcs[j])) == 1)
            for (size_t i = 0; i < srcs[j].len; i++)
                if (!ooc_keyset_add(&ks, srcs[j].thr ? srcs[j].thr[i] : -1,
                                    srcs[j].task ? srcs[j].task[i] : -1)) {
                    rc = -1;
                    break;
                }
        if (k < 0)
            rc = -1;
    }
    if (tasks)
        close_srcs(x, hr->nrows);
    free(srcs);
    *n = ks.n;
    ooc_keyset_free(&ks);
    return rc;
}

/* The rank's rows whole in a one-rank profile, nested and indexed. */
static sv_err scratch(hpass *hp, const hrank *hr, profile **out, lanes_index **ix)
{
    profile *tp = profile_new(hp->c->p->path);
    rank_data *trk = tp ? profile_add_rank(tp, hr->rk->rank) : NULL;
    sv_err e = trk ? SV_OK : SV_ERR_NOMEM;
    *out = tp;
    size_t cap = stream_chunk_len(hp->sf->budget, 1, SC_NCOL);
    for (size_t j = 0; !e && j < hr->nrows; j++) {
        const sc_row *row = hr->rows[j];
        region *t = rank_add_region(trk, row->r->name);
        unsigned want = 3u | lane_cols(row) | (hr->ids ? 1u << SC_CALL | 1u << SC_PARENT : 0);
        want |= hp->h->sc.aux || (hp->h->hook && hp->h->hook->aux) ? aux_cols(row) : 0;
        /* an export's hook writes these of a rank done in memory too (ooc_scan_add_lanes) */
        want |= hp->h->hook && hp->h->hook->aux ? aux_cols(row) : 0;
        int64_t **dst[SC_NCOL] = {NULL};
        if (t) {
            int64_t **d[SC_NCOL] = {&t->start_ns,   &t->end_ns,     &t->gpu_ns,   &t->call_ids,
                                    &t->parent_ids, &t->thread_ids, &t->task_ids, &t->await_ns};
            memcpy(dst, d, sizeof d);
            t->has_event_data = true;
            t->n = (size_t)row->n;
        }
        sc_reader rd;
        if (!t || !sc_reader_init(&rd, hp->sf, row, want, cap, false)) {
            if (t)
                sc_reader_free(&rd);
            e = SV_ERR_NOMEM;
            break;
        }
        for (int k = 0; !e && k < SC_NCOL; k++)
            if ((rd.want & (1u << k)) && dst[k] && !(*dst[k] = malloc((t->n ? t->n : 1) * 8)))
                e = SV_ERR_NOMEM;
        int k = 0;
        for (size_t at = 0; !e && (k = sc_reader_next(&rd)) == 1; at += rd.len)
            for (int q = 0; q < SC_NCOL; q++)
                if ((rd.want & (1u << q)) && dst[q])
                    memcpy(*dst[q] + at, rd.buf[q], rd.len * sizeof(int64_t));
        if (!e && k < 0)
            e = SV_ERR_FORMAT;
        sc_reader_free(&rd);
    }
    sv_error err;
    ld_progress(hp->c); /* the loading child's watchdog: each step is news */
    if (!e)
        e = profile_finish_steps(tp, false, true, &err);
    ld_progress(hp->c);
    if (!e)
        e = lanes_build(tp, hp->h->filter, ix, &err);
    ld_progress(hp->c);
    return e;
}

static sv_err memory_rank(hpass *hp, const hrank *hr, size_t ri, bool count)
{
    profile *tp = NULL;
    lanes_index *ix = NULL;
    sv_err e = scratch(hp, hr, &tp, &ix);
    const rank_data *trk = tp && tp->nranks ? &tp->ranks[0] : NULL;
    uint32_t *regmap = !e && trk ? malloc((trk->nregions + 1) * sizeof *regmap) : NULL;
    if (!e && !regmap)
        e = SV_ERR_NOMEM;
    for (size_t j = 0; !e && j < trk->nregions; j++)
        regmap[j] = (uint32_t)oh_reg_index(hr, trk->regions[j]->name);
    ooc_seek ref = {0};
    if (!e && count)
        ((hrank *)hr)->nlanes = ix->rank_lane0[1] - ix->rank_lane0[0];
    else if (!e && (!ooc_scan_feed_lanes(&hp->h->sc, ri, ix, 0, regmap) ||
                    !ooc_seek_from_profile(tp, &ref) ||
                    !ooc_scan_take_seek(&hp->h->sc, ri, &ref, 0, regmap)))
        e = SV_ERR_NOMEM;
    ooc_seek_free(&ref);
    free(regmap);
    lanes_free(ix);
    profile_free(tp);
    return e;
}

/* The rank's inferred lanes, unless its load left them to the statistics
 * (load_sink.h stats_later: pass 2 finds them). */
static uint32_t lanes_known(const hpass *hp, const hrank *hr)
{
    return hp->sf->stats_later ? OOC_SCAN_LANES_UNKNOWN : hr->rk->ninferred_lanes;
}

/* A rank read with pass 1 (hrank.read): each row's pass 1 finished when
 * every row was read to its end (*whole), else left for the load. */
static bool read_end(const hrank *hr, hsrc *x, int rc)
{
    bool whole = rc == 0;
    for (size_t j = 0; j < hr->nrows; j++)
        whole &= x[j].eof && !x[j].failed;
    for (size_t j = 0; whole && j < hr->nrows; j++)
        sc_pass1_end(hr->rows[j], &x[j].rd, &x[j].acc, 0);
    return whole;
}

/* Rank ri's rows swept (whole: NULL; else a rank read with pass 1, which
 * says whether all of it was, a row out of order or a read failure
 * leaving it to the load). */
sv_err oh_stream_rank(hpass *hp, const hrank *hr, size_t ri, bool *whole)
{
    hsrc *x = calloc(hr->nrows ? hr->nrows : 1, sizeof *x);
    ooc_src *srcs = calloc(hr->nrows ? hr->nrows : 1, sizeof *srcs);
    prefetch pf;
    memset(&pf, 0, sizeof pf);
    int rc = x && srcs && open_srcs(hp, hr, srcs, x, 2) ? 0 : -1;
    for (size_t j = 0; rc == 0 && j < hr->nrows; j++)
        srcs[j].skip = !oh_row_kept(hp, hr, j);
    if (rc == 0 && !pf_start(&pf, x, srcs, hr->nrows))
        pf.n = 0; /* read on this thread */
    if (rc == 0 && hr->mode == M_SWEEP)
        rc = ooc_scan_rank(&hp->h->sc, ri, srcs, hr->nrows, hr->lanes, lanes_known(hp, hr));
    else if (rc == 0)
        rc = ooc_scan_flat(&hp->h->sc, ri, srcs, hr->nrows);
    pf_stop(&pf);
    bool failed = false;
    for (size_t j = 0; x && j < hr->nrows; j++)
        failed |= x[j].failed;
    if (whole)
        *whole = x && srcs && read_end(hr, x, rc);
    close_srcs(x, hr->nrows);
    free(srcs);
    if (whole && (rc == -2 || failed))
        return SV_OK;       /* the load's pass 1 reads it (a failed read is its to report) */
    if (rc == -2 || failed) /* the file changed since pass 1, or a fault of this code */
        return SV_ERR_FORMAT;
    return rc ? SV_ERR_NOMEM : SV_OK;
}

/* ------------------------------------------------------------ the pass */

static bool note_nw(ooc_h5 *h, int rank, const char *why)
{
    int *r = realloc(h->nw_rank, (h->nnw + 1) * sizeof *r);
    if (r)
        h->nw_rank = r;
    const char **w = r ? realloc(h->nw_why, (h->nnw + 1) * sizeof *w) : NULL;
    if (!w)
        return false;
    h->nw_why = w;
    h->nw_rank[h->nnw] = rank;
    h->nw_why[h->nnw++] = why;
    return true;
}

static sv_err gather(hpass *hp, lc_file *lf)
{
    profile *p = hp->c->p;
    hp->nr = p->nranks;
    hp->r = calloc(p->nranks ? p->nranks : 1, sizeof *hp->r);
    if (!hp->r)
        return SV_ERR_NOMEM;
    for (size_t k = 0; k < p->nranks; k++)
        if (!oh_hrank_init(&hp->r[k], &p->ranks[k]))
            return SV_ERR_NOMEM;
    qsort(hp->r, hp->nr, sizeof *hp->r, cmp_rank);
    for (size_t j = 0; j < lf->nkept; j++) {
        size_t i = lf->order[j];
        sc_row *row = hp->sf->rows ? hp->sf->rows[i] : NULL;
        hrank *hr = row && row->r && row->n ? find_rank(hp, lf->ix.rank[i]) : NULL;
        size_t ri = hr ? oh_reg_index(hr, row->r->name) : SIZE_MAX;
        if (!hr || ri == SIZE_MAX || hr->regs[ri] != row->r || hr->nrows == hr->rk->nregions)
            continue; /* dropped at the verdict: not in the skeleton */
        hr->rows[hr->nrows] = row;
        hr->reg[hr->nrows++] = (uint32_t)ri;
        hr->calls += row->n;
    }
    return SV_OK;
}

/* The skeleton's indices, kept for ooc_h5_check. */
static sv_err note_indices(hpass *hp)
{
    ooc_h5 *h = hp->h;
    h->nranks = hp->nr;
    h->rank_no = calloc(hp->nr + 1, sizeof *h->rank_no);
    h->regs = calloc(hp->nr + 1, sizeof *h->regs);
    h->nregs = calloc(hp->nr + 1, sizeof *h->nregs);
    if (!h->rank_no || !h->regs || !h->nregs)
        return SV_ERR_NOMEM;
    for (size_t k = 0; k < hp->nr; k++) {
        h->rank_no[k] = hp->r[k].rk->rank;
        h->nregs[k] = hp->r[k].rk->nregions;
        h->regs[k] = (const void **)hp->r[k].regs;
        hp->r[k].regs = NULL;
    }
    return SV_OK;
}

/* Rank hr's mode, its share of the grid's span (t_min > t_max: no call
 * the map keeps) and of its lane hint. */
sv_err oh_plan_rank(hpass *hp, hrank *hr, int64_t *t_min, int64_t *t_max, size_t *nlanes)
{
    *t_min = INT64_MAX;
    *t_max = INT64_MIN;
    oh_choose(hp, hr);
    bool kept = false; /* a row the map keeps */
    for (size_t j = 0; j < hr->nrows; j++) {
        const region_stats *st = &hr->rows[j]->r->st;
        if (!oh_row_kept(hp, hr, j))
            continue;
        kept = true;
        *t_min = st->first_start_ns < *t_min ? st->first_start_ns : *t_min;
        *t_max = st->last_end_ns > *t_max ? st->last_end_ns : *t_max;
    }
    sv_err e = SV_OK;
    if (hr->mode == M_MEMORY)
        e = memory_rank(hp, hr, 0, true);
    else if (!kept || hr->mode == M_NONE)
        hr->nlanes = 0;
    else if (hr->lanes)
        e = count_keys(hp, hr, &hr->nlanes) ? SV_ERR_NOMEM : SV_OK;
    else /* a sweep adds its further inferred lanes (ooc_scan.h) */
        hr->nlanes = 1;
    *nlanes = hr->nlanes;
    return e;
}

/* The grid's span and lane hint over the ranks from `from` on. */
static sv_err plan(hpass *hp, size_t from, int64_t *t_min, int64_t *t_max, size_t *nlanes)
{
    *t_min = INT64_MAX;
    *t_max = INT64_MIN;
    *nlanes = 0;
    for (size_t k = from; k < hp->nr; k++) {
        int64_t a, b;
        size_t nl;
        sv_err e = oh_plan_rank(hp, &hp->r[k], &a, &b, &nl);
        if (e)
            return e;
        *t_min = a < *t_min ? a : *t_min;
        *t_max = b > *t_max ? b : *t_max;
        *nlanes += nl;
    }
    return SV_OK;
}

/* The span of the calls the map keeps, as plan finds it (no mode chosen). */
void oh_span_of(const hpass *hp, int64_t *t_min, int64_t *t_max)
{
    *t_min = INT64_MAX;
    *t_max = INT64_MIN;
    for (size_t k = 0; k < hp->nr; k++)
        for (size_t j = 0; j < hp->r[k].nrows; j++) {
            const region_stats *st = &hp->r[k].rows[j]->r->st;
            if (!oh_row_kept(hp, &hp->r[k], j))
                continue;
            *t_min = st->first_start_ns < *t_min ? st->first_start_ns : *t_min;
            *t_max = st->last_end_ns > *t_max ? st->last_end_ns : *t_max;
        }
}

/* Test hook (SCOPEVIEW_TEST_OVERVIEW=stop): the loading child stops
 * (SIGSTOP) as the pass begins, its first report out (the ticker drops a
 * record sent within 100 ms of the last one), so the viewer's early frame
 * and its quitting can be checked while the pass never ends. */
void oh_test_stop(const hpass *hp, size_t k)
{
    if (k != 0 || isolate_disabled() || !hook_is(HOOK_TEST_OVERVIEW, "stop"))
        return;
    struct timespec ts = {0, 150 * 1000 * 1000};
    nanosleep(&ts, NULL);
    meter m = hp->m;
    meter_report(&m, true);
    raise(SIGSTOP);
}

/* Rank k (hr, its mode chosen) into the scan, and a part when due. */
sv_err oh_sweep_rank(hpass *hp, const hrank *hr, size_t k)
{
    sv_err e = SV_OK;
    uint64_t before = hp->m.done;
    hp->rank_before = before;
    oh_meter_rank(&hp->m, k, hp->nr);
    oh_test_stop(hp, k);
    if (hr->mode == M_NONE)
        e = ooc_scan_rank_entry(&hp->h->sc, k, INT64_MAX, true) ? SV_OK : SV_ERR_NOMEM;
    else if (hr->mode == M_MEMORY)
        e = memory_rank(hp, hr, k, false);
    else
        e = oh_stream_rank(hp, hr, k, NULL);
    return e ? e : oh_rank_swept(hp, hr, k, before);
}

/* Rank k is in the scan: its note if its windows are off, its calls
 * counted from before on, a part when due. */
sv_err oh_rank_swept(hpass *hp, const hrank *hr, size_t k, uint64_t before)
{
    sv_err e = SV_OK;
    const char *why = NULL;
    if (hr->mode == M_FLAT)
        why = hr->ids ? "its nesting comes from call ids and its calls exceed the budget; "
                        "the overview shows every call at depth 0"
                      : "a row is not in start order and the rank's calls exceed the budget; "
                        "the overview shows every call at depth 0";
    else if (!e && !hp->h->sc.seek.ranks[k].windowable)
        why = "its call ids fell back to inference, or a parent starts after its child";
    if (!e && why && !note_nw(hp->h, hr->rk->rank, why))
        e = SV_ERR_NOMEM;
    hp->m.done = before + hr->calls; /* a rank read whole counts at its end */
    ooc_part_src part = {&hp->h->sc, k + 1, hp->nr, false, 0, hp->m.done, hp->m.total};
    if (!e) /* ranks 0..k are final in the map: the viewer may draw them */
        ooc_parts_offer(&hp->h->parts, &part);
    return e;
}

/* The ranks from `from` on (those before it swept early, their calls counted). */
static sv_err run(hpass *hp, size_t from)
{
    sv_err e = SV_OK;
    hp->m.c = hp->c;
    hp->m.done = 0;
    hp->m.total = 0;
    for (size_t k = 0; k < hp->nr; k++) {
        hp->m.total += hp->r[k].calls;
        hp->m.done += k < from ? hp->r[k].calls : 0;
    }
    for (size_t k = from; !e && k < hp->nr; k++)
        e = oh_sweep_rank(hp, &hp->r[k], k);
    if (!e && hp->nr)
        meter_report(&hp->m, true);
    return e;
}

/* The sweep of rank k is at t (ooc_scan.h tick): ranks before k and rank
 * k's calls starting before t are in the map, a part when due. */
void oh_parts_tick(void *ctx, const ooc_scan *sc, size_t k, int64_t t, uint64_t swept)
{
    hpass *hp = ctx;
    ooc_part_src part = {sc, k, hp->nr, true, t, hp->rank_before + swept, hp->m.total};
    ooc_parts_offer(&hp->h->parts, &part);
}

/* ------------------------------------------------------------ the hook's view */

static int view_rank_no(const void *ctx, size_t k)
{
    return ((const hpass *)ctx)->r[k].rk->rank;
}

static size_t view_nregs(const void *ctx, size_t k)
{
    return ((const hpass *)ctx)->r[k].rk->nregions;
}

static const char *view_reg_name(const void *ctx, size_t k, uint32_t j)
{
    return ((const hpass *)ctx)->r[k].regs[j]->name;
}

bool oh_zero_of(const hpass *hp, int64_t *zero)
{
    bool has = false;
    *zero = 0;
    for (size_t k = 0; k < hp->nr; k++)
        for (size_t j = 0; j < hp->r[k].rk->nregions; j++) {
            const region *r = hp->r[k].regs[j];
            if (!r->has_event_data || r->st.num_calls <= 0)
                continue;
            if (!has || r->st.first_start_ns < *zero)
                *zero = r->st.first_start_ns;
            has = true;
        }
    return has;
}

/* The caller's sink (ooc_h5.hook), with the time zero finish.c will give. */
static bool attach_hook(hpass *hp)
{
    const ooc_sink_hook *hk = hp->h->hook;
    if (!hk)
        return true;
    ooc_sweep_view v = {hp,    hp->nr, view_rank_no,  view_nregs, view_reg_name,
                        false, 0,      &hp->h->sc.map};
    v.has_zero = oh_zero_of(hp, &v.zero);
    return hk->attach(hk->ctx, &hp->h->sc, &v);
}

/* ------------------------------------------------------------ the file's end */

static sv_err file_end(ooc_h5 *h, ld_ctx *c, lc_file *lf)
{
    if (h->ran) {
        profile_warn(c->p, "%s: out-of-core: only the first file of a set is mapped", c->path);
        return SV_OK;
    }
    h->ran = true;
    snprintf(h->path, sizeof h->path, "%s", c->path);
    hpass hp = {h, c, lf->sc, NULL, 0, {0}, 0};
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    size_t nlanes = 0;
    sv_err e = gather(&hp, lf);
    size_t from = e ? 0 : oh_early_kept(h, &hp);
    if (!e)
        e = plan(&hp, from, &t0, &t1, &nlanes);
    if (!e && from) { /* the grid grown to the whole file's */
        h->sc.hint += nlanes;
        if (!oh_scan_grow(&h->sc, t0, t1))
            e = SV_ERR_NOMEM;
    } else if (!e && (!ooc_scan_init(&h->sc, t0, t1, nlanes, h->map_cells) ||
                      !ooc_sinks_attach(&h->sc, h->budget))) {
        e = SV_ERR_NOMEM;
    }
    if (!e && !from && !attach_hook(&hp))
        e = SV_ERR_NOMEM;
    if (h->parts.on) { /* parts within a rank too: a file of one rank fills in as well */
        h->sc.tick = oh_parts_tick;
        h->sc.tick_ctx = &hp;
    }
    if (!e)
        e = run(&hp, from);
    if (!e)
        e = note_indices(&hp);
    ooc_parts_close(&h->parts); /* the whole overview follows */
    h->sc.tick = NULL;
    for (size_t k = 0; hp.r && k < hp.nr; k++) {
        free(hp.r[k].regs);
        free(hp.r[k].rows);
        free(hp.r[k].reg);
    }
    free(hp.r);
    if (e == SV_ERR_FORMAT)
        snprintf(h->sc.why, sizeof h->sc.why, "%s",
                 h->sc.why[0] ? h->sc.why : "a read failed while mapping the calls");
    return e;
}

sv_err ooc_h5_streamed(void *ctx, ld_ctx *c, lc_file *lf, load_pass_at *at)
{
    ooc_h5 *h = ctx;
    sv_err e = at->when == LOAD_PASS_READ   ? oh_early_read(h, c, lf, at)
               : at->when == LOAD_PASS_RANK ? oh_early_rank(h, c, lf, at->rk, at->rows, at->n)
                                            : file_end(h, c, lf);
    if (e == SV_ERR_FORMAT && at->when != LOAD_PASS_END)
        snprintf(h->sc.why, sizeof h->sc.why, "%s",
                 h->sc.why[0] ? h->sc.why : "a read failed while mapping the calls");
    return e;
}

bool ooc_h5_check(const ooc_h5 *h, const profile *p)
{
    if (h->nranks != p->nranks)
        return false;
    for (size_t k = 0; k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (h->rank_no[k] != rk->rank || h->nregs[k] != rk->nregions)
            return false;
        for (size_t j = 0; j < rk->nregions; j++)
            if (h->regs[k][j] != (const void *)rk->regions[j])
                return false;
    }
    return true;
}

void ooc_h5_free(ooc_h5 *h)
{
    ooc_scan_free(&h->sc);
    oh_early_free(h->early);
    for (size_t k = 0; h->regs && k < h->nranks; k++)
        free(h->regs[k]);
    free(h->regs);
    free(h->nregs);
    free(h->rank_no);
    free(h->nw_rank);
    free(h->nw_why);
    memset(h, 0, sizeof *h);
}
