/* imbalance: the rank-imbalance view, one row per region name sorted by
 * excess time (imbalance.h: max / mean - 1 over the ranks that ran it),
 * and under the table the cursor region's per-rank totals as bars, the
 * ranks that did not run it listed as such, and the straggler named with
 * how much later than the mean rank it finishes.  Enter lists the
 * straggler's calls (view 4, that rank only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/imbalance.h"
#include "table.h"
#include "util/timefmt.h"
#include "ui/view.h"

enum imb_col { IC_NAME, IC_IMBAL, IC_EXCESS, IC_MAX, IC_MEAN, IC_RAN, IC_SLOW, IC_COUNT };

static const table_col imb_cols[IC_COUNT] = {
    [IC_NAME] = {"Region", 12, 0, true, true},     [IC_IMBAL] = {"Imbal", 7, 0, false, false},
    [IC_EXCESS] = {"Excess", 9, 0, false, false},  [IC_MAX] = {"Max", 9, 2, false, false},
    [IC_MEAN] = {"Mean", 9, 1, false, false},      [IC_RAN] = {"Ran", 7, 3, false, false},
    [IC_SLOW] = {"Straggler", 9, 4, false, false},
};

typedef struct imb_state {
    imb_row *rows;
    size_t n;
    bool built;
    bool pending; /* built before the statistics came: rebuilt once they are in */
    char error[SV_MSG_MAX];
    table tb;
} imb_state;

static void imb_build_rows(imb_state *s, ui_ctx *ctx)
{
    s->built = true;
    s->pending = ui_stats_pending(ctx);
    if (s->pending)
        return;
    sv_error err;
    sv_error_clear(&err);
    if (imb_build(ctx->prof, ctx->opt ? ctx->opt->filter : NULL, &s->rows, &s->n, &err))
        snprintf(s->error, sizeof s->error, "%s", err.msg);
    s->tb.nrows = s->n;
    table_goto(&s->tb, 0);
}

static void imb_ensure(imb_state *s, ui_ctx *ctx)
{
    if (s->built && s->pending && !ui_stats_pending(ctx))
        s->built = false;
    if (!s->built)
        imb_build_rows(s, ctx);
}

/* ------------------------------------------------------------ sorting */

typedef struct imb_key {
    double key;
    bool known;
    const char *name; /* sorting by name, and ties */
    size_t idx;
    bool desc;
    bool by_name;
} imb_key;

static int imb_key_cmp(const void *a, const void *b)
{
    const imb_key *x = a, *y = b;
    if (x->by_name) {
        int c = strcmp(x->name, y->name);
        return x->desc ? -c : c;
    }
    if (x->known != y->known)
        return x->known ? -1 : 1; /* unknown last either way */
    if (x->known && x->key != y->key)
        return (x->key < y->key) == x->desc ? 1 : -1;
    return strcmp(x->name, y->name);
}

static double imb_col_key(const imb_row *r, size_t col, bool *known)
{
    *known = r->known;
    switch (col) {
    case IC_IMBAL:
        return r->f.imbalance;
    case IC_EXCESS:
        return r->f.excess;
    case IC_MAX:
        return r->f.max;
    case IC_MEAN:
        return r->f.mean;
    case IC_RAN:
        *known = true;
        return (double)r->f.nran;
    default:
        return r->straggler;
    }
}

/* Rows in the table's order (ties by name). */
static void imb_sort(imb_state *s)
{
    imb_key *k = malloc((s->n ? s->n : 1) * sizeof *k);
    imb_row *tmp = malloc((s->n ? s->n : 1) * sizeof *tmp);
    if (!k || !tmp) {
        free(k);
        free(tmp);
        return; /* the order stays as it was */
    }
    bool by_name = s->tb.sort_col == IC_NAME;
    for (size_t i = 0; i < s->n; i++) {
        k[i] = (imb_key){0, true, s->rows[i].name, i, s->tb.sort_desc, by_name};
        if (!by_name)
            k[i].key = imb_col_key(&s->rows[i], s->tb.sort_col, &k[i].known);
    }
    qsort(k, s->n, sizeof *k, imb_key_cmp);
    for (size_t i = 0; i < s->n; i++)
        tmp[i] = s->rows[k[i].idx];
    memcpy(s->rows, tmp, s->n * sizeof *tmp);
    free(k);
    free(tmp);
}

