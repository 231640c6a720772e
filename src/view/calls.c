/* calls: view 4, the drill-down into one region's calls.
 *
 * The list is one array of (region, call) rows sorted once per sort
 * column, so a region with millions of calls costs one sort and then only
 * the visible rows per frame.  The histogram is rebuilt only when the
 * width changes, the children of the cursor call only when it moves. */
#include "calls.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "histogram.h"
#include "region.h"
#include "strbuf.h"
#include "timefmt.h"

enum { CC_DUR, CC_EXCL, CC_HELD, CC_AWAIT, CC_GPU, CC_START, CC_RANK, CC_THREAD, CC_TASK, CC_N };

typedef struct calls_colspec {
    const char *title;
    int width;         /* 0: shares what is left (names) */
    bool desc;         /* natural order: largest first */
    const char *order; /* the header's words for the natural order */
    const char *rev;   /* and for the inverted one */
} calls_colspec;

static const calls_colspec calls_cols[CC_N] = {
    {"duration", 9, true, "slowest first", "fastest first"},
    {"excl", 9, true, "largest first", "smallest first"},
    {"held", 9, true, "largest first", "smallest first"},
    {"awaited", 9, true, "largest first", "smallest first"},
    {"GPU", 9, true, "largest first", "smallest first"},
    {"start", 10, false, "earliest first", "latest first"},
    {"rank", 5, false, "lowest first", "highest first"},
    {"thread", 0, false, "by table row", "by table row, last first"},
    {"task", 0, false, "by table row", "by table row, last first"},
};

/* Children listed under the selected call, at most. */
#define CALLS_KIDS_MAX 64

typedef struct call_row {
    int64_t key;
    uint32_t ri; /* index into regs */
    uint32_t i;  /* call index within the region */
} call_row;

typedef struct calls_layout {
    int n;
    int col[CC_N], x[CC_N], w[CC_N];
} calls_layout;

typedef struct calls_state {
    /* what the list is of */
    bool built;
    char *name;
    int scope;     /* rank number, or -1 for every rank */
    bool one_rank; /* r toggles */
    region **regs; /* every region of that name in scope, rank order */
    size_t nregs, nsummary;
    char err[SV_MSG_MAX];
    /* rows */
    call_row *rows;
    int64_t *durs; /* durations, for the histogram */
    size_t n;
    bool has[CC_N];
    int sort_col;
    bool desc;
    size_t cursor, top;
    int page;
    rect list; /* rows drawn at the last frame (for clicks) */
    /* the selection last seen, so a new one moves the cursor once */
    int sync_rank;
    int64_t sync_call;
    histogram hist;
    int hist_w;
    /* children of the cursor call, slowest first */
    int kid_rank;
    int64_t kid_call;
    uint32_t kids[CALLS_KIDS_MAX];
    size_t nkids, kids_total;
} calls_state;

/* ------------------------------------------------------------ values */

