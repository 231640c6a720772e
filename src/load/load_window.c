/* load_window: an out-of-core window's hyperslab reads (load_window.h).
 * A planned row reads its planned ranges in slices of OW_SLICE positions:
 * the timing columns decoded (schema 3 from the range's anchor, the start
 * of its first call), the calls starting in [lo, hi) kept; the open calls
 * come from the plan with their times.  The optional columns are then read
 * only around the kept positions (runs of them closer than OW_GAP read
 * together). */
#include "load_window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/budget.h"
#include "window_plan.h"

int ooc_rowplan_cmp(const void *a, const void *b)
{
    const ooc_rowplan *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->name, y->name);
}

const ooc_rowplan *ooc_plan_find(const ooc_plan *plan, int rank, const char *name)
{
    if (!plan || !name)
        return NULL;
    ooc_rowplan key = {.rank = rank, .name = name};
    return bsearch(&key, plan->rows, plan->nrows, sizeof *plan->rows, ooc_rowplan_cmp);
}

enum { OW_START, OW_END, OW_GPU, OW_CALL, OW_PARENT, OW_THREAD, OW_TASK, OW_AWAIT, OW_NCOL };

static const size_t ow_field[OW_NCOL] = {offsetof(region, start_ns),   offsetof(region, end_ns),
                                         offsetof(region, gpu_ns),     offsetof(region, call_ids),
                                         offsetof(region, parent_ids), offsetof(region, thread_ids),
                                         offsetof(region, task_ids),   offsetof(region, await_ns)};
/* Optional columns' dataset names: columnar (events/...) and schema 1. */
static const char *const ow_col3[OW_NCOL] = {
    NULL, NULL, "gpu_durations", "call_ids", "parent_ids", "thread_ids", "task_ids", "await_ns"};
static const char *const ow_col1[OW_NCOL] = {"start_times", "end_times",  "gpu_durations",
                                             "call_ids",    "parent_ids", "thread_ids",
                                             "task_ids",    "await_times"};

#define OW_SLICE ((size_t)1 << 20)
#define OW_GAP ((uint64_t)4096)

static int64_t **ow_col(region *r, int k)
{
    return (int64_t **)(void *)((char *)r + ow_field[k]);
}

/* The open columns of the file (columnar) or of one region (schema 1). */
typedef struct ow_cols {
    h5u_col col[OW_NCOL];
    bool have[OW_NCOL];
    bool s3; /* start deltas and durations */
} ow_cols;

static void ow_cols_close(ow_cols *oc)
{
    for (int k = 0; k < OW_NCOL; k++)
        if (oc->have[k])
            h5u_col_close(&oc->col[k]);
    memset(oc, 0, sizeof *oc);
}

/* The calls a row keeps: positions (ascending) and times. */
typedef struct ow_sel {
    uint64_t *pos;
    int64_t *s, *e;
    size_t n, cap;
} ow_sel;

static void ow_sel_free(ow_sel *sel)
{
    free(sel->pos);
    free(sel->s);
    free(sel->e);
    memset(sel, 0, sizeof *sel);
}

static bool ow_sel_push(ow_sel *sel, uint64_t pos, int64_t s, int64_t e)
{
    if (sel->n == sel->cap) {
        size_t cap = sel->cap ? sel->cap * 2 : 256;
        uint64_t *p = realloc(sel->pos, cap * sizeof *p);
        if (p)
            sel->pos = p;
        int64_t *vs = p ? realloc(sel->s, cap * sizeof *vs) : NULL;
        if (vs)
            sel->s = vs;
        int64_t *ve = vs ? realloc(sel->e, cap * sizeof *ve) : NULL;
        if (!ve)
            return false;
        sel->e = ve;
        sel->cap = cap;
    }
    sel->pos[sel->n] = pos;
    sel->s[sel->n] = s;
    sel->e[sel->n] = e;
    sel->n++;
    return true;
}

/* Decodes one slice of a range in place: s absolute starts, e ends.  run:
 * the start before the slice (schema 3).  false when a start or an end
 * overflows (the whole load would have dropped the row). */
