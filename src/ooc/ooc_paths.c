/* ooc_paths: call-path totals from the sweep (ooc_paths.h). */
#include "ooc_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate/wire.h"
#include "ooc_excl.h"
#include "model/lanes.h"
#include "model/profile.h"
#include "util/checked.h"
#include "util/hash.h"
#include "util/grow.h"

/* A path costs its record, two hash slots and the viewer's tree node
 * built from it: 64 bytes counted a sixteenth of the budget, never fewer
 * than PATHS_MIN paths. */
#define PATHS_MIN 4096u
#define PATHS_MAX (1u << 26)
#define PATH_BYTES 64u
#define PATH_WORDS 11 /* a path's record on the wire */
/* Recent paths by (parent, region), in front of the hash table: a sweep meets the same few
 * paths call after call (a loop's body), and the table's probe and key compare were 6.6% of
 * a folded export's samples. */
#define PATH_MEMO_BITS 6
#define PATH_MEMO (1u << PATH_MEMO_BITS)

typedef struct path_memo {
    uint32_t parent, region, k1; /* k1: the path + 1, 0 empty */
} path_memo;

struct ooc_paths {
    call_paths *out;
    size_t cap, total; /* paths allowed, paths made */
    bool in_rank;
    cpath_rank cur; /* the rank being swept */
    size_t cur_cap;
    sv_itab ht;         /* the rank's paths by (parent, region) */
    ooc_excl_stack *st; /* per stack key, each open call tagged with its path */
    size_t nst;
    path_memo memo[PATH_MEMO]; /* the rank's, emptied with ht */
};

ooc_paths *ooc_paths_new(uint64_t budget)
{
    ooc_paths *pa = calloc(1, sizeof *pa);
    if (pa && !(pa->out = calloc(1, sizeof *pa->out))) {
        free(pa);
        return NULL;
    }
    if (!pa)
        return NULL;
    uint64_t c = budget ? budget / 16 / PATH_BYTES : PATHS_MAX;
    pa->cap = c < PATHS_MIN ? PATHS_MIN : c > PATHS_MAX ? PATHS_MAX : (size_t)c;
    pa->out->available = true;
    return pa;
}

/* The rank's paths by (parent, region) forgotten: the table and its memo. */
static void clear_index(ooc_paths *pa)
{
    sv_itab_clear(&pa->ht);
    memset(pa->memo, 0, sizeof pa->memo);
}

static void drop_rank(ooc_paths *pa)
{
    free(pa->cur.v);
    memset(&pa->cur, 0, sizeof pa->cur);
    pa->cur_cap = 0;
    for (size_t i = 0; i < pa->nst; i++)
        ooc_excl_clear(&pa->st[i]);
    clear_index(pa);
    pa->in_rank = false;
}

void ooc_paths_free(ooc_paths *pa)
{
    if (!pa)
        return;
    drop_rank(pa);
    for (size_t i = 0; i < pa->nst; i++)
        ooc_excl_free(&pa->st[i]);
    free(pa->st);
    sv_itab_free(&pa->ht);
    call_paths_free(pa->out);
    free(pa);
}

void ooc_paths_lose(ooc_paths *pa, const char *why)
{
    if (!pa || !pa->out->available)
        return;
    pa->out->available = false;
    snprintf(pa->out->why, sizeof pa->out->why, "%s", why);
    drop_rank(pa);
    for (size_t i = 0; i < pa->out->nranks; i++)
        free(pa->out->ranks[i].v);
    free(pa->out->ranks);
    pa->out->ranks = NULL;
    pa->out->nranks = 0;
}

/* ------------------------------------------------------------ one rank */

static void leave(ooc_paths *pa, ooc_excl_stack *st)
{
    uint64_t path;
    int64_t x = ooc_excl_pop(st, &path);
    cpath *p = &pa->cur.v[path];
    p->excl_ns = ck_add(p->excl_ns, x);
}

static bool end_rank(ooc_paths *pa)
{
    if (!pa->in_rank)
        return true;
    for (size_t i = 0; i < pa->nst; i++)
        while (ooc_excl_depth(&pa->st[i]))
            leave(pa, &pa->st[i]);
    call_paths *o = pa->out;
    cpath_rank *v = realloc(o->ranks, (o->nranks + 1) * sizeof *v);
    if (!v)
        return false;
    o->ranks = v;
    o->ranks[o->nranks++] = pa->cur;
    memset(&pa->cur, 0, sizeof pa->cur);
    pa->cur_cap = 0;
    clear_index(pa);
    pa->in_rank = false;
    return true;
}

