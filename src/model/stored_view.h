/* stored_view: a profile's stored summary_statistics as a profile of its
 * own, for the views while the real statistics are still being computed
 * (the viewer's deferred load, stats_job.h).
 *
 * Every region of the view is a summary-only copy of p's region at the
 * same index of p->regions: the same name, rank, tags and stored summary,
 * no columns and no computed statistics, so region_stat() and merged.h
 * give exactly what the file stores, and nothing else.  Names and other
 * strings are p's (not copied): the view lives no longer than p. */
#ifndef SV_STORED_VIEW_H
#define SV_STORED_VIEW_H

#include "profile.h"

/* NULL when out of memory. */
profile *stored_view_new(const profile *p);
void stored_view_free(profile *v);

/* p's region that r (a region of v) stands for; NULL if r is not v's. */
region *stored_view_real(const profile *v, const profile *p, const region *r);

/* Whether any region with calls has a stored summary (else the view
 * knows nothing the screen could show). */
bool stored_view_useful(const profile *p);

#endif
