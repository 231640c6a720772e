/* diff_tree: the compare view's call-path tree of both runs (diff_views.h).
 *
 * Columns: base, new, delta, delta %, calls base/new, exclusive delta,
 * adjusted p and a slower / faster mark; sortable (< > I; Delta sorts by
 * |delta|); Enter opens and closes a path, Left / Right scroll the columns.  It first opens the
 * paths that lead to flagged rows and puts the cursor on the flagged path
 * whose exclusive time changed most: the region that itself got slower,
 * not only its ancestors.  A frame draws the visible rows only; the list of
 * open rows is rebuilt on open / close / sort. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_views.h"

enum { TC_NAME, TC_BASE, TC_NEW, TC_DELTA, TC_REL, TC_CALLS, TC_EXCL, TC_P, TC_MARK, TC_COUNT };
static const table_col tree_cols[TC_COUNT] = {
    [TC_NAME] = {"Call path", 14, 0, true, true},
    [TC_BASE] = {"Base", 9, 3, false, false},
    [TC_NEW] = {"New", 9, 3, false, false},
    [TC_DELTA] = {"Delta", 10, 0, false, false},
    [TC_REL] = {"Delta%", 8, 0, false, false},
    [TC_CALLS] = {"Calls b/n", 11, 4, false, false},
    [TC_EXCL] = {"Excl delta", 10, 2, false, false},
    [TC_P] = {"p adj", 8, 1, false, false},
    [TC_MARK] = {"", 7, 0, true, false, false, true},
};
static const diff_key tree_keys[TC_COUNT] = {DK_NAME,       DK_BASE,      DK_NEW,
                                             DK_ABS_DELTA,  DK_REL_DELTA, DK_NEW,
                                             DK_EXCL_DELTA, DK_P,         DK_ABS_DELTA};

static void tree_flatten(cmp_state *s)
{
    const diff_result *d = s->d;
    size_t sp = 0, k = 0;
    for (uint32_t c = d->child_off[1]; c > d->child_off[0]; c--)
        s->stack[sp++] = d->child[c - 1];
    while (sp) {
        uint32_t x = s->stack[--sp];
        s->rows[k++] = x;
        if (s->open[x])
            for (uint32_t c = d->child_off[x + 1]; c > d->child_off[x]; c--)
                s->stack[sp++] = d->child[c - 1];
    }
    s->nrows = k;
    table_set_rows(&s->tt, k);
}

static void tree_sort(cmp_state *s)
{
    uint32_t cur = s->nrows ? s->rows[s->tt.cursor] : 0;
    diff_sort_paths(s->d, tree_keys[s->tt.sort_col], s->tt.sort_desc);
    tree_flatten(s);
    for (size_t i = 0; i < s->nrows; i++)
        if (s->rows[i] == cur)
            table_goto(&s->tt, i);
}

static void tree_place(cmp_state *s)
{
    const diff_result *d = s->d;
    uint32_t best = 0;
    double best_v = -1;
    for (size_t i = 1; i < d->npaths; i++) {
        if (d->paths[i].flag <= 0)
            continue;
        for (uint32_t x = d->paths[i].parent; x && x != DIFF_NONE; x = d->paths[x].parent)
            s->open[x] = 1;
        double v;
        if (diff_row_delta(&d->paths[i], DV_EXCL, &v) && fabs(v) > best_v) {
            best_v = fabs(v);
            best = (uint32_t)i;
        }
    }
    tree_flatten(s);
    for (size_t i = 0; best && i < s->nrows; i++)
        if (s->rows[i] == best)
            table_goto(&s->tt, i);
}

/* The region row of the path under the cursor. */
static void tree_follow(cmp_state *s)
{
    if (s->nrows)
        s->region = s->d->paths[s->rows[s->tt.cursor]].name;
}

