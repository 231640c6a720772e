/* flamegraph: the flame graph widget (flamegraph.h). */
#include "flamegraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timefmt.h"

/* A differential frame is coloured when its time changed by more than
 * this share (stronger past FG_CHANGE_MORE). */
#define FG_CHANGE 0.05
#define FG_CHANGE_MORE 0.25

static void fg_reset_view(flamegraph *g)
{
    free(g->boxes);
    g->boxes = NULL;
    g->nboxes = 0;
    free(g->match);
    g->match = NULL;
    g->match_on = false;
    free(g->keep);
    g->keep = NULL;
    g->laid = false;
    g->nzoom = 0;
    g->cur = 0;
    g->top = 0;
}

void fg_set(flamegraph *g, flame *f)
{
    fg_reset_view(g);
    flame_free(g->f);
    g->f = f;
    g->max_self = 0;
    for (size_t i = 1; f && i < f->n; i++)
        if (f->nodes[i].self > g->max_self)
            g->max_self = f->nodes[i].self;
}

flame *fg_take(flamegraph *g)
{
    flame *f = g->f;
    g->f = NULL; /* not freed by fg_set */
    fg_set(g, NULL);
    return f;
}

void fg_free(flamegraph *g)
{
    fg_set(g, NULL);
}

void fg_sort(flamegraph *g, flame_order order)
{
    if (g->f)
        flame_sort(g->f, order);
    g->laid = false;
}

/* --------------------------------------------------------------- layout */

static const flame_box *fg_box_of(const flamegraph *g, uint32_t node)
{
    for (size_t i = 0; i < g->nboxes; i++)
        if (g->boxes[i].node == node)
            return &g->boxes[i];
    return NULL;
}

/* Lays the frames out for the width and the rows shown from g->top, the
 * cursor's row kept in view. */
static void fg_layout(flamegraph *g, int width, uint32_t nvis)
{
    uint32_t root = fg_root(g);
    if (g->cur >= g->f->n || !flame_is_under(g->f, g->cur, root))
        g->cur = root;
    uint32_t d = g->f->nodes[g->cur].depth - g->f->nodes[root].depth;
    if (d < g->top)
        g->top = d;
    else if (d >= g->top + nvis)
        g->top = d - nvis + 1;
    uint32_t rows = g->top + nvis;
    if (g->laid && g->lw == width && g->lrows == rows && g->lroot == root)
        return;
    free(g->boxes);
    if (!flame_layout(g->f, root, width, rows, &g->boxes, &g->nboxes)) {
        g->boxes = NULL; /* without memory: no frames drawn */
        g->nboxes = 0;
    }
    g->laid = true;
    g->lw = width;
    g->lrows = rows;
    g->lroot = root;
    if (!fg_box_of(g, g->cur)) /* narrower than a cell at this width */
        g->cur = root;
}

/* --------------------------------------------------------------- search */

/* The frames on a path to a match: a node's index is above its parent's
 * in every graph flame.c builds, so one pass from the end marks them. */
static void fg_sync_keep(flamegraph *g, bool on)
{
    if (!on || !g->match) {
        free(g->keep);
        g->keep = NULL;
        return;
    }
    if (g->keep)
        return;
    g->keep = calloc(g->f->n ? g->f->n : 1, 1);
    for (size_t i = g->f->n; g->keep && i-- > 1;) {
        const flame_node *nd = &g->f->nodes[i];
        g->keep[i] |= g->match[nd->name];
        if (g->keep[i])
            g->keep[nd->parent] = 1;
    }
    if (g->keep)
        g->keep[0] = 1;
}

static bool fg_shown(const flamegraph *g, uint32_t node)
{
    return !g->keep || g->keep[node] || node == fg_root(g);
}

bool fg_sync_search(flamegraph *g, const ui_ctx *ctx)
{
    if (!g->f || !ctx->has_search) {
        free(g->match);
        g->match = NULL;
        g->match_on = false;
        fg_sync_keep(g, false);
        return false;
    }
    if (g->match_on && strcmp(g->match_text, ctx->search_text) == 0) {
        fg_sync_keep(g, ctx->filter_on);
        return true;
    }
    free(g->match);
    fg_sync_keep(g, false); /* for the new matches */
    g->match = calloc(g->f->nnames ? g->f->nnames : 1, 1);
    g->match_on = g->match != NULL;
    if (!g->match)
        return false;
    for (size_t i = 0; i < g->f->nnames; i++)
        g->match[i] = ui_search_match(ctx, g->f->names[i]);
    snprintf(g->match_text, sizeof g->match_text, "%s", ctx->search_text);
    g->match_ns = flame_match_time(g->f, 0, g->match);
    fg_sync_keep(g, ctx->filter_on);
    return true;
}

