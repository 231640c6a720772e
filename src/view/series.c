/* series: duration over time (D) of the selected region: each call's
 * duration against its start time or its call index, in braille dots (2x4
 * a cell; one mark a cell in ASCII), linear or log, the p50 and p95 as
 * lines.  A dot column holding several calls shows their min, median and
 * max (the legend says so).  Above the plot, what users look for
 * (series.h): the warm-up, the drift as a fitted change, the calls above
 * the p99.  A column cursor; Enter shows the column's slowest call in the
 * timeline.  Out of core (the profile's time bins) series_ooc.c draws it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/series.h"
#include "series_ooc.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "ui/view.h"

#define SER_LABEL_W 10 /* the y axis' labels and tick */

typedef struct series_state {
    series *s;
    char name[256]; /* the region the series is of ("" none) */
    int rank;       /* -1: every rank the filter keeps */
    bool by_index;  /* x: call index, else start time */
    bool log;       /* y: log scale */
    char error[SV_MSG_MAX];
    /* The plot's bins, 2 per cell column, kept per x axis (start time,
     * call index) so that switching the axis, a key, does not bin every
     * call again; bins is the current axis' of nbins. */
    series_bin *bins_ax[2];
    size_t nbins_ax[2];
    series_bin *bins;
    size_t nbins;
    int64_t *scratch;
    /* Every rank in its colour: each rank's min, median and max per bin
     * (rcol, 3 a bin, nranks x nbins; rhas: the bin has calls of it), kept
     * per axis for the same reason. */
    int64_t *rcol_ax[2];
    uint8_t *rhas_ax[2];
    size_t rbins_ax[2];
    size_t cursor; /* cell column */
    int plot_w;
    /* Every rank shown and several of them: each in its colour (ASCII and
     * monochrome: its mark).  ranks ascending; order: the calls' indices
     * grouped by rank (in ranks' order), by start within a rank. */
    int *ranks;
    size_t nranks;
    size_t *order;
    sero *ooc; /* out of core: drawn from the time bins */
} series_state;

/* Ranks beyond these share a colour and a mark (the legend says so). */
#define SER_SLOTS 16
static const char ser_ascii_marks[SER_SLOTS + 1] = "*o+x#@%&=~^$?!:;";
static const uint32_t ser_mono_marks[SER_SLOTS] = {0x25CF, 0x25CB, 0x25C6, 0x25C7, 0x25A0, 0x25A1,
                                                   0x25B2, 0x25B3, 0x25BC, 0x25BD, 0x2605, 0x2606,
                                                   0x25D0, 0x25D1, 0x25D2, 0x25D3};

/* ------------------------------------------------------------ model */

static int ser_int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static size_t ser_rank_slot(const series_state *st, int rank)
{
    const int *at = bsearch(&rank, st->ranks, st->nranks, sizeof *st->ranks, ser_int_cmp);
    return at ? (size_t)(at - st->ranks) : 0;
}

/* The ranks of an every-rank series and its calls grouped by rank (a
 * counting sort: stable, so by start within a rank).  Left empty for one
 * rank; false on NOMEM. */
static bool ser_group_ranks(series_state *st)
{
    const series *s = st->s;
    if (st->rank >= 0 || s->n < 2)
        return true;
    int *v = malloc(s->n * sizeof *v);
    if (!v)
        return false;
    bool one = true; /* every call of one rank (a single-rank file): nothing to sort */
    for (size_t i = 0; i < s->n; i++) {
        v[i] = s->calls[i].rank;
        one = one && v[i] == v[0];
    }
    if (!one)
        qsort(v, s->n, sizeof *v, ser_int_cmp);
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    st->ranks = v;
    st->nranks = m;
    if (m < 2)
        return true;
    size_t *at = calloc(m + 1, sizeof *at);
    st->order = malloc(s->n * sizeof *st->order);
    if (!at || !st->order) {
        free(at);
        return false;
    }
    for (size_t i = 0; i < s->n; i++)
        at[ser_rank_slot(st, s->calls[i].rank) + 1]++;
    for (size_t k = 0; k < m; k++)
        at[k + 1] += at[k];
    for (size_t i = 0; i < s->n; i++)
        st->order[at[ser_rank_slot(st, s->calls[i].rank)]++] = i;
    free(at);
    return true;
}

