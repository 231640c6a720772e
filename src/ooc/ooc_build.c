/* ooc_build: the window profile of the out-of-core viewer (ooc.h) from a
 * skeleton: its frame (ranks, tables, every region), the reference slice
 * of a whole in-memory profile, and the nesting of a window seeded with the
 * lanes of its open calls.  Model code: no libhdf5, no curses. */
#include <stdlib.h>
#include <string.h>

#include "model/lanes.h"
#include "ooc_internal.h"
#include "model/nest_sweep.h"

/* ------------------------------------------------------------ the frame */

static bool dup_i64(const int64_t *src, size_t n, int64_t **dst)
{
    *dst = NULL;
    if (!src)
        return true;
    *dst = malloc((n ? n : 1) * sizeof **dst);
    if (*dst && n)
        memcpy(*dst, src, n * sizeof **dst);
    return *dst != NULL;
}

static bool dup_strv(char *const *src, size_t n, char ***dst)
{
    *dst = NULL;
    if (!src)
        return true;
    *dst = calloc(n ? n : 1, sizeof **dst);
    if (!*dst)
        return false;
    for (size_t i = 0; i < n; i++)
        if (src[i] && !((*dst)[i] = strdup(src[i])))
            return false;
    return true;
}

static bool copy_threads(thread_table *d, const thread_table *s)
{
    d->n = s->n;
    bool ok = dup_strv(s->name, s->n, &d->name) && dup_i64(s->ident, s->n, &d->ident) &&
              dup_i64(s->native_id, s->n, &d->native_id) &&
              dup_i64(s->start_ns, s->n, &d->start_ns) && dup_i64(s->end_ns, s->n, &d->end_ns) &&
              dup_i64(s->cpu_ns, s->n, &d->cpu_ns);
    if (ok && s->daemon) {
        d->daemon = malloc(s->n ? s->n : 1);
        ok = d->daemon != NULL;
        if (ok && s->n)
            memcpy(d->daemon, s->daemon, s->n);
    }
    return ok;
}

static bool copy_tasks(task_table *d, const task_table *s)
{
    d->n = s->n;
    return dup_strv(s->name, s->n, &d->name) && dup_i64(s->thread, s->n, &d->thread) &&
           dup_strv(s->kind, s->n, &d->kind) && dup_strv(s->coro_name, s->n, &d->coro_name) &&
           dup_i64(s->created_ns, s->n, &d->created_ns) && dup_i64(s->done_ns, s->n, &d->done_ns) &&
           dup_i64(s->steps, s->n, &d->steps) && dup_i64(s->running_ns, s->n, &d->running_ns) &&
           dup_i64(s->suspended_ns, s->n, &d->suspended_ns);
}

static bool frame_rank(profile *p, const rank_data *src)
{
    rank_data *rk = profile_add_rank(p, src->rank);
    if (!rk)
        return false;
    rk->has_threads = src->has_threads;
    rk->has_tasks = src->has_tasks;
    if ((src->has_threads && !copy_threads(&rk->threads, &src->threads)) ||
        (src->has_tasks && !copy_tasks(&rk->tasks, &src->tasks)))
        return false;
    for (size_t j = 0; j < src->nregions; j++) {
        region *r = rank_add_region(rk, src->regions[j]->name);
        if (!r)
            return false;
        r->has_event_data = src->regions[j]->has_event_data;
    }
    return true;
}

void ooc_same_zero(profile *w, const profile *skel)
{
    w->has_min_start = skel->has_min_start;
    w->min_start_ns = skel->min_start_ns;
}

profile *ooc_frame(const profile *skel)
{
    profile *p = profile_new(skel->path);
    if (!p)
        return NULL;
    p->schema = skel->schema;
    p->layout = skel->layout;
    p->legacy = skel->legacy;
    p->format = skel->format;
    for (size_t i = 0; i < skel->nranks; i++)
        if (!frame_rank(p, &skel->ranks[i])) {
            profile_free(p);
            return NULL;
        }
    return p;
}

