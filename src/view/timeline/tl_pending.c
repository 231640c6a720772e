/* tl_pending: the timeline while the out-of-core overview is coming
 * (ui/ooc_pending.h): the skeleton the file's index gives, then the
 * overview's parts as the pass goes (tl_partial.h), taken from the open
 * (ooc_open_job_part) whenever it draws. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ooc/ooc_open_job.h"
#include "tl_partial.h"
#include "ui/ooc_pending.h"
#include "util/timefmt.h"

static int pend_tl_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    (void)state;
    (void)ctx;
    (void)cmd;
    return 0; /* the app's own keys (views, help, quit) still work */
}

/* The span of the calls the stored statistics give: their earliest first
 * start and latest last end, relative to the profile's time zero; false
 * unless every region with calls has both. */
static bool stored_span(const profile *p, int64_t *len)
{
    bool any = false;
    double t0 = 0, t1 = 0;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (!r->has_event_data || r->st.num_calls == 0)
            continue;
        unsigned need = 1u << SUM_FIRST_START | 1u << SUM_LAST_END;
        if (!r->has_stored_summary || (r->stored.known & need) != need)
            return false;
        double a = r->stored.v[SUM_FIRST_START], b = r->stored.v[SUM_LAST_END];
        t0 = any && t0 < a ? t0 : a;
        t1 = any && t1 > b ? t1 : b;
        any = true;
    }
    if (!any || !(t1 >= t0) || t1 - t0 > 9e18)
        return false;
    *len = (int64_t)(t1 - t0);
    return true;
}

/* A ruler from `from` to `from + span` ns after the profile's zero. */
static void draw_ruler(ui_ctx *ctx, rect area, int y, int x0, int64_t from, int64_t span)
{
    grid *g = &ctx->grid;
    int w = area.x + area.w - 1 - x0;
    if (w < 10)
        return;
    const char *tick = ctx->ascii ? "|" : "│";
    for (int k = 0; k <= 4; k++) {
        int x = x0 + (w - 1) * k / 4;
        char t[32];
        timefmt_ns(t, sizeof t, (double)from + (double)span * k / 4);
        grid_put_text(g, x, y, 1, tick, ROLE_HEADER, 0);
        int tw = (int)strlen(t);
        int at = k == 4 ? x - tw : x + 1;
        if (k == 0 || k == 4 || (at > x0 + 1 && at + tw < x0 + w - 12))
            grid_put_text(g, at, y, tw, t, ROLE_HEADER, 0);
    }
}

/* Rank k's share of the pass: the sweep takes the ranks in rank order,
 * so its position there says whether it is mapped already; NULL before
 * the sweep has begun. */
static const char *rank_state(const profile *p, size_t k, const ooc_open_progress *pr)
{
    if (!pr->sweeping || pr->sweep.nranks != p->nranks)
        return NULL;
    uint32_t pos = 1;
    for (size_t i = 0; i < p->nranks; i++)
        pos += p->ranks[i].rank < p->ranks[k].rank;
    if (pos < pr->sweep.rank || pr->sweep.permyriad >= 10000)
        return "mapped";
    return pos == pr->sweep.rank ? "mapping" : "pending";
}

/* The timeline's state while pending: the newest part of the overview
 * taken from the open (ooc_open_job_part), owned. */
typedef struct pend_tl {
    ooc_part *part;
} pend_tl;

static void *pend_tl_create(ui_ctx *ctx)
{
    (void)ctx;
    return calloc(1, sizeof(pend_tl));
}

static void pend_tl_destroy(void *state)
{
    pend_tl *st = state;
    if (st)
        ooc_part_free(st->part);
    free(st);
}

/* The overview so far: the part's ranks drawn, the others marked unread,
 * over the span of the whole pass (the part's grid). */
static void draw_part(ui_ctx *ctx, rect area, const ooc_part *part)
{
    const profile *p = ctx->prof;
    char line[256];
    int label = 14;
    int y = ooc_pending_line(ctx, area, area.y,
                             "overview (out of core): filling in as the pass over the calls goes",
                             ROLE_HEADER);
    ooc_pending_text(ctx, line, sizeof line);
    y = ooc_pending_line(ctx, area, y, line, ROLE_WARNING);
    int64_t zero = p->has_min_start ? p->min_start_ns : part->t_min;
    int64_t span = part->t_max - part->t_min;
    int w = area.w - 1 - label;
    if (w < 10 || y >= area.y + area.h - 1)
        return;
    draw_ruler(ctx, area, y++, area.x + label, part->t_min - zero, span);
    int64_t npc = span / w + 1; /* w columns cover [t_min, t_max] */
    ooc_open_progress pr = ooc_open_job_progress(ctx->ooc_open);
    size_t sweeping = SIZE_MAX; /* the rank being read; those before it are read */
    if (pr.sweeping && pr.sweep.rank >= 1)
        sweeping = pr.sweep.permyriad < 10000 ? (size_t)pr.sweep.rank - 1 : p->nranks;
    rect rows = {area.x, area.y, area.w, area.h - 1}; /* the legend below */
    tl_partial_draw(&ctx->grid, rows, y, label, p, part, part->t_min, npc, sweeping);
    tl_partial_legend(line, sizeof line, part, p, zero, ctx->ascii);
    ooc_pending_line(ctx, area, area.y + area.h - 1, line, ROLE_DIM);
}

static void pend_timeline_draw(void *state, ui_ctx *ctx, rect area)
{
    pend_tl *st = state;
    grid_fill(&ctx->grid, area, ' ', ROLE_NORMAL, 0);
    ooc_part *np = ctx->ooc_open ? ooc_open_job_part(ctx->ooc_open) : NULL;
    if (np && st) {
        ooc_part_free(st->part);
        st->part = np;
    } else {
        ooc_part_free(np);
    }
    /* a part of another skeleton never reaches here (ooc_open_job checks it) */
    if (st && st->part && st->part->nranks == ctx->prof->nranks) {
        draw_part(ctx, area, st->part);
        return;
    }
    const profile *p = ctx->prof;
    char line[256];
    int y = ooc_pending_line(ctx, area, area.y,
                             "overview (out of core): coming as the pass over the calls goes",
                             ROLE_HEADER);
    int label = 12;
    int64_t span = 0;
    if (stored_span(p, &span)) {
        draw_ruler(ctx, area, y++, area.x + label, 0, span);
    } else {
        y = ooc_pending_line(ctx, area, y, "time span: known after the pass (no stored statistics)",
                             ROLE_DIM);
    }
    ooc_pending_text(ctx, line, sizeof line);
    int prog_y = y;
    ooc_open_progress pr = ooc_open_job_progress(ctx->ooc_open);
    for (size_t k = 0; k < p->nranks && y < area.y + area.h; k++, y++) {
        char name[32];
        snprintf(name, sizeof name, "rank %d", p->ranks[k].rank);
        grid_put_text(&ctx->grid, area.x + 1, y, label - 2, name, ROLE_DIM, 0);
        if (y == prog_y)
            continue;
        const char *what = rank_state(p, k, &pr);
        if (what)
            grid_put_text(&ctx->grid, area.x + label, y, area.w - label - 1, what, ROLE_DIM, 0);
    }
    /* where the overview will be: beside the rank rows */
    grid_put_text(&ctx->grid, area.x + label, prog_y, area.w - label - 1, line, ROLE_WARNING, 0);
}

const view_ops timeline_pending_view = {.name = "timeline",
                                        .create = pend_tl_create,
                                        .destroy = pend_tl_destroy,
                                        .draw = pend_timeline_draw,
                                        .on_cmd = pend_tl_cmd};
