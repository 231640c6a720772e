/* timeline: view 1, lanes of calls on a shared time axis.
 *
 * The index (lanes.c) is built once when the view is created; every
 * command changes a few numbers (the time window, the cursor, which depth
 * rows show) and the next frame lays out only what is visible. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "model/region.h"
#include "timeline.h"
#include "tl_state.h"
#include "tl_window.h"

/* ------------------------------------------------------------ rows */

static void keep_cursor_row_visible(tl_state *s)
{
    size_t page = s->geo.nvis > 0 ? (size_t)s->geo.nvis : 1;
    if (s->cur_row < s->top_row)
        s->top_row = s->cur_row;
    if (s->cur_row >= s->top_row + page)
        s->top_row = s->cur_row - page + 1;
    if (s->nrows <= page)
        s->top_row = 0;
    else if (s->top_row > s->nrows - page)
        s->top_row = s->nrows - page;
}

/* ------------------------------------------------------------ layout */

static tl_geo geometry(rect a)
{
    tl_geo g;
    g.x = a.x;
    g.w = a.w;
    g.panel_h = a.h >= 30 ? 4 : a.h >= 14 ? 3 : a.h >= 8 ? 2 : 0;
    g.header_y = a.y;
    g.ruler_y = a.y + 1;
    g.rows_y = a.y + 2;
    g.nvis = a.h - 2 - g.panel_h;
    g.nvis = g.nvis > 0 ? g.nvis : 0;
    g.panel_y = g.rows_y + g.nvis;
    g.gutter = a.w / 5;
    g.gutter = g.gutter < 10 ? 10 : g.gutter > 28 ? 28 : g.gutter;
    g.gutter = g.gutter < a.w / 2 ? g.gutter : a.w / 2;
    g.tx = a.x + g.gutter;
    g.tw = a.w - g.gutter;
    g.tw = g.tw > 1 ? g.tw : 1;
    return g;
}

/* The filter (f) keeps the whole profile's time axis, so that the matching
 * calls show where they happened. */
static int64_t data_min(const tl_state *s)
{
    if (!s->ix && s->ov.ncalls) /* the overview's, while the lanes are computed */
        return s->ov.t_min;
    return s->has_span ? s->span_lo : s->ix && s->ix->ncalls ? s->ix->t_min : 0;
}

static int64_t data_max(const tl_state *s)
{
    if (!s->ix && s->ov.ncalls)
        return s->ov.t_max;
    return s->has_span ? s->span_hi : s->ix && s->ix->ncalls ? s->ix->t_max : 1;
}

/* The first screen: every lane's depth rows when they fit, else one row
 * per lane (+N says what is folded), else the tasks grouped under their
 * threads too, so that a profile's threads show on one screen. */
static void fit_rows(tl_state *s)
{
    size_t page = s->geo.nvis > 0 ? (size_t)s->geo.nvis : 1;
    if (!s->ix || s->nrows <= page)
        return;
    for (size_t l = 0; l < s->ix->nlanes; l++)
        s->shown[l] = 1;
    tl_rows_rebuild(s);
    if (s->nrows > page && s->ngroups > 0) {
        s->group_tasks = true;
        tl_rows_rebuild(s);
        /* Then the groups open, in screen order, while their tasks (a row
         * each) fit: only what does not fit stays folded, and says so. */
        size_t room = s->nrows < page ? page - s->nrows : 0;
        for (size_t g = 0; g < s->ngroups && room > 0; g++) {
            tl_group *gr = &s->groups[g];
            gr->open = true;
            gr->nshow = gr->ntasks < room ? gr->ntasks : room;
            room -= gr->nshow;
        }
        tl_rows_rebuild(s);
    }
}