static bool ser_by_rank(const series_state *st)
{
    return st->nranks > 1 && st->order;
}

/* The bins of both axes and the ranks' columns, for a new series. */
static void ser_forget_bins(series_state *st)
{
    for (int a = 0; a < 2; a++) {
        free(st->bins_ax[a]);
        free(st->rcol_ax[a]);
        free(st->rhas_ax[a]);
        st->bins_ax[a] = NULL;
        st->rcol_ax[a] = NULL;
        st->rhas_ax[a] = NULL;
        st->nbins_ax[a] = st->rbins_ax[a] = 0;
    }
    st->bins = NULL;
    st->nbins = 0;
}

static void ser_rebuild(series_state *st, ui_ctx *ctx)
{
    series_free(st->s);
    st->s = NULL;
    free(st->ranks);
    free(st->order);
    st->ranks = NULL;
    st->order = NULL;
    st->nranks = 0;
    ser_forget_bins(st);
    free(st->scratch);
    st->scratch = NULL;
    st->error[0] = '\0';
    if (!st->name[0] || ctx->prof->tbins) /* out of core: no call to build from */
        return;
    sv_error err;
    sv_error_clear(&err);
    if (series_build(ctx->prof, ctx->opt ? ctx->opt->filter : NULL, st->name, st->rank, &st->s,
                     &err) != SV_OK) {
        snprintf(st->error, sizeof st->error, "%s", err.msg);
        return;
    }
    st->scratch = malloc(st->s->n * sizeof *st->scratch);
    if (!st->scratch || !ser_group_ranks(st))
        snprintf(st->error, sizeof st->error, "out of memory (series)");
}

/* The selected region (another view's) becomes the series' region. */
static void ser_follow(series_state *st, ui_ctx *ctx)
{
    const region *sel = ctx->sel.region;
    if (!sel || strcmp(sel->name, st->name) == 0)
        return;
    snprintf(st->name, sizeof st->name, "%s", sel->name);
    st->rank = -1;
    st->cursor = 0;
    ser_rebuild(st, ctx);
}

static bool ser_bins(series_state *st, size_t nbins)
{
    int a = st->by_index;
    if (st->nbins_ax[a] != nbins) {
        free(st->bins_ax[a]);
        st->bins_ax[a] = calloc(nbins, sizeof *st->bins_ax[a]);
        st->nbins_ax[a] = st->bins_ax[a] ? nbins : 0;
        if (st->bins_ax[a])
            series_bins(st->s, !st->by_index, st->bins_ax[a], nbins, st->scratch);
    }
    st->bins = st->bins_ax[a];
    st->nbins = st->nbins_ax[a];
    return st->bins != NULL;
}

/* ----------------------------------------------------------- scaling */

typedef struct ser_scale {
    double lo, hi; /* in the scale's units */
    bool log;
    int rows; /* dot rows */
} ser_scale;

static double ser_unit(const ser_scale *y, double ns)
{
    return y->log ? log10(ns > 1 ? ns : 1) : ns;
}

/* Dot row from the bottom, 0 .. rows - 1. */
static int ser_dot_row(const ser_scale *y, double ns)
{
    double u = ser_unit(y, ns), span = y->hi - y->lo;
    double f = span > 0 ? (u - y->lo) / span : 0.5;
    int r = (int)(f * (y->rows - 1) + 0.5);
    return r < 0 ? 0 : r >= y->rows ? y->rows - 1 : r;
}

