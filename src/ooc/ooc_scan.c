/* ooc_scan: the sweep of ooc_open's streaming pass (ooc_scan.h).
 *
 * Checkpoints are ooc.h's: cp[0] at the rank's first start, then before
 * the merge's call q for every q = j * OOC_SEEK_STRIDE (j >= 1) at t =
 * its start, unless t is the previous checkpoint's.  The open calls are the
 * calls starting before t that end at or after t, in the merge's order.
 * Most are on the sweep's stacks; the others were popped while still
 * running: by a call that overlaps them partly (thread or task columns, or
 * past the 256th inferred lane), or by a call starting where they end.
 * Every pop of a call ending at or after the popping call's start keeps it
 * aside (`aside`) until a checkpoint finds it ended. */
#include "ooc_scan.h"
#include "util/hash.h"
#include "model/nest_sweep.h"
#include "util/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 40 bytes: a push per call.  The merge's order of two calls is their
 * (start, -end, region, position): seq_cmp, no sequence number kept. */
typedef struct ocall {
    nest_span sp; /* first: the open call of nest_sweep.h */
    uint64_t pos;
    uint32_t reg;
    uint16_t lane; /* the inferred lane (sweeps without columns: < NEST_LANES_MAX) */
    bool kept;
    uint32_t kd; /* its lane depth among the calls the map keeps (ooc_src.skip) */
} ocall;
_Static_assert(sizeof(ocall) == 40, "ocall: 40 bytes a push");

typedef struct ostack {
    ocall *v;
    size_t sp, cap;
} ostack;

/* A map lane index, valid while the map has `stamp` lanes. */
typedef struct lcache {
    size_t idx, stamp;
} lcache;

/* A (thread, task) lane: group i keeps its open calls on lane i of rscan.gl. */
typedef struct group {
    int64_t thread, task;
    lcache lc;
} group;

typedef struct rscan {
    ooc_scan *sc;
    size_t ri;
    bool lanes;
    uint32_t ninf;
    nest_sweep il; /* inferred lanes */
    lcache *ilc;   /* their map lanes */
    nest_sweep gl; /* lanes: the open calls of group i on lane i */
    group *g;      /* lanes: one per (thread, task) */
    size_t ng, gcap;
    size_t *ht; /* group index + 1, 0 empty */
    size_t htcap;
    uint64_t seq;
    ooc_seek_rank *rk;
    size_t nmap;  /* map lanes of the rank so far (inferred lanes) */
    ostack aside; /* popped calls that may still be open at a checkpoint */
    ocall *tmp;   /* a checkpoint's open calls */
    size_t ntmp, tmpcap;
} rscan;

/* ------------------------------------------------------------ setup */

bool ooc_scan_init(ooc_scan *sc, int64_t t_min, int64_t t_max, size_t nlanes, size_t cells_max)
{
    memset(sc, 0, sizeof *sc);
    bool none = t_min > t_max; /* no calls: a grid at 0, as ooc_map_from_lanes */
    sc->t_min = none ? 0 : t_min;
    sc->t_max = none ? 0 : t_max;
    sc->hint = nlanes;
    sc->cells_max = cells_max;
    return ooc_map_init_cap(&sc->map, sc->t_min, sc->t_max, nlanes, cells_max);
}

void ooc_scan_free(ooc_scan *sc)
{
    ooc_map_free(&sc->map);
    ooc_seek_free(&sc->seek);
    for (size_t i = 0; i < sc->nsinks; i++)
        sc->sinks[i].ops->free(sc->sinks[i].self);
    memset(sc, 0, sizeof *sc);
}

bool ooc_scan_add_sink(ooc_scan *sc, const ooc_sink_ops *ops, void *self)
{
    if (sc->nsinks == OOC_SINKS_MAX) {
        ops->free(self);
        return false;
    }
    sc->sinks[sc->nsinks++] = (ooc_sink){ops, self, false};
    return true;
}

void ooc_scan_sinks_only(ooc_scan *sc)
{
    sc->sinks_only = true;
}

void ooc_scan_mute_others(ooc_scan *sc, const void *keep, const char *why)
{
    for (size_t i = 0; i < sc->nsinks; i++)
        if (sc->sinks[i].self != keep && !sc->sinks[i].muted) {
            sc->sinks[i].muted = true;
            sc->sinks[i].ops->lose(sc->sinks[i].self, why);
        }
    size_t n = 0; /* a muted sink's flattened calls go nowhere either */
    for (size_t j = 0; j < sc->nflat; j++)
        if (sc->flat_self[j] == keep) {
            sc->flat[n] = sc->flat[j];
            sc->flat_self[n++] = sc->flat_self[j];
        }
    sc->nflat = n;
}

