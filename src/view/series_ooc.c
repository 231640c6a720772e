/* series_ooc: duration over time out of core (series_ooc.h). */
#include "series_ooc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tbins.h"
#include "util/checked.h"
#include "util/text.h"
#include "util/timefmt.h"

#define SERO_LABEL_W 10
#define SERO_SLOTS 16
static const char sero_ascii_marks[SERO_SLOTS + 1] = "*o+x#@%&=~^$?!:;";

typedef struct sero_row {
    int rank;
    const tbins_row *row;
    const region *r;
} sero_row;

struct sero {
    sero_row *rows;
    size_t nrows;
    char error[SV_MSG_MAX];
    uint32_t lo, m; /* the series' bins of the grid: lo .. lo + m - 1 */
    tbin *bins;     /* m, every row's merged */
    tbin all;       /* every call */
    int64_t first_s, first_d;
    int first_rank;
    bool has_pct; /* the region's own percentiles (one rank's) */
    double p50, p95, p99;
    size_t per; /* bins a dot column */
    int dots_x, plot_w;
    size_t cursor; /* cell column */
};

sero *sero_new(void)
{
    return calloc(1, sizeof(sero));
}

void sero_free(sero *s)
{
    if (!s)
        return;
    free(s->rows);
    free(s->bins);
    free(s);
}

/* ------------------------------------------------------------ the model */

static size_t sero_region_index(const rank_data *rk, const region *r)
{
    for (size_t j = 0; j < rk->nregions; j++)
        if (rk->regions[j] == r)
            return j;
    return SIZE_MAX;
}

/* The rows of region name on the ranks asked for; false with error set. */
static bool sero_collect(sero *s, ui_ctx *ctx, const char *name, int rank)
{
    const profile *p = ctx->prof;
    const time_bins *tb = p->tbins;
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    char shown[160];
    text_escape_buf(shown, sizeof shown, name);
    if (!tb || !tb->available) {
        snprintf(s->error, sizeof s->error, "not available out of core: no time bins: %s",
                 tb ? tb->why : "none were computed");
        return false;
    }
    free(s->rows);
    s->rows = calloc(p->nranks + 1, sizeof *s->rows);
    s->nrows = 0;
    size_t found = 0;
    for (size_t k = 0; s->rows && k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (!filter_match_rank(f, rk->rank) || (rank >= 0 && rk->rank != rank))
            continue;
        const region *r = rank_region(rk, name);
        if (!r || !filter_match(f, r))
            continue;
        found++;
        size_t j = sero_region_index(rk, r);
        const tbins_row *row = j < UINT32_MAX ? time_bins_row(tb, k, (uint32_t)j) : NULL;
        if (row)
            s->rows[s->nrows++] = (sero_row){rk->rank, row, r};
    }
    if (!s->rows)
        snprintf(s->error, sizeof s->error, "out of memory (series)");
    else if (!found && rank >= 0)
        snprintf(s->error, sizeof s->error, "no region %s on rank %d", shown, rank);
    else if (!found)
        snprintf(s->error, sizeof s->error, "no region %s among the selected ranks", shown);
    else if (!s->nrows)
        snprintf(s->error, sizeof s->error, "region %s has no recorded calls (summary only)",
                 shown);
    return s->rows && s->nrows;
}

/* Every row's bins merged over the series' span, its first call, and the
 * percentiles when one rank's region holds the whole series. */
