/* tl_window: the out-of-core timeline's rows and windows (tl_window.h). */
#include "tl_window.h"

#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "ooc/ooc.h"
#include "ooc/ooc_job.h"
#include "model/region.h"
#include "model/slowcalls.h"
#include "util/text.h"
#include "util/hooks.h"

struct tl_window {
    const ooc_file *f;
    uint64_t cap; /* calls a window may hold */
    lanes_spec *spec;
    size_t nspec;
    lanes_index *empty; /* the map's lanes, no call: the overview's rows */
    profile *wprof;     /* the window in use, its index and span */
    lanes_index *wix;
    int64_t w0, w1;
    ooc_job *job; /* a window being read (also ctx->ooc_job) */
    bool hold;    /* SCOPEVIEW_TEST_WINDOW=hold */
    bool serving; /* this frame's rows come from the window */
    bool loading; /* the view waits for a window */
    char error[SV_MSG_MAX];
    /* The selected call when no longer in the window drawn (TL_WINDOW_KEPT). */
    profile *kprof; /* the window it was read in */
    int64_t kcall, kw0, kw1;
    size_t klane;
    uint32_t kdepth;
    int64_t kst, ke;
    /* A step ([ ]) from a kept selection, waiting for its window: the
     * direction, and the view and cursor to return to. */
    int step;
    tl_view step_v;
    int step_x;
    /* A step past the calls read (tl_window_seek_step): the row, the time
     * it steps from, the span being read, the view to return to. */
    int seek;
    size_t seek_l;
    uint32_t seek_d;
    int64_t seek_t, seek_b0, seek_b1;
    tl_view seek_v;
    int seek_x;
    /* A call asked for by ctx->ooc_goto: the view is on it, its window
     * comes next (tl_window_goto_done). */
    bool go;
    ui_ooc_goto go_to;
};

static uint64_t window_cap(const ooc_file *f)
{
    /* SCOPEVIEW_TEST_OOC_CAP=N (tests): windows of at most N calls, so a
     * small file has an overview too. */
    const char *t = hook_value(HOOK_TEST_OOC_CAP);
    if (t && *t)
        return strtoull(t, NULL, 10);
    return ooc_window_cap(f->budget);
}

bool tl_window_init(tl_state *s, ui_ctx *ctx)
{
    const ooc_file *f = ctx->opt->ooc;
    tl_window *w = calloc(1, sizeof *w);
    size_t n = f->map.nlanes;
    lanes_spec *spec = calloc(n ? n : 1, sizeof *spec);
    if (!w || !spec) {
        free(w);
        free(spec);
        snprintf(s->error, sizeof s->error, "out of memory while laying out the timeline");
        return false;
    }
    for (size_t l = 0; l < n; l++) {
        const ooc_lane *ol = &f->map.lanes[l];
        spec[l] = (lanes_spec){ol->rank_index, ol->kind, ol->row, ol->ndepth};
    }
    sv_error err;
    sv_error_clear(&err);
    if (lanes_build_empty(ctx->prof, spec, n, &w->empty, &err) != SV_OK) {
        snprintf(s->error, sizeof s->error, "%s", err.msg);
        free(spec);
        free(w);
        return false;
    }
    const char *hook = hook_value(HOOK_TEST_WINDOW);
    w->hold = hook && strcmp(hook, "hold") == 0;
    w->f = f;
    w->cap = window_cap(f);
    w->spec = spec;
    w->nspec = n;
    s->win = w;
    s->ooc_map = &f->map;
    if (f->map.ncalls) { /* zoom and pan bounds: the whole profile's */
        s->span_lo = f->map.t_min;
        s->span_hi = f->map.t_max;
        s->has_span = true;
    }
    return true;
}

/* The rows' busy intervals and the details' cache belong to one index. */
static void forget_index(tl_state *s)
{
    for (size_t l = 0; s->busy && s->ix && l < s->ix->nlanes && l < s->nbusy; l++) {
        for (uint32_t d = 0; s->busy[l] && d < s->ix->lanes[l].ndepth; d++)
            if (s->busy[l][d].built)
                lane_busy_free(&s->busy[l][d].b);
        free(s->busy[l]);
        s->busy[l] = NULL;
    }
    memset(s->excl, 0, sizeof s->excl);
    s->ovl_open = false;
    s->ovl_n = 0;
}

