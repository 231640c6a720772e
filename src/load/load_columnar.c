/* load_columnar: scope-profiler's columnar layout, schema 2 (start_times,
 * end_times) and 3 (start_deltas, durations), doc/FORMAT.md, "Schema 2 and 3".
 *
 * Every rank_region_index row is one (region, rank) whose calls are
 * [offset, offset + count) of every /events column.  Rows are checked first
 * (a bad row is dropped with a warning, the others load), then staged: each
 * event column is read once, in batches of consecutive rows, straight into
 * the staged regions' arrays, so the peak memory is the decoded columns plus
 * one batch.  Staged regions are validated and committed rank by rank. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/budget.h"
#include "load_columnar_internal.h"
#include "load_sink_ops.h"
#include "load_window.h"
#include "stream_col.h"
#include "util/hash.h"
#include "util/text.h"

/* Rows shorter than this are read in batches of this many elements. */
#define LC_BATCH ((size_t)1 << 19)

enum { EV_START, EV_END, EV_GPU, EV_CALL, EV_PARENT, EV_THREAD, EV_TASK, EV_AWAIT, EV_NCOL };

static const char *const ev_names3[EV_NCOL] = {"start_deltas", "durations",  "gpu_durations",
                                               "call_ids",     "parent_ids", "thread_ids",
                                               "task_ids",     "await_ns"};
static const char *const ev_names2[2] = {"start_times", "end_times"};

static const size_t ev_field[EV_NCOL] = {offsetof(region, start_ns),   offsetof(region, end_ns),
                                         offsetof(region, gpu_ns),     offsetof(region, call_ids),
                                         offsetof(region, parent_ids), offsetof(region, thread_ids),
                                         offsetof(region, task_ids),   offsetof(region, await_ns)};

static int64_t **ev_col(region *r, int k)
{
    return (int64_t **)(void *)((char *)r + ev_field[k]);
}

/* ------------------------------------------------------------ shared */

static size_t rank_slot(const rank_map *m, int rank)
{
    return (size_t)sv_hash_u64((uint32_t)rank) & (m->cap - 1);
}

static void rank_map_put(rank_map *m, int rank, size_t idx)
{
    size_t j = rank_slot(m, rank);
    while (m->v[j] != UINT64_MAX)
        j = (j + 1) & (m->cap - 1);
    m->v[j] = (uint64_t)(uint32_t)rank << 32 | (uint32_t)idx;
    m->n++;
}

/* The map holds every rank of p (rebuilt when ranks went away); false on NOMEM. */
static bool rank_map_sync(rank_map *m, const profile *p)
{
    if (p->nranks < m->indexed) {
        free(m->v);
        memset(m, 0, sizeof *m);
    }
    if ((p->nranks + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap : 64;
        while ((p->nranks + 1) * 2 > cap)
            cap *= 2;
        uint64_t *v = malloc(cap * sizeof *v);
        if (!v)
            return false;
        free(m->v);
        *m = (rank_map){.v = v, .cap = cap};
        for (size_t i = 0; i < cap; i++)
            v[i] = UINT64_MAX;
    }
    for (; m->indexed < p->nranks; m->indexed++)
        rank_map_put(m, p->ranks[m->indexed].rank, m->indexed);
    return true;
}

rank_data *ld_rank(ld_ctx *c, int rank)
{
    profile *p = c->p;
    if (p->nranks >= UINT32_MAX || !rank_map_sync(&c->ranks, p))
        return NULL;
    rank_map *m = &c->ranks;
    for (size_t j = rank_slot(m, rank); m->v[j] != UINT64_MAX; j = (j + 1) & (m->cap - 1)) {
        size_t idx = (uint32_t)m->v[j];
        if ((int)(uint32_t)(m->v[j] >> 32) == rank && idx < p->nranks && p->ranks[idx].rank == rank)
            return &p->ranks[idx];
    }
    rank_data *rk = profile_add_rank(p, rank);
    if (rk && !rank_map_sync(m, p))
        return NULL;
    return rk;
}

sv_err ld_read_i64_col(ld_ctx *c, hid_t f, const char *path, size_t n, int64_t **out, size_t *len)
{
    char why[H5U_WHY_MAX];
    h5u_col col;
    *out = NULL;
    h5u_status st = h5u_col_open(&c->rd, f, path, &col, why, sizeof why);
    if (st == H5U_OK && n != SIZE_MAX && col.n != n) {
        snprintf(why, sizeof why, "%llu rows, the index has %zu", (unsigned long long)col.n, n);
        h5u_col_close(&col);
        st = H5U_BAD;
    }
    if (st == H5U_OK) {
        size_t m = (size_t)col.n;
        int64_t *v = malloc((m ? m : 1) * sizeof *v);
        st = v ? h5u_col_read(&col, 0, m, v, false, why, sizeof why) : H5U_NOMEM;
        if (st == H5U_OK && col.wide_unsigned)
            for (size_t i = 0; i < m; i++)
                if (v[i] < 0) {
                    snprintf(why, sizeof why, "value %llu at row %zu is beyond 2^63",
                             (unsigned long long)(uint64_t)v[i], i);
                    st = H5U_BAD;
                    break;
                }
        h5u_col_close(&col);
        if (st == H5U_OK) {
            *out = v;
            if (len)
                *len = m;
        } else {
            free(v);
        }
    }
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK)
        ld_warn(c, NULL, "dataset", path, "%s; column dropped", why);
    return SV_OK;
}

