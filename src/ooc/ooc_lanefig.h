/* ooc_lanefig: the lanes view's per-lane figures from the loading child's
 * sweep (ooc_sink.h), so that the lanes view opens out of core.
 *
 * For every lane of the overview map (the lanes the out-of-core timeline
 * shows, the calls a filter keeps): its calls, first start and last end
 * (every depth), busy = the union of its lane-depth-0 calls (the calls
 * come in start order within a rank, so the union grows at its right end:
 * a running end per lane, and one per rank for the rank row's idle), the
 * extent of that union (a task's idle is its lifetime less the busy time
 * in it: exact when the union lies inside it), the union's time in each of
 * LANEFIG_BINS equal slices of the span (the load sparkline), its longest
 * depth-0 call (Enter), and the region with the most exclusive time in the
 * lane and in the rank (a shadow stack per sweep stack, as ooc_paths.h
 * keeps: exclusive = duration less the union of its children, every call
 * counting as a child, a kept call adding to its lane).
 *
 * Its awaited time: the await times of its depth-0 calls summed, as
 * lanestats.h sums them (the sweep reads the await column, ooc_scan.aux;
 * the viewer caps it at busy as lanestats does).  A rank
 * done in memory instead (call ids, a row out of order, within the
 * budget) comes whole as its lanes index (ooc_sink.h's lanes hook) and
 * its figures are worked out from its rows; lanes of a rank flattened
 * (over the budget: `lose`) get no figures (has false) and the product
 * says why.  The
 * lanes are identified as the map's (rank index, kind, row): their
 * indices move while the sweep adds lanes, so each figure keeps the
 * identity of its lane and is put in the map's order when taken.  Model
 * code: no curses, no libhdf5. */
#ifndef SV_OOC_LANEFIG_H
#define SV_OOC_LANEFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/lanes.h"
#include "ooc_sink.h"

/* Slices of the span: a load column of any width dividing it (12, 16,
 * 20, 24, 30, 40, 48, 60, 80, 120, 240 columns) gets the in-memory
 * slices exactly. */
#define LANEFIG_BINS 240

typedef struct lanefig {
    size_t rank_index; /* the map's identity of the lane */
    lane_kind kind;
    int64_t row;
    bool has;        /* figures swept (false: its rank was lost) */
    uint64_t calls;  /* kept calls, every depth */
    int64_t first;   /* first start, last end (calls > 0) */
    int64_t last;    /* ... */
    int64_t busy;    /* union of the depth-0 calls */
    int64_t awaited; /* their await times (> 0) summed */
    int64_t u_first; /* the union's first start, last end (busy > 0) */
    int64_t u_last;
    uint32_t busiest; /* region index in the rank, UINT32_MAX none */
    int64_t busiest_excl;
    /* the longest depth-0 call (the first of equals), s > e: none */
    int64_t long_s, long_e;
    uint32_t long_reg;
} lanefig;

/* A rank's row: its lanes together. */
typedef struct lanefig_rank {
    size_t rank_index;
    int64_t busy_any; /* union of every lane's depth-0 calls */
    uint32_t busiest; /* most exclusive time summed over its lanes, UINT32_MAX none */
    int64_t busiest_excl;
} lanefig_rank;

typedef struct lane_figs {
    int64_t t0, t1; /* the kept calls' first start and last end (0, 0: none) */
    size_t n;       /* = the map's lanes */
    lanefig *v;
    size_t nranks; /* the ranks swept (with a lane) */
    lanefig_rank *ranks;
    /* Lanes without figures: why (a rank the sweep did not do). */
    char lost_why[256];
    /* The busiest region of a lane or rank: false over the budget's cap. */
    bool busiest_ok;
    char busiest_why[160];
    /* n * LANEFIG_BINS: the union's ns in slice b of [b0, b1); NULL when
     * over the budget's cap (spark_why). */
    int64_t *bins;
    int64_t b0, b1;
    char spark_why[160];
} lane_figs;

typedef struct ooc_lanefig ooc_lanefig;
struct ooc_map;

extern const ooc_sink_ops ooc_lanefig_sink;

/* An accumulator over the lanes of map (read at each call for the lane's
 * identity), slicing [t0, t1] (the scan's grid bounds: the kept calls'
 * span), within budget bytes (0: the most).  NULL on NOMEM. */
ooc_lanefig *ooc_lanefig_new(const struct ooc_map *map, int64_t t0, int64_t t1, uint64_t budget);
void ooc_lanefig_free(ooc_lanefig *lf);
/* The sweep's call (ooc_sink.h); false on NOMEM. */
bool ooc_lanefig_call(ooc_lanefig *lf, const ooc_call *c);
void ooc_lanefig_lose(ooc_lanefig *lf, const char *why);
/* A rank done in memory (ooc_sink.h's ooc_sink_lanes_fn, self an
 * ooc_lanefig): its figures from its lanes index, as lanestats.c works
 * them out; false on NOMEM. */
bool ooc_lanefig_lanes(void *lf, size_t rank_index, const lanes_index *ix, size_t ix_rank,
                       const uint32_t *regmap);
/* The figures in the order of map (finished), the accumulator spent; NULL
 * on NOMEM or when a swept lane is not in the map. */
lane_figs *ooc_lanefig_take(ooc_lanefig *lf, const struct ooc_map *map);
void lane_figs_free(lane_figs *f);

/* Lane l's utilisation (0..1) in equal slices of [b0, b1), as many as
 * the largest divisor of LANEFIG_BINS at most ncols (so each is whole
 * bins, cut where the in-memory view cuts ncols of them): how many, 0
 * without slices. */
int lane_figs_slices(const lane_figs *f, size_t l, int ncols, double *out);

/* On the loading child's pipe after the call paths: put writes f (NULL:
 * none), get reads it (NULL when malformed); valid checks it against the
 * map received and the skeleton (the same lanes in the same order,
 * regions and ranks in range, figures consistent). */
struct wire_w;
struct wire_r;
struct profile;
void lane_figs_put(struct wire_w *w, const lane_figs *f);
lane_figs *lane_figs_get(struct wire_r *r);
bool lane_figs_valid(const lane_figs *f, const struct ooc_map *map, const struct profile *skel);

#endif