void tl_set_area(tl_state *s, rect area)
{
    if (s->placed && area.x == s->area.x && area.y == s->area.y && area.w == s->area.w &&
        area.h == s->area.h)
        return;
    int old_tw = s->geo.tw;
    s->area = area;
    s->geo = geometry(area);
    if ((size_t)s->geo.tw > s->segcap) {
        tl_seg *ns = realloc(s->segs, (size_t)s->geo.tw * sizeof *ns);
        if (ns) {
            s->segs = ns;
            s->segcap = (size_t)s->geo.tw;
        }
    }
    s->v.width = s->geo.tw;
    if (!s->placed) {
        tl_fit(&s->v, data_min(s), data_max(s));
        s->cursor_x = s->geo.tw / 2;
        s->placed = true;
        fit_rows(s);
    } else {
        s->cursor_x = old_tw > 0 ? (int)((int64_t)s->cursor_x * s->geo.tw / old_tw) : 0;
        tl_clamp(&s->v, data_min(s), data_max(s));
    }
    s->cursor_x = s->cursor_x < s->geo.tw ? s->cursor_x : s->geo.tw - 1;
    keep_cursor_row_visible(s);
}

/* ------------------------------------------------------- selection */

void tl_select(tl_state *s, ui_ctx *ctx, int rank, int64_t call)
{
    if (s->win) /* out of core: a window's call (tl_window.h) */
        tl_window_select(s, ctx, rank, call);
    else
        ui_select_call(ctx, rank, call);
    s->seen_rank = rank;
    s->seen_call = call;
}

static void cursor_on_call(tl_state *s, int64_t st, int64_t ve)
{
    int64_t mid = st + (ve - st) / 2;
    int64_t a = tl_time_col(&s->v, st), b = tl_time_col(&s->v, ve - 1);
    int64_t x = tl_time_col(&s->v, mid);
    a = a < 0 ? 0 : a;
    b = b >= s->geo.tw ? s->geo.tw - 1 : b;
    x = x < a ? a : x > b ? b : x;
    s->cursor_x = (int)(x < 0 ? 0 : x >= s->geo.tw ? s->geo.tw - 1 : x);
}

bool tl_reveal(tl_state *s, int rank, int64_t call, bool keep_zoom)
{
    size_t l, pos;
    uint32_t d;
    int64_t st, e;
    if (tl_window_kept(s, call, &l, &d, &st, &e)) {
        /* out of core, a call of an earlier window: by its lane, depth, span */
    } else if (!s->ix || !lanes_locate(s->ix, rank, call, &l, &d, &pos)) {
        return false;
    } else {
        lanes_call_span(s->ix->lanes[l].rk, (uint32_t)call, &st, &e);
    }
    tl_reveal_span(s, l, d, st, e, keep_zoom);
    return true;
}

void tl_reveal_span(tl_state *s, size_t l, uint32_t d, int64_t st, int64_t e, bool keep_zoom)
{
    size_t r = tl_row_of(s, l, d);
    if (r != SIZE_MAX)
        s->cur_row = r;
    keep_cursor_row_visible(s);
    int64_t ve = lanes_visible_end(st, e);
    int64_t left = s->v.t0, right = tl_col_time(&s->v, s->geo.tw);
    if (!keep_zoom)
        tl_show_span(&s->v, st, ve, data_min(s), data_max(s));
    else if (ve <= left || st >= right)
        tl_center_at(&s->v, st + (ve - st) / 2, s->geo.tw / 2, data_min(s), data_max(s));
    cursor_on_call(s, st, ve);
}

/* The call under the cursor: of the calls in its cell, the one covering
 * most of it. */
static bool call_under_cursor(const tl_state *s, size_t *lane_out, uint32_t *call_out)
{
    if (!s->ix || s->nrows == 0)
        return false;
    size_t l;
    uint32_t d;
    if (!tl_row_at(s, s->cur_row, &l, &d))
        return false;
    const lane *ln = &s->ix->lanes[l];
    const lane_row *row = &ln->rows[d];
    int64_t tc0 = tl_col_time(&s->v, s->cursor_x), tc1 = tl_col_time(&s->v, s->cursor_x + 1);
    size_t first;
    if (lane_row_count(ln, row, tc0, tc1, 8, &first) == 0)
        return false;
    int64_t best_cov = -1;
    for (size_t k = first; k < row->n && k < first + 64; k++) {
        int64_t st, e;
        lanes_call_span(ln->rk, lane_row_call(row, k), &st, &e);
        int64_t ve = lanes_visible_end(st, e);
        if (st >= tc1)
            break;
        int64_t cov = (ve < tc1 ? ve : tc1) - (st > tc0 ? st : tc0);
        if (ve > tc0 && cov > best_cov) {
            best_cov = cov;
            *call_out = lane_row_call(row, k);
        }
    }
    *lane_out = l;
    return best_cov >= 0;
}

