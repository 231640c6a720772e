/* view: the operations every view provides, tig-style.
 *
 * Each view is one file exporting one `const view_ops`; views.def lists them
 * all (their ids, names and keys).  Keys reach a view as commands: the key
 * map (commands.def, the user's config) turns a key into a command in the
 * view's scope; a view returns flags saying whether it handled the command
 * and what the app must do next.  A view's keys and help lines are rows of
 * commands.def, not fields here. */
#ifndef SV_VIEW_H
#define SV_VIEW_H

#include "grid.h"
#include "keys.h"
#include "ui.h"

enum view_flags { VF_HANDLED = 1, VF_REDRAW = 2, VF_QUIT = 4 };

typedef struct view_ops {
    const char *name; /* "timeline", "tree", ... shown in the title bar (= views.def) */
    void *(*create)(ui_ctx *ctx);
    void (*destroy)(void *state);
    /* Draws into area of ctx->grid; must cost time in proportion to what is
     * visible, not to the size of the profile. */
    void (*draw)(void *state, ui_ctx *ctx, rect area);
    int (*on_cmd)(void *state, ui_ctx *ctx, ui_cmd cmd);
    void (*on_resize)(void *state, ui_ctx *ctx, rect area);
    bool compare_only; /* shown only with --diff BASE NEW (ui_view_shown) */
} view_ops;

/* Every view, indexed by view_id (views.def). */
const view_ops *const *views_registry(size_t *n);

/* The source pane (s), drawn beside or below the current view while
 * ctx->source_pane is on; NULL until one exists.  Its keys are SCOPE_SOURCE. */
const view_ops *views_source_pane(void);

#endif
