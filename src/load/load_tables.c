/* load_tables: thread and task tables: rank<N>/threads and rank<N>/tasks
 * of schema 1's extended layout, and the columnar layouts' /thread_table
 * and /task_table (one table for every rank, split by its `ranks` column). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_internal.h"

/* ------------------------------------------------------------ tables */

/* One integer column of a table; NULL (with a warning) when bad. */
sv_err ld_table_i64(ld_ctx *c, hid_t tg, const char *table, const h5u_list *l, const char *col,
                    int64_t **out, size_t *n, bool *present)
{
    *out = NULL;
    long idx = h5u_list_find(l, col);
    if (idx < 0)
        return SV_OK;
    *present = true;
    char item[64], why[H5U_WHY_MAX];
    snprintf(item, sizeof item, "%s/%s", table, col);
    if (!h5u_maybe_dataset(&l->v[idx])) {
        ld_warn(c, NULL, "dataset", item, "not a dataset; ignored");
        return SV_OK;
    }
    h5u_status st = h5u_read_i64(&c->rd, tg, col, out, n, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK)
        ld_warn(c, NULL, "dataset", item, "%s; column dropped", why);
    return SV_OK;
}

sv_err ld_table_strs(ld_ctx *c, hid_t tg, const char *table, const h5u_list *l, const char *col,
                     char ***out, size_t *n, bool *present)
{
    *out = NULL;
    long idx = h5u_list_find(l, col);
    if (idx < 0)
        return SV_OK;
    *present = true;
    char item[64], why[H5U_WHY_MAX];
    snprintf(item, sizeof item, "%s/%s", table, col);
    if (!h5u_maybe_dataset(&l->v[idx])) {
        ld_warn(c, NULL, "dataset", item, "not a dataset; ignored");
        return SV_OK;
    }
    h5u_strs s;
    h5u_status st = h5u_read_strs(&c->rd, tg, col, &s, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK) {
        ld_warn(c, NULL, "dataset", item, "%s; column dropped", why);
        return SV_OK;
    }
    if (s.ncut)
        ld_warn(c, NULL, "dataset", item, "%zu names cut to %zu bytes", s.ncut,
                (size_t)SV_STRING_MAX);
    *out = s.v;
    *n = s.n;
    return SV_OK;
}

/* The common length of a table's columns (n[i] counts only when have[i]);
 * false when they differ. */
static bool table_length(const size_t *n, const bool *have, size_t k, size_t *len)
{
    bool any = false;
    for (size_t i = 0; i < k; i++) {
        if (!have[i])
            continue;
        if (any && n[i] != *len)
            return false;
        *len = n[i];
        any = true;
    }
    return true;
}

/* Opens table group `table` of rank group rg and lists it; tg < 0 when it
 * cannot be used (warning given). */
static sv_err table_open(ld_ctx *c, hid_t rg, const char *table, hid_t *tg, h5u_list *l)
{
    char why[H5U_WHY_MAX];
    *tg = H5Gopen2(rg, table, H5P_DEFAULT);
    if (*tg < 0) {
        h5u_error_desc(why, sizeof why);
        ld_warn(c, NULL, "group", table, "cannot open: %s; table ignored", why);
        return SV_OK;
    }
    h5u_status st = h5u_list_group(*tg, l, why, sizeof why);
    if (st == H5U_OK)
        return SV_OK;
    H5Gclose(*tg);
    *tg = -1;
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    ld_warn(c, NULL, "group", table, "%s; table ignored", why);
    return SV_OK;
}

