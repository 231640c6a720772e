/* tl_draw: one frame of the timeline: header, ruler, lane rows, details.
 * Everything drawn comes from the visible window: the cost of a frame
 * grows with the screen, not with the profile. */
#include <stdio.h>
#include <string.h>

#include "util/checked.h"
#include "model/region.h"
#include "ruler.h"
#include "util/timefmt.h"
#include "tl_ooc.h"
#include "tl_state.h"
#include "tl_window.h"

static int64_t zero_of(const ui_ctx *ctx)
{
    return ctx->prof->has_min_start ? ctx->prof->min_start_ns : 0;
}

static cell *cell_at(grid *g, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->cols || y >= g->rows)
        return NULL;
    return &g->cells[(size_t)y * (size_t)g->cols + (size_t)x];
}

/* ------------------------------------------------------------ header */

/* The note on regions the timeline cannot draw: with the region's name
 * when there is one and it fits, else just the count. */
static void header_note(const tl_state *s, char *note, size_t len, bool named)
{
    size_t ns = s->ix ? s->ix->nsummary_only : 0;
    note[0] = '\0';
    if (ns == 1 && named)
        snprintf(note, len, "1 region without event data: %.40s ", s->ix->summary_only_name);
    else if (ns)
        snprintf(note, len, "%zu region%s without event data ", ns, ns == 1 ? "" : "s");
}

static void draw_header(const tl_state *s, ui_ctx *ctx)
{
    const tl_geo *g = &s->geo;
    char a[32], b[32], res[32], line[256], note[96];
    int64_t zero = zero_of(ctx);
    int64_t ta = ck_sub(s->v.t0, zero), tb = ck_sub(tl_col_time(&s->v, g->tw), zero);
    int ue, dec;
    ruler_precision(tb > ck_neg(ta) ? tb : ta, s->v.npc, &ue, &dec);
    ruler_label(a, sizeof a, ta, ue, dec);
    ruler_label(b, sizeof b, tb, ue, dec);
    timefmt_ns(res, sizeof res, (double)s->v.npc);
    size_t nl = s->ix ? s->ix->nlanes : 0;
    int n = 0;
    if (!s->ix && s->ov.nrows) /* the overview's time axis; the lanes are not counted yet */
        n = snprintf(line, sizeof line, " %s .. %s  (%s/col)  lanes: %s", a, b, res,
                     ctx->ascii ? "computing..." : "computing…");
    else if (nl)
        n = snprintf(line, sizeof line, " %s .. %s  (%s/col)  %zu lane%s%s", a, b, res, nl,
                     nl == 1 ? "" : "s", s->hide_idle ? ", idle ones hidden" : "");
    else if (!s->ix && ui_calls_pending(ctx)) /* not "no lanes": they are not counted yet */
        n = snprintf(line, sizeof line, " lanes: %s", ctx->ascii ? "computing..." : "computing…");
    else
        n = snprintf(line, sizeof line, " no lanes");
    /* Tasks folded into their group's row are lanes not on screen: say so. */
    size_t folded = nl ? tl_tasks_folded(s) : 0;
    if (folded && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, ", %zu task%s folded", folded,
                      folded == 1 ? "" : "s");
    /* Out of core: where the rows come from (tl_window.h). */
    const char *mode = tl_window_mode(s, ctx, g->w - text_display_width(line) - 2);
    if (mode[0] && nl && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, "  %s", mode);
    /* A filtered timeline holds only the matching calls: say so first. */
    if (s->filtered && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "  filter /%.60s/: %zu call%s", s->filter_text,
                 s->ix ? s->ix->ncalls : 0, s->ix && s->ix->ncalls == 1 ? "" : "s");
    grid_fill(&ctx->grid, (rect){g->x, g->header_y, g->w, 1}, ' ', ROLE_HEADER, 0);
    int used = grid_put_text(&ctx->grid, g->x, g->header_y, g->w, line, ROLE_HEADER, 0);
    header_note(s, note, sizeof note, true);
    int nw = text_display_width(note);
    if (used + 2 + nw > g->w) {
        header_note(s, note, sizeof note, false);
        nw = text_display_width(note);
    }
    if (!note[0])
        return;
    if (used + 2 + nw <= g->w)
        grid_put_text(&ctx->grid, g->x + g->w - nw, g->header_y, nw, note, ROLE_DIM, 0);
    else if (used + 4 < g->w) /* keep as much of the note as fits */
        grid_put_text(&ctx->grid, g->x + used + 2, g->header_y, g->w - used - 2, note, ROLE_DIM, 0);
}

