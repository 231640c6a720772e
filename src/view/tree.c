/* tree: view 2, calls aggregated by call path (calltree.h).
 *
 * The model gives nodes and sorted children; this view keeps which nodes
 * are open and flattens the open part into rows without recursion (a path
 * can be 100 000 deep), so drawing costs the visible rows only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltree.h"
#include "ui/settings.h"
#include "picker.h"
#include "table.h"
#include "util/timefmt.h"
#include "ui/view.h"

enum tree_col {
    TC_CALLS,
    TC_INCL,
    TC_EXCL,
    TC_MEAN,
    TC_MAX,
    TC_SHARE,
    TC_AWAIT,
    TC_GPU,
    TC_NAME,
    TC_COUNT
};

/* The tree column is last and takes the spare width, as in htop. */
static const table_col tree_cols[TC_COUNT] = {
    [TC_CALLS] = {"Calls", 8, 1, false, false},   [TC_INCL] = {"Incl", 9, 0, false, false},
    [TC_EXCL] = {"Excl", 9, 0, false, false},     [TC_MEAN] = {"Mean", 9, 5, false, false},
    [TC_MAX] = {"Max", 9, 6, false, false},       [TC_SHARE] = {"%Par", 6, 2, false, false},
    [TC_AWAIT] = {"Await", 9, 4, false, false},   [TC_GPU] = {"GPU", 9, 3, false, false},
    [TC_NAME] = {"Call path", 16, 0, true, true},
};

static const ct_key tree_keys[TC_COUNT] = {
    [TC_CALLS] = CT_KEY_CALLS, [TC_INCL] = CT_KEY_INCL, [TC_EXCL] = CT_KEY_EXCL,
    [TC_MEAN] = CT_KEY_MEAN,   [TC_MAX] = CT_KEY_MAX,   [TC_SHARE] = CT_KEY_SHARE,
    [TC_AWAIT] = CT_KEY_AWAIT, [TC_GPU] = CT_KEY_GPU,   [TC_NAME] = CT_KEY_NAME,
};

/* Levels open when a tree is first shown: enough for a typical
 * main > step > phase > kernel path. */
enum { TREE_OPEN_DEPTH = 3, TREE_MAX_GUIDES = 64 };

enum { KEEP_SELF = 1, KEEP_DESC = 2 }; /* filter: node matches / a descendant does */

typedef struct tree_state {
    calltree *t;
    size_t t_scope; /* the scope t was built for */
    /* The tree of the other folding, same scope, once built: R swaps the
     * two (swap_fold) rather than merging every call's path again. */
    calltree *other;
    size_t other_scope;
    bool swap_fold;
    char error[SV_MSG_MAX];
    calltree_scope *scopes;
    size_t nscopes, scope_i;
    bool fold;
    uint8_t *open;  /* per node */
    uint8_t *last;  /* per node: last shown child of its parent */
    uint8_t *keep;  /* per node, when filtering */
    uint32_t *pos;  /* per node: index among its parent's children */
    uint32_t *rows; /* shown nodes, in order */
    size_t nrows;
    table tb;
    /* what the rows were built for */
    bool filter_on;
    char filter_text[sizeof((ui_ctx *)0)->search_text];
    bool stale;
    const region *seen_sel; /* selection last seen: follow other views */
    int64_t seen_call;
    bool drawn;  /* once: the first row is selected when nothing is */
    picker pick; /* r: the scope, chosen from a list */
    const ui_ctx *pick_ctx;
} tree_state;

/* ------------------------------------------------------------- building */

static void tree_free_tree(tree_state *s)
{
    calltree_free(s->t);
    free(s->open);
    free(s->last);
    free(s->keep);
    free(s->pos);
    free(s->rows);
    s->t = NULL;
    s->open = s->last = s->keep = NULL;
    s->pos = s->rows = NULL;
    s->nrows = 0;
}

static void tree_index_children(tree_state *s)
{
    const calltree *t = s->t;
    for (size_t i = 0; i < t->n; i++)
        for (uint32_t k = t->child_off[i]; k < t->child_off[i + 1]; k++)
            s->pos[t->child[k]] = k - t->child_off[i];
}

static void tree_sort(tree_state *s)
{
    if (!s->t)
        return;
    calltree_sort(s->t, tree_keys[s->tb.sort_col], s->tb.sort_desc);
    tree_index_children(s);
}