sv_err ld_load_threads(ld_ctx *c, rank_data *rk, hid_t rg)
{
    hid_t tg;
    h5u_list l;
    sv_err e = table_open(c, rg, "threads", &tg, &l);
    if (e || tg < 0)
        return e;
    thread_table *t = &rk->threads;
    size_t n[3] = {0, 0, 0};
    bool have[3] = {false, false, false}, present = false;
    e = ld_table_strs(c, tg, "threads", &l, "name", &t->name, &n[0], &present);
    if (!e)
        e = ld_table_i64(c, tg, "threads", &l, "ident", &t->ident, &n[1], &present);
    if (!e)
        e = ld_table_i64(c, tg, "threads", &l, "native_id", &t->native_id, &n[2], &present);
    h5u_list_free(&l);
    H5Gclose(tg);
    c->p->legacy = false;
    have[0] = t->name != NULL, have[1] = t->ident != NULL, have[2] = t->native_id != NULL;
    if (!e && !table_length(n, have, 3, &t->n)) {
        ld_warn(c, NULL, "group", "threads",
                "columns of different lengths (name %zu, ident %zu, native_id %zu); table "
                "dropped",
                n[0], n[1], n[2]);
        have[0] = have[1] = have[2] = false;
    }
    if (e || !(have[0] || have[1] || have[2])) {
        ld_free_strv(t->name, n[0]);
        free(t->ident);
        free(t->native_id);
        memset(t, 0, sizeof *t);
        if (!e && !present)
            ld_warn(c, NULL, "group", "threads", "no columns; table ignored");
        return e;
    }
    rk->has_threads = true;
    ld_progress(c);
    return SV_OK;
}

static void check_task_threads(ld_ctx *c, rank_data *rk)
{
    task_table *t = &rk->tasks;
    int64_t hi = rk->has_threads ? (int64_t)rk->threads.n - 1 : INT64_MAX;
    size_t i;
    if (t->thread && (i = ld_first_outside(t->thread, t->n, -1, hi)) < t->n) {
        ld_warn(c, NULL, "dataset", "tasks/thread",
                "row %lld of task %zu is outside the thread table; column dropped",
                (long long)t->thread[i], i);
        ld_drop_col(&t->thread);
    }
}

sv_err ld_load_tasks(ld_ctx *c, rank_data *rk, hid_t rg)
{
    hid_t tg;
    h5u_list l;
    sv_err e = table_open(c, rg, "tasks", &tg, &l);
    if (e || tg < 0)
        return e;
    task_table *t = &rk->tasks;
    size_t n[2] = {0, 0};
    bool have[2], present = false;
    e = ld_table_strs(c, tg, "tasks", &l, "name", &t->name, &n[0], &present);
    if (!e)
        e = ld_table_i64(c, tg, "tasks", &l, "thread", &t->thread, &n[1], &present);
    h5u_list_free(&l);
    H5Gclose(tg);
    c->p->legacy = false;
    have[0] = t->name != NULL, have[1] = t->thread != NULL;
    if (!e && !table_length(n, have, 2, &t->n)) {
        ld_warn(c, NULL, "group", "tasks",
                "columns of different lengths (name %zu, thread %zu); table dropped", n[0], n[1]);
        have[0] = have[1] = false;
    }
    if (e || !(have[0] || have[1])) {
        ld_free_strv(t->name, n[0]);
        free(t->thread);
        memset(t, 0, sizeof *t);
        if (!e && !present)
            ld_warn(c, NULL, "group", "tasks", "no columns; table ignored");
        return e;
    }
    rk->has_tasks = true;
    check_task_threads(c, rk);
    ld_progress(c);
    return SV_OK;
}

/* ------------------------------------------------------------ columnar tables */

static const char *const lt_thread_i64[] = {"ranks",  "index",    "ident",  "native_id",
                                            "daemon", "start_ns", "end_ns", "cpu_ns"};
static const char *const lt_thread_str[] = {"name"};
static const char *const lt_task_i64[] = {"ranks",   "index", "thread_index", "created_ns",
                                          "done_ns", "steps", "running_ns",   "suspended_ns"};
static const char *const lt_task_str[] = {"kind", "name", "coro_name"};

