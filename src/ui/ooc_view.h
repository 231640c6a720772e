/* ooc_view: the views the out-of-core viewer cannot offer.  The tree,
 * flame graph and callers draw from the sweep's call-path totals; when
 * those are missing (over their cap, a rank nested from call ids) their
 * tabs stay (keys and drill-downs reach them as ever) and they draw one
 * line saying why and what to do, never numbers they do not have.  Every
 * other view draws out of core from what the sweep kept. */
#ifndef SV_OOC_VIEW_H
#define SV_OOC_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "view.h"

/* "not available out of core (the file exceeds --memory 1 GiB): use
 * --json or a larger --memory". */
void ooc_view_text(const ui_ctx *ctx, char *buf, size_t len);

/* The registry out of core: base's views; without the loading child's
 * call-path totals (paths false: model/callpaths.h) the tree, the flame
 * graph and the callers view replaced by a view of the same name drawing
 * ooc_view_text and why there are none.  The calls view lists the
 * sweep's slowest calls (calls_ooc.h), or says ooc_view_text without
 * them.  reg has n entries (VIEW_COUNT). */
void ooc_view_registry(const view_ops *const *base, size_t n, bool paths, const view_ops **reg);

#endif