typedef struct path_key {
    uint32_t parent, region;
} path_key;

static bool path_eq(const void *ctx, uint32_t i, const void *key)
{
    const cpath *p = &((const ooc_paths *)ctx)->cur.v[i];
    const path_key *k = key;
    return p->parent == k->parent && p->region == k->region;
}

static uint64_t path_hash(const void *ctx, uint32_t i)
{
    const cpath *p = &((const ooc_paths *)ctx)->cur.v[i];
    return sv_hash_pair(p->parent, p->region);
}

/* The path of region reg under parent; UINT32_MAX over the cap (the paths
 * are lost), UINT32_MAX - 1 on NOMEM. */
static uint32_t intern_table(ooc_paths *pa, uint32_t parent, uint32_t reg)
{
    path_key key = {parent, reg};
    uint64_t h = sv_hash_pair(parent, reg);
    uint32_t k = sv_itab_find(&pa->ht, h, path_eq, pa, &key);
    if (k != UINT32_MAX)
        return k;
    if (pa->total >= pa->cap)
        return UINT32_MAX;
    if (!sv_grow((void **)&pa->cur.v, &pa->cur_cap, pa->cur.n + 1, sizeof *pa->cur.v, 16))
        return UINT32_MAX - 1;
    k = (uint32_t)pa->cur.n;
    pa->cur.v[k] = (cpath){.parent = parent, .region = reg, .first_ns = INT64_MAX};
    if (!sv_itab_add(&pa->ht, h, k, 1024, path_hash, pa))
        return UINT32_MAX - 1;
    pa->cur.n++;
    pa->total++;
    return k;
}

static uint32_t intern(ooc_paths *pa, uint32_t parent, uint32_t reg)
{
    path_memo *m = &pa->memo[(parent * 0x9E3779B1u + reg * 0x85EBCA77u) >> (32 - PATH_MEMO_BITS)];
    if (m->k1 && m->parent == parent && m->region == reg)
        return m->k1 - 1;
    uint32_t k = intern_table(pa, parent, reg);
    if (k < UINT32_MAX - 1)
        *m = (path_memo){parent, reg, k + 1};
    return k;
}

static void over_cap(ooc_paths *pa)
{
    char why[sizeof pa->out->why];
    snprintf(why, sizeof why,
             "more than %zu distinct call paths, the most the memory budget allows "
             "(--memory)",
             pa->cap);
    ooc_paths_lose(pa, why);
}

/* A call's times into its path's totals, as calltree.c's pass_accumulate
 * adds them (await: the column's values lie in [0, duration], so a
 * negative one is a row without the column). */
static void add_times(cpath *p, int64_t s, int64_t e, int64_t await, int64_t gpu)
{
    int64_t d = ck_sub(e, s);
    p->calls++;
    p->incl_ns = ck_add(p->incl_ns, d);
    p->max_ns = d > p->max_ns ? d : p->max_ns;
    p->first_ns = s < p->first_ns ? s : p->first_ns;
    if (await >= 0) {
        p->await_ns = ck_add(p->await_ns, await);
        p->await_n++;
    }
    if (gpu >= 0) {
        p->gpu_ns = ck_add(p->gpu_ns, gpu);
        p->gpu_n++;
    }
}

bool ooc_paths_call(ooc_paths *pa, const ooc_call *c)
{
    size_t rank_index = c->rank, key = c->key, depth = c->depth;
    uint32_t reg = c->reg;
    int64_t s = c->s, e = c->e;
    if (!pa || !pa->out->available)
        return true;
    if (pa->in_rank && pa->cur.rank_index != rank_index && !end_rank(pa))
        return false;
    if (!pa->in_rank) {
        pa->in_rank = true;
        pa->cur.rank_index = rank_index;
    }
    if (key >= pa->nst) {
        ooc_excl_stack *v = realloc(pa->st, (key + 1) * sizeof *v);
        if (!v)
            return false;
        memset(v + pa->nst, 0, (key + 1 - pa->nst) * sizeof *v);
        pa->st = v;
        pa->nst = key + 1;
    }
    ooc_excl_stack *st = &pa->st[key];
    while (ooc_excl_depth(st) > depth)
        leave(pa, st);
    const ooc_excl_call *up = ooc_excl_top(st);
    uint32_t k = intern(pa, up ? (uint32_t)up->tag : CP_ROOT, reg);
    if (k == UINT32_MAX) {
        over_cap(pa);
        return true;
    }
    if (k == UINT32_MAX - 1 || !ooc_excl_push(st, s, e, k))
        return false;
    add_times(&pa->cur.v[k], s, e, c->await_ns, c->gpu_ns);
    return true;
}

