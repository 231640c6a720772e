/* ooc_bins: duration-over-time bins from the sweep (ooc_bins.h). */
#include "ooc_bins.h"
#include "ooc_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate/wire.h"
#include "model/profile.h"
#include "util/checked.h"
#include "util/grow.h"

struct ooc_bins {
    time_bins *out;
    size_t rows_cap;
    size_t *vcap;     /* each row's bins allocated */
    size_t held, cap; /* bins allocated over the rows, the most allowed */
    size_t rank;      /* the rank the map below is of */
    size_t *row_of;   /* row index + 1 by region index, 0 none */
    size_t nrow_of;
    /* The sweep's map: a bin keeps its longest call's lane by its map
     * number (ooc_lane.uid), made an index at take, since a lane added
     * later may move the index it had. */
    const ooc_map *map;
};

void ooc_bins_use_map(ooc_bins *b, const ooc_map *map)
{
    if (b)
        b->map = map;
}

ooc_bins *ooc_bins_new(uint64_t budget, int64_t t_min, int64_t t_max)
{
    ooc_bins *b = calloc(1, sizeof *b);
    if (b && !(b->out = calloc(1, sizeof *b->out))) {
        free(b);
        return NULL;
    }
    if (!b)
        return NULL;
    uint64_t c = budget ? budget / 16 / sizeof(tbin) : SIZE_MAX;
    b->cap = c < TB_HELD_MIN ? TB_HELD_MIN : c > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)c;
    time_bins *t = b->out;
    int64_t span = t_max > t_min ? ck_sub(t_max, t_min) : 0;
    t->available = true;
    t->t0 = t_min;
    t->width = span / TB_BINS_MAX + 1;
    t->nbins = (uint32_t)(span / t->width + 1);
    b->rank = SIZE_MAX;
    return b;
}

void ooc_bins_free(ooc_bins *b)
{
    if (!b)
        return;
    time_bins_free(b->out);
    free(b->vcap);
    free(b->row_of);
    free(b);
}

static void drop_rows(ooc_bins *b)
{
    time_bins *t = b->out;
    for (size_t i = 0; i < t->nrows; i++)
        free(t->rows[i].v);
    free(t->rows);
    t->rows = NULL;
    t->nrows = 0;
    b->rows_cap = 0;
    free(b->vcap);
    b->vcap = NULL;
    b->held = 0;
    b->rank = SIZE_MAX;
}

void ooc_bins_lose(ooc_bins *b, const char *why)
{
    if (!b || !b->out->available)
        return;
    b->out->available = false;
    snprintf(b->out->why, sizeof b->out->why, "%s", why);
    drop_rows(b);
}

/* ------------------------------------------------------------ the rows */

/* The row of (rank, reg), made on its first call; NULL on NOMEM. */
static tbins_row *row_for(ooc_bins *b, size_t rank, uint32_t reg)
{
    if (rank != b->rank) { /* ranks come one after the other */
        if (b->nrow_of)
            memset(b->row_of, 0, b->nrow_of * sizeof *b->row_of);
        b->rank = rank;
    }
    if (reg >= b->nrow_of) {
        size_t n = (size_t)reg + 1, *v = realloc(b->row_of, n * sizeof *v);
        if (!v)
            return NULL;
        memset(v + b->nrow_of, 0, (n - b->nrow_of) * sizeof *v);
        b->row_of = v;
        b->nrow_of = n;
    }
    time_bins *t = b->out;
    if (b->row_of[reg])
        return &t->rows[b->row_of[reg] - 1];
    size_t cap = b->rows_cap;
    if (!sv_grow((void **)&t->rows, &b->rows_cap, t->nrows + 1, sizeof *t->rows, 16))
        return NULL;
    if (b->rows_cap != cap) {
        size_t *v = realloc(b->vcap, b->rows_cap * sizeof *v);
        if (!v)
            return NULL;
        b->vcap = v;
    }
    t->rows[t->nrows] = (tbins_row){rank, reg, 0, 0, 0, 0, 0, 0, NULL};
    b->vcap[t->nrows] = 0;
    b->row_of[reg] = ++t->nrows;
    return &t->rows[t->nrows - 1];
}

