/* lanes_view: one row per lane (rank, thread, task) with how busy it was.
 *
 * Busy is the union of the lane's top-level calls, awaited the time those
 * calls spent suspended, idle the rest of the profile's span (lanestats.h).
 * Rows are grouped by rank under a total row (sums over the rank's lanes;
 * its share is their mean), sorted inside each rank by any column, and the
 * header names the lane that waits most and the one idle most, so "which
 * thread or task waits most" is one key away.  Enter shows the lane in the
 * timeline (its longest top-level call selected). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes_ooc.h"
#include "model/lanestats.h"
#include "model/region.h"
#include "table.h"
#include "util/checked.h"
#include "util/strbuf.h"
#include "util/timefmt.h"
#include "ui/view.h"
#include "view/timeline/timeline.h"

enum lv_col {
    LC_LANE,
    LC_BUSY,
    LC_SHARE,
    LC_AWAIT,
    LC_IDLE,
    LC_CALLS,
    LC_LOAD,
    LC_BUSIEST,
    LC_FIRST,
    LC_LAST,
    /* From the thread and task tables (hidden when no rank has them): */
    LC_CPU,   /* a thread's CPU time */
    LC_STEPS, /* a task's steps */
    LC_RUN,   /* a task's running time */
    LC_SUSP,  /* a task's suspended time */
    LC_LIFE,  /* a thread's start to end, a task's creation to its end */
    LC_KIND,  /* daemon; a task's kind and coroutine */
    LC_COUNT
};

#define LV_SPARK 12      /* the load column's smallest width */
#define LV_SPARK_MAX 160 /* its widest: one slice per column */

static const table_col lv_cols[LC_COUNT] = {
    [LC_LANE] = {"Lane", 22, 0, true, false},      [LC_BUSY] = {"Busy", 9, 0, false, false},
    [LC_SHARE] = {"Share", 6, 0, false, false},    [LC_AWAIT] = {"Awaited", 9, 0, false, false},
    [LC_IDLE] = {"Idle", 9, 2, false, false},      [LC_CALLS] = {"Calls", 8, 3, false, false},
    [LC_LOAD] = {"Load", LV_SPARK, 1, true, true}, [LC_BUSIEST] = {"Busiest", 14, 4, true, false},
    [LC_FIRST] = {"First", 9, 5, false, false},    [LC_LAST] = {"Last", 9, 6, false, false},
    [LC_CPU] = {"CPU", 9, 7, false, false},        [LC_STEPS] = {"Steps", 6, 8, false, false},
    [LC_RUN] = {"Running", 9, 9, false, false},    [LC_SUSP] = {"Suspended", 9, 9, false, false},
    [LC_LIFE] = {"Lived", 19, 10, true, false},    [LC_KIND] = {"Kind", 14, 11, true, false},
};

/* A row: a rank total (lane == SIZE_MAX) or a lane. */
typedef struct lv_row {
    size_t rank; /* rank index */
    size_t lane;
} lv_row;

typedef struct lanes_state {
    lanes_index *ix;
    lanestats *ls;
    char error[512];
    lv_row *rows;
    size_t nrows;
    lane_stat *rank_tot; /* per rank index: sums over its lanes */
    size_t *rank_nl;     /* lanes per rank index */
    table tb;
    bool built;
    bool filtered;  /* built for f: only the regions matching the search */
    bool sort_auto; /* the sort is still the view's choice, not the user's */
    char filter_text[256];
    /* Out of core: the figures of the loading child's sweep. */
    bool is_ooc;
    lanes_ooc ooc;
} lanes_state;

/* ------------------------------------------------------------- model */

/* Column v of the lane's table row: a thread's (threads) or a task's, -1
 * when the lane has no such row or the table no such column. */
static int64_t table_val(const lane *ln, const int64_t *const *col, bool task)
{
    const rank_data *rk = ln->rk;
    size_t n = task ? rk->tasks.n : rk->threads.n;
    bool has = task ? rk->has_tasks : rk->has_threads;
    if (!has || !*col || ln->kind != (task ? LANE_TASK : LANE_THREAD) || ln->row < 0 ||
        (size_t)ln->row >= n)
        return -1;
    return (*col)[ln->row];
}

static int64_t lane_cpu(const lane *ln)
{
    return table_val(ln, (const int64_t *const *)&ln->rk->threads.cpu_ns, false);
}
static int64_t lane_steps(const lane *ln)
{
    return table_val(ln, (const int64_t *const *)&ln->rk->tasks.steps, true);
}
static int64_t lane_running(const lane *ln)
{
    return table_val(ln, (const int64_t *const *)&ln->rk->tasks.running_ns, true);
}
static int64_t lane_suspended(const lane *ln)
{
    return table_val(ln, (const int64_t *const *)&ln->rk->tasks.suspended_ns, true);
}

