/* flame: view 8, the flame graph (icicle) of the calls in a scope
 * (model/flame.h, drawn by the flamegraph widget): every rank merged, a
 * rank, a thread or the timeline's time band (F); top-down or inverted;
 * t shows a frame's slowest call in the timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timefmt.h"
#include "view/flamegraph.h"
#include "view/picker.h"

typedef struct fv_state {
    flamegraph g;
    char error[SV_MSG_MAX];
    calltree_scope *scopes; /* r: all ranks, each rank, thread, task and inferred lane */
    size_t nscopes, scope_i;
    bool lanes_added; /* the tasks and inferred lanes appended to scopes */
    bool band;        /* a time band from the timeline (F) */
    int64_t t0, t1;
    flame_mode mode; /* top-down or inverted (i) */
    flame_order order;
    /* The graph of the other mode, same scope, when one was built: i
     * swaps the two rather than merging every call's path again. */
    flame *other;
    picker pick;
    const ui_ctx *pick_ctx;
} fv_state;

/* ------------------------------------------------------------- building */

/* After the ranks and threads, each task and inferred lane (calltree.h):
 * a lane's graph needs its calls' nesting, so only once they are in. */
static void fv_add_lane_scopes(fv_state *s, ui_ctx *ctx, const region_filter *filt)
{
    s->lanes_added = true;
    calltree_scope *v = NULL;
    size_t n = 0;
    if (ctx->prof->cpaths || calltree_lane_scopes(ctx->prof, filt, &v, &n, NULL) || !n) {
        free(v);
        return;
    }
    calltree_scope *all = realloc(s->scopes, (s->nscopes + n) * sizeof *all);
    if (all) {
        memcpy(all + s->nscopes, v, n * sizeof *v);
        s->scopes = all;
        s->nscopes += n;
    }
    free(v);
}

static void fv_build(fv_state *s, ui_ctx *ctx)
{
    flame_free(s->other); /* a new scope, or the calls came in */
    s->other = NULL;
    fg_set(&s->g, NULL);
    if (ui_calls_pending(ctx)) /* drawn as "computing…", built once they are in */
        return;
    const region_filter *filt = ctx->opt ? ctx->opt->filter : NULL;
    if (!s->scopes && calltree_scopes(ctx->prof, filt, &s->scopes, &s->nscopes, NULL))
        s->nscopes = 0; /* without memory: all ranks only */
    if (s->scopes && !s->lanes_added)
        fv_add_lane_scopes(s, ctx, filt);
    calltree_scope sc =
        s->nscopes ? s->scopes[s->scope_i] : (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0};
    if (s->band) {
        sc.t0 = s->t0;
        sc.t1 = s->t1;
    }
    sv_error err;
    sv_error_clear(&err);
    flame *f = NULL;
    if (flame_build(ctx->prof, sc, s->mode, filt, &f, &err)) {
        snprintf(s->error, sizeof s->error, "%s", err.msg);
        return;
    }
    s->error[0] = '\0';
    flame_sort(f, s->order);
    fg_set(&s->g, f);
}

/* The other mode's graph: the one kept from before when there is one (its
 * frames in the current order), else built; the graph shown kept for the
 * next i. */
static void fv_invert(fv_state *s, ui_ctx *ctx)
{
    flame *shown = fg_take(&s->g);
    flame *kept = s->other;
    s->other = NULL;
    if (kept && !s->error[0]) {
        flame_sort(kept, s->order);
        fg_set(&s->g, kept);
    } else {
        flame_free(kept);
        fv_build(s, ctx);
    }
    if (s->g.f && shown) {
        flame_free(s->other);
        s->other = shown;
    } else {
        flame_free(shown);
    }
}

/* A band asked for by the timeline (F) since the last frame. */
static void fv_refresh(fv_state *s, ui_ctx *ctx)
{
    if (ctx->flame_band) {
        ctx->flame_band = false;
        s->band = ctx->flame_t1 > ctx->flame_t0;
        s->t0 = ctx->flame_t0;
        s->t1 = ctx->flame_t1;
        fv_build(s, ctx);
        return;
    }
    if (!s->g.f && !s->error[0])
        fv_build(s, ctx);
}

/* -------------------------------------------------------------- drawing */

