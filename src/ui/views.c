/* views: the registry, generated from views.def.
 *
 * Adding a view means one row in views.def (and the view's own file);
 * nothing else in the framework names a view: the others open it by its
 * id (ui_open_view(ctx, VIEW_CALLS)). */
#include "view.h"

#define VIEW(id, name, ops, key) extern const view_ops ops;
#include "views.def"
#undef VIEW
extern const view_ops source_pane_view;

static const view_ops *const registry[VIEW_COUNT] = {
#define VIEW(id, name, ops, key) [VIEW_##id] = &ops,
#include "views.def"
#undef VIEW
};

const view_ops *const *views_registry(size_t *n)
{
    *n = VIEW_COUNT;
    return registry;
}

const view_ops *views_source_pane(void)
{
    return &source_pane_view;
}
