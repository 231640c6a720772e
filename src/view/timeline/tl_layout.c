/* Timeline layout: view arithmetic and the cells of one lane row. */
#include "tl_layout.h"

#include <math.h>

#include "model/region.h"
#include "util/checked.h"

/* Candidates counted exactly per cell before estimating. */
#define TL_EXACT 8
/* From this many calls on a cell's count is only a lower bound. */
#define TL_DENSE_MIN 10

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t tl_col_time(const tl_view *v, int64_t x)
{
    return sat_add(v->t0, sat_mul(x, v->npc));
}

int64_t tl_time_col(const tl_view *v, int64_t t)
{
    return floor_div(sat_sub(t, v->t0), v->npc);
}

/* ------------------------------------------------------ view changes */

/* How far past the data's end the view may reach: nothing, so neither a
 * zoom out nor End shows time the profile does not have (the ruler would
 * read 833 ms on a 740 ms profile).  Only the whole columns of a fit may
 * end a fraction of a column after it. */
static int64_t right_margin(int64_t tmin, int64_t tmax)
{
    (void)tmin;
    (void)tmax;
    return 0;
}

int64_t tl_npc_max(int64_t tmin, int64_t tmax, int width)
{
    int64_t w = width > 0 ? width : 1;
    int64_t range = sat_sub(sat_add(tmax, right_margin(tmin, tmax)), tmin);
    range = range > 1 ? range : 1;
    int64_t mx = range / w + (range % w != 0);
    int64_t cap = INT64_MAX / (4 * (w + 1));
    mx = mx < cap ? mx : cap;
    return mx > 1 ? mx : 1;
}

void tl_clamp(tl_view *v, int64_t tmin, int64_t tmax)
{
    int64_t mx = tl_npc_max(tmin, tmax, v->width);
    v->npc = v->npc < 1 ? 1 : v->npc > mx ? mx : v->npc;
    if (tmax < tmin)
        return;
    /* The right edge stops at the end plus the margin, the left edge at
     * the start (no time before the data); the left wins when the view is
     * a rounding wider than both allow. */
    int64_t hi = sat_add(tmax, right_margin(tmin, tmax));
    int64_t w = v->width > 0 ? v->width : 1;
    if (tl_col_time(v, w) > hi)
        v->t0 = sat_sub(hi, sat_mul(w, v->npc));
    if (v->t0 < tmin)
        v->t0 = tmin;
}

void tl_fit(tl_view *v, int64_t tmin, int64_t tmax)
{
    int64_t w = v->width > 0 ? v->width : 1;
    int64_t span = tmax > tmin ? sat_sub(tmax, tmin) : 1;
    v->npc = span / w + (span % w != 0);
    v->t0 = tmin;
    tl_clamp(v, tmin, tmax);
}

bool tl_zoom(tl_view *v, int col, int dir, int64_t tmin, int64_t tmax)
{
    int64_t mx = tl_npc_max(tmin, tmax, v->width);
    int64_t npc = dir > 0 ? v->npc / 2 : sat_mul(v->npc, 2);
    npc = npc < 1 ? 1 : npc > mx ? mx : npc;
    if (npc == v->npc)
        return false;
    /* The start time of column col stays where it is (the cursor's time). */
    int64_t tc = tl_col_time(v, col);
    v->t0 = sat_sub(tc, sat_mul(col, npc));
    v->npc = npc;
    tl_clamp(v, tmin, tmax);
    return true;
}

void tl_pan(tl_view *v, int64_t cols, int64_t tmin, int64_t tmax)
{
    v->t0 = sat_add(v->t0, sat_mul(cols, v->npc));
    tl_clamp(v, tmin, tmax);
}

void tl_show_span(tl_view *v, int64_t s, int64_t e, int64_t tmin, int64_t tmax)
{
    int64_t w = v->width > 0 ? v->width : 1;
    int64_t span = e > s ? sat_sub(e, s) : 1;
    int64_t want = sat_add(span, span / 3);
    v->npc = want / w + (want % w != 0);
    v->npc = v->npc < 1 ? 1 : v->npc;
    v->t0 = sat_sub(sat_add(s, span / 2), sat_mul(w / 2, v->npc));
    tl_clamp(v, tmin, tmax);
}

