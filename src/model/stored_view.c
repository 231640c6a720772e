/* stored_view: the stored statistics as a profile (stored_view.h). */
#include "stored_view.h"

#include <stdlib.h>
#include <string.h>

/* The view and its copies, one block in p->regions order (the index
 * maps back); prof first, so a view's profile pointer is the block's. */
typedef struct sv_block {
    profile prof;
    region *copies;
    size_t n;
} sv_block;

static void region_as_stored(region *c, const region *r, rank_data *owner)
{
    *c = *r;
    c->owner = owner;
    c->has_event_data = false;
    c->n = 0;
    c->start_ns = c->end_ns = NULL;
    c->call_ids = c->parent_ids = c->thread_ids = c->task_ids = NULL;
    c->await_ns = c->gpu_ns = c->own_excl_ns = NULL;
    c->event_meta = NULL;
    memset(&c->st, 0, sizeof c->st);
    c->gidx0 = 0;
}

profile *stored_view_new(const profile *p)
{
    sv_block *b = calloc(1, sizeof *b);
    size_t n = p->nregions;
    profile *v = b ? &b->prof : NULL;
    if (b) {
        *v = *p; /* strings, metadata, warnings: p's, never freed here */
        v->ranks = calloc(p->nranks ? p->nranks : 1, sizeof *v->ranks);
        v->regions = calloc(n ? n : 1, sizeof *v->regions);
        b->copies = calloc(n ? n : 1, sizeof *b->copies);
        b->n = n;
    }
    if (!b || !v->ranks || !v->regions || !b->copies) {
        stored_view_free(v);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &v->ranks[i];
        *rk = p->ranks[i];
        rk->owner = v;
        rk->calls = NULL;
        rk->ncalls = 0;
        rk->regions = v->regions + k;
        for (size_t j = 0; j < p->ranks[i].nregions && k < n; j++, k++) {
            region_as_stored(&b->copies[k], p->regions[k], rk);
            v->regions[k] = &b->copies[k];
        }
        rk->nregions = (size_t)(v->regions + k - rk->regions);
        rk->regions_cap = rk->nregions;
    }
    v->nregions = k;
    return v;
}

void stored_view_free(profile *v)
{
    if (!v)
        return;
    sv_block *b = (sv_block *)v;
    free(b->copies);
    free(v->ranks);
    free(v->regions);
    free(b);
}

region *stored_view_real(const profile *v, const profile *p, const region *r)
{
    const sv_block *b = (const sv_block *)v;
    if (!r || r < b->copies || r >= b->copies + b->n)
        return NULL;
    size_t i = (size_t)(r - b->copies);
    return i < p->nregions ? p->regions[i] : NULL;
}

bool stored_view_useful(const profile *p)
{
    for (size_t i = 0; i < p->nregions; i++)
        if (p->regions[i]->has_event_data && p->regions[i]->has_stored_summary)
            return true;
    return false;
}
