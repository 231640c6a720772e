/* ooc_excl: exclusive times of the swept calls (ooc_excl.h). */
#include "ooc_excl.h"

#include <stdlib.h>

#include "util/checked.h"
#include "util/grow.h"

/* A child [s, e] of the open call c, clipped to c: the union of c's
 * children grows by what passes its right end. */
static void cover(ooc_excl_call *c, int64_t s, int64_t e)
{
    s = s > c->s ? s : c->s;
    e = e < c->e ? e : c->e;
    if (e <= s || e <= c->cover_end)
        return;
    c->covered = ck_add(c->covered, ck_sub(e, s > c->cover_end ? s : c->cover_end));
    c->cover_end = e;
}

bool ooc_excl_push(ooc_excl_stack *st, int64_t s, int64_t e, uint64_t tag)
{
    if (!sv_grow((void **)&st->v, &st->cap, st->sp + 1, sizeof *st->v, 16))
        return false;
    if (st->sp)
        cover(&st->v[st->sp - 1], s, e);
    st->v[st->sp++] = (ooc_excl_call){s, e, INT64_MIN, 0, tag};
    return true;
}

int64_t ooc_excl_pop(ooc_excl_stack *st, uint64_t *tag)
{
    const ooc_excl_call *c = &st->v[--st->sp];
    if (tag)
        *tag = c->tag;
    int64_t x = ck_sub(ck_sub(c->e, c->s), c->covered);
    return x < 0 ? 0 : x;
}

void ooc_excl_free(ooc_excl_stack *st)
{
    free(st->v);
    *st = (ooc_excl_stack){0};
}
