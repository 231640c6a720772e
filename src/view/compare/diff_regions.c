/* diff_regions: the compare view's regions table (diff_views.h): one row
 * per region name with delta total, delta %, delta p50 / p95 / p99, delta
 * imbalance, adjusted p, the Hodges-Lehmann shift and the mark. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_views.h"

enum {
    RG_NAME,
    RG_TOTAL,
    RG_REL,
    RG_P50,
    RG_P95,
    RG_P99,
    RG_IMBAL,
    RG_P,
    RG_SHIFT,
    RG_MARK,
    RG_COUNT
};
static const table_col reg_cols[RG_COUNT] = {
    [RG_NAME] = {"Region", 14, 0, true, true},   [RG_TOTAL] = {"Delta tot", 10, 0, false, false},
    [RG_REL] = {"Delta%", 8, 0, false, false},   [RG_P50] = {"dP50", 9, 3, false, false},
    [RG_P95] = {"dP95", 9, 4, false, false},     [RG_P99] = {"dP99", 9, 5, false, false},
    [RG_IMBAL] = {"dImbal", 7, 6, false, false}, [RG_P] = {"p adj", 8, 1, false, false},
    [RG_SHIFT] = {"Shift", 9, 2, false, false},  [RG_MARK] = {"", 7, 0, true, false, false, true},
};
static const diff_key reg_keys[RG_COUNT] = {DK_NAME,      DK_ABS_DELTA, DK_REL_DELTA, DK_ABS_DELTA,
                                            DK_ABS_DELTA, DK_ABS_DELTA, DK_ABS_DELTA, DK_P,
                                            DK_ABS_DELTA, DK_ABS_DELTA};

static void reg_sort(cmp_state *s)
{
    free(s->rorder);
    s->rorder = diff_sorted_regions(s->d, reg_keys[s->rt.sort_col], s->rt.sort_desc);
    table_set_rows(&s->rt, s->rorder ? s->d->nregions : 0);
}

/* Opens the ancestors of every flagged path; the cursor goes to the flagged
 * path whose exclusive time changed most. */
static void reg_row(cmp_state *s, ui_ctx *ctx, size_t row, int y)
{
    const diff_row *r = &s->d->regions[s->rorder[row]];
    grid *g = &ctx->grid;
    bool cur = row == s->rt.cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur)
        table_draw_cursor(&s->rt, g, y);
    char v[64];
    double x = 0;
    table_put(&s->rt, g, RG_NAME, y, diff_row_name(s->d, r), role, 0);
    bool k = diff_row_delta(r, DV_TOTAL, &x);
    cmp_fmt_ns(v, sizeof v, k, x, true);
    table_put(&s->rt, g, RG_TOTAL, y, v, role, 0);
    k = diff_row_rel(r, DV_TOTAL, &x);
    cmp_fmt_rel(v, sizeof v, k, x);
    table_put(&s->rt, g, RG_REL, y, v, role, 0);
    static const diff_value pv[] = {DV_P50, DV_P95, DV_P99};
    for (int i = 0; i < 3; i++) {
        k = r->state == DS_BOTH && diff_row_delta(r, pv[i], &x);
        cmp_fmt_ns(v, sizeof v, k, x, true);
        table_put(&s->rt, g, RG_P50 + (size_t)i, y, v, role, 0);
    }
    k = r->state == DS_BOTH && diff_row_delta(r, DV_IMBALANCE, &x);
    if (k)
        snprintf(v, sizeof v, "%+.1f%%", x * 100.0);
    else
        snprintf(v, sizeof v, "-");
    table_put(&s->rt, g, RG_IMBAL, y, v, role, 0);
    cmp_fmt_p(v, sizeof v, r);
    table_put(&s->rt, g, RG_P, y, v, role, 0);
    cmp_fmt_ns(v, sizeof v, r->tested, r->hl_ns, true);
    table_put(&s->rt, g, RG_SHIFT, y, v, role, 0);
    table_put(&s->rt, g, RG_MARK, y, cmp_mark(r, ctx->ascii), cur ? role : cmp_mark_role(r), 0);
}

/* The region row under the cursor (NULL without rows). */
void dreg_init(cmp_state *s)
{
    table_init(&s->rt, reg_cols, RG_COUNT, RG_TOTAL, true);
    reg_sort(s);
}

/* Puts the cursor on the selected region (the tree may have moved it). */
static void reg_sync(cmp_state *s)
{
    for (size_t i = 0; s->rorder && i < s->d->nregions; i++)
        if (s->rorder[i] == s->region) {
            if (s->rt.cursor != i)
                table_goto(&s->rt, i);
            break;
        }
}

void dreg_draw(cmp_state *s, ui_ctx *ctx, rect area)
{
    size_t n = s->rorder ? s->d->nregions : 0;
    table_layout(&s->rt, &ctx->grid, area);
    reg_sync(s);
    table_scroll(&s->rt);
    table_draw_header(&s->rt, &ctx->grid, area.y);
    for (size_t r = s->rt.top; r < n; r++) {
        int y = table_row_y(&s->rt, r);
        if (y < 0)
            break;
        reg_row(s, ctx, r, y);
    }
}

int dreg_cmd(cmp_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    reg_sync(s);
    enum table_result r = table_on_cmd(&s->rt, cmd, ctx->mouse_x, ctx->mouse_y);
    if (r == TABLE_IGNORED)
        return 0;
    if (r == TABLE_SORTED)
        reg_sort(s);
    if (s->rorder && s->d->nregions)
        s->region = s->rorder[s->rt.cursor];
    return VF_HANDLED | VF_REDRAW;
}
