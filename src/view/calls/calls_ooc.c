/* calls_ooc: the calls view (4) out of core (calls_ooc.h). */
#include "calls_ooc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/filter.h"
#include "model/select.h"
#include "model/slowcalls.h"
#include "ui/ooc_view.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "calls_internal.h"

enum { OC_DUR, OC_EXCL, OC_START, OC_RANK, OC_CALL, OC_N };

static const struct {
    const char *title;
    int width;
    bool desc;
} oc_cols[OC_N] = {
    {"duration", 10, true}, {"excl", 10, true},  {"start", 10, false},
    {"rank", 6, false},     {"call", 10, false},
};

typedef struct oc_row {
    const slow_call *c;
    const region *r;
    uint32_t reg; /* index among its rank's regions */
} oc_row;

struct calls_ooc {
    bool built;
    char *name;
    int scope; /* rank number, or -1 for every rank */
    bool one_rank;
    oc_row *rows;
    size_t n;
    uint64_t total;    /* calls of the regions listed (their statistics) */
    region_stats agg;  /* their statistics together (count, total, min, max) */
    const region *one; /* the region when the scope holds one, for its percentiles */
    size_t nlost;      /* regions with calls and no list (ranks not swept) */
    int lost_rank;     /* the first one's rank */
    size_t nregs;
    int sort_col;
    bool desc;
    size_t cursor, top;
    char err[SV_MSG_MAX];
};

calls_ooc *calls_ooc_new(void)
{
    calls_ooc *o = calloc(1, sizeof *o);
    if (o) {
        o->sort_col = OC_DUR;
        o->desc = true;
    }
    return o;
}

static void oc_reset(calls_ooc *o)
{
    free(o->name);
    free(o->rows);
    int col = o->sort_col;
    bool desc = o->desc, one = o->one_rank;
    memset(o, 0, sizeof *o);
    o->sort_col = col;
    o->desc = desc;
    o->one_rank = one;
}

void calls_ooc_free(calls_ooc *o)
{
    if (!o)
        return;
    oc_reset(o);
    free(o);
}

/* ------------------------------------------------------------ the rows */

static int64_t row_key(const oc_row *w, int col)
{
    switch (col) {
    case OC_EXCL:
        return w->c->excl_ns;
    case OC_START:
        return w->c->s;
    case OC_RANK:
        return w->r->rank;
    case OC_CALL:
        return (int64_t)(w->c->pos > INT64_MAX ? INT64_MAX : w->c->pos);
    default:
        return slow_call_dur(w->c);
    }
}

/* Ties as the in-memory calls view breaks them: the lower rank, then
 * the lower row position (slowcalls.h's order within a region). */
static int tie_cmp(const oc_row *x, const oc_row *y)
{
    if (x->r->rank != y->r->rank)
        return x->r->rank < y->r->rank ? -1 : 1;
    return (x->c->pos > y->c->pos) - (x->c->pos < y->c->pos);
}

static int slower_cmp(const void *a, const void *b)
{
    const oc_row *x = a, *y = b;
    int64_t dx = slow_call_dur(x->c), dy = slow_call_dur(y->c);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return tie_cmp(x, y);
}

/* The sort's column and order live in the state; qsort has no context. */
typedef struct oc_sort_row {
    oc_row w;
    int64_t key;
} oc_sort_row;

static int key_cmp(const void *a, const void *b)
{
    const oc_sort_row *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return tie_cmp(&x->w, &y->w);
}

static void oc_sort(calls_ooc *o)
{
    oc_sort_row *v = malloc((o->n ? o->n : 1) * sizeof *v);
    if (!v)
        return;
    const slow_call *at = o->n ? o->rows[o->cursor].c : NULL;
    for (size_t i = 0; i < o->n; i++) {
        int64_t k = row_key(&o->rows[i], o->sort_col);
        v[i] = (oc_sort_row){o->rows[i], o->desc ? (k == INT64_MIN ? INT64_MAX : -k) : k};
    }
    qsort(v, o->n, sizeof *v, key_cmp);
    for (size_t i = 0; i < o->n; i++) {
        o->rows[i] = v[i].w;
        if (v[i].w.c == at)
            o->cursor = i;
    }
    free(v);
}