/* ------------------------------------------------------------ drawing */

static void imb_cell(const imb_state *s, grid *g, const imb_row *r, size_t col, int y, int role)
{
    char b[64];
    if (col == IC_RAN) {
        size_t ran = 0;
        for (size_t k = 0; k < r->nranks; k++)
            ran += r->ranks[k].ran;
        snprintf(b, sizeof b, "%zu/%zu", ran, r->nranks);
        table_put(&s->tb, g, col, y, b, role, 0);
        return;
    }
    if (!r->known) {
        table_put(&s->tb, g, col, y, "-", role == ROLE_SELECTED ? role : ROLE_DIM, 0);
        return;
    }
    switch (col) {
    case IC_IMBAL:
        snprintf(b, sizeof b, "%.1f%%", 100.0 * r->f.imbalance);
        break;
    case IC_EXCESS:
        timefmt_ns(b, sizeof b, r->f.excess);
        break;
    case IC_MAX:
        timefmt_ns(b, sizeof b, r->f.max);
        break;
    case IC_MEAN:
        timefmt_ns(b, sizeof b, r->f.mean);
        break;
    default:
        snprintf(b, sizeof b, "r%d", r->straggler);
        break;
    }
    table_put(&s->tb, g, col, y, b, role, 0);
}

static void imb_draw_row(const imb_state *s, ui_ctx *ctx, size_t i, int y)
{
    grid *g = &ctx->grid;
    bool cur = i == s->tb.cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur)
        table_draw_cursor(&s->tb, g, y);
    const imb_row *r = &s->rows[i];
    if (table_col_shown(&s->tb, IC_NAME))
        grid_put_text_mid(g, s->tb.x[IC_NAME], y, s->tb.w[IC_NAME], r->name,
                          cur                             ? role
                          : ui_search_match(ctx, r->name) ? ROLE_SEARCH
                                                          : role,
                          0);
    for (size_t c = IC_IMBAL; c < IC_COUNT; c++)
        if (table_col_shown(&s->tb, c))
            imb_cell(s, g, r, c, y, role);
}

/* A bar of w cells for frac in [0, 1]: eighths in Unicode, '#' in ASCII. */
static void imb_bar(grid *g, int x, int y, int w, double frac, bool ascii, int role)
{
    static const uint32_t eighths[8] = {0, 0x258F, 0x258E, 0x258D, 0x258C, 0x258B, 0x258A, 0x2589};
    long units = (long)(frac * (double)w * 8 + 0.5);
    for (int i = 0; i < w; i++, units -= 8) {
        uint32_t ch = units >= 8  ? (ascii ? '#' : 0x2588)
                      : units > 0 ? (ascii ? (units >= 4 ? '#' : ' ') : eighths[units])
                                  : ' ';
        if (ch != ' ')
            grid_put_cp(g, x + i, y, ch, role, 0);
    }
}

/* "straggler rank 2: finishes 466.7 ns (+87.5%) after the mean rank". */
static void imb_straggler_line(const imb_row *r, char *b, size_t len)
{
    char t[32];
    if (!r->known) {
        snprintf(b, len, "imbalance unknown: a rank's total is not in the file");
        return;
    }
    if (r->f.nran < 2) {
        snprintf(b, len, "one rank ran it (rank %d): no imbalance", r->straggler);
        return;
    }
    timefmt_ns(t, sizeof t, r->f.excess);
    snprintf(b, len, "straggler rank %d: finishes %s (+%.1f%%) after the mean of %zu ranks",
             r->straggler, t, 100.0 * r->f.imbalance, r->f.nran);
}