static double col_key(const lanes_state *s, const lane_stat *st, size_t col)
{
    switch (col) {
    case LC_BUSY:
    case LC_SHARE:
    case LC_LOAD:
        return (double)st->busy;
    case LC_AWAIT:
        return (double)st->awaited;
    case LC_IDLE:
        return (double)st->idle;
    case LC_CALLS:
        return (double)st->calls;
    case LC_FIRST:
        return (double)st->first;
    case LC_LAST:
        return (double)st->last;
    case LC_BUSIEST:
        return (double)st->busiest_excl;
    case LC_CPU:
        return (double)lane_cpu(&s->ix->lanes[st->lane]);
    case LC_STEPS:
        return (double)lane_steps(&s->ix->lanes[st->lane]);
    case LC_RUN:
        return (double)lane_running(&s->ix->lanes[st->lane]);
    case LC_SUSP:
        return (double)lane_suspended(&s->ix->lanes[st->lane]);
    default:
        return (double)st->lane;
    }
}

static int lane_cmp(const void *a, const void *b, void *user)
{
    const lanes_state *s = user;
    size_t la = *(const size_t *)a, lb = *(const size_t *)b;
    double ka = col_key(s, &s->ls->st[la], s->tb.sort_col);
    double kb = col_key(s, &s->ls->st[lb], s->tb.sort_col);
    if (s->tb.sort_col == LC_LANE)
        ka = (double)la, kb = (double)lb;
    int c = ka < kb ? -1 : ka > kb ? 1 : 0;
    if (s->tb.sort_desc)
        c = -c;
    return c ? c : (la < lb ? -1 : la > lb);
}

static void lv_flatten(lanes_state *s)
{
    size_t *order = malloc((s->ix->nlanes ? s->ix->nlanes : 1) * sizeof *order);
    if (!order)
        return;
    size_t n = 0;
    for (size_t k = 0; k < s->ix->prof->nranks; k++) {
        size_t a = s->ix->rank_lane0[k], z = s->ix->rank_lane0[k + 1];
        if (a == z)
            continue;
        s->rows[n++] = (lv_row){k, SIZE_MAX};
        for (size_t l = a; l < z; l++)
            order[l - a] = l;
        qsort_r(order, z - a, sizeof *order, lane_cmp, s);
        for (size_t l = 0; l < z - a; l++)
            s->rows[n++] = (lv_row){k, order[l]};
    }
    free(order);
    s->nrows = n;
    table_set_rows(&s->tb, n);
}

static bool lv_totals(lanes_state *s, sv_error *err)
{
    for (size_t k = 0; k < s->ix->prof->nranks; k++)
        s->rank_nl[k] = s->ix->rank_lane0[k + 1] - s->ix->rank_lane0[k];
    if (s->is_ooc)
        return lanes_ooc_totals(&s->ooc, s->ix, s->ls, s->rank_tot, err) == SV_OK;
    for (size_t k = 0; k < s->ix->prof->nranks; k++)
        if (lanestats_rank(s->ls, k, &s->rank_tot[k], err) != SV_OK)
            return false;
    return true;
}

/* The table columns show only when some rank has the table. */
static void lv_hide_columns(lanes_state *s)
{
    bool threads = false, tasks = false;
    for (size_t k = 0; k < s->ix->prof->nranks; k++) {
        threads |= s->ix->prof->ranks[k].has_threads;
        tasks |= s->ix->prof->ranks[k].has_tasks;
    }
    /* Out of core the load needs the slices. */
    unsigned ooc = s->is_ooc && !(s->ooc.figs && s->ooc.figs->bins) ? 1u << LC_LOAD : 0;
    s->tb.hidden = ooc | (threads ? 0 : 1u << LC_CPU) |
                   (tasks ? 0 : (1u << LC_STEPS) | (1u << LC_RUN) | (1u << LC_SUSP)) |
                   (threads || tasks ? 0 : (1u << LC_LIFE) | (1u << LC_KIND));
}

/* Awaited first, the question this view answers; but where no lane
 * awaited anything (MPI files without asyncio: every value "-"), the
 * first column that has values, Busy. */
static void lv_default_sort(lanes_state *s)
{
    if (!s->sort_auto)
        return;
    bool any = false;
    for (size_t l = 0; l < s->ls->n && !any; l++)
        any = s->ls->st[l].awaited > 0;
    s->tb.sort_col = any ? LC_AWAIT : LC_BUSY;
    s->tb.sort_desc = true;
}

static bool lv_keep(const region *r, void *user)
{
    return ui_search_match(user, r->name);
}