static bool sero_merge(sero *s, ui_ctx *ctx)
{
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < s->nrows; i++) {
        const tbins_row *w = s->rows[i].row;
        lo = w->lo < lo ? w->lo : lo;
        hi = w->lo + w->nb > hi ? w->lo + w->nb : hi;
    }
    s->lo = lo;
    s->m = hi - lo;
    free(s->bins);
    if (!(s->bins = calloc(s->m, sizeof *s->bins))) {
        snprintf(s->error, sizeof s->error, "out of memory (series)");
        return false;
    }
    memset(&s->all, 0, sizeof s->all);
    for (size_t i = 0; i < s->nrows; i++) {
        const tbins_row *w = s->rows[i].row;
        for (uint32_t j = 0; j < w->nb; j++) {
            tbin_merge(&s->bins[w->lo + j - lo], &w->v[j]);
            tbin_merge(&s->all, &w->v[j]);
        }
        /* ranks ascend: a tie on the start goes to the lower rank */
        if (i == 0 || w->first_s < s->first_s) {
            s->first_s = w->first_s;
            s->first_d = w->first_d;
            s->first_rank = s->rows[i].rank;
        }
    }
    const region *r = s->rows[0].r;
    s->has_pct =
        s->nrows == 1 && !ui_stats_pending(ctx) && (uint64_t)r->st.num_calls == s->rows[0].row->n;
    s->p50 = r->st.p50_ns;
    s->p95 = r->st.p95_ns;
    s->p99 = r->st.p99_ns;
    return true;
}

/* Bins [*b0, *b1) of the series (relative to lo) in dot column d. */
static void sero_dot_bins(const sero *s, size_t d, size_t *b0, size_t *b1)
{
    *b0 = d * s->per;
    *b1 = *b0 + s->per;
    *b0 = *b0 < s->m ? *b0 : s->m;
    *b1 = *b1 < s->m ? *b1 : s->m;
}

/* The calls of bins [b0, b1) of one row (NULL: the merged bins). */
static tbin sero_span(const sero *s, const tbins_row *w, size_t b0, size_t b1)
{
    tbin t = {0};
    for (size_t b = b0; b < b1; b++) {
        if (!w) {
            tbin_merge(&t, &s->bins[b]);
            continue;
        }
        size_t g = s->lo + b;
        if (g >= w->lo && g < (size_t)w->lo + w->nb)
            tbin_merge(&t, &w->v[g - w->lo]);
    }
    return t;
}

/* ------------------------------------------------------------ drawing */

typedef struct sero_scale {
    double lo, hi;
    bool log;
    int rows; /* dot rows */
} sero_scale;

static double sero_unit(const sero_scale *y, double ns)
{
    return y->log ? log10(ns > 1 ? ns : 1) : ns;
}

static int sero_dot_row(const sero_scale *y, double ns)
{
    double span = y->hi - y->lo, f = span > 0 ? (sero_unit(y, ns) - y->lo) / span : 0.5;
    int r = (int)(f * (y->rows - 1) + 0.5);
    return r < 0 ? 0 : r >= y->rows ? y->rows - 1 : r;
}

static void sero_put_dot(uint8_t *cells, rect p, int dots_x, int dx, int dy)
{
    static const uint8_t bit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    int cx = dx / dots_x, cy = p.h - 1 - dy / 4;
    if (cx >= 0 && cx < p.w && cy >= 0 && cy < p.h)
        cells[cy * p.w + cx] |= dots_x == 2 ? bit[dx % 2][3 - dy % 4] : 0x01;
}

/* One row's (or the merged) min, mean and max per dot column; cnt counts
 * the dots a slot put in each cell. */
static void sero_dots(const sero *s, const tbins_row *w, rect p, const sero_scale *y,
                      uint8_t *cells, uint32_t *cnt, size_t slot)
{
    size_t ndots = (size_t)p.w * (size_t)s->dots_x;
    for (size_t d = 0; d < ndots; d++) {
        size_t b0, b1;
        sero_dot_bins(s, d, &b0, &b1);
        if (b0 >= b1)
            break;
        tbin t = sero_span(s, w, b0, b1);
        if (!t.n)
            continue;
        double v[3] = {(double)t.min, (double)t.sum / (double)t.n, (double)t.max};
        for (int k = 0; k < 3; k++) {
            int dy = sero_dot_row(y, v[k]);
            sero_put_dot(cells, p, s->dots_x, (int)d, s->dots_x == 2 ? dy : dy - dy % 4);
            size_t at = (size_t)(p.h - 1 - dy / 4) * (size_t)p.w + d / (size_t)s->dots_x;
            if (cnt)
                cnt[at * SERO_SLOTS + slot % SERO_SLOTS]++;
        }
    }
}

