/* calltree: call-path aggregation (regions merged across ranks: merged.c). */
#include "calltree.h"

#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "util/hash.h"
#include "callpaths.h"
#include "region.h"
#include "select.h"

/* Per-call flags while building one rank. */
enum { CF_IN = 1, CF_INNER = 2 }; /* in scope; folded into its parent's call */

#define CT_UNSET (CT_NONE - 1)

typedef struct ct_build {
    calltree *t;
    const region_filter *filter;
    size_t cap;     /* nodes allocated */
    uint32_t *hash; /* open addressing: node indices, CT_NONE empty */
    size_t hcap;    /* power of two */
    sv_error *err;
} ct_build;

static size_t node_slot(const ct_build *b, uint32_t parent, uint32_t name)
{
    size_t mask = b->hcap - 1;
    size_t h = (size_t)sv_hash_u64(((uint64_t)parent << 32) | name) & mask;
    for (;;) {
        uint32_t k = b->hash[h];
        if (k == CT_NONE || (b->t->nodes[k].parent == parent && b->t->nodes[k].name == name))
            return h;
        h = (h + 1) & mask;
    }
}

static bool hash_grow(ct_build *b)
{
    size_t ncap = b->hcap ? b->hcap * 2 : 1024;
    uint32_t *nh = malloc(ncap * sizeof *nh);
    if (!nh)
        return false;
    memset(nh, 0xff, ncap * sizeof *nh);
    free(b->hash);
    b->hash = nh;
    b->hcap = ncap;
    for (size_t i = 1; i < b->t->n; i++)
        b->hash[node_slot(b, b->t->nodes[i].parent, b->t->nodes[i].name)] = (uint32_t)i;
    return true;
}

static bool node_reserve(ct_build *b)
{
    calltree *t = b->t;
    if (t->n >= CT_UNSET - 1)
        return false;
    if (t->n == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 256;
        ct_node *nn = realloc(t->nodes, ncap * sizeof *nn);
        if (!nn)
            return false;
        t->nodes = nn;
        b->cap = ncap;
    }
    return (t->n + 1) * 2 <= b->hcap || hash_grow(b);
}

/* The child of parent named name, created when new; CT_NONE on NOMEM. */
static uint32_t node_intern(ct_build *b, uint32_t parent, uint32_t name)
{
    size_t h = node_slot(b, parent, name);
    if (b->hash[h] != CT_NONE)
        return b->hash[h];
    if (!node_reserve(b))
        return CT_NONE;
    h = node_slot(b, parent, name); /* the table may have grown */
    calltree *t = b->t;
    uint32_t k = (uint32_t)t->n++;
    t->nodes[k] = (ct_node){.name = name,
                            .parent = parent,
                            .depth = parent ? t->nodes[parent].depth + 1 : 0,
                            .first_ns = INT64_MAX};
    b->hash[h] = k;
    return k;
}

/* ------------------------------------------------------------------ names */

static bool in_scope_rank(calltree_scope s, int rank)
{
    return s.rank < 0 || s.rank == rank;
}

static sv_err build_names(calltree *t, const profile *p, const region_filter *f, sv_error *err)
{
    region **v = profile_regions_by_name(p);
    t->names = malloc((p->nregions ? p->nregions : 1) * sizeof *t->names);
    if (!v || !t->names) {
        free(v);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < p->nregions; i++) {
        if (!t->nnames || strcmp(t->names[t->nnames - 1].name, v[i]->name) != 0)
            t->names[t->nnames++] = (ct_name){v[i]->name, NULL};
        ct_name *nm = &t->names[t->nnames - 1];
        if (!nm->rep && in_scope_rank(t->scope, v[i]->rank) && filter_match(f, v[i]))
            nm->rep = v[i];
    }
    free(v);
    return SV_OK;
}

static int cmp_name_key(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const ct_name *)elem)->name);
}

static uint32_t name_id(const calltree *t, const char *name)
{
    const ct_name *nm = bsearch(name, t->names, t->nnames, sizeof *t->names, cmp_name_key);
    return (uint32_t)(nm - t->names);
}

/* ------------------------------------------------------------- one rank */

