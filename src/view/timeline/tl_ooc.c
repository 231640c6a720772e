/* tl_ooc: timeline rows from the out-of-core overview map (tl_ooc.h). */
#include "tl_ooc.h"

#include <stdio.h>
#include <string.h>

#include "ui/theme.h"
#include "tl_state.h"

tl_ooc_cell tl_ooc_cell_of(const ooc_col *c, int64_t npc)
{
    tl_ooc_cell out = {TL_OOC_EMPTY, 0, false, 0};
    if (c->calls == 0)
        return out;
    out.has_reg = c->longest >= 0;
    out.reg = c->longest_reg;
    if (c->calls == 1 && npc > 0 && c->busy == (uint64_t)npc) {
        out.kind = TL_OOC_FULL;
        return out;
    }
    out.kind = TL_OOC_LOAD;
    int64_t busy = c->busy > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)c->busy;
    out.level = tl_load_level(busy, npc);
    return out;
}

const char *tl_ooc_legend(char *buf, size_t len, bool exact, bool ascii)
{
    const theme_glyphs *gl = theme_glyphs_get(ascii);
    char g[3][5];
    for (int k = 0; k < 3; k++)
        g[k][utf8_encode(gl->dense[k], g[k])] = '\0';
    /* What matters most first: a narrow screen cuts the end. */
    snprintf(buf, len,
             "overview (out of core): zoom in for calls; %s; busy %s <1/3 %s <2/3 %s more, "
             "bar = one call over the column",
             exact ? "exact columns" : "columns approx. (bucket edges)", g[0], g[1], g[2]);
    return buf;
}

const char *tl_ooc_header(char *buf, size_t len, bool exact)
{
    snprintf(buf, len, "overview (out of core, %s columns): zoom in for calls",
             exact ? "exact" : "approx.");
    return buf;
}

bool tl_ooc_view_exact(const tl_state *s)
{
    return s->ooc_map && ooc_map_view_exact(s->ooc_map, s->v.t0, s->v.npc);
}

/* The bar role of region reg of rank ri, ROLE_DENSE when there is none. */
static int region_role(const profile *p, size_t ri, const tl_ooc_cell *c)
{
    if (!c->has_reg || ri >= p->nranks || c->reg >= p->ranks[ri].nregions)
        return ROLE_DENSE;
    return theme_region_role(p->ranks[ri].regions[c->reg]->name);
}

static void draw_cell(grid *g, int x, int y, const tl_ooc_cell *c, const profile *p, size_t ri)
{
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    if (c->kind == TL_OOC_FULL) /* as a bar's inside (tl_draw.c draw_bar) */
        grid_put_cp(g, x, y, ' ', region_role(p, ri, c), 0);
    else if (c->kind == TL_OOC_LOAD)
        grid_put_cp(g, x, y, gl->dense[c->level], ROLE_DENSE, 0);
}

/* A run of bar cells of one region: the cells drawn, its name is
 * written over them when it ends, as a bar's name in memory.  Each cell
 * of the run is covered by one call of that region (consecutive calls
 * may share the run): the name says which region, nothing more. */
typedef struct bar_run {
    int x0; /* first column, -1 when no run is open */
    uint32_t reg;
} bar_run;

static void run_label(ui_ctx *ctx, const tl_state *s, const bar_run *run, int x1, const profile *p,
                      size_t ri, int y)
{
    if (ri >= p->nranks || run->reg >= p->ranks[ri].nregions)
        return;
    const char *name = p->ranks[ri].regions[run->reg]->name;
    int room = x1 - run->x0;
    /* "ab…" says less than a plain bar (tl_draw.c's rule) */
    if (room < 4 && room < grid_text_widthn(&ctx->grid, name, strnlen(name, 16)))
        return;
    tl_ooc_cell c = {.kind = TL_OOC_FULL, .has_reg = true, .reg = run->reg};
    grid_put_text(&ctx->grid, s->geo.tx + run->x0, y, room, name, region_role(p, ri, &c), 0);
}

/* Column x's cell c (NULL: past the last) against the open run. */
static void run_step(ui_ctx *ctx, const tl_state *s, bar_run *run, int x, const tl_ooc_cell *c,
                     const profile *p, size_t ri, int y)
{
    bool bar = c && c->kind == TL_OOC_FULL && c->has_reg;
    if (run->x0 >= 0 && (!bar || c->reg != run->reg)) {
        run_label(ctx, s, run, x, p, ri, y);
        run->x0 = -1;
    }
    if (bar && run->x0 < 0)
        *run = (bar_run){x, c->reg};
}

/* Columns per ooc_map_columns call: a whole row without allocating.
 * Cutting the row into chunks changes no column (each is computed from
 * its own bounds at the level the view's t0 and npc choose). */
#define TL_OOC_CHUNK 128

void tl_ooc_draw_row(tl_state *s, ui_ctx *ctx, size_t li, uint32_t depth, int y)
{
    const ooc_map *m = s->ooc_map;
    if (!m || !s->ix || li >= s->ix->nlanes)
        return;
    const struct lane *ln = &s->ix->lanes[li];
    const profile *p = s->ix->prof;
    size_t ri = (size_t)(ln->rk - p->ranks);
    size_t ml = ooc_map_find_lane(m, ri, ln->kind, ln->row);
    if (ml == SIZE_MAX || depth >= m->lanes[ml].ndepth)
        return;
    const tl_geo *geo = &s->geo;
    if (depth >= OOC_MAP_DEPTHS) {
        grid_put_text(&ctx->grid, geo->tx + 1, y, geo->tw - 1,
                      "calls this deep are not in the overview: zoom in", ROLE_DIM, 0);
        return;
    }
    ooc_col cols[TL_OOC_CHUNK];
    bar_run run = {-1, 0};
    for (int x0 = 0; x0 < geo->tw; x0 += TL_OOC_CHUNK) {
        int n = geo->tw - x0 < TL_OOC_CHUNK ? geo->tw - x0 : TL_OOC_CHUNK;
        ooc_map_columns(m, ml, depth, tl_col_time(&s->v, x0), s->v.npc, n, cols);
        for (int i = 0; i < n; i++) {
            tl_ooc_cell c = tl_ooc_cell_of(&cols[i], s->v.npc);
            run_step(ctx, s, &run, x0 + i, &c, p, ri, y);
            if (c.kind != TL_OOC_EMPTY)
                draw_cell(&ctx->grid, geo->tx + x0 + i, y, &c, p, ri);
        }
    }
    run_step(ctx, s, &run, geo->tw, NULL, p, ri, y);
}
