/* calls_table: the calls view's layout, its table of calls and the
 * histogram of their durations above it.  The histogram is rebuilt only
 * when the width changes. */
#include "calls_internal.h"

#include <stdio.h>
#include <string.h>

#include "util/timefmt.h"

/* ------------------------------------------------------------ layout */

static int hist_bars_for(int h)
{
    return h >= 44 ? 6 : h >= 30 ? 4 : h >= 20 ? 3 : h >= 16 ? 2 : 0;
}

/* Title, histogram, table head, rows, then the selected call's details
 * (as many rows as they need, up to a third of a tall view). */
calls_areas calls_split(rect a, bool with_hist, int detail_need)
{
    calls_areas c;
    int bars = with_hist ? hist_bars_for(a.h) : 0;
    int hist_h = bars ? bars + 2 : 0;
    int detail_h = a.h >= 30 ? a.h / 3 : a.h >= 20 ? 7 : a.h >= 12 ? 4 : a.h >= 8 ? 3 : 0;
    if (detail_h > detail_need)
        detail_h = detail_need;
    c.title = (rect){a.x, a.y, a.w, 1};
    c.hist = (rect){a.x, a.y + 1, a.w, hist_h};
    c.head = (rect){a.x, a.y + 1 + hist_h, a.w, 1};
    int list_h = a.h - 2 - hist_h - detail_h;
    if (list_h < 1) {
        detail_h += list_h - 1;
        list_h = 1;
    }
    c.list = (rect){a.x, c.head.y + 1, a.w, list_h};
    c.detail = (rect){a.x, c.list.y + list_h, a.w, detail_h > 0 ? detail_h : 0};
    return c;
}

bool calls_col_shown(const calls_state *s, int col)
{
    return s->has[col];
}

/* Widths of the thread and task columns in rest columns: each as wide as
 * its widest name (at most NAME_MAX); when both do not fit, a column whose
 * names fit in half keeps its width and the other takes what is left. */
static void name_widths(const calls_state *s, int rest, int w[2])
{
    enum { NAME_MAX = 32 };
    int want[2];
    for (int k = 0; k < 2; k++)
        want[k] = s->name_w[k] > 0 && s->name_w[k] < NAME_MAX ? s->name_w[k] : NAME_MAX;
    int half = rest / 2;
    if (want[0] + want[1] <= rest) {
        w[0] = want[0];
        w[1] = want[1];
    } else if (want[0] <= half || want[1] <= half) {
        int k = want[0] <= half ? 0 : 1;
        w[k] = want[k];
        w[1 - k] = rest - want[k] < NAME_MAX ? rest - want[k] : NAME_MAX;
    } else {
        w[0] = w[1] = half;
    }
}

/* Fixed-width columns from the left; thread and task share the rest. */
static void calls_columns(const calls_state *s, int width, calls_layout *L)
{
    int x = 2;
    L->n = 0;
    for (int c = 0; c < CC_THREAD; c++) {
        if (!calls_col_shown(s, c))
            continue;
        L->col[L->n] = c;
        L->x[L->n] = x;
        L->w[L->n++] = calls_cols[c].width;
        x += calls_cols[c].width;
    }
    int names = calls_col_shown(s, CC_THREAD) + calls_col_shown(s, CC_TASK);
    int rest = width - x - 1 - 2 * names;
    if (names == 0 || rest < 4 * names)
        return;
    int w[2] = {rest > 32 ? 32 : rest, rest > 32 ? 32 : rest};
    if (names == 2)
        name_widths(s, rest, w);
    for (int c = CC_THREAD; c <= CC_TASK; c++) {
        if (!calls_col_shown(s, c))
            continue;
        x += 2;
        L->col[L->n] = c;
        L->x[L->n] = x;
        L->w[L->n] = w[c - CC_THREAD];
        x += L->w[L->n++];
    }
}

/* ------------------------------------------------------------ drawing */

