/* ui: the one context passed to every view (no globals). */
#ifndef SV_UI_H
#define SV_UI_H

#include <stdbool.h>
#include <regex.h>

#include "app.h"
#include "grid.h"
#include "profile.h"

struct view_ops;

/* The selection every view shares and follows. */
typedef struct ui_selection {
    region *region;  /* selected region (one rank), or NULL */
    int rank;        /* rank number of the selected call */
    int64_t call;    /* rank call index (rank_data.calls numbering), -1 none */
} ui_selection;

#define UI_MAX_VIEWS 8

typedef struct ui_ctx {
    profile *prof;
    const app_options *opt;
    grid grid;
    bool mono;             /* no colours */
    ui_selection sel;
    /* search: the last / expression, shared by every view */
    bool has_search;
    regex_t search_re;
    char search_text[256];
    bool filter_on;        /* f: views narrow to regions matching search_re */
    bool source_pane;      /* s */
    bool help_open;
    int mouse_x, mouse_y;  /* last mouse position for wheel/click commands */
    /* views */
    const struct view_ops *const *views;
    size_t nviews;
    void *view_state[UI_MAX_VIEWS];
    size_t current;        /* index into views */
    size_t previous;       /* for Esc back from a jump */
    char status[256];      /* one-line message for the status bar */
} ui_ctx;

/* Helpers views use to move the user around. */
void ui_open_view(ui_ctx *ctx, int number);
void ui_set_status(ui_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ui_search_match(const ui_ctx *ctx, const char *name);
/* Selects a call (rank number, rank call index) and its region. */
void ui_select_call(ui_ctx *ctx, int rank, int64_t call);
void ui_select_region(ui_ctx *ctx, region *r);

#endif
