/* butterfly: callers and callees of one region (butterfly.h). */
#include "butterfly.h"

#include <stdlib.h>
#include <string.h>

#include "callpaths.h"
#include "util/checked.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/grow.h"

typedef struct bfly_work {
    butterfly *b;
    size_t ccap, ecap;
    strbuf path;
    const region **anc; /* ancestors' regions, innermost first */
    size_t nanc, anc_cap;
    uint32_t *stack; /* the callee walk */
    size_t nstack, stack_cap;
    /* Per region of the rank: where its last call's children were found
     * (rank_call_children_near), as its calls come in ascending order. */
    size_t *hint;
    size_t hint_cap;
    bool oom;
} bfly_work;

static int64_t call_dur(const region *r, size_t i)
{
    return ck_sub(r->end_ns[i], r->start_ns[i]);
}

/* The call's ancestors into w->anc; false when one is a call of x. */
static bool bfly_outermost(bfly_work *w, const rank_data *rk, const region *x, size_t g)
{
    w->nanc = 0;
    for (int32_t a = rk->calls->parent[g]; a >= 0; a = rk->calls->parent[a]) {
        const region *r = rank_call_region(rk, a, NULL);
        if (r == x)
            return false;
        if (!sv_grow((void **)&w->anc, &w->anc_cap, w->nanc + 1, sizeof *w->anc, 16)) {
            w->oom = true;
            return false;
        }
        w->anc[w->nanc++] = r;
    }
    return true;
}

static void bfly_add_caller(bfly_work *w, int64_t n, int64_t dur)
{
    butterfly *b = w->b;
    w->path.len = 0;
    if (w->path.s)
        w->path.s[0] = '\0';
    for (size_t k = w->nanc; k-- > 0;) {
        sb_puts(&w->path, w->anc[k]->name);
        if (k)
            sb_puts(&w->path, " > ");
    }
    if (w->path.oom) {
        w->oom = true;
        return;
    }
    const char *key = w->path.s ? w->path.s : "";
    for (size_t i = 0; i < b->ncallers; i++)
        if (strcmp(b->callers[i].path, key) == 0) {
            b->callers[i].calls += n;
            b->callers[i].incl_ns = ck_add(b->callers[i].incl_ns, dur);
            return;
        }
    char *copy = strdup(key);
    if (!copy ||
        !sv_grow((void **)&b->callers, &w->ccap, b->ncallers + 1, sizeof *b->callers, 16)) {
        free(copy);
        w->oom = true;
        return;
    }
    b->callers[b->ncallers++] = (bfly_caller){copy, w->nanc ? w->anc[0]->name : NULL, n, dur};
}

static void bfly_add_callee(bfly_work *w, const char *name, int64_t n, int64_t incl, int64_t excl)
{
    butterfly *b = w->b;
    for (size_t i = 0; i < b->ncallees; i++)
        if (b->callees[i].name == name || strcmp(b->callees[i].name, name) == 0) {
            b->callees[i].calls += n;
            b->callees[i].incl_ns = ck_add(b->callees[i].incl_ns, incl);
            b->callees[i].excl_ns = ck_add(b->callees[i].excl_ns, excl);
            return;
        }
    if (!sv_grow((void **)&b->callees, &w->ecap, b->ncallees + 1, sizeof *b->callees, 16)) {
        w->oom = true;
        return;
    }
    b->callees[b->ncallees++] = (bfly_callee){name, n, incl, excl};
}

/* Exclusive time of call i of region r (rk->regions[j]), its children
 * into *kids and *nk. */
static int64_t bfly_excl(bfly_work *w, const rank_data *rk, size_t j, size_t i,
                         const uint32_t **kids, size_t *nk)
{
    const region *r = rk->regions[j];
    *nk = rank_call_children_near(rk, r->gidx0 + i, &w->hint[j], kids);
    return rank_call_excl_kids(rk, r, i, *kids, *nk, INT64_MIN, INT64_MAX);
}

/* The children of call g of x (rk->regions[xi]), its own calls folded in
 * (their children walked in turn, their exclusive time the region's). */
