/* tl_partial: the timeline of a partial overview, while the out-of-core
 * pass goes (ooc/ooc_part.h): the ranks swept so far drawn from the
 * part's map, lane by lane and depth row by depth row, as the overview
 * draws them (tl_ooc.h's cells: a load glyph, or a bar cell in the colour
 * of the one call that covers the column), the rank being swept the same
 * up to where its part is complete and '?' after, and every rank not
 * drawn yet one row whose time axis is marked '?' and says why ("read,
 * drawn next", "being read" or "not read yet"),
 * never left blank: a blank column says that no call meets it, which
 * nothing read says yet of those ranks.  The final overview replaces it with the
 * ordinary timeline.  No state, no allocation. */
#ifndef SV_TL_PARTIAL_H
#define SV_TL_PARTIAL_H

#include <stdint.h>

#include "ooc/ooc_part.h"
#include "ui/grid.h"
#include "model/profile.h"

/* The mark of a column not drawn yet. */
#define TL_PARTIAL_UNREAD '?'

/* Rows of skel's ranks from line y of area (labels in its first `label`
 * columns, the time axis after them, over t0 + npc ns a column), the
 * sweep's place `sweeping`: the rank being read (ranks before it are
 * read), skel's rank count once every rank is, SIZE_MAX when not known.  Returns
 * the first line below the rows drawn. */
int tl_partial_draw(grid *g, rect area, int y, int label, const profile *skel, const ooc_part *part,
                    int64_t t0, int64_t npc, size_t sweeping);

/* The legend of a partial overview: the share of the calls drawn (the
 * part's, behind the sweep's own progress line), the ranks whole (and how
 * far into the next one, in ns after zero), the marks. */
const char *tl_partial_legend(char *buf, size_t len, const ooc_part *part, const profile *skel,
                              int64_t zero, bool ascii);

#endif