static bool ow_decode(bool s3, int64_t *s, int64_t *e, size_t n, bool first, int64_t anchor,
                      int64_t *run)
{
    if (!s3)
        return true;
    for (size_t i = 0; i < n; i++) {
        if (first && i == 0)
            s[0] = anchor;
        else if (__builtin_add_overflow(*run, s[i], &s[i]))
            return false;
        *run = s[i];
        if (__builtin_add_overflow(s[i], e[i], &e[i]))
            return false;
    }
    return true;
}

/* The calls of one range starting in [lo, hi). */
static h5u_status ow_range(ow_cols *oc, uint64_t off, const ooc_rowplan *rp, const ooc_range *rg,
                           int64_t *bs, int64_t *be, ow_sel *sel, char *why, size_t whylen)
{
    int64_t run = rg->anchor;
    for (uint64_t x = rg->a; x < rg->b; x += OW_SLICE) {
        size_t n = rg->b - x < OW_SLICE ? (size_t)(rg->b - x) : OW_SLICE;
        h5u_status st = h5u_col_read(&oc->col[OW_START], off + x, n, bs, false, why, whylen);
        if (st == H5U_OK)
            st = h5u_col_read(&oc->col[OW_END], off + x, n, be, false, why, whylen);
        if (st != H5U_OK)
            return st;
        if (!ow_decode(oc->s3, bs, be, n, x == rg->a, rg->anchor, &run)) {
            snprintf(why, whylen, "start time overflows near call %llu",
                     (unsigned long long)(x + n));
            return H5U_BAD;
        }
        for (size_t i = 0; i < n; i++)
            if (bs[i] >= rp->lo && bs[i] < rp->hi && !ow_sel_push(sel, x + i, bs[i], be[i]))
                return H5U_NOMEM;
    }
    return H5U_OK;
}

/* The row's kept calls: the ranges' and the open ones, by position. */
static h5u_status ow_select(ow_cols *oc, uint64_t off, const ooc_rowplan *rp, ow_sel *sel,
                            char *why, size_t whylen)
{
    int64_t *bs = malloc(OW_SLICE * sizeof *bs), *be = malloc(OW_SLICE * sizeof *be);
    /* Room for what the ranges hold (at most a slice's worth more than
     * is kept in rows in start order): no regrowth on the way. */
    uint64_t most = rp->nopen;
    for (size_t k = 0; k < rp->nranges; k++)
        most += rp->ranges[k].b - rp->ranges[k].a;
    size_t cap = most < ((size_t)1 << 24) ? (size_t)most : (size_t)1 << 24;
    sel->pos = malloc((cap ? cap : 1) * sizeof *sel->pos);
    sel->s = malloc((cap ? cap : 1) * sizeof *sel->s);
    sel->e = malloc((cap ? cap : 1) * sizeof *sel->e);
    sel->cap = cap ? cap : 1;
    h5u_status st = bs && be && sel->pos && sel->s && sel->e ? H5U_OK : H5U_NOMEM;
    for (size_t k = 0; st == H5U_OK && k < rp->nranges; k++)
        st = ow_range(oc, off, rp, &rp->ranges[k], bs, be, sel, why, whylen);
    free(bs);
    free(be);
    for (size_t k = 0; st == H5U_OK && k < rp->nopen; k++)
        if (!ow_sel_push(sel, rp->open[k].pos, rp->open[k].start, rp->open[k].end))
            st = H5U_NOMEM;
    if (st != H5U_OK || sel->n < 2)
        return st;
    /* The ranges' calls come by position, and so do the open ones (the
     * plan sorts them), which may sit anywhere among the others (rows out
     * of start order): one merge. */
    size_t nr = sel->n - rp->nopen, n = sel->n;
    ow_sel out = {0};
    out.pos = malloc(n * sizeof *out.pos);
    out.s = malloc(n * sizeof *out.s);
    out.e = malloc(n * sizeof *out.e);
    out.cap = n;
    if (!out.pos || !out.s || !out.e) {
        ow_sel_free(&out);
        return H5U_NOMEM;
    }
    for (size_t i = 0, j = nr; i < nr || j < n;) {
        size_t k = j == n || (i < nr && sel->pos[i] <= sel->pos[j]) ? i++ : j++;
        if (out.n > 0 && out.pos[out.n - 1] == sel->pos[k])
            continue; /* an open call also in a range: never, but kept once */
        out.pos[out.n] = sel->pos[k];
        out.s[out.n] = sel->s[k];
        out.e[out.n++] = sel->e[k];
    }
    ow_sel_free(sel);
    *sel = out;
    return st;
}