static void bfly_callees(bfly_work *w, const rank_data *rk, size_t xi, size_t g)
{
    const region *x = rk->regions[xi];
    w->nstack = 0;
    if (!sv_grow((void **)&w->stack, &w->stack_cap, 1, sizeof *w->stack, 16)) {
        w->oom = true;
        return;
    }
    w->stack[w->nstack++] = (uint32_t)g;
    while (w->nstack && !w->oom) {
        size_t c = w->stack[--w->nstack];
        const uint32_t *kids, *gk;
        size_t nk, ngk;
        w->b->self_ns = ck_add(w->b->self_ns, bfly_excl(w, rk, xi, c - x->gidx0, &kids, &nk));
        for (size_t k = 0; k < nk; k++) {
            size_t idx;
            size_t j = rank_call_region_at(rk, kids[k], &idx);
            if (j >= rk->nregions)
                continue;
            const region *r = rk->regions[j];
            if (r == x) {
                if (!sv_grow((void **)&w->stack, &w->stack_cap, w->nstack + 1, sizeof *w->stack,
                             16)) {
                    w->oom = true;
                    return;
                }
                w->stack[w->nstack++] = kids[k];
            } else {
                int64_t excl = bfly_excl(w, rk, j, idx, &gk, &ngk);
                bfly_add_callee(w, r->name, 1, call_dur(r, idx), excl);
            }
        }
    }
}

static void bfly_rank(bfly_work *w, const rank_data *rk, size_t xi)
{
    const region *x = rk->regions[xi];
    if (!sv_grow((void **)&w->hint, &w->hint_cap, rk->nregions, sizeof *w->hint, 16)) {
        w->oom = true;
        return;
    }
    for (size_t j = 0; j < rk->nregions; j++)
        w->hint[j] = SIZE_MAX;
    w->b->nested += (int64_t)x->n;
    for (size_t j = 0; j < x->n && !w->oom; j++) {
        size_t g = x->gidx0 + j;
        if (!bfly_outermost(w, rk, x, g))
            continue; /* walked from its outermost call */
        int64_t d = call_dur(x, j);
        w->b->calls++;
        w->b->nested--;
        w->b->incl_ns = ck_add(w->b->incl_ns, d);
        bfly_add_caller(w, 1, d);
        bfly_callees(w, rk, xi, g);
    }
}

/* The same from a rank's call paths (callpaths.h, the out-of-core
 * skeleton): a path of x is outermost when no path above it is x; a
 * chain path is an outermost one or an x directly under a chain path (the
 * calls bfly_callees walks); the chain paths' other children are the
 * callees. */
static void bfly_rank_paths(bfly_work *w, const rank_data *rk, const cpath_rank *cr, size_t xi)
{
    uint8_t *f = calloc(cr->n ? cr->n : 1, 1); /* 1: x above it, 2: a chain path */
    if (!f) {
        w->oom = true;
        return;
    }
    for (size_t i = 0; i < cr->n && !w->oom; i++) {
        const cpath *cp = &cr->v[i];
        uint8_t up = cp->parent == CP_ROOT ? 0 : f[cp->parent];
        bool under = cp->parent != CP_ROOT && (cr->v[cp->parent].region == xi || (up & 1));
        f[i] = under ? 1 : 0;
        if (cp->region != xi) {
            if (up & 2)
                bfly_add_callee(w, rk->regions[cp->region]->name, cp->calls, cp->incl_ns,
                                cp->excl_ns);
            continue;
        }
        w->b->nested += cp->calls;
        if (under && !(up & 2 && cr->v[cp->parent].region == xi))
            continue;
        f[i] |= 2;
        w->b->self_ns = ck_add(w->b->self_ns, cp->excl_ns);
        if (under)
            continue;
        w->nanc = 0;
        for (uint32_t a = cp->parent; a != CP_ROOT && !w->oom; a = cr->v[a].parent) {
            if (!sv_grow((void **)&w->anc, &w->anc_cap, w->nanc + 1, sizeof *w->anc, 16))
                w->oom = true;
            else
                w->anc[w->nanc++] = rk->regions[cr->v[a].region];
        }
        w->b->calls += cp->calls;
        w->b->nested -= cp->calls;
        w->b->incl_ns = ck_add(w->b->incl_ns, cp->incl_ns);
        if (!w->oom)
            bfly_add_caller(w, cp->calls, cp->incl_ns);
    }
    free(f);
}

