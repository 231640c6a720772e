/* What the out-of-core window's files share (ooc_build.c: the window
 * profile from a skeleton and the seeded nesting; ooc_window.c: the plan
 * and the load; load_window.c: the loader's reads of a plan).  Not part of
 * the model's API. */
#ifndef SV_OOC_INTERNAL_H
#define SV_OOC_INTERNAL_H

#include "ooc.h"

/* ------------------------------------------------------------ the plan */

/* A range of positions of a row read whole: segments [a, b), a on a
 * segment boundary, whose call a starts at `anchor` (schema 3 decodes the
 * following deltas from it). */
typedef struct ooc_range {
    uint64_t a, b;
    int64_t anchor;
} ooc_range;

/* What a window reads of one row: the calls of the ranges starting in
 * [lo, hi), and the open calls at the given positions (start and end
 * known). */
typedef struct ooc_rowplan {
    int rank;         /* rank number */
    const char *name; /* region name (the skeleton's) */
    size_t rank_index, region_index;
    uint64_t n; /* the row's calls in the skeleton's file */
    int64_t lo, hi;
    ooc_range *ranges;
    size_t nranges;
    ooc_open_call *open; /* by position */
    size_t nopen;
} ooc_rowplan;

typedef struct ooc_plan {
    ooc_rowplan *rows; /* by (rank, name byte order) */
    size_t nrows;
    uint64_t calls; /* at most: range lengths plus open calls */
} ooc_plan;

/* The plan of window [t0, t1) (t0 < t1); false on NOMEM. */
bool ooc_plan_make(const ooc_file *f, int64_t t0, int64_t t1, ooc_plan *plan);
void ooc_plan_free(ooc_plan *plan);
/* The row plan of (rank, name), or NULL. */
const ooc_rowplan *ooc_plan_find(const ooc_plan *plan, int rank, const char *name);

/* ------------------------------------------------------------ the profile */

/* A profile with skel's ranks (thread and task tables copied) and every
 * region (names, has_event_data), no calls: the window's frame.  Ranks and
 * regions keep skel's indices.  NULL on NOMEM. */
profile *ooc_frame(const profile *skel);

/* The window's time zero (profile.min_start_ns, the timeline's origin) is
 * the whole profile's, whatever calls the window holds. */
void ooc_same_zero(profile *w, const profile *skel);

/* Whether skel's region r had optional column bit (SV_SCOL_*): a window
 * keeps only the columns the whole row kept. */
bool ooc_region_has(const region *r, uint32_t bit);

/* Nests rank rk of a finished window again as the whole profile did: the
 * first-fit sweep of inferred lanes (FORMAT-REFERENCE.md), in which every
 * call with forced[g] != UINT32_MAX joins that lane; rk->calls is replaced
 * and rk->ninferred_lanes set to ninferred.  For ranks whose whole profile
 * inferred lanes (ninferred > 0) only. */
sv_err ooc_nest_seeded(rank_data *rk, const uint32_t *forced, uint32_t ninferred, sv_error *err);

#endif
