/* stream_grp: the out-of-core load of schema 1 (stream_col.h), a region's
 * own datasets read in chunks.  Only the plain case streams: both timing
 * columns and every optional column open as 1-D integer datasets of the
 * same length, read for the first time.  Anything else is handed back to
 * load_groups.c, which loads that region in memory with its own checks and
 * words (a damaged region is small or dropped); such a region still takes
 * part in its rank's nesting (sc_row.mem).  Pass 1 and its verdict run as
 * the walk meets the region (load_columns' checks, its warnings in its
 * order); pass 2 when the rank's walk is done. */
#include <stdlib.h>
#include <string.h>

#include "model/budget.h"
#include "stream_col_internal.h"

static const char *const grp_names[SC_NCOL] = {"start_times", "end_times",  "gpu_durations",
                                               "call_ids",    "parent_ids", "thread_ids",
                                               "task_ids",    "await_times"};

sc_file *sc_file_new(ld_ctx *c)
{
    sc_file *sf = calloc(1, sizeof *sf);
    if (!sf)
        return NULL;
    sf->c = c;
    sf->schema = 1;
    const load_budget *b = c->rd.budget;
    sf->budget = b && b->limit ? (b->limit > b->used ? b->limit - b->used : 0) : (uint64_t)1 << 30;
    sf->rd = c->rd;
    /* Many regions may be open at once: a small cache each. */
    sf->dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (sf->dapl < 0 || H5Pset_chunk_cache(sf->dapl, 521, (size_t)1 << 20, 1.0) < 0) {
        H5Eclear2(H5E_DEFAULT);
        if (sf->dapl >= 0)
            H5Pclose(sf->dapl);
        free(sf);
        return NULL;
    }
    sf->rd.dapl = sf->dapl;
    return sf;
}

static void row_free(sc_row *row)
{
    if (!row)
        return;
    for (int k = 0; row->cols && k < SC_NCOL; k++)
        if (row->open & (1u << k))
            h5u_col_close(&row->cols[k]);
    free(row->cols);
    free(row->gpath);
    for (int k = 0; row->held && k < SC_NCOL; k++)
        free(row->held[k]);
    free(row->held);
    stream_pct_free(&row->pct);
    stream_early_free(&row->early);
    free(row->thr);
    free(row);
}

static void drop_rows(sc_file *sf)
{
    for (size_t i = 0; i < sf->P; i++)
        row_free(sf->rows[i]);
    sf->P = 0;
    row_free(sf->pending);
    sf->pending = NULL;
}

void sc_file_free(sc_file *sf)
{
    if (!sf)
        return;
    drop_rows(sf);
    free(sf->rows);
    if (sf->dapl > 0)
        H5Pclose(sf->dapl);
    if (sf->file > 0)
        H5Fclose(sf->file);
    free(sf);
}

/* Opens the row's datasets; false: not the plain case (or NOMEM in *e). */
static bool open_row(ld_ctx *c, sc_file *sf, hid_t g, h5u_list *l, sc_row *row, sv_err *e)
{
    char why[H5U_WHY_MAX];
    for (int k = 0; k < SC_NCOL; k++) {
        long idx = h5u_list_find(l, grp_names[k]);
        if (idx < 0 && k < 2)
            return false;
        if (idx < 0)
            continue;
        if (k >= 2)
            c->p->legacy = false;
        if (!h5u_maybe_dataset(&l->v[idx]))
            return false;
        h5u_status st = h5u_col_open(&sf->rd, g, grp_names[k], &row->cols[k], why, sizeof why);
        if (st == H5U_NOMEM)
            *e = SV_ERR_NOMEM;
        if (st != H5U_OK)
            return false;
        row->open |= 1u << k;
        if (row->cols[k].n != row->cols[0].n)
            return false;
    }
    if (h5u_list_find(l, "event_metadata") >= 0)
        c->p->legacy = false; /* per-call JSON: no batch statistic, not read */
    /* A sparse file declaring gigabytes: left to the in-memory load, whose budget refuses it
     * (checked before the datasets are recorded as read). */
    sc_claim cl = {.ok = true, .storage = sf->stored};
    for (int k = 0; k < SC_NCOL; k++)
        if (row->open & (1u << k))
            sc_claim_add(&cl, row->cols[k].ds, row->cols[k].n, grp_names[k]);
    if (!sc_claim_check(c, &cl))
        return false;
    for (int k = 0; k < SC_NCOL; k++)
        if ((row->open & (1u << k)) && h5u_read_before(&sf->rd, row->cols[k].ds))
            return false;
    for (int k = 0; k < SC_NCOL; k++) {
        long idx = h5u_list_find(l, grp_names[k]);
        if (idx >= 0)
            l->v[idx].kind = H5U_DATASET;
    }
    row->n = row->cols[0].n;
    sf->stored = cl.storage;
    if (c->rd.budget)
        c->rd.budget->streamed = true;
    return true;
}

