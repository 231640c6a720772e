/* source_gutter: the line-profile gutter of the source pane.
 *
 * When the selected region has a line-profiler record on its rank
 * (lineprof_matches), each source line the record profiled shows its time
 * (adaptive units) and hits to the left of the line number, with a bar
 * scaled to the record's slowest line; the three hottest lines by time are
 * marked (the selection marker glyph) and highlighted.  A narrow pane keeps
 * the time and the mark only. */
#ifndef SV_SOURCE_GUTTER_H
#define SV_SOURCE_GUTTER_H

#include <stddef.h>
#include <stdint.h>

#include "ui/grid.h"
#include "model/profile.h"

/* How many lines count as hottest. */
#define GUTTER_HOT 3

typedef struct src_gutter {
    const region *r;        /* the region followed */
    const line_profile *lp; /* its first record, NULL: no gutter */
    size_t nrec;            /* records of the region on that rank */
    size_t *by_line;        /* lp->n row indices sorted by line number */
    unsigned char *hot;     /* lp->n: 1..GUTTER_HOT for the hottest rows */
    double max_ns, total_ns;
    int time_w, hits_w, bar_w; /* 0 = column not shown */
    int width;                 /* columns of the gutter, its space included */
} src_gutter;

/* Follows region r (NULL: none); false when out of memory (no gutter). */
bool gutter_follow(src_gutter *gt, const region *r);
void gutter_free(src_gutter *gt);

/* Should the pane show the record's own source rather than the region's?
 * Yes when the region captured none, or when none of the profiled lines
 * falls in the region's text (the region calls the profiled function). */
bool gutter_own_source(const src_gutter *gt, const region *r);

/* Chooses the columns for a pane w wide; returns the gutter's width. */
int gutter_layout(src_gutter *gt, const grid *g, int w);

/* The caption row over the gutter: column names, the function, its total. */
void gutter_caption(const src_gutter *gt, grid *g, int x, int y, int w);

/* The gutter of source line `lineno` at (x, y). */
void gutter_draw(const src_gutter *gt, grid *g, int x, int y, int64_t lineno);

#endif