static void lv_release(lanes_state *s)
{
    lanestats_free(s->ls);
    lanes_free(s->ix);
    lanes_ooc_free(&s->ooc);
    free(s->rows);
    free(s->rank_tot);
    free(s->rank_nl);
    s->ls = NULL;
    s->ix = NULL;
    s->rows = NULL;
    s->rank_tot = NULL;
    s->rank_nl = NULL;
    s->nrows = 0;
    s->error[0] = '\0';
}

/* Measured once, and again when f (the filter on the search) changes: then
 * only the matching regions' calls count. */
static void lv_build(lanes_state *s, ui_ctx *ctx)
{
    s->is_ooc = ctx->opt && ctx->opt->ooc;
    bool want = ctx->filter_on && ctx->has_search && !s->is_ooc; /* f is not offered out of core */
    bool same = want == s->filtered && (!want || strcmp(s->filter_text, ctx->search_text) == 0);
    if ((s->built && same) || ui_calls_pending(ctx)) /* built once the nesting is there */
        return;
    lv_release(s);
    s->built = true;
    s->filtered = want;
    snprintf(s->filter_text, sizeof s->filter_text, "%s", want ? ctx->search_text : "");
    sv_error err;
    sv_error_clear(&err);
    /* Unfiltered, the index is the timeline's (the same build: every call
     * passing the command line's filter), borrowed rather than built twice. */
    if (!s->is_ooc && !want)
        s->ix = timeline_shared_index(ctx);
    if (s->is_ooc
            ? lanes_ooc_build(ctx->opt->ooc, ctx->prof, &s->ix, &s->ls, &s->ooc, &err) != SV_OK
            : (!s->ix && lanes_build_where(ctx->prof, ctx->opt ? ctx->opt->filter : NULL,
                                           want ? lv_keep : NULL, ctx, &s->ix, &err) != SV_OK) ||
                  lanestats_build(s->ix, &s->ls, &err) != SV_OK) {
        snprintf(s->error, sizeof s->error, "%s", err.msg);
        return;
    }
    size_t nr = ctx->prof->nranks ? ctx->prof->nranks : 1;
    s->rows = calloc(s->ix->nlanes + nr, sizeof *s->rows);
    s->rank_tot = calloc(nr, sizeof *s->rank_tot);
    s->rank_nl = calloc(nr, sizeof *s->rank_nl);
    if (!s->rows || !s->rank_tot || !s->rank_nl) {
        snprintf(s->error, sizeof s->error, "out of memory while measuring the lanes");
        return;
    }
    if (!lv_totals(s, &err)) {
        snprintf(s->error, sizeof s->error, "%s", err.msg);
        return;
    }
    lv_default_sort(s);
    lv_flatten(s);
    lv_hide_columns(s);
}

/* ------------------------------------------------------------- drawing */

/* The lane's name, whole: the table cuts it by display width when drawn. */
static void lane_label(const lane *ln, strbuf *b)
{
    char nb[48];
    const char *name = ln->kind == LANE_TASK     ? rank_task_name(ln->rk, ln->row, nb, sizeof nb)
                       : ln->kind == LANE_THREAD ? rank_thread_name(ln->rk, ln->row, nb, sizeof nb)
                       : ln->kind == LANE_RANK   ? "(one lane)"
                                                 : NULL;
    if (name)
        sb_printf(b, "  %s%s", ln->kind == LANE_TASK ? "task " : "", name);
    else
        sb_printf(b, "  lane %lld (inferred)", (long long)ln->row + 1);
}

/* The label in at most len bytes, cut at a character boundary with a mark
 * (the header line is cut by display width again when drawn). */
static void lane_label_cut(const lane *ln, char *buf, size_t len)
{
    strbuf b;
    sb_init(&b);
    lane_label(ln, &b);
    const char *s = b.s ? b.s : "";
    size_t n = strlen(s);
    if (n < len) {
        memcpy(buf, s, n + 1);
    } else {
        size_t k = len > 4 ? len - 4 : 0; /* room for "…" and the NUL */
        while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
            k--; /* not inside a UTF-8 sequence */
        memcpy(buf, s, k);
        snprintf(buf + k, len - k, "%s", "\xe2\x80\xa6");
    }
    sb_free(&b);
}

static void lv_rank_label(const lanes_state *s, size_t rank, char *buf, size_t len)
{
    size_t nl = s->rank_nl[rank];
    snprintf(buf, len, "r%d: %zu lane%s", s->ix->prof->ranks[rank].rank, nl, nl == 1 ? "" : "s");
}

static void fmt_time(char *buf, size_t len, int64_t ns)
{
    timefmt_ns(buf, len, (double)ns);
}

