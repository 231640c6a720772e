/* views: the one explicit table of views.
 *
 * Adding a view means one `extern` line and one entry here; nothing else
 * in the framework names a view.  Numbers: 1 timeline, 2 tree, 3 regions,
 * 4 calls, 5 info (help is an overlay, not a view). */
#include <stdio.h>
#include <stdlib.h>

#include "region.h"
#include "timefmt.h"
#include "view.h"

/* --- placeholder: the profile's regions, until the timeline lands --- */

typedef struct summary_state {
    size_t top, cursor;
    int page;
} summary_state;

static void *summary_create(ui_ctx *ctx)
{
    (void)ctx;
    return calloc(1, sizeof(summary_state));
}

static void summary_destroy(void *state)
{
    free(state);
}

static void summary_row(ui_ctx *ctx, rect area, int y, const region *r, bool cursor)
{
    char calls[32], total[32];
    snprintf(calls, sizeof calls, "%lld", (long long)region_num_calls(r));
    timefmt_ns(total, sizeof total, region_total_duration(r) * SV_NS_PER_SECOND);
    int role = cursor ? ROLE_SELECTED : ui_search_match(ctx, r->name) ? ROLE_SEARCH : ROLE_NORMAL;
    int name_w = area.w - 30 > 1 ? area.w - 30 : 1;
    grid_fill(&ctx->grid, (rect){area.x, y, area.w, 1}, ' ', role, 0);
    grid_put_text(&ctx->grid, area.x + 1, y, name_w - 1, r->name, role, 0);
    char right[80];
    snprintf(right, sizeof right, "r%-4d %8s %12s", r->rank, calls, total);
    grid_put_text(&ctx->grid, area.x + name_w, y, area.w - name_w, right, role, 0);
}

static void summary_draw(void *state, ui_ctx *ctx, rect area)
{
    summary_state *s = state;
    const profile *p = ctx->prof;
    if (!s || area.h < 2)
        return;
    char head[160];
    snprintf(head, sizeof head, " %zu regions on %zu ranks", p->nregions, p->nranks);
    grid_put_text(&ctx->grid, area.x, area.y, area.w, head, ROLE_HEADER, 0);
    s->page = area.h - 1;
    if (s->cursor < s->top)
        s->top = s->cursor;
    if (s->page > 0 && s->cursor >= s->top + (size_t)s->page)
        s->top = s->cursor - (size_t)s->page + 1;
    for (int i = 0; i < s->page && s->top + (size_t)i < p->nregions; i++) {
        size_t k = s->top + (size_t)i;
        summary_row(ctx, area, area.y + 1 + i, p->regions[k], k == s->cursor);
    }
}

static int summary_search(summary_state *s, ui_ctx *ctx, int dir)
{
    size_t n = ctx->prof->nregions;
    for (size_t step = 1; step <= n; step++) {
        size_t k = (s->cursor + n + (size_t)dir * step) % n;
        if (ui_search_match(ctx, ctx->prof->regions[k]->name)) {
            s->cursor = k;
            ui_select_region(ctx, ctx->prof->regions[k]);
            return VF_HANDLED | VF_REDRAW;
        }
    }
    ui_set_status(ctx, "No region matches /%s/", ctx->search_text);
    return VF_HANDLED | VF_REDRAW;
}

static int summary_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    summary_state *s = state;
    size_t n = ctx->prof->nregions;
    if (!s || n == 0)
        return 0;
    size_t page = s->page > 1 ? (size_t)s->page : 1;
    switch (cmd) {
    case CMD_UP:
        s->cursor = s->cursor ? s->cursor - 1 : 0;
        return VF_HANDLED | VF_REDRAW;
    case CMD_DOWN:
        s->cursor = s->cursor + 1 < n ? s->cursor + 1 : n - 1;
        return VF_HANDLED | VF_REDRAW;
    case CMD_PGUP:
        s->cursor = s->cursor > page ? s->cursor - page : 0;
        return VF_HANDLED | VF_REDRAW;
    case CMD_PGDN:
        s->cursor = s->cursor + page < n ? s->cursor + page : n - 1;
        return VF_HANDLED | VF_REDRAW;
    case CMD_HOME:
        s->cursor = 0;
        return VF_HANDLED | VF_REDRAW;
    case CMD_END:
        s->cursor = n - 1;
        return VF_HANDLED | VF_REDRAW;
    case CMD_ENTER:
        ui_select_region(ctx, ctx->prof->regions[s->cursor]);
        return VF_HANDLED | VF_REDRAW;
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        return ctx->has_search ? summary_search(s, ctx, cmd == CMD_SEARCH_NEXT ? 1 : -1) : 0;
    default:
        return 0;
    }
}

static const char *const summary_help[][2] = {
    {"Up Down j k", "move through the regions"},
    {"Enter", "select the region"},
    {NULL, NULL},
};

static const view_ops summary_view = {
    .name = "summary",
    .number = 1,
    .create = summary_create,
    .destroy = summary_destroy,
    .draw = summary_draw,
    .on_cmd = summary_cmd,
    .on_resize = NULL,
    .keys = NULL,
    .help = summary_help,
};

/* --- the table --- */

extern const view_ops timeline_view;
extern const view_ops tree_view;
extern const view_ops regions_view;

static const view_ops *const registry[] = {
    &timeline_view,
    &tree_view,
    &regions_view,
    &summary_view,
};

const view_ops *const *views_registry(size_t *n)
{
    *n = sizeof registry / sizeof registry[0];
    return registry;
}

const view_ops *views_source_pane(void)
{
    return NULL;
}
