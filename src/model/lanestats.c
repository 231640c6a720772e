/* lanestats: busy intervals of lane rows and per-lane statistics. */
#include "lanestats.h"

#include <stdlib.h>
#include <string.h>

#include "lanes_internal.h"
#include "region.h"
#include "util/checked.h"

static sv_err no_memory(sv_error *err)
{
    return sv_error_set(err, SV_ERR_NOMEM, "out of memory while measuring the lanes' load");
}

/* ------------------------------------------------------------- busy */

/* Reads a row's calls through the regions last found (lanes_hint): a
 * block's calls come from a few regions, so most reads skip
 * rank_call_region's search. */
typedef struct span_reader {
    const rank_data *rk;
    lanes_hint h;
    size_t reads; /* calls read (lane_busy_before_counted) */
} span_reader;

static void span_read(span_reader *sr, uint32_t g, int64_t *s, int64_t *e)
{
    size_t i = 0;
    sr->reads++;
    const region *r = lanes_hint_find(&sr->h, sr->rk, g, &i);
    *s = r ? r->start_ns[i] : 0;
    *e = r ? r->end_ns[i] : 0;
}

/* A row whose calls are their own union (none empty, each starting after
 * the previous one ends: touching calls merge) needs no interval arrays,
 * its block sums alone.  One pass reads the calls, checks that and sums
 * them: 1 done, 0 not such a row (out left empty), -1 out of memory. */
static int build_direct(const lane *ln, const lane_row *row, lane_busy *out)
{
    size_t nb = lanes_nblocks(row->n);
    out->bcum = malloc((nb + 1) * sizeof *out->bcum);
    if (!out->bcum)
        return -1;
    span_reader sr = {ln->rk, {{NULL}, 0}, 0};
    int64_t sum = 0, prev_e = INT64_MIN;
    for (size_t k = 0; k < row->n; k++) {
        if (k % LANES_BLOCK == 0)
            out->bcum[k / LANES_BLOCK] = sum;
        int64_t s, e;
        span_read(&sr, lane_row_call(row, k), &s, &e);
        if (e <= s || (k > 0 && s <= prev_e)) {
            free(out->bcum);
            out->bcum = NULL;
            return 0;
        }
        prev_e = e;
        sum = ck_add(sum, ck_sub(e, s));
    }
    out->bcum[nb] = sum;
    out->ln = ln;
    out->row = row;
    out->n = row->n;
    out->total = sum;
    return 1;
}

sv_err lane_busy_build(const lane *ln, const lane_row *row, lane_busy *out, sv_error *err)
{
    memset(out, 0, sizeof *out);
    int direct = row->n > 0 ? build_direct(ln, row, out) : 0;
    if (direct)
        return direct > 0 ? SV_OK : no_memory(err);
    size_t cap = row->n ? row->n : 1;
    out->s = malloc(cap * sizeof *out->s);
    out->e = malloc(cap * sizeof *out->e);
    out->cum = malloc((cap + 1) * sizeof *out->cum);
    if (!out->s || !out->e || !out->cum) {
        lane_busy_free(out);
        return no_memory(err);
    }
    /* Entries are sorted by start: one pass merges overlapping and
     * touching intervals. */
    span_reader sr = {ln->rk, {{NULL}, 0}, 0};
    size_t n = 0;
    for (size_t k = 0; k < row->n; k++) {
        int64_t s, e;
        span_read(&sr, lane_row_call(row, k), &s, &e);
        if (e <= s)
            continue;
        if (n > 0 && s <= out->e[n - 1]) {
            if (e > out->e[n - 1])
                out->e[n - 1] = e;
            continue;
        }
        out->s[n] = s;
        out->e[n] = e;
        n++;
    }
    out->n = n;
    out->cum[0] = 0;
    for (size_t k = 0; k < n; k++)
        out->cum[k + 1] = out->cum[k] + (out->e[k] - out->s[k]);
    out->total = out->cum[n];
    return SV_OK;
}

void lane_busy_free(lane_busy *b)
{
    free(b->s);
    free(b->e);
    free(b->cum);
    free(b->bcum);
    memset(b, 0, sizeof *b);
}

int64_t lane_busy_all(const lane_busy *b)
{
    return b && b->n ? b->total : 0;
}

static void busy_span(const lane_busy *b, span_reader *sr, size_t k, int64_t *s, int64_t *e)
{
    if (b->bcum) {
        span_read(sr, lane_row_call(b->row, k), s, e);
    } else {
        *s = b->s[k];
        *e = b->e[k];
    }
}

