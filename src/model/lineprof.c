/* lineprof: see lineprof.h. */
#include "lineprof.h"

#include <math.h>
#include <string.h>

/* Same file when equal, or when one is the other with directories in
 * front ("examples/heat.py" and "/home/u/examples/heat.py"). */
static bool lineprof_same_file(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la == lb)
        return strcmp(a, b) == 0;
    const char *lng = la > lb ? a : b, *sht = la > lb ? b : a;
    size_t ll = la > lb ? la : lb, ls = la > lb ? lb : la;
    return ls > 0 && lng[ll - ls - 1] == '/' && strcmp(lng + ll - ls, sht) == 0;
}

static bool lineprof_covers(const line_profile *lp, int64_t line)
{
    /* From the function's first line to its last profiled line. */
    int64_t hi = lp->first_lineno;
    for (size_t i = 0; i < lp->n; i++)
        if (lp->lineno[i] > hi)
            hi = lp->lineno[i];
    return line >= lp->first_lineno && line <= hi;
}

bool lineprof_matches(const line_profile *lp, const char *name, const region *r)
{
    if (lp->region && lp->region[0])
        return strcmp(lp->region, name) == 0;
    if (lp->function && strcmp(lp->function, name) == 0)
        return true;
    return r && r->source_file && lp->filename && r->has_lineno &&
           lineprof_same_file(r->source_file, lp->filename) &&
           lineprof_covers(lp, r->source_lineno);
}

size_t lineprof_for_region(const rank_data *rk, const char *name, const region *r,
                           const line_profile **out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; rk && i < rk->nlines; i++) {
        if (!lineprof_matches(&rk->lines[i], name, r))
            continue;
        if (k < cap)
            out[k] = &rk->lines[i];
        k++;
    }
    return k;
}

/* t units in seconds: divided by 1/unit when that is a whole number. */
static double lineprof_seconds(double t, double unit)
{
    if (unit > 0 && unit < 1) {
        double per_s = nearbyint(1.0 / unit);
        if (per_s >= 2 && per_s < 1e15 && 1.0 / per_s == unit)
            return t / per_s;
    }
    return t * unit;
}

double lineprof_row_s(const line_profile *lp, size_t i)
{
    return lineprof_seconds(lp->times[i], lp->unit_s);
}

/* t units in nanoseconds: a unit of 1/N s with N dividing 1e9 (1e-9, 1e-6)
 * is a whole number of nanoseconds, multiplied exactly. */
static double lineprof_nanos(double t, double unit)
{
    if (unit > 0 && unit < 1) {
        double per_s = nearbyint(1.0 / unit);
        if (per_s >= 2 && per_s <= 1e9 && 1.0 / per_s == unit && fmod(1e9, per_s) == 0)
            return t * (1e9 / per_s);
    }
    return lineprof_seconds(t, unit) * 1e9;
}

double lineprof_row_ns(const line_profile *lp, size_t i)
{
    return lineprof_nanos(lp->times[i], lp->unit_s);
}

double lineprof_total_ns(const line_profile *lp)
{
    double t = 0;
    for (size_t i = 0; i < lp->n; i++)
        t += lp->times[i];
    return lineprof_nanos(t, lp->unit_s);
}

const char *lineprof_text(const line_profile *lp, const region *r, int64_t *first_lineno)
{
    if (lp->source) {
        *first_lineno = lp->source_first_lineno;
        return lp->source;
    }
    if (r && r->source_text && r->has_lineno) {
        *first_lineno = r->source_lineno;
        return r->source_text;
    }
    return NULL;
}

const char *lineprof_text_line(const char *text, int64_t first, int64_t lineno, size_t *len)
{
    if (!text || lineno < first)
        return NULL;
    const char *s = text;
    for (int64_t k = first; k < lineno; k++) {
        const char *nl = strchr(s, '\n');
        if (!nl)
            return NULL;
        s = nl + 1;
    }
    if (!*s)
        return NULL;
    const char *nl = strchr(s, '\n');
    *len = nl ? (size_t)(nl - s) : strlen(s);
    return s;
}

void lineprof_hottest(const line_profile *lp, size_t k, unsigned char *hot)
{
    memset(hot, 0, lp->n);
    for (size_t rank = 1; rank <= k && rank < 256; rank++) {
        size_t best = lp->n;
        for (size_t i = 0; i < lp->n; i++) {
            if (hot[i] || !(lp->times[i] > 0))
                continue;
            if (best == lp->n || lp->times[i] > lp->times[best] ||
                (lp->times[i] == lp->times[best] && lp->lineno[i] < lp->lineno[best]))
                best = i;
        }
        if (best == lp->n)
            return;
        hot[best] = (unsigned char)rank;
    }
}

size_t lineprof_counters(const rank_data *rk, const char *name, const perf_record **out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; rk && i < rk->nperf; i++) {
        if (!rk->perf[i].region || strcmp(rk->perf[i].region, name) != 0)
            continue;
        if (k < cap)
            out[k] = &rk->perf[i];
        k++;
    }
    return k;
}
