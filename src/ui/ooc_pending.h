/* ooc_pending: the views out of core while the loading child makes its
 * pass over the calls (ooc/ooc_open_job.h), drawn from the skeleton the
 * file's index gave (names, ranks, stored statistics, counts).
 *
 * The regions and info views are the ordinary ones (the statistics are
 * pending: the regions view shows the file's stored summary_statistics
 * marked `*`, or says they are coming).  The timeline draws its skeleton:
 * the span the stored statistics give on a ruler (or that it is not known
 * yet), a row per rank (mapped, or pending, once the sweep has begun) and,
 * where the overview will be, the progress line ("mapping the calls:
 * 41% of 1.2e8 read, rank 3 (4 of 8)": the calls the sweep has read, ahead
 * of the part on screen, whose legend counts the calls drawn); then, as the pass sends
 * them, the overview's parts (ooc/ooc_part.h): the ranks swept so far
 * drawn, the rest marked not read yet.  Every other view says it follows
 * the pass, with the same line: no figure before it is final. */
#ifndef SV_OOC_PENDING_H
#define SV_OOC_PENDING_H

#include <stddef.h>

#include "view.h"

/* The progress line of ctx->ooc_open (ASCII with ctx->ascii). */
void ooc_pending_text(const ui_ctx *ctx, char *buf, size_t len);
/* One line of a pending screen at row y of area, inset a column each
 * side (nothing outside area); the row after it. */
int ooc_pending_line(ui_ctx *ctx, rect area, int y, const char *text, int role);

/* The timeline while pending: the skeleton, then the overview's parts as
 * they come (view/timeline/tl_pending.c). */
extern const view_ops timeline_pending_view;

/* reg (n entries, VIEW_COUNT) becomes base with every view but the
 * regions and info views replaced by a pending one of the same name (the
 * timeline by timeline_pending_view); ops: n view_ops of the caller's to
 * hold them. */
void ooc_pending_registry(const view_ops *const *base, size_t n, view_ops *ops,
                          const view_ops **reg);

#endif
