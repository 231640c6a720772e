/* diff_timeline: the compare view's timelines screen (diff_views.h).
 *
 * The two runs one above the other on one time axis: BASE's lanes (rank and
 * thread or task, then depth rows) on top, NEW's below, each run's times
 * measured from its own origin: its first call (aligned at their starts),
 * or with a the start of the k-th call (by start time) of the selected
 * region, on the lowest rank that has that many ([ and ] change k).  Zoom
 * (+ - 0) and pan (Left Right Home End) move both.  Each cell asks the lane
 * index (lanes.h) which calls overlap its time span, so a frame costs
 * rows x columns x log(calls), whatever the size of the runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_views.h"
#include "model/region.h"
#include "util/checked.h"
#include "util/timefmt.h"

#define TL_LABEL 16
#define TL_EMPTY UINT32_MAX
#define TL_DENSE (UINT32_MAX - 1)

static bool tl_build(cmp_state *s)
{
    cmp_timelines *tl = &s->tl;
    if (tl->built)
        return !tl->error[0];
    tl->built = true;
    tl->k = 1;
    tl->anchor = DIFF_NONE;
    for (int side = 0; side < 2; side++) {
        sv_error err;
        sv_error_clear(&err);
        if (lanes_build(s->prof[side], diff_scope_filter(s->d), &tl->ix[side], &err) != SV_OK) {
            snprintf(tl->error, sizeof tl->error, "%s: %s", side ? "NEW" : "BASE", err.msg);
            return false;
        }
    }
    return true;
}

void dtl_free(cmp_timelines *tl)
{
    lanes_free(tl->ix[0]);
    lanes_free(tl->ix[1]);
    tl->ix[0] = tl->ix[1] = NULL;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Start of the k-th call (1-based, by start) of name on the lowest rank in
 * scope with at least k calls of it. */
static bool anchor_start(const cmp_state *s, int side, const char *name, size_t k, int64_t *out)
{
    const profile *p = s->prof[side];
    for (size_t i = 0; i < p->nranks; i++) {
        const rank_data *rk = &p->ranks[i];
        if (s->d->opt.rank >= 0 && rk->rank != s->d->opt.rank)
            continue;
        const region *r = rank_region(rk, name);
        if (!r || !r->has_event_data || r->n < k)
            continue;
        bool sorted = true;
        for (size_t j = 1; j < r->n && sorted; j++)
            sorted = r->start_ns[j - 1] <= r->start_ns[j];
        if (sorted) {
            *out = r->start_ns[k - 1];
            return true;
        }
        int64_t *v = malloc(r->n * sizeof *v);
        if (!v)
            return false;
        memcpy(v, r->start_ns, r->n * sizeof *v);
        qsort(v, r->n, sizeof *v, cmp_i64);
        *out = v[k - 1];
        free(v);
        return true;
    }
    return false;
}

static void tl_origins(cmp_state *s)
{
    cmp_timelines *tl = &s->tl;
    for (int side = 0; side < 2; side++) {
        tl->origin[side] = tl->ix[side]->t_min <= tl->ix[side]->t_max ? tl->ix[side]->t_min : 0;
        tl->have_origin[side] = true;
        if (tl->anchored && s->region != DIFF_NONE)
            tl->have_origin[side] =
                anchor_start(s, side, s->d->names[s->region], tl->k, &tl->origin[side]);
    }
    tl->anchor = s->region;
}

static void tl_fit(cmp_timelines *tl)
{
    double lo = 0, hi = 1;
    bool any = false;
    for (int side = 0; side < 2; side++) {
        const lanes_index *ix = tl->ix[side];
        if (ix->t_min > ix->t_max)
            continue;
        double a = ck_diff_f64(ix->t_min, tl->origin[side]),
               b = ck_diff_f64(ix->t_max, tl->origin[side]);
        lo = any ? fmin(lo, a) : a;
        hi = any ? fmax(hi, b) : b;
        any = true;
    }
    tl->v0 = lo;
    tl->span = hi > lo ? hi - lo : 1;
    tl->fitted = true;
    if (tl->anchored) /* the aligned call near the left edge */
        tl->v0 = fmax(lo, -tl->span / 10);
}

/* origin + floor(off) in saturating arithmetic: an offset past the int64
 * range (starts at INT64_MIN and INT64_MAX) is clamped before it is
 * converted, the sum saturated. */
