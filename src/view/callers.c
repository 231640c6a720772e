/* callers: the callers and callees (butterfly) of the selected region (B).
 *
 * Top: every call path that calls it, with the calls and the time spent
 * in it under each; below: what it calls, with inclusive and exclusive
 * time and their shares of its time, its own exclusive time first
 * ("(self)").  Recursion is counted once (butterfly.h).  Enter centres the
 * view on the row's region (a path's direct caller, a callee); r steps
 * through the ranks.  Any view's selection opens here with B. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/butterfly.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "ui/view.h"

enum cl_kind { CL_HEAD_CALLERS, CL_CALLER, CL_HEAD_CALLEES, CL_SELF, CL_CALLEE };

typedef struct cl_line {
    enum cl_kind kind;
    size_t i;
} cl_line;

typedef struct callers_state {
    butterfly *b;
    char name[256];
    int rank;
    bool waiting; /* the nesting is still being computed */
    char error[SV_MSG_MAX];
    cl_line *lines;
    size_t nlines;
    size_t cursor, top; /* into lines; the cursor never on a heading */
} callers_state;

/* ------------------------------------------------------------ model */

static bool cl_selectable(const cl_line *l)
{
    return l->kind != CL_HEAD_CALLERS && l->kind != CL_HEAD_CALLEES;
}

static void cl_lines(callers_state *st)
{
    free(st->lines);
    st->nlines = 0;
    st->lines = NULL;
    if (!st->b)
        return;
    const butterfly *b = st->b;
    st->lines = malloc((b->ncallers + b->ncallees + 3) * sizeof *st->lines);
    if (!st->lines)
        return;
    st->lines[st->nlines++] = (cl_line){CL_HEAD_CALLERS, 0};
    for (size_t i = 0; i < b->ncallers; i++)
        st->lines[st->nlines++] = (cl_line){CL_CALLER, i};
    st->lines[st->nlines++] = (cl_line){CL_HEAD_CALLEES, 0};
    st->lines[st->nlines++] = (cl_line){CL_SELF, 0};
    for (size_t i = 0; i < b->ncallees; i++)
        st->lines[st->nlines++] = (cl_line){CL_CALLEE, i};
    st->cursor = 1;
    st->top = 0;
}

static void cl_rebuild(callers_state *st, ui_ctx *ctx)
{
    butterfly_free(st->b);
    st->b = NULL;
    st->error[0] = '\0';
    st->waiting = ui_calls_pending(ctx);
    if (st->waiting || !st->name[0]) {
        cl_lines(st);
        return;
    }
    sv_error err;
    sv_error_clear(&err);
    if (butterfly_build(ctx->prof, ctx->opt ? ctx->opt->filter : NULL, st->name, st->rank, &st->b,
                        &err) != SV_OK)
        snprintf(st->error, sizeof st->error, "%s", err.msg);
    cl_lines(st);
}

static void cl_centre(callers_state *st, ui_ctx *ctx, const char *name)
{
    snprintf(st->name, sizeof st->name, "%s", name);
    cl_rebuild(st, ctx);
    /* the other views follow: the region on the rank shown, else the first that has it */
    for (size_t k = 0; k < ctx->prof->nranks; k++) {
        rank_data *rk = &ctx->prof->ranks[k];
        region *r = (st->rank < 0 || rk->rank == st->rank) ? rank_region(rk, name) : NULL;
        if (r) {
            ui_select_region(ctx, r);
            return;
        }
    }
}

static void cl_follow(callers_state *st, ui_ctx *ctx)
{
    const region *sel = ctx->sel.region;
    if (st->waiting && !ui_calls_pending(ctx))
        cl_rebuild(st, ctx);
    if (!sel || strcmp(sel->name, st->name) == 0)
        return;
    snprintf(st->name, sizeof st->name, "%s", sel->name);
    st->rank = -1;
    cl_rebuild(st, ctx);
}

/* ----------------------------------------------------------- drawing */

/* Column positions from the right: calls, time, share, excl, share. */
typedef struct cl_cols {
    int name_w, calls, incl, ishare, excl, eshare;
} cl_cols;

static cl_cols cl_layout(int w)
{
    cl_cols c;
    c.eshare = w - 8;
    c.excl = c.eshare - 10;
    c.ishare = c.excl - 8;
    c.incl = c.ishare - 10;
    c.calls = c.incl - 9;
    c.name_w = c.calls - 3;
    return c;
}

static void cl_right(grid *g, int x, int w, int y, const char *s, int role)
{
    int tw = text_display_width(s);
    if (tw > w)
        tw = w;
    grid_put_text(g, x + w - tw, y, tw, s, role, 0);
}

static void cl_share(char *b, size_t len, int64_t part, int64_t whole)
{
    if (whole > 0)
        snprintf(b, len, "%.1f%%", 100.0 * (double)part / (double)whole);
    else
        snprintf(b, len, "-");
}