void *ooc_scan_take_sink(ooc_scan *sc, const ooc_sink_ops *ops)
{
    for (size_t i = 0; i < sc->nsinks; i++)
        if (sc->sinks[i].ops == ops) {
            void *self = sc->sinks[i].self;
            memmove(&sc->sinks[i], &sc->sinks[i + 1], (sc->nsinks - i - 1) * sizeof *sc->sinks);
            sc->nsinks--;
            for (size_t j = 0; j < sc->nflat; j++)
                if (sc->flat_self[j] == self) { /* no longer the scan's to feed */
                    sc->flat[j] = sc->flat[--sc->nflat];
                    sc->flat_self[j] = sc->flat_self[sc->nflat];
                    j--;
                }
            for (size_t j = 0; j < sc->nlanes_fn; j++)
                if (sc->lanes_self[j] == self) {
                    sc->lanes_fn[j] = sc->lanes_fn[--sc->nlanes_fn];
                    sc->lanes_self[j] = sc->lanes_self[sc->nlanes_fn];
                    j--;
                }
            return self;
        }
    return NULL;
}

static bool is_flat(const ooc_scan *sc, const void *self)
{
    for (size_t i = 0; i < sc->nflat; i++)
        if (sc->flat_self[i] == self)
            return true;
    return false;
}

bool ooc_scan_add_flat(ooc_scan *sc, const ooc_flat_ops *ops, void *self)
{
    bool known = false;
    for (size_t i = 0; i < sc->nsinks; i++)
        known |= sc->sinks[i].self == self;
    if (!known || sc->nflat == OOC_SINKS_MAX)
        return false;
    sc->flat[sc->nflat] = ops;
    sc->flat_self[sc->nflat++] = self;
    return true;
}

bool ooc_scan_add_lanes(ooc_scan *sc, ooc_sink_lanes_fn fn, void *self)
{
    bool known = false;
    for (size_t i = 0; i < sc->nsinks; i++)
        known |= sc->sinks[i].self == self;
    if (!known || sc->nlanes_fn == OOC_SINKS_MAX)
        return false;
    sc->lanes_fn[sc->nlanes_fn] = fn;
    sc->lanes_self[sc->nlanes_fn++] = self;
    return true;
}

/* The lanes hook of sink k: ooc_sinks.c's, or one added with ooc_scan_add_lanes. */
static ooc_sink_lanes_fn lanes_of(const ooc_scan *sc, const ooc_sink *k)
{
    ooc_sink_lanes_fn fn = ooc_sink_lanes_of(k->ops);
    for (size_t i = 0; !fn && i < sc->nlanes_fn; i++)
        if (sc->lanes_self[i] == k->self)
            fn = sc->lanes_fn[i];
    return fn;
}

/* A rank the sweep does not do: each sink says its product is partial. */
static void sinks_lose(ooc_scan *sc, const char *why)
{
    for (size_t i = 0; i < sc->nsinks; i++)
        if (!is_flat(sc, sc->sinks[i].self) && !sc->sinks[i].muted) /* flat: sinks_flat */
            sc->sinks[i].ops->lose(sc->sinks[i].self, why);
}

/* A call of a rank the sweep does not do, to the sinks that take them. */
static bool sinks_flat(ooc_scan *sc, size_t rank, uint32_t reg, uint64_t pos, bool kept, int64_t s,
                       int64_t e)
{
    ooc_call c = {rank, 0, 0, kept ? 0 : SIZE_MAX, 0, reg, pos, s, e, -1, -1, false, -1};
    for (size_t i = 0; i < sc->nflat; i++)
        if (!sc->flat[i]->call(sc->flat_self[i], &c))
            return false;
    return true;
}

static bool sinks_call(ooc_scan *sc, const ooc_call *c)
{
    for (size_t i = 0; i < sc->nsinks; i++)
        if (!sc->sinks[i].muted && !sc->sinks[i].ops->call(sc->sinks[i].self, c))
            return false;
    return true;
}

static ooc_seek_rank *rank_entry(ooc_scan *sc, size_t rank_index, uint32_t ninferred)
{
    if (!sv_grow((void **)&sc->seek.ranks, &sc->ranks_cap, sc->seek.nranks + 1,
                 sizeof *sc->seek.ranks, 8))
        return NULL;
    ooc_seek_rank *rk = &sc->seek.ranks[sc->seek.nranks++];
    memset(rk, 0, sizeof *rk);
    rk->rank_index = rank_index;
    rk->windowable = true;
    rk->ninferred = ninferred;
    return rk;
}

