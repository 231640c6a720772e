/* tl_partial: the timeline of a partial overview (tl_partial.h). */
#include "tl_partial.h"

#include <stdio.h>
#include <string.h>

#include "tl_ooc.h"
#include "ui/theme.h"
#include "util/timefmt.h"

/* Columns per ooc_map_columns call (tl_ooc.c's rule: no allocation). */
#define TL_PARTIAL_CHUNK 128

/* lanes_lane_name's names (the timeline's, without its index). */
static void lane_label(char *buf, size_t len, const profile *skel, const ooc_lane *ln)
{
    const rank_data *rk = &skel->ranks[ln->rank_index];
    char nb[48];
    switch (ln->kind) {
    case LANE_THREAD:
        snprintf(buf, len, "r%d %s", rk->rank, rank_thread_name(rk, ln->row, nb, sizeof nb));
        break;
    case LANE_TASK:
        snprintf(buf, len, "r%d %s", rk->rank, rank_task_name(rk, ln->row, nb, sizeof nb));
        break;
    case LANE_INFERRED:
        snprintf(buf, len, "r%d lane %lld", rk->rank, (long long)ln->row + 1);
        break;
    default:
        snprintf(buf, len, "r%d", rk->rank);
    }
}

static int cell_role(const profile *skel, size_t ri, const tl_ooc_cell *c)
{
    if (!c->has_reg || c->reg >= skel->ranks[ri].nregions)
        return ROLE_DENSE;
    return theme_region_role(skel->ranks[ri].regions[c->reg]->name);
}

/* A run of bar cells of one region [x0, x1) gets the region's name over
 * it, as tl_ooc.c's runs (a bar cell is a blank in the region's colour:
 * without the name a screen without colours would show it empty). */
static void run_label(grid *g, int x0, int x1, int y, const profile *skel, size_t ri, uint32_t reg)
{
    if (x0 < 0 || reg >= skel->ranks[ri].nregions)
        return;
    const char *name = skel->ranks[ri].regions[reg]->name;
    int room = x1 - x0;
    if (room < 4 && room < grid_text_widthn(g, name, strnlen(name, 16)))
        return;
    tl_ooc_cell c = {.kind = TL_OOC_FULL, .has_reg = true, .reg = reg};
    grid_put_text(g, x0, y, room, name, cell_role(skel, ri, &c), 0);
}

/* One depth row of map lane l over the axis [x0, x0 + w); the columns
 * not all read (upto: where the part's rank is complete) marked instead. */
static void draw_row(grid *g, int x0, int w, int y, const profile *skel, const ooc_map *m, size_t l,
                     uint32_t d, int64_t t0, int64_t npc, int64_t upto)
{
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    size_t ri = m->lanes[l].rank_index;
    ooc_col cols[TL_PARTIAL_CHUNK];
    int run = -1; /* the open run's first column */
    /* A column's figures may come from buckets ending up to a column or a
     * level-0 bucket past its end (ooc_map_columns): only a column that
     * far before upto is all read. */
    int64_t bw = (int64_t)1 << m->shift, reach = npc > bw ? npc : bw;
    uint32_t run_reg = 0;
    for (int c0 = 0; c0 < w; c0 += TL_PARTIAL_CHUNK) {
        int n = w - c0 < TL_PARTIAL_CHUNK ? w - c0 : TL_PARTIAL_CHUNK;
        ooc_map_columns(m, l, d, t0 + (int64_t)c0 * npc, npc, n, cols);
        for (int i = 0; i < n; i++) {
            int x = x0 + c0 + i;
            bool unread = t0 + (int64_t)(c0 + i + 1) * npc + reach > upto;
            tl_ooc_cell c = tl_ooc_cell_of(&cols[i], npc);
            bool bar = !unread && c.kind == TL_OOC_FULL && c.has_reg;
            if (run >= 0 && (!bar || c.reg != run_reg)) {
                run_label(g, run, x, y, skel, ri, run_reg);
                run = -1;
            }
            if (bar && run < 0) {
                run = x;
                run_reg = c.reg;
            }
            if (unread)
                grid_put_cp(g, x, y, TL_PARTIAL_UNREAD, ROLE_DIM, 0);
            else if (c.kind == TL_OOC_FULL)
                grid_put_cp(g, x, y, ' ', cell_role(skel, ri, &c), 0);
            else if (c.kind == TL_OOC_LOAD)
                grid_put_cp(g, x, y, gl->dense[c.level], ROLE_DENSE, 0);
        }
    }
    if (run >= 0)
        run_label(g, run, x0 + w, y, skel, ri, run_reg);
}

