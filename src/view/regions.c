/* regions: view 3, one row per region name with its ranks merged
 * (calltree.h merged_regions_build), per-rank rows on demand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltree.h"
#include "model/merged.h"
#include "model/stored_view.h"
#include "table.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "ui/view.h"

enum reg_col {
    RC_NAME,
    RC_CALLS,
    RC_TOTAL,
    RC_MEAN,
    RC_MIN,
    RC_MAX,
    RC_P50,
    RC_P95,
    RC_P99,
    RC_STD,
    RC_EXCL,
    RC_AWAIT,
    RC_GPU,
    RC_IMBAL,
    RC_SLOW,
    RC_COUNT
};

/* drop: on narrow screens the highest numbers go first (min and the outer
 * percentiles before the figures people sort by). */
static const table_col reg_cols[RC_COUNT] = {
    [RC_NAME] = {"Region", 14, 0, true, true},  [RC_CALLS] = {"Calls", 8, 0, false, false},
    [RC_TOTAL] = {"Total", 9, 0, false, false}, [RC_MEAN] = {"Mean", 9, 8, false, false},
    [RC_MIN] = {"Min", 9, 12, false, false},    [RC_MAX] = {"Max", 9, 2, false, false},
    [RC_P50] = {"P50", 9, 11, false, false},    [RC_P95] = {"P95", 9, 3, false, false},
    [RC_P99] = {"P99", 9, 10, false, false},    [RC_STD] = {"Std", 9, 9, false, false},
    [RC_EXCL] = {"Excl", 9, 1, false, false},   [RC_AWAIT] = {"Await", 6, 6, false, false},
    [RC_GPU] = {"GPU", 9, 5, false, false},     [RC_IMBAL] = {"Imbal", 6, 4, false, false},
    [RC_SLOW] = {"Slow", 5, 7, false, false},
};

/* The merged statistic behind each numeric column. */
static const merged_stat reg_stat[RC_COUNT] = {
    [RC_CALLS] = MS_CALLS,     [RC_TOTAL] = MS_TOTAL,       [RC_MEAN] = MS_MEAN,
    [RC_MIN] = MS_MIN,         [RC_MAX] = MS_MAX,           [RC_P50] = MS_P50,
    [RC_P95] = MS_P95,         [RC_P99] = MS_P99,           [RC_STD] = MS_STD,
    [RC_EXCL] = MS_EXCL,       [RC_AWAIT] = MS_AWAIT_SHARE, [RC_GPU] = MS_GPU,
    [RC_IMBAL] = MS_IMBALANCE,
};

typedef struct reg_row {
    uint32_t m; /* merged region */
    /* A breakdown row: an index into its ranks, or nranks + k for absent[k]
     * (a rank that does not have the region: "not run"); -1 merged. */
    int32_t rank;
} reg_row;

/* A breakdown row of a rank without the region. */
static bool row_absent(const merged_region *m, reg_row r)
{
    return r.rank >= 0 && (size_t)r.rank >= m->nranks;
}

typedef struct regions_state {
    merged_region *m;
    size_t nm;
    bool built;
    char error[SV_MSG_MAX];
    uint32_t *order; /* merged regions in sort order */
    reg_row *rows;
    size_t nrows, cap;
    table tb;
    bool breakdown;
    bool stale;
    bool filter_on;
    char filter_text[sizeof((ui_ctx *)0)->search_text];
    const region *seen_sel;
    bool drawn; /* once: the first row is selected when nothing is */
    /* Built while the statistics were computed (ui_stats_pending): from
     * the file's stored summaries (view, whose regions stand for real's),
     * or nothing to show yet (view NULL).  Rebuilt once they are in. */
    bool pending;
    profile *view;
    const profile *real;
} regions_state;

/* ------------------------------------------------------------- sorting */

typedef struct sort_item {
    double key;
    bool known;
    bool desc;
    uint32_t idx; /* merged regions are in name order: idx breaks ties */
} sort_item;