static void sero_lines(const sero *s, grid *g, rect p, const sero_scale *y, const uint8_t *cells,
                       bool ascii)
{
    if (!s->has_pct)
        return;
    const double at[2] = {s->p95, s->p50};
    const uint32_t glyph[2] = {ascii ? '.' : 0x2508, ascii ? '-' : 0x2500};
    for (int k = 0; k < 2; k++) {
        int cy = p.h - 1 - sero_dot_row(y, at[k]) / 4;
        for (int x = 0; x < p.w; x++)
            if (!cells[cy * p.w + x])
                grid_put_cp(g, p.x + x, p.y + cy, glyph[k], ROLE_DIM, 0);
    }
}

static void sero_plot(sero *s, ui_ctx *ctx, rect p, bool log)
{
    sero_scale y = {0, 0, log, p.h * 4};
    y.hi = sero_unit(&y, (double)s->all.max);
    y.lo = log ? sero_unit(&y, (double)s->all.min) : 0;
    if (y.hi <= y.lo)
        y.hi = y.lo + 1;
    size_t ncell = (size_t)p.w * (size_t)p.h;
    bool ranks = s->nrows > 1;
    uint8_t *cells = calloc(ncell, 1);
    uint32_t *cnt = ranks ? calloc(ncell * SERO_SLOTS, sizeof *cnt) : NULL;
    if (cells && (!ranks || cnt)) {
        if (ranks)
            for (size_t i = 0; i < s->nrows; i++)
                sero_dots(s, s->rows[i].row, p, &y, cells, cnt, i);
        else
            sero_dots(s, NULL, p, &y, cells, NULL, 0);
        sero_lines(s, &ctx->grid, p, &y, cells, ctx->ascii);
        for (size_t c = 0; c < ncell; c++) {
            if (!cells[c])
                continue;
            size_t best = 0;
            for (size_t k = 1; ranks && k < SERO_SLOTS; k++)
                best = cnt[c * SERO_SLOTS + k] > cnt[c * SERO_SLOTS + best] ? k : best;
            uint32_t ch =
                ctx->ascii ? (uint32_t)(ranks ? sero_ascii_marks[best] : '*') : 0x2800u + cells[c];
            grid_put_cp(&ctx->grid, p.x + (int)(c % (size_t)p.w), p.y + (int)(c / (size_t)p.w), ch,
                        ROLE_BAR0 + (int)best, 0);
        }
    }
    free(cells);
    free(cnt);
    if (s->cursor < (size_t)p.w)
        grid_put_cp(&ctx->grid, p.x + (int)s->cursor, p.y + p.h, ctx->ascii ? '^' : 0x25B2,
                    ROLE_SELECTED, 0);
}

/* Ns since the profile's first start of grid bin b's left edge. */
static double sero_edge(const ui_ctx *ctx, uint64_t b)
{
    const profile *p = ctx->prof;
    const time_bins *tb = p->tbins;
    int64_t t = tb->t0 + (int64_t)b * tb->width;
    return (double)(t - (p->has_min_start ? p->min_start_ns : 0));
}

