/* ooc_map: the overview of the out-of-core viewer, a
 * multi-resolution summary of every (lane, depth) row of a profile, built
 * in one streaming pass, whose size does not grow with the calls.
 *
 * The time axis is cut into buckets of 2^shift ns starting at `origin` (a
 * multiple of the bucket width); level 0 has nb buckets (a power of two),
 * level L has nb >> L buckets of width 2^(shift + L).  Each bucket of each
 * row holds:
 *   busy    ns of the bucket covered by the row's calls (sum of each call's
 *           intersection with the bucket; a row of one lane and depth has
 *           no overlapping calls, except in explicit-id files, where busy
 *           may exceed the bucket width),
 *   starts  calls starting in the bucket,
 *   overlap calls whose visible interval (lanes_visible_end) meets the
 *           bucket,
 *   longest the longest such call's duration, and its region (index in
 *           its rank, byte order of names), for the colour and the label.
 * Coarser levels are exact: busy and starts add up, overlap(L + R) =
 * overlap(L) + starts(R), longest is the maximum.  So a column made of
 * whole buckets gets exact numbers; any other column is approximated by
 * the buckets that start in it (ooc_map_columns says which).
 *
 * Depth is the lane depth of lanes.h (ancestors in the same lane); rows
 * go down to OOC_MAP_DEPTHS - 1, deeper calls are counted only in the
 * lane's `ndepth` (the real depth of the lane, for the row layout).
 * Model code: no curses, no libhdf5. */
#ifndef SV_OOC_MAP_H
#define SV_OOC_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/lanes.h"
#include "model/profile.h"

#define OOC_MAP_DEPTHS 16
/* Level-0 cells of all rows together at most (32 bytes each: 64 MiB). */
#define OOC_MAP_CELLS_MAX ((size_t)1 << 21)
/* The least cap a budget gives (2 MiB of cells, all levels; 512 buckets
 * a row for 4 lanes): an overview still worth drawing. */
#define OOC_MAP_CELLS_MIN ((size_t)1 << 15)
/* Level-0 buckets per row at most. */
#define OOC_MAP_BUCKETS_MAX ((size_t)1 << 16)

typedef struct ooc_cell {
    uint64_t busy;
    uint32_t starts;
    uint32_t overlap;
    int64_t longest;      /* ns; -1: no call */
    uint32_t longest_reg; /* region index in the rank */
} ooc_cell;

/* A lane of the map: the identity lanes.h gives it. */
typedef struct ooc_lane {
    size_t rank_index;
    lane_kind kind;
    int64_t row;     /* thread / task table row, inferred lane number, -1 for LANE_RANK */
    uint32_t ndepth; /* the lane's real number of depth rows (may exceed OOC_MAP_DEPTHS) */
    uint64_t ncalls;
    ooc_cell *cells; /* min(ndepth, OOC_MAP_DEPTHS) rows, each all levels: nb + nb/2 + ... + 1 */
    /* The lane's number in the order lanes were added (0, 1, ...): it
     * stays while later lanes move the indices (ooc_map_lane), so a sink
     * that keeps a call's lane keeps this and asks ooc_map_uid_index at
     * the end.  Not on the wire: a map read from it numbers its lanes in order. */
    uint32_t uid;
} ooc_lane;

typedef struct ooc_map {
    int64_t origin;
    unsigned shift; /* level-0 bucket width 2^shift ns */
    size_t nb;      /* level-0 buckets (power of two) */
    unsigned nlevels;
    int64_t t_min, t_max; /* first start, last visible end over the counted calls */
    uint64_t ncalls;
    ooc_lane *lanes; /* in lanes.h order: by rank, then its lanes by kind and row */
    size_t nlanes, lanes_cap;
    bool finished; /* coarser levels built */
    /* Added by ooc_map.c (not in the first contract):
     * deep  one row (all levels, nb + nb/2 + ... + 1 cells) summing the calls
     *       at depth >= OOC_MAP_DEPTHS of every lane (NULL while there are
     *       none): ooc_map_calls_in counts them, no timeline row shows them.
     * nomem a lane's depth row could not be allocated in ooc_map_add (rows
     *       are allocated on first use): some calls are missing from the
     *       cells; ooc_map_calls_in then answers UINT64_MAX. */
    ooc_cell *deep;
    bool nomem;
} ooc_map;