static void use_index(tl_state *s, lanes_index *ix)
{
    if (s->ix == ix)
        return;
    forget_index(s);
    s->ix = ix;
}

void tl_window_free(tl_state *s)
{
    tl_window *w = s->win;
    if (!w)
        return;
    forget_index(s);
    s->ix = NULL;
    ooc_job_cancel(w->job);
    lanes_free(w->wix);
    profile_free(w->wprof);
    profile_free(w->kprof);
    lanes_free(w->empty);
    free(w->spec);
    free(w);
    s->win = NULL;
}

/* The call of row (l, d) of ix spanning [st, e], or -1. */
static int64_t find_call(const lanes_index *ix, size_t l, uint32_t d, int64_t st, int64_t e)
{
    if (l >= ix->nlanes || d >= ix->lanes[l].ndepth)
        return -1;
    const lane *ln = &ix->lanes[l];
    const lane_row *row = &ln->rows[d];
    for (size_t k = lane_row_lower_start(ln, row, st); k < row->n; k++) {
        int64_t s2, e2;
        lanes_call_span(ln->rk, lane_row_call(row, k), &s2, &e2);
        if (s2 != st)
            break;
        if (e2 == e)
            return lane_row_call(row, k);
    }
    return -1;
}

static void set_sel_call(tl_state *s, ui_ctx *ctx, int64_t call)
{
    ctx->sel.call = call;
    if (s->seen_rank == ctx->sel.rank) /* not a new selection: the view stays */
        s->seen_call = call;
}

/* The selected call, found in the new window (nix) by its lane, depth and
 * span; when the new one does not hold it, it is kept with the old window
 * (*keep_old: the caller does not free that profile). */
static void carry_selection(tl_state *s, ui_ctx *ctx, const lanes_index *nix, bool *keep_old)
{
    tl_window *w = s->win;
    *keep_old = false;
    if (ctx->sel.call == TL_WINDOW_KEPT) {
        int64_t g = find_call(nix, w->klane, w->kdepth, w->kst, w->ke);
        if (g >= 0) {
            profile_free(w->kprof);
            w->kprof = NULL;
            set_sel_call(s, ctx, g);
        }
        return;
    }
    size_t l, pos;
    uint32_t d;
    if (ctx->sel.call < 0 || !w->wix ||
        !lanes_locate(w->wix, ctx->sel.rank, ctx->sel.call, &l, &d, &pos))
        return;
    int64_t st, e;
    lanes_call_span(w->wix->lanes[l].rk, (uint32_t)ctx->sel.call, &st, &e);
    int64_t g = find_call(nix, l, d, st, e);
    if (g >= 0) {
        set_sel_call(s, ctx, g);
        return;
    }
    profile_free(w->kprof);
    w->kprof = w->wprof;
    w->kcall = ctx->sel.call;
    w->kw0 = w->w0;
    w->kw1 = w->w1;
    w->klane = l;
    w->kdepth = d;
    w->kst = st;
    w->ke = e;
    *keep_old = true;
    set_sel_call(s, ctx, TL_WINDOW_KEPT);
}

/* A window whose ranks are the skeleton's, index for index (the lanes'
 * rank indices and the task groups count on it). */
static bool same_ranks(const profile *a, const profile *b)
{
    if (a->nranks != b->nranks)
        return false;
    for (size_t k = 0; k < a->nranks; k++)
        if (a->ranks[k].rank != b->ranks[k].rank)
            return false;
    return true;
}

static bool same_lanes(const lanes_index *ix, const lanes_spec *spec, size_t n)
{
    if (ix->nlanes != n)
        return false;
    for (size_t l = 0; l < n; l++) {
        const lane *ln = &ix->lanes[l];
        if (ln->kind != spec[l].kind || ln->row != spec[l].row ||
            (size_t)(ln->rk - ix->prof->ranks) != spec[l].rank_index)
            return false;
    }
    return true;
}