static void sero_axes(const sero *s, ui_ctx *ctx, rect p, bool log)
{
    grid *g = &ctx->grid;
    char b[32], e[32];
    timefmt_ns(b, sizeof b, (double)s->all.max);
    grid_put_text(g, p.x - SERO_LABEL_W, p.y, SERO_LABEL_W - 1, b, ROLE_DIM, 0);
    timefmt_ns(b, sizeof b, log ? (double)s->all.min : 0.0);
    grid_put_text(g, p.x - SERO_LABEL_W, p.y + p.h - 1, SERO_LABEL_W - 1, b, ROLE_DIM, 0);
    for (int r = 0; r < p.h; r++)
        grid_put_cp(g, p.x - 1, p.y + r, g->ascii ? '|' : 0x2502, ROLE_DIM, 0);
    size_t used = (s->m + s->per - 1) / s->per; /* dot columns drawn */
    int cells = (int)((used + (size_t)s->dots_x - 1) / (size_t)s->dots_x);
    timefmt_ns(b, sizeof b, sero_edge(ctx, s->lo));
    timefmt_ns(e, sizeof e, sero_edge(ctx, s->lo + s->m));
    int y2 = p.y + p.h + 1, ew = text_display_width(e);
    grid_put_text(g, p.x, y2, p.w / 2, b, ROLE_DIM, 0);
    int ex = p.x + (cells < p.w ? cells : p.w) - ew;
    ex = ex > p.x + text_display_width(b) + 1 ? ex : p.x + text_display_width(b) + 1;
    grid_put_text(g, ex, y2, ew, e, ROLE_DIM, 0);
    const char *what = "x: start time";
    if (ex - p.x > text_display_width(b) + 16)
        grid_put_text(g, p.x + text_display_width(b) + 2, y2, 13, what, ROLE_DIM, 0);
}

static void sero_header(const sero *s, ui_ctx *ctx, rect a, const char *name, int rank, bool log)
{
    grid *g = &ctx->grid;
    char line[512], x[32], y[32], z[32];
    int used = grid_put_text_mid(g, a.x + 1, a.y, a.w / 3, name, ROLE_NORMAL, GA_BOLD);
    char rk[32];
    if (rank >= 0)
        snprintf(rk, sizeof rk, "rank %d", rank);
    else
        snprintf(rk, sizeof rk, "all ranks");
    if (s->has_pct) {
        timefmt_ns(x, sizeof x, s->p50);
        timefmt_ns(y, sizeof y, s->p95);
        snprintf(line, sizeof line, "  %s, %llu calls  p50 %s  p95 %s  y: %s", rk,
                 (unsigned long long)s->all.n, x, y, log ? "log" : "linear");
    } else {
        snprintf(line, sizeof line, "  %s, %llu calls  y: %s", rk, (unsigned long long)s->all.n,
                 log ? "log" : "linear");
    }
    grid_put_text(g, a.x + 1 + used, a.y, a.w - used - 2, line, ROLE_NORMAL, 0);
    /* warm-up: the first call against the mean of the others (exact) */
    uint64_t n = s->all.n;
    if (n >= 2 && s->all.sum < INT64_MAX) {
        double rest = (double)(s->all.sum - s->first_d) / (double)(n - 1);
        timefmt_ns(x, sizeof x, (double)s->first_d);
        timefmt_ns(y, sizeof y, rest);
        snprintf(line, sizeof line, " warm-up: first call %s, %.2fx the mean of the rest (%s)", x,
                 rest > 0 ? (double)s->first_d / rest : 0.0, y);
    } else {
        snprintf(line, sizeof line, " warm-up: %s",
                 n < 2 ? "one call, nothing to compare" : "the durations' sum overflows");
    }
    grid_put_text(g, a.x, a.y + 1, a.w, line, ROLE_NORMAL, 0);
    /* drift: the mean of the calls in its last tenth of bins against its first */
    size_t k = s->m / 10;
    tbin f = sero_span(s, NULL, 0, k), l = sero_span(s, NULL, s->m - k, s->m);
    if (k && f.n && l.n && f.sum > 0 && f.sum < INT64_MAX && l.sum < INT64_MAX) {
        double mf = (double)f.sum / (double)f.n, ml = (double)l.sum / (double)l.n;
        snprintf(line, sizeof line, " drift: %+.1f%% mean of its last %zu of %u bins vs first %zu",
                 100.0 * (ml - mf) / mf, k, s->m, k);
    } else {
        snprintf(line, sizeof line, " drift: %s",
                 k ? "no calls (or no time) in its first or last tenth of bins"
                   : "its calls fall in fewer than 10 bins: no tenths");
    }
    grid_put_text(g, a.x, a.y + 2, a.w, line, ROLE_NORMAL, 0);
    if (s->has_pct) { /* bins wholly above the p99, and those that reach above it */
        uint64_t lo = 0, hi = 0;
        for (uint32_t b = 0; b < s->m; b++) {
            lo += (double)s->bins[b].min > s->p99 ? s->bins[b].n : 0;
            hi += (double)s->bins[b].max > s->p99 ? s->bins[b].n : 0;
        }
        timefmt_ns(z, sizeof z, s->p99);
        if (lo == hi)
            snprintf(line, sizeof line, " outliers: %llu above p99 %s", (unsigned long long)lo, z);
        else
            snprintf(line, sizeof line,
                     " outliers above p99 %s: not exact from bins (%llu to %llu calls)", z,
                     (unsigned long long)lo, (unsigned long long)hi);
    } else {
        snprintf(line, sizeof line, " p50, p95, outliers: %s",
                 ui_stats_pending(ctx) ? "the statistics are still coming"
                                       : "percentiles of one rank only (r: a rank)");
    }
    grid_put_text(g, a.x, a.y + 3, a.w, line, ROLE_DIM, 0);
}

