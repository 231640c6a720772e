/* ooc_lanefig: per-lane figures from the sweep (ooc_lanefig.h). */
#include "ooc_lanefig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate/wire.h"
#include "model/profile.h"
#include "ooc_excl.h"
#include "ooc_map.h"
#include "util/checked.h"
#include "util/grow.h"
#include "util/hash.h"

/* A lane's sparkline slices cost 8 bytes each; a (lane, region) pair of
 * the exclusive sums 24 bytes: each capped at a sixteenth of the budget,
 * never below the MIN. */
#define SPARK_LANES_MIN 256u
#define EXCL_PAIRS_MIN 4096u

/* An open call's tag on its sweep stack (ooc_excl.h): its lane's figure
 * (UINT32_MAX: a call the filter leaves out) and its region. */
static uint64_t call_tag(uint32_t fig, uint32_t reg)
{
    return (uint64_t)fig << 32 | reg;
}

/* Exclusive time of a region in a lane of the rank being swept. */
typedef struct xpair {
    uint32_t fig, reg;
    int64_t excl;
} xpair;

typedef struct facc {
    lanefig f;
    int64_t cover_end; /* the depth-0 union's right end */
} facc;

struct ooc_lanefig {
    const ooc_map *map;
    lane_figs *out;
    facc *v;
    size_t n, cap;
    size_t spark_cap; /* lanes the slices may take */
    size_t bins_cap;  /* lanes the slices array holds */
    size_t xcap;      /* (lane, region) pairs allowed */
    bool lost;
    /* the rank being swept */
    bool in_rank;
    size_t rank;
    size_t fig0; /* its first figure */
    int64_t rank_end, rank_busy;
    uint32_t *keyfig; /* per stack key: figure + 1, 0 not yet */
    size_t nkey;
    sv_itab lix;        /* the rank's figures by (kind, row) */
    ooc_excl_stack *st; /* per stack key */
    size_t nst;
    xpair *xv; /* the rank's (figure, region) pairs */
    size_t xn, xvcap;
    sv_itab xix;    /* them by (figure, region) */
    int64_t *rexcl; /* per region of the rank: exclusive time over its lanes */
    size_t nrexcl;
    int64_t kmin, kmax; /* the kept calls' first start and last end */
};

static void set_why(char *dst, size_t len, const char *why)
{
    if (!dst[0])
        snprintf(dst, len, "%s", why);
}

ooc_lanefig *ooc_lanefig_new(const ooc_map *map, int64_t t0, int64_t t1, uint64_t budget)
{
    ooc_lanefig *lf = calloc(1, sizeof *lf);
    if (lf && !(lf->out = calloc(1, sizeof *lf->out))) {
        free(lf);
        return NULL;
    }
    if (!lf)
        return NULL;
    lf->map = map;
    lf->kmin = INT64_MAX;
    lf->kmax = INT64_MIN;
    lane_figs *o = lf->out;
    o->t0 = t0 <= t1 ? t0 : 0;
    o->t1 = t0 <= t1 ? t1 : 0;
    /* the view's slices of an empty span: [t0, t0 + 1) */
    o->b0 = o->t0;
    o->b1 = o->t1 > o->t0 ? o->t1 : ck_add(o->t0, 1);
    o->busiest_ok = true;
    uint64_t sc = budget ? budget / 16 / (LANEFIG_BINS * sizeof(int64_t)) : SIZE_MAX / 2;
    uint64_t xc = budget ? budget / 16 / sizeof(xpair) : UINT32_MAX / 4;
    lf->spark_cap = sc < SPARK_LANES_MIN ? SPARK_LANES_MIN : sc > SIZE_MAX / 2 ? SIZE_MAX / 2 : sc;
    lf->xcap = xc < EXCL_PAIRS_MIN ? EXCL_PAIRS_MIN : xc > UINT32_MAX / 4 ? UINT32_MAX / 4 : xc;
    return lf;
}

static void drop_rank_state(ooc_lanefig *lf)
{
    for (size_t i = 0; i < lf->nst; i++)
        ooc_excl_clear(&lf->st[i]);
    if (lf->keyfig)
        memset(lf->keyfig, 0, lf->nkey * sizeof *lf->keyfig);
    sv_itab_clear(&lf->lix);
    sv_itab_clear(&lf->xix);
    lf->xn = 0;
    if (lf->rexcl)
        memset(lf->rexcl, 0, lf->nrexcl * sizeof *lf->rexcl);
    lf->in_rank = false;
}