bool ooc_region_has(const region *r, uint32_t bit)
{
    if (r->streamed)
        return (r->stream_cols & bit) != 0;
    switch (bit) {
    case SV_SCOL_GPU:
        return r->gpu_ns != NULL;
    case SV_SCOL_AWAIT:
        return r->await_ns != NULL;
    case SV_SCOL_THREADS:
        return r->thread_ids != NULL;
    case SV_SCOL_TASKS:
        return r->task_ids != NULL;
    default:
        return r->call_ids != NULL && r->parent_ids != NULL;
    }
}

/* ------------------------------------------------------------ seeded nesting */

typedef struct sn_key {
    int64_t s, e;
    uint32_t reg, g;
} sn_key;

static int sn_cmp(const void *a, const void *b)
{
    const sn_key *x = a, *y = b;
    return ooc_merge_cmp(x->s, x->e, x->reg, x->g, y->s, y->e, y->reg, y->g);
}

/* An open call of the seeded sweep (nest_sweep.h): its span and index. */
typedef struct sn_open {
    nest_span sp;
    uint32_t g;
} sn_open;

/* The lane c joins: forced (popping what ended before it), else by first
 * fit. */
static size_t sn_choose(nest_sweep *sw, const sn_key *c, uint32_t forced)
{
    if (forced == UINT32_MAX)
        return nest_sweep_first_fit(sw, c->s, c->e, NULL, NULL);
    if (!nest_sweep_lanes_to(sw, (size_t)forced + 1))
        return SIZE_MAX;
    (void)nest_lane_fits(sw, forced, c->s, c->e, NULL, NULL);
    return forced;
}

static sn_key *sn_keys(const rank_data *rk)
{
    sn_key *k = malloc((rk->ncalls ? rk->ncalls : 1) * sizeof *k);
    if (!k)
        return NULL;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++)
            k[r->gidx0 + i] =
                (sn_key){r->start_ns[i], r->end_ns[i], (uint32_t)j, (uint32_t)(r->gidx0 + i)};
    }
    return k;
}

/* Children grouped by parent (ascending), each family by (start, -end,
 * index): placed in the sweep's order, which is that order (within a
 * start and end, region order is index order). */
static bool sn_children(rank_calls *c, const sn_key *order)
{
    size_t n = c->n;
    uint32_t *off = calloc(n + 1, sizeof *off);
    if (!off)
        return false;
    for (size_t g = 0; g < n; g++)
        if (c->parent[g] >= 0)
            off[c->parent[g] + 1]++;
    for (size_t g = 0; g < n; g++)
        off[g + 1] += off[g];
    size_t m = off[n];
    c->child = malloc((m ? m : 1) * sizeof *c->child);
    if (!c->child) {
        free(off);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t p = c->parent[order[i].g];
        if (p >= 0)
            c->child[off[p]++] = order[i].g;
    }
    c->nchild = m;
    free(off);
    return true;
}

static bool sn_sweep_rank(const sn_key *order, size_t n, const uint32_t *forced, rank_calls *c)
{
    nest_sweep sw;
    nest_sweep_init(&sw, sizeof(sn_open));
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        const sn_key *k = &order[i];
        size_t l = sn_choose(&sw, k, forced ? forced[k->g] : UINT32_MAX);
        ok = l != SIZE_MAX;
        if (!ok)
            break;
        const sn_open *top = nest_lane_top(&sw, &sw.lanes[l]);
        c->parent[k->g] = top ? (int32_t)top->g : -1;
        c->lane[k->g] = (uint32_t)l;
        sn_open *o = nest_lane_push(&sw, l);
        ok = o != NULL;
        if (ok)
            *o = (sn_open){{k->s, k->e}, k->g};
    }
    nest_sweep_free(&sw);
    return ok;
}