static int64_t ns_diff(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* Exclusive time of rank call g (its duration when nesting is missing). */
static int64_t rank_excl(const rank_data *rk, size_t g, int64_t dur)
{
    return rk->calls && g < rk->calls->n ? rk->calls->excl_ns[g] : dur;
}

/* A column's value for call i of r; -1 where the call has none. */
static int64_t value_of(const region *r, size_t i, int col, int64_t zero)
{
    int64_t dur = ns_diff(r->end_ns[i], r->start_ns[i]);
    switch (col) {
    case CC_DUR:
        return dur;
    case CC_EXCL:
        return rank_excl(r->owner, r->gidx0 + i, dur);
    case CC_HELD:
        return dur - (r->await_ns ? r->await_ns[i] : 0);
    case CC_AWAIT:
        return r->await_ns ? r->await_ns[i] : -1;
    case CC_GPU:
        return r->gpu_ns && r->gpu_ns[i] >= 0 ? r->gpu_ns[i] : -1;
    case CC_START:
        return ns_diff(r->start_ns[i], zero);
    case CC_RANK:
        return r->rank;
    case CC_THREAD:
        return r->thread_ids ? r->thread_ids[i] : -1;
    default:
        return r->task_ids ? r->task_ids[i] : -1;
    }
}

static int64_t row_value(const calls_state *s, const ui_ctx *ctx, const call_row *row, int col)
{
    return value_of(s->regs[row->ri], row->i, col, ctx->prof->min_start_ns);
}

static int64_t row_gidx(const calls_state *s, const call_row *row)
{
    return (int64_t)(s->regs[row->ri]->gidx0 + row->i);
}

/* The text of a cell; buf may or may not be used. */
static const char *cell_text(const calls_state *s, const ui_ctx *ctx, const call_row *row, int col,
                             char *buf, size_t len)
{
    const region *r = s->regs[row->ri];
    int64_t v = row_value(s, ctx, row, col);
    switch (col) {
    case CC_RANK:
        snprintf(buf, len, "%d", r->rank);
        return buf;
    case CC_THREAD:
        return v < 0 ? "-" : rank_thread_name(r->owner, v, buf, len);
    case CC_TASK:
        return v < 0 ? "-" : rank_task_name(r->owner, v, buf, len);
    default:
        return v < 0 && col != CC_START ? "-" : timefmt_ns(buf, len, (double)v);
    }
}

/* ------------------------------------------------------------ building */

static void calls_reset(calls_state *s)
{
    free(s->name);
    free(s->regs);
    free(s->rows);
    free(s->durs);
    histogram_free(&s->hist);
    s->name = NULL;
    s->regs = NULL;
    s->rows = NULL;
    s->durs = NULL;
    s->nregs = s->nsummary = s->n = 0;
    s->cursor = s->top = 0;
    s->hist_w = 0;
    s->err[0] = '\0';
    s->sync_rank = -1;
    s->sync_call = -1;
    s->kid_rank = -1;
    s->kid_call = -1;
    s->built = false;
    memset(s->has, 0, sizeof s->has);
}

static int row_cmp(const void *a, const void *b)
{
    const call_row *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->ri != y->ri)
        return x->ri < y->ri ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Stable LSD radix sort of rows by key, 11 bits a pass, skipping the
 * passes where every key has the same digit (the high bits of durations
 * usually).  False when the scratch array cannot be had. */
static bool radix_sort_rows(call_row *rows, size_t n)
{
    enum { BITS = 11, BUCKETS = 1 << BITS };
    call_row *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return false;
    size_t count[BUCKETS];
    call_row *src = rows, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += BITS) {
        memset(count, 0, sizeof count);
        for (size_t j = 0; j < n; j++)
            count[((uint64_t)src[j].key ^ UINT64_C(0x8000000000000000)) >> shift & (BUCKETS - 1)]++;
        size_t sum = 0, trivial = 0;
        for (size_t b = 0; b < BUCKETS; b++) {
            size_t c = count[b];
            trivial |= c == n;
            count[b] = sum;
            sum += c;
        }
        if (trivial)
            continue;
        for (size_t j = 0; j < n; j++)
            dst[count[((uint64_t)src[j].key ^ UINT64_C(0x8000000000000000)) >> shift &
                      (BUCKETS - 1)]++] = src[j];
        call_row *t = src;
        src = dst;
        dst = t;
    }
    if (src != rows)
        memcpy(rows, src, n * sizeof *rows);
    free(tmp);
    return true;
}

/* Sorts the rows by the current column, ties in (rank, recorded) order;
 * the cursor stays on its call.  Values are >= -1, so negating them for a
 * descending order is safe.  The rows start from (rank, recorded) order
 * so that a stable sort by key alone breaks ties that way. */
static void calls_sort(calls_state *s, const ui_ctx *ctx)
{
    call_row at = s->n ? s->rows[s->cursor] : (call_row){0, 0, 0};
    size_t j = 0;
    for (size_t ri = 0; ri < s->nregs; ri++) {
        const region *r = s->regs[ri];
        for (size_t i = 0; r->has_event_data && i < r->n; i++, j++) {
            call_row row = {0, (uint32_t)ri, (uint32_t)i};
            int64_t v = row_value(s, ctx, &row, s->sort_col);
            row.key = s->desc ? -v : v;
            s->rows[j] = row;
        }
    }
    if (!radix_sort_rows(s->rows, s->n))
        qsort(s->rows, s->n, sizeof *s->rows, row_cmp);
    for (j = 0; j < s->n; j++)
        if (s->rows[j].ri == at.ri && s->rows[j].i == at.i)
            s->cursor = j;
}

static bool in_scope(const calls_state *s, const ui_ctx *ctx, const region *r)
{
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    return (s->scope < 0 || r->rank == s->scope) && filter_match_rank(f, r->rank);
}

/* The regions of the list; false (with s->err) on failure. */
static bool calls_collect(calls_state *s, ui_ctx *ctx, const region *sel)
{
    sv_error err;
    sv_error_clear(&err);
    region **list = NULL;
    size_t count = 0;
    if (profile_ensure_calls(ctx->prof, &err) != SV_OK ||
        profile_region_across_ranks(ctx->prof, sel->name, &list, &count, &err) != SV_OK) {
        snprintf(s->err, sizeof s->err, "%s", err.msg);
        return false;
    }
    size_t k = 0;
    for (size_t j = 0; j < count; j++)
        if (in_scope(s, ctx, list[j]))
            list[k++] = list[j];
    s->regs = list;
    s->nregs = k;
    return true;
}

