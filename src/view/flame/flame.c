/* flame: view 8, the flame graph (icicle) of the calls in a scope
 * (model/flame.h): top-down or inverted, zoom, search, the frame's calls
 * in the timeline.  Drawing is in flame_draw.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame_view.h"
#include "util/timefmt.h"

/* ------------------------------------------------------------- building */

static void fv_free_graph(fv_state *s)
{
    flame_free(s->f);
    s->f = NULL;
    free(s->boxes);
    s->boxes = NULL;
    s->nboxes = 0;
    free(s->match);
    s->match = NULL;
    s->match_on = false;
    s->laid = false;
    s->nzoom = 0;
    s->cur = 0;
    s->top = 0;
}

static void fv_build(fv_state *s, ui_ctx *ctx)
{
    fv_free_graph(s);
    if (ui_calls_pending(ctx)) /* drawn as "computing…", built once they are in */
        return;
    const region_filter *filt = ctx->opt ? ctx->opt->filter : NULL;
    if (!s->scopes && calltree_scopes(ctx->prof, filt, &s->scopes, &s->nscopes, NULL))
        s->nscopes = 0; /* without memory: all ranks only */
    calltree_scope sc = s->nscopes ? s->scopes[s->scope_i] : (calltree_scope){-1, -1, 0, 0};
    if (s->band) {
        sc.t0 = s->t0;
        sc.t1 = s->t1;
    }
    sv_error err;
    sv_error_clear(&err);
    if (flame_build(ctx->prof, sc, s->mode, filt, &s->f, &err)) {
        snprintf(s->error, sizeof s->error, "%s", err.msg);
        return;
    }
    s->error[0] = '\0';
    flame_sort(s->f, s->order);
    s->max_self = 0;
    for (size_t i = 1; i < s->f->n; i++)
        if (s->f->nodes[i].self > s->max_self)
            s->max_self = s->f->nodes[i].self;
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
    if (!s->f && !s->error[0])
        fv_build(s, ctx);
}

/* --------------------------------------------------------------- layout */

const flame_box *fv_box_of(const fv_state *s, uint32_t node)
{
    for (size_t i = 0; i < s->nboxes; i++)
        if (s->boxes[i].node == node)
            return &s->boxes[i];
    return NULL;
}

void fv_layout(fv_state *s, int width, uint32_t nvis)
{
    if (!s->f)
        return;
    uint32_t root = fv_root(s);
    if (s->cur >= s->f->n || !flame_is_under(s->f, s->cur, root))
        s->cur = root;
    uint32_t d = s->f->nodes[s->cur].depth - s->f->nodes[root].depth;
    if (d < s->top)
        s->top = d;
    else if (d >= s->top + nvis)
        s->top = d - nvis + 1;
    uint32_t rows = s->top + nvis;
    if (s->laid && s->lw == width && s->lrows == rows && s->lroot == root)
        return;
    free(s->boxes);
    s->boxes = NULL;
    s->nboxes = 0;
    if (!flame_layout(s->f, root, width, rows, &s->boxes, &s->nboxes)) {
        s->boxes = NULL;
        s->nboxes = 0;
    }
    s->laid = true;
    s->lw = width;
    s->lrows = rows;
    s->lroot = root;
    if (!fv_box_of(s, s->cur)) /* narrower than a cell at this width */
        s->cur = root;
}

/* --------------------------------------------------------------- search */

void fv_sync_search(fv_state *s, const ui_ctx *ctx)
{
    if (!s->f)
        return;
    if (!ctx->has_search) {
        free(s->match);
        s->match = NULL;
        s->match_on = false;
        return;
    }
    if (s->match_on && strcmp(s->match_text, ctx->search_text) == 0)
        return;
    free(s->match);
    s->match = calloc(s->f->nnames ? s->f->nnames : 1, 1);
    s->match_on = s->match != NULL;
    if (!s->match)
        return;
    for (size_t i = 0; i < s->f->nnames; i++)
        s->match[i] = ui_search_match(ctx, s->f->names[i]);
    snprintf(s->match_text, sizeof s->match_text, "%s", ctx->search_text);
    s->match_ns = flame_match_time(s->f, 0, s->match);
}

static int fv_search(fv_state *s, ui_ctx *ctx, int dir)
{
    fv_sync_search(s, ctx);
    if (!s->match || s->nboxes == 0)
        return VF_HANDLED | VF_REDRAW;
    const flame_box *cb = fv_box_of(s, s->cur);
    size_t at = cb ? (size_t)(cb - s->boxes) : 0, n = s->nboxes;
    for (size_t k = 1; k <= n; k++) {
        size_t i = dir > 0 ? (at + k) % n : (at + n - k % n) % n;
        uint32_t node = s->boxes[i].node;
        if (node && s->match[s->f->nodes[node].name]) {
            s->cur = node;
            return VF_HANDLED | VF_REDRAW;
        }
    }
    ui_set_status(ctx, "No frame shown matches /%s/", ctx->search_text);
    return VF_HANDLED | VF_REDRAW;
}

/* ------------------------------------------------------------- the calls */