static bool add_cp(ooc_seek_rank *rk, int64_t t, const ocall *open, size_t n)
{
    ooc_checkpoint *cp = realloc(rk->cp, (rk->ncp + 1) * sizeof *cp);
    if (!cp)
        return false;
    rk->cp = cp;
    if (n) {
        ooc_open_call *o = realloc(rk->open, (rk->nopen + n) * sizeof *o);
        if (!o)
            return false;
        rk->open = o;
        for (size_t i = 0; i < n; i++)
            o[rk->nopen + i] =
                (ooc_open_call){open[i].reg, open[i].lane, open[i].pos, open[i].sp.s, open[i].sp.e};
    }
    cp[rk->ncp++] = (ooc_checkpoint){t, rk->nopen, n};
    rk->nopen += n;
    return true;
}

bool ooc_scan_rank_entry(ooc_scan *sc, size_t rank_index, int64_t first, bool windowable)
{
    ooc_seek_rank *rk = rank_entry(sc, rank_index, 0);
    if (!rk)
        return false;
    rk->windowable = windowable;
    return first == INT64_MAX || add_cp(rk, first, NULL, 0);
}

/* A seek row for a row of n calls; SIZE_MAX on NOMEM. */
static size_t seek_row(ooc_scan *sc, size_t rank_index, uint32_t reg, uint64_t n)
{
    if (!sv_grow((void **)&sc->seek.rows, &sc->rows_cap, sc->seek.nrows + 1, sizeof *sc->seek.rows,
                 8))
        return SIZE_MAX;
    ooc_seek_row *r = &sc->seek.rows[sc->seek.nrows];
    size_t npts = (size_t)((n + OOC_SEEK_STRIDE - 1) / OOC_SEEK_STRIDE);
    size_t m = (npts ? npts : 1) * sizeof(int64_t);
    *r = (ooc_seek_row){rank_index, reg, n, npts, malloc(m), malloc(m), malloc(m)};
    sc->seek.nrows++;
    return r->start && r->smin && r->smax ? sc->seek.nrows - 1 : SIZE_MAX;
}

/* Call pos of seek row k starts at s. */
static inline void seek_note(ooc_seek_row *r, uint64_t pos, int64_t s)
{
    if (pos >= r->n)
        return;
    size_t k = (size_t)(pos / OOC_SEEK_STRIDE);
    if (pos % OOC_SEEK_STRIDE == 0) {
        r->start[k] = r->smin[k] = r->smax[k] = s;
        return;
    }
    r->smin[k] = s < r->smin[k] ? s : r->smin[k];
    r->smax[k] = s > r->smax[k] ? s : r->smax[k];
}

/* ------------------------------------------------------------ lanes, stacks */

static size_t lane_of(rscan *rs, lcache *c, lane_kind kind, int64_t row)
{
    if (c->stamp == rs->sc->map.nlanes)
        return c->idx;
    c->idx = ooc_map_lane(&rs->sc->map, rs->ri, kind, row);
    c->stamp = rs->sc->map.nlanes;
    return c->idx;
}

static inline bool push(ostack *st, const ocall *c)
{
    if (st->sp == st->cap && !sv_grow((void **)&st->v, &st->cap, st->sp + 1, sizeof *st->v, 8))
        return false;
    st->v[st->sp++] = *c;
    return true;
}

/* A call popped while it may still be open at a checkpoint is kept aside
 * (nest_sweep's pop callback); false on NOMEM. */
static bool pop_aside(void *ctx, size_t l, void *call, int64_t s)
{
    (void)l;
    rscan *rs = ctx;
    const ocall *c = call;
    return c->sp.e < s || push(&rs->aside, c);
}

/* No checkpoint, nothing kept aside: a sweep for the sinks only pops with no callback. */
static nest_pop_fn aside_fn(const rscan *rs)
{
    return rs->sc->sinks_only ? NULL : pop_aside;
}

/* Before the rank's second inferred lane: its first one, the rank's lane
 * so far, becomes LANE_INFERRED 0 (lanes.h names inferred lanes only when
 * the rank has two or more, whatever a filter keeps). */
static void second_lane(rscan *rs)
{
    size_t l = ooc_map_find_lane(&rs->sc->map, rs->ri, LANE_RANK, -1);
    if (l != SIZE_MAX) {
        rs->sc->map.lanes[l].kind = LANE_INFERRED; /* the rank's only lane: the order holds */
        rs->sc->map.lanes[l].row = 0;
    }
}

/* The map lane of an inferred lane.  The grid's hint counted the rank as
 * one lane: each map lane of the rank from the second on (a lane the
 * calls kept reach) adds one, and the map is regridded (ooc_scan.h).
 * SIZE_MAX on NOMEM. */
