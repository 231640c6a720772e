/* flamegraph: a flame graph (model/flame.h) drawn into a grid, shared by
 * the flame view (8) and the compare view's differential screen.
 *
 * The widget owns what both repeat: the layout for the width and the rows
 * shown, the cursor frame and its moves (Left / Right on its row, Up to
 * its parent, Down to its first child), the zoom (Enter into a frame, Esc
 * back out), the search's matches and their share of the scope, the
 * colours (by region, by self-time heat, or by change in a differential
 * graph), the frames and the two details lines under them.  A frame of w
 * cells is its label (when it fits in w - 1 cells, else the name, else an
 * ellipsis) and a separator in its last cell, so frames stay apart in
 * monochrome, ASCII and the headless screen; a parent's own time beyond
 * its last child is left blank.  The owner builds the graph and draws the
 * header. */
#ifndef SV_FLAMEGRAPH_H
#define SV_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/flame.h"
#include "ui/view.h"

/* Enter zooms this many levels deep at most (Esc walks back). */
#define FG_ZOOM_MAX 64

typedef struct flamegraph {
    flame *f;  /* owned */
    bool heat; /* colours by self-time heat, not by region */
    int64_t max_self;
    uint32_t zoom[FG_ZOOM_MAX]; /* the frames zoomed into, the current last */
    size_t nzoom;
    uint32_t cur; /* cursor frame */
    /* the layout of the last frame */
    flame_box *boxes;
    size_t nboxes;
    int lw;
    uint32_t lrows, lroot, top;
    bool laid;
    int ax, ay; /* where the frames were drawn: the top-left cell of row top */
    /* the search the matches were worked out for */
    uint8_t *match; /* per name */
    bool match_on;
    char match_text[256];
    int64_t match_ns;
    /* f (filter): only the frames on a path to a match are drawn, where
     * they are without the filter; keep is per node, NULL when off */
    uint8_t *keep;
} flamegraph;

/* Takes f (NULL: none) in place of the graph shown, cursor at the top. */
void fg_set(flamegraph *g, flame *f);
/* Gives the graph shown back to the caller (NULL: none), none shown then. */
flame *fg_take(flamegraph *g);
void fg_free(flamegraph *g);
/* Orders the frames again (the cursor stays on its frame). */
void fg_sort(flamegraph *g, flame_order order);

static inline uint32_t fg_root(const flamegraph *g)
{
    return g->nzoom ? g->zoom[g->nzoom - 1] : 0;
}

/* The matches of the current search, when it changed (and, with the
 * filter on, the frames it keeps); false without a search. */
bool fg_sync_search(flamegraph *g, const ui_ctx *ctx);

/* The frames in area less its last two rows, which get the cursor frame's
 * path and figures. */
void fg_draw(flamegraph *g, ui_ctx *ctx, rect area);

/* The moves, a click on a frame, Enter, Esc, n / N and c; 0 for the
 * others (and for Esc at the top, which is the app's). */
int fg_cmd(flamegraph *g, ui_ctx *ctx, ui_cmd cmd);

#endif