void tl_center_at(tl_view *v, int64_t t, int col, int64_t tmin, int64_t tmax)
{
    v->t0 = sat_sub(t, sat_mul(col, v->npc));
    tl_clamp(v, tmin, tmax);
}

/* ----------------------------------------------------------- layout */

int64_t tl_await_cells(int64_t ncells, int64_t dur, int64_t await)
{
    if (ncells <= 0 || dur <= 0 || await <= 0)
        return 0;
    if (await >= dur)
        return ncells;
    double x = (double)ncells * (double)await / (double)dur;
    int64_t k = (int64_t)floor(x + 0.5);
    return k < 0 ? 0 : k > ncells ? ncells : k;
}

bool tl_await_hatched(int64_t x, int64_t ncells, int64_t k)
{
    if (ncells <= 0 || k <= 0 || x < 0 || x >= ncells)
        return false;
    /* Column x is hatched when floor((x+1)k/n) steps past floor(xk/n);
     * 128-bit products, as a deep zoom makes n and k large. */
    __extension__ typedef __int128 i128;
    return (i128)(x + 1) * k / ncells > (i128)x * k / ncells;
}

/* A call's task row, -1 when it has none. */
static int64_t task_of(const region *r, size_t i)
{
    return r->task_ids ? r->task_ids[i] : -1;
}

/* Children beyond this many are not examined (the hatch is spread). */
#define TL_AWAIT_KIDS_MAX 4096

bool tl_await_in_children(const rank_data *rk, uint32_t call)
{
    size_t i = 0;
    const region *r = rank_call_region(rk, call, &i);
    if (!r || !r->await_ns || r->await_ns[i] <= 0 || !rk->calls || task_of(r, i) < 0)
        return false;
    const uint32_t *kids;
    size_t nk = rank_call_children(rk, call, &kids);
    if (nk == 0 || nk > TL_AWAIT_KIDS_MAX)
        return false;
    int64_t task = task_of(r, i), explained = 0;
    for (size_t k = 0; k < nk; k++) {
        size_t j = 0;
        const region *cr = rank_call_region(rk, kids[k], &j);
        if (!cr)
            continue;
        if (task_of(cr, j) != task)
            explained = ck_add(explained, cr->end_ns[j] - cr->start_ns[j]);
        else if (cr->await_ns && cr->await_ns[j] > 0)
            explained = ck_add(explained, cr->await_ns[j]);
    }
    int64_t aw = r->await_ns[i];
    return explained >= aw - aw / 100 && explained <= aw + aw / 100;
}

bool tl_col_awaited(const rank_data *rk, const tl_view *v, const tl_seg *sg, int x)
{
    if (!sg->await_placed)
        return tl_await_hatched(x - sg->await_c0, sg->await_n, sg->await_k);
    const uint32_t *kids;
    size_t z = rank_call_children(rk, sg->call, &kids);
    int64_t mid = sat_add(tl_col_time(v, x), v->npc / 2);
    /* The last child starting at or before mid (children are by start). */
    size_t lo = 0, hi = z;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        int64_t cs, ce;
        lanes_call_span(rk, kids[m], &cs, &ce);
        if (cs <= mid)
            lo = m + 1;
        else
            hi = m;
    }
    if (lo == 0)
        return false;
    size_t i = 0, j = 0;
    const region *pr = rank_call_region(rk, sg->call, &i);
    const region *cr = rank_call_region(rk, kids[lo - 1], &j);
    if (!pr || !cr || cr->end_ns[j] <= mid)
        return false;
    if (task_of(cr, j) != task_of(pr, i))
        return true; /* suspended while the executor ran it */
    if (!cr->await_ns || cr->await_ns[j] <= 0)
        return false;
    int64_t c0 = tl_time_col(v, cr->start_ns[j]);
    int64_t n = tl_time_col(v, lanes_visible_end(cr->start_ns[j], cr->end_ns[j]) - 1) - c0 + 1;
    return tl_await_hatched(x - c0, n,
                            tl_await_cells(n, cr->end_ns[j] - cr->start_ns[j], cr->await_ns[j]));
}

int tl_load_level(int64_t busy, int64_t span)
{
    if (span <= 0 || busy * 3 < span)
        return 0;
    return busy * 3 < 2 * span ? 1 : 2;
}