static void take_window(tl_state *s, ui_ctx *ctx)
{
    tl_window *w = s->win;
    int64_t t0, t1;
    ooc_job_span(w->job, &t0, &t1);
    profile *wp = NULL;
    sv_error err;
    sv_error_clear(&err);
    sv_err rc = ooc_job_take(w->job, &wp, &err);
    w->job = NULL;
    ctx->ooc_job = NULL;
    lanes_index *ix = NULL;
    if (rc == SV_OK && !same_ranks(wp, ctx->prof))
        rc = sv_error_set(&err, SV_ERR_FORMAT, "%s: a window's ranks differ from the file's",
                          w->f->path);
    if (rc == SV_OK)
        rc = lanes_build(wp, ctx->opt->filter, &ix, &err);
    if (rc == SV_OK)
        rc = lanes_add_empty(ix, w->spec, w->nspec, &err);
    /* The rows (shown, busy, groups) are the map's lanes: a window of the
     * same file has exactly those, in that order. */
    if (rc == SV_OK && !same_lanes(ix, w->spec, w->nspec))
        rc = sv_error_set(&err, SV_ERR_FORMAT, "%s", OOC_CHANGED_MSG);
    if (rc != SV_OK) {
        snprintf(w->error, sizeof w->error, "%s", err.msg);
        ui_set_status(ctx, "Calls of the view not read: %s", err.msg);
        lanes_free(ix);
        profile_free(wp);
        return;
    }
    w->error[0] = '\0';
    if (s->ix == w->wix)
        use_index(s, w->empty); /* the old window's busy rows go before it does */
    bool keep_old;
    carry_selection(s, ctx, ix, &keep_old);
    lanes_free(w->wix);
    if (!keep_old)
        profile_free(w->wprof);
    w->wprof = wp;
    w->wix = ix;
    w->w0 = t0;
    w->w1 = t1;
}

/* [t0, t1) widened by half its length on each side, so that small pans
 * do not read again, unless that holds too many calls. */
static void wanted_span(const tl_window *w, int64_t t0, int64_t t1, int64_t *a, int64_t *b)
{
    /* Saturating: a view may reach far past a profile without calls. */
    int64_t half = ck_sub(t1, t0) / 2, lo = w->f->map.t_min, hi = ck_add(w->f->map.t_max, 1);
    *a = ck_sub(t0, lo) > half ? ck_sub(t0, half) : lo;
    *b = ck_sub(hi, t1) > half ? ck_add(t1, half) : hi;
    *a = *a < t0 ? *a : t0;
    *b = *b > t1 ? *b : t1;
    if (ooc_map_calls_in(&w->f->map, *a, *b) > w->cap) {
        *a = t0;
        *b = t1;
    }
}

static bool covers(const tl_window *w, int64_t t0, int64_t t1)
{
    return w->wix && w->w0 <= t0 && t1 <= w->w1;
}

bool tl_window_step_kept(tl_state *s, ui_ctx *ctx, size_t l, uint32_t d, int dir)
{
    tl_window *w = s->win;
    size_t kl;
    uint32_t kd;
    int64_t st, e;
    if (!tl_window_kept(s, ctx->sel.call, &kl, &kd, &st, &e) || kl != l || kd != d)
        return false;
    w->step = dir;
    w->step_v = s->v;
    w->step_x = s->cursor_x;
    int64_t ve = lanes_visible_end(st, e);
    tl_center_at(&s->v, st + (ve - st) / 2, s->geo.tw / 2, s->span_lo, s->span_hi);
    return true;
}

void tl_window_forget_step(tl_state *s)
{
    if (s->win)
        s->win->error[0] = '\0'; /* a key: a window that failed is tried again */
    if (s->win && s->win->seek) {
        s->v = s->win->seek_v;
        s->cursor_x = s->win->seek_x;
        s->win->seek = 0;
    }
    if (s->win && s->win->step) {
        s->v = s->win->step_v; /* back where the step was asked */
        s->cursor_x = s->win->step_x;
        s->win->step = 0;
    }
}

bool tl_window_beyond(const tl_state *s, int dir)
{
    const tl_window *w = s->win;
    if (!w || !w->serving)
        return false;
    return dir > 0 ? w->w1 <= w->f->map.t_max : w->w0 > w->f->map.t_min;
}

/* ------------------------------------------------------------ seek step */

