/* tl_window: the timeline out of core.  The lanes and depth
 * rows are the whole profile's, from the overview map (ooc_map.h): an
 * index with those lanes and no call (lanes_build_empty) lays them out, so
 * rows, groups, labels and the cursor work as in memory.  While the view's
 * span holds more calls than a window may (ooc_window_cap), the rows are
 * drawn from the map (tl_ooc.c); once it holds fewer, the calls of the
 * span and a margin are read on a worker thread (ooc_job.h), the map drawn
 * meanwhile, and the window's index, completed with the map's lanes and
 * depths (lanes_add_empty), is drawn by the normal code: the in-memory
 * timeline, frame for frame.
 *
 * Call indices are the window's own: a selection is carried from one
 * window to the next by its lane, depth and span. */
#ifndef SV_TL_WINDOW_H
#define SV_TL_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_state.h"

typedef struct tl_window tl_window;

/* Sets s up for ctx->opt->ooc: the map's lanes, the map's time span.
 * False (s->error set) when they cannot be laid out. */
bool tl_window_init(tl_state *s, ui_ctx *ctx);
/* The overview's index (the map's lanes, no call), owned by s->win. */
lanes_index *tl_window_rows(tl_state *s);
void tl_window_free(tl_state *s);

/* Before a frame: takes a window that has arrived, asks for the one the
 * view needs, and points s->ix at what the frame draws.  A headless
 * screen waits for the window (deterministic screens) unless
 * SCOPEVIEW_TEST_WINDOW=hold (then until the key <Ready>). */
void tl_window_sync(tl_state *s, ui_ctx *ctx);

/* Lane l's busy time over the whole profile (its depth-0 row's, from the
 * map's coarsest level): < and > order the lanes by it out of core. */
int64_t tl_window_lane_busy(const tl_state *s, size_t l);

/* Whether the map has a call of lane l in the view's span (H on the
 * overview). */
bool tl_window_lane_in_view(const tl_state *s, size_t l);

/* The rows come from the map this frame (no window for the span yet). */
bool tl_window_map_rows(const tl_state *s);

/* The header's mode: "" in memory, else "out of core", "overview (out of
 * core)" or "overview, loading calls…", or their short forms when they do
 * not fit in room columns ("" for the window's). */
const char *tl_window_mode(const tl_state *s, const ui_ctx *ctx, int room);

/* ctx->sel.call out of core when the selected call is not in the window
 * drawn (the view moved elsewhere): the window it was read in is kept for
 * the details, its lane, depth and span for z and the next windows. */
#define TL_WINDOW_KEPT (INT64_MAX - 1)

/* The profile of the selected call's index (the window's, or the kept
 * one's, out of core; NULL when there is none; ctx->prof in memory) and
 * the call's index in it. */
const profile *tl_window_sel_profile(const tl_state *s, const ui_ctx *ctx);
int64_t tl_window_sel_call(const tl_state *s, const ui_ctx *ctx);

/* A kept selection's lane, depth and span (call == TL_WINDOW_KEPT). */
bool tl_window_kept(const tl_state *s, int64_t call, size_t *lane_out, uint32_t *depth, int64_t *st,
                    int64_t *e);

/* [ or ] (dir) on row (l, d) holding a kept selection: the view moves to
 * the selected call so its window is read, then returns to where it was
 * and the step is taken there (tl_window_sync).  False when the selection
 * is not kept in that row. */
bool tl_window_step_kept(tl_state *s, ui_ctx *ctx, size_t l, uint32_t d, int dir);
/* A key came: drops a step still waiting for its window, and lets a
 * window whose read failed be tried again. */
void tl_window_forget_step(tl_state *s);
/* Out of core, the window drawn does not reach the profile's end in the
 * direction dir: a row's last call in it may not be the row's last. */
bool tl_window_beyond(const tl_state *s, int dir);
/* [ or ] (dir) on row (l, d) found no neighbour in the calls read: the
 * map's buckets of that row holding a call start before t (dir < 0) or at
 * or after it (dir > 0), nearest first, are read a window at a time
 * (tl_window_sync), until the nearest such call is found; then the view
 * returns and the call is selected and revealed as in memory.  1 under
 * way, 0 the map says the row has no such call, -1 it cannot tell (a
 * depth the map does not keep, or no window drawn). */
int tl_window_seek_step(tl_state *s, size_t l, uint32_t d, int dir, int64_t t);

/* Whether the selected call's window holds every descendant of the call
 * spanning [st, e] (exclusive time and children exact); true in memory. */
bool tl_window_call_whole(const tl_state *s, const ui_ctx *ctx, int64_t st, int64_t e);

/* Selects call (the window's index) of rank: the skeleton's region of the
 * same name becomes the selected region. */
void tl_window_select(tl_state *s, ui_ctx *ctx, int rank, int64_t call);

/* Out of core, ctx->ooc_goto (the calls view's Enter, S): before the
 * window's sync, the view moves onto the call (its start's part a window
 * may hold) and the request is taken; after it, once that window is
 * drawn, the call found in it by lane, depth, span and region is selected
 * and revealed (a status line when it cannot be). */
void tl_window_goto(tl_state *s, ui_ctx *ctx);
void tl_window_goto_done(tl_state *s, ui_ctx *ctx);

#endif