void ooc_lanefig_free(ooc_lanefig *lf)
{
    if (!lf)
        return;
    for (size_t i = 0; i < lf->nst; i++)
        ooc_excl_free(&lf->st[i]);
    free(lf->st);
    free(lf->keyfig);
    sv_itab_free(&lf->lix);
    sv_itab_free(&lf->xix);
    free(lf->xv);
    free(lf->rexcl);
    free(lf->v);
    lane_figs_free(lf->out);
    free(lf);
}

void lane_figs_free(lane_figs *f)
{
    if (!f)
        return;
    free(f->v);
    free(f->ranks);
    free(f->bins);
    free(f);
}

void ooc_lanefig_lose(ooc_lanefig *lf, const char *why)
{
    if (!lf)
        return;
    lf->lost = true;
    set_why(lf->out->lost_why, sizeof lf->out->lost_why, why);
}

/* ------------------------------------------------------------ slices */

/* floor(span * b / n) without overflow (lanestats.c's bin_edge). */
static uint64_t bin_edge(uint64_t span, uint64_t b, uint64_t n)
{
    return span / n * b + span % n * b / n;
}

static int64_t edge(const lane_figs *o, size_t b)
{
    uint64_t span = (uint64_t)o->b1 - (uint64_t)o->b0;
    return (int64_t)((uint64_t)o->b0 + bin_edge(span, b, LANEFIG_BINS));
}

/* Adds [a, z) of the union of figure k to its slices. */
static void slice_add(ooc_lanefig *lf, size_t k, int64_t a, int64_t z)
{
    lane_figs *o = lf->out;
    if (!o->bins)
        return;
    a = a > o->b0 ? a : o->b0;
    z = z < o->b1 ? z : o->b1;
    if (z <= a)
        return;
    double span = ck_diff_f64(o->b1, o->b0);
    size_t b = (size_t)(ck_diff_f64(a, o->b0) / span * LANEFIG_BINS);
    b = b < LANEFIG_BINS ? b : LANEFIG_BINS - 1;
    while (b > 0 && edge(o, b) > a)
        b--;
    while (b + 1 < LANEFIG_BINS && edge(o, b + 1) <= a)
        b++;
    int64_t *v = o->bins + k * LANEFIG_BINS;
    for (; b < LANEFIG_BINS && edge(o, b) < z; b++) {
        int64_t lo = edge(o, b), hi = edge(o, b + 1);
        lo = lo > a ? lo : a;
        hi = hi < z ? hi : z;
        if (hi > lo)
            v[b] = ck_add(v[b], ck_sub(hi, lo));
    }
}

static void spark_off(ooc_lanefig *lf, const char *why)
{
    free(lf->out->bins);
    lf->out->bins = NULL;
    set_why(lf->out->spark_why, sizeof lf->out->spark_why, why);
}

/* Room for the slices of n figures; false on NOMEM. */
static bool bins_room(ooc_lanefig *lf, size_t n)
{
    lane_figs *o = lf->out;
    if (o->spark_why[0])
        return true;
    if (n > lf->spark_cap) {
        char why[sizeof o->spark_why];
        snprintf(why, sizeof why,
                 "more than %zu lanes, the most whose load the memory budget allows (--memory)",
                 lf->spark_cap);
        spark_off(lf, why);
        return true;
    }
    if (n <= lf->bins_cap)
        return true;
    size_t cap = lf->bins_cap ? 2 * lf->bins_cap : 16;
    cap = cap < n ? n : cap;
    int64_t *b = realloc(o->bins, cap * LANEFIG_BINS * sizeof *b);
    if (!b)
        return false;
    memset(b + lf->bins_cap * LANEFIG_BINS, 0, (cap - lf->bins_cap) * LANEFIG_BINS * sizeof *b);
    o->bins = b;
    lf->bins_cap = cap;
    return true;
}

/* ------------------------------------------------------------ exclusive */

static bool xpair_eq(const void *ctx, uint32_t i, const void *key)
{
    const xpair *p = &((const ooc_lanefig *)ctx)->xv[i], *k = key;
    return p->fig == k->fig && p->reg == k->reg;
}

