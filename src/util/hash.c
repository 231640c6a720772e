/* hash: sv_itab's storage (hash.h). */
#include "hash.h"

#include <stdlib.h>
#include <string.h>

bool sv_itab_grow(sv_itab *t, size_t first, sv_itab_hash hash, const void *ctx)
{
    size_t cap = 2;
    while (cap < first && cap <= SIZE_MAX / 4 / sizeof *t->slot)
        cap *= 2;
    if (t->cap)
        cap = t->cap > SIZE_MAX / 2 / sizeof *t->slot ? 0 : 2 * t->cap;
    uint32_t *v = cap ? calloc(cap, sizeof *v) : NULL;
    if (!v)
        return false;
    size_t mask = cap - 1;
    for (size_t j = 0; j < t->cap; j++) {
        if (!t->slot[j])
            continue;
        size_t k = (size_t)hash(ctx, t->slot[j] - 1) & mask;
        while (v[k])
            k = (k + 1) & mask;
        v[k] = t->slot[j];
    }
    free(t->slot);
    t->slot = v;
    t->cap = cap;
    return true;
}

void sv_itab_clear(sv_itab *t)
{
    if (t->slot)
        memset(t->slot, 0, t->cap * sizeof *t->slot);
    t->n = 0;
}

void sv_itab_free(sv_itab *t)
{
    free(t->slot);
    *t = (sv_itab){0};
}