/* Whether call g (region r, index i) is in the graph's scope. */
static bool call_in_scope(const flame *f, const ui_ctx *ctx, const region *r, size_t i)
{
    calltree_scope sc = f->scope;
    if (!filter_match_name(ctx->opt ? ctx->opt->filter : NULL, r->name))
        return false;
    if (sc.thread >= 0 && !(r->thread_ids && r->thread_ids[i] == sc.thread))
        return false;
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
    const flame *f = s->f;
    if (s->cur == 0 || f->mode == FLAME_DIFF) {
        ui_set_status(ctx, "Move to a frame first");
        return VF_HANDLED | VF_REDRAW;
    }
    size_t n;
    const char **v = node_chain(f, s->cur, &n);
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

/* The cursor moved: its region becomes the selection (s shows its source). */
static int fv_moved(fv_state *s, ui_ctx *ctx)
{
    const flame *f = s->f;
    if (s->cur && f->reps) {
        region *r = f->reps[f->nodes[s->cur].name];
        if (r && r != ctx->sel.region)
            ui_select_region(ctx, r);
    }
    return VF_HANDLED | VF_REDRAW;
}

static int fv_move(fv_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    const flame_box *b = fv_box_of(s, s->cur);
    if (!b)
        return VF_HANDLED;
    size_t i = (size_t)(b - s->boxes);
    if (cmd == CMD_LEFT && i > 0 && s->boxes[i - 1].row == b->row)
        s->cur = s->boxes[i - 1].node;
    else if (cmd == CMD_RIGHT && i + 1 < s->nboxes && s->boxes[i + 1].row == b->row)
        s->cur = s->boxes[i + 1].node;
    else if (cmd == CMD_UP && s->cur != fv_root(s))
        s->cur = s->f->nodes[s->cur].parent;
    else if (cmd == CMD_DOWN) {
        for (size_t k = i + 1; k < s->nboxes; k++)
            if (s->boxes[k].row == b->row + 1 && s->boxes[k].x0 >= b->x0 &&
                s->boxes[k].x1 <= b->x1) {
                s->cur = s->boxes[k].node;
                break;
            }
    } else if (cmd == CMD_HOME)
        s->cur = fv_root(s);
    return fv_moved(s, ctx);
}

static int fv_zoom(fv_state *s, bool in)
{
    if (in && s->cur != fv_root(s) && s->nzoom < FV_ZOOM_MAX)
        s->zoom[s->nzoom++] = s->cur;
    else if (!in && s->nzoom > 0)
        s->nzoom--; /* the cursor stays on the frame zoomed out of */
    else
        return in ? VF_HANDLED : 0; /* Esc at the top: the app's back */
    s->top = 0;
    return VF_HANDLED | VF_REDRAW;
}

static int fv_pick_cmd(fv_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    s->pick_ctx = ctx;
    enum picker_result r = picker_cmd(&s->pick, ctx, cmd, fv_pick_label, s);
    if (r == PICK_CHOSEN && (s->pick.cur != s->scope_i || s->band)) {
        s->scope_i = s->pick.cur;
        s->band = false;
        fv_build(s, ctx);
    }
    if (r == PICK_NONE && (cmd == CMD_SEARCH || cmd == CMD_HELP))
        return 0;
    return VF_HANDLED | VF_REDRAW;
}

static int fv_toggle(fv_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    if (cmd == CMD_FLAME_INVERT) {
        s->mode = s->mode == FLAME_INVERTED ? FLAME_TOP_DOWN : FLAME_INVERTED;
        fv_build(s, ctx);
    } else if (cmd == CMD_FLAME_ORDER) {
        s->order = s->order == FLAME_ORDER_HEAVY ? FLAME_ORDER_FIRST : FLAME_ORDER_HEAVY;
        flame_sort(s->f, s->order);
        s->laid = false;
    } else {
        s->heat = !s->heat;
    }
    return VF_HANDLED | VF_REDRAW;
}

static int fv_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    fv_state *s = state;
    if (!s)
        return 0;
    fv_refresh(s, ctx);
    if (!s->f)
        return 0;
    if (s->pick.open)
        return fv_pick_cmd(s, ctx, cmd);
    switch (cmd) {
    case CMD_LEFT:
    case CMD_RIGHT:
    case CMD_UP:
    case CMD_DOWN:
    case CMD_HOME:
        return fv_move(s, ctx, cmd);
    case CMD_ENTER:
        return fv_zoom(s, true);
    case CMD_BACK:
        return fv_zoom(s, false);
    case CMD_SCOPE:
        if (s->nscopes < 2 && !s->band) {
            ui_set_status(ctx, "One scope only: all ranks");
            return VF_HANDLED | VF_REDRAW;
        }
        picker_open(&s->pick, s->nscopes, s->scope_i);
        return VF_HANDLED | VF_REDRAW;
    case CMD_FLAME_INVERT:
    case CMD_FLAME_ORDER:
    case CMD_FLAME_COLOR:
        return fv_toggle(s, ctx, cmd);
    case CMD_FLAME_TIMELINE:
        return fv_show_calls(s, ctx);
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        return ctx->has_search ? fv_search(s, ctx, cmd == CMD_SEARCH_NEXT ? 1 : -1) : 0;
    default:
        return 0;
    }
}

static void fv_view_draw(void *state, ui_ctx *ctx, rect area)
{
    fv_state *s = state;
    if (!s)
        return;
    fv_refresh(s, ctx);
    fv_draw(s, ctx, area);
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
    fv_free_graph(s);
    free(s->scopes);
    free(s);
}

const view_ops flame_view = {
    .name = "flame",
    .create = fv_create,
    .destroy = fv_destroy,
    .draw = fv_view_draw,
    .on_cmd = fv_cmd,
    .on_resize = NULL,
};