static void tree_row(cmp_state *s, ui_ctx *ctx, size_t row, int y)
{
    const diff_result *d = s->d;
    uint32_t id = s->rows[row];
    const diff_row *r = &d->paths[id];
    grid *g = &ctx->grid;
    bool cur = row == s->tt.cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur)
        table_draw_cursor(&s->tt, g, y);
    char b[256], v[64];
    bool leaf = d->child_off[id + 1] == d->child_off[id];
    const char *tw = leaf ? " " : s->open[id] ? (ctx->ascii ? "-" : "▾") : (ctx->ascii ? "+" : "▸");
    int indent = (int)(r->depth < 30 ? r->depth : 30) * 2;
    snprintf(b, sizeof b, "%*s%s ", indent, "", tw);
    size_t bl = strlen(b);
    snprintf(b + bl, sizeof b - bl, "%s", diff_row_name(d, r));
    table_put(&s->tt, g, TC_NAME, y, b, role, 0);
    double x = 0;
    bool k = diff_side_value(r, DIFF_BASE, DV_TOTAL, &x);
    cmp_fmt_ns(v, sizeof v, k, x, false);
    table_put(&s->tt, g, TC_BASE, y, v, role, 0);
    k = diff_side_value(r, DIFF_NEW, DV_TOTAL, &x);
    cmp_fmt_ns(v, sizeof v, k, x, false);
    table_put(&s->tt, g, TC_NEW, y, v, role, 0);
    k = diff_row_delta(r, DV_TOTAL, &x);
    cmp_fmt_ns(v, sizeof v, k, x, true);
    table_put(&s->tt, g, TC_DELTA, y, v, role, 0);
    k = diff_row_rel(r, DV_TOTAL, &x);
    cmp_fmt_rel(v, sizeof v, k, x);
    table_put(&s->tt, g, TC_REL, y, v, role, 0);
    snprintf(v, sizeof v, "%lld/%lld", (long long)(r->s[0].present ? r->s[0].calls : 0),
             (long long)(r->s[1].present ? r->s[1].calls : 0));
    table_put(&s->tt, g, TC_CALLS, y, v, role, 0);
    k = diff_row_delta(r, DV_EXCL, &x);
    cmp_fmt_ns(v, sizeof v, k, x, true);
    table_put(&s->tt, g, TC_EXCL, y, v, role, 0);
    cmp_fmt_p(v, sizeof v, r);
    table_put(&s->tt, g, TC_P, y, v, role, 0);
    table_put(&s->tt, g, TC_MARK, y, cmp_mark(r, ctx->ascii), cur ? role : cmp_mark_role(r), 0);
}

static int tree_cmd(cmp_state *s, ui_cmd cmd)
{
    if (!s->nrows)
        return 0;
    uint32_t id = s->rows[s->tt.cursor];
    bool leaf = s->d->child_off[id + 1] == s->d->child_off[id];
    switch (cmd) {
    case CMD_ENTER:
        if (leaf)
            return 0;
        s->open[id] = !s->open[id];
        break;
    default:
        return 0;
    }
    tree_flatten(s);
    return VF_HANDLED | VF_REDRAW;
}

bool dtree_init(cmp_state *s)
{
    size_t n = s->d->npaths ? s->d->npaths : 1;
    s->open = calloc(n, 1);
    s->rows = malloc(n * sizeof *s->rows);
    s->stack = malloc(n * sizeof *s->stack);
    if (!s->open || !s->rows || !s->stack)
        return false;
    table_init(&s->tt, tree_cols, TC_COUNT, TC_DELTA, true);
    diff_sort_paths(s->d, DK_ABS_DELTA, true);
    /* the culprit is selected before any screen draws */
    tree_place(s);
    tree_follow(s);
    s->placed = true;
    return true;
}

void dtree_draw(cmp_state *s, ui_ctx *ctx, rect area)
{
    if (!s->placed) {
        tree_place(s);
        tree_follow(s);
        s->placed = true;
    }
    table_layout(&s->tt, &ctx->grid, area);
    table_scroll(&s->tt);
    table_draw_header(&s->tt, &ctx->grid, area.y);
    for (size_t r = s->tt.top; r < s->nrows; r++) {
        int y = table_row_y(&s->tt, r);
        if (y < 0)
            break;
        tree_row(s, ctx, r, y);
    }
    if (!s->nrows)
        grid_put_text(&ctx->grid, area.x + 1, area.y + 1, area.w - 2,
                      "No call paths: neither run has per-call data in scope", ROLE_DIM, 0);
}

int dtree_cmd(cmp_state *s, ui_ctx *ctx, ui_cmd cmd)
{
    enum table_result r = table_on_cmd(&s->tt, cmd, ctx->mouse_x, ctx->mouse_y);
    if (r == TABLE_SORTED)
        tree_sort(s);
    int fl = r != TABLE_IGNORED ? VF_HANDLED | VF_REDRAW : tree_cmd(s, cmd);
    tree_follow(s);
    return fl;
}