/* ---------------------------------------------------------- commands */

static int toggle_group(tl_state *s, size_t g, int open)
{
    tl_group *gr = &s->groups[g];
    /* Enter on a group opened in part shows the rest first. */
    bool partial = gr->open && gr->nshow < gr->ntasks;
    tl_group_open(s, g, open < 0 ? !gr->open || partial : open > 0);
    tl_rows_rebuild(s);
    keep_cursor_row_visible(s);
    return VF_HANDLED | VF_REDRAW;
}

/* The overview out of core holds no single call: say so, not "no call". */
static bool map_rows_say(const tl_state *s, ui_ctx *ctx)
{
    if (!tl_window_map_rows(s))
        return false;
    ui_set_status(ctx, "The overview holds no single call: zoom in (+) until the calls show");
    return true;
}

static int select_under_cursor(tl_state *s, ui_ctx *ctx)
{
    size_t l;
    uint32_t g;
    size_t grp = tl_row_group(s, s->cur_row);
    if (grp != SIZE_MAX)
        return toggle_group(s, grp, -1);
    if (map_rows_say(s, ctx))
        return VF_HANDLED | VF_REDRAW;
    if (!call_under_cursor(s, &l, &g)) {
        ui_set_status(ctx, "No call under the cursor");
        return VF_HANDLED | VF_REDRAW;
    }
    tl_select(s, ctx, s->ix->lanes[l].rk->rank, g);
    return VF_HANDLED | VF_REDRAW;
}

int tl_step_call(tl_state *s, ui_ctx *ctx, int dir)
{
    if (!s->ix || s->nrows == 0)
        return VF_HANDLED;
    size_t l, sl, pos;
    uint32_t d, sd;
    if (!tl_row_at(s, s->cur_row, &l, &d)) {
        ui_set_status(ctx, "A row of tasks: Enter or e shows them");
        return VF_HANDLED | VF_REDRAW;
    }
    if (map_rows_say(s, ctx) || tl_window_step_kept(s, ctx, l, d, dir))
        return VF_HANDLED | VF_REDRAW;
    const lane *ln = &s->ix->lanes[l];
    const lane_row *row = &ln->rows[d];
    size_t k;
    int64_t from; /* dir < 0: a start before it; dir > 0: at or after it (out of core) */
    if (ctx->sel.call >= 0 && lanes_locate(s->ix, ctx->sel.rank, ctx->sel.call, &sl, &sd, &pos) &&
        sl == l && sd == d) {
        k = dir > 0 ? pos + 1 : pos - 1; /* pos 0 - 1 wraps to SIZE_MAX: no call */
        int64_t e;
        lanes_call_span(ln->rk, (uint32_t)ctx->sel.call, &from, &e);
        from = dir > 0 ? ck_add(from, 1) : from;
    } else {
        from = tl_col_time(&s->v, s->cursor_x);
        size_t at = lane_row_lower_start(ln, row, from);
        k = dir > 0 ? at : at - 1;
    }
    int seek =
        k >= row->n && tl_window_beyond(s, dir) ? tl_window_seek_step(s, l, d, dir, from) : 0;
    if (seek > 0) /* out of core, not read: looked for through the map */
        return VF_HANDLED | VF_REDRAW;
    if (seek < 0) {
        ui_set_status(ctx, "The %s call lies beyond the calls read: pan or zoom out to see it",
                      dir > 0 ? "next" : "previous");
        return VF_HANDLED | VF_REDRAW;
    }
    if (k >= row->n) {
        ui_set_status(ctx, dir > 0 ? "No later call in this row" : "No earlier call in this row");
        return VF_HANDLED | VF_REDRAW;
    }
    tl_select(s, ctx, ln->rk->rank, lane_row_call(row, k));
    tl_reveal(s, ln->rk->rank, lane_row_call(row, k), true);
    return VF_HANDLED | VF_REDRAW;
}

static bool search_match(const region *r, void *user)
{
    return ui_search_match(user, r->name);
}