/* Total length of intervals [0, k). */
static int64_t busy_cum(const lane_busy *b, span_reader *sr, size_t k)
{
    if (!b->bcum)
        return b->cum[k];
    int64_t v = b->bcum[k / LANES_BLOCK];
    for (size_t j = k - k % LANES_BLOCK; j < k; j++) {
        int64_t s, e;
        span_read(sr, lane_row_call(b->row, j), &s, &e);
        v = ck_add(v, ck_sub(e, s));
    }
    return v;
}

/* First call of row starting at or after t: a binary search of the
 * row's block starts (a compact array), then of one block's calls. */
static size_t lower_start(const lane_row *row, span_reader *sr, int64_t t, size_t *hint)
{
    size_t nb = lanes_nblocks(row->n), lo = 0, hi = nb;
    if (hint && *hint > 0 && *hint <= nb && row->bstart[*hint - 1] < t) {
        /* Every block before the hint starts before t: gallop from it
         * (a row's cells are asked left to right, the next one close). */
        size_t step = 1;
        lo = hi = *hint;
        while (hi < nb && row->bstart[hi] < t) {
            lo = hi + 1;
            hi += step;
            step *= 2;
        }
        hi = hi < nb ? hi : nb;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (row->bstart[mid] >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (hint)
        *hint = lo;
    if (lo == 0)
        return 0;
    /* Call (lo-1)*B starts before t; the answer lies in ((lo-1)*B, lo*B]. */
    size_t a = (lo - 1) * LANES_BLOCK + 1, z = lo * LANES_BLOCK;
    z = z < row->n ? z : row->n;
    while (a < z) {
        size_t mid = a + (z - a) / 2;
        int64_t s, e;
        span_read(sr, lane_row_call(row, mid), &s, &e);
        if (s >= t)
            z = mid;
        else
            a = mid + 1;
    }
    return a;
}

/* First interval whose end is > t (n when none). */
static size_t first_ending_after(const lane_busy *b, span_reader *sr, int64_t t, size_t *hint)
{
    if (b->bcum) {
        /* The row is its own union (sorted, disjoint, none empty): every
         * call starting at or after t ends after it, and of those before
         * only the last may.  The row's block index finds the first. */
        size_t m = lower_start(b->row, sr, t, hint);
        if (m > 0) {
            int64_t s, e;
            span_read(sr, lane_row_call(b->row, m - 1), &s, &e);
            if (e > t)
                return m - 1;
        }
        return m;
    }
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t s, e;
        busy_span(b, sr, mid, &s, &e);
        if (e <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Busy time in (-inf, t); *reads += the calls read. */
static int64_t busy_before(const lane_busy *b, int64_t t, size_t *reads, size_t *hint)
{
    if (!b || b->n == 0)
        return 0;
    span_reader sr = {b->ln ? b->ln->rk : NULL, {{NULL}, 0}, 0};
    size_t k = first_ending_after(b, &sr, t, hint);
    int64_t v = busy_cum(b, &sr, k);
    if (k < b->n) {
        int64_t s, e;
        busy_span(b, &sr, k, &s, &e);
        if (s < t)
            v = ck_add(v, ck_sub(t, s));
    }
    if (reads)
        *reads += sr.reads;
    return v;
}

int64_t lane_busy_between(const lane_busy *b, int64_t t0, int64_t t1)
{
    if (!b || b->n == 0 || t1 <= t0)
        return 0;
    return busy_before(b, t1, NULL, NULL) - busy_before(b, t0, NULL, NULL);
}

int64_t lane_busy_before(const lane_busy *b, int64_t t)
{
    return busy_before(b, t, NULL, NULL);
}

int64_t lane_busy_before_from(const lane_busy *b, int64_t t, size_t *hint)
{
    return busy_before(b, t, NULL, hint);
}

int64_t lane_busy_before_counted(const lane_busy *b, int64_t t, size_t *reads)
{
    return busy_before(b, t, reads, NULL);
}

/* ------------------------------------------------------------ lanes */

/* Position of the region holding rank call g in rk->regions. */
static size_t region_pos(const rank_data *rk, uint32_t g)
{
    size_t lo = 0, hi = rk->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->regions[mid]->gidx0 <= g)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0 && g >= rk->regions[lo - 1]->gidx0 + rk->regions[lo - 1]->n)
        lo--;
    return lo > 0 ? lo - 1 : SIZE_MAX;
}

/* A lane holding every call of its rank (one thread, or a legacy rank):
 * its calls are the rank's, met in call order region by region, and the
 * children's families (grouped by parent in call order) are met in the
 * same order, so each call's exclusive time costs its children alone,
 * without a search per call (the lanes view's build on 10M calls). */
static void lane_scan_whole(const lane *ln, lane_stat *st, int64_t *excl)
{
    const rank_data *rk = ln->rk;
    const rank_calls *c = rk->calls;
    size_t nchild = c->child ? c->nchild : 0, k = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            size_t g = r->gidx0 + i;
            st->first = r->start_ns[i] < st->first ? r->start_ns[i] : st->first;
            st->last = r->end_ns[i] > st->last ? r->end_ns[i] : st->last;
            while (k < nchild && (size_t)c->parent[c->child[k]] < g)
                k++;
            size_t k0 = k;
            while (k < nchild && (size_t)c->parent[c->child[k]] == g)
                k++;
            excl[j] = ck_add(excl[j], rank_call_excl_kids(rk, r, i, c->child + k0, k - k0,
                                                          INT64_MIN, INT64_MAX));
        }
    }
}