static void scope_text(calltree_scope sc, const ui_ctx *ctx, char *buf, size_t len)
{
    int n;
    if (sc.rank < 0) {
        n = snprintf(buf, len, "all ranks");
    } else if (sc.lane_kind == LANE_TASK) {
        char name[128];
        rank_data *rk = profile_rank(ctx->prof, sc.rank);
        n = snprintf(buf, len, "rank %d, task %s", sc.rank,
                     rk ? rank_task_name(rk, sc.lane_row, name, sizeof name) : "?");
    } else if (sc.lane_kind == LANE_INFERRED) {
        n = snprintf(buf, len, "rank %d, lane %lld (inferred)", sc.rank,
                     (long long)sc.lane_row + 1);
    } else if (sc.thread < 0) {
        n = snprintf(buf, len, "rank %d", sc.rank);
    } else {
        char name[128];
        rank_data *rk = profile_rank(ctx->prof, sc.rank);
        n = snprintf(buf, len, "rank %d, thread %s", sc.rank,
                     rk ? rank_thread_name(rk, sc.thread, name, sizeof name) : "?");
    }
    if (calltree_scope_banded(sc) && n > 0 && (size_t)n < len) {
        char a[40], b[40];
        int64_t t0 = ctx->prof->min_start_ns;
        timefmt_ns(a, sizeof a, (double)(sc.t0 - t0));
        timefmt_ns(b, sizeof b, (double)(sc.t1 - t0));
        snprintf(buf + n, len - (size_t)n, ", %s .. %s", a, b);
    }
}

/* The picker's item i: scope i. */
static void pick_label(size_t i, char *buf, size_t len, void *user)
{
    const fv_state *s = user;
    scope_text(s->scopes[i], s->pick_ctx, buf, len);
}

/* The scope (cut in the middle when long), the mode, then the order and
 * colours, or the search's matches and their share of the scope. */
static void fv_header(fv_state *s, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    char scope[256], tail[256];
    const flame *f = s->g.f;
    /* without a graph (an error, or still computing): the scope asked for */
    calltree_scope asked =
        s->nscopes ? s->scopes[s->scope_i] : (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0};
    if (s->band) {
        asked.t0 = s->t0;
        asked.t1 = s->t1;
    }
    calltree_scope sc = f ? f->scope : asked;
    scope_text(sc, ctx, scope, sizeof scope);
    const char *mode = s->mode == FLAME_INVERTED ? "inverted" : "top-down";
    if (f && fg_sync_search(&s->g, ctx)) {
        char tot[40];
        timefmt_ns(tot, sizeof tot, (double)f->nodes[0].weight);
        double share = f->nodes[0].weight > 0
                           ? 100.0 * (double)s->g.match_ns / (double)f->nodes[0].weight
                           : 0.0;
        snprintf(tail, sizeof tail, "  %s  matches: %.1f%% of %s", mode, share, tot);
    } else {
        snprintf(tail, sizeof tail, "  %s  %s  colour: %s", mode,
                 s->order == FLAME_ORDER_HEAVY ? "heaviest first" : "by first call",
                 s->g.heat ? "self-time heat" : "region");
    }
    grid_fill(g, (rect){area.x, area.y, area.w, 1}, ' ', ROLE_NORMAL, 0);
    int x = area.x + grid_put_text(g, area.x, area.y, area.w, " scope: ", ROLE_NORMAL, GA_BOLD);
    int room = area.x + area.w - x - grid_text_width(g, tail);
    int sw = grid_text_width(g, scope);
    x += grid_put_text_mid(g, x, area.y,
                           sw < room   ? sw
                           : room > 12 ? room
                                       : 12,
                           scope, ROLE_NORMAL, GA_BOLD);
    grid_put_text(g, x, area.y, area.x + area.w - x, tail, ROLE_NORMAL, GA_BOLD);
}

static void fv_draw(void *state, ui_ctx *ctx, rect area)
{
    fv_state *s = state;
    if (!s || area.h < 5 || area.w < 10)
        return;
    fv_refresh(s, ctx);
    fv_header(s, ctx, area);
    rect body = {area.x, area.y + 1, area.w, area.h - 1};
    if (!s->g.f) {
        grid_put_text(&ctx->grid, area.x + 1, area.y + 2, area.w - 2,
                      s->error[0] ? s->error : ui_computing_text(ctx), ROLE_DIM, 0);
        return;
    }
    fg_draw(&s->g, ctx, body);
    if (s->pick.open) {
        s->pick_ctx = ctx;
        picker_draw(&s->pick, ctx, body,
                    " Scope: all ranks, a rank, a thread, a task or an inferred lane", pick_label,
                    s);
    }
}