static void spark(const lanes_state *s, const ui_ctx *ctx, size_t l, char *buf, size_t len)
{
    static const char *const blocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char ascii[] = " .:-=+*#@";
    /* One slice per column the load column has (it takes the spare width). */
    int nb = s->tb.w[LC_LOAD];
    nb = nb < 1 ? 1 : nb > LV_SPARK_MAX ? LV_SPARK_MAX : nb;
    double u[LV_SPARK_MAX];
    if (s->is_ooc) /* whole slices of the sweep's: as many as divide them */
        nb = lane_figs_slices(s->ooc.figs, l, nb, u);
    else
        lanestats_spark(s->ls, l, s->ls->t0,
                        s->ls->t1 > s->ls->t0 ? s->ls->t1 : ck_add(s->ls->t0, 1), nb, u);
    size_t n = 0;
    buf[0] = '\0';
    for (int b = 0; b < nb; b++) {
        int lv = (int)(u[b] * 8.0 + 0.5);
        lv = lv < 0 ? 0 : lv > 8 ? 8 : lv;
        if (u[b] > 0 && lv == 0)
            lv = 1; /* some work in the slice: never drawn as nothing */
        int w = ctx->grid.ascii ? snprintf(buf + n, len - n, "%c", ascii[lv])
                                : snprintf(buf + n, len - n, "%s", blocks[lv]);
        if (w < 0 || (size_t)w >= len - n)
            break;
        n += (size_t)w;
    }
}

/* flag: out of core, what the figures lack (lanes_ooc.h: LO_*). */
static void lv_draw_cells(const lanes_state *s, ui_ctx *ctx, const lane_stat *st, size_t nl,
                          size_t li, int y, int role, unsigned flag)
{
    grid *g = &ctx->grid;
    char b[64];
    if (flag & LO_NOFIG) { /* a rank the sweep did not do: the legend says why */
        table_put(&s->tb, g, LC_BUSY, y, "n/a", role == ROLE_SELECTED ? role : ROLE_DIM, 0);
        return;
    }
    double span = ck_diff_f64(s->ls->t1, s->ls->t0);
    int64_t zero = ctx->prof->has_min_start ? ctx->prof->min_start_ns : 0;
    fmt_time(b, sizeof b, st->busy);
    table_put(&s->tb, g, LC_BUSY, y, b, role, 0);
    double share = span > 0 && nl ? (double)st->busy / (span * (double)nl) : 0.0;
    snprintf(b, sizeof b, "%.0f%%", share * 100.0);
    table_put(&s->tb, g, LC_SHARE, y, b, role, 0);
    fmt_time(b, sizeof b, st->awaited);
    table_put(&s->tb, g, LC_AWAIT, y, st->awaited ? b : "-",
              st->awaited || role == ROLE_SELECTED ? role : ROLE_DIM, 0);
    timefmt_ns(b, sizeof b, (double)st->idle);
    table_put(&s->tb, g, LC_IDLE, y, flag & LO_IDLE_UNKNOWN ? "?" : b, role, 0);
    snprintf(b, sizeof b, "%zu", st->calls);
    table_put(&s->tb, g, LC_CALLS, y, b, role, 0);
    if (li != SIZE_MAX) {
        char sp[LV_SPARK_MAX * 4 + 1];
        spark(s, ctx, li, sp, sizeof sp);
        table_put(&s->tb, g, LC_LOAD, y, sp, role == ROLE_SELECTED ? role : ROLE_DENSE, 0);
    }
    table_put(&s->tb, g, LC_BUSIEST, y, st->busiest ? st->busiest->name : "-",
              role == ROLE_SELECTED || !st->busiest ? role : theme_region_role(st->busiest->name),
              0);
    if (st->calls) {
        timefmt_ns(b, sizeof b, ck_diff_f64(st->first, zero));
        table_put(&s->tb, g, LC_FIRST, y, b, role, 0);
        timefmt_ns(b, sizeof b, ck_diff_f64(st->last, zero));
        table_put(&s->tb, g, LC_LAST, y, b, role, 0);
    }
}

/* "a to b" from the timeline's zero; "unfinished" / "running" when the table says -1. */
static void life_text(char *buf, size_t len, int64_t a, int64_t z, int64_t zero, bool task)
{
    char x[32], w[32];
    fmt_time(x, sizeof x, a - zero);
    if (z < 0)
        snprintf(buf, len, "%s to %s", x, task ? "unfinished" : "running");
    else {
        fmt_time(w, sizeof w, z - zero);
        snprintf(buf, len, "%s to %s", x, w);
    }
}

