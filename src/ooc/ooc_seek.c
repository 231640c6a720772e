/* ooc_seek: the seek index of an out-of-core file (ooc.h) computed from a
 * whole in-memory profile: the reference the streaming scan of ooc_open
 * must equal, and the tests' stand-in for it.  Model code: no libhdf5. */
#include <stdlib.h>
#include <string.h>

#include "ooc.h"

void ooc_seek_free(ooc_seek *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nrows; i++) {
        free(s->rows[i].start);
        free(s->rows[i].smin);
        free(s->rows[i].smax);
    }
    for (size_t i = 0; i < s->nranks; i++) {
        free(s->ranks[i].cp);
        free(s->ranks[i].open);
    }
    free(s->rows);
    free(s->ranks);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ rows */

static bool seek_row(const region *r, size_t ri, size_t gi, ooc_seek_row *row)
{
    size_t npts = (r->n + OOC_SEEK_STRIDE - 1) / OOC_SEEK_STRIDE;
    *row = (ooc_seek_row){ri, gi, r->n, npts, NULL, NULL, NULL};
    size_t m = npts ? npts : 1;
    row->start = malloc(m * sizeof *row->start);
    row->smin = malloc(m * sizeof *row->smin);
    row->smax = malloc(m * sizeof *row->smax);
    if (!row->start || !row->smin || !row->smax)
        return false;
    for (size_t k = 0; k < npts; k++) {
        size_t a = k * OOC_SEEK_STRIDE, b = a + OOC_SEEK_STRIDE < r->n ? a + OOC_SEEK_STRIDE : r->n;
        int64_t lo = r->start_ns[a], hi = lo;
        for (size_t i = a + 1; i < b; i++) {
            lo = r->start_ns[i] < lo ? r->start_ns[i] : lo;
            hi = r->start_ns[i] > hi ? r->start_ns[i] : hi;
        }
        row->start[k] = r->start_ns[a];
        row->smin[k] = lo;
        row->smax[k] = hi;
    }
    return true;
}

static bool seek_rows(const profile *p, ooc_seek *s)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nranks; i++)
        for (size_t j = 0; j < p->ranks[i].nregions; j++)
            n += p->ranks[i].regions[j]->has_event_data;
    s->rows = calloc(n ? n : 1, sizeof *s->rows);
    if (!s->rows)
        return false;
    for (size_t i = 0; i < p->nranks; i++)
        for (size_t j = 0; j < p->ranks[i].nregions; j++) {
            const region *r = p->ranks[i].regions[j];
            if (r->has_event_data && !seek_row(r, i, j, &s->rows[s->nrows++]))
                return false;
        }
    return true;
}

/* ------------------------------------------------------------ checkpoints */

/* One call of a rank in the sweep's order. */
typedef struct sk_call {
    int64_t s, e;
    int64_t reach; /* the latest start in its subtree (itself included) */
    uint32_t reg, g;
    uint64_t pos;
} sk_call;

static int sk_cmp(const void *a, const void *b)
{
    const sk_call *x = a, *y = b;
    return ooc_merge_cmp(x->s, x->e, x->reg, x->pos, y->s, y->e, y->reg, y->pos);
}

/* Every call of rk with its subtree's latest start (parents by the rank's
 * nesting), indexed by rank call index. */
static sk_call *sk_calls(const rank_data *rk)
{
    size_t n = rk->ncalls;
    sk_call *v = malloc((n ? n : 1) * sizeof *v);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    uint32_t *depth = malloc((n ? n : 1) * sizeof *depth);
    if (!v || !order || !depth) {
        free(order);
        free(depth);
        free(v);
        return NULL;
    }
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            size_t g = r->gidx0 + i;
            v[g] = (sk_call){r->start_ns[i], r->end_ns[i], r->start_ns[i],
                             (uint32_t)j,    (uint32_t)g,  i};
        }
    }
    /* Deepest first (counting sort by depth): a child reaches its parent
     * before the parent reaches its own. */
    uint32_t maxd = 0;
    for (size_t g = 0; g < n; g++) {
        depth[g] = rank_call_depth(rk, g);
        maxd = depth[g] > maxd ? depth[g] : maxd;
    }
    size_t *at = calloc((size_t)maxd + 2, sizeof *at);
    if (!at) {
        free(order);
        free(depth);
        free(v);
        return NULL;
    }
    for (size_t g = 0; g < n; g++)
        at[maxd - depth[g] + 1]++;
    for (size_t d = 1; d <= (size_t)maxd + 1; d++)
        at[d] += at[d - 1];
    for (size_t g = 0; g < n; g++)
        order[at[maxd - depth[g]]++] = (uint32_t)g;
    free(at);
    for (size_t i = 0; i < n; i++) {
        uint32_t g = order[i];
        int32_t p = rk->calls->parent[g];
        if (p >= 0 && v[g].reach > v[p].reach)
            v[p].reach = v[g].reach;
    }
    free(order);
    free(depth);
    return v;
}

static bool cp_push(ooc_seek_rank *sr, size_t *cap, int64_t t)
{
    if (sr->ncp == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        ooc_checkpoint *v = realloc(sr->cp, c * sizeof *v);
        if (!v)
            return false;
        sr->cp = v;
        *cap = c;
    }
    sr->cp[sr->ncp++] = (ooc_checkpoint){t, sr->nopen, 0};
    return true;
}

