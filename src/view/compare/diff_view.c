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

static void cmp_header(cmp_state *s, ui_ctx *ctx, rect area)
{
    const diff_result *d = s->d;
    grid *g = &ctx->grid;
    char b[1024], counts[512];
    int x = area.x + 1;
    bool regions = s->screen == CS_REGIONS;
    snprintf(counts, sizeof counts, "  %zu slower, %zu faster %s (p adj < %g, %s %s %g%%)  m M",
             d->nflag[regions ? 0 : 1][0], d->nflag[regions ? 0 : 1][1],
             regions ? "regions" : "paths", d->opt.alpha, diff_metric_names[d->opt.metric],
             ctx->ascii ? ">=" : "≥", d->opt.threshold * 100);
    snprintf(b, sizeof b, "%s %s %s  ", base_name(d->label[0]), ctx->ascii ? "->" : "→",
             base_name(d->label[1]));
    x += grid_put_text(g, x, area.y, area.x + area.w - x, b, ROLE_HEADER, GA_BOLD);
    /* Every screen's name, or on a narrow screen the current one only, so
     * the counts still show. */
    int names = 0;
    for (int i = 0; i < CS_COUNT; i++)
        names += grid_text_width(g, screen_names[i]) + 2;
    bool all = x + names + 24 <= area.x + area.w;
    for (int i = 0; i < CS_COUNT; i++) {
        if (!all && i != (int)s->screen)
            continue;
        snprintf(b, sizeof b, "%s%s%s", i == (int)s->screen ? "[" : " ", screen_names[i],
                 i == (int)s->screen ? "]" : " ");
        x += grid_put_text(g, x, area.y, area.x + area.w - x, b, ROLE_HEADER,
                           i == (int)s->screen ? GA_REVERSE : 0);
    }
    grid_put_text(g, x, area.y, area.x + area.w - x, counts, ROLE_HEADER, 0);
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