static int64_t at_offset(int64_t origin, double off)
{
    double f = floor(off);
    int64_t o = !(f > -9223372036854775808.0) ? INT64_MIN
                : f >= 9223372036854775808.0  ? INT64_MAX
                                              : (int64_t)f;
    return ck_add(origin, o);
}

static int bar_role(const char *name)
{
    unsigned h = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = h * 33 + *c;
    return ROLE_BAR0 + (int)(h % 8);
}

/* One depth row of one lane: which call each cell shows, then runs of one
 * call drawn as [name], cells holding several calls as a density glyph. */
static void draw_row(cmp_state *s, ui_ctx *ctx, int side, const lane *ln, uint32_t depth, int x0,
                     int y, int w, uint32_t *cells)
{
    const cmp_timelines *tl = &s->tl;
    const lane_row *row = &ln->rows[depth];
    double per = tl->span / w;
    for (int x = 0; x < w; x++) {
        int64_t t0 = at_offset(tl->origin[side], tl->v0 + per * x);
        int64_t t1 = at_offset(tl->origin[side], tl->v0 + per * (x + 1));
        if (t1 <= t0)
            t1 = ck_add(t0, 1);
        size_t first;
        size_t c = lane_row_count(ln, row, t0, t1, 2, &first);
        cells[x] = c == 0 ? TL_EMPTY : c == 1 ? lane_row_call(row, first) : TL_DENSE;
    }
    grid *g = &ctx->grid;
    for (int x = 0; x < w;) {
        int e = x + 1;
        while (e < w && cells[e] == cells[x])
            e++;
        if (cells[x] == TL_DENSE) {
            for (int i = x; i < e; i++)
                grid_put_text(g, x0 + i, y, 1, ctx->ascii ? ":" : "▒", ROLE_DENSE, 0);
        } else if (cells[x] != TL_EMPTY) {
            size_t idx;
            const region *r = rank_call_region(ln->rk, cells[x], &idx);
            const char *name = r ? r->name : "";
            int role = bar_role(name);
            if (e - x == 1) {
                grid_put_text(g, x0 + x, y, 1, "|", role, GA_BOLD);
            } else {
                grid_put_text(g, x0 + x, y, 1, "[", role, GA_BOLD);
                grid_put_text(g, x0 + e - 1, y, 1, "]", role, GA_BOLD);
                for (int i = x + 1; i < e - 1; i++)
                    grid_put_text(g, x0 + i, y, 1, ctx->ascii ? "=" : "═", role, 0);
                grid_put_text(g, x0 + x + 1, y, e - x - 2, name, role, GA_BOLD);
            }
        }
        x = e;
    }
}

/* The (lane, depth) rows of one run from row `top`, h screen rows from y. */
static void draw_run(cmp_state *s, ui_ctx *ctx, int side, rect area, uint32_t *cells)
{
    const lanes_index *ix = s->tl.ix[side];
    grid *g = &ctx->grid;
    char label[160], name[128];
    const char *file = s->d->label[side] ? strrchr(s->d->label[side], '/') : NULL;
    snprintf(label, sizeof label, "%s %s%s", side ? "NEW " : "BASE",
             file                ? file + 1
             : s->d->label[side] ? s->d->label[side]
                                 : "",
             s->tl.have_origin[side]
                 ? ""
                 : "  (the anchor region has fewer calls here: aligned at its start)");
    grid_put_text(g, area.x, area.y, area.w, label, ROLE_HEADER, GA_BOLD);
    size_t k = 0;
    int y = area.y + 1, w = area.w - TL_LABEL;
    for (size_t l = 0; l < ix->nlanes && y < area.y + area.h; l++) {
        const lane *ln = &ix->lanes[l];
        for (uint32_t dd = 0; dd < ln->ndepth && y < area.y + area.h; dd++, k++) {
            if (k < s->tl.top)
                continue;
            if (dd == 0)
                grid_put_text(g, area.x + 1, y, TL_LABEL - 2,
                              lanes_lane_name(ln, name, sizeof name), ROLE_DIM, 0);
            grid_put_text(g, area.x + TL_LABEL - 1, y, 1, ctx->ascii ? "|" : "│", ROLE_DIM, 0);
            draw_row(s, ctx, side, ln, dd, area.x + TL_LABEL, y, w, cells);
            y++;
        }
    }
}

