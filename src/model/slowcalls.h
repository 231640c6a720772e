/* slowcalls: each region's slowest calls in a profile whose calls are not
 * held (the out-of-core skeleton).  The loading child's sweep keeps, per
 * region of each rank it sweeps, the K slowest calls (ooc_slowest.h), with
 * what the calls view and the timeline need to show and find each one:
 * its row position, span, lane and lane depth, exclusive time.  The calls
 * view lists them and the slowest-call command takes the first.
 *
 * Order ("slower"): the longer duration (end - start, saturating) first;
 * of equal durations the lower row position (the recorded order: the
 * in-memory calls view's tie rule; in a row in start order also the
 * earlier start).  A region's list holds the first min(k, seen) of its
 * calls in that order, slowest first, so its first call's duration is
 * the region's Max.
 * Pure model code. */
#ifndef SV_SLOWCALLS_H
#define SV_SLOWCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/checked.h"

/* No lane: the command line's filter leaves the call out of the timeline. */
#define SLOW_NO_LANE UINT64_MAX
/* The most calls a region's list may hold. */
#define SLOW_K_MAX 256u

typedef struct slow_call {
    int64_t s, e;
    int64_t excl_ns; /* duration less the union of its children (nest.c's), >= 0 */
    uint64_t pos;    /* position in its region's row (the call_index of --events) */
    uint64_t lane;   /* the overview map's lane, SLOW_NO_LANE when filtered out */
    uint32_t depth;  /* its lane depth (kept calls below it) */
} slow_call;

typedef struct slow_region {
    size_t rank_index; /* the profile's */
    uint32_t region;   /* index among the rank's regions */
    uint64_t seen;     /* the calls swept: the region's count */
    slow_call *v;      /* the slowest min(k, seen), slowest first */
    size_t n;
} slow_region;

typedef struct slow_calls {
    size_t k; /* calls a list holds at most (1 .. SLOW_K_MAX) */
    /* The ranks swept (increasing): a rank with calls that is not here
     * has no lists, and why says why (a rank the sweep does not nest). */
    size_t *ranks;
    size_t nranks;
    char why[200];
    slow_region *regs; /* by rank index then region index, each at most once */
    size_t nregs;
} slow_calls;

void slow_calls_free(slow_calls *c);

/* Whether a is slower than b (the order above). */
bool slow_call_before(const slow_call *a, const slow_call *b);
static inline int64_t slow_call_dur(const slow_call *c)
{
    return ck_sub(c->e, c->s);
}

/* The list of region reg of rank rank_index, NULL when it has none. */
const slow_region *slow_calls_find(const slow_calls *c, size_t rank_index, uint32_t reg);
/* The list of r, a region of p (p->slowest's), NULL when it has none. */
struct profile;
struct region;
const slow_region *slow_calls_of(const struct profile *p, const struct region *r);
/* Whether rank rank_index was swept (its regions' lists are whole). */
bool slow_calls_swept(const slow_calls *c, size_t rank_index);

#endif