/* The end of the bucket [s0, s0 + w), saturated: the last bucket of a span
 * near 2^63 ends past INT64_MAX, and a wrapped end (INT64_MIN) sent the
 * search back to the first bucket, reading windows for ever. */
static int64_t bucket_end(int64_t s0, uint64_t w)
{
    return w > (uint64_t)INT64_MAX - (uint64_t)s0 ? INT64_MAX : (int64_t)((uint64_t)s0 + w);
}

/* Row (l, d)'s nearest level-0 bucket of the map holding a call start
 * before bound (dir < 0: the last such bucket, its part before bound) or
 * at or after it (dir > 0: the first, its part from bound on), in
 * [*b0, *b1).  1 found, 0 the map says the row has none, -1 the map does
 * not know (a depth it does not keep). */
static int seek_bucket(const ooc_map *m, size_t l, uint32_t d, int dir, int64_t bound, int64_t *b0,
                       int64_t *b1)
{
    if (l >= m->nlanes || d >= OOC_MAP_DEPTHS || !m->lanes[l].cells)
        return -1;
    if (d >= m->lanes[l].ndepth || m->nb == 0)
        return 0;
    const ooc_cell *row = m->lanes[l].cells + (size_t)d * ooc_map_row_cells(m);
    uint64_t w = (uint64_t)1 << m->shift;
    uint64_t rel = bound > m->origin ? (uint64_t)bound - (uint64_t)m->origin : 0;
    size_t b = (size_t)(rel / w < m->nb ? rel / w : m->nb);
    if (dir < 0) {
        if (bound <= m->origin)
            return 0;
        if (b < m->nb && rel % w == 0) /* bound opens bucket b: none of it is before */
            ;
        else if (b < m->nb)
            b++;
        while (b > 0 && row[b - 1].starts == 0)
            b--;
        if (b == 0)
            return 0;
        int64_t s0 = (int64_t)((uint64_t)m->origin + (uint64_t)(b - 1) * w);
        *b0 = s0;
        *b1 = (uint64_t)bound - (uint64_t)s0 < w ? bound : bucket_end(s0, w);
        return 1;
    }
    for (; b < m->nb && row[b].starts == 0; b++)
        ;
    if (b >= m->nb)
        return 0;
    int64_t s0 = (int64_t)((uint64_t)m->origin + (uint64_t)b * w);
    *b0 = s0 > bound ? s0 : bound;
    *b1 = bucket_end(s0, w);
    return 1;
}

/* The view on the span being read: its window comes next. */
static void seek_show(tl_state *s, tl_window *w, int64_t b0, int64_t b1)
{
    w->seek_b0 = b0;
    w->seek_b1 = b1;
    tl_show_span(&s->v, b0, b1 > b0 ? b1 : ck_add(b0, 1), s->span_lo, s->span_hi);
}

int tl_window_seek_step(tl_state *s, size_t l, uint32_t d, int dir, int64_t t)
{
    tl_window *w = s->win;
    if (!w || !w->serving)
        return -1;
    int64_t bound = dir < 0 ? (t < w->w0 ? t : w->w0) : (t > w->w1 ? t : w->w1);
    int64_t b0, b1;
    int r = seek_bucket(&w->f->map, l, d, dir, bound, &b0, &b1);
    if (r <= 0)
        return r;
    w->seek = dir;
    w->seek_l = l;
    w->seek_d = d;
    w->seek_t = t;
    w->seek_v = s->v;
    w->seek_x = s->cursor_x;
    seek_show(s, w, b0, b1);
    return 1;
}

/* The window of the span searched is drawn: the neighbour is in it (the
 * view returns, then the step is taken as in memory: selected, revealed),
 * or the search goes on to the next bucket with a start, or ends. */
