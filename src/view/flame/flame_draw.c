/* flame_draw: the flame graph's header, frames and details line.
 *
 * A frame of w cells is its label (when it fits in w - 1 cells, else the
 * name, else an ellipsis) and a separator in its last cell, so frames stay
 * apart in monochrome and in the headless screen; the parent's own time
 * beyond its last child is left blank. */
#include <stdio.h>
#include <string.h>

#include "flame_view.h"
#include "util/timefmt.h"

static void fmt_ns(char *buf, size_t len, int64_t ns)
{
    timefmt_ns(buf, len, (double)ns);
}

void fv_scope_label(const fv_state *s, const ui_ctx *ctx, char *buf, size_t len)
{
    calltree_scope sc = s->f ? s->f->scope : (calltree_scope){-1, -1, s->t0, s->t1};
    int n;
    if (sc.rank < 0) {
        n = snprintf(buf, len, "all ranks");
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

static const char *mode_text(const fv_state *s)
{
    return s->f && s->f->mode == FLAME_DIFF ? "differential"
           : s->mode == FLAME_INVERTED      ? "inverted"
                                            : "top-down";
}

static void draw_header(const fv_state *s, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    char scope[256], tail[256];
    fv_scope_label(s, ctx, scope, sizeof scope);
    if (s->match_on && s->f) {
        char tot[40];
        fmt_ns(tot, sizeof tot, s->f->nodes[0].weight);
        double share = s->f->nodes[0].weight > 0
                           ? 100.0 * (double)s->match_ns / (double)s->f->nodes[0].weight
                           : 0.0;
        snprintf(tail, sizeof tail, "  %s  matches: %.1f%% of %s", mode_text(s), share, tot);
    } else {
        snprintf(tail, sizeof tail, "  %s  %s  colour: %s", mode_text(s),
                 s->order == FLAME_ORDER_HEAVY ? "heaviest first" : "by first call",
                 s->heat ? "self-time heat" : "region");
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

/* The frame's colour: by region, by heat, or (differential) by change. */
static int frame_role(const fv_state *s, const ui_ctx *ctx, uint32_t node)
{
    const flame *f = s->f;
    const flame_node *nd = &f->nodes[node];
    if (node == s->cur)
        return ROLE_SELECTED;
    if (s->match && node && s->match[nd->name])
        return ROLE_SEARCH;
    (void)ctx;
    if (f->mode == FLAME_DIFF) {
        double base = (double)nd->base, now = (double)nd->weight;
        double rel = base > 0 ? (now - base) / base : now > 0 ? 1.0 : 0.0;
        if (rel > 0.05)
            return rel > 0.25 ? ROLE_SLOWER_MORE : ROLE_SLOWER;
        if (rel < -0.05)
            return rel < -0.25 ? ROLE_FASTER_MORE : ROLE_FASTER;
        return ROLE_NORMAL;
    }
    if (s->heat) {
        if (s->max_self <= 0 || nd->self <= 0)
            return ROLE_HEAT0;
        int k = (int)((double)nd->self * 4.0 / (double)s->max_self);
        return ROLE_HEAT0 + (k > 3 ? 3 : k);
    }
    return node ? theme_region_role(flame_name(f, node)) : ROLE_NORMAL;
}

/* A differential frame's mark before its name: significant change, or a
 * path of the new run only. */
static const char *diff_mark(const flame_node *nd, bool ascii)
{
    if (nd->state == DS_NEW)
        return ascii ? "+new " : "+new ";
    if (nd->flag > 0)
        return ascii ? "^" : "▲";
    if (nd->flag < 0)
        return ascii ? "v" : "▼";
    return "";
}

static void frame_label(const fv_state *s, const ui_ctx *ctx, uint32_t node, char *buf, size_t len)
{
    const flame *f = s->f;
    const flame_node *nd = &f->nodes[node];
    const char *name = node ? flame_name(f, node) : "all";
    const char *mark = f->mode == FLAME_DIFF ? diff_mark(nd, ctx->grid.ascii) : "";
    if (f->mode == FLAME_DIFF && node) {
        double base = (double)nd->base;
        if (nd->state == DS_NEW || base <= 0)
            snprintf(buf, len, "%s%s", mark, name);
        else
            snprintf(buf, len, "%s%s %+.1f%%", mark, name,
                     100.0 * ((double)nd->weight - base) / base);
        return;
    }
    snprintf(buf, len, "%s%s %.1f%%", mark, name, 100.0 * flame_share_scope(f, node));
}

static void draw_box(const fv_state *s, ui_ctx *ctx, const flame_box *b, int x, int y)
{
    grid *g = &ctx->grid;
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    int role = frame_role(s, ctx, b->node), w = b->x1 - b->x0;
    grid_fill(g, (rect){x + b->x0, y, w, 1}, ' ', role, 0);
    grid_put_cp(g, x + b->x1 - 1, y, gl->vline, role, 0);
    if (w < 2)
        return;
    char label[600];
    frame_label(s, ctx, b->node, label, sizeof label);
    const char *name = b->node ? flame_name(s->f, b->node) : "all";
    if (grid_text_width(g, label) <= w - 1)
        grid_put_text(g, x + b->x0, y, w - 1, label, role, 0);
    else if (grid_text_width(g, name) <= w - 1)
        grid_put_text(g, x + b->x0, y, w - 1, name, role, 0);
    else
        grid_put_cp(g, x + b->x0, y, gl->ellipsis, role, 0);
}

/* The cursor frame's path, names from the top row down (" > "), into buf. */
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

/* Two lines under the frames: the cursor frame's path (cut in the middle
 * when long, keeping the frame's own name) and its figures. */
static void draw_details(const fv_state *s, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    int y = area.y + area.h - 2;
    grid_fill(g, (rect){area.x, y, area.w, 2}, ' ', ROLE_HEADER, 0);
    const flame *f = s->f;
    uint32_t n = s->cur < f->n ? s->cur : 0;
    char buf[4096];
    path_text(f, n, buf, sizeof buf);
    grid_put_text_mid(g, area.x + 1, y, area.w - 1, buf, ROLE_HEADER, GA_BOLD);
    figures_text(f, n, buf, sizeof buf);
    grid_put_text(g, area.x + 1, y + 1, area.w - 1, buf, ROLE_HEADER, 0);
}

static void draw_message(ui_ctx *ctx, rect area, const char *msg)
{
    grid_put_text(&ctx->grid, area.x + 1, area.y + 2, area.w - 2, msg, ROLE_DIM, 0);
}

void fv_pick_label(size_t i, char *buf, size_t len, void *user)
{
    const fv_state *s = user;
    calltree_scope sc = s->scopes[i];
    if (sc.rank < 0)
        snprintf(buf, len, "all ranks");
    else if (sc.thread < 0)
        snprintf(buf, len, "rank %d", sc.rank);
    else {
        char name[128];
        rank_data *rk = profile_rank(s->pick_ctx->prof, sc.rank);
        snprintf(buf, len, "rank %d, thread %s", sc.rank,
                 rk ? rank_thread_name(rk, sc.thread, name, sizeof name) : "?");
    }
}

void fv_draw(void *state, ui_ctx *ctx, rect area)
{
    fv_state *s = state;
    if (!s || area.h < 5 || area.w < 10)
        return;
    draw_header(s, ctx, area);
    if (!s->f) {
        draw_message(ctx, area, s->error[0] ? s->error : ui_computing_text(ctx));
        return;
    }
    fv_sync_search(s, ctx);
    uint32_t nvis = (uint32_t)(area.h - 3);
    fv_layout(s, area.w, nvis);
    if (s->f->nodes[0].weight <= 0 && s->f->n <= 1) {
        draw_message(ctx, area, "No calls in this scope");
        draw_details(s, ctx, area);
        return;
    }
    for (size_t i = 0; i < s->nboxes; i++) {
        const flame_box *b = &s->boxes[i];
        if (b->row < s->top || b->row >= s->top + nvis)
            continue;
        draw_box(s, ctx, b, area.x, area.y + 1 + (int)(b->row - s->top));
    }
    draw_details(s, ctx, area);
    if (s->pick.open) {
        s->pick_ctx = ctx;
        rect body = {area.x, area.y + 1, area.w, area.h - 1};
        picker_draw(&s->pick, ctx, body, " Scope of the flame graph: all ranks, a rank or a thread",
                    fv_pick_label, s);
    }
}