static uint64_t xpair_hash(const void *ctx, uint32_t i)
{
    const xpair *p = &((const ooc_lanefig *)ctx)->xv[i];
    return sv_hash_pair(p->fig, p->reg);
}

static void busiest_off(ooc_lanefig *lf)
{
    lane_figs *o = lf->out;
    if (!o->busiest_ok)
        return;
    o->busiest_ok = false;
    snprintf(o->busiest_why, sizeof o->busiest_why,
             "more than %zu (lane, region) pairs in a rank, the most the memory budget allows "
             "(--memory)",
             lf->xcap);
}

/* Exclusive time x of a kept call of region reg in figure fig. */
static bool add_excl(ooc_lanefig *lf, uint32_t fig, uint32_t reg, int64_t x)
{
    if (!lf->out->busiest_ok)
        return true;
    if (reg >= lf->nrexcl) {
        size_t n = (size_t)reg + 1 > 2 * lf->nrexcl ? (size_t)reg + 1 : 2 * lf->nrexcl;
        int64_t *v = realloc(lf->rexcl, n * sizeof *v);
        if (!v)
            return false;
        memset(v + lf->nrexcl, 0, (n - lf->nrexcl) * sizeof *v);
        lf->rexcl = v;
        lf->nrexcl = n;
    }
    lf->rexcl[reg] = ck_add(lf->rexcl[reg], x);
    xpair key = {fig, reg, 0};
    uint64_t h = sv_hash_pair(fig, reg);
    uint32_t i = sv_itab_find(&lf->xix, h, xpair_eq, lf, &key);
    if (i == UINT32_MAX) {
        if (lf->xn >= lf->xcap) {
            busiest_off(lf);
            return true;
        }
        if (!sv_grow((void **)&lf->xv, &lf->xvcap, lf->xn + 1, sizeof *lf->xv, 64))
            return false;
        i = (uint32_t)lf->xn;
        lf->xv[i] = key;
        if (!sv_itab_add(&lf->xix, h, i, 256, xpair_hash, lf))
            return false;
        lf->xn++;
    }
    lf->xv[i].excl = ck_add(lf->xv[i].excl, x);
    return true;
}

/* The most exclusive time, the lowest region of equals, none at 0 (as
 * lanestats.c picks). */
static void pick(uint32_t *best, int64_t *best_x, uint32_t reg, int64_t x)
{
    if (x > 0 && (x > *best_x || (x == *best_x && reg < *best)))
        *best = reg, *best_x = x;
}

/* ------------------------------------------------------------ one rank */

static bool leave(ooc_lanefig *lf, ooc_excl_stack *st)
{
    uint64_t tag;
    int64_t x = ooc_excl_pop(st, &tag);
    uint32_t fig = (uint32_t)(tag >> 32), reg = (uint32_t)tag;
    return fig == UINT32_MAX || add_excl(lf, fig, reg, x);
}

static bool end_rank(ooc_lanefig *lf)
{
    if (!lf->in_rank)
        return true;
    for (size_t i = 0; i < lf->nst; i++)
        while (ooc_excl_depth(&lf->st[i]))
            if (!leave(lf, &lf->st[i]))
                return false;
    lane_figs *o = lf->out;
    lanefig_rank rr = {lf->rank, lf->rank_busy, UINT32_MAX, 0};
    if (o->busiest_ok) {
        for (size_t i = 0; i < lf->xn; i++) {
            const xpair *p = &lf->xv[i];
            pick(&lf->v[p->fig].f.busiest, &lf->v[p->fig].f.busiest_excl, p->reg, p->excl);
        }
        for (size_t j = 0; j < lf->nrexcl; j++)
            pick(&rr.busiest, &rr.busiest_excl, (uint32_t)j, lf->rexcl[j]);
    }
    lanefig_rank *v = realloc(o->ranks, (o->nranks + 1) * sizeof *v);
    if (!v)
        return false;
    o->ranks = v;
    o->ranks[o->nranks++] = rr;
    drop_rank_state(lf);
    return true;
}

static bool begin_rank(ooc_lanefig *lf, size_t rank)
{
    if (lf->in_rank && lf->rank == rank)
        return true;
    if (!end_rank(lf))
        return false;
    lf->in_rank = true;
    lf->rank = rank;
    lf->fig0 = lf->n;
    lf->rank_end = INT64_MIN;
    lf->rank_busy = 0;
    return true;
}

typedef struct lane_key {
    lane_kind kind;
    int64_t row;
} lane_key;