/* The scope the config asks for first (set tree-scope): the first of
 * its kind, else all ranks. */
static size_t tree_first_scope(const tree_state *s, const ui_ctx *ctx)
{
    int want = ctx->cfg ? ctx->cfg->tree_scope : CFG_SCOPE_ALL;
    for (size_t i = 0; i < s->nscopes && want != CFG_SCOPE_ALL; i++) {
        calltree_scope sc = s->scopes[i];
        if ((want == CFG_SCOPE_RANK && sc.rank >= 0 && sc.thread < 0) ||
            (want == CFG_SCOPE_THREAD && sc.thread >= 0))
            return i;
    }
    return 0;
}

/* The tree of the folding asked for, kept from the last R when there is one:
 * its nodes are the same as a new build's, and tree_sort orders them alike. */
static calltree *tree_kept(tree_state *s)
{
    calltree *t = NULL;
    if (s->swap_fold && s->other && s->other_scope == s->scope_i && s->other->folded == s->fold) {
        t = s->other;
        s->other = NULL;
    }
    return t;
}

/* The tree left (prev, of scope k): kept for the next R, else freed, and
 * with it the other folding's of an older scope or set of calls. */
static void tree_leave(tree_state *s, calltree *prev, size_t k)
{
    if (!s->swap_fold || !prev) {
        calltree_free(prev);
        prev = NULL;
    }
    calltree_free(s->other);
    s->other = prev;
    s->other_scope = k;
}

static bool tree_build(tree_state *s, ui_ctx *ctx)
{
    calltree *prev = s->t, *kept = tree_kept(s); /* before prev takes its place */
    s->t = NULL;
    tree_free_tree(s);
    tree_leave(s, prev, s->t_scope);
    if (ui_calls_pending(ctx)) { /* tree_draw says so and builds it once done */
        calltree_free(kept);
        return false;
    }
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    if (!s->scopes) {
        if (calltree_scopes(ctx->prof, f, &s->scopes, &s->nscopes, NULL))
            s->nscopes = 0; /* without memory: all ranks only */
        s->scope_i = tree_first_scope(s, ctx);
    }
    sv_error err;
    sv_error_clear(&err);
    calltree_scope sc =
        s->nscopes ? s->scopes[s->scope_i] : (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0};
    s->t_scope = s->scope_i;
    if (!(s->t = kept) && calltree_build(ctx->prof, sc, s->fold, f, &s->t, &err)) {
        snprintf(s->error, sizeof s->error, "%s", err.msg);
        return false;
    }
    size_t n = s->t->n;
    s->open = calloc(n, 1);
    s->last = calloc(n, 1);
    s->pos = calloc(n, sizeof *s->pos);
    s->rows = malloc(n * sizeof *s->rows);
    if (!s->open || !s->last || !s->pos || !s->rows) {
        tree_free_tree(s);
        snprintf(s->error, sizeof s->error, "out of memory (call tree)");
        return false;
    }
    s->error[0] = '\0';
    for (size_t i = 0; i < n; i++)
        s->open[i] = s->t->nodes[i].depth < TREE_OPEN_DEPTH;
    s->tb.hidden = (s->t->has_await ? 0 : 1u << TC_AWAIT) | (s->t->has_gpu ? 0 : 1u << TC_GPU);
    if ((s->tb.hidden >> s->tb.sort_col) & 1u)
        s->tb.sort_col = TC_INCL;
    tree_sort(s);
    s->stale = true;
    return true;
}

/* Marks the nodes a filter keeps and opens the paths to the matches. */
static void tree_filter(tree_state *s, const ui_ctx *ctx)
{
    free(s->keep);
    s->keep = NULL;
    const calltree *t = s->t;
    if (!ctx->filter_on || !t)
        return;
    uint8_t *name_match = calloc(t->nnames ? t->nnames : 1, 1);
    s->keep = calloc(t->n, 1);
    if (!name_match || !s->keep) {
        free(name_match);
        return; /* without memory the view stays unfiltered */
    }
    for (size_t i = 0; i < t->nnames; i++)
        name_match[i] = ui_search_match(ctx, t->names[i].name);
    /* children have larger indices than their parents */
    for (size_t i = t->n; i-- > 1;) {
        const ct_node *nd = &t->nodes[i];
        if (name_match[nd->name])
            s->keep[i] |= KEEP_SELF;
        if (s->keep[i])
            s->keep[nd->parent] |= KEEP_DESC;
        if (s->keep[i] & KEEP_DESC)
            s->open[i] = 1;
    }
    free(name_match);
}