/* The lane's own row of its thread or task table. */
static void lv_draw_table_cells(const lanes_state *s, ui_ctx *ctx, const lane *ln, int y, int role)
{
    grid *g = &ctx->grid;
    const rank_data *rk = ln->rk;
    int64_t zero = ctx->prof->has_min_start ? ctx->prof->min_start_ns : 0;
    char b[96];
    int64_t v;
    if ((v = lane_cpu(ln)) >= 0) {
        fmt_time(b, sizeof b, v);
        table_put(&s->tb, g, LC_CPU, y, b, role, 0);
    }
    if ((v = lane_steps(ln)) >= 0) {
        snprintf(b, sizeof b, "%lld", (long long)v);
        table_put(&s->tb, g, LC_STEPS, y, b, role, 0);
    }
    if ((v = lane_running(ln)) >= 0) {
        fmt_time(b, sizeof b, v);
        table_put(&s->tb, g, LC_RUN, y, b, role, 0);
    }
    if ((v = lane_suspended(ln)) >= 0) {
        fmt_time(b, sizeof b, v);
        table_put(&s->tb, g, LC_SUSP, y, b, role, 0);
    }
    bool task = ln->kind == LANE_TASK;
    const int64_t *a = task ? rk->tasks.created_ns : rk->threads.start_ns;
    const int64_t *z = task ? rk->tasks.done_ns : rk->threads.end_ns;
    int64_t ia = table_val(ln, &a, task);
    if (a && z && ia >= 0) {
        life_text(b, sizeof b, ia, table_val(ln, &z, task), zero, task);
        table_put(&s->tb, g, LC_LIFE, y, b, role, 0);
    }
    /* A kind and a coroutine name are the file's: table_put cuts them by display width. */
    strbuf k;
    sb_init(&k);
    if (task && rk->has_tasks && ln->row >= 0 && (size_t)ln->row < rk->tasks.n) {
        if (rk->tasks.kind && rk->tasks.kind[ln->row])
            sb_puts(&k, rk->tasks.kind[ln->row]);
        if (rk->tasks.coro_name && rk->tasks.coro_name[ln->row])
            sb_printf(&k, "%s%s", k.len ? " " : "", rk->tasks.coro_name[ln->row]);
    } else if (!task && rk->has_threads && rk->threads.daemon && ln->kind == LANE_THREAD &&
               ln->row >= 0 && (size_t)ln->row < rk->threads.n) {
        sb_puts(&k, rk->threads.daemon[ln->row] ? "daemon" : "thread");
    }
    if (k.s && k.len)
        table_put(&s->tb, g, LC_KIND, y, k.s, role, 0);
    sb_free(&k);
}

static void lv_draw_row(const lanes_state *s, ui_ctx *ctx, size_t r, int y)
{
    const lv_row *row = &s->rows[r];
    bool cur = r == s->tb.cursor;
    int role = cur ? ROLE_SELECTED : ROLE_NORMAL;
    if (cur)
        table_draw_cursor(&s->tb, &ctx->grid, y);
    char b[160];
    if (row->lane == SIZE_MAX) {
        size_t nl = s->rank_nl[row->rank];
        lv_rank_label(s, row->rank, b, sizeof b);
        table_put(&s->tb, &ctx->grid, LC_LANE, y, b, cur ? role : ROLE_HEADER, 0);
        lv_draw_cells(s, ctx, &s->rank_tot[row->rank], nl, SIZE_MAX, y, role,
                      s->is_ooc ? s->ooc.rflag[row->rank] : 0);
        return;
    }
    strbuf lb;
    sb_init(&lb);
    lane_label(&s->ix->lanes[row->lane], &lb);
    table_put(&s->tb, &ctx->grid, LC_LANE, y, lb.s ? lb.s : "", role, 0);
    sb_free(&lb);
    lv_draw_cells(s, ctx, &s->ls->st[row->lane], 1, row->lane, y, role,
                  s->is_ooc ? s->ooc.flag[row->lane] : 0);
    lv_draw_table_cells(s, ctx, &s->ix->lanes[row->lane], y, role);
}

/* The lane that waits most (awaited), or the thread idle most (idle time
 * of a task only says how short it lived). */
static size_t lv_top(const lanes_state *s, bool awaited)
{
    size_t best = SIZE_MAX;
    for (size_t l = 0; l < s->ls->n; l++) {
        if (!awaited && s->ix->lanes[l].kind == LANE_TASK)
            continue;
        double v = awaited ? (double)s->ls->st[l].awaited : (double)s->ls->st[l].idle;
        double bv = best == SIZE_MAX ? 0
                    : awaited        ? (double)s->ls->st[best].awaited
                                     : (double)s->ls->st[best].idle;
        if (v > bv)
            best = l;
    }
    return best;
}

/* One answer of the header: "  waits most: r0 task Task-7 2.550 ms", or
 * briefly "  waits: r0 Task-7 2.550 ms". */
typedef struct lv_answer {
    const char *label, *brief; /* the wording, and its short form for narrow screens */
    char rank[16];
    char name[144];   /* "task Task-7" */
    const char *bare; /* the name without "task " */
    char value[32];
    int name_w; /* the columns its name gets */
} lv_answer;

enum { LV_NAME_MIN = 10 }; /* a cut name narrower than this tells nothing */