static size_t inferred_map_lane(rscan *rs, size_t k)
{
    ooc_scan *sc = rs->sc;
    size_t before = sc->map.nlanes;
    size_t l = rs->il.nlanes >= 2 ? lane_of(rs, &rs->ilc[k], LANE_INFERRED, (int64_t)k)
                                  : lane_of(rs, &rs->ilc[k], LANE_RANK, -1);
    if (l == SIZE_MAX || sc->map.nlanes == before || rs->nmap++ == 0)
        return l;
    sc->hint++;
    return ooc_map_regrid(&sc->map, sc->t_min, sc->t_max, sc->hint, sc->cells_max) ? l : SIZE_MAX;
}

/* The inferred lane of a call in a rank without lane columns (first fit,
 * nest_sweep.h), or -1 on NOMEM. */
static long infer_lane(rscan *rs, int64_t s, int64_t e)
{
    size_t before = rs->il.nlanes;
    size_t l = nest_sweep_first_fit(&rs->il, s, e, aside_fn(rs), rs);
    if (l == SIZE_MAX)
        return -1;
    if (rs->il.nlanes > before) {
        if (before == 1)
            second_lane(rs);
        lcache *c = realloc(rs->ilc, rs->il.nlanes * sizeof *c);
        if (!c)
            return -1;
        rs->ilc = c;
        rs->ilc[l] = (lcache){0, SIZE_MAX};
    }
    return (long)l;
}

static uint64_t ghash(int64_t thread, int64_t task)
{
    return sv_hash_pair((uint64_t)thread, (uint64_t)task);
}

static group *find_group(rscan *rs, int64_t thread, int64_t task)
{
    if (2 * (rs->ng + 1) > rs->htcap) {
        size_t cap = rs->htcap ? 2 * rs->htcap : 64;
        size_t *t = calloc(cap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < rs->ng; i++) {
            size_t h = ghash(rs->g[i].thread, rs->g[i].task) & (cap - 1);
            while (t[h])
                h = (h + 1) & (cap - 1);
            t[h] = i + 1;
        }
        free(rs->ht);
        rs->ht = t;
        rs->htcap = cap;
    }
    size_t h = ghash(thread, task) & (rs->htcap - 1);
    while (rs->ht[h]) {
        group *g = &rs->g[rs->ht[h] - 1];
        if (g->thread == thread && g->task == task)
            return g;
        h = (h + 1) & (rs->htcap - 1);
    }
    if (!sv_grow((void **)&rs->g, &rs->gcap, rs->ng + 1, sizeof *rs->g, 8) ||
        !nest_sweep_lanes_to(&rs->gl, rs->ng + 1))
        return NULL;
    group *g = &rs->g[rs->ng];
    *g = (group){thread, task, {0, SIZE_MAX}};
    rs->ht[h] = ++rs->ng;
    return g;
}

/* ------------------------------------------------------------ checkpoints */

static int seq_cmp(const void *a, const void *b)
{
    const ocall *x = a, *y = b;
    return ooc_merge_cmp(x->sp.s, x->sp.e, x->reg, x->pos, y->sp.s, y->sp.e, y->reg, y->pos);
}

/* The calls of v[0 .. n) starting before t and ending at or after t. */
static bool collect(rscan *rs, const ocall *v, size_t n, int64_t t)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].sp.s >= t || v[i].sp.e < t)
            continue;
        if (!sv_grow((void **)&rs->tmp, &rs->tmpcap, rs->ntmp + 1, sizeof *rs->tmp, 8))
            return false;
        rs->tmp[rs->ntmp++] = v[i];
    }
    return true;
}

static bool collect_lanes(rscan *rs, const nest_sweep *sw, int64_t t)
{
    bool ok = true;
    for (size_t l = 0; ok && l < sw->nlanes; l++)
        ok = collect(rs, (const ocall *)(const void *)sw->lanes[l].stk, sw->lanes[l].sp, t);
    return ok;
}

/* Before sweeping the merge's call seq, starting at s; false on NOMEM. */
static bool checkpoint(rscan *rs, int64_t s)
{
    ooc_seek_rank *rk = rs->rk;
    if (rs->seq == 0)
        return add_cp(rk, s, NULL, 0);
    if (rs->seq % OOC_SEEK_STRIDE || s == rk->cp[rk->ncp - 1].t)
        return true;
    /* the calls kept aside that ended before s never count again */
    size_t keep = 0;
    for (size_t i = 0; i < rs->aside.sp; i++)
        if (rs->aside.v[i].sp.e >= s)
            rs->aside.v[keep++] = rs->aside.v[i];
    rs->aside.sp = keep;
    rs->ntmp = 0;
    bool ok = collect(rs, rs->aside.v, rs->aside.sp, s) && collect_lanes(rs, &rs->gl, s) &&
              collect_lanes(rs, &rs->il, s);
    if (!ok)
        return false;
    if (rs->ntmp > 1)
        qsort(rs->tmp, rs->ntmp, sizeof *rs->tmp, seq_cmp);
    return add_cp(rk, s, rs->tmp, rs->ntmp);
}

