/* diff_dist: shared bins for two runs' duration histograms (dist_draw in
 * diff_views.h draws them overlaid). */
#ifndef SV_DIFF_DIST_H
#define SV_DIFF_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Shared bins over both samples: linear, or logarithmic when the range is
 * wide (max > 100 max(min, 1)), as histogram.h.  counts[0] and counts[1]
 * get nbins counts each. */
typedef struct dist_bins {
    size_t nbins;
    int64_t lo, hi;
    bool log;
} dist_bins;

void dist_bins_init(dist_bins *b, const int64_t *x, size_t nx, const int64_t *y, size_t ny,
                    size_t nbins);
/* Position of v in [0, 1] on the bins' scale. */
double dist_pos(const dist_bins *b, double v);
/* Counts of a sorted sample per bin. */
void dist_count(const dist_bins *b, const int64_t *v, size_t n, uint64_t *counts);

#endif