static ser_scale ser_scale_of(const series *s, bool log, int rows)
{
    ser_scale y = {0, 0, log, rows};
    y.hi = ser_unit(&y, (double)s->max);
    y.lo = log ? ser_unit(&y, (double)s->min) : 0;
    if (y.hi <= y.lo)
        y.hi = y.lo + (log ? 1 : 1); /* one value: a flat line mid-height */
    return y;
}

/* ----------------------------------------------------------- drawing */

static void ser_put_dot(uint8_t *cells, int w, int h, int dx, int dy)
{
    /* braille bits: left column rows 0..3 = 0x01 0x02 0x04 0x40, right 0x08 0x10 0x20 0x80 */
    static const uint8_t bit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    int cx = dx / 2, cy = h - 1 - dy / 4, sub = 3 - dy % 4;
    if (cx >= 0 && cx < w && cy >= 0 && cy < h)
        cells[cy * w + cx] |= bit[dx % 2][sub];
}

/* The p50 / p95 lines where no dot is. */
static void ser_draw_lines(const series_state *st, grid *g, rect p, const ser_scale *y,
                           const uint8_t *cells, bool ascii)
{
    const double at[2] = {st->s->p95, st->s->p50};
    const uint32_t glyph[2] = {ascii ? '.' : 0x2508, ascii ? '-' : 0x2500};
    for (int k = 0; k < 2; k++) {
        int cy = p.h - 1 - ser_dot_row(y, at[k]) / 4;
        for (int x = 0; x < p.w; x++)
            if (!cells[cy * p.w + x])
                grid_put_cp(g, p.x + x, p.y + cy, glyph[k], ROLE_DIM, 0);
    }
}

static int ser_i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct ser_rank_plot {
    rect p;
    const ser_scale *y;
    int dots_x, dots_y;
    uint8_t *cells;
    uint32_t *cnt; /* per cell and slot: the dots a rank put there */
} ser_rank_plot;

/* One rank's calls of bin b (buf, m of them): their min, median and max
 * into v. */
static void ser_rank_column(int64_t *v, int64_t *buf, size_t m)
{
    qsort(buf, m, sizeof *buf, ser_i64_cmp);
    v[0] = buf[0];
    v[1] = buf[(m - 1) / 2];
    v[2] = buf[m - 1];
}

/* Each rank's min, median and max per bin of the current axis, binned per
 * rank as the whole series is: once per axis and width, not per frame. */
static bool ser_rank_columns(series_state *st)
{
    int a = st->by_index;
    if (st->rbins_ax[a] == st->nbins && st->rcol_ax[a])
        return true;
    free(st->rcol_ax[a]);
    free(st->rhas_ax[a]);
    size_t nb = st->nbins, cells = st->nranks * nb;
    st->rcol_ax[a] = malloc((cells ? cells : 1) * 3 * sizeof *st->rcol_ax[a]);
    st->rhas_ax[a] = calloc(cells ? cells : 1, 1);
    st->rbins_ax[a] = 0;
    if (!st->rcol_ax[a] || !st->rhas_ax[a])
        return false;
    const series *s = st->s;
    size_t i = 0;
    for (size_t k = 0; k < st->nranks; k++) {
        size_t m = 0, cur = SIZE_MAX;
        for (; i < s->n && s->calls[st->order[i]].rank == st->ranks[k]; i++) {
            size_t b = series_bin_of(s, !st->by_index, st->order[i], nb);
            if (b != cur && m) {
                ser_rank_column(st->rcol_ax[a] + (k * nb + cur) * 3, st->scratch, m);
                st->rhas_ax[a][k * nb + cur] = 1;
            }
            m = b != cur ? 0 : m;
            cur = b;
            st->scratch[m++] = s->calls[st->order[i]].dur;
        }
        if (m) {
            ser_rank_column(st->rcol_ax[a] + (k * nb + cur) * 3, st->scratch, m);
            st->rhas_ax[a][k * nb + cur] = 1;
        }
    }
    st->rbins_ax[a] = nb;
    return true;
}