static bool open_push(ooc_seek_rank *sr, size_t *cap, const sk_call *c, uint32_t lane_no)
{
    if (sr->nopen == *cap) {
        size_t m = *cap ? *cap * 2 : 64;
        ooc_open_call *v = realloc(sr->open, m * sizeof *v);
        if (!v)
            return false;
        sr->open = v;
        *cap = m;
    }
    sr->open[sr->nopen++] = (ooc_open_call){c->reg, lane_no, c->pos, c->s, c->e};
    sr->cp[sr->ncp - 1].count++;
    return true;
}

/* The calls that may still be open: a min-heap by the time they stay
 * open until (their end, or their subtree's latest start), holding their
 * index in the sweep's order. */
typedef struct sk_heap {
    int64_t *last;
    size_t *idx;
    size_t n, cap;
} sk_heap;

static bool heap_push(sk_heap *h, int64_t last, size_t idx)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        int64_t *l = realloc(h->last, cap * sizeof *l);
        if (l)
            h->last = l;
        size_t *x = l ? realloc(h->idx, cap * sizeof *x) : NULL;
        if (!x)
            return false;
        h->idx = x;
        h->cap = cap;
    }
    size_t i = h->n++;
    for (; i > 0 && h->last[(i - 1) / 2] > last; i = (i - 1) / 2) {
        h->last[i] = h->last[(i - 1) / 2];
        h->idx[i] = h->idx[(i - 1) / 2];
    }
    h->last[i] = last;
    h->idx[i] = idx;
    return true;
}

static void heap_pop(sk_heap *h)
{
    int64_t last = h->last[--h->n];
    size_t idx = h->idx[h->n], i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->last[c + 1] < h->last[c])
            c++;
        if (h->last[c] >= last)
            break;
        h->last[i] = h->last[c];
        h->idx[i] = h->idx[c];
        i = c;
    }
    h->last[i] = last;
    h->idx[i] = idx;
}

static int size_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Checkpoint t's open calls: the heap fed with every call starting before
 * t (v[*fed ..]) and emptied of those closed before t; listed in the
 * sweep's order. */
static bool cp_open(const rank_data *rk, const sk_call *v, size_t *fed, int64_t t, sk_heap *h,
                    ooc_seek_rank *sr, size_t *cap)
{
    for (; *fed < rk->ncalls && v[*fed].s < t; (*fed)++) {
        int64_t last = v[*fed].e > v[*fed].reach ? v[*fed].e : v[*fed].reach;
        if (last >= t && !heap_push(h, last, *fed))
            return false;
    }
    while (h->n > 0 && h->last[0] < t)
        heap_pop(h);
    size_t *ix = malloc((h->n ? h->n : 1) * sizeof *ix);
    if (!ix)
        return false;
    memcpy(ix, h->idx, h->n * sizeof *ix);
    qsort(ix, h->n, sizeof *ix, size_cmp);
    bool ok = true;
    for (size_t k = 0; ok && k < h->n; k++) {
        const sk_call *c = &v[ix[k]];
        ok = open_push(sr, cap, c, rk->calls->lane ? rk->calls->lane[c->g] : 0);
    }
    free(ix);
    return ok;
}

/* Windows are exact when every ancestor of a call starts no later than it
 * and explicit ids were taken as they are. */
static bool rank_windowable(const rank_data *rk, const sk_call *byg)
{
    bool ids = false;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (!r->has_event_data)
            continue;
        if (!r->call_ids || !r->parent_ids)
            return true; /* nesting inferred from times: ancestors contain */
        ids = true;
    }
    if (ids && !rk->explicit_ids)
        return false;
    for (size_t g = 0; g < rk->ncalls; g++) {
        int32_t p = rk->calls->parent[g];
        if (p >= 0 && byg[p].s > byg[g].s)
            return false;
    }
    return true;
}

static bool seek_rank(const rank_data *rk, size_t ri, ooc_seek_rank *sr)
{
    *sr = (ooc_seek_rank){.rank_index = ri, .ninferred = rk->ninferred_lanes, .windowable = true};
    if (rk->ncalls == 0)
        return true;
    sk_call *v = sk_calls(rk);
    if (!v)
        return false;
    sr->windowable = rank_windowable(rk, v);
    qsort(v, rk->ncalls, sizeof *v, sk_cmp);
    size_t ccap = 0, ocap = 0, fed = 0;
    sk_heap h = {0};
    bool ok = cp_push(sr, &ccap, v[0].s);
    for (size_t k = OOC_SEEK_STRIDE; ok && k < rk->ncalls; k += OOC_SEEK_STRIDE) {
        int64_t t = v[k].s;
        if (t != sr->cp[sr->ncp - 1].t)
            ok = cp_push(sr, &ccap, t) && cp_open(rk, v, &fed, t, &h, sr, &ocap);
    }
    free(h.last);
    free(h.idx);
    free(v);
    return ok;
}

bool ooc_seek_from_profile(const profile *full, ooc_seek *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < full->nranks; i++)
        if (full->ranks[i].ncalls && !full->ranks[i].calls)
            return false;
    out->ranks = calloc(full->nranks ? full->nranks : 1, sizeof *out->ranks);
    bool ok = out->ranks && seek_rows(full, out);
    for (size_t i = 0; ok && i < full->nranks; i++) {
        ok = seek_rank(&full->ranks[i], i, &out->ranks[i]);
        out->nranks = i + 1;
    }
    if (!ok)
        ooc_seek_free(out);
    return ok;
}
