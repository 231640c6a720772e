/* slowcalls: the slowest calls' storage and order (slowcalls.h). */
#include "slowcalls.h"

#include <stdlib.h>

#include "profile.h"

void slow_calls_free(slow_calls *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nregs; i++)
        free(c->regs[i].v);
    free(c->regs);
    free(c->ranks);
    free(c);
}

bool slow_call_before(const slow_call *a, const slow_call *b)
{
    int64_t da = slow_call_dur(a), db = slow_call_dur(b);
    if (da != db)
        return da > db;
    return a->pos < b->pos;
}

const slow_region *slow_calls_find(const slow_calls *c, size_t rank_index, uint32_t reg)
{
    size_t lo = 0, hi = c ? c->nregs : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const slow_region *r = &c->regs[mid];
        if (r->rank_index < rank_index || (r->rank_index == rank_index && r->region < reg))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < (c ? c->nregs : 0) && c->regs[lo].rank_index == rank_index &&
        c->regs[lo].region == reg)
        return &c->regs[lo];
    return NULL;
}

bool slow_calls_swept(const slow_calls *c, size_t rank_index)
{
    size_t lo = 0, hi = c ? c->nranks : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->ranks[mid] < rank_index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return c && lo < c->nranks && c->ranks[lo] == rank_index;
}

const slow_region *slow_calls_of(const profile *p, const region *r)
{
    if (!p || !p->slowest || !r || !r->owner || r->owner < p->ranks ||
        r->owner >= p->ranks + p->nranks)
        return NULL;
    size_t k = (size_t)(r->owner - p->ranks);
    for (size_t j = 0; j < r->owner->nregions; j++)
        if (r->owner->regions[j] == r)
            return slow_calls_find(p->slowest, k, (uint32_t)j);
    return NULL;
}