/* A region's calls already in the sweep's order (the usual row). */
static bool sn_region_sorted(const sn_key *k, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (sn_cmp(&k[i - 1], &k[i]) > 0)
            return false;
    return true;
}

/* Sifts heap entry i (region heads, by their calls' order) down. */
static void sn_sift(const sn_key *byg, const size_t *pos, uint32_t *h, size_t nh, size_t i)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= nh)
            return;
        if (c + 1 < nh && sn_cmp(&byg[pos[h[c + 1]]], &byg[pos[h[c]]]) < 0)
            c++;
        if (sn_cmp(&byg[pos[h[c]]], &byg[pos[h[i]]]) >= 0)
            return;
        uint32_t t = h[i];
        h[i] = h[c];
        h[c] = t;
        i = c;
    }
}

/* The rank's calls in the sweep's order: its regions' runs merged when
 * each is in order (no sort of the whole rank), else sorted. */
static bool sn_order(const rank_data *rk, const sn_key *byg, sn_key *order)
{
    size_t n = rk->ncalls, nr = rk->nregions;
    bool sorted = true;
    for (size_t j = 0; sorted && j < nr; j++)
        sorted = sn_region_sorted(byg + rk->regions[j]->gidx0, rk->regions[j]->n);
    if (!sorted) {
        memcpy(order, byg, n * sizeof *order);
        qsort(order, n, sizeof *order, sn_cmp);
        return true;
    }
    size_t *pos = malloc((nr ? nr : 1) * sizeof *pos);
    uint32_t *h = malloc((nr ? nr : 1) * sizeof *h);
    if (!pos || !h) {
        free(pos);
        free(h);
        return false;
    }
    size_t nh = 0;
    for (size_t j = 0; j < nr; j++) {
        pos[j] = rk->regions[j]->gidx0;
        if (rk->regions[j]->n)
            h[nh++] = (uint32_t)j;
    }
    for (size_t i = nh / 2; i-- > 0;)
        sn_sift(byg, pos, h, nh, i);
    for (size_t k = 0; nh > 0; k++) {
        uint32_t j = h[0];
        order[k] = byg[pos[j]++];
        if (pos[j] == rk->regions[j]->gidx0 + rk->regions[j]->n)
            h[0] = h[--nh];
        sn_sift(byg, pos, h, nh, 0);
    }
    free(pos);
    free(h);
    return true;
}

sv_err ooc_nest_seeded(rank_data *rk, const uint32_t *forced, uint32_t ninferred, sv_error *err)
{
    size_t n = rk->ncalls;
    rank_calls *c = calloc(1, sizeof *c);
    sn_key *byg = sn_keys(rk);
    sn_key *order = malloc((n ? n : 1) * sizeof *order);
    bool ok = c && byg && order;
    if (ok) {
        c->n = n;
        c->parent = malloc((n ? n : 1) * sizeof *c->parent);
        c->lane = malloc((n ? n : 1) * sizeof *c->lane);
        ok = c->parent && c->lane;
    }
    if (ok) {
        ok =
            sn_order(rk, byg, order) && sn_sweep_rank(order, n, forced, c) && sn_children(c, order);
    }
    free(order);
    free(byg);
    if (!ok) {
        rank_calls_free(c);
        return sv_error_set(err, SV_ERR_NOMEM, "%s: rank %d: out of memory while nesting a window",
                            rk->owner ? rk->owner->path : "?", rk->rank);
    }
    rank_calls_free(rk->calls);
    rk->calls = c;
    rk->ninferred_lanes = ninferred;
    return SV_OK;
}

/* ------------------------------------------------------------ the slice */