static void add_stats(calls_ooc *o, const region *r)
{
    const region_stats *st = &r->st;
    if (o->agg.num_calls == 0 || st->min_ns < o->agg.min_ns)
        o->agg.min_ns = st->min_ns;
    if (o->agg.num_calls == 0 || st->max_ns > o->agg.max_ns)
        o->agg.max_ns = st->max_ns;
    o->agg.num_calls += st->num_calls;
    o->agg.total_ns = ck_add(o->agg.total_ns, st->total_ns);
}

/* The regions of sel's name in scope: their lists merged, the first k
 * (the k slowest of them all are among each one's k slowest). */
static void oc_build(calls_ooc *o, ui_ctx *ctx, const region *sel)
{
    oc_reset(o);
    o->built = true;
    o->scope = o->one_rank ? sel->rank : -1;
    o->name = strdup(sel->name);
    region **list = NULL;
    size_t count = 0;
    if (!o->name ||
        profile_region_across_ranks(ctx->prof, sel->name, &list, &count, NULL) != SV_OK) {
        snprintf(o->err, sizeof o->err, "out of memory");
        return;
    }
    const region_filter *f = ctx->opt ? ctx->opt->filter : NULL;
    const slow_calls *sc = ctx->prof->slowest;
    size_t cap = 0;
    for (size_t j = 0; j < count; j++) {
        const region *r = list[j];
        if ((o->scope >= 0 && r->rank != o->scope) || !filter_match_rank(f, r->rank))
            continue;
        o->nregs++;
        o->one = o->nregs == 1 ? r : NULL;
        if (r->has_event_data)
            add_stats(o, r);
        const slow_region *l = slow_calls_of(ctx->prof, r);
        if (!l) {
            if (r->has_event_data && r->st.num_calls > 0 && o->nlost++ == 0)
                o->lost_rank = r->rank;
            continue;
        }
        o->total += l->seen;
        oc_row *v = realloc(o->rows, (cap + l->n + 1) * sizeof *v);
        if (!v) {
            snprintf(o->err, sizeof o->err, "out of memory");
            break;
        }
        o->rows = v;
        for (size_t i = 0; i < l->n; i++)
            o->rows[cap++] = (oc_row){&l->v[i], r, l->region};
    }
    free(list);
    o->n = cap;
    if (o->n > 1)
        qsort(o->rows, o->n, sizeof *o->rows, slower_cmp);
    if (sc && o->n > sc->k)
        o->n = sc->k;
    oc_sort(o);
    o->cursor = 0;
}

static void oc_sync(calls_ooc *o, ui_ctx *ctx)
{
    const region *sel = ctx->sel.region;
    if (!sel) {
        if (o->built)
            oc_reset(o);
        return;
    }
    if (ctx->drill_scope) {
        o->one_rank = ctx->drill_scope == UI_DRILL_RANK;
        ctx->drill_scope = 0;
    }
    int scope = o->one_rank ? sel->rank : -1;
    if (!o->built || !o->name || strcmp(o->name, sel->name) != 0 || scope != o->scope)
        oc_build(o, ctx, sel);
}

/* ------------------------------------------------------------ drawing */

static void oc_title(const calls_ooc *o, ui_ctx *ctx, rect a)
{
    strbuf b;
    sb_init(&b);
    if (o->scope < 0)
        sb_printf(&b, ", all ranks (%zu): ", o->nregs);
    else
        sb_printf(&b, ", rank %d only: ", o->scope);
    /* short: the title keeps "of N calls" at 80 columns (the header's
     * arrow shows the direction) */
    char order[64];
    bool natural = o->desc == oc_cols[o->sort_col].desc;
    if (o->sort_col == OC_DUR)
        snprintf(order, sizeof order, "%s", natural ? "slowest first" : "fastest first");
    else
        snprintf(order, sizeof order, "by %s%s", oc_cols[o->sort_col].title,
                 natural ? "" : ", inverted");
    if (o->n == 0 && o->nlost == 0)
        sb_puts(&b, "no calls recorded");
    else if (o->n == 0)
        sb_puts(&b, "no list out of core");
    else if ((uint64_t)o->n == o->total)
        sb_printf(&b, "%zu call%s, %s", o->n, o->n == 1 ? "" : "s", order);
    else
        sb_printf(&b, "the %zu slowest of %llu calls, %s", o->n, (unsigned long long)o->total,
                  order);
    int x = a.x + 1;
    x += grid_put_text(&ctx->grid, x, a.y, a.w - 1, "Calls of ", ROLE_HEADER, 0);
    int nw = grid_text_width(&ctx->grid, o->name);
    int room = a.x + a.w - x - grid_text_width(&ctx->grid, b.s ? b.s : "");
    x += grid_put_text_mid(&ctx->grid, x, a.y,
                           nw < room   ? nw
                           : room > 12 ? room
                                       : 12,
                           o->name, ROLE_HEADER, GA_BOLD);
    grid_put_text(&ctx->grid, x, a.y, a.x + a.w - x, b.s ? b.s : "", ROLE_HEADER, 0);
    sb_free(&b);
}