/* An optional string column of the index; s->n == 0 when absent or bad. */
static sv_err idx_strs(ld_ctx *c, hid_t f, const h5u_list *il, const char *col, size_t P,
                       h5u_strs *s)
{
    /* event_metadata is split per call later: its rows are read whole. */
    bool whole = strcmp(col, "event_metadata") == 0;
    memset(s, 0, sizeof *s);
    if (h5u_list_find(il, col) < 0)
        return SV_OK;
    char path[96], why[H5U_WHY_MAX];
    snprintf(path, sizeof path, "rank_region_index/%s", col);
    h5u_status st = whole ? h5u_read_strs_whole(&c->rd, f, path, s, why, sizeof why)
                          : h5u_read_strs(&c->rd, f, path, s, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st == H5U_OK && s->n != P) {
        snprintf(why, sizeof why, "%zu rows, the index has %zu", s->n, P);
        h5u_strs_free(s);
        st = H5U_BAD;
    }
    if (st != H5U_OK) {
        ld_warn(c, NULL, "dataset", path, "%s; column dropped", why);
        memset(s, 0, sizeof *s);
    } else if (s->ncut) {
        ld_warn(c, NULL, "dataset", path, "%zu strings cut to %zu bytes", s->ncut,
                (size_t)SV_STRING_MAX);
    }
    return SV_OK;
}

static sv_err idx_i64(ld_ctx *c, hid_t f, const h5u_list *il, const char *col, size_t P,
                      int64_t **out)
{
    *out = NULL;
    if (h5u_list_find(il, col) < 0)
        return SV_OK;
    char path[96];
    snprintf(path, sizeof path, "rank_region_index/%s", col);
    return ld_read_i64_col(c, f, path, P, out, NULL);
}

/* ------------------------------------------------------------ the index */

static sv_err index_fail(ld_ctx *c, sv_error *err, const char *item, const char *why)
{
    char esc[LD_ESC_NAME];
    text_escape_buf(esc, sizeof esc, item);
    return sv_error_set(err, SV_ERR_FORMAT, "%s: %s: %s", c->path, esc, why);
}

/* A required uint64 index column of P rows (P == 0: any length). */
static sv_err idx_u64(ld_ctx *c, hid_t f, const char *col, size_t *P, uint64_t **out, sv_error *err)
{
    char path[96], why[H5U_WHY_MAX];
    snprintf(path, sizeof path, "rank_region_index/%s", col);
    size_t n, neg;
    h5u_status st = h5u_read_index(&c->rd, f, path, out, &n, &neg, why, sizeof why);
    if (st == H5U_NOMEM)
        return ld_nomem(c, err);
    if (st != H5U_OK)
        return index_fail(c, err, path, why);
    if (*P != SIZE_MAX && n != *P) {
        free(*out);
        *out = NULL;
        snprintf(why, sizeof why, "%zu rows, region_ids has %zu", n, *P);
        return index_fail(c, err, path, why);
    }
    if (neg)
        ld_warn(c, NULL, "dataset", path, "%zu negative values; their rows dropped", neg);
    *P = n;
    return SV_OK;
}

typedef struct pair_row {
    int rank;
    const char *name;
    size_t row;
} pair_row;

