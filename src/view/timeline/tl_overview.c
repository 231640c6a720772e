/* tl_overview: calls starting per time bin, per rank or recorded thread,
 * drawn while the lanes are computed (see tl_overview.h). */
#include "tl_overview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/theme.h"
#include "tl_state.h"

/* ------------------------------------------------------------ binning */

static bool region_counted(const region *r, const region_filter *f)
{
    return r->has_event_data && r->n > 0 && r->start_ns && r->end_ns && (!f || filter_match(f, r));
}

static bool rank_counted(const rank_data *rk, const region_filter *f)
{
    return !f || filter_match_rank(f, rk->rank);
}

static int64_t col_max(const int64_t *v, size_t n, int64_t m)
{
    for (size_t i = 0; i < n; i++) /* a branch-free reduction */
        m = v[i] > m ? v[i] : m;
    return m;
}

static int64_t col_min(const int64_t *v, size_t n, int64_t m)
{
    for (size_t i = 0; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* First start (when lo_known is false) and last end of the counted calls:
 * the lanes' t_min and t_max.  False when there is none. */
static bool span_of(const profile *p, const region_filter *f, bool lo_known, int64_t *lo,
                    int64_t *hi)
{
    int64_t a = lo_known ? *lo : INT64_MAX, b = INT64_MIN;
    bool any = false;
    for (size_t ri = 0; ri < p->nranks; ri++) {
        const rank_data *rk = &p->ranks[ri];
        if (!rank_counted(rk, f))
            continue;
        for (size_t j = 0; j < rk->nregions; j++) {
            const region *r = rk->regions[j];
            if (!region_counted(r, f))
                continue;
            if (!lo_known)
                a = col_min(r->start_ns, r->n, a);
            b = col_max(r->end_ns, r->n, b);
            any = true;
        }
    }
    *lo = a;
    *hi = b > a ? b : a;
    return any;
}

static size_t row_add(tl_overview *ov, size_t ri, int64_t thread)
{
    if (ov->nrows == ov->cap) {
        size_t nc = ov->cap ? 2 * ov->cap : 16;
        tl_ov_row *nr = realloc(ov->rows, nc * sizeof *nr);
        if (!nr)
            return SIZE_MAX;
        ov->rows = nr;
        ov->cap = nc;
    }
    uint32_t *bins = calloc(ov->nbins, sizeof *bins);
    if (!bins)
        return SIZE_MAX;
    tl_ov_row *r = &ov->rows[ov->nrows];
    r->rank_index = ri;
    r->thread = thread;
    r->bins = bins;
    r->ncalls = 0;
    return ov->nrows++;
}

/* The row of (rank ri, thread) among the rank's rows [first, nrows),
 * added when new; SIZE_MAX when out of memory. */
static size_t row_find(tl_overview *ov, size_t first, size_t ri, int64_t thread)
{
    for (size_t k = first; k < ov->nrows; k++)
        if (ov->rows[k].thread == thread)
            return k;
    if (thread >= 0 && ov->nrows - first >= TL_OV_THREADS) /* the rest: the "other" row */
        return row_find(ov, first, ri, -1);
    return row_add(ov, ri, thread);
}

/* Starts are mostly in order: a run of calls in one bin is counted in a
 * register, not by incrementing the same memory cell call after call.
 * False when a start lies outside [t_min, t_max] (a wrong hint). */
static bool count_plain(tl_overview *ov, tl_ov_row *row, const region *r)
{
    uint32_t *bins = row->bins;
    uint64_t nb = ov->nbins, cur = 0, run = 0;
    bool ok = true;
    for (size_t i = 0; i < r->n; i++) {
        uint64_t b = ((uint64_t)r->start_ns[i] - (uint64_t)ov->t_min) >> ov->shift;
        if (b == cur) {
            run++;
            continue;
        }
        if (b >= nb) {
            ok = false;
            b = nb - 1;
        }
        bins[cur] += (uint32_t)run;
        cur = b;
        run = 1;
    }
    bins[cur] += (uint32_t)run;
    row->ncalls += r->n;
    return ok;
}

static bool count_threads(tl_overview *ov, size_t first, size_t ri, const region *r)
{
    size_t last = ov->nbins - 1, cur = SIZE_MAX;
    int64_t cur_tid = 0;
    for (size_t i = 0; i < r->n; i++) {
        int64_t tid = r->thread_ids[i] >= 0 ? r->thread_ids[i] : -1;
        if (cur == SIZE_MAX || tid != cur_tid) { /* runs of one thread are the rule */
            cur = row_find(ov, first, ri, tid);
            if (cur == SIZE_MAX)
                return false;
            cur_tid = tid;
        }
        uint64_t b = ((uint64_t)r->start_ns[i] - (uint64_t)ov->t_min) >> ov->shift;
        if (b > last) {
            ov->out_of_span = true;
            b = last;
        }
        ov->rows[cur].bins[b]++;
        ov->rows[cur].ncalls++;
    }
    return true;
}

static int row_cmp(const void *a, const void *b)
{
    const tl_ov_row *x = a, *y = b;
    if (x->rank_index != y->rank_index)
        return x->rank_index < y->rank_index ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static bool count_rank(tl_overview *ov, const profile *p, size_t ri, const region_filter *f)
{
    const rank_data *rk = &p->ranks[ri];
    size_t first = ov->nrows, plain = SIZE_MAX;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (!region_counted(r, f))
            continue;
        if (r->thread_ids) {
            if (!count_threads(ov, first, ri, r))
                return false;
            continue;
        }
        plain = plain == SIZE_MAX ? row_find(ov, first, ri, -1) : plain;
        if (plain == SIZE_MAX)
            return false;
        if (!count_plain(ov, &ov->rows[plain], r))
            ov->out_of_span = true;
    }
    return true;
}

static bool build_with(const profile *p, const region_filter *f, size_t max_bins, bool lo_known,
                       tl_overview *out)
{
    if (!span_of(p, f, lo_known, &out->t_min, &out->t_max))
        return true; /* no calls: no rows */
    uint64_t span = (uint64_t)out->t_max - (uint64_t)out->t_min;
    max_bins = max_bins ? max_bins : 1;
    while (out->shift < 63 && (span >> out->shift) >= max_bins)
        out->shift++;
    out->nbins = (size_t)(span >> out->shift) + 1;
    for (size_t ri = 0; ri < p->nranks; ri++)
        if (rank_counted(&p->ranks[ri], f) && !count_rank(out, p, ri, f))
            return false;
    if (out->nrows > 1)
        qsort(out->rows, out->nrows, sizeof *out->rows, row_cmp);
    for (size_t k = 0; k < out->nrows; k++)
        out->ncalls += out->rows[k].ncalls;
    return true;
}

bool tl_overview_build(const profile *p, const region_filter *f, size_t max_bins, tl_overview *out)
{
    /* The profile's first start, when it has one, spares reading every
     * start twice (100M calls: 0.8 GB); a start before it is caught while
     * counting, and the count is done again from the columns alone. */
    memset(out, 0, sizeof *out);
    if (p->nranks > TL_OV_FULL_RANKS) { /* the bins of many ranks stay within a few MiB */
        max_bins = max_bins / (p->nranks / TL_OV_FULL_RANKS + 1);
        max_bins = max_bins < 64 ? 64 : max_bins;
    }
    bool hint = !f && p->has_min_start;
    out->t_min = p->min_start_ns;
    bool ok = build_with(p, f, max_bins, hint, out);
    if (ok && !out->out_of_span)
        return true;
    tl_overview_free(out);
    if (!ok || !hint)
        return false;
    ok = build_with(p, f, max_bins, false, out);
    if (!ok || out->out_of_span) { /* out of span from the columns' own span: out of memory only */
        tl_overview_free(out);
        return false;
    }
    return true;
}

void tl_overview_free(tl_overview *ov)
{
    for (size_t k = 0; k < ov->nrows; k++)
        free(ov->rows[k].bins);
    free(ov->rows);
    memset(ov, 0, sizeof *ov);
}

uint64_t tl_overview_columns(const tl_overview *ov, size_t r, const tl_view *v, uint64_t *cols)
{
    memset(cols, 0, (size_t)(v->width > 0 ? v->width : 0) * sizeof *cols);
    if (r >= ov->nrows)
        return 0;
    const uint32_t *bins = ov->rows[r].bins;
    uint64_t max = 0;
    for (size_t b = 0; b < ov->nbins; b++) {
        if (!bins[b])
            continue;
        int64_t t = (int64_t)((uint64_t)ov->t_min + ((uint64_t)b << ov->shift));
        int64_t x = tl_time_col(v, t);
        if (x < 0 || x >= v->width)
            continue;
        cols[x] += bins[b];
        max = cols[x] > max ? cols[x] : max;
    }
    return max;
}

static uint64_t pow10u(unsigned k)
{
    uint64_t p = 1;
    while (k--)
        p *= 10;
    return p;
}

void tl_overview_thresholds(uint64_t max, uint64_t *t1, uint64_t *t2)
{
    unsigned d = 0; /* floor(log10(max)) */
    for (uint64_t m = max; m >= 10; m /= 10)
        d++;
    *t1 = pow10u(d / 3);
    *t2 = pow10u(2 * d / 3);
    *t1 = *t1 < 2 ? 2 : *t1;
    if (*t2 <= *t1)
        *t2 = *t1 == 2 ? 10 : *t1 * 10;
}

int tl_overview_level(uint64_t c, uint64_t t1, uint64_t t2)
{
    return c == 0 ? -1 : c < t1 ? 0 : c < t2 ? 1 : 2;
}

/* ------------------------------------------------------------ drawing */

/* A power of ten or 2, exactly: "2", "100", "10k", "1M", "10G". */
static void count_label(char *buf, size_t len, uint64_t n)
{
    static const char unit[] = {'\0', 'k', 'M', 'G', 'T', 'P'};
    unsigned u = 0;
    while (n >= 1000 && n % 1000 == 0 && u + 1 < sizeof unit) {
        n /= 1000;
        u++;
    }
    if (u)
        snprintf(buf, len, "%llu%c", (unsigned long long)n, unit[u]);
    else
        snprintf(buf, len, "%llu", (unsigned long long)n);
}

size_t tl_overview_lane(const tl_overview *ov, size_t r, const lanes_index *ix)
{
    if (r >= ov->nrows || !ix)
        return SIZE_MAX;
    const tl_ov_row *row = &ov->rows[r];
    size_t k = row->rank_index;
    if (k >= ix->prof->nranks)
        return SIZE_MAX;
    if (row->thread >= 0)
        return lanes_find_lane(ix, k, LANE_THREAD, row->thread);
    size_t l = lanes_find_lane(ix, k, LANE_RANK, -1);
    bool alone = (r == 0 || ov->rows[r - 1].rank_index != k) &&
                 (r + 1 == ov->nrows || ov->rows[r + 1].rank_index != k);
    if (l == SIZE_MAX && alone && ix->rank_lane0[k] < ix->rank_lane0[k + 1])
        l = ix->rank_lane0[k]; /* a rank without thread ids: its first inferred lane */
    return l;
}

/* ------------------------------------------------------------ cursor */

/* Rows shown at once: the rows area less the legend and the computing
 * line, and a line saying how many more when they do not all fit. */
static size_t ov_page(const tl_state *s)
{
    const tl_geo *g = &s->geo;
    int room = g->rows_y >= 0 ? s->area.y + s->area.h - g->rows_y - 2 : 0;
    if (room < 1)
        return 0;
    return s->ov.nrows > (size_t)room ? (size_t)room - 1 : s->ov.nrows;
}

/* The cursor row within the rows and on screen (the area may have shrunk). */
static void ov_keep_visible(tl_state *s)
{
    size_t n = s->ov.nrows, page = ov_page(s);
    s->ov_cur = n == 0 ? 0 : s->ov_cur < n ? s->ov_cur : n - 1;
    if (page == 0) {
        s->ov_top = s->ov_cur;
        return;
    }
    if (s->ov_cur < s->ov_top)
        s->ov_top = s->ov_cur;
    if (s->ov_cur >= s->ov_top + page)
        s->ov_top = s->ov_cur - page + 1;
    if (s->ov_top > n - page)
        s->ov_top = n - page;
}

void tl_overview_move(tl_state *s, long delta, bool page)
{
    if (s->ov.nrows == 0)
        return;
    long step = page ? (long)ov_page(s) - 1 : 1;
    step = step > 1 ? step : 1;
    long d = delta < 0 ? -step : delta > 0 ? step : 0;
    if (!page)
        d = delta;
    long last = (long)s->ov.nrows - 1, r = (long)s->ov_cur + d;
    s->ov_cur = (size_t)(r < 0 ? 0 : r > last ? last : r);
    if (page) {
        long t = (long)s->ov_top + d;
        s->ov_top = (size_t)(t < 0 ? 0 : t);
    }
    ov_keep_visible(s);
}

void tl_overview_hand_over(tl_state *s)
{
    size_t l = tl_overview_lane(&s->ov, s->ov_cur, s->ix);
    const tl_ov_row *row = s->ov_cur < s->ov.nrows ? &s->ov.rows[s->ov_cur] : NULL;
    /* A thread whose calls all ran as tasks has no lane of its own: its
     * first task's, which the task grouping keeps under the thread's row. */
    for (size_t g = 0; l == SIZE_MAX && row && row->thread >= 0 && g < s->ngroups; g++)
        if (s->groups[g].rank_index == row->rank_index && s->groups[g].thread == row->thread &&
            s->groups[g].ntasks > 0)
            l = s->groups[g].tasks[0];
    if (l != SIZE_MAX && s->first_row && s->first_row[l] != SIZE_MAX)
        s->cur_row = s->first_row[l];
}

/* ------------------------------------------------------------ drawing */

static void draw_label(const tl_overview *ov, size_t k, ui_ctx *ctx, const tl_geo *g, int y,
                       bool cur)
{
    const theme_glyphs *gl = theme_glyphs_get(ctx->grid.ascii);
    const tl_ov_row *row = &ov->rows[k];
    const rank_data *rk = &ctx->prof->ranks[row->rank_index];
    bool alone = (k == 0 || ov->rows[k - 1].rank_index != row->rank_index) &&
                 (k + 1 == ov->nrows || ov->rows[k + 1].rank_index != row->rank_index);
    char text[160], nb[48];
    if (row->thread >= 0)
        snprintf(text, sizeof text, "r%d %s", rk->rank,
                 rank_thread_name(rk, row->thread, nb, sizeof nb));
    else if (alone)
        snprintf(text, sizeof text, "r%d", rk->rank);
    else /* beside thread rows: calls without a thread id, or past TL_OV_THREADS */
        snprintf(text, sizeof text, "r%d other", rk->rank);
    if (cur) { /* as the lanes mark theirs (tl_draw.c) */
        grid_fill(&ctx->grid, (rect){g->x, y, g->gutter - 1, 1}, ' ', ROLE_SELECTED, 0);
        grid_put_cp(&ctx->grid, g->x, y, gl->marker, ROLE_SELECTED, 0);
    }
    grid_put_text_mid(&ctx->grid, g->x + 1, y, g->gutter - 2, text,
                      cur ? ROLE_SELECTED : ROLE_HEADER, 0);
    grid_put_cp(&ctx->grid, g->x + g->gutter - 1, y, gl->vline, ROLE_DIM, 0);
}

static void draw_legend(ui_ctx *ctx, const tl_geo *g, int y, uint64_t t1, uint64_t t2)
{
    const theme_glyphs *gl = theme_glyphs_get(ctx->grid.ascii);
    char a[24], b[24], line[200];
    count_label(a, sizeof a, t1);
    count_label(b, sizeof b, t2);
    char c[3][5];
    for (int k = 0; k < 3; k++)
        c[k][utf8_encode(gl->dense[k], c[k])] = '\0';
    snprintf(line, sizeof line, "overview: calls starting per column (approx.) %s 1+ %s %s+ %s %s+",
             c[0], c[1], a, c[2], b);
    grid_put_text(&ctx->grid, g->x + 1, y, g->w - 2, line, ROLE_DIM, 0);
}

void tl_overview_draw(tl_state *s, ui_ctx *ctx)
{
    const tl_geo *g = &s->geo;
    const tl_overview *ov = &s->ov;
    /* Rows below the ruler from ov_top, then the legend and the computing line. */
    ov_keep_visible(s);
    size_t shown = ov_page(s), top = s->ov_top;
    uint64_t *all = calloc(shown ? shown * (size_t)g->tw : 1, sizeof *all);
    if (!all)
        return;
    uint64_t max = 0;
    for (size_t k = 0; k < shown; k++) {
        uint64_t m = tl_overview_columns(ov, top + k, &s->v, all + k * (size_t)g->tw);
        max = m > max ? m : max;
    }
    uint64_t t1, t2;
    tl_overview_thresholds(max, &t1, &t2);
    const theme_glyphs *gl = theme_glyphs_get(ctx->grid.ascii);
    int y = g->rows_y;
    for (size_t k = 0; k < shown; k++, y++) {
        bool cur = top + k == s->ov_cur;
        draw_label(ov, top + k, ctx, g, y, cur);
        const uint64_t *c = all + k * (size_t)g->tw;
        for (int x = 0; x < g->tw; x++) {
            int lv = tl_overview_level(c[x], t1, t2);
            if (lv >= 0)
                grid_put_cp(&ctx->grid, g->tx + x, y, gl->dense[lv], ROLE_DENSE, 0);
        }
        int cx = g->tx + s->cursor_x;
        if (cur && cx >= 0 && cx < ctx->grid.cols && y >= 0 && y < ctx->grid.rows)
            ctx->grid.cells[(size_t)y * (size_t)ctx->grid.cols + (size_t)cx].attr ^= GA_REVERSE;
    }
    if (shown < ov->nrows) {
        char more[64];
        snprintf(more, sizeof more, "+%zu more row%s", ov->nrows - shown,
                 ov->nrows - shown == 1 ? "" : "s");
        grid_put_text(&ctx->grid, g->x + 1, y++, g->w - 2, more, ROLE_DIM, 0);
    }
    if (shown)
        draw_legend(ctx, g, y++, t1, t2);
    grid_put_text(&ctx->grid, g->x + 1, y, g->w - 2, s->error, ROLE_WARNING, 0);
    free(all);
}