void ld_lane_tables_free(ld_lane_tables *t)
{
    for (size_t k = 0; k < sizeof t->ti / sizeof t->ti[0]; k++)
        free(t->ti[k]);
    for (size_t k = 0; k < LT_THREAD_STR; k++)
        ld_free_strv(t->ts[k], t->nt);
    for (size_t k = 0; k < LT_TASK_I64; k++)
        free(t->ki[k]);
    for (size_t k = 0; k < LT_TASK_STR; k++)
        ld_free_strv(t->ks[k], t->nk);
    memset(t, 0, sizeof *t);
}

/* Reads one table; columns of another length than `ranks` are dropped. */
static sv_err read_lane_table(ld_ctx *c, hid_t f, const char *table, const char *const *inames,
                              size_t ni, int64_t **iv, const char *const *snames, size_t ns,
                              char ***sv, size_t *len, bool *ok)
{
    hid_t tg;
    h5u_list l;
    *ok = false;
    sv_err e = table_open(c, f, table, &tg, &l);
    if (e || tg < 0)
        return e;
    size_t n = 0, m;
    bool present = false;
    e = ld_table_i64(c, tg, table, &l, inames[0], &iv[0], &n, &present);
    for (size_t k = 1; !e && iv[0] && k < ni; k++) {
        e = ld_table_i64(c, tg, table, &l, inames[k], &iv[k], &m, &present);
        if (!e && iv[k] && m != n) {
            char item[64];
            snprintf(item, sizeof item, "%s/%s", table, inames[k]);
            ld_warn(c, NULL, "dataset", item, "%zu rows, ranks has %zu; column dropped", m, n);
            ld_drop_col(&iv[k]);
        }
    }
    for (size_t k = 0; !e && iv[0] && k < ns; k++) {
        e = ld_table_strs(c, tg, table, &l, snames[k], &sv[k], &m, &present);
        if (!e && sv[k] && m != n) {
            char item[64];
            snprintf(item, sizeof item, "%s/%s", table, snames[k]);
            ld_warn(c, NULL, "dataset", item, "%zu rows, ranks has %zu; column dropped", m, n);
            ld_free_strv(sv[k], m);
            sv[k] = NULL;
        }
    }
    h5u_list_free(&l);
    H5Gclose(tg);
    if (!e && !iv[0])
        ld_warn(c, NULL, "group", table, "no usable ranks column; table ignored");
    if (!e && iv[0] && !iv[1]) {
        ld_warn(c, NULL, "group", table, "no usable index column; table ignored");
        ld_drop_col(&iv[0]);
    }
    *len = n;
    *ok = !e && iv[0] != NULL;
    return e;
}

sv_err ld_read_lane_tables(ld_ctx *c, hid_t f, const h5u_list *root, ld_lane_tables *t)
{
    memset(t, 0, sizeof *t);
    sv_err e = SV_OK;
    if (h5u_list_find(root, "thread_table") >= 0)
        e = read_lane_table(c, f, "thread_table", lt_thread_i64, 8, t->ti, lt_thread_str, 1, t->ts,
                            &t->nt, &t->has_threads);
    if (!e && h5u_list_find(root, "task_table") >= 0)
        e = read_lane_table(c, f, "task_table", lt_task_i64, 8, t->ki, lt_task_str, 3, t->ks,
                            &t->nk, &t->has_tasks);
    if (e)
        ld_lane_tables_free(t);
    return e;
}

/* The rows of `rank` placed by their index: map[index] = table row.  false
 * (warning given) when the indexes are not 0..m-1 once each. */
static bool rank_rows(ld_ctx *c, const char *table, const int64_t *ranks, const int64_t *index,
                      size_t n, int rank, size_t **map, size_t *m, sv_err *e)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ranks[i] == rank;
    *m = k;
    *map = NULL;
    if (k == 0)
        return false;
    size_t *v = malloc(k * sizeof *v);
    if (!v) {
        *e = SV_ERR_NOMEM;
        return false;
    }
    for (size_t i = 0; i < k; i++)
        v[i] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (ranks[i] != rank)
            continue;
        if (index[i] < 0 || (uint64_t)index[i] >= k || v[index[i]] != SIZE_MAX) {
            ld_warn(c, NULL, "dataset", table,
                    "index %lld of row %zu is not one of 0..%zu once; table dropped for this "
                    "rank",
                    (long long)index[i], i, k - 1);
            free(v);
            return false;
        }
        v[index[i]] = i;
    }
    *map = v;
    return true;
}