void calls_put_right(grid *g, int x, int y, int w, const char *text, int role, int attr)
{
    int tw = grid_text_width(g, text);
    grid_put_text(g, tw < w ? x + w - tw : x, y, w, text, role, attr);
}

static void draw_table_head(const calls_state *s, ui_ctx *ctx, rect a, const calls_layout *L)
{
    grid *g = &ctx->grid;
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    grid_fill(g, a, ' ', ROLE_HEADER, 0);
    for (int k = 0; k < L->n; k++) {
        int c = L->col[k];
        char t[32], arrow[4] = "";
        if (c == s->sort_col)
            arrow[utf8_encode(s->desc ? gl->sort_down : gl->sort_up, arrow)] = '\0';
        snprintf(t, sizeof t, "%s%s", arrow, calls_cols[c].title);
        int attr = c == s->sort_col ? GA_BOLD : 0;
        if (calls_cols[c].width)
            calls_put_right(g, a.x + L->x[k], a.y, L->w[k], t, ROLE_HEADER, attr);
        else
            grid_put_text(g, a.x + L->x[k], a.y, L->w[k], t, ROLE_HEADER, attr);
    }
}

static void draw_row(const calls_state *s, ui_ctx *ctx, size_t j, int y, rect a,
                     const calls_layout *L)
{
    grid *g = &ctx->grid;
    bool cur = j == s->tb.cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur) {
        grid_fill(g, (rect){a.x, y, a.w, 1}, ' ', role, 0);
        grid_put_cp(g, a.x, y, theme_glyphs_get(g->ascii)->marker, role, 0);
    }
    for (int k = 0; k < L->n; k++) {
        char buf[64];
        int c = L->col[k];
        const char *t = calls_cell_text(s, ctx, &s->rows[j], c, buf, sizeof buf);
        if (calls_cols[c].width)
            calls_put_right(g, a.x + L->x[k], y, L->w[k], t, role, 0);
        else /* a name: cut in the middle, keeping its distinguishing tail */
            grid_put_text_mid(g, a.x + L->x[k], y, L->w[k], t, role, 0);
    }
}

/* The rows on screen, for the table's paging, scrolling and clicks. */
static void calls_scroll(calls_state *s, rect list)
{
    s->tb.page = list.h > 0 ? list.h : 1;
    s->tb.body_y = list.y;
    s->tb.nrows = s->n;
    table_goto(&s->tb, s->tb.cursor);
}

void calls_draw_list(calls_state *s, ui_ctx *ctx, rect head, rect list)
{
    calls_layout L;
    calls_columns(s, list.w, &L);
    draw_table_head(s, ctx, head, &L);
    calls_scroll(s, list);
    /* where the columns are, for a click on a title (table.c sorts by it) */
    memset(s->tb.w, 0, sizeof s->tb.w);
    for (int k = 0; k < L.n; k++) {
        s->tb.x[L.col[k]] = list.x + L.x[k];
        s->tb.w[L.col[k]] = L.w[k];
    }
    for (int r = 0; r < list.h && s->tb.top + (size_t)r < s->n; r++)
        draw_row(s, ctx, s->tb.top + (size_t)r, list.y + r, list, &L);
}

/* --- histogram --- */

static void hist_stats_line(const calls_state *s, ui_ctx *ctx, rect a)
{
    const histogram *h = &s->hist;
    char lo[32], hi[32], p[HIST_NMARKS][32];
    timefmt_ns(lo, sizeof lo, (double)h->lo);
    timefmt_ns(hi, sizeof hi, (double)h->hi);
    for (int m = 0; m < HIST_NMARKS; m++)
        timefmt_ns(p[m], sizeof p[m], h->pct[m]);
    char line[256];
    snprintf(line, sizeof line, "durations: min %s  p50 %s  p95 %s  p99 %s  max %s%s", lo, p[0],
             p[1], p[2], hi, h->log ? "  (log bins)" : "");
    grid_put_text(&ctx->grid, a.x + 1, a.y, a.w - 1, line, ROLE_DIM, 0);
}