static int cmp_item(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    if (x->known != y->known)
        return x->known ? -1 : 1; /* unknown last, whatever the direction */
    if (x->known && x->key != y->key) {
        int c = x->key < y->key ? -1 : 1;
        return x->desc ? -c : c;
    }
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static sort_item reg_sort_item(const regions_state *s, uint32_t i, size_t col, bool desc)
{
    const merged_region *m = &s->m[i];
    sort_item it = {0, true, desc, i};
    if (col == RC_NAME) {
        it.key = (double)i;
    } else if (col == RC_SLOW) {
        it.known = m->slowest_rank >= 0;
        it.key = m->slowest_rank;
    } else {
        it.known = (m->known >> reg_stat[col]) & 1u;
        it.key = it.known ? m->v[reg_stat[col]] : 0;
    }
    return it;
}

static void reg_sort(regions_state *s)
{
    sort_item *v = malloc((s->nm ? s->nm : 1) * sizeof *v);
    if (!v)
        return; /* the old order stays */
    for (size_t i = 0; i < s->nm; i++)
        v[i] = reg_sort_item(s, (uint32_t)i, s->tb.sort_col, s->tb.sort_desc);
    qsort(v, s->nm, sizeof *v, cmp_item);
    for (size_t i = 0; i < s->nm; i++)
        s->order[i] = v[i].idx;
    free(v);
    s->stale = true;
}

/* ----------------------------------------------------------------- rows */

static bool push_row(regions_state *s, reg_row r)
{
    if (s->nrows == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        reg_row *nr = realloc(s->rows, nc * sizeof *nr);
        if (!nr)
            return false;
        s->rows = nr;
        s->cap = nc;
    }
    s->rows[s->nrows++] = r;
    return true;
}

static reg_row cursor_row(const regions_state *s)
{
    return s->tb.cursor < s->nrows ? s->rows[s->tb.cursor] : (reg_row){UINT32_MAX, -1};
}

/* The per-rank rows of merged region i in rank order, the ranks that do
 * not have it among them. */
static bool push_breakdown(regions_state *s, uint32_t i)
{
    const merged_region *m = &s->m[i];
    size_t a = 0, r = 0;
    bool ok = true;
    while (ok && (a < m->nabsent || r < m->nranks)) {
        if (r < m->nranks && (a == m->nabsent || m->ranks[r]->rank < m->absent[a]))
            ok = push_row(s, (reg_row){i, (int32_t)r++});
        else
            ok = push_row(s, (reg_row){i, (int32_t)(m->nranks + a++)});
    }
    return ok;
}

static void reg_flatten(regions_state *s, const ui_ctx *ctx)
{
    reg_row keep = cursor_row(s);
    s->nrows = 0;
    bool ok = true;
    for (size_t k = 0; ok && k < s->nm; k++) {
        uint32_t i = s->order[k];
        if (ctx->filter_on && !ui_search_match(ctx, s->m[i].name))
            continue;
        ok = push_row(s, (reg_row){i, -1});
        ok = ok && (!s->breakdown || push_breakdown(s, i));
    }
    /* the cursor stays on its region (its merged row when sub-rows go) */
    size_t at = s->tb.cursor, fallback = s->nrows;
    for (size_t r = 0; r < s->nrows; r++) {
        if (s->rows[r].m != keep.m)
            continue;
        if (fallback == s->nrows)
            fallback = r;
        if (s->rows[r].rank == keep.rank) {
            fallback = r;
            break;
        }
    }
    if (fallback < s->nrows)
        at = fallback;
    s->tb.nrows = s->nrows;
    table_goto(&s->tb, at);
    s->stale = false;
}

static void reg_build(regions_state *s, ui_ctx *ctx)
{
    s->built = true;
    s->real = ctx->prof;
    s->pending = ui_stats_pending(ctx);
    if (s->pending && !stored_view_useful(ctx->prof))
        return; /* "computing…" until they are in */
    if (s->pending && !(s->view = stored_view_new(ctx->prof))) {
        snprintf(s->error, sizeof s->error, "out of memory (regions)");
        return;
    }
    sv_error err;
    sv_error_clear(&err);
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    if (merged_regions_build(s->view ? s->view : ctx->prof, f, &s->m, &s->nm, &err)) {
        snprintf(s->error, sizeof s->error, "%s", err.msg);
        return;
    }
    s->order = malloc((s->nm ? s->nm : 1) * sizeof *s->order);
    if (!s->order) {
        snprintf(s->error, sizeof s->error, "out of memory (regions)");
        return;
    }
    bool gpu = false, await = false;
    for (size_t i = 0; i < s->nm; i++) {
        s->order[i] = (uint32_t)i;
        gpu |= (s->m[i].known >> MS_GPU) & 1u;
        await |= (s->m[i].known >> MS_AWAIT_SHARE) & 1u;
    }
    size_t nranks = 0;
    for (size_t k = 0; k < ctx->prof->nranks; k++)
        nranks += filter_match_rank(f, ctx->prof->ranks[k].rank);
    bool multi = nranks > 1;
    s->tb.hidden = (gpu ? 0 : 1u << RC_GPU) | (await ? 0 : 1u << RC_AWAIT) |
                   (multi ? 0 : (1u << RC_IMBAL) | (1u << RC_SLOW));
    reg_sort(s);
}

/* Drops what was built (the rows stay: the cursor keeps its region). */
static void reg_unbuild(regions_state *s)
{
    merged_regions_free(s->m, s->nm);
    s->m = NULL;
    s->nm = 0;
    free(s->order);
    s->order = NULL;
    stored_view_free(s->view);
    s->view = NULL;
    s->error[0] = '\0';
    s->built = false;
    s->stale = true;
}

static void reg_ensure(regions_state *s, ui_ctx *ctx)
{
    if (s->built && s->pending && !ui_stats_pending(ctx))
        reg_unbuild(s); /* the statistics are in */
    if (!s->built)
        reg_build(s, ctx);
}

/* ------------------------------------------------------------ selection */

static region *row_region(const regions_state *s, reg_row r)
{
    if (r.m == UINT32_MAX || r.m >= s->nm)
        return NULL;
    const merged_region *m = &s->m[r.m];
    region *x = NULL;
    if (r.rank >= 0 && !row_absent(m, r))
        x = m->ranks[r.rank];
    for (size_t i = 0; !x && i < m->nranks; i++)
        if (m->ranks[i]->rank == m->slowest_rank)
            x = m->ranks[i];
    if (!x && m->nranks)
        x = m->ranks[0];
    /* The stored view's regions stand for the profile's own. */
    return s->view ? stored_view_real(s->view, s->real, x) : x;
}

static void reg_select(regions_state *s, ui_ctx *ctx)
{
    region *r = row_region(s, cursor_row(s));
    if (r && r != ctx->sel.region)
        ui_select_region(ctx, r);
    s->seen_sel = ctx->sel.region;
}

/* Another view selected a region: move to its row. */
static void reg_follow(regions_state *s, const ui_ctx *ctx)
{
    const region *sel = ctx->sel.region;
    s->seen_sel = sel;
    if (!sel || row_region(s, cursor_row(s)) == sel)
        return;
    for (size_t i = 0; i < s->nrows; i++) {
        const merged_region *m = &s->m[s->rows[i].m];
        if (s->rows[i].rank < 0 && strcmp(m->name, sel->name) == 0) {
            table_goto(&s->tb, i);
            return;
        }
    }
}

static int reg_search(regions_state *s, ui_ctx *ctx, int dir)
{
    size_t n = s->nrows;
    for (size_t step = 1; step <= n; step++) {
        size_t k = dir > 0 ? (s->tb.cursor + step) % n : (s->tb.cursor + n - step) % n;
        if (s->rows[k].rank < 0 && ui_search_match(ctx, s->m[s->rows[k].m].name)) {
            table_goto(&s->tb, k);
            reg_select(s, ctx);
            size_t at = 0, of = 0; /* "match k of n" among the rows, top to bottom */
            for (size_t i = 0; i < n; i++)
                if (s->rows[i].rank < 0 && ui_search_match(ctx, s->m[s->rows[i].m].name)) {
                    of++;
                    at += i <= k;
                }
            ui_set_status(ctx, "Match %zu of %zu: /%s/", at, of, ctx->search_text);
            return VF_HANDLED | VF_REDRAW;
        }
    }
    ui_set_status(ctx, "No region matches /%s/", ctx->search_text);
    return VF_HANDLED | VF_REDRAW;
}

/* -------------------------------------------------------------- drawing */

static void reg_refresh(regions_state *s, const ui_ctx *ctx)
{
    bool changed = s->filter_on != ctx->filter_on ||
                   (ctx->filter_on && strcmp(s->filter_text, ctx->search_text) != 0);
    if (changed) {
        s->filter_on = ctx->filter_on;
        snprintf(s->filter_text, sizeof s->filter_text, "%s", ctx->search_text);
    }
    if (changed || s->stale)
        reg_flatten(s, ctx);
    if (ctx->sel.region != s->seen_sel)
        reg_follow(s, ctx);
}

static void reg_draw_info(const regions_state *s, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    size_t shown = 0;
    for (size_t i = 0; i < s->nrows; i++)
        shown += s->rows[i].rank < 0;
    char line[600];
    int n = snprintf(line, sizeof line, " %zu of %zu regions  sort: %s%s", shown, s->nm,
                     reg_cols[s->tb.sort_col].title, s->tb.sort_desc ? " desc" : " asc");
    if (ctx->prof->nranks > 1 && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, "  per rank: %s (b)",
                      s->breakdown ? "on" : "off");
    if (ctx->filter_on && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "  filter: %s", ctx->search_text);
    grid_fill(g, (rect){area.x, area.y, area.w, 1}, ' ', ROLE_NORMAL, 0);
    grid_put_text(g, area.x, area.y, area.w, line, ROLE_NORMAL, GA_BOLD);
}

static void fmt_stat(char *buf, size_t len, size_t col, double v)
{
    if (col == RC_CALLS)
        snprintf(buf, len, "%.0f", v);
    else if (col == RC_AWAIT || col == RC_IMBAL)
        snprintf(buf, len, "%.1f%%", 100.0 * v);
    else
        timefmt_ns(buf, len, v);
}

static void reg_draw_cell(const regions_state *s, grid *g, reg_row r, size_t col, int y, int role)
{
    const merged_region *m = &s->m[r.m];
    char b[64];
    double v;
    bool known;
    if (row_absent(m, r))
        return; /* "not run" in the name column says it all */
    if (col == RC_SLOW) {
        known = m->slowest_rank >= 0;
        if (r.rank < 0)
            snprintf(b, sizeof b, "r%d", m->slowest_rank);
        else if (m->nranks > 1 && m->ranks[r.rank]->rank == m->slowest_rank)
            snprintf(b, sizeof b, "slow");
        else
            return;
    } else if (r.rank < 0) {
        known = (m->known >> reg_stat[col]) & 1u;
        v = m->v[reg_stat[col]];
    } else {
        known = merged_stat_of_region(m->ranks[r.rank], reg_stat[col], &v);
    }
    if (r.rank >= 0 && col == RC_IMBAL)
        return; /* a figure about the ranks together */
    if (!known)
        table_put(&s->tb, g, col, y, "-", role == ROLE_SELECTED ? role : ROLE_DIM, 0);
    else {
        if (col != RC_SLOW)
            fmt_stat(b, sizeof b, col, v);
        table_put(&s->tb, g, col, y, b, role, 0);
    }
}

static void reg_draw_name(const regions_state *s, ui_ctx *ctx, reg_row r, int y, bool cur)
{
    const merged_region *m = &s->m[r.m];
    grid *g = &ctx->grid;
    char b[64];
    if (row_absent(m, r)) {
        snprintf(b, sizeof b, "  rank %d: not run", m->absent[(size_t)r.rank - m->nranks]);
        table_put(&s->tb, g, RC_NAME, y, b, cur ? ROLE_SELECTED : ROLE_DIM, 0);
        return;
    }
    if (r.rank >= 0) {
        const region *x = m->ranks[r.rank];
        int rk = x->rank;
        bool say_slow = m->nranks > 1 && rk == m->slowest_rank && !table_col_shown(&s->tb, RC_SLOW);
        double calls;
        bool not_run = merged_stat_of_region(x, MS_CALLS, &calls) && calls == 0;
        snprintf(b, sizeof b, "  rank %d%s%s%s", rk, x->has_event_data ? "" : " *",
                 not_run ? ": not run" : "", say_slow ? " (slowest)" : "");
        table_put(&s->tb, g, RC_NAME, y, b, cur ? ROLE_SELECTED : ROLE_DIM, 0);
        return;
    }
    int role = cur ? ROLE_SELECTED : ui_search_match(ctx, m->name) ? ROLE_SEARCH : ROLE_NORMAL;
    int x = s->tb.x[RC_NAME], w = s->tb.w[RC_NAME];
    int mark = m->event_data ? 0 : 2; /* room kept for " *" */
    int used = grid_put_text_mid(g, x, y, w > mark ? w - mark : w, m->name, role, 0);
    if (mark && used + mark <= w)
        grid_put_text(g, x + used, y, mark, " *", cur ? ROLE_SELECTED : ROLE_WARNING, 0);
}

static void reg_draw_row(const regions_state *s, ui_ctx *ctx, size_t row, int y)
{
    grid *g = &ctx->grid;
    bool cur = row == s->tb.cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur)
        table_draw_cursor(&s->tb, g, y);
    reg_row r = s->rows[row];
    reg_draw_name(s, ctx, r, y, cur);
    for (size_t c = RC_CALLS; c < RC_COUNT; c++)
        if (table_col_shown(&s->tb, c))
            reg_draw_cell(s, g, r, c, y, role);
}