static bool lane_eq(const void *ctx, uint32_t i, const void *key)
{
    const lanefig *f = &((const ooc_lanefig *)ctx)->v[i].f;
    const lane_key *k = key;
    return f->kind == k->kind && f->row == k->row;
}

static uint64_t lane_hash_of(lane_kind kind, int64_t row)
{
    return sv_hash_pair((uint64_t)kind, (uint64_t)row);
}

static uint64_t lane_hash(const void *ctx, uint32_t i)
{
    const lanefig *f = &((const ooc_lanefig *)ctx)->v[i].f;
    return lane_hash_of(f->kind, f->row);
}

/* The figure of a lane of the rank being swept, made on first use;
 * UINT32_MAX on NOMEM. */
static uint32_t fig_make(ooc_lanefig *lf, size_t rank_index, lane_kind kind, int64_t row)
{
    if (lf->n >= UINT32_MAX - 1)
        return UINT32_MAX;
    lane_key key = {kind, row};
    uint64_t h = lane_hash_of(kind, row);
    uint32_t k = sv_itab_find(&lf->lix, h, lane_eq, lf, &key);
    if (k != UINT32_MAX)
        return k;
    if (!sv_grow((void **)&lf->v, &lf->cap, lf->n + 1, sizeof *lf->v, 16) ||
        !bins_room(lf, lf->n + 1))
        return UINT32_MAX;
    lf->v[lf->n] = (facc){{.rank_index = rank_index,
                           .kind = kind,
                           .row = row,
                           .has = true,
                           .first = INT64_MAX,
                           .last = INT64_MIN,
                           .u_first = INT64_MAX,
                           .u_last = INT64_MIN,
                           .busiest = UINT32_MAX,
                           .long_s = 1,
                           .long_e = 0},
                          INT64_MIN};
    if (!sv_itab_add(&lf->lix, h, (uint32_t)lf->n, 64, lane_hash, lf))
        return UINT32_MAX;
    return (uint32_t)lf->n++;
}

static uint32_t fig_of_lane(ooc_lanefig *lf, size_t l)
{
    if (l >= lf->map->nlanes)
        return UINT32_MAX;
    const ooc_lane *ol = &lf->map->lanes[l];
    return fig_make(lf, ol->rank_index, ol->kind, ol->row);
}

static uint32_t fig_of(ooc_lanefig *lf, const ooc_call *c)
{
    if (c->key >= lf->nkey) {
        size_t n = c->key + 1 > 2 * lf->nkey ? c->key + 1 : 2 * lf->nkey;
        uint32_t *v = realloc(lf->keyfig, n * sizeof *v);
        if (!v)
            return UINT32_MAX;
        memset(v + lf->nkey, 0, (n - lf->nkey) * sizeof *v);
        lf->keyfig = v;
        lf->nkey = n;
    }
    /* A stack's calls all go to one lane: its (thread, task) or inferred lane. */
    if (!lf->keyfig[c->key]) {
        uint32_t k = fig_of_lane(lf, c->lane);
        if (k == UINT32_MAX)
            return UINT32_MAX;
        lf->keyfig[c->key] = k + 1;
    }
    return lf->keyfig[c->key] - 1;
}

/* The depth-0 union grows at its right end: [s, e] adds what passes end. */
static int64_t grow_union(int64_t *end, int64_t s, int64_t e, int64_t *from)
{
    if (e <= s || e <= *end)
        return 0;
    *from = s > *end ? s : *end;
    *end = e;
    return ck_sub(e, *from);
}

static void top_call(ooc_lanefig *lf, uint32_t k, const ooc_call *c)
{
    facc *a = &lf->v[k];
    lanefig *f = &a->f;
    int64_t from, d = grow_union(&a->cover_end, c->s, c->e, &from);
    if (c->await_ns > 0)
        f->awaited = ck_add(f->awaited, c->await_ns);
    if (d > 0) {
        f->busy = ck_add(f->busy, d);
        slice_add(lf, k, from, c->e);
    }
    if (c->e > c->s) {
        f->u_first = c->s < f->u_first ? c->s : f->u_first;
        f->u_last = c->e > f->u_last ? c->e : f->u_last;
    }
    if (f->long_s > f->long_e || ck_sub(c->e, c->s) > ck_sub(f->long_e, f->long_s)) {
        f->long_s = c->s;
        f->long_e = c->e;
        f->long_reg = c->reg;
    }
    lf->rank_busy = ck_add(lf->rank_busy, grow_union(&lf->rank_end, c->s, c->e, &from));
}

