/* histogram: binning and percentile marks. */
#include "histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/stats.h"

const double histogram_mark_pcts[HIST_NMARKS] = {50.0, 95.0, 99.0};

/* Logarithmic bins start at 1 ns: a zero-length call has no logarithm. */
static double log_floor(const histogram *h)
{
    return h->lo > 1 ? (double)h->lo : 1.0;
}

double histogram_pos(const histogram *h, double v)
{
    if (h->hi <= h->lo)
        return 0.0;
    double f;
    if (h->log) {
        double l0 = log(log_floor(h));
        f = v <= log_floor(h) ? 0.0 : (log(v) - l0) / (log((double)h->hi) - l0);
    } else {
        f = (v - (double)h->lo) / ((double)h->hi - (double)h->lo);
    }
    return f > 1.0 ? 1.0 : f > 0.0 ? f : 0.0;
}

size_t histogram_bin(const histogram *h, double v)
{
    if (h->nbins == 0)
        return 0;
    double b = floor(histogram_pos(h, v) * (double)h->nbins);
    return b >= (double)h->nbins ? h->nbins - 1 : (size_t)b;
}

size_t histogram_nbins_for(size_t n, size_t width)
{
    size_t b = 8;
    while (b < width && (b / 2) * (b / 2) < n)
        b += 2;
    return b < width ? b : width ? width : 1;
}

/* The same for an integer value, exactly where the product cannot
 * overflow (so values on a bin edge land in the bin they open). */
static size_t bin_of_int(const histogram *h, int64_t v)
{
    if (h->log || h->hi <= h->lo)
        return histogram_bin(h, (double)v);
    uint64_t off = (uint64_t)v - (uint64_t)h->lo;
    uint64_t span = (uint64_t)h->hi - (uint64_t)h->lo;
    if (off > UINT64_MAX / h->nbins)
        return histogram_bin(h, (double)v);
    uint64_t b = off * h->nbins / span;
    return b >= h->nbins ? h->nbins - 1 : (size_t)b;
}

double histogram_edge(const histogram *h, size_t k)
{
    double f = h->nbins ? (double)k / (double)h->nbins : 0.0;
    if (h->log) {
        double l0 = log(log_floor(h));
        return exp(l0 + (log((double)h->hi) - l0) * f);
    }
    return (double)h->lo + ((double)h->hi - (double)h->lo) * f;
}

static void find_range(histogram *h, const int64_t *v, size_t n)
{
    h->lo = h->hi = n ? v[0] : 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i] < h->lo)
            h->lo = v[i];
        if (v[i] > h->hi)
            h->hi = v[i];
    }
    h->log = n > 0 && (double)h->hi > HIST_LOG_RATIO * log_floor(h);
}

sv_err histogram_build(histogram *h, const int64_t *v, size_t n, size_t nbins, sv_error *err)
{
    memset(h, 0, sizeof *h);
    if (nbins == 0)
        nbins = 1;
    int64_t *copy = n ? malloc(n * sizeof *copy) : NULL;
    h->count = calloc(nbins, sizeof *h->count);
    if (!h->count || (n && !copy)) {
        free(copy);
        histogram_free(h);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory for a histogram of %zu calls", n);
    }
    h->nbins = nbins;
    h->n = n;
    find_range(h, v, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t c = ++h->count[bin_of_int(h, v[i])];
        if (c > h->max_count)
            h->max_count = c;
    }
    if (n) {
        memcpy(copy, v, n * sizeof *copy);
        stats_percentiles_inplace(copy, n, histogram_mark_pcts, h->pct, HIST_NMARKS);
        for (size_t m = 0; m < HIST_NMARKS; m++)
            h->mark[m] = histogram_bin(h, h->pct[m]);
    }
    free(copy);
    return SV_OK;
}

void histogram_free(histogram *h)
{
    free(h->count);
    memset(h, 0, sizeof *h);
}

int histogram_bar_height(const histogram *h, size_t b, int rows)
{
    if (b >= h->nbins || h->max_count == 0 || h->count[b] == 0 || rows <= 0)
        return 0;
    uint64_t c = h->count[b];
    /* ceil(c * rows / max) without overflow: c <= max, rows is small. */
    double r = ceil((double)c * (double)rows / (double)h->max_count);
    return r < 1.0 ? 1 : r > rows ? rows : (int)r;
}
