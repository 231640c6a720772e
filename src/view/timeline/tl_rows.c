/* tl_rows: which rows the timeline shows, in which order.
 *
 * A row is one depth row of a lane, or the row of a thread's task group:
 * with T on (the default when the lanes would not fit the screen), the
 * tasks a thread ran are grouped under it, one summary row per thread
 * (how many of its tasks were running), their own rows when the group is
 * open: the first screen opens the groups as far as their lanes fit and
 * says how many tasks stay folded; Enter or e on a group shows them all.  H hides the lanes with no
 * call in the visible time range; < > order the lanes of each rank by busy time. The rows are
 * rebuilt after each such change (and, with H, after each move of the time window), keeping the
 * cursor on the same lane. */
#include <stdlib.h>
#include <string.h>

#include "model/region.h"
#include "tl_state.h"
#include "tl_window.h"

/* ------------------------------------------------------------ groups */

/* The thread that ran task lane l: the thread of its first call. */
static int64_t task_thread(const lane *ln)
{
    if (ln->ndepth == 0 || ln->rows[0].n == 0)
        return -1;
    size_t i = 0;
    const region *r = rank_call_region(ln->rk, lane_row_call(&ln->rows[0], 0), &i);
    return r && r->thread_ids ? r->thread_ids[i] : -1;
}

static size_t find_group(const tl_state *s, size_t rank_index, int64_t tid)
{
    for (size_t g = 0; g < s->ngroups; g++)
        if (s->groups[g].rank_index == rank_index && s->groups[g].thread == tid)
            return g;
    return SIZE_MAX;
}

void tl_groups_free(tl_state *s)
{
    for (size_t g = 0; g < s->ngroups; g++)
        free(s->groups[g].tasks);
    free(s->groups);
    free(s->group_of);
    free(s->drows);
    free(s->first_row);
    s->groups = NULL;
    s->group_of = NULL;
    s->drows = NULL;
    s->first_row = NULL;
    s->ngroups = 0;
    s->ndrows = s->drows_cap = 0;
}

static bool group_add(tl_state *s, size_t k, int64_t tid, size_t l)
{
    size_t g = find_group(s, k, tid);
    if (g == SIZE_MAX) {
        tl_group *v = realloc(s->groups, (s->ngroups + 1) * sizeof *v);
        if (!v)
            return false;
        s->groups = v;
        g = s->ngroups++;
        s->groups[g] =
            (tl_group){k, tid, lanes_find_lane(s->ix, k, LANE_THREAD, tid), NULL, 0, false, 0};
    }
    tl_group *gr = &s->groups[g];
    size_t *t = realloc(gr->tasks, (gr->ntasks + 1) * sizeof *t);
    if (!t)
        return false;
    gr->tasks = t;
    gr->tasks[gr->ntasks++] = l;
    s->group_of[l] = g;
    return true;
}

/* Groups every task lane under the thread of its first call. */
bool tl_groups_build(tl_state *s)
{
    size_t n = s->ix ? s->ix->nlanes : 0;
    s->group_of = malloc((n ? n : 1) * sizeof *s->group_of);
    s->first_row = malloc((n ? n : 1) * sizeof *s->first_row);
    if (!s->group_of || !s->first_row)
        return false;
    for (size_t l = 0; l < n; l++)
        s->group_of[l] = SIZE_MAX;
    for (size_t k = 0; s->ix && k < s->ix->prof->nranks; k++)
        for (size_t l = s->ix->rank_lane0[k]; l < s->ix->rank_lane0[k + 1]; l++) {
            const lane *ln = &s->ix->lanes[l];
            if (ln->kind == LANE_TASK && !group_add(s, k, task_thread(ln), l))
                return false;
        }
    return true;
}

/* ------------------------------------------------------------ order */

static int64_t lane_busy_total(tl_state *s, size_t l)
{
    if (s->win) /* out of core: the whole profile's, from the map (tl_window.h) */
        return tl_window_lane_busy(s, l);
    if (s->ix->lanes[l].ndepth == 0)
        return 0;
    const lane_busy *b = tl_row_busy(s, l, 0);
    return lane_busy_all(b);
}

/* Whether lane l has a call in the visible time range. */
static bool lane_in_view(const tl_state *s, size_t l)
{
    const lane *ln = &s->ix->lanes[l];
    if (ln->ndepth == 0)
        return false;
    if (tl_window_map_rows(s)) /* out of core, zoomed out: the map says */
        return tl_window_lane_in_view(s, l);
    int64_t t0 = s->v.t0, t1 = tl_col_time(&s->v, s->v.width);
    size_t k = lane_row_first_visible(ln, &ln->rows[0], t0);
    if (k >= ln->rows[0].n)
        return false;
    int64_t st, e;
    lanes_call_span(ln->rk, lane_row_call(&ln->rows[0], k), &st, &e);
    return st < t1;
}