static int cmp_pair(const void *a, const void *b)
{
    const pair_row *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->row > y->row) - (x->row < y->row);
}

/* A (rank, region) pair appears once (by name: the names table may repeat
 * one): a later duplicate row is dropped. */
static bool drop_duplicates(ld_ctx *c, ld_index *ix)
{
    pair_row *v = malloc((ix->P ? ix->P : 1) * sizeof *v);
    if (!v)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < ix->P; i++)
        if (ix->keep[i])
            v[k++] = (pair_row){ix->rank[i], ix->names.v[ix->rid[i]], i};
    qsort(v, k, sizeof *v, cmp_pair);
    for (size_t j = 1; j < k; j++)
        if (v[j].rank == v[j - 1].rank && strcmp(v[j].name, v[j - 1].name) == 0) {
            ld_warn(c, v[j].name, "dataset", "rank_region_index",
                    "row %zu repeats row %zu (rank %d); row dropped", v[j].row, v[j - 1].row,
                    v[j].rank);
            ix->keep[v[j].row] = false;
            v[j].row = v[j - 1].row; /* later repeats name the first row */
        }
    free(v);
    return true;
}

/* region_table/names, region_ids and ranks, every row checked. */
static sv_err read_index_rows(ld_ctx *c, hid_t f, ld_index *ix, sv_error *err)
{
    char why[H5U_WHY_MAX];
    h5u_status st = h5u_read_strs(&c->rd, f, "region_table/names", &ix->names, why, sizeof why);
    if (st == H5U_NOMEM)
        return ld_nomem(c, err);
    if (st != H5U_OK)
        return index_fail(c, err, "region_table/names", why);
    ix->P = SIZE_MAX;
    uint64_t *rk = NULL;
    sv_err e = idx_u64(c, f, "region_ids", &ix->P, &ix->rid, err);
    if (!e)
        e = idx_u64(c, f, "ranks", &ix->P, &rk, err);
    if (e) {
        free(rk);
        return e;
    }
    ix->keep = malloc((ix->P ? ix->P : 1) * sizeof *ix->keep);
    ix->rank = malloc((ix->P ? ix->P : 1) * sizeof *ix->rank);
    if (!ix->keep || !ix->rank) {
        free(rk);
        return ld_nomem(c, err);
    }
    for (size_t i = 0; i < ix->P; i++) {
        ix->keep[i] = false;
        ix->rank[i] = -1;
        if (ix->rid[i] >= ix->names.n) {
            ld_warn(c, NULL, "dataset", "rank_region_index/region_ids",
                    "row %zu names region %llu of %zu; row dropped", i,
                    (unsigned long long)ix->rid[i], ix->names.n);
        } else if (rk[i] > INT_MAX) {
            ld_warn(c, NULL, "dataset", "rank_region_index/ranks",
                    "row %zu has rank %llu; row dropped", i, (unsigned long long)rk[i]);
        } else {
            ix->keep[i] = true;
            ix->rank[i] = c->rank_override >= 0 ? c->rank_override : (int)rk[i];
        }
    }
    free(rk);
    return drop_duplicates(c, ix) ? SV_OK : ld_nomem(c, err);
}

static void index_free(ld_index *ix)
{
    free(ix->rid);
    free(ix->rank);
    free(ix->keep);
    h5u_strs_free(&ix->names);
    memset(ix, 0, sizeof *ix);
}

/* ------------------------------------------------------------ rows */

typedef struct off_row {
    uint64_t off;
    size_t row;
} off_row;

static int cmp_by_off(const void *a, const void *b)
{
    const off_row *x = a, *y = b;
    if (x->off != y->off)
        return (x->off > y->off) - (x->off < y->off);
    return (x->row > y->row) - (x->row < y->row);
}

/* lf->order[0..k) sorted by offset (ties by row). */
static bool sort_by_offset(lc_file *lf, size_t k)
{
    off_row *v = malloc((k ? k : 1) * sizeof *v);
    if (!v)
        return false;
    for (size_t j = 0; j < k; j++)
        v[j] = (off_row){lf->off[lf->order[j]], lf->order[j]};
    qsort(v, k, sizeof *v, cmp_by_off);
    for (size_t j = 0; j < k; j++)
        lf->order[j] = v[j].row;
    free(v);
    return true;
}

/* Drops rows whose events fall outside [0, N) or overlap an earlier row's;
 * the kept rows by offset in lf->order. */