/* ------------------------------------------------------------- ruler */

static void draw_ruler(const tl_state *s, ui_ctx *ctx)
{
    const tl_geo *g = &s->geo;
    const theme_glyphs *gl = theme_glyphs_get(ctx->grid.ascii);
    int64_t zero = zero_of(ctx);
    char cur[32], buf[48];
    int64_t tc = ck_sub(tl_col_time(&s->v, s->cursor_x), zero);
    int ue, dec;
    ruler_precision(tc, s->v.npc, &ue, &dec);
    ruler_label(cur, sizeof cur, tc, ue, dec);
    snprintf(buf, sizeof buf, "@%s", cur);
    grid_fill(&ctx->grid, (rect){g->x, g->ruler_y, g->gutter, 1}, ' ', ROLE_NORMAL, 0);
    grid_put_text(&ctx->grid, g->x + 1, g->ruler_y, g->gutter - 2, buf, ROLE_DIM, 0);
    grid_fill(&ctx->grid, (rect){g->tx, g->ruler_y, g->tw, 1}, gl->hline, ROLE_HEADER, 0);
    ruler_plan plan;
    ruler_plan_make(&plan, ck_sub(s->v.t0, zero), s->v.npc, g->tw);
    for (size_t k = 0; k < plan.nticks; k++) {
        const ruler_tick *t = &plan.ticks[k];
        grid_put_cp(&ctx->grid, g->tx + t->x, g->ruler_y, gl->tick, ROLE_HEADER, 0);
        int room = g->tw - t->x - 1, lw = (int)strlen(t->label);
        bool covers_cursor = s->cursor_x > t->x && s->cursor_x <= t->x + lw;
        if (room >= lw && !covers_cursor)
            grid_put_text(&ctx->grid, g->tx + t->x + 1, g->ruler_y, room, t->label, ROLE_HEADER, 0);
    }
    grid_put_cp(&ctx->grid, g->tx + s->cursor_x, g->ruler_y, gl->sort_down, ROLE_SELECTED, 0);
}

/* -------------------------------------------------------------- rows */

/* Display width of text when it is at most max columns, else max + 1,
 * reading no more of it than that needs (names can be a megabyte long). */
static int bounded_width(const grid *g, const char *text, int max)
{
    size_t cap = 4 * (size_t)(max > 0 ? max : 0) + 8, n = strnlen(text, cap);
    int w = grid_text_widthn(g, text, n);
    return n == cap || w > max ? max + 1 : w;
}

static void draw_label(const tl_state *s, ui_ctx *ctx, int y, size_t l, uint32_t d, bool cur,
                       bool top)
{
    const tl_geo *g = &s->geo;
    const theme_glyphs *gl = theme_glyphs_get(ctx->grid.ascii);
    const lane *ln = &s->ix->lanes[l];
    int role = cur ? ROLE_SELECTED : d == 0 ? ROLE_HEADER : ROLE_DIM;
    grid_fill(&ctx->grid, (rect){g->x, y, g->gutter - 1, 1}, ' ', cur ? ROLE_SELECTED : 0, 0);
    if (cur)
        grid_put_cp(&ctx->grid, g->x, y, gl->marker, ROLE_SELECTED, 0);
    char text[160], more[32];
    text[0] = more[0] = '\0';
    bool last_shown = d + 1 == s->shown[l] && s->shown[l] < ln->ndepth;
    bool in_group = s->group_tasks && s->group_of[l] != SIZE_MAX;
    if (d == 0 || top) {
        lanes_lane_name(ln, text, sizeof text); /* "r0 lane 2 (inferred)" too */
        const char *sp = strchr(text, ' ');
        if (in_group && sp) { /* under its thread's group: indented, no rank */
            char t2[160];
            snprintf(t2, sizeof t2, "  %s", sp + 1);
            snprintf(text, sizeof text, "%s", t2);
        }
        /* A folded lane keeps saying what it hides, beside its name. */
        if (last_shown)
            snprintf(more, sizeof more, "+%u", ln->ndepth - s->shown[l]);
    } else if (last_shown) {
        snprintf(text, sizeof text, "  +%u deeper", ln->ndepth - s->shown[l]);
    }
    int room = g->gutter - 2, mw = (int)strlen(more);
    if (mw && mw + 4 <= room) {
        grid_put_text(&ctx->grid, g->x + 1 + room - mw, y, mw, more, cur ? role : ROLE_DIM, 0);
        room -= mw + 1;
    }
    /* An inferred lane's name says "(inferred)" in full only when it fits:
     * "r0 lane 1 (inf.)", then "r0 lane 1", rather than "r0 lane 1 (i…rred)". */
    if (ln->kind == LANE_INFERRED && d == 0 && !in_group &&
        grid_text_width(&ctx->grid, text) > room) {
        snprintf(text, sizeof text, "r%d lane %lld (inf.)", ln->rk->rank, (long long)ln->row + 1);
        if (grid_text_width(&ctx->grid, text) > room)
            snprintf(text, sizeof text, "r%d lane %lld", ln->rk->rank, (long long)ln->row + 1);
    }
    /* Task names differ at their start ("Task-12 handle"), thread names
     * often at their end ("ThreadPoolExecutor-0_1"). */
    if (ln->kind == LANE_TASK)
        grid_put_text(&ctx->grid, g->x + 1, y, room, text, role, 0);
    else
        grid_put_text_mid(&ctx->grid, g->x + 1, y, room, text, role, 0);
    grid_put_cp(&ctx->grid, g->x + g->gutter - 1, y, gl->vline, ROLE_DIM, 0);
}

