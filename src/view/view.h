/* view: the operations every view provides, tig-style.
 *
 * Each view is one file exporting one `const view_ops`; views.c lists them
 * all in one explicit table.  Keys reach a view as commands (keys.h); a
 * view returns flags saying whether it handled the command and what the
 * app must do next. */
#ifndef SV_VIEW_H
#define SV_VIEW_H

#include "grid.h"
#include "keys.h"
#include "ui.h"

enum view_flags { VF_HANDLED = 1, VF_REDRAW = 2, VF_QUIT = 4 };

typedef struct view_ops {
    const char *name;  /* "timeline", "tree", ... shown in the title bar */
    int number;        /* the digit key that opens it (1..9), 0 for none */
    void *(*create)(ui_ctx *ctx);
    void (*destroy)(void *state);
    /* Draws into area of ctx->grid; must cost time in proportion to what is
     * visible, not to the size of the profile. */
    void (*draw)(void *state, ui_ctx *ctx, rect area);
    int (*on_cmd)(void *state, ui_ctx *ctx, ui_cmd cmd);
    void (*on_resize)(void *state, ui_ctx *ctx, rect area);
    /* Keys that mean something else in this view (NULL: global table only). */
    const key_binding *keys;
    /* Help lines: {key, description} pairs, ended by {NULL, NULL}. */
    const char *const (*help)[2];
} view_ops;

/* Every view, in one explicit table (views.c). */
const view_ops *const *views_registry(size_t *n);

/* The source pane (s), drawn beside or below the current view while
 * ctx->source_pane is on; NULL until one exists.  Its number is 0. */
const view_ops *views_source_pane(void);

#endif
