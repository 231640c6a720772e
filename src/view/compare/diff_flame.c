/* diff_flame: the compare view's differential flame graph (diff_views.h).
 *
 * The comparison's call paths (model/flame.h flame_from_diff) drawn by the
 * flamegraph widget: widths from the new run's inclusive times, colours by
 * the change of each path's inclusive time (slower red, faster blue, the
 * stronger shade past 25%), the significant paths (the comparison's own
 * Mann-Whitney / Benjamini-Hochberg flags, the same as the paths table and
 * --diff) marked before their name, paths of the new run only labelled
 * "new"; the base run's own paths have no width in the new run and are
 * counted in the header instead. */
#include <stdio.h>

#include "diff_views.h"

static void dflame_build(cmp_state *s)
{
    s->fg_built = true;
    flame *f = NULL;
    sv_error err;
    sv_error_clear(&err);
    if (flame_from_diff(s->d, &f, &err)) {
        snprintf(s->fg_error, sizeof s->fg_error, "%s", err.msg);
        return;
    }
    flame_sort(f, FLAME_ORDER_HEAVY);
    fg_set(&s->fg, f);
}

static void dflame_header(const cmp_state *s, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    const diff_result *d = s->d;
    char b[400];
    snprintf(b, sizeof b,
             " width: new  red: slower  blue: faster  %s: flagged (%zu %zu)  base only: %zu "
             "paths",
             ctx->ascii ? "^v" : "▲▼", d->nflag[1][0], d->nflag[1][1], s->fg.f ? s->fg.f->gone : 0);
    grid_fill(g, (rect){area.x, area.y, area.w, 1}, ' ', ROLE_NORMAL, 0);
    grid_put_text(g, area.x, area.y, area.w, b, ROLE_NORMAL, 0);
}

void dflame_draw(cmp_state *s, ui_ctx *ctx, rect area)
{
    if (!s->fg_built)
        dflame_build(s);
    if (area.h < 4)
        return;
    dflame_header(s, ctx, area);
    if (!s->fg.f) {
        grid_put_text(&ctx->grid, area.x + 1, area.y + 2, area.w - 2, s->fg_error, ROLE_DIM, 0);
        return;
    }
    fg_draw(&s->fg, ctx, (rect){area.x, area.y + 1, area.w, area.h - 1});
}

int dflame_cmd(cmp_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    if (!s->fg_built)
        dflame_build(s);
    return fg_cmd(&s->fg, ctx, cmd);
}