/* Sizes the grid for calls within [t_min, t_max] and about nlanes_hint
 * rows of OOC_MAP_DEPTHS (fewer level-0 buckets when there are many).
 * The grid covers t_max itself (a zero-length call starting at t_max, or
 * a call ending there, fits): nb is the smallest power of two with
 * origin + nb * 2^shift > t_max, shift the smallest for which nb stays
 * within min(OOC_MAP_BUCKETS_MAX, OOC_MAP_CELLS_MAX / (hint * DEPTHS))
 * (hint 0 counts as 1; at least 2 buckets).  The same (t_min, t_max,
 * hint) always gives the same grid.  A lane's depth rows are allocated
 * when a call first reaches them, so lanes beyond the hint stay correct
 * (the memory then exceeds OOC_MAP_CELLS_MAX cells proportionally).
 * t_min > t_max (no calls) is taken as t_max = t_min.  m->t_min/t_max and
 * ncalls start empty and follow the calls added.  False on NOMEM (never
 * here: cells are allocated on use). */
bool ooc_map_init(ooc_map *m, int64_t t_min, int64_t t_max, size_t nlanes_hint);
/* ooc_map_init with cells_max (from ooc_map_cells_cap) in place of
 * OOC_MAP_CELLS_MAX (0 counts as OOC_MAP_CELLS_MAX). */
bool ooc_map_init_cap(ooc_map *m, int64_t t_min, int64_t t_max, size_t nlanes_hint,
                      size_t cells_max);
/* The level-0 cells a map may take under a memory budget of `budget`
 * bytes (--memory): an eighth of the budget, counting every level (a row
 * of nb level-0 buckets holds 2 * nb - 1 cells of 32 bytes: 64 bytes per
 * level-0 cell), within [OOC_MAP_CELLS_MIN, OOC_MAP_CELLS_MAX]; budget 0:
 * OOC_MAP_CELLS_MAX.  The streamed map (ooc_open) and the reference
 * (ooc_map_from_lanes_cap) take the same cap, so they agree cell for cell.
 * Lanes beyond the hint still exceed it proportionally (ooc_map_init). */
size_t ooc_map_cells_cap(uint64_t budget);
/* The grid of ooc_map_init_cap(t_min, t_max, nlanes_hint, cells_max) for
 * a map begun on a grid for fewer lanes (the same t_min, t_max and
 * cells_max): a sweep that learns its inferred lanes as it goes.  The new
 * buckets are the old ones merged (exact, as the coarser levels are), so
 * the map equals one built on the new grid from the start.  Before
 * ooc_map_finish; false on NOMEM (m unchanged) or when the new grid is
 * finer. */
bool ooc_map_regrid(ooc_map *m, int64_t t_min, int64_t t_max, size_t nlanes_hint, size_t cells_max);
void ooc_map_free(ooc_map *m);
/* The lane (added on first use, kept in lanes.h order); SIZE_MAX on NOMEM.
 * Lanes are sorted by (rank_index, kind, row): adding a lane that sorts
 * before others moves their indices up by one, so ask again (O(log
 * nlanes)) after adding a lane rather than keeping old indices. */
size_t ooc_map_lane(ooc_map *m, size_t rank_index, lane_kind kind, int64_t row);
/* index[uid] = the lane's index now, for every lane (ooc_lane.uid),
 * malloc'd (the caller frees it); NULL on NOMEM. */
size_t *ooc_map_uid_index(const ooc_map *m);
/* The lane of (rank_index, kind, row), or SIZE_MAX when the map has none
 * (read-only: for the viewer). */
size_t ooc_map_find_lane(const ooc_map *m, size_t rank_index, lane_kind kind, int64_t row);
/* One call at lane depth `depth` of lane l (in any order of calls).
 * end <= start is a zero-length call: visible over [start, start + 1),
 * busy 0, duration 0.  Parts outside the grid are clipped (a call that
 * starts before origin counts in no bucket's starts).  Must come before
 * ooc_map_finish. */
