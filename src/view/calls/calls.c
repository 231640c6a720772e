/* calls: view 4, the drill-down into one region's calls: the frame, the
 * keys and the view's operations.  The rows live in calls_list.c, the
 * table and histogram in calls_table.c, the cursor call's details in
 * calls_detail.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls_internal.h"
#include "calls_ooc.h"
#include "model/filter.h"
#include "model/region.h"
#include "util/strbuf.h"
#include "util/timefmt.h"

/* ------------------------------------------------------------ drawing */

static void draw_title(const calls_state *s, ui_ctx *ctx, rect a)
{
    grid *g = &ctx->grid;
    strbuf b;
    sb_init(&b);
    if (s->scope < 0)
        sb_printf(&b, ", all ranks (%zu): ", s->nregs);
    else
        sb_printf(&b, ", rank %d only: ", s->scope);
    const calls_colspec *sc = &calls_cols[s->sort_col];
    if (s->n == 0 && s->nsummary)
        sb_puts(&b, "summary-only, no recorded calls");
    else if (s->sort_col == CC_DUR && s->desc)
        sb_printf(&b, "%zu call%s, slowest first", s->n, s->n == 1 ? "" : "s");
    else
        sb_printf(&b, "%zu call%s, by %s (%s)", s->n, s->n == 1 ? "" : "s", sc->title,
                  s->desc == sc->desc ? sc->order : sc->rev);
    /* One rank's region: its first and last recorded calls (a first call
     * far slower than the rest is a warm-up). */
    const region *one = s->nregs == 1 ? s->regs[0] : NULL;
    if (one && one->has_event_data && one->n >= 2) {
        char f[32], l[32];
        timefmt_ns(f, sizeof f, (double)(one->end_ns[0] - one->start_ns[0]));
        timefmt_ns(l, sizeof l, (double)(one->end_ns[one->n - 1] - one->start_ns[one->n - 1]));
        sb_printf(&b, "; first %s, last %s", f, l);
    }
    int x = a.x + 1;
    x += grid_put_text(g, x, a.y, a.w - 1, "Calls of ", ROLE_HEADER, 0);
    int nw = grid_text_width(g, s->name);
    int rest = grid_text_width(g, b.s ? b.s : "");
    int room = a.x + a.w - x - rest;
    x += grid_put_text(g, x, a.y,
                       nw < room   ? nw
                       : room > 12 ? room
                                   : 12,
                       s->name, ROLE_HEADER, GA_BOLD);
    grid_put_text(g, x, a.y, a.x + a.w - x, b.s ? b.s : "", ROLE_HEADER, 0);
    sb_free(&b);
}

/* --- summary-only and empty --- */

/* Labels of the stored statistics: the attribute names without their
 * unit, as the values are shown in adaptive units. */
static const char *const stored_labels[SUM_COUNT] = {
    [SUM_NUM_CALLS] = "calls",
    [SUM_TOTAL] = "total",
    [SUM_MIN] = "min",
    [SUM_MAX] = "max",
    [SUM_MEAN] = "mean",
    [SUM_STD] = "std",
    [SUM_FIRST] = "first",
    [SUM_LAST] = "last",
    [SUM_FIRST_START] = "first start",
    [SUM_LAST_END] = "last end",
    [SUM_P50] = "p50",
    [SUM_P95] = "p95",
    [SUM_P99] = "p99",
    [SUM_EXCLUSIVE_TOTAL] = "exclusive",
    [SUM_GPU_TOTAL] = "GPU total",
    [SUM_AWAIT_TOTAL] = "awaited",
};

enum { STORED_LABEL_W = 14, STORED_COL_W = 11 };

/* Stored statistic k of r as text; the start and end counted, like the
 * list's start column, from the profile's zero. */
static void stored_value(const ui_ctx *ctx, const region *r, int k, char *v, size_t len)
{
    double x = r->stored.v[k];
    bool at = k == SUM_FIRST_START || k == SUM_LAST_END;
    if (!(r->stored.known & (1u << k)))
        snprintf(v, len, "-");
    else if (k == SUM_NUM_CALLS)
        snprintf(v, len, "%.0f", x);
    else
        timefmt_ns(v, len,
                   at && ctx->prof->has_min_start ? x - (double)ctx->prof->min_start_ns : x);
}

