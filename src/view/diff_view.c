/* diff_view: view 6 "compare" (scopeview --diff BASE NEW).
 *
 * Two tables over one diff_result (diff.h), switched with m: the call tree
 * of both runs merged by call path (base, new, delta, delta %, calls,
 * exclusive delta, adjusted p, a slower / faster mark; Enter, Right and
 * Left open and close paths) and the regions (delta total, p50, p95, p99,
 * imbalance, p, the Hodges-Lehmann shift).  Below either table, the
 * selected region's two duration histograms on shared bins, each count a
 * share of its run's calls (so runs with different call counts compare),
 * with both runs' p50 / p95 / p99 marks.  A header says BASE -> NEW.
 *
 * The tree first opens the paths that lead to flagged rows and puts the
 * cursor on the flagged path with the largest exclusive change: the
 * region that itself got slower, not only its ancestors.  A frame draws
 * the visible rows only; the list of open rows is rebuilt on open / close
 * / sort. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "diff_dist.h"
#include "table.h"
#include "timefmt.h"
#include "view.h"

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
    [TC_MARK] = {"", 7, 0, true, false},
};
enum {
    RG_NAME,
    RG_TOTAL,
    RG_REL,
    RG_P50,
    RG_P95,
    RG_P99,
    RG_IMBAL,
    RG_P,
    RG_SHIFT,
    RG_MARK,
    RG_COUNT
};
static const table_col reg_cols[RG_COUNT] = {
    [RG_NAME] = {"Region", 14, 0, true, true},   [RG_TOTAL] = {"Delta tot", 10, 0, false, false},
    [RG_REL] = {"Delta%", 8, 0, false, false},   [RG_P50] = {"dP50", 9, 3, false, false},
    [RG_P95] = {"dP95", 9, 4, false, false},     [RG_P99] = {"dP99", 9, 5, false, false},
    [RG_IMBAL] = {"dImbal", 7, 6, false, false}, [RG_P] = {"p adj", 8, 1, false, false},
    [RG_SHIFT] = {"Shift", 9, 2, false, false},  [RG_MARK] = {"", 7, 0, true, false},
};
static const diff_key tree_keys[TC_COUNT] = {DK_NAME,       DK_BASE,      DK_NEW,
                                             DK_ABS_DELTA,  DK_REL_DELTA, DK_NEW,
                                             DK_EXCL_DELTA, DK_P,         DK_ABS_DELTA};
static const diff_key reg_keys[RG_COUNT] = {DK_NAME,      DK_ABS_DELTA, DK_REL_DELTA, DK_ABS_DELTA,
                                            DK_ABS_DELTA, DK_ABS_DELTA, DK_ABS_DELTA, DK_P,
                                            DK_ABS_DELTA, DK_ABS_DELTA};

typedef struct cmp_state {
    diff_result *d;
    bool regions; /* m: the regions table instead of the tree */
    table tt, rt;
    uint8_t *open;  /* per path */
    uint32_t *rows; /* visible paths, tree order */
    size_t nrows;
    uint32_t *stack;
    uint32_t *rorder; /* regions, sorted */
    bool placed;      /* the cursor was put on the culprit */
} cmp_state;

/* ------------------------------------------------------------------ rows */

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

static void reg_sort(cmp_state *s)
{
    free(s->rorder);
    s->rorder = diff_sorted_regions(s->d, reg_keys[s->rt.sort_col], s->rt.sort_desc);
    table_set_rows(&s->rt, s->rorder ? s->d->nregions : 0);
}

/* Opens the ancestors of every flagged path; the cursor goes to the flagged
 * path whose exclusive time changed most. */
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

/* ------------------------------------------------------------------ cells */

static void put_ns(char *b, size_t n, bool known, double ns, bool sign)
{
    if (!known) {
        snprintf(b, n, "-");
        return;
    }
    char num[40];
    timefmt_ns(num, sizeof num, ns);
    snprintf(b, n, "%s%s", sign && ns > 0 ? "+" : "", num);
}

static void put_rel(char *b, size_t n, bool known, double rel)
{
    if (!known)
        snprintf(b, n, "-");
    else if (isinf(rel))
        snprintf(b, n, "%s", rel > 0 ? "new" : "gone");
    else
        snprintf(b, n, "%+.1f%%", rel * 100.0);
}

static void put_p(char *b, size_t n, const diff_row *r)
{
    if (!r->tested)
        snprintf(b, n, "-");
    else if (r->q < 1e-4)
        snprintf(b, n, "%.0e", r->q);
    else
        snprintf(b, n, "%.4f", r->q);
}