int tl_dense_level(size_t count)
{
    return count >= 10 ? 2 : count >= 4 ? 1 : 0;
}

typedef struct row_ctx {
    const lane *ln;
    const lane_row *row;
    const tl_view *v;
    tl_seg *out;
    size_t n, cap;
} row_ctx;

static void span_of(const row_ctx *c, size_t k, int64_t *s, int64_t *ve)
{
    int64_t e;
    lanes_call_span(c->ln->rk, lane_row_call(c->row, k), s, &e);
    *ve = lanes_visible_end(*s, e);
}

static void emit(row_ctx *c, int64_t x0, int64_t x1, tl_seg_kind kind, uint32_t call, size_t count)
{
    tl_seg *last = c->n ? &c->out[c->n - 1] : NULL;
    if (kind == TL_BAR && last && last->kind == TL_BAR && last->call == call && last->x1 == x0) {
        last->x1 = (int)x1;
        return;
    }
    if (c->n == c->cap)
        return;
    c->out[c->n++] = (tl_seg){(int)x0, (int)x1, kind, call, count, false, false, 0, 0, 0, false};
}

/* Of two calls meeting in cell [tc0, tc1), the one to draw there, or -1 when
 * the cell must show density (a call wholly inside it, or an overlap). */
static int64_t majority(const row_ctx *c, size_t a, int64_t tc0, int64_t tc1)
{
    int64_t sa, ea, sb = 0, eb = 0;
    span_of(c, a, &sa, &ea);
    size_t b = a + 1;
    for (; b < c->row->n && b < a + 1 + TL_EXACT; b++) {
        span_of(c, b, &sb, &eb);
        if (sb >= tc1)
            return -1;
        if (eb > tc0)
            break;
    }
    if (b >= c->row->n || b >= a + 1 + TL_EXACT)
        return -1;
    bool a_inside = sa >= tc0 && ea <= tc1, b_inside = sb >= tc0 && eb <= tc1;
    if (a_inside || b_inside || ea > sb)
        return -1;
    int64_t cov_a = (ea < tc1 ? ea : tc1) - (sa > tc0 ? sa : tc0);
    int64_t cov_b = (eb < tc1 ? eb : tc1) - (sb > tc0 ? sb : tc0);
    return (int64_t)(cov_a > cov_b ? a : b);
}

/* Columns from x on that the single call of entry k holds alone; next is
 * the first entry starting after column x. */
static int64_t bar_stop(const row_ctx *c, size_t k, int64_t x, size_t next)
{
    int64_t s, ve;
    span_of(c, k, &s, &ve);
    int64_t stop = tl_time_col(c->v, ve - 1);
    if (next < c->row->n) {
        int64_t s2, e2;
        span_of(c, next, &s2, &e2);
        int64_t c2 = tl_time_col(c->v, s2);
        stop = c2 < stop ? c2 : stop;
    }
    stop = stop > c->v->width ? c->v->width : stop;
    return stop > x ? stop : x + 1;
}

/* Edges and the awaited share of a bar segment. */
static void finish_bar(const row_ctx *c, tl_seg *sg)
{
    size_t i = 0;
    const region *r = rank_call_region(c->ln->rk, sg->call, &i);
    if (!r)
        return;
    int64_t s = r->start_ns[i], e = r->end_ns[i];
    int64_t sc = tl_time_col(c->v, s), ec = tl_time_col(c->v, lanes_visible_end(s, e) - 1);
    sg->edge_left = sc >= 0 && sc >= sg->x0 - 1;
    sg->edge_right = ec < c->v->width && ec <= sg->x1;
    sg->await_c0 = sc;
    sg->await_n = sat_add(sat_sub(ec, sc), 1);
    sg->await_k = 0;
    if (r->await_ns && r->await_ns[i] > 0) {
        sg->await_k = tl_await_cells(sg->await_n, e - s, r->await_ns[i]);
        sg->await_placed = tl_await_in_children(c->ln->rk, sg->call);
    }
}

/* Lays out the cell at x holding cnt calls from entry first on; returns
 * the next column to look at.  next_start is the first entry starting at or
 * after the cell's end. */
