/* source: the source pane (s), the selected region's captured source.
 *
 * Not a numbered view: app.c draws it beside the current view (below it
 * on narrow screens) while ctx->source_pane is on, through the view_ops
 * that views_source_pane() returns.  It follows ctx->sel.region in every
 * view.  Its own keys (J K { }) scroll it whatever view is current; the
 * mouse wheel over it does too. */
#ifndef SV_SOURCE_H
#define SV_SOURCE_H

#include <stddef.h>

#include "ui/view.h"

extern const view_ops source_pane_view;

/* Display columns of line[0..n) with tabs expanded to stops of 8 (the
 * escapes grid_put_text shows for control characters included). */
int source_line_width(const grid *g, const char *line, size_t n);

#endif