static bool lv_answer_of(const lanes_state *s, size_t l, bool awaited, lv_answer *an)
{
    if (l == SIZE_MAX)
        return false;
    char nb[144];
    const lane *ln = &s->ix->lanes[l];
    lane_label_cut(ln, nb, sizeof nb);
    snprintf(an->rank, sizeof an->rank, "r%d ", ln->rk->rank);
    snprintf(an->name, sizeof an->name, "%s", nb + 2);
    an->bare = an->name + (ln->kind == LANE_TASK ? strlen("task ") : 0);
    timefmt_ns(an->value, sizeof an->value,
               awaited ? (double)s->ls->st[l].awaited : (double)s->ls->st[l].idle);
    an->label = awaited ? "waits most:" : "idlest thread:";
    an->brief = awaited ? "waits:" : "idlest thread:"; /* a task may idle longer */
    return true;
}

static const char *lv_answer_name(const lv_answer *an, bool brief)
{
    return brief ? an->bare : an->name;
}

/* The columns answer an takes with its name name_w wide. */
static int lv_answer_width(const grid *g, const lv_answer *an, bool brief)
{
    return 2 + grid_text_width(g, brief ? an->brief : an->label) + 1 +
           grid_text_width(g, an->rank) + an->name_w + 1 + grid_text_width(g, an->value);
}

static int lv_answers_width(const grid *g, lv_answer *an, size_t n, bool brief)
{
    int w = 0;
    for (size_t k = 0; k < n; k++) {
        an[k].name_w = grid_text_width(g, lv_answer_name(&an[k], brief));
        w += lv_answer_width(g, &an[k], brief);
    }
    return w;
}

/* Fits the answers into room columns (in their short wording when brief):
 * the names cut in the middle (the last one first, to LV_NAME_MIN), then
 * the last answer left out rather than shown as a fragment.  Returns how
 * many stay. */
static size_t lv_fit_answers(const grid *g, lv_answer *an, size_t n, int room, bool brief)
{
    for (; n > 0; n--) {
        int excess = lv_answers_width(g, an, n, brief) - room;
        for (size_t k = n; k-- > 0 && excess > 0;) {
            int cut = an[k].name_w - LV_NAME_MIN < excess ? an[k].name_w - LV_NAME_MIN : excess;
            if (cut > 0) {
                an[k].name_w -= cut;
                excess -= cut;
            }
        }
        if (excess <= 0)
            break;
    }
    return n;
}

/* The header answers which lane waits most and which thread idles most,
 * each with its distinguishing tail and its value, or not at all. */
static void lv_draw_info(const lanes_state *s, ui_ctx *ctx, rect area)
{
    grid *g = &ctx->grid;
    char head[160], a[32], f[96] = "";
    timefmt_ns(a, sizeof a, ck_diff_f64(s->ls->t1, s->ls->t0));
    if (s->filtered)
        snprintf(f, sizeof f, " (filter /%.60s/)", s->filter_text);
    lv_answer an[2];
    size_t n = 0;
    n += lv_answer_of(s, lv_top(s, true), true, &an[n]);
    n += lv_answer_of(s, lv_top(s, false), false, &an[n]);
    snprintf(head, sizeof head, " %zu lane%s%s over %s", s->ls->n, s->ls->n == 1 ? "" : "s", f, a);
    bool brief = lv_answers_width(g, an, n, false) > area.w - grid_text_width(g, head);
    if (brief)
        snprintf(head, sizeof head, " %zu lane%s%s, %s", s->ls->n, s->ls->n == 1 ? "" : "s", f, a);
    n = lv_fit_answers(g, an, n, area.w - grid_text_width(g, head), brief);
    grid_fill(g, (rect){area.x, area.y, area.w, 1}, ' ', ROLE_NORMAL, 0);
    int x = area.x, end = area.x + area.w;
    x += grid_put_text(g, x, area.y, end - x, head, ROLE_NORMAL, GA_BOLD);
    for (size_t k = 0; k < n; k++) {
        char lb[64];
        snprintf(lb, sizeof lb, "  %s %s", brief ? an[k].brief : an[k].label, an[k].rank);
        x += grid_put_text(g, x, area.y, end - x, lb, ROLE_NORMAL, GA_BOLD);
        x += grid_put_text_mid(g, x, area.y, an[k].name_w, lv_answer_name(&an[k], brief),
                               ROLE_NORMAL, GA_BOLD);
        snprintf(lb, sizeof lb, " %s", an[k].value);
        x += grid_put_text(g, x, area.y, end - x, lb, ROLE_NORMAL, GA_BOLD);
    }
}