static bool is_selected(const ui_ctx *ctx, const lane *ln, uint32_t call)
{
    return ctx->sel.call == (int64_t)call && ctx->sel.rank == ln->rk->rank;
}

/* The name inside a bar, followed by the awaited share when the call
 * records one and it fits ("db_query 40% awaited", then "db_query 40%"). */
static void draw_bar_name(ui_ctx *ctx, const tl_seg *sg, int x0, int y, const region *r, size_t i,
                          int role, int attr)
{
    int a = sg->x0 + (sg->edge_left ? 1 : 0), b = sg->x1 - (sg->edge_right ? 1 : 0);
    int room = b - a, nw = bounded_width(&ctx->grid, r->name, room);
    if (room < 4 && room < nw) /* "ab…" says less than a plain bar */
        return;
    int used = grid_put_text(&ctx->grid, x0 + a, y, room, r->name, role, attr);
    int64_t dur = ck_sub(r->end_ns[i], r->start_ns[i]);
    if (sg->await_k <= 0 || dur <= 0 || used < nw)
        return;
    char share[32];
    int pct = (int)((double)r->await_ns[i] * 100.0 / (double)dur + 0.5);
    snprintf(share, sizeof share, " %d%% awaited", pct);
    int sw = (int)strlen(share);
    if (used + sw > room) {
        snprintf(share, sizeof share, " %d%%", pct);
        sw = (int)strlen(share);
    }
    if (used + sw <= room)
        grid_put_text(&ctx->grid, x0 + a + used, y, sw, share,
                      role == ROLE_SELECTED ? role : ROLE_AWAIT, 0);
}

static void draw_bar(const tl_state *s, ui_ctx *ctx, const lane *ln, const tl_seg *sg, int y)
{
    const theme_glyphs *gl = theme_glyphs_get(ctx->grid.ascii);
    size_t i = 0;
    const region *r = rank_call_region(ln->rk, sg->call, &i);
    if (!r)
        return;
    bool sel = is_selected(ctx, ln, sg->call);
    bool match = ctx->has_search && ui_search_match(ctx, r->name);
    int role = sel ? ROLE_SELECTED : theme_region_role(r->name);
    int attr = match && !ctx->filter_on ? GA_UNDERLINE : 0;
    int x0 = s->geo.tx;
    for (int x = sg->x0; x < sg->x1; x++) {
        bool awaited = sg->await_k > 0 && tl_col_awaited(ln->rk, &s->v, sg, x);
        uint32_t ch = awaited ? gl->await : ' ';
        if (x == sg->x0 && sg->edge_left)
            ch = x + 1 == sg->x1 && sg->edge_right ? gl->vline : '[';
        else if (x + 1 == sg->x1 && sg->edge_right)
            ch = ']';
        grid_put_cp(&ctx->grid, x0 + x, y, ch, awaited && !sel ? ROLE_AWAIT : role, attr);
    }
    draw_bar_name(ctx, sg, x0, y, r, i, role, attr);
}