typedef struct rank_pass {
    const rank_data *rk;
    uint32_t *cname; /* region name id of each call */
    uint32_t *eff;   /* node of each call (or of its nearest in-scope ancestor) */
    uint8_t *flags;
    uint32_t *stack;
} rank_pass;

static bool pass_alloc(rank_pass *rp, size_t n)
{
    size_t m = n ? n : 1;
    rp->cname = malloc(m * sizeof *rp->cname);
    rp->eff = malloc(m * sizeof *rp->eff);
    rp->flags = calloc(m, 1);
    rp->stack = malloc(m * sizeof *rp->stack);
    return rp->cname && rp->eff && rp->flags && rp->stack;
}

static void pass_free(rank_pass *rp)
{
    free(rp->cname);
    free(rp->eff);
    free(rp->flags);
    free(rp->stack);
}

/* Whether call i of r overlaps the scope's band (always without one). */
static bool in_band(calltree_scope s, const region *r, size_t i)
{
    if (!calltree_scope_banded(s))
        return true;
    int64_t a = r->start_ns[i], e = r->end_ns[i];
    return a == e ? a >= s.t0 && a < s.t1 : a < s.t1 && e > s.t0;
}

/* The part of call i of r inside the scope's band. */
static int64_t band_duration(calltree_scope s, const region *r, size_t i)
{
    int64_t a = r->start_ns[i], e = r->end_ns[i];
    if (calltree_scope_banded(s)) {
        a = a > s.t0 ? a : s.t0;
        e = e < s.t1 ? e : s.t1;
    }
    return e > a ? e - a : 0;
}

/* Whether call i of r (rank call c) is in the scope's lane (always
 * without one). */
static bool in_lane(calltree_scope s, const rank_data *rk, const region *r, size_t i, size_t c)
{
    if (s.lane_kind == LANE_TASK)
        return r->task_ids && r->task_ids[i] == s.lane_row;
    if (s.lane_kind == LANE_INFERRED)
        return rk->calls->lane && (int64_t)rk->calls->lane[c] == s.lane_row;
    return true;
}

static void pass_mark(rank_pass *rp, const calltree *t, const region_filter *f)
{
    const rank_data *rk = rp->rk;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        uint32_t id = name_id(t, r->name);
        bool any = (t->scope.thread < 0 || r->thread_ids) && filter_match_name(f, r->name);
        for (size_t i = 0; i < r->n; i++) {
            size_t c = r->gidx0 + i;
            rp->cname[c] = id;
            rp->eff[c] = CT_UNSET;
            if (any && (t->scope.thread < 0 || r->thread_ids[i] == t->scope.thread) &&
                in_band(t->scope, r, i) && in_lane(t->scope, rk, r, i, c))
                rp->flags[c] = CF_IN;
        }
    }
}

/* The node of call c given the node of its nearest in-scope ancestor. */
static uint32_t pass_step(ct_build *b, rank_pass *rp, uint32_t base, uint32_t c)
{
    if (!(rp->flags[c] & CF_IN))
        return base;
    uint32_t name = rp->cname[c];
    if (b->t->folded && base && b->t->nodes[base].name == name) {
        rp->flags[c] |= CF_INNER;
        return base;
    }
    return node_intern(b, base, name);
}

/* Walks up from c to the first call whose node is known, then down again:
 * every call is visited once, without recursion. */
static bool pass_resolve(ct_build *b, rank_pass *rp, uint32_t c)
{
    const int32_t *parent = rp->rk->calls->parent;
    size_t k = 0;
    int64_t x = c;
    while (x >= 0 && rp->eff[x] == CT_UNSET) {
        rp->stack[k++] = (uint32_t)x;
        x = parent[x];
    }
    uint32_t base = x < 0 ? 0 : rp->eff[x];
    while (k) {
        uint32_t y = rp->stack[--k];
        base = pass_step(b, rp, base, y);
        if (base == CT_NONE)
            return false;
        rp->eff[y] = base;
    }
    return true;
}

/* Calls are met in ascending index (the regions in gidx0 order), so each
 * one's children are found from where the last family ended. */