static int fg_search(flamegraph *g, ui_ctx *ctx, int dir)
{
    if (!fg_sync_search(g, ctx) || g->nboxes == 0)
        return VF_HANDLED | VF_REDRAW;
    const flame_box *cb = fg_box_of(g, g->cur);
    size_t at = cb ? (size_t)(cb - g->boxes) : 0, n = g->nboxes;
    for (size_t k = 1; k <= n; k++) {
        size_t i = dir > 0 ? (at + k) % n : (at + n - k % n) % n;
        uint32_t node = g->boxes[i].node;
        if (node && g->match[g->f->nodes[node].name]) {
            g->cur = node;
            return VF_HANDLED | VF_REDRAW;
        }
    }
    ui_set_status(ctx, "No frame shown matches /%s/", ctx->search_text);
    return VF_HANDLED | VF_REDRAW;
}

/* ------------------------------------------------------------- commands */

static int fg_move(flamegraph *g, ui_cmd cmd)
{
    const flame_box *b = fg_box_of(g, g->cur);
    if (!b)
        return VF_HANDLED;
    size_t i = (size_t)(b - g->boxes);
    if (cmd == CMD_LEFT || cmd == CMD_RIGHT) {
        /* the next frame shown on the row, skipping those the filter hides */
        for (size_t k = i; cmd == CMD_LEFT ? k-- > 0 : ++k < g->nboxes;) {
            if (g->boxes[k].row != b->row)
                break;
            if (fg_shown(g, g->boxes[k].node)) {
                g->cur = g->boxes[k].node;
                break;
            }
        }
    } else if (cmd == CMD_UP && g->cur != fg_root(g)) {
        g->cur = g->f->nodes[g->cur].parent;
    } else if (cmd == CMD_DOWN) {
        for (size_t k = i + 1; k < g->nboxes; k++)
            if (g->boxes[k].row == b->row + 1 && g->boxes[k].x0 >= b->x0 &&
                g->boxes[k].x1 <= b->x1 && fg_shown(g, g->boxes[k].node)) {
                g->cur = g->boxes[k].node;
                break;
            }
    } else if (cmd == CMD_HOME) {
        g->cur = fg_root(g);
    }
    return VF_HANDLED | VF_REDRAW;
}

/* A click selects the frame under the pointer (nothing else moves). */
static int fg_click(flamegraph *g, const ui_ctx *ctx)
{
    int x = ctx->mouse_x - g->ax, y = ctx->mouse_y - g->ay;
    if (!g->laid || x < 0 || y < 0)
        return VF_HANDLED;
    uint32_t row = g->top + (uint32_t)y;
    for (size_t i = 0; i < g->nboxes; i++)
        if (g->boxes[i].row == row && x >= g->boxes[i].x0 && x < g->boxes[i].x1 &&
            fg_shown(g, g->boxes[i].node)) {
            g->cur = g->boxes[i].node;
            return VF_HANDLED | VF_REDRAW;
        }
    return VF_HANDLED;
}

static int fg_zoom(flamegraph *g, bool in)
{
    if (in && g->cur != fg_root(g) && g->nzoom < FG_ZOOM_MAX)
        g->zoom[g->nzoom++] = g->cur;
    else if (!in && g->nzoom > 0)
        g->nzoom--; /* the cursor stays on the frame zoomed out of */
    else
        return in ? VF_HANDLED : 0; /* Esc at the top: the app's back */
    g->top = 0;
    return VF_HANDLED | VF_REDRAW;
}