/* The row's bins reach bin k (grown at either end).  false on NOMEM. */
static bool reach(ooc_bins *b, size_t i, uint32_t k)
{
    tbins_row *r = &b->out->rows[i];
    if (r->nb && k >= r->lo && k < r->lo + r->nb)
        return true;
    uint32_t lo = !r->nb || k < r->lo ? k : r->lo;
    uint32_t hi = !r->nb || k >= r->lo + r->nb ? k : r->lo + r->nb - 1;
    size_t nb = (size_t)(hi - lo) + 1, old = b->vcap[i];
    if (!sv_grow((void **)&r->v, &b->vcap[i], nb, sizeof *r->v, 4))
        return false;
    b->held += b->vcap[i] - old;
    if (r->nb && lo < r->lo)
        memmove(r->v + (r->lo - lo), r->v, r->nb * sizeof *r->v);
    size_t at = r->nb && lo < r->lo ? 0 : r->nb, m = nb - r->nb;
    memset(r->v + at, 0, m * sizeof *r->v);
    r->lo = lo;
    r->nb = (uint32_t)nb;
    return true;
}

/* Bins merged in pairs: bin k becomes k / 2 and the width doubles.
 * false on NOMEM. */
static bool coarsen(ooc_bins *b)
{
    time_bins *t = b->out;
    if (t->width > INT64_MAX / 2)
        return true; /* cannot happen within an int64 span */
    size_t held = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        tbins_row *r = &t->rows[i];
        uint32_t lo = r->lo / 2, hi = r->nb ? (r->lo + r->nb - 1) / 2 : lo;
        size_t nb = r->nb ? (size_t)(hi - lo) + 1 : 0;
        tbin *v = calloc(nb ? nb : 1, sizeof *v);
        if (!v)
            return false;
        for (uint32_t j = 0; j < r->nb; j++)
            tbin_merge(&v[(r->lo + j) / 2 - lo], &r->v[j]);
        free(r->v);
        r->v = v;
        r->lo = lo;
        r->nb = (uint32_t)nb;
        b->vcap[i] = nb ? nb : 1;
        held += b->vcap[i];
    }
    b->held = held;
    t->width *= 2;
    t->nbins = (t->nbins + 1) / 2;
    return true;
}

static void over_cap(ooc_bins *b)
{
    char why[sizeof b->out->why];
    snprintf(why, sizeof why,
             "more regions' rows than the memory budget holds %u time bins each for (--memory)",
             TB_BINS_MIN);
    ooc_bins_lose(b, why);
}

bool ooc_bins_call(ooc_bins *b, size_t rank_index, uint32_t reg, uint64_t pos, int64_t s, int64_t e)
{
    return ooc_bins_call_at(b, rank_index, reg, pos, s, e, TB_ANY_LANE, 0);
}

bool ooc_bins_call_at(ooc_bins *b, size_t rank_index, uint32_t reg, uint64_t pos, int64_t s,
                      int64_t e, uint32_t lane_no, uint32_t depth)
{
    if (!b || !b->out->available)
        return true;
    tbins_row *r = row_for(b, rank_index, reg);
    if (!r)
        return false;
    size_t i = (size_t)(r - b->out->rows);
    if (!reach(b, i, time_bins_of(b->out, s)))
        return false;
    while (b->held > b->cap) {
        if (b->out->nbins / 2 < TB_BINS_MIN) {
            over_cap(b);
            return true;
        }
        if (!coarsen(b))
            return false;
    }
    r = &b->out->rows[i];
    int64_t d = ck_sub(e, s);
    tbin_add(&r->v[time_bins_of(b->out, s) - r->lo], s, d, pos, lane_no, depth);
    if (!r->n || s < r->first_s || (s == r->first_s && pos < r->first_pos)) {
        r->first_s = s;
        r->first_d = d;
        r->first_pos = pos;
    }
    r->n++;
    return true;
}

static bool sink_call(void *self, const ooc_call *c)
{
    if (c->lane == SIZE_MAX) /* a filter leaves its row out */
        return true;
    ooc_bins *b = self;
    uint32_t no = b && b->map && c->lane < b->map->nlanes ? b->map->lanes[c->lane].uid
                  : c->lane < TB_ANY_LANE                 ? (uint32_t)c->lane
                                                          : TB_ANY_LANE;
    return ooc_bins_call_at(self, c->rank, c->reg, c->pos, c->s, c->e, no, c->kdepth);
}

/* A call fed unnested (ooc_sink.h): its lane and depth are not known. */
static bool flat_call(void *self, const ooc_call *c)
{
    if (c->lane == SIZE_MAX)
        return true;
    return ooc_bins_call(self, c->rank, c->reg, c->pos, c->s, c->e);
}