/* Flattens the open part of the tree, depth first, with an explicit stack
 * of (node, next child) frames. */
static void tree_flatten(tree_state *s)
{
    const calltree *t = s->t;
    s->nrows = 0;
    if (!t)
        return;
    uint32_t *stack = malloc(t->n * sizeof *stack); /* next child index per frame */
    if (!stack)
        return;
    size_t depth = 0;
    uint32_t node = 0, prev_shown = CT_NONE;
    stack[0] = t->child_off[0];
    for (;;) {
        if (stack[depth] == t->child_off[node + 1]) {
            if (depth == 0)
                break;
            depth--;
            prev_shown = node; /* the child just finished, in its parent's frame */
            node = t->nodes[node].parent;
            continue;
        }
        uint32_t c = t->child[stack[depth]++];
        if (s->keep && !s->keep[c])
            continue;
        /* a later shown sibling means the previous one was not last */
        if (prev_shown != CT_NONE && t->nodes[prev_shown].parent == node)
            s->last[prev_shown] = 0;
        s->last[c] = 1;
        prev_shown = c;
        s->rows[s->nrows++] = c;
        if (s->open[c] && t->child_off[c] < t->child_off[c + 1]) {
            node = c;
            stack[++depth] = t->child_off[c];
            prev_shown = CT_NONE;
        }
    }
    free(stack);
}

static size_t tree_row_of(const tree_state *s, uint32_t node)
{
    for (size_t i = 0; i < s->nrows; i++)
        if (s->rows[i] == node)
            return i;
    return s->nrows;
}

static uint32_t tree_cursor_node(const tree_state *s)
{
    return s->tb.cursor < s->nrows ? s->rows[s->tb.cursor] : CT_NONE;
}

/* Rebuilds the rows keeping the cursor on node (or near its old row). */
static void tree_reflow(tree_state *s, uint32_t node)
{
    tree_flatten(s);
    size_t r = node != CT_NONE ? tree_row_of(s, node) : s->nrows;
    s->tb.nrows = s->nrows;
    table_goto(&s->tb, r < s->nrows ? r : s->tb.cursor);
    s->stale = false;
}

/* ---------------------------------------------------------- path memory */

/* Names from the top level down to node; malloc'ed, *n set. */
static const char **tree_path_names(const calltree *t, uint32_t node, size_t *n)
{
    *n = node && node != CT_NONE ? t->nodes[node].depth + 1 : 0;
    const char **v = malloc((*n ? *n : 1) * sizeof *v);
    if (!v) {
        *n = 0;
        return NULL;
    }
    for (size_t k = *n; k-- > 0; node = t->nodes[node].parent)
        v[k] = calltree_node_name(t, node);
    return v;
}

/* The deepest node of t along the names, opening the way to it. */
static uint32_t tree_find_path(tree_state *s, const char **names, size_t n)
{
    const calltree *t = s->t;
    uint32_t node = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t next = CT_NONE;
        for (uint32_t i = t->child_off[node]; i < t->child_off[node + 1] && next == CT_NONE; i++)
            if (strcmp(calltree_node_name(t, t->child[i]), names[k]) == 0)
                next = t->child[i];
        if (next == CT_NONE)
            break;
        s->open[node] = 1;
        node = next;
    }
    return node ? node : CT_NONE;
}

/* Rebuilds the tree for a new scope or folding, on the same call path. */
static void tree_rebuild(tree_state *s, ui_ctx *ctx)
{
    size_t n = 0;
    const char **names = s->t ? tree_path_names(s->t, tree_cursor_node(s), &n) : NULL;
    if (tree_build(s, ctx)) {
        uint32_t node = names ? tree_find_path(s, names, n) : CT_NONE;
        tree_filter(s, ctx);
        tree_reflow(s, node);
    }
    free(names);
}

/* ----------------------------------------------------------- selection */

static void tree_select(tree_state *s, ui_ctx *ctx)
{
    uint32_t node = tree_cursor_node(s);
    if (node == CT_NONE)
        return;
    region *r = s->t->names[s->t->nodes[node].name].rep;
    if (r && r != ctx->sel.region)
        ui_select_region(ctx, r);
    s->seen_sel = ctx->sel.region;
    s->seen_call = ctx->sel.call;
}