int fg_cmd(flamegraph *g, ui_ctx *ctx, ui_cmd cmd)
{
    if (!g->f)
        return 0;
    switch (cmd) {
    case CMD_LEFT:
    case CMD_RIGHT:
    case CMD_UP:
    case CMD_DOWN:
    case CMD_HOME:
        return fg_move(g, cmd);
    case CMD_CLICK:
        return fg_click(g, ctx);
    case CMD_ENTER:
        return fg_zoom(g, true);
    case CMD_BACK:
        return fg_zoom(g, false);
    case CMD_SEARCH_NEXT:
    case CMD_SEARCH_PREV:
        return ctx->has_search ? fg_search(g, ctx, cmd == CMD_SEARCH_NEXT ? 1 : -1) : 0;
    case CMD_FLAME_COLOR:
        g->heat = !g->heat;
        return VF_HANDLED | VF_REDRAW;
    default:
        return 0;
    }
}

/* -------------------------------------------------------------- drawing */

static void fmt_ns(char *buf, size_t len, int64_t ns)
{
    timefmt_ns(buf, len, (double)ns);
}

/* A differential frame's change of inclusive time, new - base over base
 * (1 for a path new with time). */
static double diff_rel(const flame_node *nd)
{
    double base = (double)nd->base, now = (double)nd->weight;
    return base > 0 ? (now - base) / base : now > 0 ? 1.0 : 0.0;
}

/* The frame's colour: by region, by heat, or (differential) by change. */
static int frame_role(const flamegraph *g, uint32_t node)
{
    const flame *f = g->f;
    const flame_node *nd = &f->nodes[node];
    if (node == g->cur)
        return ROLE_SELECTED;
    if (g->match && node && g->match[nd->name])
        return ROLE_SEARCH;
    if (f->mode == FLAME_DIFF) {
        double rel = diff_rel(nd);
        if (rel > FG_CHANGE)
            return rel > FG_CHANGE_MORE ? ROLE_SLOWER_MORE : ROLE_SLOWER;
        if (rel < -FG_CHANGE)
            return rel < -FG_CHANGE_MORE ? ROLE_FASTER_MORE : ROLE_FASTER;
        return ROLE_NORMAL;
    }
    if (g->heat) {
        if (g->max_self <= 0 || nd->self <= 0)
            return ROLE_HEAT0;
        int k = (int)((double)nd->self * 4.0 / (double)g->max_self);
        return ROLE_HEAT0 + (k > 3 ? 3 : k);
    }
    return node ? theme_region_role(flame_name(f, node)) : ROLE_NORMAL;
}

/* A differential frame's mark before its name: a significant change, or
 * a path of the new run only. */
static const char *diff_mark(const flame_node *nd, bool ascii)
{
    if (nd->state == DS_NEW)
        return "+";
    if (nd->flag > 0)
        return ascii ? "^" : "▲";
    if (nd->flag < 0)
        return ascii ? "v" : "▼";
    return "";
}

static void frame_label(const flamegraph *g, bool ascii, uint32_t node, char *buf, size_t len)
{
    const flame *f = g->f;
    const flame_node *nd = &f->nodes[node];
    const char *name = node ? flame_name(f, node) : "all";
    if (f->mode != FLAME_DIFF) {
        snprintf(buf, len, "%s %.1f%%", name, 100.0 * flame_share_scope(f, node));
        return;
    }
    const char *mark = node ? diff_mark(nd, ascii) : "";
    if (nd->state == DS_NEW)
        snprintf(buf, len, "%s%s new", mark, name);
    else if (nd->base > 0)
        snprintf(buf, len, "%s%s %+.1f%%", mark, name, 100.0 * diff_rel(nd));
    else
        snprintf(buf, len, "%s%s", mark, name);
}

static void draw_box(const flamegraph *g, ui_ctx *ctx, const flame_box *b, int x, int y)
{
    grid *gr = &ctx->grid;
    const theme_glyphs *gl = theme_glyphs_get(gr->ascii);
    int role = frame_role(g, b->node), w = b->x1 - b->x0;
    grid_fill(gr, (rect){x + b->x0, y, w, 1}, ' ', role, 0);
    grid_put_cp(gr, x + b->x1 - 1, y, gl->vline, role, 0);
    if (w < 2)
        return;
    char label[600], short_label[600];
    frame_label(g, gr->ascii, b->node, label, sizeof label);
    /* without its figures, a differential frame keeps its mark */
    const char *mark =
        g->f->mode == FLAME_DIFF && b->node ? diff_mark(&g->f->nodes[b->node], gr->ascii) : "";
    snprintf(short_label, sizeof short_label, "%s%s", mark,
             b->node ? flame_name(g->f, b->node) : "all");
    if (grid_text_width(gr, label) <= w - 1)
        grid_put_text(gr, x + b->x0, y, w - 1, label, role, 0);
    else if (grid_text_width(gr, short_label) <= w - 1)
        grid_put_text(gr, x + b->x0, y, w - 1, short_label, role, 0);
    else if (mark[0] && grid_text_width(gr, mark) <= w - 1)
        grid_put_text(gr, x + b->x0, y, w - 1, mark, role, 0);
    else
        grid_put_cp(gr, x + b->x0, y, gl->ellipsis, role, 0);
}