/* Calls of region r (rank number rank) before key in time order. */
static size_t calls_before(const region *r, int rank, bool sorted, const lanes_key *key)
{
    size_t lo = 0, hi = r->n;
    if (sorted) { /* first start >= key->start */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (r->start_ns[mid] < key->start)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t c = lo;
        for (size_t i = lo; i < r->n && r->start_ns[i] == key->start; i++)
            c += rank < key->rank || (rank == key->rank && (int64_t)(r->gidx0 + i) < key->call);
        return c;
    }
    size_t c = 0;
    for (size_t i = 0; i < r->n; i++)
        c += r->start_ns[i] < key->start ||
             (r->start_ns[i] == key->start &&
              (rank < key->rank || (rank == key->rank && (int64_t)(r->gidx0 + i) < key->call)));
    return c;
}

/* Where hit stands among the indexed calls matching the search (k of n, in
 * time order): a binary search per matching region, no visit of the calls. */
static void match_rank(const tl_state *s, const ui_ctx *ctx, const lanes_key *hit, size_t *k,
                       size_t *n)
{
    *k = 1;
    *n = 0;
    const profile *p = s->ix->prof;
    for (size_t ri = 0; ri < p->nranks; ri++) {
        const rank_data *rk = &p->ranks[ri];
        for (size_t j = 0; j < rk->nregions; j++) {
            uint8_t fl = s->ix->rflags[ri][j];
            const region *r = rk->regions[j];
            if (!(fl & LANES_R_INDEXED) || !ui_search_match(ctx, r->name))
                continue;
            *n += r->n;
            *k += calls_before(r, rk->rank, fl & LANES_R_SORTED, hit);
        }
    }
}

static int search_step(tl_state *s, ui_ctx *ctx, int dir)
{
    if (!ctx->has_search || !s->ix)
        return 0;
    if (s->win) { /* the matches' order and count need every call */
        ui_set_status(ctx, "Searching the calls is not available out of core");
        return VF_HANDLED | VF_REDRAW;
    }
    lanes_key key, hit = {0};
    if (ctx->sel.call >= 0 && ctx->sel.region) {
        size_t i = 0;
        rank_data *rk = profile_rank(ctx->prof, ctx->sel.rank);
        region *r = rk ? rank_call_region(rk, ctx->sel.call, &i) : NULL;
        key = (lanes_key){r ? r->start_ns[i] : 0, ctx->sel.rank, ctx->sel.call};
    } else {
        key = (lanes_key){tl_col_time(&s->v, s->cursor_x), INT_MIN, -1};
    }
    bool found = lanes_search(s->ix, &key, dir, search_match, ctx, &hit), wrapped = false;
    if (!found) {
        key = dir > 0 ? (lanes_key){INT64_MIN, INT_MIN, -1}
                      : (lanes_key){INT64_MAX, INT_MAX, INT64_MAX};
        found = lanes_search(s->ix, &key, dir, search_match, ctx, &hit);
        wrapped = found;
    }
    if (!found) {
        ui_set_status(ctx, "No call matches /%s/", ctx->search_text);
        return VF_HANDLED | VF_REDRAW;
    }
    size_t k, n;
    match_rank(s, ctx, &hit, &k, &n);
    ui_set_status(ctx, "Match %zu of %zu: /%s/%s", k, n, ctx->search_text,
                  wrapped ? " (wrapped around)" : "");
    tl_select(s, ctx, hit.rank, hit.call);
    tl_reveal(s, hit.rank, hit.call, true);
    return VF_HANDLED | VF_REDRAW;
}

/* The cursor follows its time when the view meets an end of the data. */
static void cursor_to_time(tl_state *s, int64_t t)
{
    int64_t x = tl_time_col(&s->v, t);
    s->cursor_x = (int)(x < 0 ? 0 : x >= s->geo.tw ? s->geo.tw - 1 : x);
}

static int zoom(tl_state *s, ui_ctx *ctx, int col, int dir)
{
    int64_t tc = tl_col_time(&s->v, s->cursor_x);
    if (!tl_zoom(&s->v, col, dir, data_min(s), data_max(s)))
        ui_set_status(ctx, dir > 0 ? "Zoomed in as far as it goes (1 ns per column)"
                                   : "Zoomed out as far as it goes (the whole profile)");
    cursor_to_time(s, tc);
    return VF_HANDLED | VF_REDRAW;
}