/* The cursor region's per-rank bars from row y on, h rows. */
static void imb_draw_ranks(const imb_state *s, ui_ctx *ctx, rect a)
{
    if (s->tb.cursor >= s->n || a.h < 2)
        return;
    grid *g = &ctx->grid;
    const imb_row *r = &s->rows[s->tb.cursor];
    char b[256];
    imb_straggler_line(r, b, sizeof b);
    grid_put_text(g, a.x + 1, a.y, a.w - 2, b, ROLE_HEADER, GA_BOLD);
    int label = 9, num = 10, bar = a.w - label - num - 3;
    size_t fit = (size_t)(a.h - 1), shown = r->nranks < fit ? r->nranks : fit;
    if (shown < r->nranks && shown > 0)
        shown--; /* the last row says how many more */
    for (size_t k = 0; k < shown; k++) {
        const imb_rank *x = &r->ranks[k];
        int y = a.y + 1 + (int)k;
        bool slow = r->known && x->rank == r->straggler && r->f.nran > 1;
        snprintf(b, sizeof b, "rank %d", x->rank);
        grid_put_text(g, a.x + 1, y, label, b, slow ? ROLE_WARNING : ROLE_NORMAL, 0);
        if (!x->ran) {
            grid_put_text(g, a.x + 1 + label, y, a.w - label - 2, "not run", ROLE_DIM, 0);
            continue;
        }
        if (!x->known) {
            grid_put_text(g, a.x + 1 + label, y, a.w - label - 2, "total unknown", ROLE_DIM, 0);
            continue;
        }
        if (bar > 0)
            imb_bar(g, a.x + 1 + label, y, bar, r->f.max > 0 ? x->total / r->f.max : 0, ctx->ascii,
                    slow ? ROLE_WARNING : ROLE_BAR0);
        timefmt_ns(b, sizeof b, x->total);
        int bw = text_display_width(b);
        grid_put_text(g, a.x + a.w - 1 - bw, y, bw, b, ROLE_NORMAL, 0);
    }
    if (shown < r->nranks) {
        snprintf(b, sizeof b, "... %zu more ranks", r->nranks - shown);
        grid_put_text(g, a.x + 1, a.y + 1 + (int)shown, a.w - 2, b, ROLE_DIM, 0);
    }
}

static void imb_draw(void *state, ui_ctx *ctx, rect area)
{
    imb_state *s = state;
    if (!s || area.h < 4 || area.w < 20)
        return;
    imb_ensure(s, ctx);
    grid *g = &ctx->grid;
    if (s->pending) {
        grid_put_text(g, area.x + 1, area.y + 1, area.w - 2, ui_stats_text(ctx), ROLE_DIM, 0);
        return;
    }
    if (s->error[0]) {
        grid_put_text(g, area.x + 1, area.y + 1, area.w - 2, s->error, ROLE_WARNING, 0);
        return;
    }
    char line[160];
    size_t nr = s->n ? s->rows[0].nranks : 0;
    snprintf(line, sizeof line, " %zu region%s over %zu rank%s  sort: %s%s", s->n,
             s->n == 1 ? "" : "s", nr, nr == 1 ? "" : "s", imb_cols[s->tb.sort_col].title,
             s->tb.sort_desc ? " desc" : " asc");
    grid_put_text(g, area.x, area.y, area.w, line, ROLE_NORMAL, GA_BOLD);
    /* The table takes what the bars leave: every rank's bar fits when it can. */
    int want_bars = (int)nr + 1, rest = area.h - 2;
    int bars = want_bars < rest / 2 ? want_bars : rest / 2;
    if ((int)s->n + 1 < rest - bars)
        bars = rest - (int)s->n - 1;
    rect body = {area.x, area.y + 1, area.w, area.h - 2 - bars};
    table_layout(&s->tb, g, body);
    table_scroll(&s->tb);
    table_draw_header(&s->tb, g, body.y);
    for (size_t i = s->tb.top; i < s->n; i++) {
        int y = table_row_y(&s->tb, i);
        if (y < 0)
            break;
        imb_draw_row(s, ctx, i, y);
    }
    if (s->n == 0)
        grid_put_text(g, area.x + 1, body.y + 1, area.w - 2, "No regions", ROLE_DIM, 0);
    rect ranks = {area.x, body.y + body.h, area.w, bars};
    imb_draw_ranks(s, ctx, ranks);
    grid_put_text(g, area.x + 1, area.y + area.h - 1, area.w - 2,
                  "imbalance = max/mean - 1 over the ranks that ran it; Enter: straggler's calls",
                  ROLE_DIM, 0);
}

