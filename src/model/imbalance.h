/* imbalance: how unevenly the ranks share a region's time, as upstream
 * defines it.
 *
 * Over the ranks that ran the region (a rank without the region, or with
 * no calls of it, did not), with T the per-rank inclusive totals:
 * imbalance = max(T) / mean(T) - 1 and excess = max(T) - mean(T).  A rank
 * that did not run the region is listed as such and left out of the mean:
 * counting it as 0 would call a region that only some ranks do (an I/O
 * rank's writes) imbalanced when the ranks that do it share it evenly.
 * Pure model code: no curses, nanoseconds throughout. */
#ifndef SV_IMBALANCE_H
#define SV_IMBALANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "profile.h"

/* The figures over the totals t[i] of the ranks with ran[i] set. */
typedef struct imb_figures {
    size_t nran;      /* ranks that ran it */
    double mean;      /* ns, over those ranks */
    double max;       /* ns */
    double imbalance; /* max / mean - 1 (0 when the mean is 0) */
    double excess;    /* max - mean, ns */
    size_t argmax;    /* index of the largest total (the first of ties) */
} imb_figures;

/* false when no rank ran it (out left zeroed). */
bool imb_figures_of(const double *t, const bool *ran, size_t n, imb_figures *out);

/* Whether r's rank ran it: calls > 0, or, calls unknown (a summary without
 * a count), a stored total > 0.  *total: its inclusive total in ns, *known
 * false when the file cannot give it. */
bool imb_region_ran(const region *r, double *total, bool *known);

/* One rank's row under a region. */
typedef struct imb_rank {
    int rank;        /* rank number */
    const region *r; /* NULL: the rank has no such region */
    bool ran;        /* see imb_region_ran */
    bool known;      /* total known */
    double total;    /* inclusive total, ns */
} imb_rank;

/* One region name over the ranks the filter keeps. */
typedef struct imb_row {
    const char *name;
    imb_rank *ranks; /* every rank the filter keeps, rank order */
    size_t nranks;
    bool known; /* f holds: some rank ran it and every such rank knows its total */
    imb_figures f;
    int straggler; /* rank number of the largest total, -1 when not known */
} imb_row;

/* Every region name the filter keeps (NULL: all), sorted by excess time,
 * largest first (unknown last, ties by name).  Malloc'ed; imb_free. */
sv_err imb_build(const profile *p, const region_filter *filter, imb_row **out, size_t *n,
                 sv_error *err);
void imb_free(imb_row *rows, size_t n);

#endif