static int zoom_selected(tl_state *s, ui_ctx *ctx)
{
    if (ctx->sel.call < 0) {
        ui_set_status(ctx, "No call selected: Enter selects the call under the cursor");
        return VF_HANDLED | VF_REDRAW;
    }
    if (!tl_reveal(s, ctx->sel.rank, ctx->sel.call, false))
        ui_set_status(ctx, "The selected call is not on the timeline");
    s->seen_rank = ctx->sel.rank;
    s->seen_call = ctx->sel.call;
    return VF_HANDLED | VF_REDRAW;
}

static void move_rows(tl_state *s, long delta, bool page)
{
    if (!s->ix && s->ov.nrows) { /* the overview's rows, while the lanes are computed */
        tl_overview_move(s, delta, page);
        return;
    }
    if (s->nrows == 0)
        return;
    long last = (long)s->nrows - 1;
    long r = (long)s->cur_row + delta;
    s->cur_row = (size_t)(r < 0 ? 0 : r > last ? last : r);
    if (page) {
        long t = (long)s->top_row + delta;
        long maxtop = (long)s->nrows - (s->geo.nvis > 0 ? s->geo.nvis : 1);
        maxtop = maxtop > 0 ? maxtop : 0;
        s->top_row = (size_t)(t < 0 ? 0 : t > maxtop ? maxtop : t);
    }
    keep_cursor_row_visible(s);
}

static void set_depths(tl_state *s, size_t li, bool all_rows)
{
    uint32_t nd = s->ix->lanes[li].ndepth;
    uint32_t cap = nd < TL_DEPTH_CAP ? nd : TL_DEPTH_CAP;
    if (all_rows)
        s->shown[li] = nd;
    else
        s->shown[li] = s->shown[li] > cap ? cap : 1;
}

static int expand(tl_state *s, bool expand_it, bool all)
{
    if (!s->ix || s->nrows == 0)
        return VF_HANDLED;
    size_t l;
    uint32_t d;
    size_t grp = tl_row_group(s, s->cur_row);
    if (all) {
        for (size_t k = 0; k < s->ix->nlanes; k++)
            set_depths(s, k, expand_it);
        for (size_t g = 0; g < s->ngroups; g++)
            tl_group_open(s, g, expand_it);
    } else if (grp != SIZE_MAX) {
        return toggle_group(s, grp, expand_it);
    } else if (tl_row_at(s, s->cur_row, &l, &d)) {
        /* c on a task's one row folds its group */
        if (!expand_it && s->shown[l] == 1 && s->group_tasks && s->group_of[l] != SIZE_MAX)
            return toggle_group(s, s->group_of[l], 0);
        set_depths(s, l, expand_it);
    }
    tl_rows_rebuild(s); /* the cursor stays in its lane, at the deepest row still shown */
    keep_cursor_row_visible(s);
    return VF_HANDLED | VF_REDRAW;
}

/* T, H, < >: grouping, hiding and order of the lanes. */
static int lanes_option(tl_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    if (!s->ix)
        return VF_HANDLED;
    const char *what;
    if (cmd == CMD_GROUP_TASKS) {
        s->group_tasks = !s->group_tasks;
        what = s->group_tasks ? "Tasks grouped under the thread that ran them (Enter on a group "
                                "shows its tasks)"
                              : "One row per task";
    } else if (cmd == CMD_HIDE_IDLE) {
        s->hide_idle = !s->hide_idle;
        what = s->hide_idle ? "Lanes without calls in view hidden" : "Every lane shown";
    } else {
        s->sort_busy = !s->sort_busy;
        what = s->sort_busy ? "Lanes of each rank by busy time, busiest first"
                            : "Lanes in the file's order";
    }
    tl_rows_rebuild(s);
    keep_cursor_row_visible(s);
    ui_set_status(ctx, "%s", what);
    return VF_HANDLED | VF_REDRAW;
}

static bool mouse_in_time(const tl_state *s, const ui_ctx *ctx, int *col)
{
    const tl_geo *g = &s->geo;
    if (ctx->mouse_x < g->tx || ctx->mouse_x >= g->tx + g->tw || ctx->mouse_y < g->ruler_y ||
        ctx->mouse_y >= g->rows_y + g->nvis)
        return false;
    *col = ctx->mouse_x - g->tx;
    return true;
}

