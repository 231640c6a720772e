/* merged: each region name merged over the ranks that have it, for the
 * regions table and the comparison of two runs.  Pure model code: no
 * curses, nanoseconds throughout. */
#ifndef SV_MERGED_H
#define SV_MERGED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "profile.h"

/* One region name merged over the ranks that have it.  A statistic is
 * unknown (its bit in `known` clear) when some rank cannot give it. */
typedef enum merged_stat {
    MS_CALLS,
    MS_TOTAL,
    MS_MEAN,
    MS_MIN,
    MS_MAX,
    MS_P50,
    MS_P95,
    MS_P99,
    MS_STD,
    MS_EXCL,
    MS_AWAIT_SHARE, /* await total / total, a fraction */
    MS_GPU,
    MS_IMBALANCE, /* max / mean - 1 of the per-rank totals over the ranks
                   * that ran the region (imbalance.h), a fraction */
    MS_COUNT
} merged_stat;

typedef struct merged_region {
    const char *name;
    region **ranks; /* the region on each rank that has it, rank order */
    size_t nranks;
    bool event_data;   /* every rank has event data */
    bool summary_only; /* no rank has event data */
    uint32_t known;    /* bit k: v[k] is known */
    double v[MS_COUNT];
    int slowest_rank; /* rank with the largest total (-1 unknown) */
    /* The ranks the filter keeps that did not run the region: without it
     * (absent) or with no calls of it (in ranks).  Left out of the
     * imbalance; the per-rank rows list them as "not run". */
    int *absent; /* rank numbers, ascending */
    size_t nabsent;
    size_t nnot_run; /* absent + those in ranks without calls */
} merged_region;

/* Merges every region name of p that the filter keeps (NULL: all), over
 * the ranks it keeps: percentiles and std over the merged
 * durations of every rank (single-rank names reuse the region's own
 * statistics).  Malloc'ed array in byte order of names; free with
 * merged_regions_free(). */
sv_err merged_regions_build(const profile *p, const region_filter *filter, merged_region **out,
                            size_t *count, sv_error *err);
void merged_regions_free(merged_region *m, size_t count);

/* The statistic of one region of one rank in the same terms (for the
 * per-rank breakdown rows).  false when unknown. */
bool merged_stat_of_region(const region *r, merged_stat s, double *v);

#endif