static void sink_lose(void *self, const char *why)
{
    ooc_bins_lose(self, why);
}

static void sink_free(void *self)
{
    ooc_bins_free(self);
}

const ooc_sink_ops ooc_bins_sink = {"bins", sink_call, sink_lose, sink_free};
const ooc_flat_ops ooc_bins_flat = {flat_call};

static int row_cmp(const void *x, const void *y)
{
    const tbins_row *a = x, *b = y;
    if (a->rank_index != b->rank_index)
        return a->rank_index < b->rank_index ? -1 : 1;
    return (a->reg > b->reg) - (a->reg < b->reg);
}

/* A row met twice (a rank fed again): b's bins into a.  false on NOMEM. */
static bool merge_rows(tbins_row *a, tbins_row *b)
{
    uint32_t lo = a->lo < b->lo ? a->lo : b->lo;
    uint32_t ha = a->lo + a->nb, hb = b->lo + b->nb, hi = ha > hb ? ha : hb;
    tbin *v = calloc((size_t)(hi - lo) + 1, sizeof *v);
    if (!v)
        return false;
    for (uint32_t j = 0; j < a->nb; j++)
        tbin_merge(&v[a->lo + j - lo], &a->v[j]);
    for (uint32_t j = 0; j < b->nb; j++)
        tbin_merge(&v[b->lo + j - lo], &b->v[j]);
    if (b->first_s < a->first_s || (b->first_s == a->first_s && b->first_pos < a->first_pos)) {
        a->first_s = b->first_s;
        a->first_d = b->first_d;
        a->first_pos = b->first_pos;
    }
    free(a->v);
    a->v = v;
    a->lo = lo;
    a->nb = hi - lo;
    a->n += b->n;
    return true;
}

/* The bins' lanes from map numbers to the map's indices (unknown where
 * the table cannot be made). */
static void lanes_by_index(const ooc_bins *b, time_bins *t)
{
    if (!b->map)
        return;
    size_t *uidx = ooc_map_uid_index(b->map);
    for (size_t i = 0; i < t->nrows; i++)
        for (size_t j = 0; j < t->rows[i].nb; j++) {
            tbin *x = &t->rows[i].v[j];
            if (x->max_lane != TB_ANY_LANE)
                x->max_lane = uidx && x->max_lane < b->map->nlanes ? (uint32_t)uidx[x->max_lane]
                                                                   : TB_ANY_LANE;
        }
    free(uidx);
}

time_bins *ooc_bins_take(ooc_bins *b)
{
    if (!b)
        return NULL;
    time_bins *t = b->out;
    if (t->nrows > 1)
        qsort(t->rows, t->nrows, sizeof *t->rows, row_cmp);
    size_t n = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        if (n && row_cmp(&t->rows[n - 1], &t->rows[i]) == 0) {
            bool ok = merge_rows(&t->rows[n - 1], &t->rows[i]);
            free(t->rows[i].v);
            if (!ok) {
                t->nrows = n;
                ooc_bins_free(b);
                return NULL;
            }
            continue;
        }
        t->rows[n++] = t->rows[i];
    }
    t->nrows = n;
    lanes_by_index(b, t);
    b->out = NULL;
    ooc_bins_free(b);
    return t;
}

/* ------------------------------------------------------------ the wire */

/* Layout: available, why, t0, width, nbins, nrows (a count); per row rank_index,
 * reg, n, first start, first duration, first position, lo, nb, then per
 * bin n, min, max, sum, max's start, max's position and its lane and
 * depth (8-byte words; lane | depth << 32 in the last). */
void ooc_bins_put(wire_w *w, const time_bins *t)
{
    bool ok = t && t->available;
    wire_put_u64(w, ok);
    wire_put_str(w, t ? t->why : "the time bins were not computed");
    uint64_t h[3] = {ok ? (uint64_t)t->t0 : 0, ok ? (uint64_t)t->width : 1, ok ? t->nbins : 1};
    wire_put_bytes(w, h, sizeof h);
    wire_put_u64(w, ok ? t->nrows : 0);
    for (size_t i = 0; ok && i < t->nrows; i++) {
        const tbins_row *r = &t->rows[i];
        uint64_t v[8] = {r->rank_index,        r->reg,       r->n,  (uint64_t)r->first_s,
                         (uint64_t)r->first_d, r->first_pos, r->lo, r->nb};
        wire_put_bytes(w, v, sizeof v);
        for (uint32_t j = 0; j < r->nb; j++) {
            const tbin *x = &r->v[j];
            uint64_t u[7] = {x->n,
                             (uint64_t)x->min,
                             (uint64_t)x->max,
                             (uint64_t)x->sum,
                             (uint64_t)x->max_s,
                             x->max_pos,
                             x->max_lane | (uint64_t)x->max_depth << 32};
            wire_put_bytes(w, u, sizeof u);
        }
    }
}