static const char *mark_text(const diff_row *r, bool ascii)
{
    if (r->state == DS_NEW)
        return "new";
    if (r->state == DS_GONE)
        return "gone";
    if (r->flag > 0)
        return ascii ? "^ slow" : "▲ slow";
    if (r->flag < 0)
        return ascii ? "v fast" : "▼ fast";
    return r->tested ? "" : "untest";
}

static int mark_role(const diff_row *r)
{
    return r->flag > 0 ? ROLE_WARNING : r->flag < 0 ? ROLE_SEARCH : ROLE_DIM;
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
    put_ns(v, sizeof v, k, x, false);
    table_put(&s->tt, g, TC_BASE, y, v, role, 0);
    k = diff_side_value(r, DIFF_NEW, DV_TOTAL, &x);
    put_ns(v, sizeof v, k, x, false);
    table_put(&s->tt, g, TC_NEW, y, v, role, 0);
    k = diff_row_delta(r, DV_TOTAL, &x);
    put_ns(v, sizeof v, k, x, true);
    table_put(&s->tt, g, TC_DELTA, y, v, role, 0);
    k = diff_row_rel(r, DV_TOTAL, &x);
    put_rel(v, sizeof v, k, x);
    table_put(&s->tt, g, TC_REL, y, v, role, 0);
    snprintf(v, sizeof v, "%lld/%lld", (long long)(r->s[0].present ? r->s[0].calls : 0),
             (long long)(r->s[1].present ? r->s[1].calls : 0));
    table_put(&s->tt, g, TC_CALLS, y, v, role, 0);
    k = diff_row_delta(r, DV_EXCL, &x);
    put_ns(v, sizeof v, k, x, true);
    table_put(&s->tt, g, TC_EXCL, y, v, role, 0);
    put_p(v, sizeof v, r);
    table_put(&s->tt, g, TC_P, y, v, role, 0);
    table_put(&s->tt, g, TC_MARK, y, mark_text(r, ctx->ascii), cur ? role : mark_role(r), 0);
}

static void reg_row(cmp_state *s, ui_ctx *ctx, size_t row, int y)
{
    const diff_row *r = &s->d->regions[s->rorder[row]];
    grid *g = &ctx->grid;
    bool cur = row == s->rt.cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur)
        table_draw_cursor(&s->rt, g, y);
    char v[64];
    double x = 0;
    table_put(&s->rt, g, RG_NAME, y, diff_row_name(s->d, r), role, 0);
    bool k = diff_row_delta(r, DV_TOTAL, &x);
    put_ns(v, sizeof v, k, x, true);
    table_put(&s->rt, g, RG_TOTAL, y, v, role, 0);
    k = diff_row_rel(r, DV_TOTAL, &x);
    put_rel(v, sizeof v, k, x);
    table_put(&s->rt, g, RG_REL, y, v, role, 0);
    static const diff_value pv[] = {DV_P50, DV_P95, DV_P99};
    for (int i = 0; i < 3; i++) {
        k = r->state == DS_BOTH && diff_row_delta(r, pv[i], &x);
        put_ns(v, sizeof v, k, x, true);
        table_put(&s->rt, g, RG_P50 + (size_t)i, y, v, role, 0);
    }
    k = r->state == DS_BOTH && diff_row_delta(r, DV_IMBALANCE, &x);
    if (k)
        snprintf(v, sizeof v, "%+.1f%%", x * 100.0);
    else
        snprintf(v, sizeof v, "-");
    table_put(&s->rt, g, RG_IMBAL, y, v, role, 0);
    put_p(v, sizeof v, r);
    table_put(&s->rt, g, RG_P, y, v, role, 0);
    put_ns(v, sizeof v, r->tested, r->hl_ns, true);
    table_put(&s->rt, g, RG_SHIFT, y, v, role, 0);
    table_put(&s->rt, g, RG_MARK, y, mark_text(r, ctx->ascii), cur ? role : mark_role(r), 0);
}

/* The region row under the cursor (NULL without rows). */
static const diff_row *selected_region(const cmp_state *s)
{
    if (s->regions)
        return s->rorder && s->d->nregions ? &s->d->regions[s->rorder[s->rt.cursor]] : NULL;
    return s->nrows ? &s->d->regions[s->d->paths[s->rows[s->tt.cursor]].name] : NULL;
}

/* ------------------------------------------------------------------ frame */

static const char *base_name(const char *p)
{
    const char *sl = p ? strrchr(p, '/') : NULL;
    return sl && sl[1] ? sl + 1 : p ? p : "";
}