/* Columns of the selected call when it lies in this row: a dense cell
 * there is drawn selected, so the selection never disappears. */
typedef struct sel_cols {
    bool here;
    int64_t c0, c1;
} sel_cols;

static void draw_row(tl_state *s, ui_ctx *ctx, int y, size_t l, uint32_t d, const sel_cols *sc)
{
    const theme_glyphs *gl = theme_glyphs_get(ctx->grid.ascii);
    const lane *ln = &s->ix->lanes[l];
    size_t n = tl_layout_row(ln, &ln->rows[d], &s->v, s->segs, s->segcap);
    const lane_busy *bz = NULL;
    int64_t prev_t = 0, prev_busy = 0; /* busy before the last cell's end */
    bool have_prev = false;
    size_t hint = 0; /* cells left to right: each search starts where the last ended */
    for (size_t k = 0; k < n; k++) {
        const tl_seg *sg = &s->segs[k];
        if (sg->kind == TL_BAR) {
            draw_bar(s, ctx, ln, sg, y);
            continue;
        }
        bool sel = sc->here && sg->x0 >= sc->c0 && sg->x0 <= sc->c1;
        /* The glyph says how busy the row was in the cell, not how many
         * calls it holds. */
        int64_t tc0 = tl_col_time(&s->v, sg->x0), tc1 = tl_col_time(&s->v, sg->x1);
        bz = bz ? bz : tl_row_busy(s, l, d);
        int level;
        if (bz) {
            /* Adjacent cells share an edge: its busy time is looked up once. */
            int64_t b0 =
                have_prev && prev_t == tc0 ? prev_busy : lane_busy_before_from(bz, tc0, &hint);
            int64_t b1 = lane_busy_before_from(bz, tc1, &hint);
            prev_t = tc1;
            prev_busy = b1;
            have_prev = true;
            level = tl_load_level(tc1 > tc0 ? b1 - b0 : 0, tc1 - tc0);
        } else {
            level = tl_dense_level(sg->count);
        }
        grid_put_cp(&ctx->grid, s->geo.tx + sg->x0, y, gl->dense[level],
                    sel ? ROLE_SELECTED : ROLE_DENSE, 0);
    }
}

static void selected_cols(const tl_state *s, const ui_ctx *ctx, size_t *lane_out, uint32_t *depth,
                          sel_cols *sc)
{
    size_t pos;
    sc->here = ctx->sel.call >= 0 &&
               lanes_locate(s->ix, ctx->sel.rank, ctx->sel.call, lane_out, depth, &pos);
    if (!sc->here)
        return;
    int64_t st, e;
    lanes_call_span(s->ix->lanes[*lane_out].rk, (uint32_t)ctx->sel.call, &st, &e);
    sc->c0 = tl_time_col(&s->v, st);
    sc->c1 = tl_time_col(&s->v, lanes_visible_end(st, e) - 1);
}

/* The cursor column, dotted so it differs from a one-column call. */
static uint32_t cursor_glyph(const ui_ctx *ctx)
{
    return theme_glyphs_get(ctx->grid.ascii)->cursor_col;
}

/* The selected call's span, marked on every lane: its first and last
 * columns where a lane is empty there, so what the other lanes did
 * meanwhile reads off the screen; the ruler marks the span too. */
static void draw_sel_band(const tl_state *s, ui_ctx *ctx, const sel_cols *sc)
{
    const tl_geo *g = &s->geo;
    if (!sc->here || sc->c1 < 0 || sc->c0 >= g->tw)
        return;
    uint32_t edge = theme_glyphs_get(ctx->grid.ascii)->sel_edge;
    int64_t a = sc->c0 < 0 ? 0 : sc->c0, z = sc->c1 >= g->tw ? g->tw - 1 : sc->c1;
    for (int64_t x = a; x <= z; x++) {
        cell *c = cell_at(&ctx->grid, g->tx + (int)x, g->ruler_y);
        if (c && c->ch == theme_glyphs_get(ctx->grid.ascii)->hline)
            c->role = ROLE_SELECTED;
    }
    for (int i = 0; i < g->nvis && s->top_row + (size_t)i < s->nrows; i++) {
        int64_t xs[2] = {sc->c0, sc->c1};
        for (int k = 0; k < 2; k++) {
            cell *c = xs[k] >= 0 && xs[k] < g->tw
                          ? cell_at(&ctx->grid, g->tx + (int)xs[k], g->rows_y + i)
                          : NULL;
            if (c && c->ch == ' ' && c->role == ROLE_NORMAL) /* empty, not inside a bar */
                *c = (cell){edge, ROLE_SELECTED, 0};
        }
    }
}