/* ------------------------------------------------------------ one call */

static int sweep_call(rscan *rs, ooc_src *src, int64_t s, int64_t e)
{
    size_t i = src->pos;
    uint64_t pos = src->base + i;
    if (rs->seq % OOC_SEEK_STRIDE == 0 && !rs->sc->sinks_only && !checkpoint(rs, s))
        return -1;
    if (rs->sc->tick && rs->seq &&
        rs->seq % OOC_SCAN_TICK == 0) /* merge order: starts before s are in */
        rs->sc->tick(rs->sc->tick_ctx, rs->sc, rs->ri, s, rs->seq);
    ocall c = {{s, e}, pos, src->reg, 0, !src->skip, 0};
    nest_sweep *sw;
    size_t ln, l = 0;
    if (rs->lanes) {
        int64_t th = src->thr ? src->thr[i] : -1, tk = src->task ? src->task[i] : -1;
        group *g = find_group(rs, th, tk);
        if (!g)
            return -1;
        sw = &rs->gl;
        ln = (size_t)(g - rs->g);
        if (!nest_lane_pop_to(sw, ln, s, e, aside_fn(rs), rs))
            return -1;
        if (c.kept)
            l = tk >= 0   ? lane_of(rs, &g->lc, LANE_TASK, tk)
                : th >= 0 ? lane_of(rs, &g->lc, LANE_THREAD, th)
                          : lane_of(rs, &g->lc, LANE_RANK, -1);
    } else {
        long k = infer_lane(rs, s, e);
        if (k < 0)
            return -1;
        sw = &rs->il;
        ln = (size_t)k;
        c.lane = (uint16_t)k;
        if (c.kept)
            l = inferred_map_lane(rs, (size_t)k);
    }
    if (l == SIZE_MAX)
        return -1;
    /* lanes.h's lane depth under a filter: the kept calls below it in its lane */
    const ocall *top = nest_lane_top(sw, &sw->lanes[ln]);
    if (top)
        c.kd = top->kd + top->kept;
    if (c.kept && rs->sc->sinks_only)
        ooc_map_count(&rs->sc->map, l, s, e);
    else if (c.kept)
        ooc_map_add(&rs->sc->map, l, c.kd, s, e, src->reg);
    /* the depth below the call in its stack: the open calls of its lane */
    ooc_call oc = {rs->ri,
                   ln,
                   sw->lanes[ln].sp,
                   c.kept ? l : SIZE_MAX,
                   c.kd,
                   src->reg,
                   pos,
                   s,
                   e,
                   src->await ? src->await[i] : -1,
                   src->gpu ? src->gpu[i] : -1,
                   src->ids != NULL,
                   src->ids ? src->ids[i] : -1};
    if (!sinks_call(rs->sc, &oc))
        return -1;
    ocall *slot = nest_lane_push(sw, ln);
    if (!slot)
        return -1;
    *slot = c;
    rs->seq++;
    return 0;
}

/* ------------------------------------------------------------ the merge */

__extension__ typedef unsigned __int128 mkey;

/* A row's head call, its times copied so that taking it reads no chunk. */
typedef struct hitem {
    mkey key;
    int64_t s, e;
    uint32_t reg;
    ooc_src *src;
} hitem;

static inline mkey key_of(int64_t s, int64_t e)
{
    uint64_t hi = (uint64_t)s ^ (UINT64_C(1) << 63);
    uint64_t lo = ~((uint64_t)e ^ (UINT64_C(1) << 63));
    return ((mkey)hi << 64) | lo;
}

static inline bool hless(const hitem *a, const hitem *b)
{
    return a->key != b->key ? a->key < b->key : a->reg < b->reg;
}