/* The regions' own statistics (the skeleton's: every call, not the ones
 * listed); the percentiles of one region once they are in. */
static void oc_stats(const calls_ooc *o, ui_ctx *ctx, rect a)
{
    char tot[32], mean[32], lo[32], hi[32], line[256];
    const region_stats *st = &o->agg;
    timefmt_ns(tot, sizeof tot, (double)st->total_ns);
    timefmt_ns(mean, sizeof mean, st->num_calls ? (double)st->total_ns / (double)st->num_calls : 0);
    timefmt_ns(lo, sizeof lo, (double)st->min_ns);
    timefmt_ns(hi, sizeof hi, (double)st->max_ns);
    int n = snprintf(line, sizeof line, "all calls: total %s  mean %s  min %s  max %s", tot, mean,
                     lo, hi);
    if (o->one && !ui_stats_pending(ctx) && n > 0 && (size_t)n < sizeof line) {
        char p50[32], p95[32];
        timefmt_ns(p50, sizeof p50, o->one->st.p50_ns);
        timefmt_ns(p95, sizeof p95, o->one->st.p95_ns);
        n += snprintf(line + n, sizeof line - (size_t)n, "  p50 %s  p95 %s", p50, p95);
    }
    grid_put_text(&ctx->grid, a.x + 1, a.y, a.w - 1, line, ROLE_DIM, 0);
}

/* Lines of text wrapped at spaces into a, at most a.h; the lines used. */
static int put_wrapped(grid *g, rect a, const char *t, int role)
{
    int w = a.w - 2, y = 0;
    while (*t && w > 0 && y < a.h) {
        size_t n = strlen(t), cut = n;
        if (text_display_width(t) > w) { /* the text is the product's: ASCII but for names */
            cut = (size_t)w < n ? (size_t)w : n;
            while (cut > 0 && t[cut] != ' ')
                cut--;
            cut = cut ? cut : (size_t)w < n ? (size_t)w : n;
        }
        grid_put_textn(g, a.x + 1, a.y + y++, w, t, cut, role, 0);
        t += cut;
        while (*t == ' ')
            t++;
    }
    return y;
}

static int oc_lost(const calls_ooc *o, ui_ctx *ctx, rect a)
{
    const slow_calls *sc = ctx->prof->slowest;
    const char *why = sc && sc->why[0] ? sc->why : "its calls were not swept";
    char line[400];
    if (o->nlost == 1)
        snprintf(line, sizeof line, "no list for rank %d out of core: %s", o->lost_rank, why);
    else
        snprintf(line, sizeof line, "no list for rank %d and %zu more out of core: %s",
                 o->lost_rank, o->nlost - 1, why);
    return put_wrapped(&ctx->grid, a, line, ROLE_WARNING);
}

static int col_x(int c)
{
    int x = 2;
    for (int k = 0; k < c; k++)
        x += oc_cols[k].width + 1;
    return x;
}

static void oc_cell(const calls_ooc *o, const ui_ctx *ctx, const oc_row *w, int c, char *buf,
                    size_t len)
{
    (void)o;
    switch (c) {
    case OC_DUR:
        timefmt_ns(buf, len, (double)slow_call_dur(w->c));
        break;
    case OC_EXCL:
        timefmt_ns(buf, len, (double)w->c->excl_ns);
        break;
    case OC_START:
        timefmt_ns(buf, len,
                   (double)(ctx->prof->has_min_start ? ck_sub(w->c->s, ctx->prof->min_start_ns)
                                                     : w->c->s));
        break;
    case OC_RANK:
        snprintf(buf, len, "%d", w->r->rank);
        break;
    default:
        snprintf(buf, len, "%llu", (unsigned long long)w->c->pos);
    }
}