/* Rank slot's dots of bin b: its min, median and max (v). */
static void ser_rank_dots(ser_rank_plot *rp, size_t slot, size_t b, const int64_t *v)
{
    rect p = rp->p;
    for (int k = 0; k < 3; k++) {
        int dy = ser_dot_row(rp->y, (double)v[k]);
        ser_put_dot(rp->cells, p.w, p.h, (int)b * (2 / rp->dots_x), dy - dy % (4 / rp->dots_y));
        size_t at = (size_t)(p.h - 1 - dy / 4) * (size_t)p.w + b / (size_t)rp->dots_x;
        if (at < (size_t)p.w * (size_t)p.h)
            rp->cnt[at * SER_SLOTS + slot % SER_SLOTS]++;
    }
}

/* Each rank's dots, binned per rank as the whole series is, and for each
 * cell the rank that put the most dots there (ties: the lower rank). */
static void ser_rank_cells(const series_state *st, ser_rank_plot *rp, uint8_t *owner)
{
    int a = st->by_index;
    size_t nb = st->nbins;
    for (size_t k = 0; k < st->nranks; k++)
        for (size_t b = 0; b < nb; b++)
            if (st->rhas_ax[a][k * nb + b])
                ser_rank_dots(rp, k, b, st->rcol_ax[a] + (k * nb + b) * 3);
    for (size_t c = 0; c < (size_t)rp->p.w * (size_t)rp->p.h; c++) {
        size_t best = 0;
        for (size_t k = 1; k < SER_SLOTS; k++)
            best = rp->cnt[c * SER_SLOTS + k] > rp->cnt[c * SER_SLOTS + best] ? k : best;
        owner[c] = (uint8_t)best;
    }
}

static void ser_draw_rank_plot(series_state *st, ui_ctx *ctx, rect p, const ser_scale *y)
{
    size_t ncell = (size_t)p.w * (size_t)p.h;
    int dots_x = ctx->ascii ? 1 : 2, dots_y = ctx->ascii ? 1 : 4;
    ser_rank_plot rp = {
        p, y, dots_x, dots_y, calloc(ncell, 1), calloc(ncell * SER_SLOTS, sizeof(uint32_t))};
    uint8_t *owner = malloc(ncell);
    if (rp.cells && rp.cnt && owner && ser_rank_columns(st)) {
        ser_rank_cells(st, &rp, owner);
        ser_draw_lines(st, &ctx->grid, p, y, rp.cells, ctx->ascii);
        for (size_t c = 0; c < ncell; c++) {
            if (!rp.cells[c])
                continue;
            uint32_t ch = ctx->ascii  ? (uint32_t)ser_ascii_marks[owner[c]]
                          : ctx->mono ? ser_mono_marks[owner[c]]
                                      : 0x2800u + rp.cells[c];
            grid_put_cp(&ctx->grid, p.x + (int)(c % (size_t)p.w), p.y + (int)(c / (size_t)p.w), ch,
                        ROLE_BAR0 + owner[c], 0);
        }
    }
    free(rp.cells);
    free(rp.cnt);
    free(owner);
}