static void pass_accumulate(calltree *t, const rank_pass *rp)
{
    const rank_data *rk = rp->rk;
    bool band = calltree_scope_banded(t->scope);
    int64_t t0 = band ? t->scope.t0 : INT64_MIN, t1 = band ? t->scope.t1 : INT64_MAX;
    size_t pos = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            size_t c = r->gidx0 + i;
            if (!(rp->flags[c] & CF_IN))
                continue;
            ct_node *nd = &t->nodes[rp->eff[c]];
            t->has_await |= r->await_ns != NULL;
            t->has_gpu |= r->gpu_ns != NULL;
            t->ncalls++;
            nd->calls++;
            const uint32_t *kids;
            size_t nk = rank_call_children_near(rk, c, &pos, &kids);
            nd->excl_ns = ck_add(nd->excl_ns, rank_call_excl_kids(rk, r, i, kids, nk, t0, t1));
            if (r->start_ns[i] < nd->first_ns)
                nd->first_ns = r->start_ns[i];
            if (rp->flags[c] & CF_INNER)
                continue;
            int64_t d = band_duration(t->scope, r, i);
            nd->entries++;
            nd->incl_ns = ck_add(nd->incl_ns, d);
            if (d > nd->max_ns)
                nd->max_ns = d;
            if (r->await_ns) {
                nd->await_ns = ck_add(nd->await_ns, r->await_ns[i]);
                nd->await_n++;
            }
            if (r->gpu_ns && r->gpu_ns[i] >= 0) {
                nd->gpu_ns = ck_add(nd->gpu_ns, r->gpu_ns[i]);
                nd->gpu_n++;
            }
        }
    }
}

static sv_err build_rank(ct_build *b, const rank_data *rk)
{
    size_t n = rk->calls ? rk->calls->n : 0;
    if (n == 0)
        return SV_OK;
    rank_pass rp = {.rk = rk};
    bool ok = pass_alloc(&rp, n);
    if (ok) {
        pass_mark(&rp, b->t, b->filter);
        for (size_t c = 0; ok && c < n; c++)
            if (rp.eff[c] == CT_UNSET)
                ok = pass_resolve(b, &rp, (uint32_t)c);
    }
    if (ok)
        pass_accumulate(b->t, &rp);
    pass_free(&rp);
    return ok ? SV_OK : sv_error_set(b->err, SV_ERR_NOMEM, "out of memory (call tree)");
}

/* ------------------------------------------------------ from call paths */

/* A rank's paths (callpaths.h) as build_rank adds its calls: a path whose
 * region the filter rejects hangs its children on its parent's node, a
 * path folded into its parent's node (recursion folded) adds calls and
 * exclusive time but not its inclusive, await or GPU time (its calls lie
 * in the parent's).  Parents come before their children. */
static sv_err build_rank_paths(ct_build *b, const rank_data *rk, const cpath_rank *cr)
{
    calltree *t = b->t;
    uint32_t *eff = malloc((cr->n ? cr->n : 1) * sizeof *eff);
    if (!eff)
        return sv_error_set(b->err, SV_ERR_NOMEM, "out of memory (call tree)");
    for (size_t i = 0; i < cr->n; i++) {
        const cpath *cp = &cr->v[i];
        uint32_t base = cp->parent == CP_ROOT ? 0 : eff[cp->parent];
        const region *r = rk->regions[cp->region];
        eff[i] = base;
        if (!filter_match_name(b->filter, r->name))
            continue;
        uint32_t name = name_id(t, r->name);
        bool inner = t->folded && base && t->nodes[base].name == name;
        if (!inner && (eff[i] = node_intern(b, base, name)) == CT_NONE) {
            free(eff);
            return sv_error_set(b->err, SV_ERR_NOMEM, "out of memory (call tree)");
        }
        ct_node *nd = &t->nodes[eff[i]];
        /* as pass_accumulate: a counted call of a region with the column */
        t->has_await |= region_has_await_data(r);
        t->has_gpu |= region_has_gpu_timing(r);
        t->ncalls += cp->calls;
        nd->calls += cp->calls;
        nd->excl_ns = ck_add(nd->excl_ns, cp->excl_ns);
        nd->first_ns = cp->first_ns < nd->first_ns ? cp->first_ns : nd->first_ns;
        if (inner)
            continue;
        nd->entries += cp->calls;
        nd->incl_ns = ck_add(nd->incl_ns, cp->incl_ns);
        nd->max_ns = cp->max_ns > nd->max_ns ? cp->max_ns : nd->max_ns;
        nd->await_ns = ck_add(nd->await_ns, cp->await_ns);
        nd->await_n += cp->await_n;
        nd->gpu_ns = ck_add(nd->gpu_ns, cp->gpu_ns);
        nd->gpu_n += cp->gpu_n;
    }
    free(eff);
    return SV_OK;
}