static void seek_go_on(tl_state *s, ui_ctx *ctx)
{
    tl_window *w = s->win;
    int dir = w->seek;
    const char *why = NULL;
    int64_t call = -1;
    int rank = 0;
    if (!w->serving) {
        why = "beyond";
    } else if (w->seek_l < s->ix->nlanes && w->seek_d < s->ix->lanes[w->seek_l].ndepth) {
        const lane *ln = &s->ix->lanes[w->seek_l];
        const lane_row *row = &ln->rows[w->seek_d];
        size_t at = lane_row_lower_start(ln, row, w->seek_t), k = dir < 0 ? at - 1 : at;
        int64_t st = 0, e;
        if (k < row->n)
            lanes_call_span(ln->rk, lane_row_call(row, k), &st, &e);
        if (k < row->n && (dir < 0 ? st >= w->seek_b0 : st < w->seek_b1)) {
            call = lane_row_call(row, k);
            rank = ln->rk->rank;
        }
    }
    if (call < 0 && !why) { /* not in this bucket's span: the next one */
        int64_t b0, b1;
        int r = seek_bucket(&w->f->map, w->seek_l, w->seek_d, dir,
                            dir < 0 ? w->seek_b0 : w->seek_b1, &b0, &b1);
        if (r > 0) {
            seek_show(s, w, b0, b1);
            return;
        }
        why = r < 0 ? "beyond" : "none";
    }
    s->v = w->seek_v;
    s->cursor_x = w->seek_x;
    w->seek = 0;
    if (call >= 0) {
        tl_select(s, ctx, rank, call);
        tl_reveal(s, rank, call, true);
    } else if (strcmp(why, "none") == 0) {
        ui_set_status(ctx, dir > 0 ? "No later call in this row" : "No earlier call in this row");
    } else {
        ui_set_status(ctx, "The %s call lies beyond the calls read: pan or zoom out to see it",
                      dir > 0 ? "next" : "previous");
    }
}

/* The step waiting for the kept selection's window, once that window is
 * drawn (the selection found in it) or cannot be (the span holds too many
 * calls): the view returns and the step is taken from the selection. */
static void finish_step(tl_state *s, ui_ctx *ctx)
{
    tl_window *w = s->win;
    int dir = w->step;
    bool found = ctx->sel.call != TL_WINDOW_KEPT;
    if (!dir || (!found && w->loading))
        return;
    w->step = 0;
    s->v = w->step_v;
    s->cursor_x = w->step_x;
    if (found)
        tl_step_call(s, ctx, dir);
    else
        ui_set_status(ctx, "Zoom in (+) to step from the selected call");
}

void tl_window_sync(tl_state *s, ui_ctx *ctx)
{
    tl_window *w = s->win;
    if (!w)
        return;
    if (w->kprof && ctx->sel.call != TL_WINDOW_KEPT) { /* another selection since */
        profile_free(w->kprof);
        w->kprof = NULL;
    }
    int64_t t0 = s->v.t0, t1 = tl_col_time(&s->v, s->geo.tw);
    if (w->job && ooc_job_done(w->job))
        take_window(s, ctx);
    w->serving = w->loading = false;
    if (!covers(w, t0, t1) && ooc_map_calls_in(&w->f->map, t0, t1) <= w->cap && !w->error[0]) {
        if (!w->job) {
            int64_t a, b;
            wanted_span(w, t0, t1, &a, &b);
            w->job = ooc_job_start(w->f, a, b, w->hold);
            ctx->ooc_job = w->job;
        }
        if (w->job && ctx->opt->headless && !w->hold) {
            ooc_job_wait(w->job);
            take_window(s, ctx);
        }
        w->loading = !covers(w, t0, t1);
    }
    w->serving = covers(w, t0, t1);
    use_index(s, w->serving ? w->wix : w->empty);
    if (w->step && (w->serving || !w->loading)) {
        finish_step(s, ctx); /* may move the view: its window next */
        tl_window_sync(s, ctx);
        return;
    }
    if (w->seek && (w->serving || !w->loading)) {
        seek_go_on(s, ctx); /* moves the view: its window next */
        tl_window_sync(s, ctx);
    }
}

lanes_index *tl_window_rows(tl_state *s)
{
    return s->win->empty;
}

int64_t tl_window_lane_busy(const tl_state *s, size_t l)
{
    const ooc_map *m = &s->win->f->map;
    if (l >= m->nlanes || !m->lanes[l].cells || m->nlevels == 0)
        return 0;
    unsigned top = m->nlevels - 1; /* its cells add up to the row's busy time */
    const ooc_cell *c = m->lanes[l].cells + ooc_map_level_offset(m, top);
    uint64_t busy = 0;
    for (size_t k = 0; k < m->nb >> top; k++)
        busy += c[k].busy;
    return busy > INT64_MAX ? INT64_MAX : (int64_t)busy;
}

