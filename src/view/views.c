/* views: the one explicit table of views.
 *
 * Adding a view means one `extern` line and one entry here; nothing else
 * in the framework names a view.  Numbers: 1 timeline, 2 tree, 3 regions,
 * 4 calls, 5 info (help is an overlay, not a view). */
#include "view.h"

/* --- the table --- */

extern const view_ops timeline_view;
extern const view_ops tree_view;
extern const view_ops regions_view;
extern const view_ops calls_view;
extern const view_ops info_view;
extern const view_ops source_pane_view;

static const view_ops *const registry[] = {
    &timeline_view,
    &tree_view,
    &regions_view,
    &calls_view,
    &info_view,
};

const view_ops *const *views_registry(size_t *n)
{
    *n = sizeof registry / sizeof registry[0];
    return registry;
}

const view_ops *views_source_pane(void)
{
    return &source_pane_view;
}