static sv_err check_rows(ld_ctx *c, lc_file *lf)
{
    ld_index *ix = &lf->ix;
    char item[64];
    ev_path(item, sizeof item, lf->nev_name);
    lf->order = malloc((ix->P ? ix->P : 1) * sizeof *lf->order);
    if (!lf->order)
        return SV_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < ix->P; i++) {
        if (!ix->keep[i])
            continue;
        uint64_t o = lf->off[i], n = lf->cnt[i];
        if (o > lf->nev || n > lf->nev - o) {
            ld_warn(c, row_name(lf, i), "dataset", "rank_region_index/event_offsets",
                    "rank %d: events %llu..%llu run past the end of %s (%llu events); row "
                    "dropped",
                    ix->rank[i], (unsigned long long)o, (unsigned long long)(o + n), item,
                    (unsigned long long)lf->nev);
            ix->keep[i] = false;
        } else if (n > SV_RANK_CALLS_MAX) {
            ld_warn(c, row_name(lf, i), "dataset", "rank_region_index/event_counts",
                    "rank %d: %llu events, more than %zu; row dropped", ix->rank[i],
                    (unsigned long long)n, (size_t)SV_RANK_CALLS_MAX);
            ix->keep[i] = false;
        } else {
            lf->order[k++] = i;
        }
    }
    if (!sort_by_offset(lf, k))
        return SV_ERR_NOMEM;
    size_t m = 0;
    uint64_t end = 0;
    size_t prev = SIZE_MAX;
    for (size_t j = 0; j < k; j++) {
        size_t i = lf->order[j];
        if (lf->cnt[i] > 0 && prev != SIZE_MAX && lf->off[i] < end) {
            char other[LD_ESC_NAME];
            text_escape_buf(other, sizeof other, row_name(lf, prev));
            ld_warn(c, row_name(lf, i), "dataset", "rank_region_index/event_offsets",
                    "rank %d: events %llu..%llu overlap those of region %s (rank %d, up to "
                    "%llu); row dropped",
                    ix->rank[i], (unsigned long long)lf->off[i],
                    (unsigned long long)(lf->off[i] + lf->cnt[i]), other, ix->rank[prev],
                    (unsigned long long)end);
            ix->keep[i] = false;
            continue;
        }
        if (lf->cnt[i] > 0) {
            end = lf->off[i] + lf->cnt[i];
            prev = i;
        }
        lf->order[m++] = i;
    }
    lf->nkept = m;
    return SV_OK;
}

/* ------------------------------------------------------------ events */

/* Charges column k of every kept row to the load's budget before any of it
 * is allocated (a declared column costs its count whatever the file stores),
 * then allocates it. */
static bool alloc_rows(ld_ctx *c, lc_file *lf, const h5u_col *col, int k)
{
    uint64_t calls = 0;
    for (size_t j = 0; j < lf->nkept; j++)
        calls += lf->stage[lf->order[j]].n;
    if (!h5u_charge(&c->rd, col->ds, calls * sizeof(int64_t)))
        return false;
    for (size_t j = 0; j < lf->nkept; j++) {
        region *t = &lf->stage[lf->order[j]];
        int64_t **d = ev_col(t, k);
        *d = h5u_alloc_i64(t->n);
        if (!*d)
            return false;
    }
    return true;
}

static void free_rows(lc_file *lf, int k)
{
    for (size_t j = 0; j < lf->nkept; j++)
        ld_drop_col(ev_col(&lf->stage[lf->order[j]], k));
}

/* Reads column k into the kept rows: long rows directly, short consecutive
 * rows in one batch each. */
static h5u_status fill_column(lc_file *lf, h5u_col *col, int k, int64_t *batch, char *why,
                              size_t whylen)
{
    h5u_status st = H5U_OK;
    size_t j = 0;
    while (st == H5U_OK && j < lf->nkept) {
        size_t i = lf->order[j];
        region *t = &lf->stage[i];
        if (t->n >= LC_BATCH) {
            st = h5u_col_read(col, lf->off[i], t->n, *ev_col(t, k), false, why, whylen);
            j++;
            continue;
        }
        uint64_t b0 = lf->off[i], b1 = b0;
        size_t j2 = j;
        while (j2 < lf->nkept) {
            size_t i2 = lf->order[j2];
            uint64_t e = lf->off[i2] + lf->cnt[i2];
            if (lf->cnt[i2] >= LC_BATCH || e - b0 > LC_BATCH)
                break;
            b1 = e > b1 ? e : b1;
            j2++;
        }
        st = h5u_col_read(col, b0, (size_t)(b1 - b0), batch, false, why, whylen);
        for (; st == H5U_OK && j < j2; j++) {
            region *r = &lf->stage[lf->order[j]];
            if (r->n)
                memcpy(*ev_col(r, k), batch + (lf->off[lf->order[j]] - b0), r->n * sizeof(int64_t));
        }
    }
    return st;
}