/* The cursor's cell column: its bins (relative to lo). */
static void sero_cell_bins(const sero *s, size_t col, size_t *b0, size_t *b1)
{
    size_t e;
    sero_dot_bins(s, col * (size_t)s->dots_x, b0, &e);
    sero_dot_bins(s, col * (size_t)s->dots_x + (size_t)s->dots_x - 1, &e, b1);
}

static void sero_footer(const sero *s, ui_ctx *ctx, rect a, int y)
{
    grid *g = &ctx->grid;
    size_t b0, b1;
    sero_cell_bins(s, s->cursor, &b0, &b1);
    tbin t = sero_span(s, NULL, b0, b1);
    char line[256], x[32], z[32], m[32];
    if (t.n) {
        timefmt_ns(x, sizeof x, (double)t.min);
        timefmt_ns(z, sizeof z, (double)t.max);
        timefmt_ns(m, sizeof m, (double)t.sum / (double)t.n);
        snprintf(line, sizeof line, " column %zu: %llu call%s, %s .. %s, mean %s; Enter: slowest",
                 s->cursor + 1, (unsigned long long)t.n, t.n == 1 ? "" : "s", x, z, m);
    } else {
        snprintf(line, sizeof line, " column %zu: no calls", s->cursor + 1);
    }
    grid_put_text(g, a.x, y, a.w, line, ROLE_NORMAL, 0);
    timefmt_ns(x, sizeof x, (double)(ctx->prof->tbins->width * (int64_t)s->per));
    snprintf(line, sizeof line, " %s: min, mean, max per %s column (no median)%s",
             ctx->ascii ? "marks" : "dots", x,
             s->has_pct
                 ? (ctx->ascii ? "  -: p50  .: p95" : "  \xe2\x94\x80: p50  \xe2\x94\x88: p95")
                 : "");
    grid_put_text(g, a.x, y + 1, a.w, line, ROLE_DIM, 0);
    if (s->nrows < 2)
        return;
    int xx = a.x + grid_put_text(g, a.x, y + 2, a.w, " ranks:", ROLE_DIM, 0);
    for (size_t k = 0; k < s->nrows && k < SERO_SLOTS; k++) {
        char b[32];
        snprintf(b, sizeof b, " %d ", s->rows[k].rank);
        int w = text_display_width(b);
        if (xx + w + 2 > a.x + a.w)
            return;
        xx += grid_put_text(g, xx, y + 2, w, b, ROLE_DIM, 0);
        grid_put_cp(g, xx++, y + 2, ctx->ascii ? (uint32_t)sero_ascii_marks[k] : 0x28FF,
                    ROLE_BAR0 + (int)k, 0);
    }
}

