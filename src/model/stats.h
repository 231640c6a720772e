/* stats: single-pass statistics of a region's calls, and percentiles by
 * selection (numpy's default linear interpolation). */
#ifndef SV_STATS_H
#define SV_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Fills r->st from the region's columns (no-op for summary-only regions).
 * Keeps r->st.exclusive_total_ns, which nesting fills.  SV_ERR_FORMAT when
 * a call ends before it starts (or its duration overflows). */
sv_err stats_compute_region(region *r, sv_error *err);

/* False when stats_compute_region() would refuse r with SV_ERR_FORMAT (a
 * call ends before it starts, or its duration overflows).  Reads the
 * columns only, so it may run beside stats_compute_region(). */
bool stats_durations_valid(const region *r);

/* numpy.percentile(v, pct) for pct in [0, 100], linear interpolation.
 * Reorders v (selection, no full sort).  0.0 when n == 0. */
double stats_percentile_inplace(int64_t *v, size_t n, double pct);

/* The k-th smallest of v[0, n) (k < n), what v[k] holds once v is sorted,
 * by selection: reorders v. */
int64_t stats_kth_inplace(int64_t *v, size_t n, size_t k);

/* Several percentiles at once (pcts ascending), reordering v.  Each later
 * selection only looks at the part above the previous one. */
void stats_percentiles_inplace(int64_t *v, size_t n, const double *pcts, double *out, size_t count);

/* Population standard deviation and mean of v (ns). */
void stats_mean_std(const int64_t *v, size_t n, double *mean, double *std);

#endif