/* Opens and reads event column k; false when it is absent or unusable
 * (optional columns: a warning; timing columns: the caller's). */
static sv_err read_event_column(ld_ctx *c, hid_t f, lc_file *lf, int k, const char *name,
                                int64_t *batch, bool *ok, char *why, size_t whylen)
{
    char path[64];
    *ok = false;
    ev_path(path, sizeof path, name);
    h5u_col col;
    h5u_status st = h5u_col_open(&c->rd, f, path, &col, why, whylen);
    /* A longer timing column beside a truncated one is read up to N. */
    if (st == H5U_OK && (k >= 2 ? col.n != lf->nfull : col.n < lf->nev)) {
        snprintf(why, whylen, "%llu elements, %s has %llu", (unsigned long long)col.n,
                 lf->tnames[0], (unsigned long long)lf->nfull);
        st = H5U_BAD;
        h5u_col_close(&col);
    }
    if (st == H5U_OK) {
        st = alloc_rows(c, lf, &col, k) ? fill_column(lf, &col, k, batch, why, whylen) : H5U_NOMEM;
        h5u_col_close(&col);
        if (st != H5U_OK)
            free_rows(lf, k);
    }
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st == H5U_OK)
        *ok = true;
    else if (k >= EV_GPU)
        ld_warn(c, NULL, "dataset", path, "%s; column dropped", why);
    return SV_OK;
}

/* Event column k is in the file and the load reads it: a statistics-only
 * load (loader.h stats_only) reads no call_ids without parent_ids, which
 * the nesting would not use. */
static bool ev_read(const ld_ctx *c, const h5u_list *el, const lc_file *lf, int k)
{
    const char *name = k < 2 ? lf->tnames[k] : ev_names3[k];
    if (h5u_list_find(el, name) < 0)
        return false;
    return !(k == EV_CALL && c->opt && c->opt->stats_only &&
             h5u_list_find(el, ev_names3[EV_PARENT]) < 0);
}

/* Every column the load would read, charged up front on a copy of the
 * budget (as alloc_rows will charge them, one by one): a load that cannot
 * fit fails before it reads anything, with the message it would give
 * later.  The viewer then opens the file out of core at once, rather than
 * after reading and inflating columns it cannot keep. */
static bool events_fit(ld_ctx *c, const h5u_list *el, const lc_file *lf)
{
    load_budget *b = c->rd.budget;
    if (!b || !b->limit)
        return true;
    uint64_t calls = 0;
    for (size_t j = 0; j < lf->nkept; j++)
        calls += lf->stage[lf->order[j]].n;
    load_budget t = *b;
    for (int k = 0; k < EV_NCOL; k++) {
        const char *name = k < 2 ? lf->tnames[k] : ev_names3[k];
        char path[64];
        if (!ev_read(c, el, lf, k))
            continue;
        snprintf(path, sizeof path, "/events/%s", name);
        if (!budget_charge(&t, calls * sizeof(int64_t), path)) {
            b->exceeded = true;
            memcpy(b->top, t.top, sizeof b->top);
            return false;
        }
    }
    return true;
}

static sv_err read_events(ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf)
{
    if (!events_fit(c, el, lf))
        return SV_ERR_NOMEM;
    char why[H5U_WHY_MAX];
    int64_t *batch = malloc(LC_BATCH * sizeof *batch);
    if (!batch)
        return SV_ERR_NOMEM;
    sv_err e = SV_OK;
    bool ok = true;
    for (int k = 0; !e && k < EV_NCOL; k++) {
        const char *name = k < 2 ? lf->tnames[k] : ev_names3[k];
        if (!ev_read(c, el, lf, k))
            continue;
        bool got;
        e = read_event_column(c, f, lf, k, name, batch, &got, why, sizeof why);
        if (!e && k < 2 && !got && ok) {
            char path[64];
            ld_warn(c, NULL, "dataset", ev_path(path, sizeof path, name),
                    "%s; no event data (regions with summary_statistics kept as summaries)", why);
            ok = false;
        }
        if (k == EV_AWAIT)
            lf->has_await = got;
    }
    free(batch);
    if (!ok)
        for (int k = 0; k < EV_NCOL; k++)
            free_rows(lf, k);
    lf->events = ok && !e;
    return e;
}