static const cpath_rank *bfly_paths_of(const call_paths *c, size_t k)
{
    for (size_t i = 0; i < c->nranks; i++)
        if (c->ranks[i].rank_index == k)
            return &c->ranks[i];
    return NULL;
}

static size_t bfly_region_index(const rank_data *rk, const region *x)
{
    size_t j = 0;
    while (j < rk->nregions && rk->regions[j] != x)
        j++;
    return j;
}

static int caller_cmp(const void *a, const void *b)
{
    const bfly_caller *x = a, *y = b;
    if (x->incl_ns != y->incl_ns)
        return x->incl_ns > y->incl_ns ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int callee_cmp(const void *a, const void *b)
{
    const bfly_callee *x = a, *y = b;
    if (x->incl_ns != y->incl_ns)
        return x->incl_ns > y->incl_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static sv_err bfly_check(const profile *p, const region_filter *f, const char *name, int rank,
                         sv_error *err)
{
    size_t found = 0, calls = 0;
    for (size_t k = 0; k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (!filter_match_rank(f, rk->rank) || (rank >= 0 && rk->rank != rank))
            continue;
        const region *r = rank_region(rk, name);
        found += r != NULL;
        calls += r && r->has_event_data ? (r->streamed ? (size_t)r->st.num_calls : r->n) : 0;
    }
    char shown[160];
    text_escape_buf(shown, sizeof shown, name);
    if (!found)
        return sv_error_set(err, SV_ERR_NOT_FOUND, "no region %s on the ranks shown", shown);
    if (!calls)
        return sv_error_set(err, SV_ERR_NO_EVENT_DATA,
                            "region %s has no recorded calls (summary only)", shown);
    return SV_OK;
}

sv_err butterfly_build(profile *p, const region_filter *filter, const char *name, int rank,
                       butterfly **out, sv_error *err)
{
    *out = NULL;
    sv_err rc = bfly_check(p, filter, name, rank, err);
    if (rc == SV_OK && p->cpaths && !p->cpaths->available)
        rc = sv_error_set(err, SV_ERR_NO_EVENT_DATA, "%s", p->cpaths->why);
    else if (rc == SV_OK && !p->cpaths)
        rc = profile_ensure_calls(p, err);
    if (rc != SV_OK)
        return rc;
    bfly_work w = {0};
    sb_init(&w.path);
    w.b = calloc(1, sizeof *w.b);
    if (!w.b)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (callers)");
    w.b->rank = rank;
    for (size_t k = 0; k < p->nranks && !w.oom; k++) {
        const rank_data *rk = &p->ranks[k];
        if (!filter_match_rank(filter, rk->rank) || (rank >= 0 && rk->rank != rank))
            continue;
        const region *x = rank_region(rk, name);
        const cpath_rank *cr = p->cpaths && x ? bfly_paths_of(p->cpaths, k) : NULL;
        if (x && x->has_event_data && (rk->calls || cr))
            w.b->name = x->name;
        if (x && x->has_event_data && cr)
            bfly_rank_paths(&w, rk, cr, bfly_region_index(rk, x));
        else if (x && x->has_event_data && rk->calls)
            bfly_rank(&w, rk, bfly_region_index(rk, x));
    }
    sb_free(&w.path);
    free(w.anc);
    free(w.stack);
    free(w.hint);
    if (w.oom) {
        butterfly_free(w.b);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (callers)");
    }
    if (w.b->ncallers > 1) /* qsort takes no NULL, even for no elements */
        qsort(w.b->callers, w.b->ncallers, sizeof *w.b->callers, caller_cmp);
    if (w.b->ncallees > 1)
        qsort(w.b->callees, w.b->ncallees, sizeof *w.b->callees, callee_cmp);
    *out = w.b;
    return SV_OK;
}

void butterfly_free(butterfly *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->ncallers; i++)
        free(b->callers[i].path);
    free(b->callers);
    free(b->callees);
    free(b);
}