/* A task group's row: its label ("r0 MainThread ▸18" or, under the
 * thread's own rows, "  ▸ 18 tasks") and per column how many of its tasks
 * were running (their busy time over the column's). */
static void draw_group_row(tl_state *s, ui_ctx *ctx, int y, size_t g, bool cur)
{
    const tl_geo *geo = &s->geo;
    const theme_glyphs *gl = theme_glyphs_get(ctx->grid.ascii);
    const tl_group *gr = &s->groups[g];
    int role = cur ? ROLE_SELECTED : ROLE_HEADER;
    grid_fill(&ctx->grid, (rect){geo->x, y, geo->gutter - 1, 1}, ' ', cur ? ROLE_SELECTED : 0, 0);
    if (cur)
        grid_put_cp(&ctx->grid, geo->x, y, gl->marker, ROLE_SELECTED, 0);
    const char *arrow = ctx->grid.ascii ? (gr->open ? "v" : ">") : (gr->open ? "\u25be" : "\u25b8");
    char text[160], nb[48], more[32];
    const rank_data *rk = &s->ix->prof->ranks[gr->rank_index];
    int room = geo->gutter - 2;
    /* Opened in part: how many of the tasks are shown ("33 of 41"). */
    bool part = gr->open && gr->nshow < gr->ntasks;
    if (gr->thread_lane == SIZE_MAX) {
        snprintf(text, sizeof text, "r%d %s", rk->rank,
                 gr->thread >= 0 ? rank_thread_name(rk, gr->thread, nb, sizeof nb) : "tasks");
        if (part)
            snprintf(more, sizeof more, "%s%zu/%zu", arrow, gr->nshow, gr->ntasks);
        else
            snprintf(more, sizeof more, "%s%zu", arrow, gr->ntasks);
        int mw = grid_text_width(&ctx->grid, more);
        grid_put_text(&ctx->grid, geo->x + 1 + room - mw, y, mw, more, cur ? role : ROLE_DIM, 0);
        grid_put_text_mid(&ctx->grid, geo->x + 1, y, room - mw - 1, text, role, 0);
    } else {
        if (part) { /* the shorter wording when the longer one would be cut */
            snprintf(text, sizeof text, "  %s %zu of %zu tasks", arrow, gr->nshow, gr->ntasks);
            if (grid_text_width(&ctx->grid, text) > room)
                snprintf(text, sizeof text, "  %s %zu of %zu", arrow, gr->nshow, gr->ntasks);
            if (grid_text_width(&ctx->grid, text) > room)
                snprintf(text, sizeof text, "  %s%zu/%zu", arrow, gr->nshow, gr->ntasks);
        } else
            snprintf(text, sizeof text, "  %s %zu task%s", arrow, gr->ntasks,
                     gr->ntasks == 1 ? "" : "s");
        grid_put_text(&ctx->grid, geo->x + 1, y, room, text, cur ? role : ROLE_DIM, 0);
    }
    grid_put_cp(&ctx->grid, geo->x + geo->gutter - 1, y, gl->vline, ROLE_DIM, 0);
    for (int x = 0; x < geo->tw; x++) {
        double n = tl_group_load(s, g, tl_col_time(&s->v, x), tl_col_time(&s->v, x + 1));
        if (n <= 0.0)
            continue;
        int level = n <= 1.0 ? 0 : n <= 3.0 ? 1 : 2;
        grid_put_cp(&ctx->grid, geo->tx + x, y, gl->dense[level], ROLE_DENSE, 0);
    }
}

