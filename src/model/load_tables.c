/* load_tables: thread and task tables (rank<N>/threads and rank<N>/tasks
 * of schema 1's extended layout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_internal.h"

/* ------------------------------------------------------------ tables */

/* One integer column of a table; NULL (with a warning) when bad. */
static sv_err table_i64(ld_ctx *c, hid_t tg, const char *table, const h5u_list *l, const char *col,
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

static sv_err table_strs(ld_ctx *c, hid_t tg, const char *table, const h5u_list *l, const char *col,
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
    e = table_strs(c, tg, "threads", &l, "name", &t->name, &n[0], &present);
    if (!e)
        e = table_i64(c, tg, "threads", &l, "ident", &t->ident, &n[1], &present);
    if (!e)
        e = table_i64(c, tg, "threads", &l, "native_id", &t->native_id, &n[2], &present);
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
    e = table_strs(c, tg, "tasks", &l, "name", &t->name, &n[0], &present);
    if (!e)
        e = table_i64(c, tg, "tasks", &l, "thread", &t->thread, &n[1], &present);
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