static void cl_draw_line(const callers_state *st, ui_ctx *ctx, const cl_line *l, int x, int y,
                         int w, bool cur)
{
    grid *g = &ctx->grid;
    const butterfly *b = st->b;
    cl_cols c = cl_layout(w);
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    char t[48];
    if (cur)
        grid_fill(g, (rect){x, y, w, 1}, ' ', ROLE_SELECTED, 0);
    grid_put_cp(g, x, y, cur ? (ctx->ascii ? '>' : 0x25B6) : ' ', role, 0);
    switch (l->kind) {
    case CL_HEAD_CALLERS:
        grid_put_text(g, x + 1, y, c.name_w + 2, "Called from (call path)", ROLE_HEADER, GA_BOLD);
        cl_right(g, x + c.calls, 8, y, "Calls", ROLE_HEADER);
        cl_right(g, x + c.incl, 9, y, "Time", ROLE_HEADER);
        cl_right(g, x + c.ishare, 7, y, "Share", ROLE_HEADER);
        return;
    case CL_HEAD_CALLEES:
        grid_put_text(g, x + 1, y, c.name_w + 2, "Calls (what it calls)", ROLE_HEADER, GA_BOLD);
        cl_right(g, x + c.calls, 8, y, "Calls", ROLE_HEADER);
        cl_right(g, x + c.incl, 9, y, "Incl", ROLE_HEADER);
        cl_right(g, x + c.ishare, 7, y, "Incl%", ROLE_HEADER);
        cl_right(g, x + c.excl, 9, y, "Excl", ROLE_HEADER);
        cl_right(g, x + c.eshare, 7, y, "Excl%", ROLE_HEADER);
        return;
    case CL_CALLER: {
        const bfly_caller *k = &b->callers[l->i];
        const char *path = k->path[0] ? k->path : "(top level: no caller)";
        grid_put_text_mid(g, x + 2, y, c.name_w, path, k->path[0] ? role : ROLE_DIM, 0);
        snprintf(t, sizeof t, "%lld", (long long)k->calls);
        cl_right(g, x + c.calls, 8, y, t, role);
        timefmt_ns(t, sizeof t, (double)k->incl_ns);
        cl_right(g, x + c.incl, 9, y, t, role);
        cl_share(t, sizeof t, k->incl_ns, b->incl_ns);
        cl_right(g, x + c.ishare, 7, y, t, role);
        return;
    }
    case CL_SELF:
        grid_put_text(g, x + 2, y, c.name_w, "(self: its own exclusive time)", ROLE_DIM, 0);
        timefmt_ns(t, sizeof t, (double)b->self_ns);
        cl_right(g, x + c.incl, 9, y, t, role);
        cl_share(t, sizeof t, b->self_ns, b->incl_ns);
        cl_right(g, x + c.ishare, 7, y, t, role);
        timefmt_ns(t, sizeof t, (double)b->self_ns);
        cl_right(g, x + c.excl, 9, y, t, role);
        cl_share(t, sizeof t, b->self_ns, b->incl_ns);
        cl_right(g, x + c.eshare, 7, y, t, role);
        return;
    case CL_CALLEE: {
        const bfly_callee *k = &b->callees[l->i];
        grid_put_text_mid(g, x + 2, y, c.name_w, k->name, role, 0);
        snprintf(t, sizeof t, "%lld", (long long)k->calls);
        cl_right(g, x + c.calls, 8, y, t, role);
        timefmt_ns(t, sizeof t, (double)k->incl_ns);
        cl_right(g, x + c.incl, 9, y, t, role);
        cl_share(t, sizeof t, k->incl_ns, b->incl_ns);
        cl_right(g, x + c.ishare, 7, y, t, role);
        timefmt_ns(t, sizeof t, (double)k->excl_ns);
        cl_right(g, x + c.excl, 9, y, t, role);
        cl_share(t, sizeof t, k->excl_ns, b->incl_ns);
        cl_right(g, x + c.eshare, 7, y, t, role);
        return;
    }
    }
}

static void cl_header(const callers_state *st, ui_ctx *ctx, rect a)
{
    grid *g = &ctx->grid;
    const butterfly *b = st->b;
    char line[256], t[32], rk[32];
    timefmt_ns(t, sizeof t, (double)b->incl_ns);
    if (st->rank >= 0)
        snprintf(rk, sizeof rk, "rank %d", st->rank);
    else
        snprintf(rk, sizeof rk, "all ranks");
    int used = grid_put_text_mid(g, a.x + 1, a.y, a.w / 3, b->name, ROLE_NORMAL, GA_BOLD);
    if (b->nested)
        snprintf(line, sizeof line, "  %s: %lld calls, %s (%lld recursive call%s inside them)", rk,
                 (long long)b->calls, t, (long long)b->nested, b->nested == 1 ? "" : "s");
    else
        snprintf(line, sizeof line, "  %s: %lld calls, %s", rk, (long long)b->calls, t);
    grid_put_text(g, a.x + 1 + used, a.y, a.w - used - 2, line, ROLE_NORMAL, 0);
}