/* Whether call idx of r is in the tree (scope and --include/--exclude). */
static bool call_in_tree(const calltree *t, const ui_ctx *ctx, const region *r, size_t idx)
{
    if (!filter_match_name(ctx->opt ? ctx->opt->filter : NULL, r->name))
        return false;
    return t->scope.thread < 0 || (r->thread_ids && r->thread_ids[idx] == t->scope.thread);
}

/* Region names on the path of the selected call, top level first, as the
 * tree places it (calls outside the tree skipped, recursion folded when
 * the tree folds).  NULL when the call's rank is not in the tree. */
static const char **call_path_names(const tree_state *s, const ui_ctx *ctx, size_t *n)
{
    const calltree *t = s->t;
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    rank_data *rk = profile_rank(ctx->prof, ctx->sel.rank);
    int64_t c = ctx->sel.call;
    *n = 0;
    if (!rk || !rk->calls || c < 0 || (size_t)c >= rk->calls->n ||
        !filter_match_rank(f, rk->rank) || (t->scope.rank >= 0 && t->scope.rank != rk->rank))
        return NULL;
    const char **v = malloc(((size_t)rank_call_depth(rk, (size_t)c) + 1) * sizeof *v);
    for (; v && c >= 0; c = rk->calls->parent[c]) {
        size_t idx;
        const region *r = rank_call_region(rk, c, &idx);
        if (!r || !call_in_tree(t, ctx, r, idx))
            continue;
        if (!(t->folded && *n > 0 && strcmp(v[*n - 1], r->name) == 0))
            v[(*n)++] = r->name;
    }
    for (size_t i = 0; v && i < *n / 2; i++) {
        const char *x = v[i];
        v[i] = v[*n - 1 - i];
        v[*n - 1 - i] = x;
    }
    return v;
}

/* Another view selected a call: open the way to its node. */
static bool tree_follow_call(tree_state *s, const ui_ctx *ctx)
{
    size_t n;
    const char **names = call_path_names(s, ctx, &n);
    uint32_t node = names && n ? tree_find_path(s, names, n) : CT_NONE;
    free(names);
    if (node == CT_NONE || s->t->nodes[node].depth + 1 != n) {
        s->stale = true; /* part of the way may have opened */
        return false;
    }
    tree_reflow(s, node);
    return true;
}

/* Another view selected a call or a region: put the cursor on the call's
 * node, else on the region's first row. */
static void tree_follow(tree_state *s, const ui_ctx *ctx)
{
    const region *r = ctx->sel.region;
    s->seen_sel = r;
    s->seen_call = ctx->sel.call;
    if (r && ctx->sel.call >= 0 && tree_follow_call(s, ctx))
        return;
    uint32_t cur = tree_cursor_node(s);
    if (!r || (cur != CT_NONE && strcmp(calltree_node_name(s->t, cur), r->name) == 0))
        return;
    for (size_t i = 0; i < s->nrows; i++)
        if (strcmp(calltree_node_name(s->t, s->rows[i]), r->name) == 0) {
            table_goto(&s->tb, i);
            return;
        }
}

/* --------------------------------------------------------------- search */

/* The node after (dir 1) or before (dir -1) x in depth-first order over
 * the whole tree, open or not, wrapping around; never the root. */
static uint32_t preorder_next(const calltree *t, const uint32_t *pos, uint32_t x)
{
    if (t->child_off[x] < t->child_off[x + 1])
        return t->child[t->child_off[x]];
    while (x) {
        uint32_t p = t->nodes[x].parent;
        uint32_t k = t->child_off[p] + pos[x] + 1;
        if (k < t->child_off[p + 1])
            return t->child[k];
        x = p;
    }
    return t->child[t->child_off[0]];
}

static uint32_t preorder_prev(const calltree *t, const uint32_t *pos, uint32_t x)
{
    uint32_t y;
    if (x && pos[x] > 0) {
        y = t->child[t->child_off[t->nodes[x].parent] + pos[x] - 1];
    } else if (x && t->nodes[x].parent) {
        return t->nodes[x].parent;
    } else {
        y = 0; /* before the first top-level node: the very last node */
    }
    while (t->child_off[y] < t->child_off[y + 1])
        y = t->child[t->child_off[y + 1] - 1];
    return y;
}