static void oc_table(calls_ooc *o, ui_ctx *ctx, rect head, rect list)
{
    grid *g = &ctx->grid;
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    grid_fill(g, head, ' ', ROLE_HEADER, 0);
    for (int c = 0; c < OC_N && head.x + col_x(c) + oc_cols[c].width <= head.x + head.w; c++) {
        char t[32], arrow[4] = "";
        if (c == o->sort_col)
            arrow[utf8_encode(o->desc ? gl->sort_down : gl->sort_up, arrow)] = '\0';
        snprintf(t, sizeof t, "%s%s", arrow, oc_cols[c].title);
        calls_put_right(g, head.x + col_x(c), head.y, oc_cols[c].width, t, ROLE_HEADER,
                        c == o->sort_col ? GA_BOLD : 0);
    }
    size_t page = list.h > 0 ? (size_t)list.h : 1;
    if (o->cursor < o->top)
        o->top = o->cursor;
    if (o->cursor >= o->top + page)
        o->top = o->cursor - page + 1;
    for (int y = 0; y < list.h && o->top + (size_t)y < o->n; y++) {
        size_t j = o->top + (size_t)y;
        bool cur = j == o->cursor;
        int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
        if (cur) {
            grid_fill(g, (rect){list.x, list.y + y, list.w, 1}, ' ', role, 0);
            grid_put_cp(g, list.x, list.y + y, gl->marker, role, 0);
        }
        for (int c = 0; c < OC_N && col_x(c) + oc_cols[c].width <= list.w; c++) {
            char buf[48];
            oc_cell(o, ctx, &o->rows[j], c, buf, sizeof buf);
            calls_put_right(g, list.x + col_x(c), list.y + y, oc_cols[c].width, buf, role, 0);
        }
    }
}

/* The cursor call: what the sweep knew of it. */
static void oc_detail(const calls_ooc *o, ui_ctx *ctx, rect a)
{
    if (a.h < 1 || o->n == 0)
        return;
    const oc_row *w = &o->rows[o->cursor];
    char head[160], wall[32], ex[32], kids[32], line[200];
    snprintf(head, sizeof head, " call %llu on rank %d, of %lld recorded (counted from 0) ",
             (unsigned long long)w->c->pos, w->r->rank, (long long)w->r->st.num_calls);
    grid *g = &ctx->grid;
    const theme_glyphs *gl = theme_glyphs_get(g->ascii);
    for (int x = 0; x < a.w; x++)
        grid_put_cp(g, a.x + x, a.y, gl->hline, ROLE_DIM, 0);
    grid_put_text(g, a.x + 2, a.y, a.w - 2, head, ROLE_DIM, 0);
    if (a.h < 2)
        return;
    int64_t d = slow_call_dur(w->c);
    timefmt_ns(wall, sizeof wall, (double)d);
    timefmt_ns(ex, sizeof ex, (double)w->c->excl_ns);
    timefmt_ns(kids, sizeof kids, (double)ck_sub(d, w->c->excl_ns));
    snprintf(line, sizeof line, "wall %s = exclusive %s + children %s%s", wall, ex, kids,
             w->c->lane == SLOW_NO_LANE ? "  (left out of the timeline by the filter)"
                                        : "  (Enter: in the timeline)");
    grid_put_text(g, a.x + 1, a.y + 1, a.w - 1, line, ROLE_NORMAL, 0);
}