static void lv_wants(lanes_state *s, const grid *g)
{
    int lw = 0, bw = 0;
    for (size_t r = 0; r < s->nrows; r++) {
        char b[160];
        const lv_row *row = &s->rows[r];
        const lane_stat *st =
            row->lane == SIZE_MAX ? &s->rank_tot[row->rank] : &s->ls->st[row->lane];
        if (row->lane == SIZE_MAX)
            lv_rank_label(s, row->rank, b, sizeof b);
        else
            lane_label_cut(&s->ix->lanes[row->lane], b, sizeof b);
        int w = grid_text_width(g, b);
        lw = w > lw ? w : lw;
        w = st->busiest ? grid_text_width(g, st->busiest->name) : 1;
        bw = w > bw ? w : bw;
    }
    table_want(&s->tb, LC_LANE, lw);
    table_want(&s->tb, LC_BUSIEST, bw);
}

/* Out of core, what the figures leave out and why (ASCII text; empty
 * when nothing). */
static void lv_ooc_note(const lanes_state *s, char *buf, size_t len)
{
    const lane_figs *f = s->ooc.figs;
    char it[1024] = "";
    size_t n = 0, cap = sizeof it;
    if (!f->bins)
        n += (size_t)snprintf(it + n, cap - n, "; no Load column: %s", f->spark_why);
    if (n < cap && s->ooc.nofig)
        n += (size_t)snprintf(it + n, cap - n, "; n/a: %zu lane%s without figures: %s",
                              s->ooc.nofig, s->ooc.nofig == 1 ? "" : "s", f->lost_why);
    if (n < cap && s->ooc.noidle)
        n += (size_t)snprintf(it + n, cap - n,
                              "; Idle ?: %zu task lane%s busy outside its lifetime, whose idle "
                              "time the sweep does not measure",
                              s->ooc.noidle, s->ooc.noidle == 1 ? "" : "s");
    if (n < cap && !f->busiest_ok)
        n += (size_t)snprintf(it + n, cap - n, "; no Busiest: %s", f->busiest_why);
    buf[0] = '\0';
    if (n >= 2) /* "Out of core: " in place of the first "; " */
        snprintf(buf, len, "Out of core: %.*s", (int)(len > 16 ? len - 16 : 0), it + 2);
}

/* Text wrapped at spaces into at most max lines of w columns from (x, y),
 * drawn when draw (else only counted): the lines it takes. */
static int lv_wrap(grid *g, int x, int y, int w, int max, const char *t, bool draw)
{
    int k = 0;
    for (; *t && w > 0 && k < max; k++) {
        size_t n = strlen(t), cut = n;
        if ((int)n > w) {
            cut = (size_t)w;
            while (cut > 0 && t[cut] != ' ')
                cut--;
            cut = cut ? cut : (size_t)w;
        }
        if (draw)
            grid_put_textn(g, x, y + k, w, t, cut, ROLE_DIM, 0);
        t += cut;
        while (*t == ' ')
            t++;
    }
    return k;
}

static void lv_draw(void *state, ui_ctx *ctx, rect area)
{
    lanes_state *s = state;
    if (!s || area.h < 3 || area.w < 10)
        return;
    lv_build(s, ctx);
    grid *g = &ctx->grid;
    grid_fill(g, area, ' ', ROLE_NORMAL, 0);
    if (s->error[0] || !s->ls || s->ls->n == 0) {
        grid_put_text(g, area.x + 1, area.y + 1, area.w - 2,
                      s->error[0]   ? s->error
                      : !s->built   ? ui_computing_text(ctx)
                      : s->filtered ? "No call matches the filter (f shows every lane)"
                                    : "No calls with event data: no lanes",
                      ROLE_WARNING, 0);
        return;
    }
    lv_draw_info(s, ctx, area);
    /* The legend: one line when it fits, else two shorter ones. */
    static const char legend[] = "Busy: union of top-level calls; Share: of the span; Load: busy "
                                 "share over time; rank rows: busy and busiest summed over the "
                                 "lanes, share their mean, idle while every lane is idle";
    static const char legend1[] = "Busy: union of top-level calls; Share: of the span; Load: "
                                  "busy over time";
    static const char legend2[] = "Rank rows: busy, busiest summed over lanes; share: their mean; "
                                  "idle: all idle";
    int nnote = area.h <= 6 ? 0 : grid_text_width(g, legend) <= area.w - 2 || area.h <= 10 ? 1 : 2;
    char oocn[1024] = "";
    if (s->is_ooc)
        lv_ooc_note(s, oocn, sizeof oocn);
    int nooc =
        oocn[0] && area.h > 6 ? lv_wrap(g, 0, 0, area.w - 2, area.h > 10 ? 4 : 1, oocn, false) : 0;
    rect body = {area.x, area.y + 1, area.w, area.h - 1 - nnote - nooc};
    lv_wants(s, g);
    table_layout(&s->tb, g, body);
    table_scroll(&s->tb);
    table_draw_header(&s->tb, g, body.y);
    for (size_t r = s->tb.top; r < s->nrows; r++) {
        int y = table_row_y(&s->tb, r);
        if (y < 0)
            break;
        lv_draw_row(s, ctx, r, y);
    }
    int y = area.y + area.h - nnote;
    lv_wrap(g, area.x + 1, y - nooc, area.w - 2, nooc, oocn, true);
    if (nnote == 1)
        grid_put_text(g, area.x + 1, y, area.w - 2,
                      grid_text_width(g, legend) <= area.w - 2 ? legend : legend1, ROLE_DIM, 0);
    else if (nnote == 2) {
        grid_put_text(g, area.x + 1, y, area.w - 2, legend1, ROLE_DIM, 0);
        grid_put_text(g, area.x + 1, y + 1, area.w - 2, legend2, ROLE_DIM, 0);
    }
}