static const cpath_rank *paths_of(const call_paths *c, size_t rank_index)
{
    for (size_t i = 0; i < c->nranks; i++)
        if (c->ranks[i].rank_index == rank_index)
            return &c->ranks[i];
    return NULL;
}

/* Whether the profile's call paths can give this tree (else err says why). */
static sv_err paths_usable(const profile *p, calltree_scope scope, sv_error *err)
{
    const call_paths *c = p->cpaths;
    if (!c->available)
        return sv_error_set(err, SV_ERR_NO_EVENT_DATA, "%s", c->why);
    if (scope.thread >= 0 || scope.lane_kind != LANE_RANK || calltree_scope_banded(scope))
        return sv_error_set(err, SV_ERR_NO_EVENT_DATA,
                            "a thread's, a lane's or a time band's tree needs single calls, "
                            "which are not held out of core");
    return SV_OK;
}

/* ------------------------------------------------------------ children */

static sv_err build_children(calltree *t, sv_error *err)
{
    t->child_off = calloc(t->n + 1, sizeof *t->child_off);
    t->child = malloc((t->n > 1 ? t->n - 1 : 1) * sizeof *t->child);
    if (!t->child_off || !t->child)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (call tree)");
    for (size_t i = 1; i < t->n; i++)
        t->child_off[t->nodes[i].parent + 1]++;
    for (size_t i = 0; i < t->n; i++)
        t->child_off[i + 1] += t->child_off[i];
    /* Nodes are created after their parent, so the root's time can be
     * summed in the same pass. */
    ct_node *root = &t->nodes[0];
    for (size_t i = 1; i < t->n; i++) {
        const ct_node *nd = &t->nodes[i];
        if (nd->parent == 0) {
            root->incl_ns = ck_add(root->incl_ns, nd->incl_ns);
            root->await_ns = ck_add(root->await_ns, nd->await_ns);
            root->gpu_ns = ck_add(root->gpu_ns, nd->gpu_ns);
            root->await_n += nd->await_n;
            root->gpu_n += nd->gpu_n;
            if (nd->max_ns > root->max_ns)
                root->max_ns = nd->max_ns;
            if (nd->first_ns < root->first_ns)
                root->first_ns = nd->first_ns;
        }
        root->excl_ns = ck_add(root->excl_ns, nd->excl_ns);
    }
    /* fill in node order, using child_off as cursors, then shift back */
    for (size_t i = 1; i < t->n; i++)
        t->child[t->child_off[t->nodes[i].parent]++] = (uint32_t)i;
    for (size_t i = t->n; i > 0; i--)
        t->child_off[i] = t->child_off[i - 1];
    t->child_off[0] = 0;
    return SV_OK;
}

void calltree_free(calltree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t->child_off);
    free(t->child);
    free(t->names);
    free(t);
}

sv_err calltree_build(profile *p, calltree_scope scope, bool fold_recursion,
                      const region_filter *filter, calltree **out, sv_error *err)
{
    *out = NULL;
    if (scope.rank >= 0 && !profile_rank(p, scope.rank))
        return sv_error_set(err, SV_ERR_NOT_FOUND, "no rank %d", scope.rank);
    sv_err e = p->cpaths ? paths_usable(p, scope, err) : profile_ensure_calls(p, err);
    if (e)
        return e;
    calltree *t = calloc(1, sizeof *t);
    if (!t)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    t->scope = scope;
    t->folded = fold_recursion;
    ct_build b = {.t = t, .filter = filter, .err = err};
    e = build_names(t, p, filter, err);
    if (!e && !node_reserve(&b))
        e = sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    if (!e) {
        t->nodes[0] = (ct_node){.parent = CT_NONE, .first_ns = INT64_MAX};
        t->n = 1;
    }
    for (size_t k = 0; !e && k < p->nranks; k++)
        if (in_scope_rank(scope, p->ranks[k].rank) && filter_match_rank(filter, p->ranks[k].rank)) {
            const cpath_rank *cr = p->cpaths ? paths_of(p->cpaths, k) : NULL;
            e = !p->cpaths ? build_rank(&b, &p->ranks[k])
                : cr       ? build_rank_paths(&b, &p->ranks[k], cr)
                           : SV_OK;
        }
    free(b.hash);
    if (!e)
        e = build_children(t, err);
    if (e) {
        calltree_free(t);
        return e;
    }
    *out = t;
    return SV_OK;
}

