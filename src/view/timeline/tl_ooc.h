/* tl_ooc: timeline rows drawn from the out-of-core overview map (ooc_map.h)
 * while no window of calls is loaded.
 *
 * Each column of a (lane, depth) row shows what the map says of it
 * (ooc_map_columns over the view's t0, npc): nothing when no call meets
 * it; a bar cell in the colour of the call's region when exactly one call
 * covers the whole column (calls == 1 and busy == npc); else the load
 * glyph of the in-memory timeline's density cells (tl_load_level of busy
 * over npc, ROLE_DENSE).  Load cells are not coloured by region: in
 * monochrome a region role is reverse video, which would invert the load
 * glyph.  The map has no calls, so nothing here is selectable; the legend
 * (tl_ooc_legend) says so and whether the columns are exact. */
#ifndef SV_TL_OOC_H
#define SV_TL_OOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ooc/ooc_map.h"

typedef enum tl_ooc_kind {
    TL_OOC_EMPTY, /* no call meets the column */
    TL_OOC_LOAD,  /* a load glyph, level 0..2 */
    TL_OOC_FULL   /* one call covers the whole column: a bar cell */
} tl_ooc_kind;

typedef struct tl_ooc_cell {
    tl_ooc_kind kind;
    int level;    /* TL_OOC_LOAD: tl_load_level(busy, npc) */
    bool has_reg; /* not empty: reg is the column's longest call's region */
    uint32_t reg; /* region index in the lane's rank (byte order of names) */
} tl_ooc_cell;

/* What one column (c, from ooc_map_columns with npc ns a column) shows.
 * Pure: no curses, no state. */
tl_ooc_cell tl_ooc_cell_of(const ooc_col *c, int64_t npc);

/* The legend line (UTF-8 or ASCII glyphs as the theme's): that the rows
 * are the out-of-core overview and "zoom in for calls" first (a narrow
 * screen cuts the end), exact or approximate columns (ooc_map_view_exact),
 * then the load glyphs and the bar cell. */
const char *tl_ooc_legend(char *buf, size_t len, bool exact, bool ascii);

/* The same in short, for a header: "overview (out of core, exact
 * columns): zoom in for calls" or "... approx. columns ...". */
const char *tl_ooc_header(char *buf, size_t len, bool exact);

struct tl_state;
struct ui_ctx;

/* Whether the current view's columns are exact (s->ooc_map set). */
bool tl_ooc_view_exact(const struct tl_state *s);

/* Draws the time-axis cells (s->geo.tx .. tx + tw) of row (lane, depth) of
 * s->ix (lane index li) at screen line y from s->ooc_map, over the view s->v.  The lane is
 * found in the map by (rank index, kind, row) (ooc_map_find_lane), so
 * s->ix may be any index of the same profile (lanes_build_empty's).
 * Empty columns are left as they are (the caller's cursor column shows
 * through).  A depth the map does not keep (>= OOC_MAP_DEPTHS) shows a dim
 * note instead of empty columns.  Draws nothing without a map.  Cost:
 * O(tw + buckets in view), no allocation. */
void tl_ooc_draw_row(struct tl_state *s, struct ui_ctx *ctx, size_t li, uint32_t depth, int y);

#endif
