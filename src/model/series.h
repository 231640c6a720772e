/* series: one region's calls as a series of durations over the run, the
 * data behind the duration-over-time view and --timeseries.
 *
 * What the series says besides its points, each over the calls it holds:
 * - p50, p95, p99: linear-interpolated percentiles of the durations (stats.h);
 * - outliers: the calls longer than the p99;
 * - warm-up: the first call (earliest start) against the median of the rest,
 *   as a ratio (2.5: the first call took 2.5 times the median);
 * - drift: a least-squares line of duration against start time over the
 *   calls after the first (the warm-up has its own figure), read at the
 *   middle of their first tenth and of their last tenth (of the time from
 *   their first start to their last): (last - first) / first, so +0.12 says
 *   the fitted duration grew 12% over the run.  It needs 4 calls over a span.
 * Pure model code: no curses, nanoseconds throughout. */
#ifndef SV_SERIES_H
#define SV_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "profile.h"

typedef struct series_call {
    int64_t start; /* ns since the profile's minimum start */
    int64_t dur;   /* ns */
    int rank;      /* rank number */
    int64_t call;  /* rank call index (region.gidx0 + the call's index) */
    size_t index;  /* the call's index in its region (the --events index) */
} series_call;

typedef struct series {
    const char *name;
    int rank;           /* the rank asked for, -1 every rank the filter keeps */
    series_call *calls; /* n, by start (ties: rank, index) */
    size_t n;
    double p50, p95, p99;
    int64_t min, max;
    size_t outliers;     /* calls with dur > p99 */
    bool has_warmup;     /* n >= 2 */
    double warmup_first; /* ns */
    double warmup_rest;  /* median of the other calls, ns */
    double warmup_ratio; /* first / rest (0 when rest is 0) */
    bool has_drift;
    double drift;                /* fractional change of the fitted duration */
    double drift_from, drift_to; /* the fitted durations at the two tenths, ns */
} series;

/* The series of region name over the ranks the filter keeps (rank >= 0:
 * that rank alone).  SV_ERR_NOT_FOUND when no such rank has the region,
 * SV_ERR_NO_EVENT_DATA when it has no recorded calls there. */
sv_err series_build(const profile *p, const region_filter *filter, const char *name, int rank,
                    series **out, sv_error *err);
void series_free(series *s);

/* One column of a plot: the calls whose x falls in it. */
typedef struct series_bin {
    size_t n;
    int64_t min, med, max; /* med: the lower median */
    size_t slowest;        /* index into series.calls of its longest call (the first of ties) */
} series_bin;

/* Bins the calls into nbins columns of equal width: by start time over
 * [first start, last start] (by_time) or by position in the series.
 * scratch: s->n int64s (the medians are selected in it). */
void series_bins(const series *s, bool by_time, series_bin *bins, size_t nbins, int64_t *scratch);

/* The column of call i (as series_bins puts it). */
size_t series_bin_of(const series *s, bool by_time, size_t i, size_t nbins);

#endif