/* ------------------------------------------------------------ a rank in memory */

/* The path of call g, interned after its parents' (memo: path + 1 of
 * each call, 0 not yet).  UINT32_MAX / UINT32_MAX - 1 as intern's. */
static uint32_t path_of(ooc_paths *pa, const rank_data *rk, const uint32_t *regmap, uint32_t *memo,
                        uint32_t *chain, size_t g)
{
    size_t n = 0;
    for (int64_t c = (int64_t)g; c >= 0 && !memo[c]; c = rk->calls->parent[c])
        chain[n++] = (uint32_t)c; /* up to the first call whose path is known */
    while (n) {
        size_t c = chain[--n], j = rank_call_region_at(rk, c, NULL);
        int32_t up = rk->calls->parent[c];
        uint32_t parent = up < 0 ? CP_ROOT : memo[up] - 1;
        uint32_t k = intern(pa, parent, regmap ? regmap[j] : (uint32_t)j);
        if (k >= UINT32_MAX - 1)
            return k;
        memo[c] = k + 1;
    }
    return memo[g] - 1;
}

/* One call of the rank into its path's totals. */
static void add_call(ooc_paths *pa, const rank_data *rk, uint32_t k, size_t g)
{
    int64_t s, e;
    lanes_call_span(rk, (uint32_t)g, &s, &e);
    const region *r = rk->regions[rank_call_region_at(rk, g, NULL)];
    size_t i = g - r->gidx0;
    cpath *p = &pa->cur.v[k];
    int64_t x = rank_call_excl(rk, g);
    add_times(p, s, e, r->await_ns ? r->await_ns[i] : -1, r->gpu_ns ? r->gpu_ns[i] : -1);
    p->excl_ns = ck_add(p->excl_ns, x < 0 ? 0 : x);
}

bool ooc_paths_lanes(void *self, size_t rank_index, const lanes_index *ix, size_t ix_rank,
                     const uint32_t *regmap)
{
    ooc_paths *pa = self;
    if (!pa || !pa->out->available)
        return true;
    const rank_data *rk = &ix->prof->ranks[ix_rank];
    if (!rk->calls || rk->calls->n != rk->ncalls) {
        ooc_paths_lose(pa, OOC_SINK_UNSWEPT);
        return true;
    }
    if (!end_rank(pa))
        return false;
    pa->in_rank = true;
    pa->cur.rank_index = rank_index;
    size_t n = rk->ncalls;
    uint32_t *memo = calloc(n ? n : 1, sizeof *memo), *chain = malloc((n ? n : 1) * sizeof *chain);
    bool ok = memo && chain;
    for (size_t g = 0; ok && g < n; g++) {
        uint32_t k = path_of(pa, rk, regmap, memo, chain, g);
        if (k == UINT32_MAX) {
            over_cap(pa);
            break;
        }
        ok = k != UINT32_MAX - 1;
        if (ok)
            add_call(pa, rk, k, g);
    }
    free(memo);
    free(chain);
    return ok && (!pa->out->available || end_rank(pa));
}

static bool sink_call(void *self, const ooc_call *c)
{
    return ooc_paths_call(self, c);
}

static void sink_lose(void *self, const char *why)
{
    ooc_paths_lose(self, why);
}

static void sink_free(void *self)
{
    ooc_paths_free(self);
}

const ooc_sink_ops ooc_paths_sink = {"paths", sink_call, sink_lose, sink_free};

call_paths *ooc_paths_take(ooc_paths *pa)
{
    if (!pa || !end_rank(pa))
        return NULL;
    call_paths *c = pa->out;
    pa->out = NULL;
    ooc_paths_free(pa);
    return c;
}

/* ------------------------------------------------------------ the wire */

/* Layout: available, why, nranks; per rank its rank_index, n and each
 * path's parent, region, calls, incl, excl, max, first, await, await_n,
 * gpu and gpu_n (8-byte words). */