static bool lane_shown(const tl_state *s, size_t l)
{
    return !s->hide_idle || l == s->keep_lane || lane_in_view(s, l);
}

typedef struct ord_item {
    size_t lane;  /* SIZE_MAX: a group without a thread lane */
    size_t group; /* the group shown after the lane, or SIZE_MAX */
    int64_t busy;
} ord_item;

static int ord_cmp(const void *a, const void *b)
{
    const ord_item *x = a, *y = b;
    return x->busy != y->busy ? (x->busy > y->busy ? -1 : 1) : 0;
}

static int lane_busy_cmp(const void *a, const void *b, void *user)
{
    tl_state *s = user;
    int64_t x = lane_busy_total(s, *(const size_t *)a), y = lane_busy_total(s, *(const size_t *)b);
    return x != y ? (x > y ? -1 : 1)
                  : (*(const size_t *)a > *(const size_t *)b) -
                        (*(const size_t *)a < *(const size_t *)b);
}

static bool push_row(tl_state *s, size_t lane_i, uint32_t depth, size_t group)
{
    if (s->ndrows == s->drows_cap) {
        size_t cap = s->drows_cap ? 2 * s->drows_cap : 64;
        tl_drow *v = realloc(s->drows, cap * sizeof *v);
        if (!v)
            return false;
        s->drows = v;
        s->drows_cap = cap;
    }
    s->drows[s->ndrows++] = (tl_drow){lane_i, depth, group};
    return true;
}

static void push_lane(tl_state *s, size_t l)
{
    if (!lane_shown(s, l))
        return;
    s->first_row[l] = s->ndrows;
    for (uint32_t d = 0; d < s->shown[l]; d++)
        push_row(s, l, d, SIZE_MAX);
}

static void push_group(tl_state *s, size_t g)
{
    tl_group *gr = &s->groups[g];
    bool any = false;
    for (size_t t = 0; t < gr->ntasks && !any; t++)
        any = lane_shown(s, gr->tasks[t]);
    if (!any)
        return;
    push_row(s, SIZE_MAX, 0, g);
    if (!gr->open)
        return;
    size_t *order = malloc(gr->ntasks * sizeof *order);
    if (!order)
        return;
    memcpy(order, gr->tasks, gr->ntasks * sizeof *order);
    if (s->sort_busy)
        qsort_r(order, gr->ntasks, sizeof *order, lane_busy_cmp, s);
    size_t n = gr->nshow < gr->ntasks ? gr->nshow : gr->ntasks;
    for (size_t t = 0; t < n; t++)
        push_lane(s, order[t]);
    free(order);
}

void tl_group_open(tl_state *s, size_t g, bool open)
{
    s->groups[g].open = open;
    s->groups[g].nshow = s->groups[g].ntasks;
}

size_t tl_tasks_folded(const tl_state *s)
{
    size_t n = 0;
    for (size_t g = 0; s->group_tasks && g < s->ngroups; g++) {
        const tl_group *gr = &s->groups[g];
        n += !gr->open ? gr->ntasks : gr->nshow < gr->ntasks ? gr->ntasks - gr->nshow : 0;
    }
    return n;
}

/* The lanes of rank index k as items (a thread with its group). */
static size_t rank_items(tl_state *s, size_t k, ord_item *items)
{
    size_t n = 0;
    for (size_t l = s->ix->rank_lane0[k]; l < s->ix->rank_lane0[k + 1]; l++) {
        if (s->group_tasks && s->group_of[l] != SIZE_MAX)
            continue; /* shown with its group */
        size_t g = SIZE_MAX;
        if (s->group_tasks && s->ix->lanes[l].kind == LANE_THREAD)
            g = find_group(s, k, s->ix->lanes[l].row);
        items[n++] = (ord_item){l, g, 0};
    }
    for (size_t g = 0; s->group_tasks && g < s->ngroups; g++)
        if (s->groups[g].rank_index == k && s->groups[g].thread_lane == SIZE_MAX)
            items[n++] = (ord_item){SIZE_MAX, g, 0};
    if (s->sort_busy) {
        for (size_t i = 0; i < n; i++) {
            if (items[i].lane != SIZE_MAX)
                items[i].busy = lane_busy_total(s, items[i].lane);
            for (size_t t = 0; items[i].group != SIZE_MAX && t < s->groups[items[i].group].ntasks;
                 t++)
                items[i].busy += lane_busy_total(s, s->groups[items[i].group].tasks[t]);
        }
        /* qsort is not stable: equal busy times keep the file's order by
         * a stable insertion sort (a rank has few lanes). */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && ord_cmp(&items[j - 1], &items[j]) > 0; j--) {
                ord_item t = items[j];
                items[j] = items[j - 1];
                items[j - 1] = t;
            }
    }
    return n;
}