static int click(tl_state *s, ui_ctx *ctx)
{
    const tl_geo *g = &s->geo;
    int col;
    bool in_rows = ctx->mouse_y >= g->rows_y && ctx->mouse_y < g->rows_y + g->nvis;
    size_t r = s->top_row + (size_t)(ctx->mouse_y - g->rows_y);
    if (in_rows && r < s->nrows)
        s->cur_row = r;
    if (!mouse_in_time(s, ctx, &col))
        return VF_HANDLED | VF_REDRAW;
    s->cursor_x = col;
    return in_rows && r < s->nrows ? select_under_cursor(s, ctx) : VF_HANDLED | VF_REDRAW;
}

static int wheel(tl_state *s, ui_ctx *ctx, int dir)
{
    int col;
    if (!mouse_in_time(s, ctx, &col))
        col = s->cursor_x;
    return zoom(s, ctx, col, dir);
}

static int jump_end(tl_state *s, bool to_end)
{
    int64_t t = to_end ? data_max(s) : data_min(s);
    int col = to_end ? s->geo.tw - 1 : 0;
    tl_center_at(&s->v, t, col, data_min(s), data_max(s));
    int64_t x = tl_time_col(&s->v, to_end ? t - 1 : t);
    s->cursor_x = (int)(x < 0 ? 0 : x >= s->geo.tw ? s->geo.tw - 1 : x);
    return VF_HANDLED | VF_REDRAW;
}

/* F: the flame graph of the selected call's span on every rank (a
 * zero-length call: its nanosecond), else of the time shown. */
static int flame_of_band(tl_state *s, ui_ctx *ctx)
{
    size_t i = 0;
    rank_data *rk = ctx->sel.call >= 0 ? profile_rank(ctx->prof, ctx->sel.rank) : NULL;
    const region *r = rk && !s->win ? rank_call_region(rk, ctx->sel.call, &i) : NULL;
    if (r) {
        ctx->flame_t0 = r->start_ns[i];
        ctx->flame_t1 = r->end_ns[i] > r->start_ns[i] ? r->end_ns[i] : r->start_ns[i] + 1;
    } else {
        ctx->flame_t0 = s->v.t0;
        ctx->flame_t1 = tl_col_time(&s->v, s->geo.tw > 0 ? s->geo.tw : 1);
    }
    ctx->flame_band = true;
    ui_open_view(ctx, VIEW_FLAME);
    return VF_HANDLED | VF_REDRAW;
}

static int timeline_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    tl_state *s = state;
    if (!s)
        return 0;
    tl_sync_filter(s, ctx);
    tl_set_area(s, ctx->view_area);
    if (s->ovl_open)
        return tl_overlap_cmd(s, ctx, cmd);
    tl_window_forget_step(s); /* a key since a step waited for its window */
    if (s->hide_idle && s->ix)
        tl_rows_rebuild(s);
    int pan = s->geo.tw / 8 > 1 ? s->geo.tw / 8 : 1;
    long page = s->geo.nvis > 1 ? s->geo.nvis - 1 : 1;
    switch (cmd) {
    case CMD_LEFT:
    case CMD_RIGHT:
        tl_pan(&s->v, cmd == CMD_LEFT ? -pan : pan, data_min(s), data_max(s));
        return VF_HANDLED | VF_REDRAW;
    case CMD_UP:
    case CMD_DOWN:
        move_rows(s, cmd == CMD_UP ? -1 : 1, false);
        return VF_HANDLED | VF_REDRAW;
    case CMD_PGUP:
    case CMD_PGDN:
        move_rows(s, cmd == CMD_PGUP ? -page : page, true);
        return VF_HANDLED | VF_REDRAW;
    case CMD_HOME:
    case CMD_END:
        return jump_end(s, cmd == CMD_END);
    case CMD_ZOOM_IN:
    case CMD_ZOOM_OUT:
        return zoom(s, ctx, s->cursor_x, cmd == CMD_ZOOM_IN ? 1 : -1);
    case CMD_ZOOM_FIT:
        tl_fit(&s->v, data_min(s), data_max(s));
        return VF_HANDLED | VF_REDRAW;
    case CMD_ZOOM_SEL:
        return zoom_selected(s, ctx);
    case CMD_PREV_CALL:
    case CMD_NEXT_CALL:
        return tl_step_call(s, ctx, cmd == CMD_NEXT_CALL ? 1 : -1);
    case CMD_ENTER:
        return select_under_cursor(s, ctx);
    case CMD_OVERLAPS:
        tl_overlap_open(s, ctx);
        return VF_HANDLED | VF_REDRAW;
    case CMD_FLAME_BAND:
        return flame_of_band(s, ctx);
    case CMD_GROUP_TASKS:
    case CMD_HIDE_IDLE:
    case CMD_SORT_NEXT:
    case CMD_SORT_PREV:
        return lanes_option(s, ctx, cmd);
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        return search_step(s, ctx, cmd == CMD_SEARCH_NEXT ? 1 : -1);
    case CMD_EXPAND:
    case CMD_COLLAPSE:
        return expand(s, cmd == CMD_EXPAND, false);
    case CMD_EXPAND_ALL:
    case CMD_COLLAPSE_ALL:
        return expand(s, cmd == CMD_EXPAND_ALL, true);
    case CMD_WHEEL_UP:
    case CMD_WHEEL_DOWN:
        return wheel(s, ctx, cmd == CMD_WHEEL_UP ? 1 : -1);
    case CMD_CLICK:
        return click(s, ctx);
    case CMD_FILTER:
        return VF_HANDLED | VF_REDRAW;
    default:
        return 0;
    }
}