static void draw_rows(tl_state *s, ui_ctx *ctx)
{
    const tl_geo *g = &s->geo;
    size_t sl = 0;
    uint32_t sd = 0;
    sel_cols sc;
    selected_cols(s, ctx, &sl, &sd, &sc);
    for (int i = 0; i < g->nvis; i++) {
        int y = g->rows_y + i;
        size_t r = s->top_row + (size_t)i;
        if (r >= s->nrows)
            continue;
        size_t l;
        uint32_t d;
        if (tl_row_at(s, r, &l, &d)) {
            draw_label(s, ctx, y, l, d, r == s->cur_row, i == 0);
            grid_put_cp(&ctx->grid, g->tx + s->cursor_x, y, cursor_glyph(ctx), ROLE_DIM, 0);
            sel_cols none = {false, 0, 0};
            if (tl_window_map_rows(s)) /* out of core, zoomed out: the map's cells */
                tl_ooc_draw_row(s, ctx, l, d, y);
            else
                draw_row(s, ctx, y, l, d, sc.here && sl == l && sd == d ? &sc : &none);
        } else {
            grid_put_cp(&ctx->grid, g->tx + s->cursor_x, y, cursor_glyph(ctx), ROLE_DIM, 0);
            draw_group_row(s, ctx, y, tl_row_group(s, r), r == s->cur_row);
        }
        cell *c = r == s->cur_row ? cell_at(&ctx->grid, g->tx + s->cursor_x, y) : NULL;
        if (c)
            c->attr ^= GA_REVERSE;
    }
    draw_sel_band(s, ctx, &sc);
}

/* ----------------------------------------------------------- details */

typedef struct flow {
    grid *g;
    int x0, x1, y, y1; /* columns [x0, x1), rows [y, y1) */
    int x;
} flow;

/* Places "label value" at the flow's position, wrapping to the next line
 * when it does not fit; the last line cuts it instead. */
static void flow_item(flow *f, const char *label, const char *value, int role)
{
    int lw = label ? text_display_width(label) + 1 : 0;
    int w = lw + text_display_width(value);
    if (f->y >= f->y1)
        return;
    if (f->x > f->x0 && f->x + w > f->x1 && f->y + 1 < f->y1) {
        f->y++;
        f->x = f->x0;
    }
    if (f->x >= f->x1)
        return;
    if (label)
        f->x += grid_put_text(f->g, f->x, f->y, f->x1 - f->x, label, ROLE_DIM, 0) + 1;
    if (f->x < f->x1)
        f->x += grid_put_text(f->g, f->x, f->y, f->x1 - f->x, value, role, 0);
    f->x += 2;
}

static void fmt_ns(char *buf, size_t len, int64_t ns)
{
    timefmt_ns(buf, len, (double)ns);
}

static void details_names(flow *f, const region *r, size_t i, const rank_data *rk)
{
    char nb[48], buf[200];
    flow_item(f, NULL, r->name, theme_region_role(r->name));
    snprintf(buf, sizeof buf, "%d", rk->rank);
    flow_item(f, "rank", buf, ROLE_NORMAL);
    if (r->thread_ids)
        flow_item(f, "thread", rank_thread_name(rk, r->thread_ids[i], nb, sizeof nb), ROLE_NORMAL);
    if (r->task_ids && r->task_ids[i] >= 0) {
        int64_t t = r->task_ids[i];
        bool open = rk->tasks.done_ns && (size_t)t < rk->tasks.n && rk->tasks.done_ns[t] == -1;
        snprintf(buf, sizeof buf, "%.150s%s", rank_task_name(rk, t, nb, sizeof nb),
                 open ? " (unfinished)" : "");
        flow_item(f, "task", buf, open ? ROLE_WARNING : ROLE_NORMAL);
    }
}

/* The region's tags (out of core too: they are the region's attributes). */
static void details_tags(flow *f, const region *q)
{
    if (!q->ntags)
        return;
    char buf[256];
    size_t off = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < q->ntags && off + 1 < sizeof buf; k++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%.60s", k ? "," : "", q->tags[k]);
    flow_item(f, "tags", buf, ROLE_NORMAL);
}

/* The selected call's exclusive time, remembered for the last few
 * selections (moving back and forth between a root and its children). */
