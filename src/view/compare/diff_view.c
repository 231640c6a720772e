/* diff_view: view 6 "compare", shown only with scopeview --diff BASE NEW.
 *
 * A header says BASE -> NEW and which screen is shown; m / M switch between
 * the five screens of diff_views.h: the call-path tree, the regions, the
 * selected region's overlaid distributions, the two timelines, the
 * differential flame graph.  Below the
 * tree and the regions table, the distributions of the selected region
 * stay in view as a pane when the screen is tall enough. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_views.h"

static const char *const screen_names[CS_COUNT] = {"paths", "regions", "distributions", "flame",
                                                   "timelines"};

static const char *base_name(const char *p)
{
    const char *sl = p ? strrchr(p, '/') : NULL;
    return sl && sl[1] ? sl + 1 : p ? p : "";
}

/* The flag counts in the longest wording that fits in w columns: the
 * counts themselves are never cut (a cut "1 slowe…" reads as nothing). */
static void cmp_counts(const cmp_state *s, const grid *g, bool ascii, int w, char *b, size_t n)
{
    const diff_result *d = s->d;
    bool regions = s->screen == CS_REGIONS;
    size_t up = d->nflag[regions ? 0 : 1][0], down = d->nflag[regions ? 0 : 1][1];
    const char *ge = ascii ? ">=" : "≥";
    double pct = d->opt.threshold * 100;
    snprintf(b, n, "  %zu slower, %zu faster %s (p adj < %g, %s %s %g%%)  m M", up, down,
             regions ? "regions" : "paths", d->opt.alpha, diff_metric_names[d->opt.metric], ge,
             pct);
    if (grid_text_width(g, b) <= w)
        return;
    snprintf(b, n, "  %zu slower, %zu faster (p<%g, %s%g%%)", up, down, d->opt.alpha, ge, pct);
    if (grid_text_width(g, b) <= w)
        return;
    snprintf(b, n, "  %zu slower, %zu faster", up, down);
    if (grid_text_width(g, b) <= w)
        return;
    snprintf(b, n, " %zu%s %zu%s", up, ascii ? "^" : "▲", down, ascii ? "v" : "▼");
}

static void cmp_header(cmp_state *s, ui_ctx *ctx, rect area)
{
    const diff_result *d = s->d;
    grid *g = &ctx->grid;
    char b[1024], counts[512];
    int x = area.x + 1, right = area.x + area.w;
    /* Every screen's name, or on a narrow screen the current one only. */
    int names = 0;
    for (int i = 0; i < CS_COUNT; i++)
        names += grid_text_width(g, screen_names[i]) + 2;
    snprintf(b, sizeof b, "%s %s %s  ", base_name(d->label[0]), ctx->ascii ? "->" : "→",
             base_name(d->label[1]));
    int runs = grid_text_width(g, b);
    int cur = grid_text_width(g, screen_names[s->screen]) + 2;
    cmp_counts(s, g, ctx->ascii, right - x - runs - cur, counts, sizeof counts);
    int cw = grid_text_width(g, counts);
    bool all = x + runs + names + cw <= right;
    /* The run names give way (cut in the middle) before the counts do. */
    int room = right - x - (all ? names : cur) - cw;
    x += grid_put_text_mid(g, x, area.y, room > 4 ? room : 4, b, ROLE_HEADER, GA_BOLD);
    for (int i = 0; i < CS_COUNT; i++) {
        if (!all && i != (int)s->screen)
            continue;
        snprintf(b, sizeof b, "%s%s%s", i == (int)s->screen ? "[" : " ", screen_names[i],
                 i == (int)s->screen ? "]" : " ");
        x += grid_put_text(g, x, area.y, right - x, b, ROLE_HEADER,
                           i == (int)s->screen ? GA_REVERSE : 0);
    }
    grid_put_text(g, x, area.y, right - x, counts, ROLE_HEADER, 0);
}

static const diff_row *selected_region(const cmp_state *s)
{
    return s->region < s->d->nregions ? &s->d->regions[s->region] : NULL;
}

static void cmp_draw(void *state, ui_ctx *ctx, rect area)
{
    cmp_state *s = state;
    grid *g = &ctx->grid;
    if (!s || !s->d) {
        grid_put_text(g, area.x + 1, area.y + 1, area.w - 2,
                      "Not comparing: run scopeview --diff BASE.h5 NEW.h5", ROLE_DIM, 0);
        return;
    }
    cmp_header(s, ctx, area);
    rect body = {area.x, area.y + 1, area.w, area.h - 1};
    if (s->screen == CS_DIST) {
        dist_draw(s->d, selected_region(s), ctx, body);
        return;
    }
    if (s->screen == CS_TIMELINES) {
        dtl_draw(s, ctx, body);
        return;
    }
    if (s->screen == CS_FLAME) {
        dflame_draw(s, ctx, body);
        return;
    }
    int dist_h = area.h >= 18 ? (area.h >= 40 ? 14 : 8) : 0;
    body.h -= dist_h;
    if (s->screen == CS_TREE)
        dtree_draw(s, ctx, body);
    else
        dreg_draw(s, ctx, body);
    if (dist_h)
        dist_draw(s->d, selected_region(s), ctx,
                  (rect){area.x, area.y + area.h - dist_h, area.w, dist_h});
}

static int cmp_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    cmp_state *s = state;
    if (!s || !s->d)
        return 0;
    if (cmd == CMD_COMPARE_MODE || cmd == CMD_COMPARE_MODE_PREV) {
        s->screen =
            (cmp_screen)((s->screen + (cmd == CMD_COMPARE_MODE ? 1 : CS_COUNT - 1)) % CS_COUNT);
        return VF_HANDLED | VF_REDRAW;
    }
    switch (s->screen) {
    case CS_TREE:
        return dtree_cmd(s, ctx, cmd);
    case CS_REGIONS:
        return dreg_cmd(s, ctx, cmd);
    case CS_TIMELINES:
        return dtl_cmd(s, ctx, cmd);
    case CS_FLAME:
        return dflame_cmd(s, ctx, cmd);
    default:
        return 0;
    }
}

static void cmp_destroy(void *state)
{
    cmp_state *s = state;
    if (!s)
        return;
    free(s->open);
    free(s->rows);
    free(s->stack);
    free(s->rorder);
    dtl_free(&s->tl);
    fg_free(&s->fg);
    free(s);
}

static void *cmp_create(ui_ctx *ctx)
{
    diff_result *d = ctx->opt->diff;
    if (!d)
        return NULL;
    cmp_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->d = d;
    s->prof[DIFF_BASE] = ctx->prof;
    s->prof[DIFF_NEW] = ctx->opt->compare;
    s->region = DIFF_NONE;
    if (!dtree_init(s)) {
        cmp_destroy(s);
        return NULL;
    }
    dreg_init(s);
    return s;
}

const view_ops compare_view = {
    .name = "compare",
    .create = cmp_create,
    .destroy = cmp_destroy,
    .draw = cmp_draw,
    .on_cmd = cmp_cmd,
    .compare_only = true,
};