bool ooc_lanefig_call(ooc_lanefig *lf, const ooc_call *c)
{
    if (!lf || !begin_rank(lf, c->rank))
        return lf == NULL;
    if (c->key >= lf->nst) {
        ooc_excl_stack *v = realloc(lf->st, (c->key + 1) * sizeof *v);
        if (!v)
            return false;
        memset(v + lf->nst, 0, (c->key + 1 - lf->nst) * sizeof *v);
        lf->st = v;
        lf->nst = c->key + 1;
    }
    ooc_excl_stack *st = &lf->st[c->key];
    while (ooc_excl_depth(st) > c->depth)
        if (!leave(lf, st))
            return false;
    uint32_t k = UINT32_MAX;
    if (c->lane != SIZE_MAX) {
        if ((k = fig_of(lf, c)) == UINT32_MAX)
            return false;
        lanefig *f = &lf->v[k].f;
        f->calls++;
        f->first = c->s < f->first ? c->s : f->first;
        f->last = c->e > f->last ? c->e : f->last;
        lf->kmin = c->s < lf->kmin ? c->s : lf->kmin;
        lf->kmax = c->e > lf->kmax ? c->e : lf->kmax;
        if (c->kdepth == 0)
            top_call(lf, k, c);
    }
    return ooc_excl_push(st, c->s, c->e, call_tag(k, c->reg));
}

/* ------------------------------------------------------------ a rank in memory */

typedef struct span2 {
    int64_t s, e;
} span2;

