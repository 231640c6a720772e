/* tl_overview: the timeline's provisional first frame, drawn while the
 * lanes (which need the per-call nesting) are being computed.
 *
 * One row per rank, or per recorded thread when the rank's regions carry
 * thread ids (inferred lanes need the nesting: such a rank is one row).
 * Each row counts the calls STARTING in each of a fixed number of time
 * bins over the profile's span: true without the nesting, unlike busy
 * time (the union of a row's top-level calls).  Built once, in one pass
 * over the columns; a frame resamples the bins to its columns. */
#ifndef SV_TL_OVERVIEW_H
#define SV_TL_OVERVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/filter.h"
#include "model/lanes.h"
#include "model/profile.h"
#include "tl_layout.h"

/* Bins per row at most; with more than TL_OV_FULL_RANKS ranks, a share
 * of them (at least 64): 4096 * 4 bytes a row stays near 4 MiB in all. */
#define TL_OV_BINS 4096
#define TL_OV_FULL_RANKS 256
/* Rows per rank at most before the rest of its threads' calls join the
 * rank's "other" row (calls without a thread id). */
#define TL_OV_THREADS 64

typedef struct tl_ov_row {
    size_t rank_index;
    int64_t thread; /* thread table row; -1: calls without a thread id */
    uint32_t *bins; /* nbins: calls starting in each bin */
    uint64_t ncalls;
} tl_ov_row;

typedef struct tl_overview {
    tl_ov_row *rows; /* by rank, then the thread-less row, then threads by id */
    size_t nrows, cap;
    size_t nbins;         /* bins per row */
    unsigned shift;       /* bin b covers [t_min + b << shift, t_min + (b + 1) << shift) */
    int64_t t_min, t_max; /* first start, last end of the counted calls */
    uint64_t ncalls;      /* counted calls */
    bool out_of_span;     /* a start outside [t_min, t_max] (building) */
} tl_overview;

/* Counts every call with event data passing f (NULL: all) into at most
 * max_bins bins (fewer with many ranks, see above).  False when out of memory (nothing kept). */
bool tl_overview_build(const profile *p, const region_filter *f, size_t max_bins, tl_overview *out);
void tl_overview_free(tl_overview *ov);

/* Calls of row r starting in each of v's width columns, into cols[width]:
 * a bin counts in the column holding its start, so a count is off by at
 * most one bin's time at the column's edges.  Returns the largest. */
uint64_t tl_overview_columns(const tl_overview *ov, size_t r, const tl_view *v, uint64_t *cols);

/* The density level (0..2) of a column count c given the thresholds of
 * levels 1 and 2 (tl_overview_thresholds), -1 for none. */
int tl_overview_level(uint64_t c, uint64_t t1, uint64_t t2);
/* Decade thresholds for counts up to max: t1 < t2, level 0 from 1. */
void tl_overview_thresholds(uint64_t max, uint64_t *t1, uint64_t *t2);

/* The lane of ix showing overview row r's calls: the same rank's thread
 * lane, or its lane of calls without a thread id (a rank's only row: its
 * first lane, the inferred ones too).  SIZE_MAX when there is none. */
size_t tl_overview_lane(const tl_overview *ov, size_t r, const lanes_index *ix);

struct tl_state;
struct ui_ctx;
/* Draws the rows from s->ov_top, the cursor row (s->ov_cur) marked as the
 * lanes' is, the legend and the computing line into the rows area. */
void tl_overview_draw(struct tl_state *s, struct ui_ctx *ctx);

/* Up / down on the overview's rows: the cursor row moves by delta rows, or
 * (page) by a page of them, the rows scrolling with it. */
void tl_overview_move(struct tl_state *s, long delta, bool page);

/* Once the lanes are there (s->ix and its rows built, s->ov still held):
 * the cursor goes to the lane of the overview's cursor row, if it has one. */
void tl_overview_hand_over(struct tl_state *s);

#endif