/* ------------------------------------------------------------- the calls */

/* Whether call i of r is in the graph's scope. */
static bool call_in_scope(const flame *f, const ui_ctx *ctx, const region *r, size_t i)
{
    calltree_scope sc = f->scope;
    if (!filter_match_name(ctx->opt ? ctx->opt->filter : NULL, r->name))
        return false;
    if (sc.thread >= 0 && !(r->thread_ids && r->thread_ids[i] == sc.thread))
        return false;
    if (sc.lane_kind == LANE_TASK && !(r->task_ids && r->task_ids[i] == sc.lane_row))
        return false;
    if (sc.lane_kind == LANE_INFERRED) {
        const rank_data *rk = profile_rank(ctx->prof, r->rank);
        const rank_calls *c = rk ? rk->calls : NULL;
        if (!c || !c->lane || (int64_t)c->lane[r->gidx0 + i] != sc.lane_row)
            return false;
    }
    if (!calltree_scope_banded(sc))
        return true;
    int64_t a = r->start_ns[i], e = r->end_ns[i];
    return a == e ? a >= sc.t0 && a < sc.t1 : a < sc.t1 && e > sc.t0;
}

/* The names of node's frames, top row first: v[0] .. v[depth - 1]. */
static const char **node_chain(const flame *f, uint32_t node, size_t *n)
{
    *n = f->nodes[node].depth;
    const char **v = malloc((*n ? *n : 1) * sizeof *v);
    for (size_t k = *n; v && k-- > 0; node = f->nodes[node].parent)
        v[k] = flame_name(f, node);
    return v;
}

/* Whether call g of rk lies on the frame's path: top-down its region is the
 * last name and its in-scope ancestors the others up to the top; inverted
 * its region is the first name and its nearest in-scope ancestors the rest. */
static bool call_on_path(const flame *f, const ui_ctx *ctx, const rank_data *rk, int64_t g,
                         const char **v, size_t n)
{
    bool inv = f->mode == FLAME_INVERTED;
    size_t k = 1; /* names matched */
    for (int64_t a = rk->calls->parent[g]; a >= 0; a = rk->calls->parent[a]) {
        size_t idx;
        const region *r = rank_call_region(rk, a, &idx);
        if (!r || !call_in_scope(f, ctx, r, idx))
            continue;
        if (k == n)
            return inv; /* top-down: an ancestor above the top frame */
        if (strcmp(r->name, v[inv ? k : n - 1 - k]) != 0)
            return false;
        k++;
    }
    return k == n;
}

typedef struct fv_slowest {
    int rank;
    int64_t call, ns, count;
} fv_slowest;

static void slowest_on_rank(const flame *f, const ui_ctx *ctx, const rank_data *rk, const char **v,
                            size_t n, fv_slowest *best)
{
    const char *leaf = v[f->mode == FLAME_INVERTED ? 0 : n - 1];
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (strcmp(r->name, leaf) != 0)
            continue;
        for (size_t i = 0; i < r->n; i++) {
            int64_t g = (int64_t)(r->gidx0 + i);
            if (!call_in_scope(f, ctx, r, i) || !call_on_path(f, ctx, rk, g, v, n))
                continue;
            int64_t d = r->end_ns[i] - r->start_ns[i];
            best->count++;
            if (best->call < 0 || d > best->ns)
                *best = (fv_slowest){rk->rank, g, d, best->count};
        }
    }
}