static void sift(hitem *h, size_t n, size_t i)
{
    hitem x = h[i];
    for (;;) {
        size_t l = 2 * i + 1, m = l;
        if (l >= n)
            break;
        if (l + 1 < n && hless(&h[l + 1], &h[l]))
            m = l + 1;
        if (!hless(&h[m], &x))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

/* A chunk's calls into their seek segments (one tight loop a segment,
 * while the chunk is in the caches). */
static void seek_chunk(ooc_seek_row *r, uint64_t base, const int64_t *s, size_t len)
{
    size_t i = 0;
    while (i < len && base + i < r->n) {
        uint64_t pos = base + i;
        size_t k = (size_t)(pos / OOC_SEEK_STRIDE), off = (size_t)(pos % OOC_SEEK_STRIDE);
        size_t end = len - i < OOC_SEEK_STRIDE - off ? len : i + (OOC_SEEK_STRIDE - off);
        int64_t lo = off ? r->smin[k] : s[i], hi = off ? r->smax[k] : s[i];
        if (!off)
            r->start[k] = s[i];
        for (size_t j = i; j < end; j++) {
            lo = s[j] < lo ? s[j] : lo;
            hi = s[j] > hi ? s[j] : hi;
        }
        r->smin[k] = lo;
        r->smax[k] = hi;
        i = end;
    }
}

/* 1: a call at src->pos; 0: none left; -1: error. */
static int head(rscan *rs, ooc_src *src)
{
    if (src->pos < src->len)
        return 1;
    src->pos = 0;
    src->len = 0;
    int k = src->refill(src->ctx, src);
    if (k > 0 && !rs->sc->sinks_only)
        seek_chunk(&rs->sc->seek.rows[src->seek_row], src->base, src->s, src->len);
    return k;
}

static hitem item(ooc_src *t)
{
    int64_t s = t->s[t->pos], e = t->e[t->pos];
    return (hitem){key_of(s, e), s, e, t->reg, t};
}

/* Up to this many rows, the least head by scanning them in region order
 * (nest_infer.c: cheaper than a heap's unpredictable branches). */
#define SCAN_MAX 8

static void by_region(hitem *h, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        hitem x = h[i];
        size_t j = i;
        for (; j > 0 && h[j - 1].reg > x.reg; j--)
            h[j] = h[j - 1];
        h[j] = x;
    }
}

/* The first least key: of equal keys the smallest region. */
static inline size_t scan_min(const hitem *h, size_t n)
{
    size_t m = 0;
    mkey k = h[0].key;
    for (size_t j = 1; j < n; j++)
        if (h[j].key < k) {
            __asm__ volatile(""); /* a branch (predicted), as nest_infer.c's scan */
            m = j;
            k = h[j].key;
        }
    return m;
}

/* Sweeps the head call of t and moves t on: head()'s answer, or -2 when
 * the row is out of order. */
static inline int take(rscan *rs, const hitem *hi)
{
    ooc_src *t = hi->src;
    int64_t s = hi->s, e = hi->e;
    if (t->started && (s < t->ps || (s == t->ps && e > t->pe))) {
        snprintf(rs->sc->why, sizeof rs->sc->why, "a row is not in start order");
        return -2;
    }
    t->started = true;
    t->ps = s;
    t->pe = e;
    if (sweep_call(rs, t, s, e) < 0)
        return -1;
    t->pos++;
    return head(rs, t);
}

static int merge(rscan *rs, ooc_src *srcs, size_t nsrc)
{
    hitem *h = malloc((nsrc ? nsrc : 1) * sizeof *h);
    if (!h)
        return -1;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nsrc; i++) {
        int k = head(rs, &srcs[i]);
        if (k < 0)
            rc = -1;
        else if (k > 0)
            h[n++] = item(&srcs[i]);
    }
    bool scan = n <= SCAN_MAX;
    if (scan)
        by_region(h, n);
    for (size_t i = n / 2; !scan && i-- > 0;)
        sift(h, n, i);
    while (rc == 0 && n > 0) {
        if (scan) {
            size_t m = scan_min(h, n);
            int k = take(rs, &h[m]);
            if (k < 0)
                rc = k;
            else if (k == 0)
                memmove(&h[m], &h[m + 1], (--n - m) * sizeof *h);
            else
                h[m] = item(h[m].src);
            continue;
        }
        ooc_src *t = h[0].src;
        int k = take(rs, &h[0]);
        if (k < 0) {
            rc = k;
        } else if (k == 0) {
            h[0] = h[--n];
        } else {
            h[0] = item(t);
            /* still the least of the heads (calls of one row in a run): no sift */
            if (n == 1 || ((n == 2 || hless(&h[0], &h[2])) && hless(&h[0], &h[1])))
                continue;
        }
        if (n)
            sift(h, n, 0);
        if (n <= SCAN_MAX) { /* few rows left: scanning from here on */
            by_region(h, n);
            scan = true;
        }
    }
    free(h);
    return rc;
}

static void rscan_free(rscan *rs)
{
    nest_sweep_free(&rs->il);
    free(rs->ilc);
    nest_sweep_free(&rs->gl);
    free(rs->g);
    free(rs->ht);
    free(rs->tmp);
    free(rs->aside.v);
}