/* Optional column k at the kept positions into dst. */
static h5u_status ow_gather(h5u_col *col, uint64_t off, const ow_sel *sel, int64_t *dst,
                            int64_t *buf, char *why, size_t whylen)
{
    size_t i = 0;
    while (i < sel->n) {
        uint64_t a = sel->pos[i];
        size_t j = i + 1;
        while (j < sel->n && sel->pos[j] - sel->pos[j - 1] <= OW_GAP && sel->pos[j] - a < OW_SLICE)
            j++;
        size_t len = (size_t)(sel->pos[j - 1] - a + 1);
        h5u_status st = h5u_col_read(col, off + a, len, buf, false, why, whylen);
        if (st != H5U_OK)
            return st;
        for (; i < j; i++)
            dst[i] = buf[sel->pos[i] - a];
    }
    return H5U_OK;
}

/* Schema 3's commit decodes the staged row: the kept starts as deltas
 * (the first absolute), the ends as durations. */
static void ow_encode(int64_t *s, int64_t *e, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        e[i] = (int64_t)((uint64_t)e[i] - (uint64_t)s[i]);
        if (i > 0)
            s[i] = (int64_t)((uint64_t)s[i] - (uint64_t)s[i - 1]);
    }
}

/* Reads row rp (at off in the columns) into t. */
static sv_err ow_row(ld_ctx *c, ow_cols *oc, uint64_t off, const ooc_rowplan *rp, bool encode,
                     region *t, const char *name)
{
    char why[H5U_WHY_MAX];
    ow_sel sel = {0};
    h5u_status st = ow_select(oc, off, rp, &sel, why, sizeof why);
    int ncols = 0;
    for (int k = 0; k < OW_NCOL; k++)
        ncols += oc->have[k];
    if (st == H5U_OK && !h5u_charge(&c->rd, oc->col[OW_START].ds,
                                    (uint64_t)sel.n * sizeof(int64_t) * (uint64_t)ncols))
        st = H5U_NOMEM;
    int64_t *buf = NULL;
    for (int k = OW_GPU; st == H5U_OK && k < OW_NCOL; k++) {
        if (!oc->have[k])
            continue;
        int64_t **d = ow_col(t, k);
        *d = h5u_alloc_i64(sel.n);
        if (!buf)
            buf = malloc(OW_SLICE * sizeof *buf);
        st = *d && buf ? ow_gather(&oc->col[k], off, &sel, *d, buf, why, sizeof why) : H5U_NOMEM;
        if (st == H5U_BAD) {
            ld_warn(c, name, "dataset", ow_col3[k], "%s; column dropped", why);
            ld_drop_col(d);
            st = H5U_OK;
        }
    }
    free(buf);
    if (st == H5U_NOMEM) {
        ow_sel_free(&sel);
        return SV_ERR_NOMEM;
    }
    t->has_event_data = true;
    if (st != H5U_OK) {
        ld_warn(c, name, "dataset", "start/end", "%s; no calls in the window", why);
        for (int k = 0; k < OW_NCOL; k++)
            ld_drop_col(ow_col(t, k));
        sel.n = 0;
    }
    t->n = sel.n;
    t->start_ns = sel.s ? sel.s : h5u_alloc_i64(0);
    t->end_ns = sel.e ? sel.e : h5u_alloc_i64(0);
    free(sel.pos);
    if (!t->start_ns || !t->end_ns)
        return SV_ERR_NOMEM;
    if (encode)
        ow_encode(t->start_ns, t->end_ns, t->n);
    return SV_OK;
}

/* ------------------------------------------------------------ columnar */