/* ----------------------------------------------------------- commands */

static void imb_select(imb_state *s, ui_ctx *ctx)
{
    if (s->tb.cursor >= s->n)
        return;
    const imb_row *r = &s->rows[s->tb.cursor];
    for (size_t k = 0; k < r->nranks; k++)
        if (r->ranks[k].r && (r->ranks[k].rank == r->straggler || r->straggler < 0)) {
            ui_select_region(ctx, (region *)r->ranks[k].r);
            return;
        }
}

/* Another view selected a region: its row. */
static void imb_follow(imb_state *s, const ui_ctx *ctx)
{
    const region *sel = ctx->sel.region;
    if (!sel || (s->tb.cursor < s->n && strcmp(s->rows[s->tb.cursor].name, sel->name) == 0))
        return;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->rows[i].name, sel->name) == 0) {
            table_goto(&s->tb, i);
            return;
        }
}

static int imb_search(imb_state *s, ui_ctx *ctx, int dir)
{
    for (size_t step = 1; step <= s->n; step++) {
        size_t k = dir > 0 ? (s->tb.cursor + step) % s->n : (s->tb.cursor + s->n - step) % s->n;
        if (ui_search_match(ctx, s->rows[k].name)) {
            table_goto(&s->tb, k);
            imb_select(s, ctx);
            return VF_HANDLED | VF_REDRAW;
        }
    }
    ui_set_status(ctx, "No region matches /%s/", ctx->search_text);
    return VF_HANDLED | VF_REDRAW;
}

static int imb_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    imb_state *s = state;
    if (!s)
        return 0;
    imb_ensure(s, ctx);
    if (s->pending || s->error[0] || s->n == 0)
        return 0;
    switch (cmd) {
    case CMD_ENTER:
    case CMD_DRILL: {
        const imb_row *r = &s->rows[s->tb.cursor];
        if (r->straggler < 0) {
            ui_set_status(ctx, "No straggler: a rank's total is not known");
            return VF_HANDLED | VF_REDRAW;
        }
        imb_select(s, ctx);
        ctx->drill_scope = UI_DRILL_RANK;
        ui_open_view(ctx, VIEW_CALLS);
        return VF_HANDLED | VF_REDRAW;
    }
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        if (!ctx->has_search)
            return 0;
        return imb_search(s, ctx, cmd == CMD_SEARCH_NEXT ? 1 : -1);
    default: {
        enum table_result r = table_on_cmd(&s->tb, cmd, ctx->mouse_x, ctx->mouse_y);
        if (r == TABLE_IGNORED)
            return 0;
        if (r == TABLE_SORTED)
            imb_sort(s);
        imb_select(s, ctx);
        return VF_HANDLED | VF_REDRAW;
    }
    }
}

static void *imb_create(ui_ctx *ctx)
{
    (void)ctx;
    imb_state *s = calloc(1, sizeof *s);
    if (s)
        table_init(&s->tb, imb_cols, IC_COUNT, IC_EXCESS, true);
    return s;
}

static void imb_destroy(void *state)
{
    imb_state *s = state;
    if (!s)
        return;
    imb_free(s->rows, s->n);
    free(s);
}

static void imb_draw_following(void *state, ui_ctx *ctx, rect area)
{
    imb_state *s = state;
    if (s && s->built && !s->pending)
        imb_follow(s, ctx);
    imb_draw(state, ctx, area);
}

const view_ops imbalance_view = {
    .name = "imbalance",
    .create = imb_create,
    .destroy = imb_destroy,
    .draw = imb_draw_following,
    .on_cmd = imb_cmd,
    .on_resize = NULL,
};
