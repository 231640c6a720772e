/* tl_layout: where calls land on the timeline (pure arithmetic, no curses).
 *
 * The time axis is integer: column x covers [t0 + x*npc, t0 + (x+1)*npc),
 * npc >= 1 nanoseconds per column.  A call covers every column its interval
 * overlaps (a zero-length call covers the column of its start).  In a row, a
 * column that one call holds is part of that call's bar; a column where two
 * calls meet goes to the one covering more of it; any other column shared by
 * several calls is a density cell (drawn by its load, tl_load_level).  Laying out a row costs
 * O(log n) per bar or dense cell, never a visit of each call. */
#ifndef SV_TL_LAYOUT_H
#define SV_TL_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/lanes.h"

typedef struct tl_view {
    int64_t t0;  /* time at the left edge of column 0, ns (absolute) */
    int64_t npc; /* nanoseconds per column, >= 1 */
    int width;   /* columns */
} tl_view;

/* Start time of column x (saturating). */
int64_t tl_col_time(const tl_view *v, int64_t x);
/* Column holding time t: floor((t - t0) / npc), saturating. */
int64_t tl_time_col(const tl_view *v, int64_t t);

/* Largest npc allowed for data in [tmin, tmax]: the data plus a margin of
 * an eighth after its end fills the width (and no column time overflows). */
int64_t tl_npc_max(int64_t tmin, int64_t tmax, int width);
/* Keeps npc in [1, max] and the view inside [tmin, tmax + margin]: no time
 * before the data's start, no more than the margin after its end. */
void tl_clamp(tl_view *v, int64_t tmin, int64_t tmax);
/* Whole [tmin, tmax] on screen. */
void tl_fit(tl_view *v, int64_t tmin, int64_t tmax);
/* Halves (dir > 0) or doubles (dir < 0) npc keeping the start time of
 * column col where it is (unless the view meets an end of the data).
 * Returns false at a limit (nothing changed). */
bool tl_zoom(tl_view *v, int col, int dir, int64_t tmin, int64_t tmax);
/* Moves the view by cols columns (negative: left). */
void tl_pan(tl_view *v, int64_t cols, int64_t tmin, int64_t tmax);
/* The interval [s, e] centred and filling about three quarters of the width. */
void tl_show_span(tl_view *v, int64_t s, int64_t e, int64_t tmin, int64_t tmax);
/* Keeps npc, puts time t at column col. */
void tl_center_at(tl_view *v, int64_t t, int col, int64_t tmin, int64_t tmax);

typedef enum tl_seg_kind { TL_BAR, TL_DENSE } tl_seg_kind;

typedef struct tl_seg {
    int x0, x1; /* columns [x0, x1) */
    tl_seg_kind kind;
    uint32_t call;   /* TL_BAR: the call; TL_DENSE: the first call in the cell */
    size_t count;    /* TL_DENSE: calls in the cell (estimated beyond a few) */
    bool edge_left;  /* TL_BAR: the call starts here (draw its left edge) */
    bool edge_right; /* TL_BAR: the call ends here */
    /* TL_BAR, awaited share: the file says how long the call was suspended,
     * not when, so await_k of the call's await_n columns (counted from its
     * start column await_c0, which may be off screen) are hatched, spread
     * evenly over the bar (tl_await_hatched). */
    int64_t await_c0, await_n, await_k;
    bool await_placed; /* the waiting is located in its children (tl_col_awaited) */
} tl_seg;

/* Number of the ncells columns of a call of duration dur that show its
 * awaited share await (rounded to nearest, 0..ncells). */
int64_t tl_await_cells(int64_t ncells, int64_t dur, int64_t await);

/* Whether column x (0 .. ncells-1, from the call's start column) of a call
 * with k hatched columns is one of them: k columns spread evenly, the last
 * one at the end, exactly k in all. */
bool tl_await_hatched(int64_t x, int64_t ncells, int64_t k);

/* Whether the call's awaited time is explained by its children: those on
 * other lanes (run_in_executor work: the call was suspended all along)
 * plus the awaited time of those on its own task's lane add up to it
 * (within 1%).  Then the waiting is drawn where they are. */
bool tl_await_in_children(const rank_data *rk, uint32_t call);

/* Whether column x of bar segment sg shows the awaited hatch: over the
 * children that explain the waiting (their whole span for other lanes',
 * their own awaited share spread over theirs for the task's), else spread
 * evenly over the bar (tl_await_hatched).  O(log children). */
bool tl_col_awaited(const rank_data *rk, const tl_view *v, const tl_seg *sg, int x);

/* Load glyph level of a cell covered busy ns out of span: 0 (under a
 * third), 1 (under two thirds), 2 (the rest). */
int tl_load_level(int64_t busy, int64_t span);

/* Lays out one row over v->width columns; out has room for cap segments
 * (v->width is always enough).  Returns the number written, in column order. */
size_t tl_layout_row(const lane *ln, const lane_row *row, const tl_view *v, tl_seg *out,
                     size_t cap);

/* Density level of a cell holding count calls: 0 (2-3), 1 (4-9), 2 (10+). */
int tl_dense_level(size_t count);

#endif