bool tl_window_lane_in_view(const tl_state *s, size_t l)
{
    int64_t t0 = s->v.t0, t1 = tl_col_time(&s->v, s->v.width);
    ooc_col c = {0, 0, -1, 0};
    if (t1 <= t0 || l >= s->win->f->map.nlanes)
        return false;
    /* one column over the whole view: busy or calls there */
    ooc_map_columns(&s->win->f->map, l, 0, t0, ck_sub(t1, t0), 1, &c);
    return c.calls > 0 || c.busy > 0;
}

bool tl_window_map_rows(const tl_state *s)
{
    return s->win && !s->win->serving;
}

const char *tl_window_mode(const tl_state *s, const ui_ctx *ctx, int room)
{
    if (!s->win)
        return "";
    /* The longest form that fits; the window's none rather than a cut one
     * (its screen is the in-memory one), the overview's always. */
    const char *forms[4][2] = {{"out of core", ""},
                               {"overview, loading calls…", "loading calls…"},
                               {"overview (out of core)", "overview"},
                               {"overview: the calls could not be read", "overview"}};
    const char *ascii[2] = {"overview, loading calls...", "loading calls..."};
    int m = s->win->serving ? 0 : s->win->loading ? 1 : s->win->error[0] ? 3 : 2;
    for (int k = 0; k < 2; k++) {
        const char *f = m == 1 && ctx->ascii ? ascii[k] : forms[m][k];
        if (text_display_width(f) <= room || k == 1)
            return f;
    }
    return "";
}

const profile *tl_window_sel_profile(const tl_state *s, const ui_ctx *ctx)
{
    if (!s->win)
        return ctx->prof;
    return ctx->sel.call == TL_WINDOW_KEPT ? s->win->kprof : s->win->wprof;
}

int64_t tl_window_sel_call(const tl_state *s, const ui_ctx *ctx)
{
    return s->win && ctx->sel.call == TL_WINDOW_KEPT ? s->win->kcall : ctx->sel.call;
}

bool tl_window_kept(const tl_state *s, int64_t call, size_t *lane_out, uint32_t *depth, int64_t *st,
                    int64_t *e)
{
    const tl_window *w = s->win;
    if (!w || call != TL_WINDOW_KEPT || !w->kprof)
        return false;
    *lane_out = w->klane;
    *depth = w->kdepth;
    *st = w->kst;
    *e = w->ke;
    return true;
}

bool tl_window_call_whole(const tl_state *s, const ui_ctx *ctx, int64_t st, int64_t e)
{
    /* A call inside the span read has all its descendants in the window
     * (they lie within it); one reaching outside may have others. */
    const tl_window *w = s->win;
    if (!w)
        return true;
    bool kept = ctx->sel.call == TL_WINDOW_KEPT;
    return st >= (kept ? w->kw0 : w->w0) && e <= (kept ? w->kw1 : w->w1);
}

void tl_window_select(tl_state *s, ui_ctx *ctx, int rank, int64_t call)
{
    if (call != TL_WINDOW_KEPT) { /* a new selection: the kept one goes */
        profile_free(s->win->kprof);
        s->win->kprof = NULL;
    }
    const profile *wp = s->win->wprof;
    rank_data *rk = wp ? profile_rank(wp, rank) : NULL;
    size_t i = 0;
    const region *r = rk && call >= 0 ? rank_call_region(rk, call, &i) : NULL;
    rank_data *sk = profile_rank(ctx->prof, rank);
    ctx->sel.region = r && sk ? rank_region(sk, r->name) : NULL;
    ctx->sel.rank = rank;
    ctx->sel.call = r ? call : -1;
}

/* ------------------------------------------------------------ go to a call */

/* The view on the call of g: whole at its lane (g->whole), or the part
 * from its start that a window may hold (a call overlapping the window is
 * in it). */