static void cmp_header(cmp_state *s, ui_ctx *ctx, rect area)
{
    char b[1024];
    const diff_result *d = s->d;
    snprintf(b, sizeof b, "%s %s %s   %s: %zu slower, %zu faster (p adj < %g, %s %s %g%%)   m: %s",
             base_name(d->label[0]), ctx->ascii ? "->" : "→", base_name(d->label[1]),
             s->regions ? "regions" : "paths", d->nflag[s->regions ? 0 : 1][0],
             d->nflag[s->regions ? 0 : 1][1], d->opt.alpha, diff_metric_names[d->opt.metric],
             ctx->ascii ? ">=" : "≥", d->opt.threshold * 100, s->regions ? "tree" : "regions");
    grid_put_text(&ctx->grid, area.x + 1, area.y, area.w - 2, b, ROLE_HEADER, GA_BOLD);
}

static void cmp_draw(void *state, ui_ctx *ctx, rect area)
{
    cmp_state *s = state;
    grid *g = &ctx->grid;
    if (!s || !s->d) {
        grid_put_text(g, area.x + 1, area.y + 1, area.w - 2,
                      "Not comparing: run scopeview --diff BASE.h5 NEW.h5", ROLE_DIM, 0);
        return;
    }
    if (!s->placed) {
        tree_place(s);
        s->placed = true;
    }
    cmp_header(s, ctx, area);
    int dist_h = area.h >= 18 ? (area.h >= 40 ? 14 : 8) : 0;
    rect body = {area.x, area.y + 1, area.w, area.h - 1 - dist_h};
    table *t = s->regions ? &s->rt : &s->tt;
    size_t n = s->regions ? (s->rorder ? s->d->nregions : 0) : s->nrows;
    table_layout(t, g, body);
    table_scroll(t);
    table_draw_header(t, g, body.y);
    for (size_t r = t->top; r < n; r++) {
        int y = table_row_y(t, r);
        if (y < 0)
            break;
        if (s->regions)
            reg_row(s, ctx, r, y);
        else
            tree_row(s, ctx, r, y);
    }
    if (dist_h)
        dist_draw(s->d, selected_region(s), ctx,
                  (rect){area.x, area.y + area.h - dist_h, area.w, dist_h});
}

/* ------------------------------------------------------------------ keys */

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
    case CMD_RIGHT:
        if (leaf)
            return VF_HANDLED;
        if (s->open[id]) {
            tree_flatten(s);
            table_goto(&s->tt, s->tt.cursor + 1);
            return VF_HANDLED | VF_REDRAW;
        }
        s->open[id] = 1;
        break;
    case CMD_LEFT:
        if (s->open[id] && !leaf) {
            s->open[id] = 0;
            break;
        }
        for (size_t i = s->tt.cursor; i-- > 0;)
            if (s->rows[i] == s->d->paths[id].parent) {
                table_goto(&s->tt, i);
                break;
            }
        return VF_HANDLED | VF_REDRAW;
    default:
        return 0;
    }
    tree_flatten(s);
    return VF_HANDLED | VF_REDRAW;
}

static int cmp_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    cmp_state *s = state;
    if (!s || !s->d)
        return 0;
    if (cmd == CMD_COMPARE_MODE) {
        s->regions = !s->regions;
        return VF_HANDLED | VF_REDRAW;
    }
    table *t = s->regions ? &s->rt : &s->tt;
    enum table_result r = table_on_cmd(t, cmd, ctx->mouse_x, ctx->mouse_y);
    if (r == TABLE_SORTED) {
        if (s->regions)
            reg_sort(s);
        else
            tree_sort(s);
    }
    if (r != TABLE_IGNORED)
        return VF_HANDLED | VF_REDRAW;
    return s->regions ? 0 : tree_cmd(s, cmd);
}

static void *cmp_create(ui_ctx *ctx)
{
    diff_result *d = ctx->opt->diff;
    if (!d)
        return NULL;
    cmp_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->d = d;
    size_t n = d->npaths ? d->npaths : 1;
    s->open = calloc(n, 1);
    s->rows = malloc(n * sizeof *s->rows);
    s->stack = malloc(n * sizeof *s->stack);
    if (!s->open || !s->rows || !s->stack) {
        free(s->open);
        free(s->rows);
        free(s->stack);
        free(s);
        return NULL;
    }
    table_init(&s->tt, tree_cols, TC_COUNT, TC_DELTA, true);
    table_init(&s->rt, reg_cols, RG_COUNT, RG_TOTAL, true);
    diff_sort_paths(d, DK_ABS_DELTA, true);
    reg_sort(s);
    return s;
}

static void cmp_destroy(void *state)
{
    cmp_state *s = state;
    if (!s)
        return;
    free(s->open);
    free(s->rows);
    free(s->stack);
    free(s->rorder);
    free(s);
}

const view_ops compare_view = {
    .name = "compare",
    .create = cmp_create,
    .destroy = cmp_destroy,
    .draw = cmp_draw,
    .on_cmd = cmp_cmd,
};