/* A bin as a stream can leave it: empty and zero, or min <= max with the
 * sum between n * min and n * max (unless it saturated). */
static bool bin_ok(const tbin *x)
{
    if (!x->n)
        return !x->min && !x->max && !x->sum && !x->max_s && !x->max_pos && !x->max_lane &&
               !x->max_depth;
    if (x->min < 0 || x->min > x->max)
        return false;
    if (x->sum == INT64_MAX)
        return true;
    return x->sum >= x->max && (x->n > (uint64_t)INT64_MAX / (uint64_t)(x->min + 1) ||
                                x->sum >= (int64_t)x->n * x->min);
}

static bool get_row(wire_r *r, const time_bins *t, tbins_row *out)
{
    uint64_t v[8];
    if (!wire_get_bytes(r, v, sizeof v))
        return false;
    if (v[0] >= SIZE_MAX / 2 || v[1] >= UINT32_MAX || v[6] >= t->nbins || v[7] == 0 ||
        v[7] > t->nbins - v[6] || v[2] == 0)
        return false;
    *out = (tbins_row){(size_t)v[0], (uint32_t)v[1], v[2],           (int64_t)v[3], (int64_t)v[4],
                       v[5],         (uint32_t)v[6], (uint32_t)v[7], NULL};
    if (!(out->v = wire_get_alloc(r, out->nb, sizeof *out->v)))
        return false;
    uint64_t n = 0;
    for (uint32_t j = 0; j < out->nb; j++) {
        uint64_t u[7];
        if (!wire_get_bytes(r, u, sizeof u))
            return false;
        tbin *x = &out->v[j];
        *x = (tbin){u[0],
                    (int64_t)u[1],
                    (int64_t)u[2],
                    (int64_t)u[3],
                    (int64_t)u[4],
                    u[5],
                    (uint32_t)(u[6] & 0xffffffffu),
                    (uint32_t)(u[6] >> 32)};
        if (!bin_ok(x) || x->n > out->n - n)
            return false;
        n += x->n;
    }
    /* every call counted once; the first call's duration within its bin's */
    const tbin *f = out->v;
    return n == out->n && out->v[0].n && out->v[out->nb - 1].n && out->first_d >= f->min &&
           out->first_d <= f->max;
}

time_bins *ooc_bins_get(wire_r *r)
{
    time_bins *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->available = wire_get_u64(r) != 0;
    char *why = wire_get_str(r);
    snprintf(t->why, sizeof t->why, "%s", why ? why : "");
    free(why);
    uint64_t h[3];
    bool ok =
        wire_get_bytes(r, h, sizeof h) && (int64_t)h[1] > 0 && h[2] >= 1 && h[2] <= TB_BINS_MAX;
    t->t0 = (int64_t)h[0];
    t->width = (int64_t)h[1];
    t->nbins = ok ? (uint32_t)h[2] : 1;
    size_t n = wire_get_count(r, 8 * sizeof(uint64_t));
    ok = ok && (t->available || n == 0) && wire_get_ok(r) &&
         (t->rows = calloc(n + 1, sizeof *t->rows));
    for (size_t i = 0; ok && i < n; i++) {
        t->nrows = i + 1;
        ok = get_row(r, t, &t->rows[i]) && (i == 0 || row_cmp(&t->rows[i - 1], &t->rows[i]) < 0);
    }
    if (!ok || !wire_get_ok(r)) {
        time_bins_free(t);
        return NULL;
    }
    return t;
}

bool ooc_bins_valid(const time_bins *t, const profile *skel)
{
    for (size_t i = 0; i < t->nrows; i++) {
        const tbins_row *r = &t->rows[i];
        if (r->rank_index >= skel->nranks || r->reg >= skel->ranks[r->rank_index].nregions)
            return false;
        const region *g = skel->ranks[r->rank_index].regions[r->reg];
        if (!g->has_event_data || (g->st.num_calls && (uint64_t)g->st.num_calls != r->n))
            return false;
    }
    return true;
}