static int tree_search(tree_state *s, ui_ctx *ctx, int dir)
{
    const calltree *t = s->t;
    if (!t || t->n < 2)
        return VF_HANDLED;
    uint32_t start = tree_cursor_node(s), x = start != CT_NONE ? start : 0;
    for (size_t step = 0; step < t->n; step++) {
        x = dir > 0 ? preorder_next(t, s->pos, x) : preorder_prev(t, s->pos, x);
        if (x && ui_search_match(ctx, calltree_node_name(t, x))) {
            for (uint32_t a = t->nodes[x].parent; a != CT_NONE; a = t->nodes[a].parent)
                s->open[a] = 1;
            tree_reflow(s, x);
            tree_select(s, ctx);
            /* "match k of n" in preorder (the order n walks) */
            size_t k = 0, n = 0;
            uint32_t y = t->child[t->child_off[0]];
            for (size_t i = 0; i + 1 < t->n; i++, y = preorder_next(t, s->pos, y))
                if (ui_search_match(ctx, calltree_node_name(t, y))) {
                    n++;
                    k = y == x ? n : k;
                }
            ui_set_status(ctx, "Match %zu of %zu: /%s/%s", k, n, ctx->search_text,
                          x == start ? " (the only one)" : "");
            return VF_HANDLED | VF_REDRAW;
        }
    }
    ui_set_status(ctx, "No call path matches /%s/", ctx->search_text);
    return VF_HANDLED | VF_REDRAW;
}

/* ------------------------------------------------------------- drawing */

static void scope_label(calltree_scope sc, const ui_ctx *ctx, char *buf, size_t len)
{
    if (sc.rank < 0) {
        snprintf(buf, len, "all ranks");
        return;
    }
    if (sc.thread < 0) {
        snprintf(buf, len, "rank %d", sc.rank);
        return;
    }
    char name[128];
    rank_data *rk = profile_rank(ctx->prof, sc.rank);
    snprintf(buf, len, "rank %d, thread %s", sc.rank,
             rk ? rank_thread_name(rk, sc.thread, name, sizeof name) : "?");
}

static void tree_scope_label(const tree_state *s, const ui_ctx *ctx, char *buf, size_t len)
{
    scope_label(s->t ? s->t->scope : (calltree_scope){-1, -1, 0, 0, LANE_RANK, 0}, ctx, buf, len);
}

/* The picker's item i: scope i. */
static void pick_label(size_t i, char *buf, size_t len, void *user)
{
    const tree_state *s = user;
    scope_label(s->scopes[i], s->pick_ctx, buf, len);
}

/* The header: scope, recursion and sort, with their keys when the line
 * has room for them.  When even without the keys it is too wide, the
 * scope's name (a long thread name) is cut in the middle rather than the
 * sort falling off the end. */