/* The ranks' legend: each rank with its mark (its colour). */
static void ser_rank_legend(const series_state *st, ui_ctx *ctx, rect a, int y)
{
    grid *g = &ctx->grid;
    int x = a.x + grid_put_text(g, a.x, y, a.w, " ranks:", ROLE_DIM, 0);
    for (size_t k = 0; k < st->nranks && k < SER_SLOTS; k++) {
        char b[32];
        uint32_t cp = ctx->ascii  ? (uint32_t)ser_ascii_marks[k]
                      : ctx->mono ? ser_mono_marks[k]
                                  : 0x28FF; /* a full braille cell in the rank's colour */
        snprintf(b, sizeof b, " %d ", st->ranks[k]);
        int w = text_display_width(b);
        if (x + w + 2 > a.x + a.w)
            return;
        x += grid_put_text(g, x, y, w, b, ROLE_DIM, 0);
        grid_put_cp(g, x++, y, cp, ROLE_BAR0 + (int)k, 0);
    }
    const char *more = st->nranks > SER_SLOTS ? " (marks repeat every 16 ranks)" : "";
    x += grid_put_text(g, x, y, a.x + a.w - x, more, ROLE_DIM, 0);
    /* what a cell two ranks reach shows, when it fits whole */
    const char *shared = "  a shared cell: the rank with the most marks";
    if (x + text_display_width(shared) <= a.x + a.w)
        grid_put_text(g, x, y, a.x + a.w - x, shared, ROLE_DIM, 0);
}

static void ser_draw_plot(series_state *st, ui_ctx *ctx, rect p)
{
    grid *g = &ctx->grid;
    bool ascii = ctx->ascii;
    int dots_x = ascii ? 1 : 2, dots_y = ascii ? 1 : 4;
    if (!ser_bins(st, (size_t)p.w * (size_t)dots_x))
        return;
    ser_scale y = ser_scale_of(st->s, st->log, p.h * 4);
    if (ser_by_rank(st)) {
        ser_draw_rank_plot(st, ctx, p, &y);
        if (st->cursor < (size_t)p.w)
            grid_put_cp(g, p.x + (int)st->cursor, p.y + p.h, ascii ? '^' : 0x25B2, ROLE_SELECTED,
                        0);
        return;
    }
    uint8_t *cells = calloc((size_t)p.w * (size_t)p.h, 1);
    bool *hot = calloc((size_t)p.w * (size_t)p.h, sizeof *hot);
    if (!cells || !hot) {
        free(cells);
        free(hot);
        return;
    }
    for (size_t b = 0; b < st->nbins; b++) {
        const series_bin *x = &st->bins[b];
        if (!x->n)
            continue;
        int64_t v[3] = {x->min, x->med, x->max};
        for (int k = 0; k < 3; k++) {
            int dy = ser_dot_row(&y, (double)v[k]);
            int dx = (int)b * (2 / dots_x);
            ser_put_dot(cells, p.w, p.h, dx, dy - dy % (4 / dots_y));
            if ((double)v[k] > st->s->p99)
                hot[(p.h - 1 - dy / 4) * p.w + (int)b / dots_x] = true;
        }
    }
    ser_draw_lines(st, g, p, &y, cells, ascii);
    for (int cy = 0; cy < p.h; cy++)
        for (int cx = 0; cx < p.w; cx++) {
            uint8_t c = cells[cy * p.w + cx];
            if (!c)
                continue;
            uint32_t ch = ascii ? '*' : 0x2800u + c;
            grid_put_cp(g, p.x + cx, p.y + cy, ch, hot[cy * p.w + cx] ? ROLE_WARNING : ROLE_BAR0,
                        0);
        }
    free(cells);
    free(hot);
    /* the cursor column: reversed at the bottom row and the axis below */
    if (st->cursor < (size_t)p.w)
        grid_put_cp(g, p.x + (int)st->cursor, p.y + p.h, ascii ? '^' : 0x25B2, ROLE_SELECTED, 0);
}

