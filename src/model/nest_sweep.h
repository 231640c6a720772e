/* nest_sweep: the first-fit lane sweep of inferred nesting (doc/FORMAT.md,
 * "Inferred lanes"), one implementation for every caller: the in-memory
 * model, the streamed statistics, the out-of-core scan and its build.
 *
 * Calls come in the sweep's order (start, then end descending, ...).  A
 * call joins the first lane, in the order lanes were opened, whose stack
 * of open calls it nests in after the calls that ended at or before its
 * start without containing it are popped; a new lane opens when none
 * fits, at most NEST_LANES_MAX; past the limit the call goes to the last
 * lane, whose calls not containing it are popped (partial overlaps not
 * nested, and the search stays linear on a hostile file).
 *
 * What a caller records stays its own: an open call is the caller's
 * struct (elem bytes) whose first member is a nest_span, and each pop is
 * told to the caller's callback (exclusive time, checkpoints).  The
 * functions the sweep runs per call are inline here so that a caller's
 * callback, a constant, is inlined into its loop: the sweep costs what a
 * hand-written one does.  No allocation but the lanes and their stacks. */
#ifndef SV_NEST_SWEEP_H
#define SV_NEST_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nest.h"

/* The head of every open call: its interval [s, e]. */
typedef struct nest_span {
    int64_t s, e;
} nest_span;

/* One lane's stack of open calls, the innermost on top (stk[sp - 1]). */
typedef struct nest_lane {
    unsigned char *stk;
    size_t sp, cap; /* in calls */
} nest_lane;

typedef struct nest_sweep {
    nest_lane *lanes;
    size_t nlanes, lanes_cap;
    size_t elem; /* bytes of one open call, a nest_span first */
    bool capped; /* a call found no lane within NEST_LANES_MAX */
} nest_sweep;

/* Told of each call popped from lane l (the call still readable at
 * `call`) before a call starting at s is placed; false stops the sweep
 * (out of memory), the call then counted as popped. */
typedef bool (*nest_pop_fn)(void *ctx, size_t l, void *call, int64_t s);

/* An empty sweep whose open calls are elem bytes (sizeof the caller's). */
void nest_sweep_init(nest_sweep *sw, size_t elem);
/* Frees the lanes without popping their calls. */
void nest_sweep_free(nest_sweep *sw);
/* Opens lanes up to n (a caller's forced lane); false when out of memory. */
bool nest_sweep_lanes_to(nest_sweep *sw, size_t n);
/* Room for one more call on ln; false when out of memory. */
bool nest_lane_reserve(nest_sweep *sw, nest_lane *ln);

static inline void *nest_lane_at(const nest_sweep *sw, const nest_lane *ln, size_t i)
{
    return ln->stk + i * sw->elem;
}

/* The innermost open call of ln, NULL when ln is empty. */
static inline void *nest_lane_top(const nest_sweep *sw, const nest_lane *ln)
{
    return ln->sp ? nest_lane_at(sw, ln, ln->sp - 1) : NULL;
}

/* p contains [s, e]: identical intervals nest, and a zero-length call at
 * p's end is inside p. */
static inline bool nest_span_contains(const void *p, int64_t s, int64_t e)
{
    const nest_span *q = p;
    return q->s <= s && e <= q->e;
}

/* Pops the top of lane l (not empty) before a call starting at s. */
static inline bool nest_lane_pop(nest_sweep *sw, size_t l, nest_pop_fn pop, void *ctx, int64_t s)
{
    nest_lane *ln = &sw->lanes[l];
    void *c = nest_lane_at(sw, ln, --ln->sp);
    return pop ? pop(ctx, l, c, s) : true;
}

/* Pops the calls of lane l that end at or before s without containing
 * [s, e].  1: [s, e] then nests in the lane (empty, or its top contains
 * it); 0: it does not; -1: a pop failed. */
static inline int nest_lane_fits(nest_sweep *sw, size_t l, int64_t s, int64_t e, nest_pop_fn pop,
                                 void *ctx)
{
    nest_lane *ln = &sw->lanes[l];
    while (ln->sp > 0) {
        const nest_span *t = nest_lane_at(sw, ln, ln->sp - 1);
        if (nest_span_contains(t, s, e))
            return 1;
        if (t->e > s)
            return 0;
        if (!nest_lane_pop(sw, l, pop, ctx, s))
            return -1;
    }
    return 1;
}

/* Pops every call of lane l that does not contain [s, e] (one lane that
 * is the thread's: what does not contain the call has ended); false when
 * a pop failed. */
static inline bool nest_lane_pop_to(nest_sweep *sw, size_t l, int64_t s, int64_t e, nest_pop_fn pop,
                                    void *ctx)
{
    nest_lane *ln = &sw->lanes[l];
    while (ln->sp > 0 && !nest_span_contains(nest_lane_at(sw, ln, ln->sp - 1), s, e))
        if (!nest_lane_pop(sw, l, pop, ctx, s))
            return false;
    return true;
}

/* The lane [s, e] joins by first fit (a lane it opens is sw->nlanes - 1
 * afterwards, so a caller sees a new lane by the count); SIZE_MAX when
 * out of memory or a pop failed. */
static inline size_t nest_sweep_first_fit(nest_sweep *sw, int64_t s, int64_t e, nest_pop_fn pop,
                                          void *ctx)
{
    for (size_t l = 0; l < sw->nlanes; l++) {
        int k = nest_lane_fits(sw, l, s, e, pop, ctx);
        if (k)
            return k > 0 ? l : SIZE_MAX;
    }
    if (sw->nlanes < NEST_LANES_MAX)
        return nest_sweep_lanes_to(sw, sw->nlanes + 1) ? sw->nlanes - 1 : SIZE_MAX;
    sw->capped = true;
    size_t l = sw->nlanes - 1;
    return nest_lane_pop_to(sw, l, s, e, pop, ctx) ? l : SIZE_MAX;
}

/* A new open call on top of lane l for the caller to fill (elem bytes,
 * a nest_span first): its parent is the top before.  NULL when out of
 * memory. */
static inline void *nest_lane_push(nest_sweep *sw, size_t l)
{
    nest_lane *ln = &sw->lanes[l];
    if (ln->sp == ln->cap && !nest_lane_reserve(sw, ln))
        return NULL;
    return nest_lane_at(sw, ln, ln->sp++);
}

#endif
