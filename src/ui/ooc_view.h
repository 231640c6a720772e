/* ooc_view: the views the out-of-core viewer does not offer.
 * The series needs every call, which an out-of-core file never holds
 * (the tree, flame graph and callers too when the call-path totals are
 * missing; the calls list and the lanes view draw from the sweep's
 * slowest calls and per-lane figures); their tabs stay (keys and
 * drill-downs reach them as ever) and they draw one line saying why and
 * what to do, never numbers they do not have. */
#ifndef SV_OOC_VIEW_H
#define SV_OOC_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "view.h"

/* "not available out of core (the file exceeds --memory 1 GiB): use
 * --json or a larger --memory". */
void ooc_view_text(const ui_ctx *ctx, char *buf, size_t len);

/* The registry out of core: base's views, those needing every call
 * replaced by a view of the same name drawing ooc_view_text.  With the
 * loading child's call-path totals (paths: model/callpaths.h) the tree,
 * the flame graph and the callers view are base's: they build from them.
 * The calls view is always base's: out of core it lists the sweep's
 * slowest calls (calls_ooc.h), or says ooc_view_text without them.
 * reg has n entries (VIEW_COUNT). */
void ooc_view_registry(const view_ops *const *base, size_t n, bool paths, const view_ops **reg);

#endif