static void ser_axis_labels(const series_state *st, grid *g, rect p)
{
    char b[32];
    ser_scale y = ser_scale_of(st->s, st->log, p.h * 4);
    double top = st->log ? pow(10, y.hi) : y.hi, bottom = st->log ? pow(10, y.lo) : y.lo;
    timefmt_ns(b, sizeof b, top);
    grid_put_text(g, p.x - SER_LABEL_W, p.y, SER_LABEL_W - 1, b, ROLE_DIM, 0);
    timefmt_ns(b, sizeof b, bottom);
    grid_put_text(g, p.x - SER_LABEL_W, p.y + p.h - 1, SER_LABEL_W - 1, b, ROLE_DIM, 0);
    for (int r = 0; r < p.h; r++)
        grid_put_cp(g, p.x - 1, p.y + r, g->ascii ? '|' : 0x2502, ROLE_DIM, 0);
    /* x: the two ends */
    const series *s = st->s;
    if (st->by_index)
        snprintf(b, sizeof b, "call 0");
    else
        timefmt_ns(b, sizeof b, (double)s->calls[0].start);
    int y2 = p.y + p.h + 1;
    grid_put_text(g, p.x, y2, p.w / 2, b, ROLE_DIM, 0);
    char e[48];
    if (st->by_index)
        snprintf(e, sizeof e, "call %zu", s->n - 1);
    else
        timefmt_ns(e, sizeof e, (double)s->calls[s->n - 1].start);
    int ew = text_display_width(e);
    grid_put_text(g, p.x + p.w - ew, y2, ew, e, ROLE_DIM, 0);
    const char *what = st->by_index ? "x: call index (in start order)" : "x: start time";
    int ww = text_display_width(what);
    if (p.w > ew + ww + 12)
        grid_put_text(g, p.x + (p.w - ww) / 2, y2, ww, what, ROLE_DIM, 0);
}

static void ser_header(const series_state *st, ui_ctx *ctx, rect a)
{
    grid *g = &ctx->grid;
    const series *s = st->s;
    char line[512], p50[32], p95[32], p99[32];
    timefmt_ns(p50, sizeof p50, s->p50);
    timefmt_ns(p95, sizeof p95, s->p95);
    timefmt_ns(p99, sizeof p99, s->p99);
    char rk[32];
    if (st->rank >= 0)
        snprintf(rk, sizeof rk, "rank %d", st->rank);
    else
        snprintf(rk, sizeof rk, "all ranks");
    int used = grid_put_text_mid(g, a.x + 1, a.y, a.w / 3, s->name, ROLE_NORMAL, GA_BOLD);
    snprintf(line, sizeof line, "  %s, %zu calls  p50 %s  p95 %s  y: %s", rk, s->n, p50, p95,
             st->log ? "log" : "linear");
    grid_put_text(g, a.x + 1 + used, a.y, a.w - used - 2, line, ROLE_NORMAL, 0);
    char f[32], m[32];
    if (s->has_warmup) {
        timefmt_ns(f, sizeof f, s->warmup_first);
        timefmt_ns(m, sizeof m, s->warmup_rest);
        snprintf(line, sizeof line, " warm-up: first call %s, %.2fx the median of the rest (%s)", f,
                 s->warmup_ratio, m);
    } else {
        snprintf(line, sizeof line, " warm-up: one call, nothing to compare");
    }
    grid_put_text(g, a.x, a.y + 1, a.w, line, ROLE_NORMAL, 0);
    if (s->has_drift)
        snprintf(line, sizeof line, " drift: %+.1f%% from first to last tenth (fitted)",
                 100.0 * s->drift);
    else
        snprintf(line, sizeof line, " drift: too few calls over time to fit");
    size_t n = strlen(line);
    snprintf(line + n, sizeof line - n, "  outliers: %zu above p99 %s", s->outliers, p99);
    grid_put_text(g, a.x, a.y + 2, a.w, line, s->outliers ? ROLE_NORMAL : ROLE_DIM, 0);
}