/* ------------------------------------------------------------ the file */

static void lc_free(lc_file *lf)
{
    sc_free(lf);
    if (lf->stage)
        for (size_t i = 0; i < lf->ix.P; i++)
            region_clear(&lf->stage[i]);
    free(lf->stage);
    free(lf->order);
    free(lf->off);
    free(lf->cnt);
    free(lf->lines);
    free(lf->excl);
    free(lf->sum);
    h5u_strs_free(&lf->files);
    h5u_strs_free(&lf->texts);
    h5u_strs_free(&lf->tags);
    h5u_strs_free(&lf->meta);
    index_free(&lf->ix);
}

static sv_err read_optional_index(ld_ctx *c, hid_t f, const h5u_list *il, lc_file *lf)
{
    size_t P = lf->ix.P;
    /* Only the calls show their metadata (loader.h stats_only). */
    bool meta = !(c->opt && c->opt->stats_only);
    sv_err e;
    if ((e = idx_i64(c, f, il, "source_lines", P, &lf->lines)) ||
        (e = idx_i64(c, f, il, "exclusive_totals", P, &lf->excl)) ||
        (e = idx_strs(c, f, il, "source_files", P, &lf->files)) ||
        (e = idx_strs(c, f, il, "source_texts", P, &lf->texts)) ||
        (e = idx_strs(c, f, il, "tags", P, &lf->tags)) ||
        (meta && (e = idx_strs(c, f, il, "event_metadata", P, &lf->meta))))
        return e;
    if (h5u_list_find(il, "summary_statistics") < 0)
        return SV_OK;
    char why[H5U_WHY_MAX];
    size_t n;
    h5u_status st = h5u_read_sumstats(&c->rd, f, "rank_region_index/summary_statistics", &lf->sum,
                                      &n, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st == H5U_OK && n != P) {
        snprintf(why, sizeof why, "%zu rows, the index has %zu", n, P);
        free(lf->sum);
        lf->sum = NULL;
        st = H5U_BAD;
    }
    if (st != H5U_OK)
        ld_warn(c, NULL, "dataset", "rank_region_index/summary_statistics", "%s; column dropped",
                why);
    return SV_OK;
}

/* The length N of the events: the first timing column's. */
static sv_err events_length(ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf, sv_error *err)
{
    bool s3 = h5u_list_find(el, "start_deltas") >= 0;
    bool s2 = h5u_list_find(el, "start_times") >= 0;
    lf->tnames = s3 ? ev_names3 : ev_names2;
    if (!s3 && !s2)
        return sv_error_set(err, SV_ERR_FORMAT,
                            "%s: events: neither start_deltas (schema 3) nor start_times "
                            "(schema 2)",
                            c->path);
    c->schema = s3 ? 3 : 2;
    c->p->schema = c->schema;
    char path[64], why[H5U_WHY_MAX];
    ev_path(path, sizeof path, lf->tnames[0]);
    h5u_col col;
    h5u_status st = h5u_col_open(&c->rd, f, path, &col, why, sizeof why);
    if (st == H5U_NOMEM)
        return ld_nomem(c, err);
    if (st != H5U_OK) {
        lf->nev = lf->nfull = UINT64_MAX; /* rows are checked against the index only */
        lf->nev_name = lf->tnames[0];
        return SV_OK;
    }
    lf->nev = lf->nfull = col.n;
    lf->nev_name = lf->tnames[0];
    h5u_col_close(&col);
    /* The other timing column may be shorter: only rows inside both load. */
    ev_path(path, sizeof path, lf->tnames[1]);
    if (h5u_list_find(el, lf->tnames[1]) < 0)
        return sv_error_set(err, SV_ERR_FORMAT, "%s: %s: missing", c->path, path);
    st = h5u_col_open(&c->rd, f, path, &col, why, sizeof why);
    if (st == H5U_OK && col.n < lf->nev) {
        ld_warn(c, NULL, "dataset", path, "%llu elements, %s has %llu; calls past %llu dropped",
                (unsigned long long)col.n, lf->tnames[0], (unsigned long long)lf->nev,
                (unsigned long long)col.n);
        lf->nev = col.n;
        lf->nev_name = lf->tnames[1];
    }
    if (st == H5U_OK)
        h5u_col_close(&col);
    return st == H5U_NOMEM ? ld_nomem(c, err) : SV_OK;
}