static int span2_cmp(const void *a, const void *b)
{
    const span2 *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* Lane ln's figure k from its rows (each in start order). */
static bool lane_from_rows(ooc_lanefig *lf, uint32_t k, const lane *ln, const uint32_t *regmap,
                           span2 *top, size_t *ntop)
{
    const rank_data *rk = ln->rk;
    for (uint32_t d = 0; d < ln->ndepth; d++)
        for (size_t q = 0; q < ln->rows[d].n; q++) {
            uint32_t g = lane_row_call(&ln->rows[d], q);
            size_t i = 0, j = rank_call_region_at(rk, g, &i);
            if (j >= rk->nregions)
                continue;
            uint32_t reg = regmap ? regmap[j] : (uint32_t)j;
            const int64_t *aw = rk->regions[j]->await_ns;
            ooc_call c = {
                .rank = lf->rank, .lane = 0, .kdepth = d, .reg = reg, .await_ns = aw ? aw[i] : -1};
            lanes_call_span(rk, g, &c.s, &c.e);
            lanefig *f = &lf->v[k].f;
            f->calls++;
            f->first = c.s < f->first ? c.s : f->first;
            f->last = c.e > f->last ? c.e : f->last;
            lf->kmin = c.s < lf->kmin ? c.s : lf->kmin;
            lf->kmax = c.e > lf->kmax ? c.e : lf->kmax;
            if (d == 0) {
                top_call(lf, k, &c);
                if (c.e > c.s)
                    top[(*ntop)++] = (span2){c.s, c.e};
            }
            if (rk->calls && !add_excl(lf, k, reg, rank_call_excl(rk, g)))
                return false;
        }
    return true;
}

bool ooc_lanefig_lanes(void *self, size_t rank_index, const lanes_index *ix, size_t ix_rank,
                       const uint32_t *regmap)
{
    ooc_lanefig *lf = self;
    if (!lf)
        return true;
    if (!end_rank(lf) || !begin_rank(lf, rank_index))
        return false;
    size_t a = ix->rank_lane0[ix_rank], z = ix->rank_lane0[ix_rank + 1], n = 0;
    for (size_t l = a; l < z; l++)
        n += ix->lanes[l].ndepth ? ix->lanes[l].rows[0].n : 0;
    span2 *top = malloc((n ? n : 1) * sizeof *top);
    bool ok = top != NULL;
    n = 0;
    for (size_t l = a; ok && l < z; l++) {
        const lane *ln = &ix->lanes[l];
        uint32_t k = fig_make(lf, rank_index, ln->kind, ln->row);
        ok = k != UINT32_MAX && lane_from_rows(lf, k, ln, regmap, top, &n);
    }
    /* The rank's union over its lanes: their calls are not in one order. */
    if (ok && n > 1)
        qsort(top, n, sizeof *top, span2_cmp);
    int64_t end = INT64_MIN, from;
    lf->rank_busy = 0;
    for (size_t i = 0; ok && i < n; i++)
        lf->rank_busy = ck_add(lf->rank_busy, grow_union(&end, top[i].s, top[i].e, &from));
    free(top);
    return ok && end_rank(lf);
}

static bool sink_call(void *self, const ooc_call *c)
{
    return ooc_lanefig_call(self, c);
}

static void sink_lose(void *self, const char *why)
{
    ooc_lanefig_lose(self, why);
}

static void sink_free(void *self)
{
    ooc_lanefig_free(self);
}

const ooc_sink_ops ooc_lanefig_sink = {"lanefig", sink_call, sink_lose, sink_free};

/* ------------------------------------------------------------ taking */

/* The map lane of figure f: the lane it was made for.  A rank's first
 * inferred lane was the rank's lane until a second one appeared
 * (ooc_scan.c renames it in place): the figure kept the old name. */
static size_t map_lane_of(const ooc_map *m, const lanefig *f)
{
    size_t l = ooc_map_find_lane(m, f->rank_index, f->kind, f->row);
    if (l == SIZE_MAX && f->kind == LANE_RANK)
        l = ooc_map_find_lane(m, f->rank_index, LANE_INFERRED, 0);
    return l;
}

lane_figs *ooc_lanefig_take(ooc_lanefig *lf, const ooc_map *map)
{
    if (!lf || !end_rank(lf))
        return NULL;
    lane_figs *o = lf->out;
    /* The grid's bounds come from the rows' statistics: a swept call
     * outside them (never seen) widens the span, and the slices, cut on
     * the old one, are left out rather than shown shifted. */
    if (lf->n && (lf->kmin < o->t0 || lf->kmax > o->t1)) {
        o->t0 = lf->kmin < o->t0 ? lf->kmin : o->t0;
        o->t1 = lf->kmax > o->t1 ? lf->kmax : o->t1;
        spark_off(lf, "the calls reach beyond the span the load measured");
    }
    size_t n = map->nlanes;
    lanefig *v = calloc(n ? n : 1, sizeof *v);
    /* No figure made (every rank lost): empty slices, not missing ones. */
    bool slices = o->bins || !o->spark_why[0];
    int64_t *bins = slices ? calloc((n ? n : 1) * LANEFIG_BINS, sizeof *bins) : NULL;
    bool ok = v && (bins || !slices);
    for (size_t l = 0; ok && l < n; l++) {
        const ooc_lane *ol = &map->lanes[l];
        v[l] = (lanefig){.rank_index = ol->rank_index,
                         .kind = ol->kind,
                         .row = ol->row,
                         .busiest = UINT32_MAX,
                         .long_s = 1};
    }
    for (size_t i = 0; ok && i < lf->n; i++) {
        size_t l = map_lane_of(map, &lf->v[i].f);
        ok = l != SIZE_MAX && !v[l].has;
        if (!ok)
            break;
        lanefig f = lf->v[i].f;
        f.kind = map->lanes[l].kind;
        f.row = map->lanes[l].row;
        v[l] = f;
        if (bins && o->bins)
            memcpy(bins + l * LANEFIG_BINS, o->bins + i * LANEFIG_BINS,
                   LANEFIG_BINS * sizeof *bins);
    }
    if (!ok) {
        free(v);
        free(bins);
        ooc_lanefig_free(lf);
        return NULL;
    }
    free(o->bins);
    o->bins = bins;
    o->v = v;
    o->n = n;
    lf->out = NULL;
    ooc_lanefig_free(lf);
    return o;
}

int lane_figs_slices(const lane_figs *f, size_t l, int ncols, double *out)
{
    if (!f || !f->bins || l >= f->n || ncols < 1)
        return 0;
    int n = ncols < LANEFIG_BINS ? ncols : LANEFIG_BINS;
    while (LANEFIG_BINS % n)
        n--;
    size_t per = LANEFIG_BINS / (size_t)n;
    const int64_t *v = f->bins + l * LANEFIG_BINS;
    for (int c = 0; c < n; c++) {
        int64_t sum = 0;
        for (size_t b = (size_t)c * per; b < (size_t)(c + 1) * per; b++)
            sum = ck_add(sum, v[b]);
        int64_t a = edge(f, (size_t)c * per), z = edge(f, (size_t)(c + 1) * per);
        out[c] = z > a ? (double)sum / ck_diff_f64(z, a) : 0.0;
    }
    return n;
}

/* ------------------------------------------------------------ the wire */

#define FIG_WORDS 16

/* Layout: t0, t1, b0, b1, the three whys, busiest_ok, n, each lane's 15
 * words, nranks, each rank's 4, whether slices follow, then n *
 * LANEFIG_BINS words. */
void lane_figs_put(wire_w *w, const lane_figs *f)
{
    static const lane_figs none = {0};
    bool have = f != NULL;
    f = f ? f : &none;
    wire_put_u64(w, have);
    uint64_t h[4] = {(uint64_t)f->t0, (uint64_t)f->t1, (uint64_t)f->b0, (uint64_t)f->b1};
    wire_put_bytes(w, h, sizeof h);
    wire_put_str(w, have ? f->lost_why : "the lanes' figures were not computed");
    wire_put_str(w, f->busiest_why);
    wire_put_str(w, f->spark_why);
    wire_put_u64(w, f->busiest_ok);
    wire_put_u64(w, f->n);
    for (size_t i = 0; i < f->n; i++) {
        const lanefig *x = &f->v[i];
        uint64_t v[FIG_WORDS] = {x->rank_index,
                                 (uint64_t)x->kind,
                                 (uint64_t)x->row,
                                 x->has,
                                 x->calls,
                                 (uint64_t)x->first,
                                 (uint64_t)x->last,
                                 (uint64_t)x->busy,
                                 (uint64_t)x->u_first,
                                 (uint64_t)x->u_last,
                                 x->busiest,
                                 (uint64_t)x->busiest_excl,
                                 (uint64_t)x->long_s,
                                 (uint64_t)x->long_e,
                                 x->long_reg,
                                 (uint64_t)x->awaited};
        wire_put_bytes(w, v, sizeof v);
    }
    wire_put_u64(w, f->nranks);
    for (size_t i = 0; i < f->nranks; i++) {
        const lanefig_rank *x = &f->ranks[i];
        uint64_t v[4] = {x->rank_index, (uint64_t)x->busy_any, x->busiest,
                         (uint64_t)x->busiest_excl};
        wire_put_bytes(w, v, sizeof v);
    }
    wire_put_u64(w, f->bins != NULL);
    for (size_t i = 0; f->bins && i < f->n; i++)
        wire_put_bytes(w, f->bins + i * LANEFIG_BINS, LANEFIG_BINS * sizeof *f->bins);
}

static bool get_why(wire_r *r, char *dst, size_t len)
{
    char *s = wire_get_str(r);
    snprintf(dst, len, "%s", s ? s : "");
    free(s);
    return s != NULL;
}

static bool get_fig(wire_r *r, lanefig *x)
{
    uint64_t v[FIG_WORDS];
    if (!wire_get_bytes(r, v, sizeof v) || v[1] > LANE_INFERRED || v[3] > 1 ||
        v[0] >= SIZE_MAX / 2 || v[10] > UINT32_MAX || v[14] > UINT32_MAX)
        return false;
    *x = (lanefig){.rank_index = (size_t)v[0],
                   .kind = (lane_kind)v[1],
                   .row = (int64_t)v[2],
                   .has = v[3] != 0,
                   .calls = v[4],
                   .first = (int64_t)v[5],
                   .last = (int64_t)v[6],
                   .busy = (int64_t)v[7],
                   .u_first = (int64_t)v[8],
                   .u_last = (int64_t)v[9],
                   .busiest = (uint32_t)v[10],
                   .busiest_excl = (int64_t)v[11],
                   .long_s = (int64_t)v[12],
                   .long_e = (int64_t)v[13],
                   .long_reg = (uint32_t)v[14],
                   .awaited = (int64_t)v[15]};
    return true;
}

lane_figs *lane_figs_get(wire_r *r)
{
    lane_figs *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    bool have = wire_get_u64(r) != 0;
    uint64_t h[4];
    bool ok = wire_get_bytes(r, h, sizeof h);
    f->t0 = (int64_t)h[0], f->t1 = (int64_t)h[1], f->b0 = (int64_t)h[2], f->b1 = (int64_t)h[3];
    ok = ok && get_why(r, f->lost_why, sizeof f->lost_why) &&
         get_why(r, f->busiest_why, sizeof f->busiest_why) &&
         get_why(r, f->spark_why, sizeof f->spark_why);
    f->busiest_ok = wire_get_u64(r) != 0;
    size_t n = wire_get_count(r, FIG_WORDS * sizeof(uint64_t));
    ok = ok && have && wire_get_ok(r) && (f->v = calloc(n ? n : 1, sizeof *f->v));
    for (size_t i = 0; ok && i < n; i++)
        ok = get_fig(r, &f->v[i]);
    f->n = ok ? n : 0;
    size_t nr = ok ? wire_get_count(r, 4 * sizeof(uint64_t)) : 0;
    ok = ok && wire_get_ok(r) && (f->ranks = calloc(nr ? nr : 1, sizeof *f->ranks));
    for (size_t i = 0; ok && i < nr; i++) {
        uint64_t v[4];
        ok = wire_get_bytes(r, v, sizeof v) && v[0] < SIZE_MAX / 2 && v[2] <= UINT32_MAX;
        f->ranks[i] = (lanefig_rank){(size_t)v[0], (int64_t)v[1], (uint32_t)v[2], (int64_t)v[3]};
    }
    f->nranks = ok ? nr : 0;
    if (ok && wire_get_u64(r) != 0) {
        ok = n < SIZE_MAX / 16 / LANEFIG_BINS &&
             (f->bins = wire_get_alloc(r, n ? n * LANEFIG_BINS : 1, sizeof *f->bins)) != NULL;
        ok = ok && (!n || wire_get_bytes(r, f->bins, n * LANEFIG_BINS * sizeof *f->bins));
    }
    if (!ok || !wire_get_ok(r)) {
        lane_figs_free(f);
        return NULL;
    }
    return f;
}

static bool region_ok(const profile *skel, size_t rank, uint32_t reg)
{
    return reg == UINT32_MAX || reg < skel->ranks[rank].nregions;
}

/* A lane's figures as the sweep makes them: within the span, the union no
 * longer than its extent, the slices adding up to it. */
static bool fig_ok(const lane_figs *f, size_t l, const ooc_lane *ol, const profile *skel)
{
    const lanefig *x = &f->v[l];
    if (x->rank_index != ol->rank_index || x->kind != ol->kind || x->row != ol->row ||
        x->rank_index >= skel->nranks)
        return false;
    if (!x->has)
        return f->lost_why[0] != '\0' && x->calls == 0 && x->busy == 0 && x->awaited == 0;
    if (x->awaited < 0)
        return false;
    if (x->calls != ol->ncalls || !region_ok(skel, x->rank_index, x->busiest) ||
        (x->busiest != UINT32_MAX && x->busiest_excl <= 0))
        return false;
    if (x->calls && (x->first > x->last || x->first < f->t0 || x->last > f->t1))
        return false;
    if (x->busy < 0 || (x->busy > 0 && (x->u_first < x->first || x->u_last > x->last ||
                                        x->busy > ck_sub(x->u_last, x->u_first))))
        return false;
    if (x->long_s <= x->long_e && !region_ok(skel, x->rank_index, x->long_reg))
        return false;
    if (!f->bins)
        return true;
    int64_t sum = 0;
    for (size_t b = 0; b < LANEFIG_BINS; b++) {
        if (f->bins[l * LANEFIG_BINS + b] < 0)
            return false;
        sum = ck_add(sum, f->bins[l * LANEFIG_BINS + b]);
    }
    return sum == x->busy;
}

bool lane_figs_valid(const lane_figs *f, const ooc_map *map, const profile *skel)
{
    if (!f || f->n != map->nlanes || f->t0 > f->t1 || (f->bins && f->b0 >= f->b1))
        return false;
    for (size_t l = 0; l < f->n; l++)
        if (!fig_ok(f, l, &map->lanes[l], skel))
            return false;
    for (size_t i = 0; i < f->nranks; i++) {
        const lanefig_rank *x = &f->ranks[i];
        if (x->rank_index >= skel->nranks || (i && x->rank_index <= f->ranks[i - 1].rank_index) ||
            x->busy_any < 0 || ck_sub(f->t1, f->t0) < x->busy_any ||
            !region_ok(skel, x->rank_index, x->busiest))
            return false;
    }
    return true;
}