static bool calls_fill(calls_state *s)
{
    size_t n = 0;
    for (size_t ri = 0; ri < s->nregs; ri++) {
        const region *r = s->regs[ri];
        s->nsummary += !r->has_event_data;
        if (!r->has_event_data)
            continue;
        n += r->n;
        s->has[CC_AWAIT] |= r->await_ns != NULL;
        s->has[CC_GPU] |= r->gpu_ns != NULL;
        s->has[CC_THREAD] |= r->thread_ids != NULL;
        s->has[CC_TASK] |= r->task_ids != NULL;
    }
    s->has[CC_HELD] = s->has[CC_AWAIT];
    s->has[CC_DUR] = s->has[CC_EXCL] = s->has[CC_START] = s->has[CC_RANK] = true;
    s->rows = malloc((n ? n : 1) * sizeof *s->rows);
    s->durs = malloc((n ? n : 1) * sizeof *s->durs);
    if (!s->rows || !s->durs) {
        snprintf(s->err, sizeof s->err, "out of memory for %zu calls", n);
        return false;
    }
    size_t j = 0;
    for (size_t ri = 0; ri < s->nregs; ri++) {
        const region *r = s->regs[ri];
        for (size_t i = 0; r->has_event_data && i < r->n; i++, j++) {
            s->rows[j] = (call_row){0, (uint32_t)ri, (uint32_t)i};
            s->durs[j] = ns_diff(r->end_ns[i], r->start_ns[i]);
        }
    }
    s->n = n;
    return true;
}

static void calls_build(calls_state *s, ui_ctx *ctx, const region *sel)
{
    calls_reset(s);
    s->built = true;
    s->scope = s->one_rank ? sel->rank : -1;
    s->name = strdup(sel->name);
    if (!s->name) {
        snprintf(s->err, sizeof s->err, "out of memory");
        return;
    }
    if (!calls_collect(s, ctx, sel) || !calls_fill(s)) {
        s->n = 0;
        return;
    }
    if (!s->has[s->sort_col]) {
        s->sort_col = CC_DUR;
        s->desc = true;
    }
    calls_sort(s, ctx);
    s->cursor = 0;
}

/* The row holding rank call g of rank `rank`, or n. */
static size_t find_row(const calls_state *s, int rank, int64_t g)
{
    for (size_t ri = 0; ri < s->nregs; ri++) {
        const region *r = s->regs[ri];
        if (r->rank != rank || g < (int64_t)r->gidx0 || g >= (int64_t)(r->gidx0 + r->n))
            continue;
        uint32_t i = (uint32_t)(g - (int64_t)r->gidx0);
        for (size_t j = 0; j < s->n; j++)
            if (s->rows[j].ri == ri && s->rows[j].i == i)
                return j;
    }
    return s->n;
}

/* Brings the list in line with the shared selection: another region (or
 * scope) rebuilds it; a newly selected call of this region moves the
 * cursor to it, once, so coming back from the timeline keeps the row. */
static void calls_sync(calls_state *s, ui_ctx *ctx)
{
    const region *sel = ctx->sel.region;
    if (!sel) {
        if (s->built)
            calls_reset(s);
        return;
    }
    int scope = s->one_rank ? sel->rank : -1;
    if (!s->built || !s->name || strcmp(s->name, sel->name) != 0 || scope != s->scope)
        calls_build(s, ctx, sel);
    if (ctx->sel.call >= 0 && (ctx->sel.rank != s->sync_rank || ctx->sel.call != s->sync_call)) {
        s->sync_rank = ctx->sel.rank;
        s->sync_call = ctx->sel.call;
        size_t j = find_row(s, ctx->sel.rank, ctx->sel.call);
        if (j < s->n)
            s->cursor = j;
    }
}

/* Publishes the cursor's call as the shared selection. */
static void calls_select_cursor(calls_state *s, ui_ctx *ctx)
{
    if (s->n == 0)
        return;
    const call_row *row = &s->rows[s->cursor];
    int rank = s->regs[row->ri]->rank;
    int64_t g = row_gidx(s, row);
    ui_select_call(ctx, rank, g);
    s->sync_rank = rank;
    s->sync_call = g;
}

/* ------------------------------------------------------------ layout */

typedef struct calls_areas {
    rect title, hist, head, list, detail;
} calls_areas;

static int hist_bars_for(int h)
{
    return h >= 44 ? 6 : h >= 30 ? 4 : h >= 20 ? 3 : h >= 16 ? 2 : 0;
}

/* Title, histogram, table head, rows, then the selected call's details
 * (as many rows as they need, up to a third of a tall view). */
static calls_areas calls_split(rect a, bool with_hist, int detail_need)
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

static bool col_shown(const calls_state *s, int col)
{
    return s->has[col];
}