static void cl_draw(void *state, ui_ctx *ctx, rect a)
{
    callers_state *st = state;
    if (!st || a.h < 6 || a.w < 40)
        return;
    cl_follow(st, ctx);
    grid *g = &ctx->grid;
    const char *msg = NULL;
    if (!st->name[0])
        msg = "No region selected: select one in another view (regions, tree, timeline), then B";
    else if (st->waiting)
        msg = ui_computing_text(ctx);
    else if (st->error[0] || !st->b)
        msg = st->error;
    if (msg) {
        grid_put_text(g, a.x + 1, a.y + 1, a.w - 2, msg, st->error[0] ? ROLE_WARNING : ROLE_DIM, 0);
        return;
    }
    cl_header(st, ctx, a);
    int rows = a.h - 2;
    if (st->cursor < st->top)
        st->top = st->cursor > 0 && !cl_selectable(&st->lines[st->cursor - 1]) ? st->cursor - 1
                                                                               : st->cursor;
    if (st->cursor >= st->top + (size_t)rows)
        st->top = st->cursor + 1 - (size_t)rows;
    for (int r = 0; r < rows && st->top + (size_t)r < st->nlines; r++) {
        size_t i = st->top + (size_t)r;
        cl_draw_line(st, ctx, &st->lines[i], a.x, a.y + 1 + r, a.w, i == st->cursor);
    }
    grid_put_text(g, a.x + 1, a.y + a.h - 1, a.w - 2,
                  "shares of its time; recursion counted once; Enter: centre on the row; r: rank",
                  ROLE_DIM, 0);
}

/* ----------------------------------------------------------- commands */

static void cl_move(callers_state *st, int dir, size_t steps)
{
    for (size_t s = 0; s < steps; s++) {
        size_t at = st->cursor;
        do {
            if ((dir < 0 && at == 0) || (dir > 0 && at + 1 >= st->nlines))
                return;
            at = dir < 0 ? at - 1 : at + 1;
        } while (!cl_selectable(&st->lines[at]));
        st->cursor = at;
    }
}

static int cl_enter(callers_state *st, ui_ctx *ctx)
{
    const cl_line *l = &st->lines[st->cursor];
    const char *to = NULL;
    if (l->kind == CL_CALLER)
        to = st->b->callers[l->i].parent;
    else if (l->kind == CL_CALLEE)
        to = st->b->callees[l->i].name;
    if (!to) {
        ui_set_status(ctx, l->kind == CL_SELF ? "Its own time: nothing to centre on"
                                              : "Top-level calls: no caller");
        return VF_HANDLED | VF_REDRAW;
    }
    char shown[160];
    text_escape_buf(shown, sizeof shown, to);
    cl_centre(st, ctx, to);
    ui_set_status(ctx, "Callers and callees of %s", shown);
    return VF_HANDLED | VF_REDRAW;
}

static void cl_next_rank(callers_state *st, ui_ctx *ctx)
{
    const profile *p = ctx->prof;
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    int next = -1;
    for (size_t k = 0; k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (rk->rank > st->rank && filter_match_rank(f, rk->rank) && rank_region(rk, st->name)) {
            next = rk->rank;
            break;
        }
    }
    st->rank = next;
    cl_rebuild(st, ctx);
}

static int cl_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    callers_state *st = state;
    if (!st || !st->b || !st->nlines)
        return 0;
    switch (cmd) {
    case CMD_UP:
    case CMD_WHEEL_UP:
        cl_move(st, -1, 1);
        return VF_HANDLED | VF_REDRAW;
    case CMD_DOWN:
    case CMD_WHEEL_DOWN:
        cl_move(st, 1, 1);
        return VF_HANDLED | VF_REDRAW;
    case CMD_PGUP:
        cl_move(st, -1, 10);
        return VF_HANDLED | VF_REDRAW;
    case CMD_PGDN:
        cl_move(st, 1, 10);
        return VF_HANDLED | VF_REDRAW;
    case CMD_HOME:
        cl_move(st, -1, st->nlines);
        return VF_HANDLED | VF_REDRAW;
    case CMD_END:
        cl_move(st, 1, st->nlines);
        return VF_HANDLED | VF_REDRAW;
    case CMD_ENTER:
        return cl_enter(st, ctx);
    case CMD_SERIES_RANK:
        cl_next_rank(st, ctx);
        return VF_HANDLED | VF_REDRAW;
    default:
        return 0;
    }
}

static void *cl_create(ui_ctx *ctx)
{
    (void)ctx;
    callers_state *st = calloc(1, sizeof *st);
    if (st)
        st->rank = -1;
    return st;
}

static void cl_destroy(void *state)
{
    callers_state *st = state;
    if (!st)
        return;
    butterfly_free(st->b);
    free(st->lines);
    free(st);
}

const view_ops callers_view = {
    .name = "callers",
    .create = cl_create,
    .destroy = cl_destroy,
    .draw = cl_draw,
    .on_cmd = cl_cmd,
    .on_resize = NULL,
};
