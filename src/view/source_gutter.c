/* source_gutter: see source_gutter.h. */
#include "source_gutter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lineprof.h"
#include "ui/theme.h"
#include "util/timefmt.h"

/* "999.9 ms" and the like: timefmt_ns gives four digits and a unit. */
#define GUTTER_TIME_W 8
#define GUTTER_BAR_W 4
/* Below this many columns for the code, hits and the bar are dropped. */
#define GUTTER_CODE_MIN 24

void gutter_free(src_gutter *gt)
{
    free(gt->by_line);
    free(gt->hot);
    memset(gt, 0, sizeof *gt);
}

static int gutter_cmp(const void *a, const void *b, void *ctx)
{
    const line_profile *lp = ctx;
    int64_t x = lp->lineno[*(const size_t *)a];
    int64_t y = lp->lineno[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

bool gutter_follow(src_gutter *gt, const region *r)
{
    if (r == gt->r && (r || !gt->lp))
        return true;
    gutter_free(gt);
    gt->r = r;
    if (!r)
        return true;
    const line_profile *lp = NULL;
    gt->nrec = lineprof_for_region(r->owner, r->name, r, &lp, 1);
    if (!lp || lp->n == 0)
        return true;
    gt->by_line = malloc(lp->n * sizeof *gt->by_line);
    gt->hot = malloc(lp->n);
    if (!gt->by_line || !gt->hot) {
        gutter_free(gt);
        gt->r = r;
        return false;
    }
    for (size_t i = 0; i < lp->n; i++) {
        gt->by_line[i] = i;
        double ns = lineprof_row_ns(lp, i);
        if (ns > gt->max_ns)
            gt->max_ns = ns;
    }
    qsort_r(gt->by_line, lp->n, sizeof *gt->by_line, gutter_cmp, (void *)lp);
    lineprof_hottest(lp, GUTTER_HOT, gt->hot);
    gt->total_ns = lineprof_total_ns(lp);
    gt->lp = lp;
    return true;
}

bool gutter_own_source(const src_gutter *gt, const region *r)
{
    const line_profile *lp = gt->lp;
    if (!lp || !lp->source)
        return false;
    if (!r->source_text)
        return true;
    int64_t first = r->has_lineno ? r->source_lineno : 1, last = first;
    for (const char *c = r->source_text; *c; c++)
        if (*c == '\n' && c[1])
            last++;
    for (size_t i = 0; i < lp->n; i++)
        if (lp->lineno[i] >= first && lp->lineno[i] <= last)
            return false;
    return true;
}

/* Row of lp for line `lineno` (the first when repeated), or lp->n. */
static size_t gutter_row(const src_gutter *gt, int64_t lineno)
{
    size_t lo = 0, hi = gt->lp->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gt->lp->lineno[gt->by_line[mid]] < lineno)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < gt->lp->n && gt->lp->lineno[gt->by_line[lo]] == lineno)
        return gt->by_line[lo];
    return gt->lp->n;
}

static int gutter_digits(int64_t v)
{
    int d = 1;
    for (; v >= 10; v /= 10)
        d++;
    return d;
}

int gutter_layout(src_gutter *gt, const grid *g, int w)
{
    (void)g;
    gt->time_w = gt->hits_w = gt->bar_w = gt->width = 0;
    if (!gt->lp)
        return 0;
    int64_t max_hits = 0;
    for (size_t i = 0; i < gt->lp->n; i++)
        if (gt->lp->hits[i] > max_hits)
            max_hits = gt->lp->hits[i];
    gt->time_w = GUTTER_TIME_W;
    int hits_w = gutter_digits(max_hits) < 4 ? 4 : gutter_digits(max_hits);
    int full = gt->time_w + 1 + hits_w + 1 + GUTTER_BAR_W + 2; /* bar, hot mark, space */
    if (w - full >= GUTTER_CODE_MIN) {
        gt->hits_w = hits_w;
        gt->bar_w = GUTTER_BAR_W;
        gt->width = full;
    } else {
        gt->width = gt->time_w + 3; /* time, the hot mark, a space */
    }
    return gt->width;
}

void gutter_caption(const src_gutter *gt, grid *g, int x, int y, int w)
{
    if (!gt->lp || w <= 0)
        return;
    char buf[64];
    int col = 0;
    snprintf(buf, sizeof buf, "%*s", gt->time_w, "time");
    col += grid_put_text(g, x + col, y, w - col, buf, ROLE_HEADER, 0);
    if (gt->hits_w) {
        snprintf(buf, sizeof buf, " %*s", gt->hits_w, "hits");
        col += grid_put_text(g, x + col, y, w - col, buf, ROLE_HEADER, 0);
    }
    col += 2;
    if (col >= w)
        return;
    /* What the numbers are: the profiled function and its total. */
    char tot[32];
    timefmt_ns(tot, sizeof tot, gt->total_ns);
    col += grid_put_text(g, x + col, y, w - col, "line profile ", ROLE_DIM, 0);
    if (col < w)
        col += grid_put_text(g, x + col, y, w - col, gt->lp->function ? gt->lp->function : "?",
                             ROLE_DIM, GA_BOLD);
    /* Several ranks: say whose record this is (each rank has its own). */
    const rank_data *rk = gt->r ? gt->r->owner : NULL;
    if (rk && rk->owner && rk->owner->nranks > 1)
        snprintf(buf, sizeof buf, " on rank %d: %s total, top %d marked", rk->rank, tot,
                 GUTTER_HOT);
    else
        snprintf(buf, sizeof buf, ": %s total, top %d marked", tot, GUTTER_HOT);
    if (col < w)
        col += grid_put_text(g, x + col, y, w - col, buf, ROLE_DIM, 0);
    if (gt->nrec > 1 && col < w) {
        snprintf(buf, sizeof buf, " (1 of %zu records)", gt->nrec);
        grid_put_text(g, x + col, y, w - col, buf, ROLE_DIM, 0);
    }
}

void gutter_draw(const src_gutter *gt, grid *g, int x, int y, int64_t lineno)
{
    if (!gt->lp)
        return;
    size_t i = gutter_row(gt, lineno);
    if (i == gt->lp->n)
        return;
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    bool hot = gt->hot[i] != 0;
    int role = hot ? ROLE_WARNING : ROLE_NORMAL, attr = hot ? GA_BOLD : 0;
    char buf[48], t[32];
    double ns = lineprof_row_ns(gt->lp, i);
    snprintf(buf, sizeof buf, "%*s", gt->time_w, timefmt_ns(t, sizeof t, ns));
    int col = grid_put_text(g, x, y, gt->time_w, buf, role, attr) + 1;
    if (gt->hits_w) {
        snprintf(buf, sizeof buf, "%*lld", gt->hits_w, (long long)gt->lp->hits[i]);
        col += grid_put_text(g, x + col, y, gt->hits_w, buf, ROLE_DIM, 0) + 1;
    }
    if (gt->bar_w) {
        /* Rounded, but any time at all shows one cell. */
        int cells = gt->max_ns > 0 ? (int)((ns / gt->max_ns) * gt->bar_w + 0.5) : 0;
        if (cells == 0 && ns > 0)
            cells = 1;
        for (int k = 0; k < cells && k < gt->bar_w; k++)
            grid_put_cp(g, x + col + k, y, gl->bar, hot ? ROLE_WARNING : ROLE_DIM, 0);
        col += gt->bar_w;
    }
    if (hot) /* seen without colours too */
        grid_put_cp(g, x + col, y, gl->marker, ROLE_WARNING, GA_BOLD);
}