/* Fixed-width columns from the left; thread and task share the rest. */
static void calls_columns(const calls_state *s, int width, calls_layout *L)
{
    int x = 2;
    L->n = 0;
    for (int c = 0; c < CC_THREAD; c++) {
        if (!col_shown(s, c))
            continue;
        L->col[L->n] = c;
        L->x[L->n] = x;
        L->w[L->n++] = calls_cols[c].width;
        x += calls_cols[c].width;
    }
    int names = col_shown(s, CC_THREAD) + col_shown(s, CC_TASK);
    int rest = width - x - 1 - 2 * names;
    if (names == 0 || rest < 4 * names)
        return;
    int each = rest / names > 32 ? 32 : rest / names;
    for (int c = CC_THREAD; c <= CC_TASK; c++) {
        if (!col_shown(s, c))
            continue;
        x += 2;
        L->col[L->n] = c;
        L->x[L->n] = x;
        L->w[L->n++] = each;
        x += each;
    }
}

/* ------------------------------------------------------------ drawing */

static void put_right(grid *g, int x, int y, int w, const char *text, int role, int attr)
{
    int tw = grid_text_width(g, text);
    grid_put_text(g, tw < w ? x + w - tw : x, y, w, text, role, attr);
}

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
            put_right(g, a.x + L->x[k], a.y, L->w[k], t, ROLE_HEADER, attr);
        else
            grid_put_text(g, a.x + L->x[k], a.y, L->w[k], t, ROLE_HEADER, attr);
    }
}

static void draw_row(const calls_state *s, ui_ctx *ctx, size_t j, int y, rect a,
                     const calls_layout *L)
{
    grid *g = &ctx->grid;
    bool cur = j == s->cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur) {
        grid_fill(g, (rect){a.x, y, a.w, 1}, ' ', role, 0);
        grid_put_cp(g, a.x, y, theme_glyphs_get(g->ascii)->marker, role, 0);
    }
    for (int k = 0; k < L->n; k++) {
        char buf[64];
        int c = L->col[k];
        const char *t = cell_text(s, ctx, &s->rows[j], c, buf, sizeof buf);
        if (calls_cols[c].width)
            put_right(g, a.x + L->x[k], y, L->w[k], t, role, 0);
        else
            grid_put_text(g, a.x + L->x[k], y, L->w[k], t, role, 0);
    }
}

static void calls_scroll(calls_state *s, int page)
{
    s->page = page > 0 ? page : 1;
    size_t p = (size_t)s->page;
    if (s->cursor >= s->n)
        s->cursor = s->n ? s->n - 1 : 0;
    if (s->cursor < s->top)
        s->top = s->cursor;
    if (s->cursor >= s->top + p)
        s->top = s->cursor - p + 1;
    if (s->top + p > s->n)
        s->top = s->n > p ? s->n - p : 0;
}

