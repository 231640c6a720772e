/* What the out-of-core window's files share (ooc_build.c: the window
 * profile from a skeleton and the seeded nesting; ooc_window.c: the plan
 * and the load; load_window.c: the loader's reads of a plan).  Not part of
 * the model's API. */
#ifndef SV_OOC_INTERNAL_H
#define SV_OOC_INTERNAL_H

#include "ooc.h"

/* ------------------------------------------------------------ the plan */

/* The plan of window [t0, t1) (t0 < t1); false on NOMEM. */
bool ooc_plan_make(const ooc_file *f, int64_t t0, int64_t t1, ooc_plan *plan);
void ooc_plan_free(ooc_plan *plan);

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
 * first-fit sweep of inferred lanes (doc/FORMAT.md), in which every
 * call with forced[g] != UINT32_MAX joins that lane; rk->calls is replaced
 * and rk->ninferred_lanes set to ninferred.  For ranks whose whole profile
 * inferred lanes (ninferred > 0) only. */
sv_err ooc_nest_seeded(rank_data *rk, const uint32_t *forced, uint32_t ninferred, sv_error *err);

#endif