void ooc_paths_put(wire_w *w, const call_paths *c)
{
    wire_put_u64(w, c && c->available);
    wire_put_str(w, c ? c->why : "the call paths were not computed");
    wire_put_u64(w, c && c->available ? c->nranks : 0);
    for (size_t i = 0; c && c->available && i < c->nranks; i++) {
        const cpath_rank *r = &c->ranks[i];
        uint64_t h[2] = {r->rank_index, r->n};
        wire_put_bytes(w, h, sizeof h);
        for (size_t j = 0; j < r->n; j++) {
            const cpath *p = &r->v[j];
            uint64_t v[PATH_WORDS] = {p->parent,
                                      p->region,
                                      (uint64_t)p->calls,
                                      (uint64_t)p->incl_ns,
                                      (uint64_t)p->excl_ns,
                                      (uint64_t)p->max_ns,
                                      (uint64_t)p->first_ns,
                                      (uint64_t)p->await_ns,
                                      (uint64_t)p->await_n,
                                      (uint64_t)p->gpu_ns,
                                      (uint64_t)p->gpu_n};
            wire_put_bytes(w, v, sizeof v);
        }
    }
}

/* A path's figures as the sweep sums them: counts within its calls, the
 * await and GPU sums not negative (nor without a call to add them). */
static bool path_sane(const cpath *p)
{
    return p->calls >= 0 && p->await_n >= 0 && p->await_n <= p->calls && p->gpu_n >= 0 &&
           p->gpu_n <= p->calls && p->await_ns >= 0 && p->gpu_ns >= 0 &&
           (p->await_n || !p->await_ns) && (p->gpu_n || !p->gpu_ns);
}

static bool get_rank(wire_r *r, cpath_rank *out)
{
    uint64_t h[2];
    if (!wire_get_bytes(r, h, sizeof h) || h[0] >= SIZE_MAX / 2)
        return false;
    out->rank_index = (size_t)h[0];
    size_t n = h[1] < CP_ROOT ? (size_t)h[1] : 0;
    if (n != h[1] || !(out->v = wire_get_alloc(r, n ? n : 1, sizeof *out->v)))
        return false;
    out->n = n;
    for (size_t j = 0; j < n; j++) {
        uint64_t v[PATH_WORDS];
        if (!wire_get_bytes(r, v, sizeof v))
            return false;
        if ((v[0] != CP_ROOT && v[0] >= j) || v[1] >= CP_ROOT)
            return false;
        out->v[j] = (cpath){.parent = (uint32_t)v[0],
                            .region = (uint32_t)v[1],
                            .calls = (int64_t)v[2],
                            .incl_ns = (int64_t)v[3],
                            .excl_ns = (int64_t)v[4],
                            .max_ns = (int64_t)v[5],
                            .first_ns = (int64_t)v[6],
                            .await_ns = (int64_t)v[7],
                            .await_n = (int64_t)v[8],
                            .gpu_ns = (int64_t)v[9],
                            .gpu_n = (int64_t)v[10]};
        if (!path_sane(&out->v[j]))
            return false;
    }
    return true;
}

call_paths *ooc_paths_get(wire_r *r)
{
    call_paths *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->available = wire_get_u64(r) != 0;
    char *why = wire_get_str(r);
    snprintf(c->why, sizeof c->why, "%s", why ? why : "");
    free(why);
    size_t n = wire_get_count(r, 2 * sizeof(uint64_t));
    bool ok = wire_get_ok(r) && (c->ranks = calloc(n + 1, sizeof *c->ranks));
    for (size_t i = 0; ok && i < n; i++) {
        c->nranks = i + 1;
        ok = get_rank(r, &c->ranks[i]);
    }
    if (!ok || !wire_get_ok(r)) {
        call_paths_free(c);
        return NULL;
    }
    return c;
}

bool ooc_paths_valid(const call_paths *c, const profile *skel)
{
    bool *seen = calloc(skel->nranks + 1, sizeof *seen);
    bool ok = seen != NULL;
    for (size_t i = 0; ok && i < c->nranks; i++) {
        const cpath_rank *r = &c->ranks[i];
        ok = r->rank_index < skel->nranks && !seen[r->rank_index];
        if (!ok)
            break;
        seen[r->rank_index] = true;
        for (size_t j = 0; ok && j < r->n; j++)
            ok = r->v[j].region < skel->ranks[r->rank_index].nregions;
    }
    free(seen);
    return ok;
}