/* Whether the lane's calls are every call of its rank, in regions that
 * tile the rank's call indices in order (lane_scan_whole). */
static bool lane_is_whole_rank(const lane *ln)
{
    const rank_data *rk = ln->rk;
    if (!rk->calls || rk->calls->n != rk->ncalls || ln->ncalls != rk->ncalls)
        return false;
    size_t g = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        if (rk->regions[j]->n && rk->regions[j]->gidx0 != g)
            return false;
        g += rk->regions[j]->n;
    }
    return g == rk->ncalls;
}

/* Calls, extent and busiest region over every row of the lane; excl is a
 * zeroed scratch array of rk->nregions entries, left zeroed. */
static void lane_scan(const lane *ln, lane_stat *st, int64_t *excl)
{
    const rank_data *rk = ln->rk;
    st->first = INT64_MAX;
    st->last = INT64_MIN;
    bool whole = lane_is_whole_rank(ln);
    if (whole)
        lane_scan_whole(ln, st, excl);
    for (uint32_t d = 0; whole && d < ln->ndepth; d++)
        st->calls += ln->rows[d].n;
    for (uint32_t d = 0; !whole && d < ln->ndepth; d++) {
        const lane_row *row = &ln->rows[d];
        for (size_t k = 0; k < row->n; k++) {
            uint32_t g = lane_row_call(row, k);
            int64_t s, e;
            lanes_call_span(rk, g, &s, &e);
            st->first = s < st->first ? s : st->first;
            st->last = e > st->last ? e : st->last;
            size_t j = region_pos(rk, g);
            if (j != SIZE_MAX && rk->calls)
                excl[j] = ck_add(excl[j], rank_call_excl(rk, g));
        }
        st->calls += row->n;
    }
    for (size_t j = 0; j < rk->nregions; j++) {
        if (excl[j] > st->busiest_excl || (!st->busiest && excl[j] > 0)) {
            st->busiest = rk->regions[j];
            st->busiest_excl = excl[j];
        }
        excl[j] = 0;
    }
    if (st->calls == 0)
        st->first = st->last = 0;
}

static int64_t top_awaited(const lane *ln)
{
    bool any = false;
    for (size_t j = 0; !any && j < ln->rk->nregions; j++)
        any = ln->rk->regions[j]->await_ns != NULL;
    if (ln->ndepth == 0 || !any) /* no region records awaited time */
        return 0;
    const lane_row *row = &ln->rows[0];
    int64_t sum = 0;
    const region *r = NULL;
    for (size_t k = 0; k < row->n; k++) {
        size_t i = 0, g = lane_row_call(row, k);
        /* Consecutive calls mostly share a region: tried before a search. */
        if (r && g >= r->gidx0 && g - r->gidx0 < r->n)
            i = g - r->gidx0;
        else
            r = rank_call_region(ln->rk, (int64_t)g, &i);
        if (r && r->await_ns && r->await_ns[i] > 0)
            sum = ck_add(sum, r->await_ns[i]);
    }
    return sum;
}

static size_t max_regions(const lanes_index *ix)
{
    size_t m = 1;
    for (size_t k = 0; k < ix->prof->nranks; k++)
        m = ix->prof->ranks[k].nregions > m ? ix->prof->ranks[k].nregions : m;
    return m;
}

