/* ooc_view: the views without the call paths out of core (see ooc_view.h). */
#include "ooc_view.h"

#include "model/callpaths.h"

#include <stdio.h>
#include <string.h>

void ooc_view_text(const ui_ctx *ctx, char *buf, size_t len)
{
    const char *why = ctx->opt && ctx->opt->ooc_reason ? ctx->opt->ooc_reason : "out of core";
    bool forced = strcmp(why, "--out-of-core") == 0;
    snprintf(buf, len, "not available out of core (%s): use --json or %s", why,
             forced ? "open the file without --out-of-core" : "a larger --memory");
}

/* The tree, flame graph and callers without call paths: why there are none. */
static void ooc_paths_text(const ui_ctx *ctx, char *buf, size_t len)
{
    ooc_view_text(ctx, buf, len);
    const call_paths *c = ctx->prof ? ctx->prof->cpaths : NULL;
    size_t n = strlen(buf);
    if (c && !c->available && c->why[0] && n + 3 < len)
        snprintf(buf + n, len - n, "; no call paths: %s", c->why);
}

/* No state: a non-NULL pointer so the view draws. */
static void *ooc_paths_create(ui_ctx *ctx)
{
    return ctx;
}

static void ooc_view_draw(void *state, ui_ctx *ctx, rect area)
{
    (void)state;
    char msg[512];
    ooc_paths_text(ctx, msg, sizeof msg);
    grid_fill(&ctx->grid, area, ' ', ROLE_NORMAL, 0);
    /* Wrapped at spaces (the text is ASCII but for the file's budget). */
    int w = area.w - 2;
    const char *t = msg;
    for (int y = area.y; *t && w > 0 && y < area.y + area.h; y++) {
        size_t n = strlen(t), cut = n;
        if ((int)n > w) {
            cut = (size_t)w;
            while (cut > 0 && t[cut] != ' ')
                cut--;
            cut = cut ? cut : (size_t)w;
        }
        grid_put_textn(&ctx->grid, area.x + 1, y, w, t, cut, ROLE_WARNING, 0);
        t += cut;
        while (*t == ' ')
            t++;
    }
}

/* Keys reach nothing here; the app's own (views, quit, help) still work. */
static int ooc_view_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    (void)state;
    (void)ctx;
    (void)cmd;
    return 0;
}

static const view_ops ooc_tree = {
    .name = "tree", .create = ooc_paths_create, .draw = ooc_view_draw, .on_cmd = ooc_view_cmd};
/* Without the call-path totals (over their cap, or a rank the sweep could
 * not nest) the flame graph says so rather than drawing a partial graph. */
static const view_ops ooc_flame = {
    .name = "flame", .create = ooc_paths_create, .draw = ooc_view_draw, .on_cmd = ooc_view_cmd};
/* The callers need the call-path totals too.  Every other view draws out
 * of core: the calls list from the sweep's slowest calls, the lanes from
 * its per-lane figures, the series from its time bins. */
static const view_ops ooc_callers = {
    .name = "callers", .create = ooc_paths_create, .draw = ooc_view_draw, .on_cmd = ooc_view_cmd};

void ooc_view_registry(const view_ops *const *base, size_t n, bool paths, const view_ops **reg)
{
    for (size_t i = 0; i < n; i++)
        reg[i] = base[i];
    if (VIEW_TREE < n && !paths)
        reg[VIEW_TREE] = &ooc_tree;
    if (VIEW_FLAME < n && !paths)
        reg[VIEW_FLAME] = &ooc_flame;
    if (VIEW_CALLERS < n && !paths)
        reg[VIEW_CALLERS] = &ooc_callers;
}
