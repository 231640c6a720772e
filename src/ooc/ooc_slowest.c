/* ooc_slowest: each region's slowest calls from the sweep (ooc_slowest.h). */
#include "ooc_slowest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate/wire.h"
#include "model/lanes.h"
#include "model/profile.h"
#include "ooc_excl.h"
#include "ooc_map.h"
#include "util/grow.h"

#define SLOW_CALL_BYTES 64u
#define SLOW_CAP_MIN 4096u

/* A region's heap: v[0] the call dropped next (the fastest kept). */
typedef struct sheap {
    slow_call *v;
    size_t n, cap;
    uint64_t seen;
} sheap;

/* A lane by identity (ooc_map.h's). */
typedef struct lane_id {
    size_t rank_index;
    lane_kind kind;
    int64_t row;
} lane_id;

#define SLOW_LID ((uint64_t)1 << 63)
/* A swept call's lane by its map number (ooc_lane.uid): a lane added
 * later may move the index it had (ooc_map_lane). */
#define SLOW_UID ((uint64_t)1 << 62)

/* An open call of the sweep: what its list entry needs beside the times
 * ooc_excl keeps. */
typedef struct scall {
    slow_call c;
    uint32_t reg;
} scall;

/* One stack's open calls: their exclusive times (x) and, at the same
 * depths, their list entries. */
typedef struct sstack {
    ooc_excl_stack x;
    scall *v;
    size_t cap;
} sstack;

struct ooc_slowest {
    slow_calls *out;
    size_t out_cap;
    uint64_t cap;  /* calls held at most, 0: no cap */
    size_t nlists; /* regions with a list (done and current) */
    bool in_rank;
    size_t rank; /* the rank being swept */
    sheap *cur;  /* by region index */
    size_t ncur;
    sstack *st;
    size_t nst;
    /* The lanes of the ranks done in memory, by identity: their map lanes
     * are made after the hook (ooc_scan_feed_lanes), so a call's lane is
     * SLOW_LID | its index here until ooc_slowest_take asks the map. */
    const ooc_map *map;
    lane_id *lid;
    size_t nlid, lid_cap;
};

ooc_slowest *ooc_slowest_new(uint64_t budget)
{
    ooc_slowest *sl = calloc(1, sizeof *sl);
    if (sl && !(sl->out = calloc(1, sizeof *sl->out))) {
        free(sl);
        return NULL;
    }
    if (!sl)
        return NULL;
    uint64_t c = budget / 64 / SLOW_CALL_BYTES;
    sl->cap = budget ? (c < SLOW_CAP_MIN ? SLOW_CAP_MIN : c) : 0;
    sl->out->k = SLOW_K_MAX;
    return sl;
}

static void drop_current(ooc_slowest *sl)
{
    for (size_t i = 0; i < sl->ncur; i++)
        free(sl->cur[i].v);
    free(sl->cur);
    sl->cur = NULL;
    sl->ncur = 0;
    for (size_t i = 0; i < sl->nst; i++)
        ooc_excl_clear(&sl->st[i].x);
}

void ooc_slowest_free(ooc_slowest *sl)
{
    if (!sl)
        return;
    drop_current(sl);
    for (size_t i = 0; i < sl->nst; i++) {
        ooc_excl_free(&sl->st[i].x);
        free(sl->st[i].v);
    }
    free(sl->st);
    free(sl->lid);
    slow_calls_free(sl->out);
    free(sl);
}

void ooc_slowest_lose(ooc_slowest *sl, const char *why)
{
    if (sl && sl->out && !sl->out->why[0])
        snprintf(sl->out->why, sizeof sl->out->why, "%s", why);
}

/* ------------------------------------------------------------ the heaps */

/* a is dropped before b: b is slower. */
static bool drops_first(const slow_call *a, const slow_call *b)
{
    return slow_call_before(b, a);
}

static void sift_down(slow_call *v, size_t n, size_t i)
{
    slow_call x = v[i];
    for (;;) {
        size_t l = 2 * i + 1, m = l;
        if (l >= n)
            break;
        if (l + 1 < n && drops_first(&v[l + 1], &v[l]))
            m = l + 1;
        if (!drops_first(&v[m], &x))
            break;
        v[i] = v[m];
        i = m;
    }
    v[i] = x;
}