int ooc_scan_rank(ooc_scan *sc, size_t rank_index, ooc_src *srcs, size_t nsrc, bool lanes,
                  uint32_t ninferred)
{
    rscan rs = {.sc = sc, .ri = rank_index, .lanes = lanes, .ninf = ninferred};
    nest_sweep_init(&rs.il, sizeof(ocall));
    nest_sweep_init(&rs.gl, sizeof(ocall));
    if (!(rs.rk = rank_entry(sc, rank_index, ninferred)))
        return -1;
    for (size_t i = 0; i < nsrc; i++) {
        srcs[i].pos = srcs[i].len = 0;
        srcs[i].started = false;
        if ((srcs[i].seek_row = seek_row(sc, rank_index, srcs[i].reg, srcs[i].n)) == SIZE_MAX)
            return -1;
    }
    int rc = merge(&rs, srcs, nsrc);
    for (size_t i = 0; rc == 0 && i < nsrc; i++)
        if (srcs[i].base + srcs[i].len != srcs[i].n && srcs[i].n) {
            snprintf(sc->why, sizeof sc->why, "a row's length changed");
            rc = -2;
        }
    uint32_t got = !lanes && rs.il.nlanes > 1 ? (uint32_t)rs.il.nlanes : 0;
    rs.rk = &sc->seek.ranks[sc->seek.nranks - 1];
    rs.rk->ninferred = got;
    if (rc == 0 && !lanes && ninferred != OOC_SCAN_LANES_UNKNOWN &&
        got != (ninferred > 1 ? ninferred : 0)) {
        snprintf(sc->why, sizeof sc->why, "%u inferred lanes where the load found %u", got,
                 ninferred);
        rc = -2;
    }
    rscan_free(&rs);
    return rc;
}

int ooc_scan_flat(ooc_scan *sc, size_t rank_index, ooc_src *srcs, size_t nsrc)
{
    int64_t first = INT64_MAX;
    sinks_lose(sc, OOC_SINK_UNSWEPT);
    for (size_t j = 0; j < nsrc; j++) {
        ooc_src *src = &srcs[j];
        size_t k = seek_row(sc, rank_index, src->reg, src->n);
        if (k == SIZE_MAX)
            return -1;
        int rc;
        while ((rc = src->refill(src->ctx, src)) == 1)
            for (size_t i = 0; i < src->len; i++) {
                int64_t s = src->s[i], th = src->thr ? src->thr[i] : -1;
                int64_t tk = src->task ? src->task[i] : -1;
                seek_note(&sc->seek.rows[k], src->base + i, s);
                first = s < first ? s : first;
                if (!sinks_flat(sc, rank_index, src->reg, src->base + i, !src->skip, s, src->e[i]))
                    return -1;
                if (src->skip)
                    continue;
                size_t l = tk >= 0   ? ooc_map_lane(&sc->map, rank_index, LANE_TASK, tk)
                           : th >= 0 ? ooc_map_lane(&sc->map, rank_index, LANE_THREAD, th)
                                     : ooc_map_lane(&sc->map, rank_index, LANE_RANK, -1);
                if (l == SIZE_MAX)
                    return -1;
                ooc_map_add(&sc->map, l, 0, s, src->e[i], src->reg);
            }
        if (rc < 0)
            return -1;
    }
    return ooc_scan_rank_entry(sc, rank_index, first, false) ? 0 : -1;
}

/* ------------------------------------------------------------ from lanes */

bool ooc_scan_feed_lanes(ooc_scan *sc, size_t rank_index, const lanes_index *ix, size_t ix_rank,
                         const uint32_t *regmap)
{
    const rank_data *rk = &ix->prof->ranks[ix_rank];
    for (size_t i = 0; i < sc->nsinks; i++) { /* the sinks that read an index take it */
        const ooc_sink *k = &sc->sinks[i];
        ooc_sink_lanes_fn hook = lanes_of(sc, k);
        if (k->muted)
            continue;
        if (!hook) {
            if (!is_flat(sc, k->self)) /* fed by sinks_flat below instead */
                k->ops->lose(k->self, OOC_SINK_UNSWEPT);
        } else if (!hook(k->self, rank_index, ix, ix_rank, regmap)) {
            return false;
        }
    }
    for (size_t k = ix->rank_lane0[ix_rank]; k < ix->rank_lane0[ix_rank + 1]; k++) {
        const lane *ln = &ix->lanes[k];
        size_t l = ooc_map_lane(&sc->map, rank_index, ln->kind, ln->row);
        if (l == SIZE_MAX)
            return false;
        for (uint32_t d = 0; d < ln->ndepth; d++)
            for (size_t q = 0; q < ln->rows[d].n; q++) {
                size_t i, j = rank_call_region_at(rk, lane_row_call(&ln->rows[d], q), &i);
                if (j >= rk->nregions)
                    continue;
                const region *r = rk->regions[j];
                uint32_t reg = regmap ? regmap[j] : (uint32_t)j;
                ooc_map_add(&sc->map, l, d, r->start_ns[i], r->end_ns[i], reg);
                if (!sinks_flat(sc, rank_index, reg, i, true, r->start_ns[i], r->end_ns[i]))
                    return false;
            }
    }
    return true;
}

