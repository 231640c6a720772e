/* histogram: bins of call durations with the p50/p95/p99 marks.
 *
 * Pure (no terminal): the calls view draws it, the tests check it by hand.
 * Bins are linear over [min, max], or logarithmic when the range is wide
 * (max > HIST_LOG_RATIO * max(min, 1)), so a few slow outliers do not
 * squeeze every ordinary call into the first bin.  Like numpy.histogram,
 * every bin is half-open except the last, which also holds the maximum. */
#ifndef SV_HISTOGRAM_H
#define SV_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/sv_error.h"

#define HIST_LOG_RATIO 100.0
#define HIST_NMARKS 3

/* The percentiles marked: 50, 95, 99. */
extern const double histogram_mark_pcts[HIST_NMARKS];

typedef struct histogram {
    size_t nbins;
    uint64_t *count; /* nbins */
    uint64_t max_count;
    size_t n;                 /* values binned */
    int64_t lo, hi;           /* smallest and largest value (0, 0 when n == 0) */
    bool log;                 /* logarithmic bins (values <= 1 fall in bin 0) */
    double pct[HIST_NMARKS];  /* p50, p95, p99 (numpy's linear interpolation) */
    size_t mark[HIST_NMARKS]; /* the bin each of them falls in */
} histogram;

/* Bins v[0..n) into nbins >= 1 bins.  v is not modified (the percentiles
 * are taken on a copy).  SV_ERR_NOMEM on allocation failure. */
sv_err histogram_build(histogram *h, const int64_t *v, size_t n, size_t nbins, sv_error *err);
void histogram_free(histogram *h);

/* Where a value lies in the range, from 0 (min) to 1 (max), on the
 * histogram's scale (linear or logarithmic), clamped. */
double histogram_pos(const histogram *h, double v);

/* The bin a value falls in (clamped to the range). */
size_t histogram_bin(const histogram *h, double v);

/* A bin count for n values drawn in `width` columns: twice the square
 * root of n (at least 8), no more than the columns. */
size_t histogram_nbins_for(size_t n, size_t width);

/* The left edge of bin k (k == nbins: the right edge of the last bin). */
double histogram_edge(const histogram *h, size_t k);

/* Height in rows of bin b's bar in a chart `rows` high: count scaled to
 * the largest bin, rounded up so a non-empty bin always shows. */
int histogram_bar_height(const histogram *h, size_t b, int rows);

#endif