static sv_err ow_open_events(ld_ctx *c, hid_t f, const h5u_list *el, const lc_file *lf, ow_cols *oc)
{
    char why[H5U_WHY_MAX], path[64];
    oc->s3 = c->schema >= 3;
    for (int k = 0; k < OW_NCOL; k++) {
        const char *name = k < 2 ? lf->tnames[k] : ow_col3[k];
        if (h5u_list_find(el, name) < 0)
            continue;
        snprintf(path, sizeof path, "events/%s", name);
        h5u_status st = h5u_col_open(&c->rd, f, path, &oc->col[k], why, sizeof why);
        if (st == H5U_NOMEM)
            return SV_ERR_NOMEM;
        if (st == H5U_OK)
            oc->have[k] = true;
        else
            ld_warn(c, NULL, "dataset", path, "%s; column dropped", why);
    }
    return SV_OK;
}

sv_err ow_stage_columnar(ld_ctx *c, const ooc_plan *plan, hid_t f, const h5u_list *el, lc_file *lf)
{
    ow_cols oc;
    memset(&oc, 0, sizeof oc);
    sv_err e = ow_open_events(c, f, el, lf, &oc);
    bool timing = oc.have[OW_START] && oc.have[OW_END];
    for (size_t j = 0; !e && j < lf->nkept; j++) {
        size_t i = lf->order[j];
        region *t = &lf->stage[i];
        const ooc_rowplan *rp = ooc_plan_find(plan, lf->ix.rank[i], row_name(lf, i));
        t->has_event_data = true;
        if (timing && rp && rp->n == lf->cnt[i] && lf->off[i] + lf->cnt[i] <= oc.col[0].n &&
            lf->off[i] + lf->cnt[i] <= oc.col[1].n) {
            e = ow_row(c, &oc, lf->off[i], rp, oc.s3, t, row_name(lf, i));
            ld_progress(c); /* the loading child's watchdog sees each row */
            continue;
        }
        t->n = 0;
        t->start_ns = h5u_alloc_i64(0);
        t->end_ns = h5u_alloc_i64(0);
        if (!t->start_ns || !t->end_ns)
            e = SV_ERR_NOMEM;
    }
    lf->events = true;
    lf->has_await = oc.have[OW_AWAIT];
    ow_cols_close(&oc);
    return e;
}

/* ------------------------------------------------------------ schema 1 */

int ow_load_group(ld_ctx *c, const ooc_plan *plan, const rank_data *rk, hid_t g, const char *name,
                  h5u_list *l, region *t, sv_err *e)
{
    char why[H5U_WHY_MAX];
    ow_cols oc;
    memset(&oc, 0, sizeof oc);
    for (int k = 0; k < OW_NCOL; k++) {
        long idx = h5u_list_find(l, ow_col1[k]);
        if (idx < 0 || !h5u_maybe_dataset(&l->v[idx]))
            continue;
        h5u_status st = h5u_col_open(&c->rd, g, ow_col1[k], &oc.col[k], why, sizeof why);
        if (st == H5U_NOMEM) {
            ow_cols_close(&oc);
            *e = SV_ERR_NOMEM;
            return 0;
        }
        oc.have[k] = st == H5U_OK;
        if (k >= OW_GPU)
            c->p->legacy = false;
    }
    if (!oc.have[OW_START] || !oc.have[OW_END] || oc.col[OW_START].n != oc.col[OW_END].n) {
        ld_warn(c, name, "dataset", "start_times", "unusable in a window; region dropped");
        ow_cols_close(&oc);
        return 0;
    }
    for (int k = OW_GPU; k < OW_NCOL; k++)
        if (oc.have[k] && oc.col[k].n != oc.col[OW_START].n) {
            h5u_col_close(&oc.col[k]);
            oc.have[k] = false;
        }
    const ooc_rowplan *rp = ooc_plan_find(plan, rk->rank, name);
    if (rp && rp->n == oc.col[OW_START].n) {
        *e = ow_row(c, &oc, 0, rp, false, t, name);
    } else {
        t->has_event_data = true;
        t->n = 0;
        t->start_ns = h5u_alloc_i64(0);
        t->end_ns = h5u_alloc_i64(0);
        if (!t->start_ns || !t->end_ns)
            *e = SV_ERR_NOMEM;
    }
    ow_cols_close(&oc);
    return *e ? 0 : 1;
}