static bool dup64(const int64_t *v, size_t n, int64_t **out)
{
    *out = malloc((n ? n : 1) * sizeof **out);
    if (*out && n)
        memcpy(*out, v, n * sizeof **out);
    return *out != NULL;
}

bool ooc_scan_take_seek(ooc_scan *sc, size_t rank_index, const ooc_seek *ref, size_t ref_rank,
                        const uint32_t *regmap)
{
    for (size_t i = 0; i < ref->nrows; i++) {
        const ooc_seek_row *r = &ref->rows[i];
        if (r->rank_index != ref_rank)
            continue;
        if (!sv_grow((void **)&sc->seek.rows, &sc->rows_cap, sc->seek.nrows + 1,
                     sizeof *sc->seek.rows, 8))
            return false;
        ooc_seek_row *d = &sc->seek.rows[sc->seek.nrows++];
        *d = (ooc_seek_row){rank_index, regmap ? regmap[r->region_index] : r->region_index,
                            r->n,       r->npts,
                            NULL,       NULL,
                            NULL};
        if (!dup64(r->start, r->npts, &d->start) || !dup64(r->smin, r->npts, &d->smin) ||
            !dup64(r->smax, r->npts, &d->smax))
            return false;
    }
    const ooc_seek_rank *k = ref_rank < ref->nranks ? &ref->ranks[ref_rank] : NULL;
    ooc_seek_rank *rk = rank_entry(sc, rank_index, k ? k->ninferred : 0);
    if (!rk || !k)
        return rk != NULL;
    rk->windowable = k->windowable;
    for (size_t c = 0; c < k->ncp; c++) {
        const ooc_checkpoint *cp = &k->cp[c];
        ooc_open_call *o = malloc((cp->count ? cp->count : 1) * sizeof *o);
        ocall *v = malloc((cp->count ? cp->count : 1) * sizeof *v);
        bool ok = o && v;
        for (size_t i = 0; ok && i < cp->count; i++) {
            const ooc_open_call *x = &k->open[cp->first + i];
            v[i] = (ocall){.sp = {x->start, x->end},
                           .pos = x->pos,
                           .reg = regmap ? regmap[x->region_index] : x->region_index,
                           .lane = (uint16_t)x->lane,
                           .kept = true};
        }
        ok = ok && add_cp(rk, cp->t, v, cp->count);
        free(o);
        free(v);
        if (!ok)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------ lane keys */

bool ooc_keyset_add(ooc_keyset *k, int64_t thread, int64_t task)
{
    int64_t kind = task >= 0 ? LANE_TASK : thread >= 0 ? LANE_THREAD : LANE_RANK;
    int64_t row = task >= 0 ? task : thread >= 0 ? thread : -1;
    if (2 * (k->n + 1) > k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 64;
        int64_t *t = malloc(2 * cap * sizeof *t);
        if (!t)
            return false;
        for (size_t i = 0; i < cap; i++)
            t[2 * i] = -1;
        for (size_t i = 0; i < k->cap; i++) {
            if (k->v[2 * i] < 0)
                continue;
            size_t h = ghash(k->v[2 * i], k->v[2 * i + 1]) & (cap - 1);
            while (t[2 * h] >= 0)
                h = (h + 1) & (cap - 1);
            t[2 * h] = k->v[2 * i];
            t[2 * h + 1] = k->v[2 * i + 1];
        }
        free(k->v);
        k->v = t;
        k->cap = cap;
    }
    size_t h = ghash(kind, row) & (k->cap - 1);
    while (k->v[2 * h] >= 0) {
        if (k->v[2 * h] == kind && k->v[2 * h + 1] == row)
            return true;
        h = (h + 1) & (k->cap - 1);
    }
    k->v[2 * h] = kind;
    k->v[2 * h + 1] = row;
    k->n++;
    return true;
}

void ooc_keyset_free(ooc_keyset *k)
{
    free(k->v);
    memset(k, 0, sizeof *k);
}