static int64_t place(row_ctx *c, int64_t x, size_t cnt, size_t first, size_t next_start)
{
    int64_t tc0 = tl_col_time(c->v, x), tc1 = tl_col_time(c->v, x + 1);
    int64_t win = cnt == 1 ? (int64_t)first : cnt == 2 ? majority(c, first, tc0, tc1) : -1;
    if (win < 0) {
        emit(c, x, x + 1, TL_DENSE, lane_row_call(c->row, first), cnt);
        return x + 1;
    }
    if (cnt == 2) {
        emit(c, x, x + 1, TL_BAR, lane_row_call(c->row, win), 1);
        return x + 1;
    }
    int64_t stop = bar_stop(c, first, x, next_start);
    emit(c, x, stop, TL_BAR, lane_row_call(c->row, first), 1);
    return stop;
}

/* Rows without overlaps (the usual case): one sweep from left to right,
 * each cell found by galloping from the last.  The first call starting in
 * the current column is known to lie in [m_lo, m_hi]; a cell that the block
 * starts alone prove to hold TL_DENSE_MIN calls or more is drawn dense
 * without visiting a call, so a screen of dense cells costs the same
 * whatever the number of calls behind it. */
static void layout_disjoint(row_ctx *c)
{
    const lane *ln = c->ln;
    const lane_row *row = c->row;
    int64_t x = 0, w = c->v->width;
    size_t m_lo = lane_row_lower_start(ln, row, tl_col_time(c->v, 0)), m_hi = m_lo;
    while (x < w) {
        int64_t tc0 = tl_col_time(c->v, x), tc1 = tl_col_time(c->v, x + 1);
        size_t a1, e1;
        lane_row_bracket(row, m_lo, tc1, &a1, &e1);
        if (a1 >= m_hi + TL_DENSE_MIN) { /* lo <= m <= m_hi and hi >= a1 */
            emit(c, x, x + 1, TL_DENSE, lane_row_call(row, m_lo), a1 - m_hi);
            m_lo = a1;
            m_hi = e1;
            x++;
            continue;
        }
        size_t m = lane_row_resolve(ln, row, m_lo, m_hi, tc0);
        size_t hi = lane_row_resolve(ln, row, a1 > m ? a1 : m, e1, tc1), lo = m;
        if (m > 0) {
            int64_t s, ve;
            span_of(c, m - 1, &s, &ve);
            lo = ve > tc0 ? m - 1 : m;
        }
        m_lo = m_hi = hi; /* entries before it start before the next column */
        if (hi == lo) {
            if (hi >= row->n)
                break;
            int64_t s, ve;
            span_of(c, hi, &s, &ve);
            int64_t nx = tl_time_col(c->v, s);
            x = nx > x ? nx : x + 1;
            continue;
        }
        x = place(c, x, hi - lo, lo, hi);
    }
}

/* Rows where calls overlap (explicit ids): counted cell by cell. */
static void layout_general(row_ctx *c)
{
    const lane *ln = c->ln;
    const lane_row *row = c->row;
    int64_t x = 0, w = c->v->width;
    while (x < w) {
        int64_t tc0 = tl_col_time(c->v, x), tc1 = tl_col_time(c->v, x + 1);
        size_t first;
        size_t cnt = lane_row_count(ln, row, tc0, tc1, TL_EXACT, &first);
        if (cnt == 0) {
            /* Skip the empty stretch in one step. */
            size_t f = lane_row_first_visible(ln, row, tc1);
            if (f >= row->n)
                break;
            int64_t s, ve;
            span_of(c, f, &s, &ve);
            int64_t nx = s < tc1 ? x + 1 : tl_time_col(c->v, s);
            x = nx > x ? nx : x + 1;
            continue;
        }
        x = place(c, x, cnt, first, cnt == 1 ? lane_row_lower_start(ln, row, tc1) : 0);
    }
}

size_t tl_layout_row(const lane *ln, const lane_row *row, const tl_view *v, tl_seg *out, size_t cap)
{
    row_ctx c = {ln, row, v, out, 0, cap};
    if (row->n > 0 && v->width > 0) {
        if (row->disjoint)
            layout_disjoint(&c);
        else
            layout_general(&c);
    }
    for (size_t k = 0; k < c.n; k++)
        if (out[k].kind == TL_BAR)
            finish_bar(&c, &out[k]);
    return c.n;
}
