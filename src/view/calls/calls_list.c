/* calls_list: the rows of the calls view, one (region, call) pair each,
 * built once per region and scope and sorted once per sort column, so a
 * region with millions of calls costs one sort and then only the visible
 * rows per frame. */
#include "calls_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/filter.h"
#include "model/select.h"
#include "util/timefmt.h"

const calls_colspec calls_cols[CC_N] = {
    {"duration", 9, true, "slowest first", "fastest first"},
    {"excl", 9, true, "largest first", "smallest first"},
    {"held", 9, true, "largest first", "smallest first"},
    {"awaited", 9, true, "largest first", "smallest first"},
    {"GPU", 9, true, "largest first", "smallest first"},
    {"start", 10, false, "earliest first", "latest first"},
    {"rank", 6, false, "lowest first", "highest first"},
    {"thread", 0, false, "by table row", "by table row, last first"},
    {"task", 0, false, "by table row", "by table row, last first"},
};

/* ------------------------------------------------------------ values */

int64_t calls_ns_diff(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* Exclusive time of rank call g (its duration when nesting is missing). */
int64_t calls_rank_excl(const rank_data *rk, size_t g, int64_t dur)
{
    return rk->calls && g < rk->calls->n ? rank_call_excl(rk, g) : dur;
}

/* A column's value for call i of r; -1 where the call has none. */
static int64_t value_of(const region *r, size_t i, int col, int64_t zero)
{
    int64_t dur = calls_ns_diff(r->end_ns[i], r->start_ns[i]);
    switch (col) {
    case CC_DUR:
        return dur;
    case CC_EXCL:
        return calls_rank_excl(r->owner, r->gidx0 + i, dur);
    case CC_HELD:
        return dur - (r->await_ns ? r->await_ns[i] : 0);
    case CC_AWAIT:
        return r->await_ns ? r->await_ns[i] : -1;
    case CC_GPU:
        return r->gpu_ns && r->gpu_ns[i] >= 0 ? r->gpu_ns[i] : -1;
    case CC_START:
        return calls_ns_diff(r->start_ns[i], zero);
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
const char *calls_cell_text(const calls_state *s, const ui_ctx *ctx, const call_row *row, int col,
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

void calls_reset(calls_state *s)
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
    s->tb.cursor = s->tb.top = 0;
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
void calls_sort(calls_state *s, const ui_ctx *ctx)
{
    call_row at = s->n ? s->rows[s->tb.cursor] : (call_row){0, 0, 0};
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
            s->tb.cursor = j;
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
            s->durs[j] = calls_ns_diff(r->end_ns[i], r->start_ns[i]);
        }
    }
    s->n = n;
    return true;
}

/* The widest thread (or task) name among the calls of r: each table row
 * used is measured once; ids outside the table (named "thread N") only
 * in the first calls, as the column is capped anyway.  -1: no memory. */
static int widest_used(const region *r, const grid *g, bool tasks)
{
    enum { STRAYS_MAX = 4096 };
    const rank_data *rk = r->owner;
    const int64_t *ids = tasks ? r->task_ids : r->thread_ids;
    size_t n = tasks ? rk->tasks.n : rk->threads.n, strays = 0;
    uint8_t *used = calloc(n ? n : 1, 1);
    if (!used)
        return -1;
    int w = 0;
    for (size_t i = 0; ids && r->has_event_data && i < r->n; i++) {
        int64_t id = ids[i];
        bool in_table = id >= 0 && (size_t)id < n;
        if (id < 0 || (in_table && used[id]) || (!in_table && strays++ >= STRAYS_MAX))
            continue;
        if (in_table)
            used[id] = 1;
        char buf[64];
        const char *name = tasks ? rank_task_name(rk, id, buf, sizeof buf)
                                 : rank_thread_name(rk, id, buf, sizeof buf);
        int nw = grid_text_width(g, name);
        w = nw > w ? nw : w;
    }
    free(used);
    return w;
}

/* The widest thread (or task) name of the listed calls, at least the
 * column's title (all a column of "-" needs when no call has one); 0 when
 * unknown (no memory). */
static int widest_name(const calls_state *s, const grid *g, bool tasks)
{
    int w = 0;
    for (size_t ri = 0; ri < s->nregs; ri++) {
        int rw = widest_used(s->regs[ri], g, tasks);
        if (rw < 0)
            return 0;
        w = rw > w ? rw : w;
    }
    int tw = (int)strlen(calls_cols[tasks ? CC_TASK : CC_THREAD].title);
    return w > tw ? w : tw;
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
    s->name_w[0] = widest_name(s, &ctx->grid, false);
    s->name_w[1] = widest_name(s, &ctx->grid, true);
    if (!s->has[s->sort_col]) {
        s->sort_col = CC_DUR;
        s->desc = true;
    }
    calls_sort(s, ctx);
    s->tb.cursor = 0;
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
void calls_sync(calls_state *s, ui_ctx *ctx)
{
    const region *sel = ctx->sel.region;
    if (!sel) {
        if (s->built)
            calls_reset(s);
        return;
    }
    /* A regions row asked for all ranks or its own rank (Enter on it). */
    if (ctx->drill_scope) {
        s->one_rank = ctx->drill_scope == UI_DRILL_RANK;
        ctx->drill_scope = 0;
    }
    int scope = s->one_rank ? sel->rank : -1;
    if (!s->built || !s->name || strcmp(s->name, sel->name) != 0 || scope != s->scope)
        calls_build(s, ctx, sel);
    if (ctx->sel.call >= 0 && (ctx->sel.rank != s->sync_rank || ctx->sel.call != s->sync_call)) {
        s->sync_rank = ctx->sel.rank;
        s->sync_call = ctx->sel.call;
        size_t j = find_row(s, ctx->sel.rank, ctx->sel.call);
        if (j < s->n)
            s->tb.cursor = j;
    }
}

/* Publishes the cursor's call as the shared selection. */
void calls_select_cursor(calls_state *s, ui_ctx *ctx)
{
    if (s->n == 0)
        return;
    const call_row *row = &s->rows[s->tb.cursor];
    int rank = s->regs[row->ri]->rank;
    int64_t g = row_gidx(s, row);
    ui_select_call(ctx, rank, g);
    s->sync_rank = rank;
    s->sync_call = g;
}