/* ----------------------------------------------------------- rebuild */

void tl_rows_rebuild(tl_state *s)
{
    size_t keep_l = SIZE_MAX, keep_g = SIZE_MAX;
    uint32_t keep_d = 0;
    if (s->cur_row < s->ndrows) {
        keep_l = s->drows[s->cur_row].lane;
        keep_d = s->drows[s->cur_row].depth;
        keep_g = s->drows[s->cur_row].group;
    }
    s->ndrows = 0;
    size_t n = s->ix ? s->ix->nlanes : 0;
    for (size_t l = 0; l < n; l++)
        s->first_row[l] = SIZE_MAX;
    ord_item *items = malloc((n + s->ngroups + 1) * sizeof *items);
    for (size_t k = 0; items && s->ix && k < s->ix->prof->nranks; k++) {
        size_t m = rank_items(s, k, items);
        for (size_t i = 0; i < m; i++) {
            if (items[i].lane != SIZE_MAX)
                push_lane(s, items[i].lane);
            if (items[i].group != SIZE_MAX)
                push_group(s, items[i].group);
        }
    }
    free(items);
    s->nrows = s->ndrows;
    /* The cursor stays on its lane and depth, else on the group holding it. */
    size_t at = SIZE_MAX;
    if (keep_l != SIZE_MAX && s->first_row[keep_l] != SIZE_MAX)
        at = s->first_row[keep_l] + (keep_d < s->shown[keep_l] ? keep_d : s->shown[keep_l] - 1);
    if (at == SIZE_MAX && keep_l != SIZE_MAX && s->group_of[keep_l] != SIZE_MAX)
        keep_g = s->group_of[keep_l];
    for (size_t r = 0; at == SIZE_MAX && keep_g != SIZE_MAX && r < s->ndrows; r++)
        if (s->drows[r].lane == SIZE_MAX && s->drows[r].group == keep_g)
            at = r;
    if (at != SIZE_MAX)
        s->cur_row = at;
    if (s->cur_row >= s->nrows)
        s->cur_row = s->nrows ? s->nrows - 1 : 0;
}

bool tl_row_at(const tl_state *s, size_t r, size_t *lane_out, uint32_t *depth)
{
    if (r >= s->ndrows || s->drows[r].lane == SIZE_MAX)
        return false;
    *lane_out = s->drows[r].lane;
    *depth = s->drows[r].depth;
    return true;
}

size_t tl_row_group(const tl_state *s, size_t r)
{
    return r < s->ndrows && s->drows[r].lane == SIZE_MAX ? s->drows[r].group : SIZE_MAX;
}

size_t tl_row_of(tl_state *s, size_t l, uint32_t d)
{
    bool again = false;
    if (s->group_tasks && s->group_of[l] != SIZE_MAX &&
        (!s->groups[s->group_of[l]].open ||
         s->groups[s->group_of[l]].nshow < s->groups[s->group_of[l]].ntasks)) {
        tl_group_open(s, s->group_of[l], true);
        again = true;
    }
    if (d >= s->shown[l]) {
        s->shown[l] = d + 1;
        again = true;
    }
    if (s->keep_lane != l) {
        s->keep_lane = l;
        again = again || s->hide_idle;
    }
    if (again || s->first_row[l] == SIZE_MAX)
        tl_rows_rebuild(s);
    return s->first_row[l] == SIZE_MAX ? SIZE_MAX : s->first_row[l] + d;
}

/* Average number of the group's tasks running in [t0, t1). */
double tl_group_load(tl_state *s, size_t g, int64_t t0, int64_t t1)
{
    const tl_group *gr = &s->groups[g];
    int64_t sum = 0;
    for (size_t t = 0; t < gr->ntasks; t++) {
        const lane_busy *b =
            s->ix->lanes[gr->tasks[t]].ndepth ? tl_row_busy(s, gr->tasks[t], 0) : NULL;
        sum += b ? lane_busy_between(b, t0, t1) : 0;
    }
    return t1 > t0 ? (double)sum / (double)(t1 - t0) : 0.0;
}
