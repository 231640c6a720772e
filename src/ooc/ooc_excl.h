/* ooc_excl: the shadow stack that gives each swept call its exclusive
 * time (doc/FORMAT.md, nest.c's): its duration less the length of the
 * union of its direct children's intervals, each clipped to the call,
 * never negative.
 *
 * The sweep (ooc_scan.h) hands the calls of one stack on in (start, -end)
 * order, each with the depth of the calls open below it.  The caller pops
 * the stack down to that depth (each popped call's exclusive time is
 * final then), then pushes the call: the call on top below it is its
 * parent, whose children's union grows at its right end, since children
 * come in start order.  Each open call carries a tag of the caller's (a
 * path, a figure and region, an index into its own records).  Model code:
 * no curses, no libhdf5. */
#ifndef SV_OOC_EXCL_H
#define SV_OOC_EXCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/checked.h"

typedef struct ooc_excl_call {
    int64_t s, e;
    int64_t cover_end; /* right end of its children's union so far */
    int64_t covered;   /* that union's length */
    uint64_t tag;
} ooc_excl_call;

typedef struct ooc_excl_stack {
    ooc_excl_call *v;
    size_t sp, cap;
} ooc_excl_stack; /* {0}: empty */

/* Room for one more call (the sweep's hot path keeps push and pop
 * inline); false on NOMEM. */
bool ooc_excl_room(ooc_excl_stack *st);

/* Pushes [s, e] on the calls open (the caller popped them to its depth):
 * the union of the top's children grows by the part of [s, e] inside the
 * top (clipped to it; children come in start order, so the union grows at
 * its right end).  false on NOMEM (the stack is as it was). */
static inline bool ooc_excl_push(ooc_excl_stack *st, int64_t s, int64_t e, uint64_t tag)
{
    if (st->sp == st->cap && !ooc_excl_room(st))
        return false;
    if (st->sp) {
        ooc_excl_call *c = &st->v[st->sp - 1];
        int64_t cs = s > c->s ? s : c->s, ce = e < c->e ? e : c->e;
        if (ce > cs && ce > c->cover_end) {
            c->covered = ck_add(c->covered, ck_sub(ce, cs > c->cover_end ? cs : c->cover_end));
            c->cover_end = ce;
        }
    }
    st->v[st->sp++] = (ooc_excl_call){s, e, INT64_MIN, 0, tag};
    return true;
}

/* Pops the top call (the stack must hold one): its exclusive time, and
 * its tag in *tag (NULL: not wanted). */
static inline int64_t ooc_excl_pop(ooc_excl_stack *st, uint64_t *tag)
{
    const ooc_excl_call *c = &st->v[--st->sp];
    if (tag)
        *tag = c->tag;
    int64_t x = ck_sub(ck_sub(c->e, c->s), c->covered);
    return x < 0 ? 0 : x;
}

static inline size_t ooc_excl_depth(const ooc_excl_stack *st)
{
    return st->sp;
}

/* The top call, NULL when none is open. */
static inline const ooc_excl_call *ooc_excl_top(const ooc_excl_stack *st)
{
    return st->sp ? &st->v[st->sp - 1] : NULL;
}

/* Forgets the open calls (a rank given up), keeping the storage. */
static inline void ooc_excl_clear(ooc_excl_stack *st)
{
    st->sp = 0;
}

void ooc_excl_free(ooc_excl_stack *st);

#endif