static void go_show(tl_state *s, ui_ctx *ctx, const ui_ooc_goto *g)
{
    tl_window *w = s->win;
    if (g->whole && g->lane < w->empty->nlanes) {
        profile_free(w->kprof);
        w->kprof = NULL;
        ctx->sel.call = -1;
        use_index(s, w->empty);
        tl_reveal_span(s, (size_t)g->lane, g->depth, g->s, g->e, false);
        return;
    }
    int64_t ve = lanes_visible_end(g->s, g->e);
    for (;;) {
        tl_show_span(&s->v, g->s, ve, s->span_lo, s->span_hi);
        int64_t t1 = tl_col_time(&s->v, s->geo.tw);
        if (g->whole || ck_sub(ve, g->s) <= 1 ||
            ooc_map_calls_in(&w->f->map, s->v.t0, t1) <= w->cap)
            break;
        ve = g->s + ck_sub(ve, g->s) / 2;
    }
}

void tl_window_goto(tl_state *s, ui_ctx *ctx)
{
    tl_window *w = s->win;
    if (!w || !ctx->ooc_goto.on)
        return;
    ui_ooc_goto g = ctx->ooc_goto;
    ctx->ooc_goto.on = false;
    if (g.lane == SLOW_NO_LANE) {
        ui_set_status(ctx, "The call is not on the timeline: the filter (-i, -x) leaves it out");
        return;
    }
    go_show(s, ctx, &g);
    w->go = true;
    w->go_to = g;
}

/* Row d of lane l's call of g's span and region (name NULL: any), or -1
 * (rows hold one call of a span and region but for calls recorded twice,
 * which are the same to the eye). */
static int64_t go_in_row(const lanes_index *ix, size_t l, uint32_t d, const ui_ooc_goto *g,
                         const char *name)
{
    const lane *ln = &ix->lanes[l];
    if (d >= ln->ndepth)
        return -1;
    const lane_row *row = &ln->rows[d];
    for (size_t k = lane_row_lower_start(ln, row, g->s); k < row->n; k++) {
        int64_t s2, e2;
        uint32_t call = lane_row_call(row, k);
        lanes_call_span(ln->rk, call, &s2, &e2);
        if (s2 != g->s)
            break;
        size_t i;
        const region *r = rank_call_region(ln->rk, call, &i);
        if (e2 == g->e && r && (!name || strcmp(r->name, name) == 0))
            return call;
    }
    return -1;
}

/* The asked call in the window drawn: in its lane and depth row, else
 * (a lane not known: a rank fed unnested) in every row of its rank's
 * lanes. */
static int64_t go_find(const tl_state *s, const ui_ctx *ctx, const ui_ooc_goto *g)
{
    rank_data *sk = profile_rank(ctx->prof, g->rank);
    const lanes_index *ix = s->ix;
    bool any = g->region == UI_GOTO_ANY_REGION;
    if (!sk || (!any && g->region >= sk->nregions))
        return -1;
    const char *name = any ? NULL : sk->regions[g->region]->name;
    if (g->lane < ix->nlanes)
        return go_in_row(ix, (size_t)g->lane, g->depth, g, name);
    if (g->lane != UI_GOTO_ANY_LANE)
        return -1;
    for (size_t l = 0; l < ix->nlanes; l++) {
        if (!ix->lanes[l].rk || ix->lanes[l].rk->rank != g->rank)
            continue;
        for (uint32_t d = 0; d < ix->lanes[l].ndepth; d++) {
            int64_t c = go_in_row(ix, l, d, g, name);
            if (c >= 0)
                return c;
        }
    }
    return -1;
}

void tl_window_goto_done(tl_state *s, ui_ctx *ctx)
{
    tl_window *w = s->win;
    if (!w || !w->go || (!w->serving && w->loading))
        return;
    w->go = false;
    const ui_ooc_goto *g = &w->go_to;
    int64_t call = w->serving ? go_find(s, ctx, g) : -1;
    if (call < 0 && g->whole && !w->serving)
        ui_set_status(ctx, "%s spans more calls than a window holds: zoom in (+) to select calls",
                      g->what ? g->what : "The call");
    else if (call < 0)
        ui_set_status(ctx, "%s",
                      w->serving ? "The call was not found in the calls read"
                                 : "The call's calls could not be read");
    else if (g->whole) /* the view stays on the call shown whole */
        tl_window_select(s, ctx, g->rank, call);
    else {
        tl_select(s, ctx, g->rank, call);
        tl_reveal(s, g->rank, call, true);
    }
}
