/* tl_overlap: the list of calls on other lanes that overlap the selected
 * call (o in the timeline): what the other threads and tasks did meanwhile.
 * Collected by binary search per lane row, so it costs what it lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/region.h"
#include "util/checked.h"
#include "util/timefmt.h"
#include "tl_state.h"

static bool ovl_push(tl_state *s, size_t li, uint32_t call)
{
    if (s->ovl_n == s->ovl_cap) {
        size_t cap = s->ovl_cap ? 2 * s->ovl_cap : 64;
        tl_ovl *v = realloc(s->ovl, cap * sizeof *v);
        if (!v)
            return false;
        s->ovl = v;
        s->ovl_cap = cap;
    }
    s->ovl[s->ovl_n++] = (tl_ovl){li, call};
    return true;
}

/* Calls of one row overlapping [t0, t1). */
static bool collect_row(tl_state *s, size_t l, uint32_t d, int64_t t0, int64_t t1)
{
    const lane *ln = &s->ix->lanes[l];
    const lane_row *row = &ln->rows[d];
    for (size_t k = lane_row_first_visible(ln, row, t0); k < row->n; k++) {
        int64_t st, e;
        lanes_call_span(ln->rk, lane_row_call(row, k), &st, &e);
        if (st >= t1)
            break;
        if (lanes_visible_end(st, e) > t0 && s->ovl_n < TL_OVL_MAX &&
            !ovl_push(s, l, lane_row_call(row, k)))
            return false;
        if (s->ovl_n >= TL_OVL_MAX)
            return true;
    }
    return true;
}

bool tl_overlap_open(tl_state *s, ui_ctx *ctx)
{
    size_t sl, pos;
    uint32_t sd;
    if (ctx->sel.call < 0 || !s->ix ||
        !lanes_locate(s->ix, ctx->sel.rank, ctx->sel.call, &sl, &sd, &pos)) {
        ui_set_status(ctx,
                      "No call selected on the timeline: Enter selects the call under the cursor");
        return false;
    }
    int64_t t0, e;
    lanes_call_span(s->ix->lanes[sl].rk, (uint32_t)ctx->sel.call, &t0, &e);
    int64_t t1 = lanes_visible_end(t0, e);
    s->ovl_n = 0;
    s->ovl_truncated = false;
    for (size_t l = 0; l < s->ix->nlanes; l++) {
        if (l == sl)
            continue;
        for (uint32_t d = 0; d < s->ix->lanes[l].ndepth; d++)
            if (!collect_row(s, l, d, t0, t1)) {
                ui_set_status(ctx, "Out of memory while listing the overlapping calls");
                return false;
            }
    }
    s->ovl_truncated = s->ovl_n >= TL_OVL_MAX;
    s->ovl_t0 = t0;
    s->ovl_t1 = t1;
    s->ovl_cur = s->ovl_top = 0;
    s->ovl_open = true;
    return true;
}

static void ovl_select(tl_state *s, ui_ctx *ctx)
{
    if (s->ovl_cur >= s->ovl_n)
        return;
    const tl_ovl *o = &s->ovl[s->ovl_cur];
    int rank = s->ix->lanes[o->li].rk->rank;
    s->ovl_open = false;
    tl_select(s, ctx, rank, o->call);
    tl_reveal(s, rank, o->call, true);
}

int tl_overlap_cmd(tl_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    size_t page = s->geo.nvis > 2 ? (size_t)s->geo.nvis - 2 : 1;
    switch (cmd) {
    case CMD_UP:
        s->ovl_cur -= s->ovl_cur > 0;
        break;
    case CMD_DOWN:
        s->ovl_cur += s->ovl_cur + 1 < s->ovl_n;
        break;
    case CMD_PGUP:
        s->ovl_cur = s->ovl_cur > page ? s->ovl_cur - page : 0;
        break;
    case CMD_PGDN:
        s->ovl_cur = s->ovl_cur + page < s->ovl_n ? s->ovl_cur + page : s->ovl_n ? s->ovl_n - 1 : 0;
        break;
    case CMD_HOME:
        s->ovl_cur = 0;
        break;
    case CMD_END:
        s->ovl_cur = s->ovl_n ? s->ovl_n - 1 : 0;
        break;
    case CMD_ENTER:
        ovl_select(s, ctx);
        break;
    case CMD_BACK:
    case CMD_QUIT:
    case CMD_OVERLAPS:
        s->ovl_open = false;
        break;
    default:
        return VF_HANDLED; /* the list is modal: other keys wait */
    }
    return VF_HANDLED | VF_REDRAW;
}

/* "r0 ThreadPoolExecutor-0_1": the lane of overlapping call i. */
static void ovl_lane_name(const tl_state *s, size_t i, char *buf, size_t len)
{
    lanes_lane_name(&s->ix->lanes[s->ovl[i].li], buf, len); /* "r0 lane 2 (inferred)" too */
}