/* The name column no wider than its widest name (with the " *" mark) or
 * rank row ("  rank 12 (slowest)"), so the numbers stay next to it. */
static void reg_want(regions_state *s, const grid *g)
{
    int w = 0;
    for (size_t i = 0; i < s->nrows; i++) {
        const merged_region *m = &s->m[s->rows[i].m];
        int nw = s->rows[i].rank >= 0 ? 20 : grid_text_width(g, m->name) + (m->event_data ? 0 : 2);
        w = nw > w ? nw : w;
    }
    table_want(&s->tb, RC_NAME, w);
}

static bool any_marked(const regions_state *s)
{
    for (size_t i = 0; i < s->nrows; i++)
        if (!s->m[s->rows[i].m].event_data)
            return true;
    return false;
}

static void reg_draw(void *state, ui_ctx *ctx, rect area)
{
    regions_state *s = state;
    if (!s || area.h < 3 || area.w < 10)
        return;
    reg_ensure(s, ctx);
    reg_refresh(s, ctx);
    /* Drawn before the source pane, so the pane shows the row at once. */
    if (!s->drawn && !s->error[0] && !ctx->sel.region)
        reg_select(s, ctx);
    s->drawn = true;
    grid *g = &ctx->grid;
    if (s->pending && !s->view && !s->error[0]) { /* nothing stored to show meanwhile */
        grid_put_text(g, area.x + 1, area.y + 1, area.w - 2, ui_stats_text(ctx), ROLE_DIM, 0);
        return;
    }
    reg_draw_info(s, ctx, area);
    if (s->error[0]) {
        grid_put_text(g, area.x + 1, area.y + 2, area.w - 2, s->error, ROLE_WARNING, 0);
        return;
    }
    bool note = (any_marked(s) || s->view) && area.h > 4;
    rect body = {area.x, area.y + 1, area.w, area.h - 1 - (note ? 1 : 0)};
    reg_want(s, g);
    table_layout(&s->tb, g, body);
    table_scroll(&s->tb);
    table_draw_header(&s->tb, g, body.y);
    for (size_t r = s->tb.top; r < s->nrows; r++) {
        int y = table_row_y(&s->tb, r);
        if (y < 0)
            break;
        reg_draw_row(s, ctx, r, y);
    }
    if (s->nrows == 0)
        grid_put_text(g, area.x + 1, body.y + 1, area.w - 2,
                      ctx->filter_on ? "No region matches the filter" : "No regions", ROLE_DIM, 0);
    if (note && s->view) { /* every row is the file's own figures for now */
        char line[SV_MSG_MAX + 96];
        snprintf(line, sizeof line,
                 "* stored in the file (summary_statistics), \"-\" not stored; %s",
                 ui_stats_text(ctx));
        grid_put_text(g, area.x + 1, area.y + area.h - 1, area.w - 2, line, ROLE_DIM, 0);
    } else if (note)
        grid_put_text(g, area.x + 1, area.y + area.h - 1, area.w - 2,
                      "* no event data: statistics stored in the file, \"-\" unknown", ROLE_DIM, 0);
}