static void tree_draw_info(const tree_state *s, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    char scope[200], tail[400];
    tree_scope_label(s, ctx, scope, sizeof scope);
    bool keys = true;
    for (int pass = 0; pass < 2; pass++, keys = false) {
        int n = snprintf(tail, sizeof tail, "%s  recursion: %s%s  sort: %s%s", keys ? " (r)" : "",
                         s->fold ? "folded, outermost calls" : "shown", keys ? " (R)" : "",
                         tree_cols[s->tb.sort_col].title, s->tb.sort_desc ? " desc" : " asc");
        if (ctx->filter_on && n > 0 && (size_t)n < sizeof tail)
            snprintf(tail + n, sizeof tail - (size_t)n, "  filter: %s", ctx->search_text);
        if (8 + grid_text_width(g, scope) + grid_text_width(g, tail) <= area.w)
            break;
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

static void fmt_ns(char *buf, size_t len, int64_t ns)
{
    timefmt_ns(buf, len, (double)ns);
}

/* The guides before a node's name: one two-column unit per level.  When
 * they do not fit, the outer levels become "…N" (N levels hidden) in the
 * space of two units, so every cut row keeps the same indentation. */
static void tree_guides(const tree_state *s, const grid *g, uint32_t node, int width, char *buf,
                        size_t len)
{
    const calltree *t = s->t;
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    uint32_t depth = t->nodes[node].depth;
    size_t units = (size_t)(width / 4 > 3 ? width / 4 : 3);
    if (units > TREE_MAX_GUIDES)
        units = TREE_MAX_GUIDES;
    size_t shown = depth <= units ? depth : units - 2;
    /* unit k (0 = the node's own connector) belongs to the ancestor k up */
    bool lastv[TREE_MAX_GUIDES] = {false};
    uint32_t a = node;
    for (size_t k = 0; k < shown; k++, a = t->nodes[a].parent)
        lastv[k] = s->last[a];
    size_t off = 0;
    buf[0] = '\0';
    if (shown < depth) {
        char e[5] = {0};
        e[utf8_encode(gl->ellipsis, e)] = '\0';
        off += (size_t)snprintf(buf, len, "%s%-3u", e, (unsigned)(depth - shown));
    }
    for (size_t k = shown; k-- > 0 && off < len;) {
        const char *u =
            k == 0 ? (lastv[0] ? gl->tree_last : gl->tree_tee) : (lastv[k] ? "  " : gl->tree_vert);
        off += (size_t)snprintf(buf + off, len - off, "%s", u);
    }
}

static void tree_draw_name(const tree_state *s, ui_ctx *ctx, uint32_t node, int y, bool cur)
{
    grid *g = &ctx->grid;
    const table *tb = &s->tb;
    const calltree *t = s->t;
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    int x = tb->x[TC_NAME], w = tb->w[TC_NAME];
    char guides[TREE_MAX_GUIDES * 8 + 32];
    tree_guides(s, g, node, w, guides, sizeof guides);
    int used = grid_put_text(g, x, y, w, guides, cur ? ROLE_SELECTED : ROLE_DIM, 0);
    bool kids = t->child_off[node] < t->child_off[node + 1];
    uint32_t mark = !kids           ? (t->nodes[node].depth ? gl->hline : ' ')
                    : s->open[node] ? gl->expanded
                                    : gl->collapsed;
    if (used + 2 <= w) {
        grid_put_cp(g, x + used, y, mark, cur ? ROLE_SELECTED : kids ? ROLE_NORMAL : ROLE_DIM, 0);
        used += 2;
    }
    const char *name = calltree_node_name(t, node);
    int role = cur ? ROLE_SELECTED : ui_search_match(ctx, name) ? ROLE_SEARCH : ROLE_NORMAL;
    if (used < w)
        grid_put_text_mid(g, x + used, y, w - used, name, role, 0);
}

/* The call path column no wider than its widest row on screen (guides,
 * mark and name), so the numbers stay next to the names. */
static void tree_want(tree_state *s, const grid *g, int page)
{
    int w = 0;
    for (size_t r = s->tb.top; r < s->nrows && r < s->tb.top + (size_t)page; r++) {
        uint32_t node = s->rows[r];
        int nw = 2 * (int)s->t->nodes[node].depth + 2 +
                 grid_text_width(g, calltree_node_name(s->t, node));
        w = nw > w ? nw : w;
    }
    table_want(&s->tb, TC_NAME, w);
}

static void tree_draw_row(const tree_state *s, ui_ctx *ctx, size_t row, int y)
{
    grid *g = &ctx->grid;
    const table *tb = &s->tb;
    uint32_t node = s->rows[row];
    const ct_node *nd = &s->t->nodes[node];
    bool cur = row == tb->cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur)
        table_draw_cursor(tb, g, y);
    char b[64];
    /* folded: the outermost calls, the set Incl, Mean and Max describe */
    snprintf(b, sizeof b, "%lld", (long long)calltree_node_calls(s->t, node));
    table_put(tb, g, TC_CALLS, y, b, role, 0);
    const int64_t ns[] = {nd->incl_ns, nd->excl_ns, 0, nd->max_ns, 0, nd->await_ns, nd->gpu_ns};
    for (size_t c = TC_INCL; c <= TC_GPU; c++) {
        if (c == TC_MEAN)
            timefmt_ns(b, sizeof b, calltree_node_mean(s->t, node));
        else if (c == TC_SHARE)
            snprintf(b, sizeof b, "%.1f%%", 100.0 * calltree_node_share(s->t, node));
        else
            fmt_ns(b, sizeof b, ns[c - TC_INCL]);
        bool none = (c == TC_AWAIT && nd->await_n == 0) || (c == TC_GPU && nd->gpu_n == 0);
        table_put(tb, g, c, y, none ? "-" : b, none && !cur ? ROLE_DIM : role, 0);
    }
    tree_draw_name(s, ctx, node, y, cur);
}

static void tree_draw_message(ui_ctx *ctx, rect area, const char *msg)
{
    grid_put_text(&ctx->grid, area.x + 1, area.y + 2, area.w - 2, msg, ROLE_DIM, 0);
}

static void tree_refresh(tree_state *s, ui_ctx *ctx)
{
    bool filter_changed = s->filter_on != ctx->filter_on ||
                          (ctx->filter_on && strcmp(s->filter_text, ctx->search_text) != 0);
    if (filter_changed) {
        s->filter_on = ctx->filter_on;
        snprintf(s->filter_text, sizeof s->filter_text, "%s", ctx->search_text);
        tree_filter(s, ctx);
        s->stale = true;
    }
    if (s->stale)
        tree_reflow(s, tree_cursor_node(s));
    if (ctx->sel.region != s->seen_sel || ctx->sel.call != s->seen_call)
        tree_follow(s, ctx);
}

static void tree_draw(void *state, ui_ctx *ctx, rect area)
{
    tree_state *s = state;
    if (!s || area.h < 3 || area.w < 10)
        return;
    if (!s->t && !s->error[0])
        tree_rebuild(s, ctx);
    tree_draw_info(s, ctx, area);
    if (!s->t) {
        tree_draw_message(ctx, area, s->error[0] ? s->error : ui_computing_text(ctx));
        return;
    }
    tree_refresh(s, ctx);
    /* Drawn before the source pane, so the pane shows the row at once. */
    if (!s->drawn && !ctx->sel.region)
        tree_select(s, ctx);
    s->drawn = true;
    rect body = {area.x, area.y + 1, area.w, area.h - 1};
    tree_want(s, &ctx->grid, body.h - 1);
    table_layout(&s->tb, &ctx->grid, body);
    table_scroll(&s->tb);
    table_draw_header(&s->tb, &ctx->grid, body.y);
    if (s->nrows == 0) {
        tree_draw_message(ctx, area,
                          ctx->filter_on ? "No call path matches the filter"
                                         : "No calls in this scope");
        return;
    }
    for (size_t r = s->tb.top; r < s->nrows; r++) {
        int y = table_row_y(&s->tb, r);
        if (y < 0)
            break;
        tree_draw_row(s, ctx, r, y);
    }
    if (s->pick.open) {
        s->pick_ctx = ctx;
        picker_draw(&s->pick, ctx, body, " Scope of the tree: all ranks merged, a rank or a thread",
                    pick_label, s);
    }
}

/* ------------------------------------------------------------ commands */

static bool has_kids(const calltree *t, uint32_t node)
{
    return t->child_off[node] < t->child_off[node + 1];
}

static void set_open_all(tree_state *s, uint8_t v)
{
    for (size_t i = 1; i < s->t->n; i++)
        s->open[i] = v;
}

/* Right / Left / Enter on the cursor node. */
static int tree_move_in(tree_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    uint32_t node = tree_cursor_node(s);
    if (node == CT_NONE)
        return VF_HANDLED;
    const calltree *t = s->t;
    uint32_t target = node;
    if (cmd == CMD_ENTER || cmd == CMD_EXPAND || cmd == CMD_COLLAPSE) {
        s->open[node] = cmd == CMD_ENTER ? !s->open[node] : cmd == CMD_EXPAND;
    } else if (cmd == CMD_RIGHT) {
        if (has_kids(t, node) && s->open[node])
            target = s->tb.cursor + 1 < s->nrows ? s->rows[s->tb.cursor + 1] : node;
        s->open[node] = 1;
    } else if (s->open[node] && has_kids(t, node)) { /* CMD_LEFT */
        s->open[node] = 0;
    } else if (t->nodes[node].parent) {
        target = t->nodes[node].parent;
    }
    tree_reflow(s, target);
    tree_select(s, ctx);
    return VF_HANDLED | VF_REDRAW;
}

static int tree_open_all(tree_state *s, ui_ctx *ctx, bool open)
{
    uint32_t node = tree_cursor_node(s);
    set_open_all(s, open);
    /* collapsing everything leaves the cursor on its top-level ancestor */
    while (!open && node != CT_NONE && s->t->nodes[node].depth > 0)
        node = s->t->nodes[node].parent;
    tree_reflow(s, node);
    tree_select(s, ctx);
    return VF_HANDLED | VF_REDRAW;
}

static int tree_table_cmd(tree_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    enum table_result r = table_on_cmd(&s->tb, cmd, ctx->mouse_x, ctx->mouse_y);
    if (r == TABLE_IGNORED)
        return 0;
    if (r == TABLE_SORTED) {
        uint32_t node = tree_cursor_node(s);
        tree_sort(s);
        tree_reflow(s, node);
    }
    tree_select(s, ctx);
    return VF_HANDLED | VF_REDRAW;
}

static int tree_pick_cmd(tree_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    s->pick_ctx = ctx;
    enum picker_result r = picker_cmd(&s->pick, ctx, cmd, pick_label, s);
    if (r == PICK_CHOSEN && s->pick.cur != s->scope_i) {
        s->scope_i = s->pick.cur;
        tree_rebuild(s, ctx);
        tree_select(s, ctx);
    }
    /* The list is modal; keys it does not use (/ q Esc) reach the app. */
    if (r == PICK_NONE && (cmd == CMD_SEARCH || cmd == CMD_HELP))
        return 0;
    return VF_HANDLED | VF_REDRAW;
}

static int tree_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    tree_state *s = state;
    if (!s)
        return 0;
    if (cmd == CMD_FILTER) {
        s->stale = true;
        return 0;
    }
    if (!s->t && !s->error[0])
        tree_rebuild(s, ctx);
    if (!s->t)
        return 0;
    tree_refresh(s, ctx);
    if (s->pick.open)
        return tree_pick_cmd(s, ctx, cmd);
    switch (cmd) {
    case CMD_SCOPE: /* a list to choose from, not a cycle through every thread */
        if (s->nscopes < 2) {
            ui_set_status(ctx, "One scope only: all ranks");
            return VF_HANDLED | VF_REDRAW;
        }
        picker_open(&s->pick, s->nscopes, s->scope_i);
        return VF_HANDLED | VF_REDRAW;
    case CMD_FOLD_RECURSION:
        s->fold = !s->fold;
        s->swap_fold = true;
        tree_rebuild(s, ctx);
        s->swap_fold = false;
        return VF_HANDLED | VF_REDRAW;
    case CMD_ENTER:
    case CMD_RIGHT:
    case CMD_LEFT:
    case CMD_EXPAND:
    case CMD_COLLAPSE:
        return tree_move_in(s, ctx, cmd);
    case CMD_EXPAND_ALL:
    case CMD_COLLAPSE_ALL:
        return tree_open_all(s, ctx, cmd == CMD_EXPAND_ALL);
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        return ctx->has_search ? tree_search(s, ctx, cmd == CMD_SEARCH_NEXT ? 1 : -1) : 0;
    case CMD_DRILL:
        if (tree_cursor_node(s) == CT_NONE)
            return VF_HANDLED;
        tree_select(s, ctx);
        ui_open_view(ctx, VIEW_CALLS);
        return VF_HANDLED | VF_REDRAW;
    default:
        return tree_table_cmd(s, ctx, cmd);
    }
}

/* ------------------------------------------------------------ lifetime */

static void *tree_create(ui_ctx *ctx)
{
    tree_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* set tree-sort: config.h lists the columns in this order */
    _Static_assert((int)CFG_SORT_COUNT == (int)TC_COUNT, "config.h's tree columns");
    const sv_settings *cfg = ctx->cfg;
    table_init(&s->tb, tree_cols, TC_COUNT, cfg ? (size_t)cfg->tree_sort : TC_INCL,
               cfg ? !cfg->tree_sort_asc : true);
    s->seen_sel = ctx->sel.region;
    s->seen_call = ctx->sel.call;
    /* the tree and its scopes are built on first use */
    return s;
}

static void tree_destroy(void *state)
{
    tree_state *s = state;
    if (!s)
        return;
    tree_free_tree(s);
    calltree_free(s->other);
    free(s->scopes);
    free(s);
}

const view_ops tree_view = {
    .name = "tree",
    .create = tree_create,
    .destroy = tree_destroy,
    .draw = tree_draw,
    .on_cmd = tree_cmd,
    .on_resize = NULL,
};