void ooc_map_add(ooc_map *m, size_t l, uint32_t depth, int64_t start, int64_t end, uint32_t reg);
/* The call counted only (the map's and the lane's call counts and the time span), for a
 * caller that reads the lanes but no cell (an export): ooc_map_add without the cells. */
void ooc_map_count(ooc_map *m, size_t l, int64_t start, int64_t end);
/* Builds the coarser levels; after it the map is read-only. */
void ooc_map_finish(ooc_map *m);

/* Cells of one row, all levels: 2 * nb - 1.  Row d of lane l starts at
 * lanes[l].cells + d * ooc_map_row_cells(m); level L of a row starts at
 * ooc_map_level_offset(m, L) and has nb >> L cells. */
size_t ooc_map_row_cells(const ooc_map *m);
size_t ooc_map_level_offset(const ooc_map *m, unsigned level);

/* The map of an in-memory index: the reference the streamed map must equal
 * cell for cell (tests), and the in-process stand-in of the viewer.  Its
 * grid: ooc_map_init(m, ix->t_min, ix->t_max, ix->nlanes), where t_max is
 * the largest end (not visible end) of the indexed calls; (0, 0) when the
 * index has no call.  Lanes in the index's order, the calls of each depth
 * row in row order, region = index in the rank (byte order of names).
 * Finished; false on NOMEM (m then freed). */
bool ooc_map_from_lanes(const lanes_index *ix, ooc_map *m);
/* ooc_map_from_lanes on the grid of ooc_map_init_cap(..., cells_max): the
 * reference of a map opened under a budget (cells_max =
 * ooc_map_cells_cap(budget)). */
bool ooc_map_from_lanes_cap(const lanes_index *ix, size_t cells_max, ooc_map *m);

/* One timeline column's summary. */
typedef struct ooc_col {
    uint64_t busy;
    uint64_t calls; /* overlapping the column (exact when the map says so) */
    int64_t longest;
    uint32_t longest_reg;
} ooc_col;

/* Row (lane l, depth d) over the columns of a view: t0, npc ns per column,
 * width columns.  Uses the coarsest level whose bucket is at most npc and
 * for which every column is whole buckets (t0 - origin and npc multiples
 * of its width), the column's numbers then exact: busy the sum, calls the
 * first bucket's overlap plus the others' starts, longest the maximum.
 * When no level aligns, the coarsest level at most npc is used and each
 * column is approximated by the buckets starting in it, their busy scaled
 * to the column (the same load: busy * npc / their span); when npc is
 * narrower than a level-0 bucket, each column shows the level-0 bucket
 * holding its start, busy scaled to the column (busy * npc / width: the
 * bucket's load; a bucket one call covers whole gives busy = npc).  Columns outside
 * the grid are empty (longest -1).  Returns true when the numbers are
 * exact, false when approximated (also for a depth >= OOC_MAP_DEPTHS
 * whose calls the map does not keep: empty columns that are not exact).
 * Needs ooc_map_finish. */
bool ooc_map_columns(const ooc_map *m, size_t l, uint32_t d, int64_t t0, int64_t npc, int width,
                     ooc_col *out);
/* Calls overlapping [t0, t1) in all lanes, exact to within one level-0
 * bucket at each end (an upper bound): whether a window fits a budget.
 * Counts every depth (deeper than OOC_MAP_DEPTHS by the `deep` row);
 * UINT64_MAX when m->nomem.  Cost O(rows * log nb) after ooc_map_finish. */
/* Whether the columns of a view (t0, npc) are whole buckets of some level,
 * so that ooc_map_columns is exact for every row above OOC_MAP_DEPTHS
 * (the same rule it applies): for a legend. */
bool ooc_map_view_exact(const ooc_map *m, int64_t t0, int64_t npc);
uint64_t ooc_map_calls_in(const ooc_map *m, int64_t t0, int64_t t1);

#endif