/* The column of a value in a chart w columns wide. */
static int hist_col(const histogram *h, double v, int w)
{
    int c = (int)(histogram_pos(h, v) * (double)w);
    return c >= w ? w - 1 : c;
}

static bool is_marked(const histogram *h, size_t b)
{
    for (int m = 0; m < HIST_NMARKS; m++)
        if (h->mark[m] == b)
            return true;
    return false;
}

/* The axis under the bars: a tick under each percentile's bin, and one
 * label per cluster of close ticks ("p95/99"), right of the cluster or,
 * at the right edge, left of it. */
static void hist_marks(const calls_state *s, ui_ctx *ctx, int x0, int y, int w)
{
    grid *g = &ctx->grid;
    const histogram *h = &s->hist;
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    for (int x = 0; x < w; x++)
        grid_put_cp(g, x0 + x, y, gl->hline, ROLE_DIM, 0);
    static const char *const names[HIST_NMARKS] = {"50", "95", "99"};
    int free_from = 0;
    int col[HIST_NMARKS];
    for (int m = 0; m < HIST_NMARKS; m++)
        col[m] = hist_col(h, h->pct[m], w);
    for (int m = 0; m < HIST_NMARKS;) {
        int first = col[m], last = first, k = m;
        char label[24] = "p";
        for (; k < HIST_NMARKS && col[k] - last < 6; k++) {
            last = col[k];
            snprintf(label + strlen(label), sizeof label - strlen(label), "%s%s", k > m ? "/" : "",
                     names[k]);
        }
        int lw = (int)strlen(label);
        int lx = last + 1 + lw <= w ? last + 1 : first - lw;
        if (lx >= free_from && lx >= 0) {
            grid_put_text(g, x0 + lx, y, lw, label, ROLE_WARNING, 0);
            free_from = lx + lw + 1;
        }
        for (int t = m; t < k; t++)
            grid_put_cp(g, x0 + col[t], y, gl->tick, ROLE_WARNING, GA_BOLD);
        m = k;
    }
}

/* Bars of bins_for(n) bins spread over the width, the bins holding a
 * percentile in the warning colour, and the percentile axis below. */
void calls_draw_hist(calls_state *s, ui_ctx *ctx, rect a)
{
    int w = a.w - 2, bars = a.h - 2;
    if (w < 4 || bars < 1 || s->n == 0)
        return;
    if (s->hist_w != w) {
        histogram_free(&s->hist);
        size_t nb = histogram_nbins_for(s->n, (size_t)w);
        s->hist_w = histogram_build(&s->hist, s->durs, s->n, nb, NULL) == SV_OK ? w : 0;
        if (!s->hist_w)
            return;
    }
    grid *g = &ctx->grid;
    const histogram *h = &s->hist;
    uint32_t bar = theme_glyphs_get(g->ascii)->bar;
    /* Region roles colour a cell's background (for text on bars): a block
     * glyph needs a foreground colour, and must stay visible in mono. */
    int role = ROLE_HEADER;
    hist_stats_line(s, ctx, a);
    /* Bins three columns wide or more keep a gap between them. */
    bool gaps = (size_t)w >= 3 * h->nbins;
    for (int x = 0; x < w; x++) {
        size_t b = (size_t)x * h->nbins / (size_t)w;
        if (gaps && (size_t)(x + 1) * h->nbins / (size_t)w != b)
            continue;
        int hgt = histogram_bar_height(h, b, bars);
        int r = is_marked(h, b) ? ROLE_WARNING : role;
        for (int k = 0; k < hgt; k++)
            grid_put_cp(g, a.x + 1 + x, a.y + bars - k, bar, r, 0);
    }
    hist_marks(s, ctx, a.x + 1, a.y + a.h - 1, w);
}