/* The part of [t0, t1] a lane could have been busy in: a task's from its
 * creation to its end (still running at the end of the run: to t1), as the
 * task table says; every other lane's the whole span. */
void lanestats_window(const lane *ln, int64_t t0, int64_t t1, int64_t *a, int64_t *z)
{
    *a = t0;
    *z = t1;
    const task_table *t = &ln->rk->tasks;
    if (ln->kind != LANE_TASK || !ln->rk->has_tasks || ln->row < 0 || (size_t)ln->row >= t->n)
        return;
    if (t->created_ns && t->created_ns[ln->row] > t0)
        *a = t->created_ns[ln->row] < t1 ? t->created_ns[ln->row] : t1;
    if (t->done_ns && t->done_ns[ln->row] >= 0 && t->done_ns[ln->row] < t1)
        *z = t->done_ns[ln->row] > *a ? t->done_ns[ln->row] : *a;
}

/* Idle: the lane's window less the busy time inside it. */
static uint64_t lane_idle(const lanestats *ls, size_t l, const lane_stat *st)
{
    int64_t a, z;
    lanestats_window(&ls->ix->lanes[l], ls->t0, ls->t1, &a, &z);
    bool whole = a == ls->t0 && z == ls->t1;
    int64_t busy = whole                         ? st->busy
                   : ls->ix->lanes[l].ndepth > 0 ? lane_busy_between(&ls->top[l], a, z)
                                                 : 0;
    /* a <= z: their difference is exact in uint64 (it may pass INT64_MAX). */
    uint64_t span = (uint64_t)z - (uint64_t)a;
    return span > (uint64_t)busy ? span - (uint64_t)busy : 0;
}

sv_err lanestats_build(const lanes_index *ix, lanestats **out, sv_error *err)
{
    *out = NULL;
    lanestats *ls = calloc(1, sizeof *ls);
    size_t n = ix->nlanes;
    int64_t *excl = calloc(max_regions(ix), sizeof *excl);
    if (ls) {
        ls->ix = ix;
        ls->n = n;
        ls->st = calloc(n ? n : 1, sizeof *ls->st);
        ls->top = calloc(n ? n : 1, sizeof *ls->top);
        ls->t0 = ix->ncalls ? ix->t_min : 0;
        ls->t1 = ix->ncalls ? ix->t_max : 0;
    }
    if (!ls || !excl || !ls->st || !ls->top) {
        free(excl);
        lanestats_free(ls);
        return no_memory(err);
    }

    for (size_t l = 0; l < n; l++) {
        const lane *ln = &ix->lanes[l];
        lane_stat *st = &ls->st[l];
        st->lane = l;
        if (ln->ndepth > 0 && lane_busy_build(ln, &ln->rows[0], &ls->top[l], err) != SV_OK) {
            free(excl);
            lanestats_free(ls);
            return SV_ERR_NOMEM;
        }
        lane_scan(ln, st, excl);
        st->busy = lane_busy_all(&ls->top[l]);
        st->awaited = top_awaited(ln);
        st->awaited = st->awaited < st->busy ? st->awaited : st->busy;
        st->idle = lane_idle(ls, l, st);
    }
    free(excl);
    *out = ls;
    return SV_OK;
}

void lanestats_free(lanestats *ls)
{
    if (!ls)
        return;
    for (size_t l = 0; ls->top && l < ls->n; l++)
        lane_busy_free(&ls->top[l]);
    free(ls->top);
    free(ls->st);
    free(ls);
}

/* floor(span * b / n) without overflow: span = q*n + r. */
static uint64_t bin_edge(uint64_t span, int b, int n)
{
    return span / (uint64_t)n * (uint64_t)b + span % (uint64_t)n * (uint64_t)b / (uint64_t)n;
}

void lanestats_spark(const lanestats *ls, size_t l, int64_t t0, int64_t t1, int nbins, double *out)
{
    for (int b = 0; b < nbins; b++) {
        /* Bin edges by exact integer division, so the bins tile [t0, t1). */
        /* In uint64: t1 - t0 may pass INT64_MAX, each edge lies in [t0, t1]. */
        uint64_t span = t1 > t0 ? (uint64_t)t1 - (uint64_t)t0 : 0;
        int64_t a = (int64_t)((uint64_t)t0 + bin_edge(span, b, nbins));
        int64_t z = (int64_t)((uint64_t)t0 + bin_edge(span, b + 1, nbins));
        out[b] = z > a ? (double)lane_busy_between(&ls->top[l], a, z) / ck_diff_f64(z, a) : 0.0;
    }
}