/* A summary-only region: its stored statistics, one row per statistic
 * any rank stored and one column per rank, as many ranks as fit. */
static void draw_stored(const calls_state *s, ui_ctx *ctx, rect a)
{
    grid *g = &ctx->grid;
    int y = a.y + 1, end = a.y + a.h;
    grid_put_text(g, a.x + 1, y++, a.w - 1, "no event data for this region (summary-only)",
                  ROLE_WARNING, GA_BOLD);
    const region *cols[64];
    size_t ncols = 0, more = 0;
    uint32_t known = 0;
    int fit = (a.w - 3 - STORED_LABEL_W) / STORED_COL_W;
    for (size_t ri = 0; ri < s->nregs; ri++) {
        const region *r = s->regs[ri];
        if (r->has_event_data)
            continue;
        if ((int)ncols < fit && ncols < sizeof cols / sizeof cols[0]) {
            cols[ncols++] = r;
            known |= r->stored.known;
        } else {
            more++;
        }
    }
    if (y >= end || ncols == 0)
        return;
    int x0 = a.x + 3 + STORED_LABEL_W;
    grid_put_text(g, a.x + 3, y, STORED_LABEL_W, "stored", ROLE_DIM, 0);
    for (size_t c = 0; c < ncols; c++) {
        char head[32];
        snprintf(head, sizeof head, "rank %d", cols[c]->rank);
        calls_put_right(g, x0 + (int)c * STORED_COL_W, y, STORED_COL_W, head, ROLE_DIM, 0);
    }
    if (more) {
        char note[64];
        snprintf(note, sizeof note, "  +%zu rank%s (r: one rank)", more, more == 1 ? "" : "s");
        int x = x0 + (int)ncols * STORED_COL_W;
        grid_put_text(g, x, y, a.x + a.w - x, note, ROLE_DIM, 0);
    }
    y++;
    for (int k = 0; k < SUM_COUNT && y < end; k++) {
        if (!(known & (1u << k)))
            continue;
        grid_put_text(g, a.x + 3, y, STORED_LABEL_W, stored_labels[k], ROLE_NORMAL, 0);
        for (size_t c = 0; c < ncols; c++) {
            char v[32];
            stored_value(ctx, cols[c], k, v, sizeof v);
            calls_put_right(g, x0 + (int)c * STORED_COL_W, y, STORED_COL_W, v,
                            v[0] == '-' ? ROLE_DIM : ROLE_NORMAL, 0);
        }
        y++;
    }
}

void calls_draw_unpicked(grid *g, rect area)
{
    static const char *const msg[] = {
        "No region selected.",
        "Pick one in the tree (2) or the regions (3) and press Enter or d,",
        "or press S for the slowest call of the region with the most exclusive time.",
    };
    for (int k = 0; k < 3 && k < area.h; k++)
        grid_put_text(g, area.x + 1, area.y + k, area.w - 1, msg[k], ROLE_DIM, 0);
}

static void calls_draw(void *state, ui_ctx *ctx, rect area)
{
    calls_state *s = state;
    if (!s || area.h < 1 || area.w < 10)
        return;
    if (s->ooc) {
        calls_ooc_draw(s->ooc, ctx, area);
        return;
    }
    grid *g = &ctx->grid;
    if (ui_calls_pending(ctx)) { /* exclusive times and children are on their way */
        grid_put_text(g, area.x + 1, area.y, area.w - 1, ui_computing_text(ctx), ROLE_DIM, 0);
        return;
    }
    calls_sync(s, ctx);
    if (!s->built) {
        calls_draw_unpicked(g, area);
        return;
    }
    if (s->err[0] || !s->name) {
        grid_put_text(g, area.x + 1, area.y, area.w - 1, s->err[0] ? s->err : "out of memory",
                      ROLE_WARNING, 0);
        return;
    }
    calls_areas c = calls_split(area, s->n > 0, calls_detail_rows(s));
    draw_title(s, ctx, c.title);
    if (s->n == 0) {
        if (s->nsummary)
            draw_stored(s, ctx, area);
        else
            grid_put_text(g, area.x + 1, area.y + 1, area.w - 1, "no calls recorded", ROLE_DIM, 0);
        return;
    }
    if (c.hist.h > 0)
        calls_draw_hist(s, ctx, c.hist);
    calls_draw_list(s, ctx, c.head, c.list);
    calls_draw_detail(s, ctx, c.detail);
}