/* Summaries are enough when every kept row has them, exclusive time is
 * stored and no await column asks for a per-call sum. */
static bool summaries_suffice(const ld_ctx *c, const lc_file *lf, const h5u_list *el)
{
    if (!c->opt || !c->opt->stored_statistics || !lf->sum || !lf->excl ||
        h5u_list_find(el, "await_ns") >= 0)
        return false;
    for (size_t j = 0; j < lf->nkept; j++) {
        const h5u_sumstat *st = &lf->sum[lf->order[j]];
        if (lf->excl[lf->order[j]] < 0 || !st->has_moments || !isfinite(st->mean) ||
            !isfinite(st->m2) || st->m2 < 0)
            return false;
    }
    return true;
}

/* loader.h index_only: the rows as a streamed load leaves them, but for
 * the statistics, of which only the index's count is known. */
static sv_err index_only_rows(lc_file *lf)
{
    for (size_t j = 0; j < lf->nkept; j++) {
        region *t = &lf->stage[lf->order[j]];
        t->n = 0;
        t->has_event_data = true;
        t->streamed = true;
        t->st.num_calls = (int64_t)lf->cnt[lf->order[j]];
    }
    return SV_OK;
}

static sv_err stage_rows(ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf)
{
    lf->stage = calloc(lf->ix.P ? lf->ix.P : 1, sizeof *lf->stage);
    if (!lf->stage)
        return SV_ERR_NOMEM;
    bool events = lf->nev != UINT64_MAX && !summaries_suffice(c, lf, el);
    if (events && c->opt && c->opt->index_only)
        return index_only_rows(lf);
    /* The sink's rows (an MPI process keeps its own), after the checks
     * every process makes alike (load_rows.h); then their columns. */
    const load_sink *s = ld_sink(c);
    if (!s->ops->rows(s, lf))
        return SV_ERR_NOMEM;
    if (events)
        return s->ops->columns(s, c, f, el, lf);
    for (size_t j = 0; j < lf->nkept; j++) {
        region *t = &lf->stage[lf->order[j]];
        t->n = 0;
        t->has_event_data = false;
    }
    return SV_OK;
}

sv_err lc_columns_model(ld_ctx *c, hid_t f, const h5u_list *el, lc_file *lf)
{
    for (size_t j = 0; j < lf->nkept; j++) {
        region *t = &lf->stage[lf->order[j]];
        t->n = (size_t)lf->cnt[lf->order[j]];
    }
    sv_err e = read_events(c, f, el, lf);
    for (size_t j = 0; j < lf->nkept; j++) {
        region *t = &lf->stage[lf->order[j]];
        t->has_event_data = lf->events;
        if (!lf->events)
            t->n = 0;
    }
    return e;
}

static sv_err load_rows(ld_ctx *c, hid_t f, lc_file *lf, const h5u_list *root, sv_error *err)
{
    ld_index *ix = &lf->ix;
    size_t P = ix->P;
    sv_err e = idx_u64(c, f, "event_offsets", &P, &lf->off, err);
    if (!e)
        e = idx_u64(c, f, "event_counts", &P, &lf->cnt, err);
    if (e)
        return e;
    char why[H5U_WHY_MAX];
    h5u_list il, el;
    hid_t ig = H5Gopen2(f, "rank_region_index", H5P_DEFAULT);
    h5u_status st = ig < 0 ? H5U_BAD : h5u_list_group(ig, &il, why, sizeof why);
    if (ig >= 0)
        H5Gclose(ig);
    if (st != H5U_OK)
        return st == H5U_NOMEM ? ld_nomem(c, err)
                               : index_fail(c, err, "rank_region_index", "cannot list");
    hid_t eg = h5u_list_find(root, "events") >= 0 ? H5Gopen2(f, "events", H5P_DEFAULT) : -1;
    st = eg < 0 ? H5U_BAD : h5u_list_group(eg, &el, why, sizeof why);
    if (eg >= 0)
        H5Gclose(eg);
    if (st != H5U_OK) {
        h5u_list_free(&il);
        H5Eclear2(H5E_DEFAULT);
        return st == H5U_NOMEM ? ld_nomem(c, err)
                               : index_fail(c, err, "events", "missing or not a group");
    }
    e = read_optional_index(c, f, &il, lf);
    if (e == SV_ERR_NOMEM)
        e = ld_nomem(c, err);
    if (!e)
        e = events_length(c, f, &el, lf, err);
    if (!e && (e = check_rows(c, lf)) == SV_ERR_NOMEM)
        e = ld_nomem(c, err);
    if (!e && (e = stage_rows(c, f, &el, lf)) == SV_ERR_NOMEM)
        e = ld_nomem(c, err);
    h5u_list_free(&il);
    h5u_list_free(&el);
    return e;
}

