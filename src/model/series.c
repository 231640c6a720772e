/* series: one region's durations over the run (series.h). */
#include "series.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util/text.h"

static int call_cmp(const void *a, const void *b)
{
    const series_call *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static sv_err series_collect(const profile *p, const region_filter *f, const char *name, int rank,
                             series *s, sv_error *err)
{
    size_t n = 0, found = 0;
    for (size_t k = 0; k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (!filter_match_rank(f, rk->rank) || (rank >= 0 && rk->rank != rank))
            continue;
        const region *r = rank_region(rk, name);
        r = r && filter_match(f, r) ? r : NULL;
        found += r != NULL;
        n += r && r->has_event_data ? r->n : 0;
    }
    char shown[160];
    text_escape_buf(shown, sizeof shown, name);
    if (!found && rank >= 0)
        return sv_error_set(err, SV_ERR_NOT_FOUND, "no region %s on rank %d", shown, rank);
    if (!found)
        return sv_error_set(err, SV_ERR_NOT_FOUND, "no region %s among the selected ranks", shown);
    if (n == 0)
        return sv_error_set(err, SV_ERR_NO_EVENT_DATA,
                            "region %s has no recorded calls (summary only)", shown);
    s->calls = malloc(n * sizeof *s->calls);
    if (!s->calls)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (series)");
    int64_t t0 = p->has_min_start ? p->min_start_ns : 0;
    for (size_t k = 0; k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (!filter_match_rank(f, rk->rank) || (rank >= 0 && rk->rank != rank))
            continue;
        const region *r = rank_region(rk, name);
        r = r && filter_match(f, r) ? r : NULL;
        for (size_t j = 0; r && r->has_event_data && j < r->n; j++)
            s->calls[s->n++] = (series_call){r->start_ns[j] - t0, r->end_ns[j] - r->start_ns[j],
                                             rk->rank, (int64_t)(r->gidx0 + j), j};
    }
    /* One rank's calls are mostly recorded in start order already. */
    bool sorted = true;
    for (size_t i = 1; sorted && i < s->n; i++)
        sorted = call_cmp(&s->calls[i - 1], &s->calls[i]) < 0;
    if (!sorted)
        qsort(s->calls, s->n, sizeof *s->calls, call_cmp);
    return SV_OK;
}

/* Least squares of dur on start over the calls after the first (the
 * warm-up is a figure of its own and would tilt the line), read at the
 * two tenths of their span. */
static void series_drift(series *s)
{
    if (s->n < 4)
        return;
    const series_call *c = s->calls + 1;
    size_t m = s->n - 1;
    double x0 = (double)c[0].start, span = (double)c[m - 1].start - x0;
    if (span <= 0)
        return;
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = (double)m;
    for (size_t i = 0; i < m; i++) {
        double x = ((double)c[i].start - x0) / span, y = (double)c[i].dur;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double den = n * sxx - sx * sx;
    if (den <= 0)
        return;
    double b = (n * sxy - sx * sy) / den, a = (sy - b * sx) / n;
    s->drift_from = a + b * 0.05;
    s->drift_to = a + b * 0.95;
    if (s->drift_from <= 0)
        return;
    s->has_drift = true;
    s->drift = (s->drift_to - s->drift_from) / s->drift_from;
}

static sv_err series_figures(series *s, sv_error *err)
{
    int64_t *d = malloc(s->n * sizeof *d);
    if (!d)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (series)");
    s->min = s->max = s->calls[0].dur;
    for (size_t i = 0; i < s->n; i++) {
        d[i] = s->calls[i].dur;
        s->min = d[i] < s->min ? d[i] : s->min;
        s->max = d[i] > s->max ? d[i] : s->max;
    }
    static const double pcts[3] = {50, 95, 99};
    double out[3];
    stats_percentiles_inplace(d, s->n, pcts, out, 3);
    s->p50 = out[0];
    s->p95 = out[1];
    s->p99 = out[2];
    for (size_t i = 0; i < s->n; i++)
        s->outliers += (double)s->calls[i].dur > s->p99;
    if (s->n >= 2) {
        for (size_t i = 1; i < s->n; i++)
            d[i - 1] = s->calls[i].dur;
        s->has_warmup = true;
        s->warmup_first = (double)s->calls[0].dur;
        s->warmup_rest = stats_percentile_inplace(d, s->n - 1, 50);
        s->warmup_ratio = s->warmup_rest > 0 ? s->warmup_first / s->warmup_rest : 0.0;
    }
    free(d);
    series_drift(s);
    return SV_OK;
}

sv_err series_build(const profile *p, const region_filter *filter, const char *name, int rank,
                    series **out, sv_error *err)
{
    *out = NULL;
    series *s = calloc(1, sizeof *s);
    if (!s)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (series)");
    s->rank = rank;
    sv_err rc = series_collect(p, filter, name, rank, s, err);
    if (rc == SV_OK)
        rc = series_figures(s, err);
    if (rc != SV_OK) {
        series_free(s);
        return rc;
    }
    s->name = name;
    for (size_t k = 0; k < p->nranks; k++) {
        const region *r = rank_region(&p->ranks[k], name);
        if (r) { /* the profile's own copy of the name outlives the caller's */
            s->name = r->name;
            break;
        }
    }
    *out = s;
    return SV_OK;
}

void series_free(series *s)
{
    if (!s)
        return;
    free(s->calls);
    free(s);
}

size_t series_bin_of(const series *s, bool by_time, size_t i, size_t nbins)
{
    if (nbins == 0 || s->n == 0)
        return 0;
    double pos;
    if (by_time) {
        int64_t a = s->calls[0].start, span = s->calls[s->n - 1].start - a;
        pos = span > 0 ? (double)(s->calls[i].start - a) / (double)span : 0.0;
    } else {
        pos = s->n > 1 ? (double)i / (double)(s->n - 1) : 0.0;
    }
    size_t b = (size_t)(pos * (double)nbins);
    return b < nbins ? b : nbins - 1;
}

void series_bins(const series *s, bool by_time, series_bin *bins, size_t nbins, int64_t *scratch)
{
    memset(bins, 0, nbins * sizeof *bins);
    if (nbins == 0)
        return;
    /* The calls are in start order, so a column's calls are consecutive. */
    size_t i = 0;
    while (i < s->n) {
        size_t b = series_bin_of(s, by_time, i, nbins), j = i;
        series_bin *x = &bins[b];
        x->min = x->max = s->calls[i].dur;
        x->slowest = i;
        for (; j < s->n && series_bin_of(s, by_time, j, nbins) == b; j++) {
            int64_t d = s->calls[j].dur;
            scratch[j - i] = d;
            x->min = d < x->min ? d : x->min;
            if (d > x->max) {
                x->max = d;
                x->slowest = j;
            }
        }
        x->n = j - i;
        x->med = stats_kth_inplace(scratch, x->n, (x->n - 1) / 2); /* no sort of the column */
        i = j;
    }
}