/* ---------------------------------------------------------- lifecycle */

static void index_free(tl_state *s)
{
    s->ovl_open = false; /* its lane numbers belong to this index */
    s->ovl_n = 0;
    for (size_t l = 0; s->busy && s->ix && l < s->ix->nlanes && l < s->nbusy; l++) {
        for (uint32_t d = 0; s->busy[l] && d < s->ix->lanes[l].ndepth; d++)
            if (s->busy[l][d].built)
                lane_busy_free(&s->busy[l][d].b);
        free(s->busy[l]);
    }
    free(s->busy);
    s->busy = NULL;
    s->nbusy = 0;
    if (!s->win) /* out of core the window owns the indexes */
        lanes_free(s->ix);
    s->ix = NULL;
    free(s->shown);
    s->shown = NULL;
    tl_groups_free(s);
}

static bool filter_keep(const region *r, void *user)
{
    return ui_search_match(user, r->name);
}

/* (Re)builds the index: every call passing the command line's filter,
 * and with f on only those whose region matches the search. */
static void index_build(tl_state *s, ui_ctx *ctx)
{
    index_free(s);
    s->error[0] = '\0';
    s->filtered = ctx->filter_on && ctx->has_search;
    snprintf(s->filter_text, sizeof s->filter_text, "%s", s->filtered ? ctx->search_text : "");
    sv_error err;
    sv_error_clear(&err);
    if (s->win)
        s->ix = tl_window_rows(s); /* the map's lanes, no call (tl_window.h) */
    else if (lanes_build_where(ctx->prof, ctx->opt ? ctx->opt->filter : NULL,
                               s->filtered ? filter_keep : NULL, ctx, &s->ix, &err) != SV_OK)
        snprintf(s->error, sizeof s->error, "%s", err.msg);
    size_t n = s->ix ? s->ix->nlanes : 0;
    s->shown = calloc(n ? n : 1, sizeof *s->shown);
    s->busy = calloc(n ? n : 1, sizeof *s->busy);
    s->nbusy = s->busy ? n : 0;
    if (!s->shown || !s->busy || !tl_groups_build(s)) {
        index_free(s);
        snprintf(s->error, sizeof s->error, "out of memory while laying out the timeline");
        n = 0;
    }
    for (size_t l = 0; l < n; l++)
        s->shown[l] = s->ix->lanes[l].ndepth < TL_DEPTH_CAP ? s->ix->lanes[l].ndepth : TL_DEPTH_CAP;
    if (!s->filtered && s->ix && s->ix->ncalls) {
        s->span_lo = s->ix->t_min;
        s->span_hi = s->ix->t_max;
        s->has_span = true;
    }
    s->nrows = s->ndrows = 0;
    s->keep_lane = SIZE_MAX;
    if (s->first_row)
        tl_rows_rebuild(s);
}