/* Marks the calls of rk overlapping [t0, t1) and their ancestors. */
static size_t slice_mark(const rank_data *rk, int64_t t0, int64_t t1, uint8_t *mark)
{
    size_t m = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            int64_t s = r->start_ns[i];
            if (s >= t1 || lanes_visible_end(s, r->end_ns[i]) <= t0)
                continue;
            for (int64_t g = (int64_t)(r->gidx0 + i); g >= 0 && !mark[g];
                 g = rk->calls->parent[g]) {
                mark[g] = 1;
                m++;
            }
        }
    }
    return m;
}

static bool pick(const int64_t *src, const uint8_t *mark, size_t n, size_t m, int64_t **dst)
{
    *dst = NULL;
    if (!src)
        return true;
    *dst = malloc((m ? m : 1) * sizeof **dst);
    if (!*dst)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (mark[i])
            (*dst)[k++] = src[i];
    return true;
}

static bool slice_region(region *d, const region *r, const uint8_t *mark)
{
    size_t m = 0;
    for (size_t i = 0; i < r->n; i++)
        m += mark[i];
    d->n = m;
    return pick(r->start_ns, mark, r->n, m, &d->start_ns) &&
           pick(r->end_ns, mark, r->n, m, &d->end_ns) &&
           pick(r->call_ids, mark, r->n, m, &d->call_ids) &&
           pick(r->parent_ids, mark, r->n, m, &d->parent_ids) &&
           pick(r->thread_ids, mark, r->n, m, &d->thread_ids) &&
           pick(r->task_ids, mark, r->n, m, &d->task_ids) &&
           pick(r->await_ns, mark, r->n, m, &d->await_ns) &&
           pick(r->gpu_ns, mark, r->n, m, &d->gpu_ns);
}

/* The window's calls of rank index ri; *forced receives the whole
 * profile's lane of each (window call index), when it inferred lanes. */
static bool slice_rank(const rank_data *src, rank_data *dst, int64_t t0, int64_t t1,
                       uint32_t **forced)
{
    *forced = NULL;
    uint8_t *mark = calloc(src->ncalls ? src->ncalls : 1, 1);
    if (!mark)
        return false;
    size_t m = slice_mark(src, t0, t1, mark);
    bool ok = true;
    for (size_t j = 0; ok && j < src->nregions; j++)
        ok = slice_region(dst->regions[j], src->regions[j], mark + src->regions[j]->gidx0);
    if (ok && src->calls->lane) {
        *forced = malloc((m ? m : 1) * sizeof **forced);
        ok = *forced != NULL;
        size_t k = 0;
        for (size_t g = 0; ok && g < src->ncalls; g++)
            if (mark[g])
                (*forced)[k++] = src->calls->lane[g];
    }
    free(mark);
    return ok;
}

sv_err ooc_window_slice(const profile *full, int64_t t0, int64_t t1, profile **out, sv_error *err)
{
    *out = NULL;
    sv_error_clear(err);
    for (size_t i = 0; i < full->nranks; i++)
        if (full->ranks[i].ncalls && !full->ranks[i].calls)
            return sv_error_set(err, SV_ERR_USAGE, "ooc_window_slice: the calls are not nested");
    profile *p = ooc_frame(full);
    uint32_t **forced = calloc(full->nranks ? full->nranks : 1, sizeof *forced);
    bool ok = p && forced;
    for (size_t i = 0; ok && t0 < t1 && i < full->nranks; i++)
        ok = slice_rank(&full->ranks[i], &p->ranks[i], t0, t1, &forced[i]);
    sv_err e = ok ? profile_finish(p, err) : sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !e && i < full->nranks; i++)
        if (full->ranks[i].ninferred_lanes && forced[i])
            e = ooc_nest_seeded(&p->ranks[i], forced[i], full->ranks[i].ninferred_lanes, err);
    if (!e)
        ooc_same_zero(p, full);
    for (size_t i = 0; forced && i < full->nranks; i++)
        free(forced[i]);
    free(forced);
    if (e) {
        profile_free(p);
        return e;
    }
    *out = p;
    return SV_OK;
}