/* ------------------------------------------------------------- commands */

static int reg_table_cmd(regions_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    enum table_result r = table_on_cmd(&s->tb, cmd, ctx->mouse_x, ctx->mouse_y);
    if (r == TABLE_IGNORED)
        return 0;
    if (r == TABLE_SORTED) {
        reg_sort(s);
        reg_flatten(s, ctx);
    }
    reg_select(s, ctx);
    return VF_HANDLED | VF_REDRAW;
}

/* On a "not run" row there are no calls to list or show: says so. */
static bool reg_absent_status(regions_state *s, ui_ctx *ctx)
{
    reg_row r = cursor_row(s);
    if (r.m >= s->nm || !row_absent(&s->m[r.m], r))
        return false;
    const merged_region *m = &s->m[r.m];
    char name[160];
    text_escape_buf(name, sizeof name, m->name);
    ui_set_status(ctx, "rank %d did not run %s", m->absent[(size_t)r.rank - m->nranks], name);
    return true;
}

static int reg_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    regions_state *s = state;
    if (!s)
        return 0;
    if (cmd == CMD_FILTER) {
        s->stale = true;
        return 0;
    }
    reg_ensure(s, ctx);
    if (s->error[0])
        return 0;
    reg_refresh(s, ctx);
    switch (cmd) {
    case CMD_RANK_BREAKDOWN:
        if (ctx->prof->nranks < 2) {
            ui_set_status(ctx, "One rank: no per-rank breakdown");
            return VF_HANDLED | VF_REDRAW;
        }
        s->breakdown = !s->breakdown;
        reg_flatten(s, ctx);
        return VF_HANDLED | VF_REDRAW;
    case CMD_ENTER:
    case CMD_DRILL:
        if (s->nrows == 0)
            return VF_HANDLED;
        if (reg_absent_status(s, ctx))
            return VF_HANDLED | VF_REDRAW;
        reg_select(s, ctx);
        /* a "rank N" row lists that rank's calls, a merged row every rank's */
        ctx->drill_scope = cursor_row(s).rank >= 0 ? UI_DRILL_RANK : UI_DRILL_ALL;
        ui_open_view(ctx, VIEW_CALLS);
        return VF_HANDLED | VF_REDRAW;
    case CMD_SLOWEST:
        if (s->nrows == 0)
            return 0;
        if (reg_absent_status(s, ctx))
            return VF_HANDLED | VF_REDRAW;
        /* the slowest call over every rank, or over the row's own rank */
        reg_select(s, ctx);
        ui_select_slowest_on(ctx,
                             cursor_row(s).rank >= 0 ? row_region(s, cursor_row(s))->rank : -1);
        ui_open_view(ctx, VIEW_TIMELINE);
        return VF_HANDLED | VF_REDRAW;
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        if (!ctx->has_search)
            return 0;
        return reg_search(s, ctx, cmd == CMD_SEARCH_NEXT ? 1 : -1);
    default:
        return reg_table_cmd(s, ctx, cmd);
    }
}

/* ------------------------------------------------------------- lifetime */

static void *reg_create(ui_ctx *ctx)
{
    regions_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    table_init(&s->tb, reg_cols, RC_COUNT, RC_TOTAL, true);
    s->seen_sel = ctx->sel.region;
    return s; /* the statistics are merged on first use */
}

static void reg_destroy(void *state)
{
    regions_state *s = state;
    if (!s)
        return;
    merged_regions_free(s->m, s->nm);
    free(s->order);
    free(s->rows);
    stored_view_free(s->view);
    free(s);
}

const view_ops regions_view = {
    .name = "regions",
    .create = reg_create,
    .destroy = reg_destroy,
    .draw = reg_draw,
    .on_cmd = reg_cmd,
    .on_resize = NULL,
};