void sero_draw(sero *s, ui_ctx *ctx, rect a, const char *name, int rank, bool log)
{
    grid *g = &ctx->grid;
    s->error[0] = '\0';
    if (!sero_collect(s, ctx, name, rank) || !sero_merge(s, ctx)) {
        s->nrows = 0;
        grid_put_text(g, a.x + 1, a.y + 1, a.w - 2, s->error, ROLE_WARNING, 0);
        return;
    }
    int ranks = s->nrows > 1;
    rect p = {a.x + SERO_LABEL_W, a.y + 4, a.w - SERO_LABEL_W - 1, a.h - 4 - 4 - ranks};
    if (p.h < 2 || p.w < 4)
        return;
    s->dots_x = ctx->ascii ? 1 : 2;
    s->plot_w = p.w;
    size_t ndots = (size_t)p.w * (size_t)s->dots_x;
    s->per = (s->m + ndots - 1) / ndots;
    size_t cells = ((s->m + s->per - 1) / s->per + (size_t)s->dots_x - 1) / (size_t)s->dots_x;
    if (s->cursor >= cells)
        s->cursor = cells - 1;
    sero_header(s, ctx, a, name, rank, log);
    sero_plot(s, ctx, p, log);
    sero_axes(s, ctx, p, log);
    sero_footer(s, ctx, a, p.y + p.h + 2);
}

/* ------------------------------------------------------------ keys */

/* The slowest call of the cursor's column, said in the status line: its
 * rank, position in the region's row, start and duration (exact: each
 * bin keeps its longest call's), and shown in the timeline (the bin keeps
 * its lane and depth too: the out-of-core go to). */
static int sero_enter(sero *s, ui_ctx *ctx)
{
    size_t b0, b1;
    sero_cell_bins(s, s->cursor, &b0, &b1);
    const sero_row *best = NULL;
    tbin top = {0};
    for (size_t i = 0; i < s->nrows; i++) {
        tbin t = sero_span(s, s->rows[i].row, b0, b1);
        tbin was = top;
        tbin_merge(&top, &t);
        if (t.n &&
            (!was.n || top.max_s != was.max_s || top.max_pos != was.max_pos || top.max != was.max))
            best = &s->rows[i];
    }
    if (!best) {
        ui_set_status(ctx, "No calls in this column");
        return VF_HANDLED | VF_REDRAW;
    }
    char d[32], at[32], name[160];
    timefmt_ns(d, sizeof d, (double)top.max);
    timefmt_ns(at, sizeof at,
               (double)(top.max_s - (ctx->prof->has_min_start ? ctx->prof->min_start_ns : 0)));
    text_escape_buf(name, sizeof name, best->r->name);
    uint64_t lane = top.max_lane == TB_ANY_LANE ? UI_GOTO_ANY_LANE : top.max_lane;
    ui_ooc_goto g = {.rank = best->rank,
                     .region = best->row->reg,
                     .pos = top.max_pos,
                     .lane = lane,
                     .depth = top.max_depth,
                     .s = top.max_s,
                     .e = ck_add(top.max_s, top.max)};
    ui_ooc_go(ctx, &g);
    ui_open_view(ctx, VIEW_TIMELINE);
    ui_set_status(ctx, "Slowest of column %zu: %s on rank %d, call index %llu, %s, at %s",
                  s->cursor + 1, name, best->rank, (unsigned long long)top.max_pos, d, at);
    return VF_HANDLED | VF_REDRAW;
}

int sero_cmd(sero *s, ui_ctx *ctx, ui_cmd cmd)
{
    if (!s->nrows)
        return 0;
    size_t w = s->plot_w > 0 ? (size_t)s->plot_w : 1;
    switch (cmd) {
    case CMD_LEFT:
        s->cursor -= s->cursor > 0;
        return VF_HANDLED | VF_REDRAW;
    case CMD_RIGHT:
        s->cursor += s->cursor + 1 < w;
        return VF_HANDLED | VF_REDRAW;
    case CMD_HOME:
        s->cursor = 0;
        return VF_HANDLED | VF_REDRAW;
    case CMD_END:
        s->cursor = w - 1;
        return VF_HANDLED | VF_REDRAW;
    case CMD_ENTER:
        return sero_enter(s, ctx);
    default:
        return 0;
    }
}