/* t: the frame's slowest call, selected and shown in the timeline. */
static int fv_show_calls(fv_state *s, ui_ctx *ctx)
{
    const flame *f = s->g.f;
    if (s->g.cur == 0) {
        ui_set_status(ctx, "Move to a frame first");
        return VF_HANDLED | VF_REDRAW;
    }
    size_t n;
    const char **v = node_chain(f, s->g.cur, &n);
    fv_slowest best = {.rank = -1, .call = -1};
    const region_filter *filt = ctx->opt ? ctx->opt->filter : NULL;
    for (size_t k = 0; v && k < ctx->prof->nranks; k++) {
        const rank_data *rk = &ctx->prof->ranks[k];
        if (rk->calls && (f->scope.rank < 0 || f->scope.rank == rk->rank) &&
            filter_match_rank(filt, rk->rank))
            slowest_on_rank(f, ctx, rk, v, n, &best);
    }
    free(v);
    if (best.call < 0) {
        ui_set_status(ctx, "No call of this frame found");
        return VF_HANDLED | VF_REDRAW;
    }
    char d[40];
    timefmt_ns(d, sizeof d, (double)best.ns);
    ui_select_call(ctx, best.rank, best.call);
    ui_open_view(ctx, VIEW_TIMELINE);
    ui_set_status(ctx, "The slowest of the frame's %lld calls: %s (rank %d)", (long long)best.count,
                  d, best.rank);
    return VF_HANDLED | VF_REDRAW;
}

/* ------------------------------------------------------------ commands */

/* The cursor's region becomes the selection (s shows its source, d its
 * calls). */
static void fv_select(fv_state *s, ui_ctx *ctx)
{
    const flame *f = s->g.f;
    if (s->g.cur && f && f->reps) {
        region *r = f->reps[f->nodes[s->g.cur].name];
        if (r && r != ctx->sel.region)
            ui_select_region(ctx, r);
    }
}

static int fv_pick_cmd(fv_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    s->pick_ctx = ctx;
    enum picker_result r = picker_cmd(&s->pick, ctx, cmd, pick_label, s);
    if (r == PICK_CHOSEN && (s->pick.cur != s->scope_i || s->band)) {
        s->scope_i = s->pick.cur;
        s->band = false;
        fv_build(s, ctx);
    }
    if (r == PICK_NONE && (cmd == CMD_SEARCH || cmd == CMD_HELP))
        return 0;
    return VF_HANDLED | VF_REDRAW;
}

static int fv_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    fv_state *s = state;
    if (!s)
        return 0;
    fv_refresh(s, ctx);
    if (cmd == CMD_FLAME_INVERT) { /* also after an error, to go back */
        s->mode = s->mode == FLAME_INVERTED ? FLAME_TOP_DOWN : FLAME_INVERTED;
        fv_invert(s, ctx);
        return VF_HANDLED | VF_REDRAW;
    }
    if (!s->g.f)
        return 0;
    if (s->pick.open)
        return fv_pick_cmd(s, ctx, cmd);
    switch (cmd) {
    case CMD_SCOPE:
        if (s->nscopes < 2 && !s->band) {
            ui_set_status(ctx, "One scope only: all ranks");
            return VF_HANDLED | VF_REDRAW;
        }
        picker_open(&s->pick, s->nscopes, s->scope_i);
        return VF_HANDLED | VF_REDRAW;
    case CMD_FLAME_ORDER:
        s->order = s->order == FLAME_ORDER_HEAVY ? FLAME_ORDER_FIRST : FLAME_ORDER_HEAVY;
        fg_sort(&s->g, s->order);
        return VF_HANDLED | VF_REDRAW;
    case CMD_FLAME_TIMELINE:
        return fv_show_calls(s, ctx);
    default: {
        int r = fg_cmd(&s->g, ctx, cmd);
        if (r & VF_HANDLED)
            fv_select(s, ctx);
        return r;
    }
    }
}

/* ------------------------------------------------------------ lifetime */

static void *fv_create(ui_ctx *ctx)
{
    (void)ctx;
    fv_state *s = calloc(1, sizeof *s);
    if (s) {
        s->mode = FLAME_TOP_DOWN;
        s->order = FLAME_ORDER_FIRST;
    }
    return s; /* the graph is built on first use */
}

static void fv_destroy(void *state)
{
    fv_state *s = state;
    if (!s)
        return;
    fg_free(&s->g);
    flame_free(s->other);
    free(s->scopes);
    free(s);
}

const view_ops flame_view = {
    .name = "flame",
    .create = fv_create,
    .destroy = fv_destroy,
    .draw = fv_draw,
    .on_cmd = fv_cmd,
    .on_resize = NULL,
};