void tl_sync_filter(tl_state *s, ui_ctx *ctx)
{
    if (s->win) /* out of core: every call's rows, the map's (f filters other views) */
        return;
    if (s->index_due) { /* opened on another view, its first frame did not wait for it */
        s->index_due = false;
        index_build(s, ctx);
        s->placed = false; /* fitted to the data once it has them, as at the start */
    }
    if (s->awaiting_calls) {         /* built on the first frame after the nesting arrives */
        if (ui_calls_pending(ctx)) { /* what is still coming: nesting, statistics */
            snprintf(s->error, sizeof s->error, "%s", ui_computing_text(ctx));
            if (!s->ov_built) { /* meanwhile, calls per column (tl_overview.c) */
                s->ov_built = true;
                if (tl_overview_build(ctx->prof, ctx->opt ? ctx->opt->filter : NULL, TL_OV_BINS,
                                      &s->ov))
                    s->placed = false; /* fit the view to the overview's span */
            }
            return;
        }
        s->awaiting_calls = false;
        index_build(s, ctx);
        tl_overview_hand_over(s); /* the cursor stays on its rank or thread */
        tl_overview_free(&s->ov);
        s->placed = false; /* fit the view to the data, as at the start */
        return;
    }
    bool want = ctx->filter_on && ctx->has_search;
    if (want == s->filtered && (!want || strcmp(s->filter_text, ctx->search_text) == 0))
        return;
    index_build(s, ctx);
    s->top_row = 0;
    if (s->placed)
        tl_clamp(&s->v, data_min(s), data_max(s));
    keep_cursor_row_visible(s);
}

const lane_busy *tl_row_busy(tl_state *s, size_t l, uint32_t d)
{
    if (l >= s->nbusy || l >= s->ix->nlanes || d >= s->ix->lanes[l].ndepth)
        return NULL; /* not a row of the index the rows were built for */
    const lane *ln = &s->ix->lanes[l];
    if (!s->busy[l]) {
        s->busy[l] = calloc(ln->ndepth ? ln->ndepth : 1, sizeof *s->busy[l]);
        if (!s->busy[l])
            return NULL;
    }
    tl_busy *b = &s->busy[l][d];
    if (!b->built) {
        sv_error err;
        if (lane_busy_build(ln, &ln->rows[d], &b->b, &err) != SV_OK)
            return NULL;
        b->built = true;
    }
    return &b->b;
}

extern const view_ops timeline_view;

lanes_index *timeline_shared_index(ui_ctx *ctx)
{
    if (ctx->nviews <= VIEW_TIMELINE || ctx->views[VIEW_TIMELINE] != &timeline_view)
        return NULL;
    tl_state *s = ctx->view_state[VIEW_TIMELINE];
    if (s && s->index_due)
        tl_sync_filter(s, ctx);
    if (!s || s->win || s->awaiting_calls || s->filtered || !s->ix)
        return NULL;
    return lanes_share(s->ix);
}

static void *timeline_create(ui_ctx *ctx)
{
    tl_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->seen_rank = ctx->sel.rank;
    s->seen_call = ctx->sel.call;
    if (ctx->opt && ctx->opt->ooc) {
        if (tl_window_init(s, ctx))
            index_build(s, ctx);
    } else if (ui_calls_pending(ctx)) {
        s->awaiting_calls = true;
        snprintf(s->error, sizeof s->error, "%s", ui_computing_text(ctx));
    } else {
        s->index_due = true;
    }
    return s;
}

static void timeline_destroy(void *state)
{
    tl_state *s = state;
    if (!s)
        return;
    index_free(s);
    tl_window_free(s);
    tl_overview_free(&s->ov);
    free(s->segs);
    free(s->ovl);
    free(s);
}

static void timeline_resize(void *state, ui_ctx *ctx, rect area)
{
    (void)ctx;
    if (state)
        tl_set_area(state, area);
}

const view_ops timeline_view = {
    .name = "timeline",
    .create = timeline_create,
    .destroy = timeline_destroy,
    .draw = tl_draw,
    .on_cmd = timeline_cmd,
    .on_resize = timeline_resize,
};