/* ------------------------------------------------------------ commands */

/* Up Down PgUp PgDn Home End, the wheel, clicks and < > I: the table moves
 * the cursor or picks the sort (each column in its natural order); the
 * view publishes the call or sorts its rows. */
static int calls_table_cmd(calls_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    table *t = &s->tb;
    t->nrows = s->n;
    t->shown = 0;
    for (int c = 0; c < CC_N; c++)
        t->shown |= calls_col_shown(s, c) ? 1u << c : 0;
    t->sort_col = (size_t)s->sort_col;
    t->sort_desc = s->desc;
    enum table_result r = table_on_cmd(t, cmd, ctx->mouse_x, ctx->mouse_y);
    if (r == TABLE_SORTED) {
        s->sort_col = (int)t->sort_col;
        s->desc = t->sort_desc;
        calls_sort(s, ctx);
    } else if (r == TABLE_MOVED) {
        calls_select_cursor(s, ctx);
    } else {
        return 0; /* a click off the rows and titles */
    }
    return VF_HANDLED | VF_REDRAW;
}

static int calls_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    calls_state *s = state;
    if (!s)
        return 0;
    if (s->ooc)
        return calls_ooc_cmd(s->ooc, ctx, cmd);
    if (cmd == CMD_SLOWEST) { /* on this view's rank when it shows one (r) */
        ui_select_slowest_on(ctx, s->one_rank && ctx->sel.region ? ctx->sel.region->rank : -1);
        calls_sync(s, ctx);
        return VF_HANDLED | VF_REDRAW;
    }
    calls_sync(s, ctx);
    if (cmd == CMD_SCOPE) {
        s->one_rank = !s->one_rank;
        calls_sync(s, ctx);
        return VF_HANDLED | VF_REDRAW;
    }
    if (s->n == 0)
        return 0;
    switch (cmd) {
    case CMD_UP:
    case CMD_DOWN:
    case CMD_PGUP:
    case CMD_PGDN:
    case CMD_HOME:
    case CMD_END:
    case CMD_WHEEL_UP:
    case CMD_WHEEL_DOWN:
    case CMD_CLICK:
    case CMD_SORT_PREV:
    case CMD_SORT_NEXT:
    case CMD_SORT_INVERT:
        return calls_table_cmd(s, ctx, cmd);
    case CMD_ENTER:
        calls_select_cursor(s, ctx);
        ui_open_view(ctx, VIEW_TIMELINE);
        break;
    default:
        return 0;
    }
    return VF_HANDLED | VF_REDRAW;
}

static void *calls_create(ui_ctx *ctx)
{
    calls_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (ctx->opt && ctx->opt->ooc && !(s->ooc = calls_ooc_new())) {
        free(s);
        return NULL;
    }
    s->sort_col = CC_DUR;
    s->desc = true;
    for (int c = 0; c < CC_N; c++) /* names (no fixed width) read A to Z */
        s->tcols[c] = (table_col){calls_cols[c].title,
                                  calls_cols[c].width,
                                  0,
                                  calls_cols[c].width == 0,
                                  false,
                                  !calls_cols[c].desc,
                                  false};
    table_init(&s->tb, s->tcols, CC_N, CC_DUR, true);
    calls_reset(s);
    return s;
}

static void calls_destroy(void *state)
{
    calls_state *s = state;
    if (!s)
        return;
    calls_reset(s);
    calls_ooc_free(s->ooc);
    free(s);
}

const view_ops calls_view = {
    .name = "calls",
    .create = calls_create,
    .destroy = calls_destroy,
    .draw = calls_draw,
    .on_cmd = calls_cmd,
    .on_resize = NULL,
};