/* The frame's path, names from the top row down (" > "), into buf. */
static void path_text(const flame *f, uint32_t node, char *buf, size_t len)
{
    size_t n = f->nodes[node].depth, off = 0;
    const char *v[64];
    size_t shown = n < 64 ? n : 64; /* the deepest 64, after an ellipsis */
    uint32_t x = node;
    for (size_t k = shown; k-- > 0; x = f->nodes[x].parent)
        v[k] = flame_name(f, x);
    buf[0] = '\0';
    if (n == 0)
        snprintf(buf, len, "all");
    else if (shown < n)
        off = (size_t)snprintf(buf, len, "... > ");
    for (size_t k = 0; k < shown && off < len; k++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", k ? " > " : "", v[k]);
}

static void figures_text(const flame *f, uint32_t n, char *st, size_t len)
{
    const flame_node *nd = &f->nodes[n];
    char a[40], b[40];
    fmt_ns(a, sizeof a, nd->weight);
    fmt_ns(b, sizeof b, nd->self);
    double sp = 100.0 * flame_share_parent(f, n), ss = 100.0 * flame_share_scope(f, n);
    if (f->mode == FLAME_INVERTED) {
        snprintf(st, len, "excl %s  calls %lld  %.1f%% of parent  %.1f%% of scope", a,
                 (long long)nd->calls, sp, ss);
    } else if (f->mode == FLAME_DIFF) {
        fmt_ns(b, sizeof b, nd->base);
        snprintf(st, len, "new %s  base %s  calls %lld  %.1f%% of scope%s", a,
                 nd->state == DS_NEW ? "- (new path)" : b, (long long)nd->calls, ss,
                 nd->flag > 0   ? "  slower (significant)"
                 : nd->flag < 0 ? "  faster (significant)"
                                : "");
    } else {
        snprintf(st, len, "incl %s  excl %s  calls %lld  %.1f%% of parent  %.1f%% of scope", a, b,
                 (long long)nd->calls, sp, ss);
    }
}

/* The cursor frame's path (cut in the middle when long, keeping the
 * frame's own name) and its figures. */
static void draw_details(const flamegraph *g, ui_ctx *ctx, rect area)
{
    grid *gr = &ctx->grid;
    int y = area.y + area.h - 2;
    grid_fill(gr, (rect){area.x, y, area.w, 2}, ' ', ROLE_HEADER, 0);
    uint32_t n = g->cur < g->f->n ? g->cur : 0;
    char buf[4096];
    path_text(g->f, n, buf, sizeof buf);
    grid_put_text_mid(gr, area.x + 1, y, area.w - 1, buf, ROLE_HEADER, GA_BOLD);
    figures_text(g->f, n, buf, sizeof buf);
    grid_put_text(gr, area.x + 1, y + 1, area.w - 1, buf, ROLE_HEADER, 0);
}

void fg_draw(flamegraph *g, ui_ctx *ctx, rect area)
{
    if (!g->f || area.h < 3 || area.w < 2)
        return;
    fg_sync_search(g, ctx);
    if (!fg_shown(g, g->cur)) /* the filter hid it */
        g->cur = fg_root(g);
    uint32_t nvis = (uint32_t)(area.h - 2);
    fg_layout(g, area.w, nvis);
    g->ax = area.x;
    g->ay = area.y;
    if (g->f->n <= 1)
        grid_put_text(&ctx->grid, area.x + 1, area.y + 1, area.w - 2, "No calls in this scope",
                      ROLE_DIM, 0);
    for (size_t i = 0; g->f->n > 1 && i < g->nboxes; i++) {
        const flame_box *b = &g->boxes[i];
        if (b->row >= g->top && b->row < g->top + nvis && fg_shown(g, b->node))
            draw_box(g, ctx, b, area.x, area.y + (int)(b->row - g->top));
    }
    draw_details(g, ctx, area);
}
