/* select: lists of a profile's regions, for outputs and views: those a
 * filter keeps in order of first start, one name across ranks, all of them
 * by name.  (Split from filter.c, which only matches.) */
#ifndef SV_SELECT_H
#define SV_SELECT_H

#include <stddef.h>

#include "filter.h"
#include "profile.h"

/* Regions passing the filter in order of first start (summary-only and
 * empty regions last, by name), then rank.  Malloc'ed array of pointers
 * into p; caller frees the array only. */
sv_err profile_select_regions(const profile *p, const region_filter *f, region ***out,
                              size_t *count, sv_error *err);

/* Every region of that name across ranks (rank order), malloc'ed. */
sv_err profile_region_across_ranks(const profile *p, const char *name, region ***out, size_t *count,
                                   sv_error *err);

/* Every (region, rank) of p by (name in byte order, rank), malloc'ed
 * (the order the call tree names and the merged regions use); NULL on
 * NOMEM. */
region **profile_regions_by_name(const profile *p);

#endif