enum { OVL_NUMS_W = 30, OVL_LANE_MIN = 8, OVL_REGION_MIN = 12 };

/* The lane column: as wide as the widest lane name listed (from rows
 * top..top+rows), leaving the region names at least OVL_REGION_MIN. */
static int ovl_lane_width(const tl_state *s, const grid *g, size_t rows, int w)
{
    int lw = (int)strlen("lane");
    for (size_t i = s->ovl_top; i < s->ovl_top + rows && i < s->ovl_n; i++) {
        char name[160];
        ovl_lane_name(s, i, name, sizeof name);
        int nw = grid_text_width(g, name);
        lw = nw > lw ? nw : lw;
    }
    int room = w - 1 - OVL_NUMS_W - OVL_REGION_MIN;
    return lw < room ? lw : room > OVL_LANE_MIN ? room : OVL_LANE_MIN;
}

static void ovl_row(const tl_state *s, ui_ctx *ctx, size_t i, int x, int y, int w, int lane_w,
                    int64_t zero)
{
    const tl_ovl *o = &s->ovl[i];
    const lane *ln = &s->ix->lanes[o->li];
    size_t k = 0;
    const region *r = rank_call_region(ln->rk, o->call, &k);
    if (!r)
        return;
    char lane_name[160], st[32], du[32], line[400];
    ovl_lane_name(s, i, lane_name, sizeof lane_name);
    int64_t a = r->start_ns[k], e = r->end_ns[k];
    int64_t ve = lanes_visible_end(a, e);
    double ov = ck_diff_f64(ve < s->ovl_t1 ? ve : s->ovl_t1, a > s->ovl_t0 ? a : s->ovl_t0);
    double span = ck_diff_f64(s->ovl_t1, s->ovl_t0);
    timefmt_ns(st, sizeof st, ck_diff_f64(a, zero));
    timefmt_ns(du, sizeof du, ck_diff_f64(e, a));
    snprintf(line, sizeof line, " %9s %9s %4.0f%%  ", st, du, span > 0 ? 100.0 * ov / span : 100.0);
    bool cur = i == s->ovl_cur;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    grid_fill(&ctx->grid, (rect){x, y, w, 1}, ' ', role, 0);
    int used = grid_put_text_mid(&ctx->grid, x + 1, y, lane_w, lane_name, role, 0);
    used = lane_w > used ? lane_w : used;
    used += grid_put_text(&ctx->grid, x + 1 + used, y, w - 1 - used, line, role, 0);
    grid_put_text(&ctx->grid, x + 1 + used, y, w - 1 - used, r->name,
                  cur ? role : theme_region_role(r->name), 0);
}

void tl_overlap_draw(tl_state *s, ui_ctx *ctx)
{
    const tl_geo *g = &s->geo;
    int x = g->x, w = g->w, y0 = g->rows_y, h = g->nvis + g->panel_h;
    if (h < 3)
        return;
    int64_t zero = ctx->prof->has_min_start ? ctx->prof->min_start_ns : 0;
    char a[32], b[32], head[200];
    timefmt_ns(a, sizeof a, (double)(s->ovl_t0 - zero));
    timefmt_ns(b, sizeof b, (double)(s->ovl_t1 - s->ovl_t0));
    snprintf(head, sizeof head, " %zu%s call%s on other lanes overlap the selection (%s, %s)",
             s->ovl_n, s->ovl_truncated ? "+" : "", s->ovl_n == 1 ? "" : "s", a, b);
    grid_fill(&ctx->grid, (rect){x, y0, w, h}, ' ', ROLE_NORMAL, 0);
    grid_put_text(&ctx->grid, x, y0, w, head, ROLE_HEADER, GA_BOLD);
    size_t rows = (size_t)(h - 3);
    if (s->ovl_cur < s->ovl_top)
        s->ovl_top = s->ovl_cur;
    if (s->ovl_cur >= s->ovl_top + rows)
        s->ovl_top = s->ovl_cur - rows + 1;
    int lane_w = ovl_lane_width(s, &ctx->grid, rows, w);
    char title[160];
    snprintf(title, sizeof title, "%-*s %9s %9s %5s  region", lane_w, "lane", "start", "dur",
             "share");
    grid_put_text(&ctx->grid, x + 1, y0 + 1, w - 1, title, ROLE_HEADER, 0);
    for (size_t i = 0; i < rows && s->ovl_top + i < s->ovl_n; i++)
        ovl_row(s, ctx, s->ovl_top + i, x, y0 + 2 + (int)i, w, lane_w, zero);
    if (s->ovl_n == 0)
        grid_put_text(&ctx->grid, x + 1, y0 + 2, w - 1,
                      "None: no other lane ran anything meanwhile", ROLE_DIM, 0);
    grid_put_text(&ctx->grid, x + 1, y0 + h - 1, w - 1,
                  "Enter selects the call in the timeline, Esc closes; share: of the selection's "
                  "time",
                  ROLE_DIM, 0);
}