/* Why rank k of a part is not drawn: read and coming with a later part
 * (before the sweep's place, or a rank whose parts were taken back), being
 * read, or not read yet. */
static const char *unread_why(size_t k, size_t sweeping)
{
    if (sweeping == SIZE_MAX || k > sweeping)
        return " not read yet ";
    return k == sweeping ? " being read " : " read, drawn next ";
}

static void draw_unread(grid *g, int x0, int w, int y, const char *say)
{
    for (int i = 0; i < w; i++)
        grid_put_cp(g, x0 + i, y, TL_PARTIAL_UNREAD, ROLE_DIM, 0);
    if (w > 20)
        grid_put_text(g, x0 + 2, y, w - 4, say, ROLE_DIM, 0);
}

static void rank_name(grid *g, rect area, int y, int label, const profile *skel, size_t k, int role)
{
    char name[48];
    snprintf(name, sizeof name, "rank %d", skel->ranks[k].rank);
    grid_put_text(g, area.x + 1, y, label - 2, name, role, 0);
}

int tl_partial_draw(grid *g, rect area, int y, int label, const profile *skel, const ooc_part *part,
                    int64_t t0, int64_t npc, size_t sweeping)
{
    int x0 = area.x + label, w = area.x + area.w - 1 - x0, end = area.y + area.h;
    if (w < 1 || npc < 1)
        return y;
    const ooc_map *m = &part->map;
    size_t l = 0;
    char name[48];
    for (size_t k = 0; k < skel->nranks && y < end; k++) {
        bool cut = part->partial && k == part->ranks_done; /* read up to part->upto */
        if (k >= part->ranks_done && !cut) {
            rank_name(g, area, y, label, skel, k, ROLE_DIM);
            draw_unread(g, x0, w, y++, unread_why(k, sweeping));
            continue;
        }
        bool any = false;
        for (; l < m->nlanes && m->lanes[l].rank_index == k && y < end; l++) {
            const ooc_lane *ln = &m->lanes[l];
            lane_label(name, sizeof name, skel, ln);
            grid_put_text_mid(g, area.x + 1, y, label - 2, name, ROLE_NORMAL, 0);
            uint32_t rows = ln->ndepth < OOC_MAP_DEPTHS ? ln->ndepth : OOC_MAP_DEPTHS;
            for (uint32_t d = 0; d < rows && y < end; d++)
                draw_row(g, x0, w, y++, skel, m, l, d, t0, npc, cut ? part->upto : INT64_MAX);
            any = true;
        }
        while (l < m->nlanes && m->lanes[l].rank_index == k)
            l++;                      /* the screen is full */
        if (!any && y < end && cut) { /* no lane of it yet */
            rank_name(g, area, y, label, skel, k, ROLE_DIM);
            draw_unread(g, x0, w, y++, unread_why(k, k));
        } else if (!any && y < end) { /* read, and no call the timeline keeps */
            rank_name(g, area, y++, label, skel, k, ROLE_NORMAL);
        }
    }
    return y;
}

const char *tl_partial_legend(char *buf, size_t len, const ooc_part *part, const profile *skel,
                              int64_t zero, bool ascii)
{
    const theme_glyphs *gl = theme_glyphs_get(ascii);
    char g[3][5], in[96] = "";
    for (int k = 0; k < 3; k++)
        g[k][utf8_encode(gl->dense[k], g[k])] = '\0';
    unsigned pct = part->calls_total
                       ? (unsigned)((double)part->calls_done * 100.0 / (double)part->calls_total)
                       : 0;
    if (part->partial && part->ranks_done < skel->nranks) {
        char t[32];
        timefmt_ns(t, sizeof t, (double)(part->upto - zero));
        snprintf(in, sizeof in, ", rank %d up to %s", skel->ranks[part->ranks_done].rank, t);
    }
    snprintf(buf, len,
             "drawn so far: %u%% of the calls (%u of %u ranks whole%s); %c not drawn yet; busy "
             "%s <1/3 %s <2/3 %s more, bar = one call over the column",
             pct, part->ranks_done, part->nranks, in, TL_PARTIAL_UNREAD, g[0], g[1], g[2]);
    return buf;
}
