/* butterfly: the callers and callees of one region (the callers view).
 *
 * Over the region's outermost calls (a call inside another call of the
 * same region, directly or not, is counted in that one, as the tree's
 * folded rows count recursion once):
 * - callers: every call path that leads to it (root region first), with
 *   the calls and the inclusive time spent in the region under each;
 * - callees: the regions its calls call directly, a direct call of itself
 *   folded into it (its children become the region's), each with its
 *   calls, inclusive and exclusive time; the region's own exclusive time
 *   (self, the folded calls' too) beside them, so self plus the callees'
 *   inclusive time is the region's time but for children that overlap.
 * Needs the per-call nesting (profile_ensure_calls).  Pure model code:
 * no curses, nanoseconds throughout. */
#ifndef SV_BUTTERFLY_H
#define SV_BUTTERFLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "profile.h"

typedef struct bfly_caller {
    char *path;         /* region names from the root, joined by " > "; "" for a root call */
    const char *parent; /* the direct caller's name (points into the profile), NULL at the root */
    int64_t calls;
    int64_t incl_ns;
} bfly_caller;

typedef struct bfly_callee {
    const char *name; /* points into the profile */
    int64_t calls;
    int64_t incl_ns;
    int64_t excl_ns;
} bfly_callee;

typedef struct butterfly {
    const char *name;     /* points into the profile */
    int rank;             /* -1: every rank the filter keeps */
    int64_t calls;        /* outermost calls */
    int64_t nested;       /* calls inside another call of the region */
    int64_t incl_ns;      /* the outermost calls' time */
    int64_t self_ns;      /* exclusive time of all its calls */
    bfly_caller *callers; /* by time, largest first (ties by path) */
    size_t ncallers;
    bfly_callee *callees; /* by inclusive time, largest first (ties by name) */
    size_t ncallees;
} butterfly;

/* SV_ERR_NOT_FOUND when no kept rank (or not rank) has the region,
 * SV_ERR_NO_EVENT_DATA when it has no recorded calls there. */
sv_err butterfly_build(profile *p, const region_filter *filter, const char *name, int rank,
                       butterfly **out, sv_error *err);
void butterfly_free(butterfly *b);

#endif