void calls_ooc_draw(calls_ooc *o, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    if (!ctx->prof->slowest) {
        char msg[512];
        ooc_view_text(ctx, msg, sizeof msg);
        grid_put_text(g, area.x + 1, area.y, area.w - 1, msg, ROLE_WARNING, 0);
        return;
    }
    oc_sync(o, ctx);
    if (!o->built) {
        calls_draw_unpicked(g, area);
        return;
    }
    if (o->err[0]) {
        grid_put_text(g, area.x + 1, area.y, area.w - 1, o->err, ROLE_WARNING, 0);
        return;
    }
    int y = area.y;
    oc_title(o, ctx, (rect){area.x, y++, area.w, 1});
    if (o->agg.num_calls && y < area.y + area.h)
        oc_stats(o, ctx, (rect){area.x, y++, area.w, 1});
    if (o->nlost && y < area.y + area.h)
        y += oc_lost(o, ctx, (rect){area.x, y, area.w, o->n ? 2 : 4});
    if (o->n == 0)
        return;
    int detail = area.h >= 12 ? 2 : 0;
    int list_h = area.y + area.h - y - 1 - detail;
    if (list_h < 1)
        return;
    oc_table(o, ctx, (rect){area.x, y, area.w, 1}, (rect){area.x, y + 1, area.w, list_h});
    oc_detail(o, ctx, (rect){area.x, y + 1 + list_h, area.w, detail});
}

/* ------------------------------------------------------------ keys */

static void oc_go(calls_ooc *o, ui_ctx *ctx)
{
    const oc_row *w = &o->rows[o->cursor];
    ui_ooc_goto g = {.rank = w->r->rank,
                     .region = w->reg,
                     .pos = w->c->pos,
                     .lane = w->c->lane,
                     .depth = w->c->depth,
                     .s = w->c->s,
                     .e = w->c->e};
    ui_ooc_go(ctx, &g);
}

/* The cursor on the call the slowest-call command chose. */
static void oc_follow_goto(calls_ooc *o, const ui_ctx *ctx)
{
    const ui_ooc_goto *g = &ctx->ooc_goto;
    for (size_t i = 0; g->on && i < o->n; i++)
        if (o->rows[i].r->rank == g->rank && o->rows[i].reg == g->region &&
            o->rows[i].c->pos == g->pos)
            o->cursor = i;
}

int calls_ooc_cmd(calls_ooc *o, ui_ctx *ctx, ui_cmd cmd)
{
    if (!ctx->prof->slowest)
        return 0;
    if (cmd == CMD_SLOWEST) {
        ui_select_slowest_on(ctx, o->one_rank && ctx->sel.region ? ctx->sel.region->rank : -1);
        oc_sync(o, ctx);
        oc_follow_goto(o, ctx);
        return VF_HANDLED | VF_REDRAW;
    }
    oc_sync(o, ctx);
    if (cmd == CMD_SCOPE) {
        o->one_rank = !o->one_rank;
        oc_sync(o, ctx);
        return VF_HANDLED | VF_REDRAW;
    }
    if (o->n == 0)
        return 0;
    size_t page = ctx->view_area.h > 8 ? (size_t)ctx->view_area.h - 7 : 1;
    switch (cmd) {
    case CMD_UP:
    case CMD_WHEEL_UP:
        o->cursor -= o->cursor > 0;
        break;
    case CMD_DOWN:
    case CMD_WHEEL_DOWN:
        o->cursor += o->cursor + 1 < o->n;
        break;
    case CMD_PGUP:
        o->cursor = o->cursor > page ? o->cursor - page : 0;
        break;
    case CMD_PGDN:
        o->cursor = o->cursor + page < o->n ? o->cursor + page : o->n - 1;
        break;
    case CMD_HOME:
        o->cursor = 0;
        break;
    case CMD_END:
        o->cursor = o->n - 1;
        break;
    case CMD_SORT_PREV:
    case CMD_SORT_NEXT:
        o->sort_col = (o->sort_col + (cmd == CMD_SORT_NEXT ? 1 : OC_N - 1)) % OC_N;
        o->desc = oc_cols[o->sort_col].desc;
        oc_sort(o);
        break;
    case CMD_SORT_INVERT:
        o->desc = !o->desc;
        oc_sort(o);
        break;
    case CMD_ENTER:
        oc_go(o, ctx);
        ui_open_view(ctx, VIEW_TIMELINE);
        break;
    default:
        return 0;
    }
    /* the other views follow the cursor's region (its call is not held) */
    if (cmd != CMD_ENTER && ctx->sel.region != o->rows[o->cursor].r)
        ui_select_region(ctx, (region *)o->rows[o->cursor].r);
    return VF_HANDLED | VF_REDRAW;
}