static void draw_list(calls_state *s, ui_ctx *ctx, rect head, rect list)
{
    calls_layout L;
    calls_columns(s, list.w, &L);
    draw_table_head(s, ctx, head, &L);
    calls_scroll(s, list.h);
    s->list = list;
    for (int r = 0; r < list.h && s->top + (size_t)r < s->n; r++)
        draw_row(s, ctx, s->top + (size_t)r, list.y + r, list, &L);
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
static void draw_hist(calls_state *s, ui_ctx *ctx, rect a)
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

/* --- the selected call --- */

typedef struct call_ref {
    const region *r;
    size_t i;
    size_t g; /* rank call index */
} call_ref;

static bool ref_of(const rank_data *rk, size_t g, call_ref *out)
{
    size_t i;
    region *r = rank_call_region(rk, (int64_t)g, &i);
    if (!r)
        return false;
    *out = (call_ref){r, i, g};
    return true;
}

static int64_t ref_dur(const call_ref *c)
{
    return ns_diff(c->r->end_ns[c->i], c->r->start_ns[c->i]);
}

/* "wall = exclusive + children (of which awaited) + GPU device time",
 * spelled out when it fits, abbreviated when not. */
static void draw_decomposition(ui_ctx *ctx, const call_ref *c, int x, int y, int w)
{
    int64_t dur = ref_dur(c);
    int64_t excl = rank_excl(c->r->owner, c->g, dur);
    char wall[32], ex[32], ch[32], aw[32] = "", gpu[32] = "";
    timefmt_ns(wall, sizeof wall, (double)dur);
    timefmt_ns(ex, sizeof ex, (double)excl);
    timefmt_ns(ch, sizeof ch, (double)(dur - excl));
    if (c->r->await_ns)
        timefmt_ns(aw, sizeof aw, (double)c->r->await_ns[c->i]);
    if (c->r->gpu_ns && c->r->gpu_ns[c->i] >= 0)
        timefmt_ns(gpu, sizeof gpu, (double)c->r->gpu_ns[c->i]);
    char full[256], brief[256];
    snprintf(full, sizeof full, "wall %s = exclusive %s + children %s%s%s%s%s%s", wall, ex, ch,
             aw[0] ? " (of which awaited " : "", aw, aw[0] ? ")" : "",
             gpu[0] ? " + GPU device time " : "", gpu);
    snprintf(brief, sizeof brief, "wall %s = excl %s + children %s%s%s%s%s%s", wall, ex, ch,
             aw[0] ? " (awaited " : "", aw, aw[0] ? ")" : "", gpu[0] ? " + GPU " : "", gpu);
    grid *g = &ctx->grid;
    const char *t = grid_text_width(g, full) <= w ? full : brief;
    grid_put_text(g, x, y, w, t, ROLE_NORMAL, GA_BOLD);
}

/* "parents: root > ... > parent", dropping the ones next to the root
 * when the chain is wider than the line. */
static void draw_parents(ui_ctx *ctx, const call_ref *c, int x, int y, int w)
{
    enum { NEAR = 24 };
    const rank_data *rk = c->r->owner;
    const rank_calls *rc = rk->calls;
    grid *g = &ctx->grid;
    if (!rc || rc->parent[c->g] < 0) {
        grid_put_text(g, x, y, w, "parents: none (a top-level call)", ROLE_DIM, 0);
        return;
    }
    size_t chain[NEAR], nchain = 0, root = c->g;
    for (int64_t p = rc->parent[c->g]; p >= 0; p = rc->parent[p]) {
        if (nchain < NEAR)
            chain[nchain++] = (size_t)p;
        root = (size_t)p;
    }
    size_t depth = rc->depth[c->g];
    char ell[8] = "";
    ell[utf8_encode(theme_glyphs_get(g->ascii)->ellipsis, ell)] = '\0';
    /* Drop ancestors next to the root until the line fits. */
    for (size_t keep = nchain; keep >= 1; keep--) {
        strbuf b;
        sb_init(&b);
        if (depth > 1)
            sb_printf(&b, "parents (%zu): ", depth);
        else
            sb_puts(&b, "parents: ");
        call_ref a;
        /* The root, then an ellipsis for the ancestors left out. */
        if (keep < depth && ref_of(rk, root, &a))
            sb_printf(&b, "%s > %s%s", a.r->name, depth - keep > 1 ? ell : "",
                      depth - keep > 1 ? " > " : "");
        for (size_t k = keep; k-- > 0;)
            if (ref_of(rk, chain[k], &a))
                sb_printf(&b, "%s%s", a.r->name, k ? " > " : "");
        bool fits = b.s && grid_text_width(g, b.s) <= w;
        if (fits || keep == 1)
            grid_put_text(g, x, y, w, b.s ? b.s : "", ROLE_DIM, 0);
        sb_free(&b);
        if (fits || keep == 1)
            return;
    }
}

static void draw_meta(ui_ctx *ctx, const call_ref *c, int x, int y, int w)
{
    const char *m = c->r->event_meta ? c->r->event_meta[c->i] : NULL;
    bool none = !m || !m[0] || strcmp(m, "{}") == 0;
    int used = grid_put_text(&ctx->grid, x, y, w, "metadata: ", ROLE_DIM, 0);
    grid_put_text(&ctx->grid, x + used, y, w - used, none ? "none" : m,
                  none ? ROLE_DIM : ROLE_NORMAL, 0);
}

/* Keeps the CALLS_KIDS_MAX slowest children of the cursor call. */
static void calls_kids(calls_state *s, const call_ref *c)
{
    const rank_data *rk = c->r->owner;
    if (s->kid_rank == rk->rank && s->kid_call == (int64_t)c->g)
        return;
    s->kid_rank = rk->rank;
    s->kid_call = (int64_t)c->g;
    s->nkids = s->kids_total = 0;
    const rank_calls *rc = rk->calls;
    if (!rc)
        return;
    int64_t dur[CALLS_KIDS_MAX];
    for (uint32_t k = rc->child_off[c->g]; k < rc->child_off[c->g + 1]; k++) {
        call_ref kid;
        if (!ref_of(rk, rc->child[k], &kid))
            continue;
        s->kids_total++;
        int64_t d = ref_dur(&kid);
        size_t at = s->nkids;
        while (at > 0 && dur[at - 1] < d)
            at--;
        if (at >= CALLS_KIDS_MAX)
            continue;
        size_t last = s->nkids < CALLS_KIDS_MAX ? s->nkids : CALLS_KIDS_MAX - 1;
        memmove(dur + at + 1, dur + at, (last - at) * sizeof *dur);
        memmove(s->kids + at + 1, s->kids + at, (last - at) * sizeof *s->kids);
        dur[at] = d;
        s->kids[at] = rc->child[k];
        if (s->nkids < CALLS_KIDS_MAX)
            s->nkids++;
    }
}

/* Columns of the children's table: wall and exclusive always, awaited
 * and GPU where a child's region records them. */
typedef struct kid_cols {
    bool await, gpu;
    int namew;
} kid_cols;

static void draw_kid(ui_ctx *ctx, const call_ref *kid, int x, int y, int w, const kid_cols *kc)
{
    grid *g = &ctx->grid;
    int64_t d = ref_dur(kid);
    grid_put_text(g, x, y, kc->namew, kid->r->name, theme_region_role(kid->r->name), 0);
    char v[4][32];
    int nv = 0;
    timefmt_ns(v[nv++], sizeof v[0], (double)d);
    timefmt_ns(v[nv++], sizeof v[0], (double)rank_excl(kid->r->owner, kid->g, d));
    if (kc->await) {
        snprintf(v[nv], sizeof v[0], "-");
        if (kid->r->await_ns)
            timefmt_ns(v[nv], sizeof v[0], (double)kid->r->await_ns[kid->i]);
        nv++;
    }
    if (kc->gpu) {
        snprintf(v[nv], sizeof v[0], "-");
        if (kid->r->gpu_ns && kid->r->gpu_ns[kid->i] >= 0)
            timefmt_ns(v[nv], sizeof v[0], (double)kid->r->gpu_ns[kid->i]);
        nv++;
    }
    for (int k = 0; k < nv && kc->namew + 10 * (k + 1) <= w; k++)
        put_right(g, x + kc->namew + 10 * k, y, 10, v[k], ROLE_NORMAL, 0);
}

static void draw_kids(calls_state *s, ui_ctx *ctx, const call_ref *c, rect a)
{
    grid *g = &ctx->grid;
    calls_kids(s, c);
    if (s->kids_total == 0) {
        grid_put_text(g, a.x, a.y, a.w, "children: none", ROLE_DIM, 0);
        return;
    }
    size_t room = a.h > 1 ? (size_t)(a.h - 1) : 0;
    size_t shown = room < s->nkids ? room : s->nkids;
    kid_cols kc = {false, false, a.w - 42 > 28 ? 28 : a.w - 42 > 8 ? a.w - 42 : 8};
    call_ref kid[CALLS_KIDS_MAX];
    for (size_t k = 0; k < shown; k++) {
        if (!ref_of(c->r->owner, s->kids[k], &kid[k]))
            kid[k].r = NULL;
        kc.await |= kid[k].r && kid[k].r->await_ns;
        kc.gpu |= kid[k].r && kid[k].r->gpu_ns;
    }
    char head[96];
    if (shown < s->kids_total)
        snprintf(head, sizeof head, "children: %zu, the slowest %zu", s->kids_total, shown);
    else
        snprintf(head, sizeof head, "children: %zu%s", s->kids_total,
                 s->kids_total > 1 ? ", slowest first" : "");
    int hw = grid_put_text(g, a.x, a.y, a.w, head, ROLE_DIM, 0);
    const char *titles[4] = {"wall", "excl", NULL, NULL};
    int nt = 2;
    if (kc.await)
        titles[nt++] = "awaited";
    if (kc.gpu)
        titles[nt++] = "GPU";
    for (int k = 0; k < nt && hw < kc.namew + 2 && kc.namew + 2 + 10 * (k + 1) <= a.w; k++)
        put_right(g, a.x + 2 + kc.namew + 10 * k, a.y, 10, titles[k], ROLE_DIM, 0);
    for (size_t k = 0; k < shown; k++)
        if (kid[k].r)
            draw_kid(ctx, &kid[k], a.x + 2, a.y + 1 + (int)k, a.w - 2, &kc);
}

static call_ref cursor_ref(const calls_state *s)
{
    const call_row *row = &s->rows[s->cursor];
    const region *r = s->regs[row->ri];
    return (call_ref){r, row->i, r->gidx0 + row->i};
}

/* Rows the details of the cursor call fill: rule, decomposition,
 * parents, metadata where recorded, the children's head and rows. */
static int detail_rows(calls_state *s)
{
    if (s->n == 0)
        return 0;
    call_ref c = cursor_ref(s);
    calls_kids(s, &c);
    size_t kids = s->kids_total < CALLS_KIDS_MAX ? s->kids_total : CALLS_KIDS_MAX;
    return 4 + (c.r->event_meta != NULL) + (int)kids;
}

static void draw_detail(calls_state *s, ui_ctx *ctx, rect a)
{
    if (a.h < 1 || s->n == 0)
        return;
    grid *g = &ctx->grid;
    call_ref c = cursor_ref(s);
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    for (int x = 0; x < a.w; x++)
        grid_put_cp(g, a.x + x, a.y, gl->hline, ROLE_DIM, 0);
    char t[96];
    snprintf(t, sizeof t, " call %zu of %zu on rank %d (recorded order) ", c.i + 1, c.r->n,
             c.r->rank);
    grid_put_text(g, a.x + 2, a.y, a.w - 4, t, ROLE_DIM, 0);
    int x = a.x + 1, w = a.w - 2;
    if (a.h > 1)
        draw_decomposition(ctx, &c, x, a.y + 1, w);
    if (a.h > 2)
        draw_parents(ctx, &c, x, a.y + 2, w);
    /* Metadata only where the region records it, leaving room for the
     * children otherwise. */
    int y = a.y + 3;
    if (a.h > 3 && c.r->event_meta)
        draw_meta(ctx, &c, x, y++, w);
    if (y < a.y + a.h)
        draw_kids(s, ctx, &c, (rect){x, y, w, a.y + a.h - y});
}

/* --- summary-only and empty --- */

/* A summary-only region: its stored statistics, one per line, rank by
 * rank. */
static void draw_stored(const calls_state *s, ui_ctx *ctx, rect a)
{
    grid *g = &ctx->grid;
    int y = a.y + 1, end = a.y + a.h;
    grid_put_text(g, a.x + 1, y++, a.w - 1, "no event data for this region (summary-only)",
                  ROLE_WARNING, GA_BOLD);
    for (size_t ri = 0; ri < s->nregs && y < end; ri++) {
        const region *r = s->regs[ri];
        if (r->has_event_data)
            continue;
        char head[64];
        snprintf(head, sizeof head, "rank %d, stored summary:", r->rank);
        grid_put_text(g, a.x + 3, y++, a.w - 3, head, ROLE_DIM, 0);
        for (int k = 0; k < SUM_COUNT && y < end; k++) {
            if (!(r->stored.known & (1u << k)))
                continue;
            char v[32];
            if (k == SUM_NUM_CALLS)
                snprintf(v, sizeof v, "%.0f", r->stored.v[k]);
            else
                timefmt_ns(v, sizeof v, r->stored.v[k]);
            grid_put_text(g, a.x + 5, y, 20, summary_key_names[k], ROLE_NORMAL, 0);
            put_right(g, a.x + 25, y++, 10, v, ROLE_NORMAL, 0);
        }
    }
}

static void calls_draw(void *state, ui_ctx *ctx, rect area)
{
    calls_state *s = state;
    if (!s || area.h < 1 || area.w < 10)
        return;
    calls_sync(s, ctx);
    grid *g = &ctx->grid;
    if (!s->built) {
        static const char *const msg[] = {
            "No region selected.",
            "Pick one in the tree (2) or the regions (3) and press Enter or d,",
            "or press S for the slowest call of the busiest region.",
        };
        for (int k = 0; k < 3 && k < area.h; k++)
            grid_put_text(g, area.x + 1, area.y + k, area.w - 1, msg[k], ROLE_DIM, 0);
        return;
    }
    if (s->err[0] || !s->name) {
        grid_put_text(g, area.x + 1, area.y, area.w - 1, s->err[0] ? s->err : "out of memory",
                      ROLE_WARNING, 0);
        return;
    }
    calls_areas c = calls_split(area, s->n > 0, detail_rows(s));
    draw_title(s, ctx, c.title);
    if (s->n == 0) {
        if (s->nsummary)
            draw_stored(s, ctx, area);
        else
            grid_put_text(g, area.x + 1, area.y + 1, area.w - 1, "no calls recorded", ROLE_DIM, 0);
        return;
    }
    if (c.hist.h > 0)
        draw_hist(s, ctx, c.hist);
    draw_list(s, ctx, c.head, c.list);
    draw_detail(s, ctx, c.detail);
}

/* ------------------------------------------------------------ commands */

static region *busiest_region(const ui_ctx *ctx)
{
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    region *best = NULL;
    for (size_t i = 0; i < ctx->prof->nregions; i++) {
        region *r = ctx->prof->regions[i];
        if (r->has_event_data && r->n && filter_match(f, r) &&
            (!best || r->st.total_ns > best->st.total_ns))
            best = r;
    }
    return best;
}

void calls_jump_slowest(ui_ctx *ctx)
{
    const region *sel = ctx->sel.region ? ctx->sel.region : busiest_region(ctx);
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    region **list = NULL, *best = NULL;
    size_t count = 0;
    if (!sel || profile_region_across_ranks(ctx->prof, sel->name, &list, &count, NULL) != SV_OK) {
        ui_set_status(ctx, "No region to look in: select one first");
        return;
    }
    for (size_t k = 0; k < count; k++) {
        region *r = list[k];
        if (r->has_event_data && r->n && filter_match_rank(f, r->rank) &&
            (!best || r->st.total_ns > best->st.total_ns))
            best = r;
    }
    free(list);
    if (!best) {
        ui_set_status(ctx, "No recorded calls in this region (summary-only or empty)");
        return;
    }
    size_t at = 0;
    for (size_t i = 1; i < best->n; i++)
        if (ns_diff(best->end_ns[i], best->start_ns[i]) >
            ns_diff(best->end_ns[at], best->start_ns[at]))
            at = i;
    ui_select_call(ctx, best->rank, (int64_t)(best->gidx0 + at));
    char d[32];
    timefmt_ns(d, sizeof d, (double)ns_diff(best->end_ns[at], best->start_ns[at]));
    ui_set_status(ctx, "Slowest call: %s on rank %d, its slowest rank (call %zu, %s)", best->name,
                  best->rank, at + 1, d);
}

static void move_cursor(calls_state *s, ui_ctx *ctx, long delta)
{
    if (s->n == 0)
        return;
    long c = (long)s->cursor + delta;
    s->cursor = c < 0 ? 0 : (size_t)c >= s->n ? s->n - 1 : (size_t)c;
    calls_select_cursor(s, ctx);
}

static int next_sort_col(const calls_state *s, int dir)
{
    int c = s->sort_col;
    for (int k = 0; k < CC_N; k++) {
        c = (c + dir + CC_N) % CC_N;
        if (col_shown(s, c))
            return c;
    }
    return s->sort_col;
}

static int calls_sort_cmd(calls_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    if (cmd == CMD_SORT_INVERT) {
        s->desc = !s->desc;
    } else {
        s->sort_col = next_sort_col(s, cmd == CMD_SORT_NEXT ? 1 : -1);
        s->desc = calls_cols[s->sort_col].desc;
    }
    calls_sort(s, ctx);
    return VF_HANDLED | VF_REDRAW;
}

static int calls_click(calls_state *s, ui_ctx *ctx)
{
    rect l = s->list;
    if (ctx->mouse_y < l.y || ctx->mouse_y >= l.y + l.h || ctx->mouse_x < l.x ||
        ctx->mouse_x >= l.x + l.w)
        return 0;
    size_t j = s->top + (size_t)(ctx->mouse_y - l.y);
    if (j < s->n) {
        s->cursor = j;
        calls_select_cursor(s, ctx);
    }
    return VF_HANDLED | VF_REDRAW;
}

static int calls_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    calls_state *s = state;
    if (!s)
        return 0;
    if (cmd == CMD_SLOWEST) {
        calls_jump_slowest(ctx);
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
    long page = s->page > 1 ? s->page - 1 : 1;
    switch (cmd) {
    case CMD_UP:
        move_cursor(s, ctx, -1);
        break;
    case CMD_DOWN:
        move_cursor(s, ctx, 1);
        break;
    case CMD_PGUP:
        move_cursor(s, ctx, -page);
        break;
    case CMD_PGDN:
        move_cursor(s, ctx, page);
        break;
    case CMD_HOME:
        move_cursor(s, ctx, -(long)s->n);
        break;
    case CMD_END:
        move_cursor(s, ctx, (long)s->n);
        break;
    case CMD_WHEEL_UP:
        move_cursor(s, ctx, -3);
        break;
    case CMD_WHEEL_DOWN:
        move_cursor(s, ctx, 3);
        break;
    case CMD_CLICK:
        return calls_click(s, ctx);
    case CMD_SORT_PREV:
    case CMD_SORT_NEXT:
    case CMD_SORT_INVERT:
        return calls_sort_cmd(s, ctx, cmd);
    case CMD_ENTER:
        calls_select_cursor(s, ctx);
        ui_open_view(ctx, 1);
        break;
    default:
        return 0;
    }
    return VF_HANDLED | VF_REDRAW;
}

static void *calls_create(ui_ctx *ctx)
{
    (void)ctx;
    calls_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sort_col = CC_DUR;
    s->desc = true;
    calls_reset(s);
    return s;
}

static void calls_destroy(void *state)
{
    calls_state *s = state;
    if (!s)
        return;
    calls_reset(s);
    free(s);
}

static const char *const calls_help[][2] = {
    {"Up Down j k", "move through the calls of the selected region (slowest first)"},
    {"PgUp PgDn", "a page up / down"},
    {"Home End", "the first / last row"},
    {"Enter", "select the call and show it zoomed in the timeline; Esc comes back here"},
    {"< > I", "sort by the column to the left / right; invert the order"},
    {"S", "jump to the slowest call of the region on its slowest rank"},
    {"r", "all ranks, or only the selected call's rank"},
    {NULL, NULL},
};

const view_ops calls_view = {
    .name = "calls",
    .number = 4,
    .create = calls_create,
    .destroy = calls_destroy,
    .draw = calls_draw,
    .on_cmd = calls_cmd,
    .on_resize = NULL,
    .keys = NULL,
    .help = calls_help,
};
