/* window_plan: what an out-of-core window reads, row by row.  The
 * out-of-core side (ooc/ooc_window.c) makes a plan from its seek index;
 * the loader (load_window.c) reads the planned segments and open calls of
 * each row.  The plan is data only, so the loader depends on no
 * out-of-core code. */
#ifndef SV_WINDOW_PLAN_H
#define SV_WINDOW_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* A call open at a checkpoint at time t: it starts before t and ends at or
 * after t, or (explicit call ids) one of its descendants starts at or after
 * t.  So every ancestor of a call starting at or after t is open or starts
 * at or after t itself, and so is every call overlapping a window that
 * begins at or after t. */
typedef struct ooc_open_call {
    uint32_t region_index;
    uint32_t lane; /* its inferred lane (rank_calls.lane) when the rank has some, else 0 */
    uint64_t pos;  /* its index in its row */
    int64_t start, end;
} ooc_open_call;

/* A range of positions of a row read whole: segments [a, b), a on a
 * segment boundary, whose call a starts at `anchor` (schema 3 decodes the
 * following deltas from it). */
typedef struct ooc_range {
    uint64_t a, b;
    int64_t anchor;
} ooc_range;

/* What a window reads of one row: the calls of the ranges starting in
 * [lo, hi), and the open calls at the given positions (start and end
 * known). */
typedef struct ooc_rowplan {
    int rank;         /* rank number */
    const char *name; /* region name (the skeleton's) */
    size_t rank_index, region_index;
    uint64_t n; /* the row's calls in the skeleton's file */
    int64_t lo, hi;
    ooc_range *ranges;
    size_t nranges;
    ooc_open_call *open; /* by position */
    size_t nopen;
} ooc_rowplan;

typedef struct ooc_plan {
    ooc_rowplan *rows; /* by (rank, name byte order) */
    size_t nrows;
    uint64_t calls; /* at most: range lengths plus open calls */
} ooc_plan;

/* The plan's order of rows: rank, then name in byte order (qsort and
 * bsearch). */
int ooc_rowplan_cmp(const void *a, const void *b);
/* The row plan of (rank, name), or NULL. */
const ooc_rowplan *ooc_plan_find(const ooc_plan *plan, int rank, const char *name);

#endif