double calltree_node_mean(const calltree *t, uint32_t node)
{
    const ct_node *nd = &t->nodes[node];
    return nd->entries ? (double)nd->incl_ns / (double)nd->entries : 0.0;
}

double calltree_node_share(const calltree *t, uint32_t node)
{
    const ct_node *nd = &t->nodes[node];
    if (nd->parent == CT_NONE)
        return 1.0;
    int64_t pin = t->nodes[nd->parent].incl_ns;
    return pin > 0 ? (double)nd->incl_ns / (double)pin : 0.0;
}

/* ----------------------------------------------------------------- sort */

typedef struct sort_ctx {
    const calltree *t;
    const double *key;
    bool desc;
} sort_ctx;

/* true when node a goes before node b */
static bool sort_before(const sort_ctx *s, uint32_t a, uint32_t b)
{
    double ka = s->key[a], kb = s->key[b];
    if (ka != kb)
        return s->desc ? ka > kb : ka < kb;
    uint32_t na = s->t->nodes[a].name, nb = s->t->nodes[b].name;
    if (na != nb)
        return na < nb;
    return a < b;
}

/* Bottom-up merge sort of v (n elements) with tmp as scratch. */
static void merge_sort(const sort_ctx *s, uint32_t *v, uint32_t *tmp, size_t n)
{
    uint32_t *src = v, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = sort_before(s, src[j], src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        uint32_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

static double node_key(const calltree *t, uint32_t i, ct_key key)
{
    const ct_node *nd = &t->nodes[i];
    switch (key) {
    case CT_KEY_CALLS:
        return (double)nd->entries; /* what the Calls column shows */
    case CT_KEY_INCL:
        return (double)nd->incl_ns;
    case CT_KEY_EXCL:
        return (double)nd->excl_ns;
    case CT_KEY_MEAN:
        return calltree_node_mean(t, i);
    case CT_KEY_MAX:
        return (double)nd->max_ns;
    case CT_KEY_SHARE:
        return calltree_node_share(t, i);
    case CT_KEY_AWAIT:
        return (double)nd->await_ns;
    case CT_KEY_GPU:
        return (double)nd->gpu_ns;
    default:
        return (double)nd->name;
    }
}

void calltree_sort(calltree *t, ct_key key, bool descending)
{
    double *k = malloc(t->n * sizeof *k);
    uint32_t *tmp = malloc((t->n > 1 ? t->n - 1 : 1) * sizeof *tmp);
    if (k && tmp) {
        for (size_t i = 0; i < t->n; i++)
            k[i] = node_key(t, (uint32_t)i, key);
        sort_ctx s = {t, k, descending};
        for (size_t i = 0; i < t->n; i++) {
            uint32_t lo = t->child_off[i], hi = t->child_off[i + 1];
            merge_sort(&s, t->child + lo, tmp, hi - lo);
        }
    }
    /* without memory the order stays as it was: still a correct tree */
    free(k);
    free(tmp);
}

/* --------------------------------------------------------------- scopes */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct thread rows through a table of seen rows: the loader keeps
 * thread_ids inside the thread table, so this is one pass.  false when a
 * value falls outside (a profile built another way): sort instead. */
static bool thread_rows_seen(const rank_data *rk, int64_t *v, size_t *count, bool *ok)
{
    size_t m = rk->threads.n;
    uint8_t *seen = calloc(m ? m : 1, 1);
    *ok = seen != NULL;
    if (!seen)
        return true;
    bool inside = true;
    for (size_t j = 0; inside && j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; inside && r->thread_ids && i < r->n; i++) {
            int64_t t = r->thread_ids[i];
            inside = t >= 0 && (uint64_t)t < m;
            if (inside)
                seen[t] = 1;
        }
    }
    size_t k = 0;
    for (size_t i = 0; inside && i < m; i++)
        if (seen[i])
            v[k++] = (int64_t)i;
    free(seen);
    *count = k;
    return inside;
}

static void thread_rows_sorted(const rank_data *rk, int64_t *v, size_t n, size_t *count)
{
    size_t k = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (r->thread_ids) {
            memcpy(v + k, r->thread_ids, r->n * sizeof *v);
            k += r->n;
        }
    }
    qsort(v, n, sizeof *v, cmp_i64);
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    *count = k;
}

