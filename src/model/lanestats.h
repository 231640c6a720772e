/* lanestats: how busy each timeline lane was (model code, no curses).
 *
 * A lane row's busy time is the union of its calls' intervals.  It is kept
 * as sorted disjoint intervals with a running sum, so the busy time inside
 * any window costs two binary searches: the timeline's density cells show
 * load (the share of a cell covered by calls) and the lanes view draws a
 * utilisation sparkline at a cost that does not grow with the file.
 *
 * Per lane: busy = union of its top-level (depth 0) calls, awaited = sum
 * of the awaited time those calls record (at most busy), idle = the
 * profile's span minus busy (a task's: from its creation to its end, or
 * to the end of the span when unfinished, minus its busy time there),
 * calls, first start and last end, and the
 * region with the most exclusive time in the lane. */
#ifndef SV_LANESTATS_H
#define SV_LANESTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lanes.h"
#include "sv_error.h"

typedef struct lane_busy {
    int64_t *s, *e; /* n disjoint intervals [s, e), sorted, none empty */
    int64_t *cum;   /* n + 1: cum[k] = total length of intervals [0, k) */
    size_t n;
    /* A row whose calls are already disjoint, non-empty and apart (the usual
     * case) keeps no copy: its intervals are the row's calls, read through
     * row (s, e and cum NULL), with the running total every LANES_BLOCK
     * calls in bcum (about half a byte a call instead of 24). */
    const lane *ln;
    const lane_row *row;
    int64_t *bcum; /* lanes_nblocks(n) + 1 */
    int64_t total; /* busy time of the whole row */
} lane_busy;

/* The union of row's calls (zero-length calls cover nothing).  O(row->n). */
sv_err lane_busy_build(const lane *ln, const lane_row *row, lane_busy *out, sv_error *err);
void lane_busy_free(lane_busy *b);
/* Busy time of the whole row. */
int64_t lane_busy_all(const lane_busy *b);

/* Nanoseconds of [t0, t1) covered by b: O(log n). */
int64_t lane_busy_between(const lane_busy *b, int64_t t0, int64_t t1);
/* Nanoseconds before t covered by b: O(log n).  between(t0, t1) is
 * before(t1) - before(t0) for t0 < t1. */
int64_t lane_busy_before(const lane_busy *b, int64_t t);
/* The same, for times asked in increasing order: *hint (0 at first) is
 * where the last search ended, the next one starts from it. */
int64_t lane_busy_before_from(const lane_busy *b, int64_t t, size_t *hint);
/* The same, adding to *reads how many calls it read (its cost beyond a
 * binary search of the row's block starts): at most LANES_BLOCK + 6 for a
 * row read through (bcum), however long the row.  For tests. */
int64_t lane_busy_before_counted(const lane_busy *b, int64_t t, size_t *reads);

typedef struct lane_stat {
    size_t lane; /* index in the lanes_index */
    int64_t busy, awaited;
    uint64_t idle; /* the span may pass INT64_MAX ns: so may its idle part */
    size_t calls;
    int64_t first, last;   /* first start, last end (calls > 0) */
    const region *busiest; /* most exclusive time in the lane, NULL when none */
    int64_t busiest_excl;  /* its exclusive time in the lane */
} lane_stat;

typedef struct lanestats {
    const lanes_index *ix;
    size_t n;       /* = ix->nlanes */
    lane_stat *st;  /* n */
    lane_busy *top; /* n: busy intervals of each lane's depth-0 row */
    int64_t t0, t1; /* the profile's span (ix->t_min .. ix->t_max) */
} lanestats;

/* Statistics of every lane of ix.  O(calls) time, once. */
sv_err lanestats_build(const lanes_index *ix, lanestats **out, sv_error *err);
void lanestats_free(lanestats *ls);

/* The figures of rank index rank as a whole, over its lanes together:
 * busy, awaited and calls summed, first and last over them, the busiest
 * region the one with the most exclusive time summed over the lanes, and
 * idle the part of the span during which none of its lanes was busy (so
 * at most the span).  out->lane is SIZE_MAX.  O(calls of the rank). */
sv_err lanestats_rank(const lanestats *ls, size_t rank, lane_stat *out, sv_error *err);

/* The part [*a, *z] of the span [t0, t1] lane ln could be busy in (its
 * idle time is that less its busy time there): a task's from its creation
 * to its end (to t1 while unfinished), as its rank's task table says;
 * every other lane's the whole span. */
void lanestats_window(const lane *ln, int64_t t0, int64_t t1, int64_t *a, int64_t *z);

/* Utilisation (0..1) of lane l in nbins equal slices of [t0, t1). */
void lanestats_spark(const lanestats *ls, size_t l, int64_t t0, int64_t t1, int nbins, double *out);

#endif