typedef struct rank_row {
    int rank;
    size_t pos; /* in lf->order: offset order */
} rank_row;

static int cmp_rank_row(const void *a, const void *b)
{
    const rank_row *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Commits the kept rows rank by rank, then adds the ranks that recorded
 * nothing below max(mpi_size, max rank + 1) (upstream's num_ranks). */
static sv_err commit_all(ld_ctx *c, hid_t f, const h5u_list *root, lc_file *lf)
{
    ld_lane_tables lt;
    sv_err e = ld_read_lane_tables(c, f, root, &lt);
    size_t n = lf->nkept;
    rank_row *v = malloc((n ? n : 1) * sizeof *v);
    size_t *rows = malloc((n ? n : 1) * sizeof *rows);
    if (!v || !rows || e) {
        free(v);
        free(rows);
        ld_lane_tables_free(&lt);
        return e ? e : SV_ERR_NOMEM;
    }
    /* Rows grouped by rank (each group in offset order): one pass. */
    for (size_t j = 0; j < n; j++)
        v[j] = (rank_row){lf->ix.rank[lf->order[j]], j};
    qsort(v, n, sizeof *v, cmp_rank_row);
    for (size_t j = 0; j < n; j++)
        rows[j] = lf->order[v[j].pos];
    for (size_t a = 0, b; !e && a < n; a = b) {
        for (b = a + 1; b < n && v[b].rank == v[a].rank; b++)
            ;
        e = lc_commit_rank(c, lf, &lt, v[a].rank, rows + a, b - a);
    }
    int top = n ? v[n - 1].rank + 1 : 0;
    free(v);
    free(rows);
    ld_lane_tables_free(&lt);
    /* A C-API rank file (metadata mpi_rank) holds its own rank only. */
    if (c->rank_override < 0 && c->mpi_rank < 0 && n > 0) {
        int64_t want = c->mpi_size > top ? c->mpi_size : top;
        for (int r = 0; !e && r < want && r < 65536; r++)
            if (!ld_rank(c, r))
                e = SV_ERR_NOMEM;
    }
    return e;
}

sv_err ld_load_columnar(ld_ctx *c, hid_t f, const h5u_list *root, bool aggregate, sv_error *err)
{
    lc_file lf;
    memset(&lf, 0, sizeof lf);
    c->p->legacy = false;
    c->p->layout = aggregate ? LAYOUT_AGGREGATE : LAYOUT_COLUMNAR;
    sv_err e = read_index_rows(c, f, &lf.ix, err);
    if (!e && aggregate) {
        e = ld_load_aggregate(c, f, &lf.ix);
        if (e == SV_ERR_NOMEM)
            e = ld_nomem(c, err);
    } else if (!e) {
        e = load_rows(c, f, &lf, root, err);
        bool later = !e;
        if (!e)
            e = commit_all(c, f, root, &lf);
        /* the file's end, its columns still open (load_sink.h step 4) */
        if (!e)
            e = ld_sink(c)->ops->file_end(ld_sink(c), c, &lf);
        if (later && e == SV_ERR_NOMEM)
            e = ld_nomem(c, err);
        else if (e == SV_ERR_FORMAT) /* stream_col.h: a read failed in a later pass */
            e = sv_error_set(err, e, "%s: events: a read failed while streaming the calls",
                             c->path);
    }
    lc_free(&lf);
    ld_progress(c);
    return e;
}