/* Sorted distinct thread rows used by the calls of rk (malloc'ed). */
static sv_err rank_thread_rows(const rank_data *rk, int64_t **out, size_t *count, sv_error *err)
{
    size_t n = 0;
    for (size_t j = 0; j < rk->nregions; j++)
        if (rk->regions[j]->thread_ids)
            n += rk->regions[j]->n;
    size_t cap = rk->has_threads && rk->threads.n > n ? rk->threads.n : n;
    int64_t *v = malloc((cap ? cap : 1) * sizeof *v);
    bool ok = v != NULL;
    if (ok && !(rk->has_threads && thread_rows_seen(rk, v, count, &ok)))
        thread_rows_sorted(rk, v, n, count);
    if (!ok) {
        free(v);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    *out = v;
    return SV_OK;
}

static bool scope_push(calltree_scope **v, size_t *n, size_t *cap, calltree_scope s)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        calltree_scope *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return false;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = s;
    return true;
}

sv_err calltree_scopes(const profile *p, const region_filter *filter, calltree_scope **out,
                       size_t *count, sv_error *err)
{
    calltree_scope *v = NULL;
    size_t n = 0, cap = 0;
    bool ok = scope_push(&v, &n, &cap, (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0});
    for (size_t k = 0; ok && k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (!filter_match_rank(filter, rk->rank))
            continue;
        if (p->nranks > 1)
            ok = scope_push(&v, &n, &cap, (calltree_scope){rk->rank, -1, 0, 0, LANE_RANK, 0});
        int64_t *rows = NULL;
        size_t nrows = 0;
        if (ok && rank_thread_rows(rk, &rows, &nrows, err)) {
            free(v);
            return SV_ERR_NOMEM;
        }
        for (size_t i = 0; ok && i < nrows; i++)
            ok = scope_push(&v, &n, &cap, (calltree_scope){rk->rank, rows[i], 0, 0, LANE_RANK, 0});
        free(rows);
    }
    if (!ok) {
        free(v);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    *out = v;
    *count = n;
    return SV_OK;
}

/* Sorted distinct task rows used by the calls of rk (malloc'ed). */
static int64_t *rank_task_rows(const rank_data *rk, size_t *count)
{
    size_t n = 0;
    for (size_t j = 0; j < rk->nregions; j++)
        if (rk->regions[j]->task_ids)
            n += rk->regions[j]->n;
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; r->task_ids && i < r->n; i++)
            if (r->task_ids[i] >= 0)
                v[k++] = r->task_ids[i];
    }
    if (k > 1)
        qsort(v, k, sizeof *v, cmp_i64);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    *count = m;
    return v;
}

sv_err calltree_lane_scopes(const profile *p, const region_filter *filter, calltree_scope **out,
                            size_t *count, sv_error *err)
{
    calltree_scope *v = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    for (size_t k = 0; ok && k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (!filter_match_rank(filter, rk->rank))
            continue;
        size_t nt = 0;
        int64_t *rows = rank_task_rows(rk, &nt);
        ok = rows != NULL;
        for (size_t i = 0; ok && i < nt; i++)
            ok = scope_push(&v, &n, &cap, (calltree_scope){rk->rank, -1, 0, 0, LANE_TASK, rows[i]});
        free(rows);
        for (uint32_t l = 0; ok && rk->ninferred_lanes >= 2 && l < rk->ninferred_lanes; l++)
            ok = scope_push(&v, &n, &cap,
                            (calltree_scope){rk->rank, -1, 0, 0, LANE_INFERRED, (int64_t)l});
    }
    if (!ok) {
        free(v);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    *out = v;
    *count = n;
    return SV_OK;
}