int64_t tl_selection_excl(tl_state *s, const rank_data *rk, int64_t g)
{
    for (unsigned k = 0; k < TL_EXCL_CACHE; k++)
        if (s->excl[k].calls == rk->calls && s->excl[k].call == g)
            return s->excl[k].ns;
    /* The entry replaced is the cheapest to work out again (fewest
     * children), the oldest of those: moving between a root's millions of
     * children never evicts the root, so a key costs the same whatever the
     * number of calls under the roots. */
    const uint32_t *kids;
    size_t nkids = rank_call_children(rk, (size_t)g, &kids);
    unsigned k = s->excl_next % TL_EXCL_CACHE;
    for (unsigned j = 1; j < TL_EXCL_CACHE; j++) {
        unsigned c = (s->excl_next + j) % TL_EXCL_CACHE;
        if (!s->excl[k].calls)
            break;
        if (!s->excl[c].calls || s->excl[c].nkids < s->excl[k].nkids)
            k = c;
    }
    s->excl_next = k + 1;
    s->excl[k].ns = rank_call_excl(rk, (size_t)g);
    s->excl[k].calls = rk->calls;
    s->excl[k].call = g;
    s->excl[k].nkids = nkids;
    return s->excl[k].ns;
}

static void details_times(flow *f, tl_state *s, const ui_ctx *ctx, const region *r, size_t i,
                          const rank_data *rk, int64_t g)
{
    char buf[48];
    int64_t st = r->start_ns[i], dur = ck_sub(r->end_ns[i], r->start_ns[i]);
    fmt_ns(buf, sizeof buf, ck_sub(st, zero_of(ctx)));
    flow_item(f, "start", buf, ROLE_NORMAL);
    fmt_ns(buf, sizeof buf, dur);
    flow_item(f, "dur", buf, ROLE_NORMAL);
    /* Out of core, a call reaching beyond the calls read may have others
     * under it: no exclusive time rather than a wrong one. */
    bool whole = tl_window_call_whole(s, ctx, st, r->end_ns[i]);
    if (rk->calls && whole) {
        fmt_ns(buf, sizeof buf, tl_selection_excl(s, rk, g));
        flow_item(f, "excl", buf, ROLE_NORMAL);
    } else if (rk->calls) {
        flow_item(f, "excl",
                  ctx->ascii ? "- (reaches beyond the calls read)"
                             : "\u2014 (reaches beyond the calls read)",
                  ROLE_DIM);
    }
    int64_t aw = r->await_ns ? r->await_ns[i] : 0;
    fmt_ns(buf, sizeof buf, dur - aw);
    flow_item(f, "held", buf, ROLE_NORMAL);
    if (r->await_ns)
        fmt_ns(buf, sizeof buf, aw);
    flow_item(f, "awaited", r->await_ns ? buf : "-", r->await_ns ? ROLE_NORMAL : ROLE_DIM);
    bool gpu = r->gpu_ns && r->gpu_ns[i] >= 0;
    if (gpu)
        fmt_ns(buf, sizeof buf, r->gpu_ns[i]);
    flow_item(f, "gpu", gpu ? buf : "-", gpu ? ROLE_NORMAL : ROLE_DIM);
    if (rk->calls && whole) {
        const uint32_t *kids;
        snprintf(buf, sizeof buf, "%zu", rank_call_children(rk, g, &kids));
        flow_item(f, "children", buf, ROLE_NORMAL);
    }
}

static void details_source(flow *f, const region *src, const region *r)
{
    char buf[300];
    const region *q = src->source_file ? src : r; /* out of core a window may not carry it */
    if (q->source_file && q->has_lineno)
        snprintf(buf, sizeof buf, "%.256s:%lld", q->source_file, (long long)q->source_lineno);
    else
        snprintf(buf, sizeof buf, "%.256s", q->source_file ? q->source_file : "-");
    flow_item(f, "src", buf, q->source_file ? ROLE_NORMAL : ROLE_DIM);
}

/* The call's metadata, last: it takes what is left of the line. */
static void details_meta(flow *f, const region *r, size_t i)
{
    const char *meta = r->event_meta ? r->event_meta[i] : NULL;
    if (meta && *meta && strcmp(meta, "{}") != 0) {
        /* Metadata may be long: start it on a line of its own if needed. */
        if (f->x1 - f->x < 16 && f->y + 1 < f->y1) {
            f->y++;
            f->x = f->x0;
        }
        int room = f->x1 - f->x;
        if (room > 6) {
            f->x += grid_put_text(f->g, f->x, f->y, 4, "meta", ROLE_DIM, 0) + 1;
            grid_put_text(f->g, f->x, f->y, f->x1 - f->x, meta, ROLE_NORMAL, 0);
        }
    }
}