/* What the cursor column holds, and the legend. */
static void ser_footer(const series_state *st, ui_ctx *ctx, rect a, int y)
{
    grid *g = &ctx->grid;
    size_t per = ctx->ascii ? 1 : 2, most = 0, n = 0;
    int64_t mx = -1, mn = 0;
    for (size_t b = 0; b < st->nbins; b++)
        most = st->bins[b].n > most ? st->bins[b].n : most;
    for (size_t b = st->cursor * per; b < (st->cursor + 1) * per && b < st->nbins; b++) {
        const series_bin *x = &st->bins[b];
        if (!x->n)
            continue;
        mn = n == 0 || x->min < mn ? x->min : mn;
        mx = x->max > mx ? x->max : mx;
        n += x->n;
    }
    char line[256], lo[32], hi[32];
    if (n) {
        timefmt_ns(lo, sizeof lo, (double)mn);
        timefmt_ns(hi, sizeof hi, (double)mx);
        snprintf(line, sizeof line,
                 " column %zu: %zu call%s, %s .. %s; Enter: its slowest in the timeline",
                 st->cursor + 1, n, n == 1 ? "" : "s", lo, hi);
    } else {
        snprintf(line, sizeof line, " column %zu: no calls", st->cursor + 1);
    }
    grid_put_text(g, a.x, y, a.w, line, ROLE_NORMAL, 0);
    if (most > 1)
        snprintf(line, sizeof line,
                 " %s: min, median and max of up to %zu calls (binned)  %s: p50  %s: p95",
                 ctx->ascii ? "each mark" : "each dot column", most,
                 ctx->ascii ? "-" : "\xe2\x94\x80", ctx->ascii ? "." : "\xe2\x94\x88");
    else
        snprintf(line, sizeof line, " one %s per call  %s: p50  %s: p95  x y r: axis, scale, rank",
                 ctx->ascii ? "mark" : "dot", ctx->ascii ? "-" : "\xe2\x94\x80",
                 ctx->ascii ? "." : "\xe2\x94\x88");
    grid_put_text(g, a.x, y + 1, a.w, line, ROLE_DIM, 0);
}

static void ser_draw(void *state, ui_ctx *ctx, rect a)
{
    series_state *st = state;
    if (!st || a.h < 8 || a.w < 30)
        return;
    ser_follow(st, ctx);
    grid *g = &ctx->grid;
    if (!st->name[0]) {
        grid_put_text(g, a.x + 1, a.y + 1, a.w - 2,
                      "No region selected: select one in another view (regions, tree, timeline), "
                      "then D",
                      ROLE_DIM, 0);
        return;
    }
    if (ctx->prof->tbins) {
        if (!st->ooc && !(st->ooc = sero_new()))
            return;
        sero_draw(st->ooc, ctx, a, st->name, st->rank, st->log);
        return;
    }
    if (st->error[0] || !st->s) {
        grid_put_text(g, a.x + 1, a.y + 1, a.w - 2, st->error, ROLE_WARNING, 0);
        return;
    }
    ser_header(st, ctx, a);
    int legend = ser_by_rank(st); /* a row for the ranks' legend */
    rect p = {a.x + SER_LABEL_W, a.y + 3, a.w - SER_LABEL_W - 1, a.h - 3 - 4 - legend};
    if (p.h < 2 || p.w < 4)
        return;
    st->plot_w = p.w;
    if (st->cursor >= (size_t)p.w)
        st->cursor = (size_t)p.w - 1;
    ser_draw_plot(st, ctx, p);
    ser_axis_labels(st, g, p);
    ser_footer(st, ctx, a, p.y + p.h + 2);
    if (legend)
        ser_rank_legend(st, ctx, a, p.y + p.h + 4);
}

/* ----------------------------------------------------------- commands */

/* The next rank scope: every rank, then each kept rank that has the region. */
static void ser_next_rank(series_state *st, ui_ctx *ctx)
{
    const profile *p = ctx->prof;
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    int next = -1;
    for (size_t k = 0; k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (rk->rank > st->rank && filter_match_rank(f, rk->rank) && rank_region(rk, st->name)) {
            next = rk->rank;
            break;
        }
    }
    st->rank = next;
    ser_rebuild(st, ctx);
    if (st->rank >= 0)
        ui_set_status(ctx, "Series of rank %d (r: next rank)", st->rank);
    else
        ui_set_status(ctx, "Series over every rank (r: one rank)");
}