/* Ticks every ~12 columns at a round step (1, 2, 5 x 10^k ns). */
static void draw_ruler(const cmp_timelines *tl, ui_ctx *ctx, int x0, int y, int w)
{
    grid *g = &ctx->grid;
    double per = tl->span / w, want = per * 16, step = 1;
    while (step * 10 <= want)
        step *= 10;
    step = step * 5 <= want ? step * 5 : step * 2 <= want ? step * 2 : step;
    double t = ceil(tl->v0 / step) * step;
    for (; t < tl->v0 + tl->span; t += step) {
        int x = (int)floor((t - tl->v0) / per);
        char b[40];
        timefmt_ns(b, sizeof b, fabs(t) < step / 2 ? 0 : t);
        grid_put_text(g, x0 + x, y, 1, ctx->ascii ? "+" : "┬", ROLE_HEADER, 0);
        grid_put_text(g, x0 + x + 1, y, 12, b, ROLE_HEADER, 0);
    }
}

void dtl_draw(cmp_state *s, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    if (!tl_build(s)) {
        grid_put_text(g, area.x + 1, area.y + 1, area.w - 2, s->tl.error, ROLE_WARNING, 0);
        return;
    }
    cmp_timelines *tl = &s->tl;
    size_t most = 0;
    for (int side = 0; side < 2; side++) {
        size_t n = 0;
        for (size_t l = 0; l < tl->ix[side]->nlanes; l++)
            n += tl->ix[side]->lanes[l].ndepth;
        most = n > most ? n : most;
    }
    if (tl->top >= most)
        tl->top = most ? most - 1 : 0;
    if (tl->anchored && tl->anchor != s->region) {
        tl_origins(s);
        tl_fit(tl);
    }
    if (!tl->fitted) {
        tl_origins(s);
        tl_fit(tl);
    }
    char info[512], per[40];
    timefmt_ns(per, sizeof per, tl->span / (area.w - TL_LABEL > 0 ? area.w - TL_LABEL : 1));
    if (tl->anchored && s->region != DIFF_NONE)
        snprintf(info, sizeof info, "aligned on call %zu of %s ([ ] k, a: at the starts)  %s/col",
                 tl->k, s->d->names[s->region], per);
    else
        snprintf(info, sizeof info,
                 "aligned at their starts (a: on a call of the selected region)  %s/col", per);
    grid_put_text(g, area.x + 1, area.y, area.w - 2, info, ROLE_DIM, 0);
    if (area.h < 6 || area.w <= TL_LABEL + 4)
        return;
    draw_ruler(tl, ctx, area.x + TL_LABEL, area.y + 1, area.w - TL_LABEL);
    uint32_t *cells = malloc((size_t)area.w * sizeof *cells);
    if (!cells)
        return;
    int h = (area.h - 2) / 2;
    draw_run(s, ctx, DIFF_BASE, (rect){area.x, area.y + 2, area.w, h}, cells);
    draw_run(s, ctx, DIFF_NEW, (rect){area.x, area.y + 2 + h, area.w, area.h - 2 - h}, cells);
    free(cells);
}

int dtl_cmd(cmp_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    (void)ctx;
    if (!tl_build(s))
        return 0;
    cmp_timelines *tl = &s->tl;
    double c = tl->v0 + tl->span / 2;
    switch (cmd) {
    case CMD_LEFT:
    case CMD_RIGHT:
        tl->v0 += (cmd == CMD_LEFT ? -1 : 1) * tl->span / 8;
        break;
    case CMD_ZOOM_IN:
        tl->span = fmax(tl->span / 2, 10);
        tl->v0 = c - tl->span / 2;
        break;
    case CMD_ZOOM_OUT:
        tl->span *= 2;
        tl->v0 = c - tl->span / 2;
        break;
    case CMD_ZOOM_FIT:
        tl_fit(tl);
        break;
    case CMD_HOME:
        tl->v0 = 0;
        break;
    case CMD_UP:
        if (tl->top)
            tl->top--;
        break;
    case CMD_DOWN:
        tl->top++;
        break;
    case CMD_COMPARE_ALIGN:
        tl->anchored = !tl->anchored;
        tl_origins(s);
        tl_fit(tl);
        break;
    case CMD_PREV_CALL:
    case CMD_NEXT_CALL:
        if (!tl->anchored)
            return 0;
        if (cmd == CMD_PREV_CALL && tl->k > 1)
            tl->k--;
        else if (cmd == CMD_NEXT_CALL)
            tl->k++;
        tl_origins(s);
        break;
    default:
        return 0;
    }
    return VF_HANDLED | VF_REDRAW;
}