static void draw_details(tl_state *s, ui_ctx *ctx)
{
    const tl_geo *g = &s->geo;
    if (g->panel_h <= 0)
        return;
    flow f = {&ctx->grid, g->x + 1, g->x + g->w, g->panel_y, g->panel_y + g->panel_h, g->x + 1};
    if (tl_window_map_rows(s)) { /* out of core, the map's rows: what they show (tl_ooc.h) */
        char legend[256];
        tl_ooc_legend(legend, sizeof legend, tl_ooc_view_exact(s), ctx->ascii);
        grid_put_text(&ctx->grid, f.x0, f.y++, f.x1 - f.x0, legend, ROLE_DIM, 0);
    }
    /* Out of core the selected call's index is its window's (tl_window.h). */
    const profile *sp = tl_window_sel_profile(s, ctx);
    int64_t sel = tl_window_sel_call(s, ctx);
    rank_data *rk = sel >= 0 && sp ? profile_rank(sp, ctx->sel.rank) : NULL;
    size_t i = 0;
    const region *r = rk ? rank_call_region(rk, sel, &i) : NULL;
    if (!r && tl_window_map_rows(s))
        return; /* the legend says to zoom in */
    if (!r) {
        /* Two items, so that a narrow screen wraps the hint between them. */
        flow_item(&f, NULL, "No call selected: Enter selects the call under the cursor,", ROLE_DIM);
        flow_item(&f, NULL, "[ ] step through a row, / searches, ? help", ROLE_DIM);
        return;
    }
    details_names(&f, r, i, rk);
    details_times(&f, s, ctx, r, i, rk, sel);
    /* The source of the region (out of core: the file's, ctx->sel.region). */
    details_source(&f, ctx->sel.region ? ctx->sel.region : r, r);
    details_tags(&f, ctx->sel.region ? ctx->sel.region : r);
    details_meta(&f, r, i);
}

/* -------------------------------------------------------------- frame */

static void follow_selection(tl_state *s, const ui_ctx *ctx)
{
    if (ctx->sel.call == s->seen_call && ctx->sel.rank == s->seen_rank)
        return;
    s->seen_rank = ctx->sel.rank;
    s->seen_call = ctx->sel.call;
    if (ctx->sel.call >= 0)
        tl_reveal(s, ctx->sel.rank, ctx->sel.call, false);
}

void tl_draw(void *state, ui_ctx *ctx, rect area)
{
    tl_state *s = state;
    if (!s || area.w <= 0 || area.h <= 0)
        return;
    tl_sync_filter(s, ctx);
    tl_set_area(s, area);
    tl_window_goto(s, ctx); /* out of core: a call asked for by another view */
    tl_window_sync(s, ctx); /* out of core: the window or the map for this span */
    tl_window_goto_done(s, ctx);
    if (s->hide_idle && s->ix) /* which lanes have calls in view changes with the view */
        tl_rows_rebuild(s);
    grid_fill(&ctx->grid, area, ' ', ROLE_NORMAL, 0);
    if (!s->ix && s->ov.nrows) {
        /* A bin counts in the column holding its start: at 8 bins a column
         * or more, a call is drawn at most an eighth of a column early. */
        int64_t bw = (int64_t)8 << s->ov.shift;
        if (s->v.npc < bw) {
            s->v.npc = bw;
            tl_clamp(&s->v, s->ov.t_min, s->ov.t_max);
        }
        draw_header(s, ctx);
        draw_ruler(s, ctx);
        tl_overview_draw(s, ctx);
        return;
    }
    if (!s->ix || s->ix->nlanes == 0) {
        const char *msg = s->error[0]   ? s->error
                          : s->filtered ? "No call matches the filter (f shows every call)"
                                        : "No calls with event data to show";
        draw_header(s, ctx);
        grid_put_text(&ctx->grid, area.x + 1, area.y + 2, area.w - 2, msg, ROLE_WARNING, 0);
        return;
    }
    follow_selection(s, ctx);
    draw_header(s, ctx);
    draw_ruler(s, ctx);
    draw_rows(s, ctx);
    draw_details(s, ctx);
    if (s->ovl_open)
        tl_overlap_draw(s, ctx);
}