static void sift_up(slow_call *v, size_t i)
{
    slow_call x = v[i];
    while (i > 0 && drops_first(&x, &v[(i - 1) / 2])) {
        v[i] = v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    v[i] = x;
}

static void heap_cut(slow_call *v, size_t *n, size_t k)
{
    while (*n > k) {
        v[0] = v[--*n];
        sift_down(v, *n, 0);
    }
}

/* Offers c to h, which keeps the k slowest; false on NOMEM. */
static bool heap_offer(sheap *h, const slow_call *c, size_t k)
{
    if (h->n < k) {
        if (!sv_grow((void **)&h->v, &h->cap, h->n + 1, sizeof *h->v, 4))
            return false;
        h->v[h->n++] = *c;
        sift_up(h->v, h->n - 1);
    } else if (slow_call_before(c, &h->v[0])) {
        h->v[0] = *c;
        sift_down(h->v, h->n, 0);
    }
    return true;
}

/* One more region has a list: k drops when the lists would pass the cap.
 * The finished ranks' lists are heaps until taken. */
static void new_list(ooc_slowest *sl)
{
    slow_calls *o = sl->out;
    sl->nlists++;
    if (!sl->cap || (uint64_t)sl->nlists * o->k <= sl->cap || o->k == 1)
        return;
    uint64_t k = sl->cap / sl->nlists;
    o->k = k < 1 ? 1 : (size_t)k;
    for (size_t i = 0; i < o->nregs; i++)
        heap_cut(o->regs[i].v, &o->regs[i].n, o->k);
    for (size_t i = 0; i < sl->ncur; i++)
        heap_cut(sl->cur[i].v, &sl->cur[i].n, o->k);
}

/* ------------------------------------------------------------ one rank */

static bool leave(ooc_slowest *sl, sstack *st)
{
    int64_t x = ooc_excl_pop(&st->x, NULL);
    scall *c = &st->v[ooc_excl_depth(&st->x)];
    c->c.excl_ns = x;
    return heap_offer(&sl->cur[c->reg], &c->c, sl->out->k);
}

static bool end_rank(ooc_slowest *sl)
{
    if (!sl->in_rank)
        return true;
    for (size_t i = 0; i < sl->nst; i++)
        while (ooc_excl_depth(&sl->st[i].x))
            if (!leave(sl, &sl->st[i]))
                return false;
    slow_calls *o = sl->out;
    size_t more = 0;
    for (size_t j = 0; j < sl->ncur; j++)
        more += sl->cur[j].seen > 0;
    size_t *rk = realloc(o->ranks, (o->nranks + 1) * sizeof *rk);
    if (!rk)
        return false;
    o->ranks = rk;
    o->ranks[o->nranks++] = sl->rank;
    if (!sv_grow((void **)&o->regs, &sl->out_cap, o->nregs + more + 1, sizeof *o->regs, 16))
        return false;
    for (size_t j = 0; j < sl->ncur; j++) {
        sheap *h = &sl->cur[j];
        if (!h->seen)
            continue;
        o->regs[o->nregs++] = (slow_region){sl->rank, (uint32_t)j, h->seen, h->v, h->n};
        h->v = NULL;
    }
    drop_current(sl);
    sl->in_rank = false;
    return true;
}

/* The heap of region reg of the rank being done; false on NOMEM. */
static bool ensure_heap(ooc_slowest *sl, uint32_t reg)
{
    if (reg < sl->ncur)
        return true;
    sheap *v = realloc(sl->cur, ((size_t)reg + 1) * sizeof *v);
    if (!v)
        return false;
    memset(v + sl->ncur, 0, ((size_t)reg + 1 - sl->ncur) * sizeof *v);
    sl->cur = v;
    sl->ncur = (size_t)reg + 1;
    return true;
}

static bool begin_call(ooc_slowest *sl, const ooc_call *c)
{
    if (sl->in_rank && sl->rank != c->rank && !end_rank(sl))
        return false;
    sl->in_rank = true;
    sl->rank = c->rank;
    if (!ensure_heap(sl, c->reg))
        return false;
    if (c->key >= sl->nst) {
        sstack *v = realloc(sl->st, (c->key + 1) * sizeof *v);
        if (!v)
            return false;
        memset(v + sl->nst, 0, (c->key + 1 - sl->nst) * sizeof *v);
        sl->st = v;
        sl->nst = c->key + 1;
    }
    return true;
}

static uint64_t swept_lane(const ooc_slowest *sl, size_t l)
{
    if (l == SIZE_MAX)
        return SLOW_NO_LANE;
    if (sl->map && l < sl->map->nlanes)
        return SLOW_UID | sl->map->lanes[l].uid;
    return (uint64_t)l;
}

bool ooc_slowest_call(ooc_slowest *sl, const ooc_call *c)
{
    if (!sl || !begin_call(sl, c))
        return false;
    sstack *st = &sl->st[c->key];
    while (ooc_excl_depth(&st->x) > c->depth)
        if (!leave(sl, st))
            return false;
    size_t d = ooc_excl_depth(&st->x);
    if (!sv_grow((void **)&st->v, &st->cap, d + 1, sizeof *st->v, 16) ||
        !ooc_excl_push(&st->x, c->s, c->e, 0))
        return false;
    sheap *h = &sl->cur[c->reg];
    if (h->seen++ == 0)
        new_list(sl);
    slow_call sc = {c->s, c->e, 0, c->pos, swept_lane(sl, c->lane), c->kdepth};
    st->v[d] = (scall){sc, c->reg};
    return true;
}

static bool sink_call(void *self, const ooc_call *c)
{
    return ooc_slowest_call(self, c);
}

static void sink_lose(void *self, const char *why)
{
    ooc_slowest_lose(self, why);
}

static void sink_free(void *self)
{
    ooc_slowest_free(self);
}

const ooc_sink_ops ooc_slowest_sink = {"slowest", sink_call, sink_lose, sink_free};

/* ------------------------------------------------------------ a rank in memory */

void ooc_slowest_use_map(ooc_slowest *sl, const ooc_map *map)
{
    if (sl)
        sl->map = map;
}

/* Each call of the rank's lane in sl->lid (from base, + 1; 0: not
 * indexed, a filter leaves it out) and its lane depth; false on NOMEM. */
static bool locate_calls(ooc_slowest *sl, size_t rank_index, const lanes_index *ix, size_t ix_rank,
                         uint32_t *at, uint32_t *depth)
{
    size_t a = ix->rank_lane0[ix_rank], z = ix->rank_lane0[ix_rank + 1];
    size_t n = ix->prof->ranks[ix_rank].ncalls, base = sl->nlid;
    if (!sv_grow((void **)&sl->lid, &sl->lid_cap, base + (z - a) + 1, sizeof *sl->lid, 8))
        return false;
    for (size_t l = a; l < z; l++) {
        const lane *ln = &ix->lanes[l];
        sl->lid[sl->nlid++] = (lane_id){rank_index, ln->kind, ln->row};
        for (uint32_t d = 0; d < ln->ndepth; d++)
            for (size_t q = 0; q < ln->rows[d].n; q++) {
                uint32_t g = lane_row_call(&ln->rows[d], q);
                if (g < n) {
                    at[g] = (uint32_t)(l - a + 1);
                    depth[g] = d;
                }
            }
    }
    return true;
}

/* Region j's calls into the heap of its skeleton region reg, each with
 * the exclusive time of the rank's nesting (nest.c's, as in memory). */
static bool offer_region(ooc_slowest *sl, const rank_data *rk, size_t j, uint32_t reg,
                         const uint32_t *at, const uint32_t *depth, size_t base)
{
    const region *r = rk->regions[j];
    if (!r->n)
        return true;
    if (!ensure_heap(sl, reg))
        return false;
    for (size_t i = 0; i < r->n; i++) {
        size_t g = r->gidx0 + i;
        if (sl->cur[reg].seen++ == 0)
            new_list(sl);
        int64_t x = rank_call_excl(rk, g);
        slow_call c = {r->start_ns[i],
                       r->end_ns[i],
                       x < 0 ? 0 : x,
                       i,
                       at[g] ? SLOW_LID | (base + at[g] - 1) : SLOW_NO_LANE,
                       at[g] ? depth[g] : 0};
        if (!heap_offer(&sl->cur[reg], &c, sl->out->k))
            return false;
    }
    return true;
}

bool ooc_slowest_lanes(void *self, size_t rank_index, const lanes_index *ix, size_t ix_rank,
                       const uint32_t *regmap)
{
    ooc_slowest *sl = self;
    if (!sl)
        return true;
    const rank_data *rk = &ix->prof->ranks[ix_rank];
    if (!rk->calls || rk->calls->n != rk->ncalls) {
        ooc_slowest_lose(sl, OOC_SINK_UNSWEPT);
        return true;
    }
    if (!end_rank(sl))
        return false;
    size_t n = rk->ncalls, base = sl->nlid;
    uint32_t *at = calloc(n ? n : 1, sizeof *at), *depth = malloc((n ? n : 1) * sizeof *depth);
    bool ok = at && depth && locate_calls(sl, rank_index, ix, ix_rank, at, depth);
    sl->in_rank = true;
    sl->rank = rank_index;
    for (size_t j = 0; ok && j < rk->nregions; j++)
        ok = offer_region(sl, rk, j, regmap ? regmap[j] : (uint32_t)j, at, depth, base);
    free(at);
    free(depth);
    return ok && end_rank(sl);
}

/* The map lane of a lane of a rank done in memory (SLOW_NO_LANE without
 * the map).  A rank's only inferred lane may be named the rank's. */
static uint64_t map_lane(const ooc_slowest *sl, const size_t *uidx, uint64_t l0)
{
    if (l0 != SLOW_NO_LANE && (l0 & SLOW_UID)) {
        uint64_t u = l0 & ~SLOW_UID;
        return uidx && u < sl->map->nlanes ? (uint64_t)uidx[u] : SLOW_NO_LANE;
    }
    if (l0 == SLOW_NO_LANE || !(l0 & SLOW_LID))
        return l0;
    uint64_t k = l0 & ~SLOW_LID;
    if (!sl->map || k >= sl->nlid)
        return SLOW_NO_LANE;
    const lane_id *id = &sl->lid[k];
    size_t l = ooc_map_find_lane(sl->map, id->rank_index, id->kind, id->row);
    if (l == SIZE_MAX && id->kind == LANE_RANK)
        l = ooc_map_find_lane(sl->map, id->rank_index, LANE_INFERRED, 0);
    return l == SIZE_MAX ? SLOW_NO_LANE : (uint64_t)l;
}

static int slower_cmp(const void *a, const void *b)
{
    return slow_call_before(a, b) ? -1 : slow_call_before(b, a) ? 1 : 0;
}

slow_calls *ooc_slowest_take(ooc_slowest *sl)
{
    if (!sl || !end_rank(sl)) {
        ooc_slowest_free(sl); /* spent either way: the caller took it from the scan */
        return NULL;
    }
    slow_calls *c = sl->out;
    size_t *uidx = sl->map ? ooc_map_uid_index(sl->map) : NULL;
    for (size_t i = 0; i < c->nregs; i++) {
        heap_cut(c->regs[i].v, &c->regs[i].n, c->k);
        for (size_t j = 0; j < c->regs[i].n; j++)
            c->regs[i].v[j].lane = map_lane(sl, uidx, c->regs[i].v[j].lane);
        if (c->regs[i].n > 1)
            qsort(c->regs[i].v, c->regs[i].n, sizeof *c->regs[i].v, slower_cmp);
    }
    free(uidx);
    sl->out = NULL;
    ooc_slowest_free(sl);
    return c;
}

/* ------------------------------------------------------------ the wire */

/* Layout: k, why, nranks and each rank index, nregs; per region its rank
 * index, region, seen and n, then each call's start, end, exclusive time,
 * position, lane and depth (8-byte words). */
void ooc_slowest_put(wire_w *w, const slow_calls *c)
{
    wire_put_u64(w, c ? c->k : 0); /* 0: none, a malformed section */
    wire_put_str(w, c ? c->why : "");
    wire_put_u64(w, c ? c->nranks : 0);
    for (size_t i = 0; c && i < c->nranks; i++)
        wire_put_u64(w, c->ranks[i]);
    wire_put_u64(w, c ? c->nregs : 0);
    for (size_t i = 0; c && i < c->nregs; i++) {
        const slow_region *r = &c->regs[i];
        uint64_t h[4] = {r->rank_index, r->region, r->seen, r->n};
        wire_put_bytes(w, h, sizeof h);
        for (size_t j = 0; j < r->n; j++) {
            const slow_call *x = &r->v[j];
            uint64_t v[6] = {(uint64_t)x->s, (uint64_t)x->e, (uint64_t)x->excl_ns,
                             x->pos,         x->lane,        x->depth};
            wire_put_bytes(w, v, sizeof v);
        }
    }
}

static bool get_region(wire_r *r, const slow_calls *c, const slow_region *prev, slow_region *out)
{
    uint64_t h[4];
    if (!wire_get_bytes(r, h, sizeof h) || h[0] >= SIZE_MAX / 2 || h[1] >= UINT32_MAX)
        return false;
    *out = (slow_region){(size_t)h[0], (uint32_t)h[1], h[2], NULL, 0};
    if (prev && (prev->rank_index > out->rank_index ||
                 (prev->rank_index == out->rank_index && prev->region >= out->region)))
        return false;
    uint64_t want = h[2] < c->k ? h[2] : c->k;
    if (h[3] != want || !slow_calls_swept(c, out->rank_index) || h[2] == 0)
        return false;
    if (!(out->v = wire_get_alloc(r, (size_t)want, sizeof *out->v)))
        return false;
    for (size_t j = 0; j < want; j++) {
        uint64_t v[6];
        if (!wire_get_bytes(r, v, sizeof v) || v[5] > UINT32_MAX)
            return false;
        slow_call x = {(int64_t)v[0], (int64_t)v[1], (int64_t)v[2], v[3], v[4], (uint32_t)v[5]};
        int64_t d = slow_call_dur(&x);
        if (x.excl_ns < 0 || x.excl_ns > (d > 0 ? d : 0) ||
            (j && !slow_call_before(&out->v[j - 1], &x)))
            return false;
        out->v[out->n++] = x;
    }
    return true;
}

slow_calls *ooc_slowest_get(wire_r *r)
{
    slow_calls *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    uint64_t k = wire_get_u64(r);
    char *why = wire_get_str(r);
    snprintf(c->why, sizeof c->why, "%s", why ? why : "");
    free(why);
    bool ok = k >= 1 && k <= SLOW_K_MAX;
    c->k = (size_t)k;
    size_t nr = ok ? wire_get_count(r, sizeof(uint64_t)) : 0;
    ok = ok && wire_get_ok(r) && (c->ranks = calloc(nr + 1, sizeof *c->ranks));
    for (size_t i = 0; ok && i < nr; i++) {
        uint64_t v = wire_get_u64(r);
        ok = wire_get_ok(r) && v < SIZE_MAX / 2 && (i == 0 || v > c->ranks[i - 1]);
        c->ranks[c->nranks++] = (size_t)v;
    }
    size_t n = ok ? wire_get_count(r, 4 * sizeof(uint64_t)) : 0;
    ok = ok && wire_get_ok(r) && (c->regs = calloc(n + 1, sizeof *c->regs));
    for (size_t i = 0; ok && i < n; i++) {
        ok = get_region(r, c, i ? &c->regs[i - 1] : NULL, &c->regs[i]);
        c->nregs = i + 1;
    }
    if (!ok || !wire_get_ok(r)) {
        slow_calls_free(c);
        return NULL;
    }
    return c;
}

/* Whether every region of rank k with calls has its list, each list's
 * count the region's. */
static bool rank_valid(const slow_calls *c, const rank_data *rk, size_t k, size_t nlanes)
{
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *g = rk->regions[j];
        const slow_region *s = slow_calls_find(c, k, (uint32_t)j);
        if (!s) {
            if (g->has_event_data && g->st.num_calls > 0)
                return false;
            continue;
        }
        if (!g->has_event_data || s->seen != (uint64_t)g->st.num_calls)
            return false;
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i].lane != SLOW_NO_LANE && s->v[i].lane >= nlanes)
                return false;
    }
    return true;
}

bool ooc_slowest_valid(const slow_calls *c, const profile *skel, size_t nlanes)
{
    for (size_t i = 0; i < c->nregs; i++)
        if (c->regs[i].rank_index >= skel->nranks ||
            c->regs[i].region >= skel->ranks[c->regs[i].rank_index].nregions)
            return false;
    for (size_t i = 0; i < c->nranks; i++)
        if (c->ranks[i] >= skel->nranks ||
            !rank_valid(c, &skel->ranks[c->ranks[i]], c->ranks[i], nlanes))
            return false;
    /* a rank with calls and no lists: the product says why */
    for (size_t k = 0; !c->why[0] && k < skel->nranks; k++)
        for (size_t j = 0; !slow_calls_swept(c, k) && j < skel->ranks[k].nregions; j++)
            if (skel->ranks[k].regions[j]->has_event_data &&
                skel->ranks[k].regions[j]->st.num_calls > 0)
                return false;
    return true;
}