static int ser_enter(series_state *st, ui_ctx *ctx)
{
    size_t per = ctx->ascii ? 1 : 2, best = SIZE_MAX;
    for (size_t b = st->cursor * per; b < (st->cursor + 1) * per && b < st->nbins; b++) {
        const series_bin *x = &st->bins[b];
        if (x->n && (best == SIZE_MAX || st->s->calls[x->slowest].dur > st->s->calls[best].dur))
            best = x->slowest;
    }
    if (best == SIZE_MAX) {
        ui_set_status(ctx, "No calls in this column");
        return VF_HANDLED | VF_REDRAW;
    }
    const series_call *c = &st->s->calls[best];
    ui_select_call(ctx, c->rank, c->call);
    ui_open_view(ctx, VIEW_TIMELINE);
    char d[32], name[160];
    timefmt_ns(d, sizeof d, (double)c->dur);
    text_escape_buf(name, sizeof name, st->s->name);
    ui_set_status(ctx, "Slowest call of column %zu: %s on rank %d, call index %zu, %s",
                  st->cursor + 1, name, c->rank, c->index, d);
    return VF_HANDLED | VF_REDRAW;
}

/* Out of core: the scale and the rank as in memory, the rest on the bins. */
static int ser_ooc_cmd(series_state *st, ui_ctx *ctx, ui_cmd cmd)
{
    switch (cmd) {
    case CMD_SERIES_AXIS:
        ui_set_status(ctx, "Out of core the series is by start time only (its bins are)");
        return VF_HANDLED | VF_REDRAW;
    case CMD_SERIES_SCALE:
        st->log = !st->log;
        return VF_HANDLED | VF_REDRAW;
    case CMD_SERIES_RANK:
        ser_next_rank(st, ctx);
        return VF_HANDLED | VF_REDRAW;
    default:
        return sero_cmd(st->ooc, ctx, cmd);
    }
}

static int ser_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    series_state *st = state;
    if (st && st->ooc && ctx->prof->tbins)
        return ser_ooc_cmd(st, ctx, cmd);
    if (!st || !st->s)
        return 0;
    size_t w = st->plot_w > 0 ? (size_t)st->plot_w : 1;
    switch (cmd) {
    case CMD_LEFT:
        st->cursor -= st->cursor > 0;
        return VF_HANDLED | VF_REDRAW;
    case CMD_RIGHT:
        st->cursor += st->cursor + 1 < w;
        return VF_HANDLED | VF_REDRAW;
    case CMD_HOME:
        st->cursor = 0;
        return VF_HANDLED | VF_REDRAW;
    case CMD_END:
        st->cursor = w - 1;
        return VF_HANDLED | VF_REDRAW;
    case CMD_ENTER:
        return ser_enter(st, ctx);
    case CMD_SERIES_AXIS:
        st->by_index = !st->by_index;
        return VF_HANDLED | VF_REDRAW;
    case CMD_SERIES_SCALE:
        st->log = !st->log;
        return VF_HANDLED | VF_REDRAW;
    case CMD_SERIES_RANK:
        ser_next_rank(st, ctx);
        return VF_HANDLED | VF_REDRAW;
    default:
        return 0;
    }
}

static void *ser_create(ui_ctx *ctx)
{
    series_state *st = calloc(1, sizeof *st);
    if (st)
        st->rank = -1;
    (void)ctx;
    return st;
}

static void ser_destroy(void *state)
{
    series_state *st = state;
    if (!st)
        return;
    series_free(st->s);
    ser_forget_bins(st);
    free(st->scratch);
    free(st->ranks);
    free(st->order);
    sero_free(st->ooc);
    free(st);
}

const view_ops series_view = {
    .name = "series",
    .create = ser_create,
    .destroy = ser_destroy,
    .draw = ser_draw,
    .on_cmd = ser_cmd,
    .on_resize = NULL,
};