/* ------------------------------------------------------------- commands */

/* Selects the lane's longest top-level call and shows it in the timeline. */
static int lv_enter(lanes_state *s, ui_ctx *ctx)
{
    if (s->tb.cursor >= s->nrows)
        return VF_HANDLED;
    const lv_row *row = &s->rows[s->tb.cursor];
    size_t l = row->lane;
    if (l == SIZE_MAX) /* a rank row: its first lane */
        l = s->ix->rank_lane0[row->rank];
    const lane *ln = &s->ix->lanes[l];
    if (s->is_ooc) { /* the call is read with the timeline's window */
        const lanefig *x = l < s->ooc.figs->n ? &s->ooc.figs->v[l] : NULL;
        if (!x || !x->has || x->long_s > x->long_e) {
            ui_set_status(ctx, "No top-level call known on this lane out of core");
            return VF_HANDLED | VF_REDRAW;
        }
        size_t ml = ooc_map_find_lane(&ctx->opt->ooc->map, x->rank_index, x->kind, x->row);
        if (ml == SIZE_MAX || x->rank_index >= ctx->prof->nranks)
            return VF_HANDLED;
        ui_ooc_goto g = {.rank = ctx->prof->ranks[x->rank_index].rank,
                         .region = UI_GOTO_ANY_REGION,
                         .lane = ml,
                         .s = x->long_s,
                         .e = x->long_e,
                         .whole = true,
                         .what = "The lane's longest call"};
        ui_ooc_go(ctx, &g);
        ui_open_view(ctx, VIEW_TIMELINE);
        return VF_HANDLED | VF_REDRAW;
    }
    if (ln->ndepth == 0 || ln->rows[0].n == 0)
        return VF_HANDLED;
    uint32_t best = lane_row_call(&ln->rows[0], 0);
    int64_t bd = -1;
    for (size_t k = 0; k < ln->rows[0].n; k++) {
        int64_t st, e;
        lanes_call_span(ln->rk, lane_row_call(&ln->rows[0], k), &st, &e);
        if (e - st > bd) {
            bd = e - st;
            best = lane_row_call(&ln->rows[0], k);
        }
    }
    ui_select_call(ctx, ln->rk->rank, best);
    ui_open_view(ctx, VIEW_TIMELINE);
    return VF_HANDLED | VF_REDRAW;
}

static int lv_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    lanes_state *s = state;
    if (!s)
        return 0;
    lv_build(s, ctx);
    if (s->error[0] || !s->ls)
        return 0;
    if (cmd == CMD_ENTER)
        return lv_enter(s, ctx);
    enum table_result r = table_on_cmd(&s->tb, cmd, ctx->mouse_x, ctx->mouse_y);
    if (r == TABLE_IGNORED)
        return 0;
    if (r == TABLE_SORTED) {
        s->sort_auto = false;
        lv_row keep = s->tb.cursor < s->nrows ? s->rows[s->tb.cursor] : (lv_row){0, SIZE_MAX};
        lv_flatten(s);
        for (size_t k = 0; k < s->nrows; k++)
            if (s->rows[k].rank == keep.rank && s->rows[k].lane == keep.lane)
                table_goto(&s->tb, k);
    }
    return VF_HANDLED | VF_REDRAW;
}

/* ------------------------------------------------------------- lifetime */

static void *lv_create(ui_ctx *ctx)
{
    (void)ctx;
    lanes_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* Awaited first: the question this view answers. */
    table_init(&s->tb, lv_cols, LC_COUNT, LC_AWAIT, true);
    s->sort_auto = true;
    return s; /* measured on first use */
}

static void lv_destroy(void *state)
{
    lanes_state *s = state;
    if (!s)
        return;
    lv_release(s);
    free(s);
}

const view_ops lanes_view = {
    .name = "lanes",
    .create = lv_create,
    .destroy = lv_destroy,
    .draw = lv_draw,
    .on_cmd = lv_cmd,
    .on_resize = NULL,
};