static int64_t *pick_i64(const int64_t *col, const size_t *map, size_t m, sv_err *e)
{
    if (!col)
        return NULL;
    int64_t *v = malloc((m ? m : 1) * sizeof *v);
    if (!v) {
        *e = SV_ERR_NOMEM;
        return NULL;
    }
    for (size_t i = 0; i < m; i++)
        v[i] = col[map[i]];
    return v;
}

static char **pick_str(char *const *col, const size_t *map, size_t m, sv_err *e)
{
    if (!col)
        return NULL;
    char **v = calloc(m ? m : 1, sizeof *v);
    for (size_t i = 0; v && i < m; i++)
        if (!(v[i] = strdup(col[map[i]]))) {
            ld_free_strv(v, i);
            v = NULL;
        }
    if (!v)
        *e = SV_ERR_NOMEM;
    return v;
}

static sv_err threads_rank(ld_ctx *c, const ld_lane_tables *t, rank_data *rk)
{
    size_t *map, m;
    sv_err e = SV_OK;
    if (!t->has_threads ||
        !rank_rows(c, "thread_table/index", t->ti[0], t->ti[1], t->nt, rk->rank, &map, &m, &e))
        return e;
    thread_table *th = &rk->threads;
    th->n = m;
    th->ident = pick_i64(t->ti[2], map, m, &e);
    th->native_id = pick_i64(t->ti[3], map, m, &e);
    int64_t *daemon = pick_i64(t->ti[4], map, m, &e);
    th->start_ns = pick_i64(t->ti[5], map, m, &e);
    th->end_ns = pick_i64(t->ti[6], map, m, &e);
    th->cpu_ns = pick_i64(t->ti[7], map, m, &e);
    th->name = pick_str(t->ts[0], map, m, &e);
    if (daemon && (th->daemon = malloc(m ? m : 1)) != NULL)
        for (size_t i = 0; i < m; i++)
            th->daemon[i] = daemon[i] != 0;
    else if (daemon)
        e = SV_ERR_NOMEM;
    free(daemon);
    free(map);
    rk->has_threads = true;
    return e;
}

static sv_err tasks_rank(ld_ctx *c, const ld_lane_tables *t, rank_data *rk)
{
    size_t *map, m;
    sv_err e = SV_OK;
    if (!t->has_tasks ||
        !rank_rows(c, "task_table/index", t->ki[0], t->ki[1], t->nk, rk->rank, &map, &m, &e))
        return e;
    task_table *tk = &rk->tasks;
    tk->n = m;
    tk->thread = pick_i64(t->ki[2], map, m, &e);
    tk->created_ns = pick_i64(t->ki[3], map, m, &e);
    tk->done_ns = pick_i64(t->ki[4], map, m, &e);
    tk->steps = pick_i64(t->ki[5], map, m, &e);
    tk->running_ns = pick_i64(t->ki[6], map, m, &e);
    tk->suspended_ns = pick_i64(t->ki[7], map, m, &e);
    tk->kind = pick_str(t->ks[0], map, m, &e);
    tk->name = pick_str(t->ks[1], map, m, &e);
    tk->coro_name = pick_str(t->ks[2], map, m, &e);
    free(map);
    rk->has_tasks = true;
    if (!e)
        check_task_threads(c, rk);
    return e;
}

sv_err ld_lane_tables_rank(ld_ctx *c, const ld_lane_tables *t, rank_data *rk)
{
    sv_err e = threads_rank(c, t, rk);
    return e ? e : tasks_rank(c, t, rk);
}