/* Closes the row's datasets, keeping where they are. */
static bool close_row(sc_file *sf, hid_t g, sc_row *row)
{
    char buf[1024];
    ssize_t len = H5Iget_name(g, buf, sizeof buf);
    if (len <= 0 || (size_t)len >= sizeof buf) { /* a long path: asked again, whole */
        char *big = len > 0 ? malloc((size_t)len + 1) : NULL;
        if (!big || H5Iget_name(g, big, (size_t)len + 1) != len) {
            free(big);
            H5Eclear2(H5E_DEFAULT);
            return false;
        }
        row->gpath = big;
    } else if (!(row->gpath = strdup(buf))) {
        return false;
    }
    if (sf->file <= 0 && (sf->file = H5Iget_file_id(g)) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    for (int k = 0; k < SC_NCOL; k++)
        if (row->open & (1u << k))
            h5u_col_close(&row->cols[k]);
    return true;
}

#define HOLD_MAX ((uint64_t)1 << 16)
#define HOLD_COLS 6 /* start, end, call and parent ids, thread and task ids: what pass 2 reads */

/* Reads the row's pass-2 columns whole and closes its datasets. */
static sv_err hold_row(sc_row *row, char *why, size_t whylen)
{
    const unsigned need = 1u << SC_START | 1u << SC_END | 1u << SC_CALL | 1u << SC_PARENT |
                          1u << SC_THREAD | 1u << SC_TASK;
    size_t n = (size_t)row->n;
    for (int k = 0; k < SC_NCOL; k++) {
        if (!(row->open & (1u << k) & need))
            continue;
        if (!(row->held[k] = malloc((n ? n : 1) * sizeof(int64_t))))
            return SV_ERR_NOMEM;
        h5u_status st = h5u_col_read(&row->cols[k], 0, n, row->held[k], false, why, whylen);
        if (st != H5U_OK)
            return st == H5U_NOMEM ? SV_ERR_NOMEM : SV_ERR_FORMAT;
    }
    for (int k = 0; k < SC_NCOL; k++)
        if (row->open & (1u << k))
            h5u_col_close(&row->cols[k]);
    row->open &= need;
    return SV_OK;
}

/* Pass 2's datasets: every streamed row of the rank open at once, a cache each of its share of
 * a sixteenth of the budget (at most 1 MiB; none below 8 KiB). */
static sv_err reopen_rows(sc_file *sf)
{
    size_t ncols = 0;
    for (size_t i = 0; i < sf->P; i++)
        ncols += sf->rows[i]->mem ? 0 : (size_t)__builtin_popcount(sf->rows[i]->open);
    uint64_t share = sf->budget / 16 / (ncols ? ncols : 1);
    size_t bytes = share > ((uint64_t)1 << 20) ? (size_t)1 << 20 : share < 8192 ? 0 : (size_t)share;
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (dapl < 0 || H5Pset_chunk_cache(dapl, bytes ? 521 : 0, bytes, 1.0) < 0) {
        H5Eclear2(H5E_DEFAULT);
        if (dapl >= 0)
            H5Pclose(dapl);
        return SV_ERR_NOMEM;
    }
    hid_t pass1 = sf->rd.dapl; /* the columns keep &sf->rd: only the plist changes */
    sf->rd.dapl = dapl;
    sv_err e = SV_OK;
    char why[H5U_WHY_MAX];
    uint64_t held = 0;
    for (size_t i = 0; !e && i < sf->P; i++) {
        sc_row *row = sf->rows[i];
        if (row->mem)
            continue;
        /* A short row is read now and closed: an open dataset costs libhdf5 some 30 KB, and a
         * rank may have thousands of regions. */
        bool hold = row->n <= HOLD_MAX && held + row->n * HOLD_COLS * 8 <= sf->budget / 8;
        if (hold && !(row->held = calloc(SC_NCOL, sizeof *row->held)))
            e = SV_ERR_NOMEM;
        held += hold ? row->n * HOLD_COLS * 8 : 0;
        hid_t g = H5Gopen2(sf->file, row->gpath, H5P_DEFAULT);
        unsigned want = row->open;
        row->open = 0;
        for (int k = 0; g >= 0 && !e && k < SC_NCOL; k++) {
            if (!(want & (1u << k)))
                continue;
            h5u_status st = h5u_col_open(&sf->rd, g, grp_names[k], &row->cols[k], why, sizeof why);
            if (st != H5U_OK)
                e = st == H5U_NOMEM ? SV_ERR_NOMEM : SV_ERR_FORMAT;
            else
                row->open |= 1u << k;
        }
        if (g < 0)
            e = SV_ERR_FORMAT;
        else
            H5Gclose(g);
        if (!e && row->held)
            e = hold_row(row, why, sizeof why);
    }
    sf->rd.dapl = pass1;
    H5Pclose(dapl);
    H5Eclear2(H5E_DEFAULT);
    return e;
}

/* load_groups.c's check_columns, on pass 1's findings. */
static void verdict(ld_ctx *c, const rank_data *rk, const char *name, sc_row *row)
{
    if ((row->keep & (1u << SC_PARENT)) && !(row->keep & (1u << SC_CALL))) {
        ld_warn(c, name, "dataset", "parent_ids", "present without call_ids; column dropped");
        row->keep &= ~(1u << SC_PARENT);
    }
    if ((row->keep & (1u << SC_THREAD)) && row->thr_bad) {
        ld_warn(c, name, "dataset", "thread_ids",
                "row %lld at call %zu is outside the thread table (%zu rows); column dropped",
                (long long)row->thr_v, row->thr_at, rk->has_threads ? rk->threads.n : (size_t)0);
        row->keep &= ~(1u << SC_THREAD);
    }
    if ((row->keep & (1u << SC_TASK)) && row->task_bad) {
        ld_warn(c, name, "dataset", "task_ids",
                "row %lld at call %zu is outside the task table (%zu rows); column dropped",
                (long long)row->task_v, row->task_at, rk->has_tasks ? rk->tasks.n : (size_t)0);
        row->keep &= ~(1u << SC_TASK);
    }
    if ((row->keep & (1u << SC_AWAIT)) && row->aw_bad) {
        ld_warn(c, name, "dataset", "await_times",
                "%lld at call %zu is outside [0, duration %lld]; column dropped",
                (long long)row->aw_v, row->aw_at, (long long)row->aw_dur);
        row->keep &= ~(1u << SC_AWAIT);
    }
}

static void set_region(sc_row *row, region *t)
{
    t->has_event_data = true;
    sc_row_to_region(row, t);
}

/* A row long enough that pass 2 feeding its percentile buckets would cost
 * more than pass 1 keeping the durations near them (stream_early): pass 2
 * then reads its start and end times only. */
#define EARLY_MIN ((uint64_t)1 << 16)

static void early_init(sc_file *sf, sc_row *row)
{
    if (row->n < EARLY_MIN)
        return;
    size_t cap = sc_pct_cap(sf, SC_PREFER_ROWS);
    size_t prefix = cap / 2 < ((size_t)1 << 18) ? cap / 2 : (size_t)1 << 18;
    stream_early_init(&row->early, prefix, cap);
    row->early_on = true;
}

int sg_load_columns(ld_ctx *c, const rank_data *rk, hid_t g, const char *name, h5u_list *l,
                    region *t, sv_err *e)
{
    sc_file *sf = c->sg;
    row_free(sf->pending);
    sf->pending = NULL;
    sc_row *row = calloc(1, sizeof *row);
    if (row)
        row->cols = calloc(SC_NCOL, sizeof *row->cols);
    if (!row || !row->cols) {
        row_free(row);
        *e = SV_ERR_NOMEM;
        return 0;
    }
    if (!open_row(c, sf, g, l, row, e)) {
        row_free(row);
        return *e ? 0 : -1;
    }
    sf->tlo = 0;
    sf->tmax = rk->has_threads ? (int64_t)rk->threads.n - 1 : INT64_MAX;
    sf->kmax = rk->has_tasks ? (int64_t)rk->tasks.n - 1 : INT64_MAX;
    early_init(sf, row);
    sv_err pe = sc_pass1_row(sf, row);
    if (pe) {
        row_free(row);
        if (pe == SV_ERR_NOMEM)
            *e = pe;
        return pe == SV_ERR_NOMEM ? 0 : -1; /* a read failed: the in-memory load says why */
    }
    if (row->bad_end) {
        ld_warn(c, name, "dataset", "end_times",
                "end < start at call %zu (start %lld, end %lld); region dropped", row->end_at,
                (long long)row->end_s, (long long)row->end_e);
        row_free(row);
        return 0;
    }
    verdict(c, rk, name, row);
    set_region(row, t);
    /* Closed until pass 2, which opens them with a cache sized to the rank's rows: open, the
     * caches of thousands of regions would pass the budget. */
    if (!close_row(sf, g, row)) {
        row_free(row);
        *e = SV_ERR_NOMEM;
        return 0;
    }
    sf->pending = row;
    return 1;
}

static bool in_order(const region *r)
{
    for (size_t i = 1; i < r->n; i++)
        if (r->start_ns[i] < r->start_ns[i - 1] ||
            (r->start_ns[i] == r->start_ns[i - 1] && r->end_ns[i] > r->end_ns[i - 1]))
            return false;
    return true;
}

sv_err sg_committed(ld_ctx *c, region *r)
{
    sc_file *sf = c->sg;
    sc_row *row = sf->pending;
    sf->pending = NULL;
    if (!row && r->has_event_data) { /* loaded in memory: a source of the nesting */
        if (!(row = calloc(1, sizeof *row)))
            return SV_ERR_NOMEM;
        row->mem = true;
        row->n = r->n;
        row->keep = (r->thread_ids ? 1u << SC_THREAD : 0) | (r->task_ids ? 1u << SC_TASK : 0) |
                    (r->call_ids && r->parent_ids ? 1u << SC_CALL | 1u << SC_PARENT : 0);
        row->in_order = in_order(r);
    }
    if (!row)
        return SV_OK;
    row->r = r;
    if (sf->P == sf->cap) {
        size_t cap = sf->cap ? 2 * sf->cap : 64;
        sc_row **v = realloc(sf->rows, cap * sizeof *v);
        if (!v) {
            row_free(row);
            return SV_ERR_NOMEM;
        }
        sf->rows = v;
        sf->cap = cap;
    }
    sf->rows[sf->P++] = row;
    /* Preferred (load_sink.h): a rank of many small regions loads faster in memory. */
    if (sf->declined && sf->P > SC_PREFER_ROWS) {
        *sf->declined = true;
        return SV_ERR_NOMEM;
    }
    return SV_OK;
}

sv_err sg_rank_finish(ld_ctx *c, rank_data *rk)
{
    sc_file *sf = c->sg;
    c->streamed = true;
    sv_err e = reopen_rows(sf);
    if (!e)
        e = sc_finish_rows(c, sf, rk, sf->rows, sf->P);
    drop_rows(sf);
    return e;
}

struct sc_file *sg_new(ld_ctx *c)
{
    return sc_file_new(c);
}

void sg_free(ld_ctx *c)
{
    sc_file_free(c->sg);
    c->sg = NULL;
}
