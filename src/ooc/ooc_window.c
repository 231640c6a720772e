/* ooc_window: step 2 of the out-of-core viewer (ooc.h).  The plan (which
 * segments and open calls of each row a window needs) is made here from
 * the seek index; a loading child (isolate.c, load_sink_window) reads
 * only those (load_window.c) and, in its prepare step, lays the calls out
 * on the skeleton's ranks and regions and nests them; back here the ranks
 * whose whole profile inferred lanes are nested again from their open
 * calls' lanes (the nesting is not sent: rank_calls is built on demand).
 * Model code: no libhdf5. */
#include <stdlib.h>
#include <string.h>

#include "ooc_internal.h"
#include "isolate/wire.h"
#include "util/text.h"

/* ------------------------------------------------------------ the cap */

/* A window's bytes per call in the viewer, at most: the times (16), every
 * optional column a file may have (48), the nesting (parent, child, lane:
 * 12), the lanes index's entry (4), and while it is made the statistics'
 * copy of the durations (8) and the seeded sweep's keys (2 x 24). */
#define OOC_WINDOW_BYTES_PER_CALL 136
/* The share of the budget a window may take (the map, the seek index and
 * the skeleton hold the rest, and the previous window lives until the new
 * one replaces it). */
#define OOC_WINDOW_SHARE 3

uint64_t ooc_window_cap(uint64_t budget)
{
    return budget / OOC_WINDOW_SHARE / OOC_WINDOW_BYTES_PER_CALL;
}

/* ------------------------------------------------------------ the plan */

void ooc_plan_free(ooc_plan *plan)
{
    for (size_t i = 0; i < plan->nrows; i++) {
        free(plan->rows[i].ranges);
        free(plan->rows[i].open);
    }
    free(plan->rows);
    memset(plan, 0, sizeof *plan);
}

/* The last checkpoint at or before t0 (the first when t0 precedes it). */
static const ooc_checkpoint *plan_cp(const ooc_seek_rank *sr, int64_t t0)
{
    size_t lo = 0, hi = sr->ncp;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sr->cp[mid].t <= t0)
            lo = mid;
        else
            hi = mid;
    }
    return &sr->cp[lo];
}

static const ooc_seek_rank *seek_rank_of(const ooc_seek *s, size_t rank_index)
{
    if (rank_index < s->nranks && s->ranks[rank_index].rank_index == rank_index)
        return &s->ranks[rank_index];
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].rank_index == rank_index)
            return &s->ranks[i];
    return NULL;
}

static int open_pos_cmp(const void *a, const void *b)
{
    const ooc_open_call *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Segments of row sr meeting [lo, hi), merged into ranges; the row's open
 * calls of checkpoint cp. */
static bool plan_row(const ooc_seek_row *sr, const ooc_seek_rank *rk, const ooc_checkpoint *cp,
                     int64_t hi, ooc_rowplan *rp)
{
    rp->lo = cp->t;
    rp->hi = hi;
    for (size_t k = 0; k < sr->npts; k++) {
        if (sr->smax[k] < rp->lo || sr->smin[k] >= hi)
            continue;
        uint64_t a = (uint64_t)k * OOC_SEEK_STRIDE;
        uint64_t b = a + OOC_SEEK_STRIDE < sr->n ? a + OOC_SEEK_STRIDE : sr->n;
        if (rp->nranges && rp->ranges[rp->nranges - 1].b == a) {
            rp->ranges[rp->nranges - 1].b = b;
            continue;
        }
        if (!rp->ranges) {
            rp->ranges = malloc(sr->npts * sizeof *rp->ranges);
            if (!rp->ranges)
                return false;
        }
        rp->ranges[rp->nranges++] = (ooc_range){a, b, sr->start[k]};
    }
    for (size_t k = 0; k < cp->count; k++) {
        const ooc_open_call *o = &rk->open[cp->first + k];
        if (o->region_index != sr->region_index)
            continue;
        if (!rp->open) {
            rp->open = malloc(cp->count * sizeof *rp->open);
            if (!rp->open)
                return false;
        }
        rp->open[rp->nopen++] = *o;
    }
    if (rp->nopen > 1)
        qsort(rp->open, rp->nopen, sizeof *rp->open, open_pos_cmp);
    return true;
}

bool ooc_plan_make(const ooc_file *f, int64_t t0, int64_t t1, ooc_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->rows = calloc(f->seek.nrows ? f->seek.nrows : 1, sizeof *plan->rows);
    if (!plan->rows)
        return false;
    for (size_t i = 0; i < f->seek.nrows; i++) {
        const ooc_seek_row *sr = &f->seek.rows[i];
        const ooc_seek_rank *rk = seek_rank_of(&f->seek, sr->rank_index);
        if (!rk || rk->ncp == 0 || sr->rank_index >= f->skel->nranks ||
            sr->region_index >= f->skel->ranks[sr->rank_index].nregions)
            continue;
        const rank_data *srk = &f->skel->ranks[sr->rank_index];
        ooc_rowplan *rp = &plan->rows[plan->nrows];
        *rp = (ooc_rowplan){.rank = srk->rank,
                            .name = srk->regions[sr->region_index]->name,
                            .rank_index = sr->rank_index,
                            .region_index = sr->region_index,
                            .n = sr->n};
        if (!plan_row(sr, rk, plan_cp(rk, t0), t1, rp)) {
            plan->nrows++;
            ooc_plan_free(plan);
            return false;
        }
        if (rp->nranges == 0 && rp->nopen == 0)
            continue;
        for (size_t k = 0; k < rp->nranges; k++)
            plan->calls += rp->ranges[k].b - rp->ranges[k].a;
        plan->calls += rp->nopen;
        plan->nrows++;
    }
    qsort(plan->rows, plan->nrows, sizeof *plan->rows, ooc_rowplan_cmp);
    return true;
}

/* ------------------------------------------------------------ the child's step */

/* The loaded window's columns moved onto the skeleton's frame (every rank
 * and region, the skeleton's indices), the optional columns the whole row
 * did not keep dropped; sorted and numbered again, the load's statistics
 * moved along. */
typedef struct ow_prep {
    const ooc_file *f;
} ow_prep;

static void move_col(int64_t **dst, int64_t **src, bool keep)
{
    if (keep)
        *dst = *src;
    else
        free(*src);
    *src = NULL;
}

static void move_region(region *d, region *s, const region *skel)
{
    d->n = s->n;
    d->st = s->st;
    move_col(&d->start_ns, &s->start_ns, true);
    move_col(&d->end_ns, &s->end_ns, true);
    bool ids = ooc_region_has(skel, SV_SCOL_IDS);
    move_col(&d->call_ids, &s->call_ids, ids);
    move_col(&d->parent_ids, &s->parent_ids, ids);
    move_col(&d->thread_ids, &s->thread_ids, ooc_region_has(skel, SV_SCOL_THREADS));
    move_col(&d->task_ids, &s->task_ids, ooc_region_has(skel, SV_SCOL_TASKS));
    move_col(&d->await_ns, &s->await_ns, ooc_region_has(skel, SV_SCOL_AWAIT));
    move_col(&d->gpu_ns, &s->gpu_ns, ooc_region_has(skel, SV_SCOL_GPU));
    /* s keeps its n: what it still owns (event_meta) is freed by it */
}

/* Empty regions get columns too (a region with events has them), and a
 * region whose whole row has ids keeps them when empty (explicit nesting
 * needs every region's). */
static bool fill_empty(region *d, const region *skel)
{
    if (!d->has_event_data || d->start_ns)
        return true;
    d->n = 0;
    d->start_ns = malloc(sizeof *d->start_ns);
    d->end_ns = malloc(sizeof *d->end_ns);
    bool ok = d->start_ns && d->end_ns;
    if (ok && ooc_region_has(skel, SV_SCOL_IDS)) {
        d->call_ids = malloc(sizeof *d->call_ids);
        d->parent_ids = malloc(sizeof *d->parent_ids);
        ok = d->call_ids && d->parent_ids;
    }
    return ok;
}

static sv_err ow_layout(const profile *skel, profile *loaded, profile **out, sv_error *err)
{
    profile *w = ooc_frame(skel);
    if (!w)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    bool ok = true;
    for (size_t i = 0; ok && i < w->nranks; i++) {
        rank_data *wr = &w->ranks[i];
        const rank_data *lr = profile_rank(loaded, wr->rank);
        for (size_t j = 0; ok && j < wr->nregions; j++) {
            region *s = lr ? rank_region(lr, wr->regions[j]->name) : NULL;
            if (s && s->has_event_data && wr->regions[j]->has_event_data)
                move_region(wr->regions[j], s, skel->ranks[i].regions[j]);
            ok = fill_empty(wr->regions[j], skel->ranks[i].regions[j]);
        }
    }
    /* The window's own exclusive totals are never shown, and its per-call
     * nesting is built where it is used (lanes_build): no nesting pass
     * here; the flags are the whole profile's. */
    for (size_t i = 0; ok && i < w->nranks; i++) {
        w->ranks[i].explicit_ids = skel->ranks[i].explicit_ids;
        w->ranks[i].ninferred_lanes = skel->ranks[i].ninferred_lanes;
    }
    sv_err e = ok ? profile_finish_steps(w, false, false, err)
                  : sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    if (e) {
        profile_free(w);
        return e;
    }
    ooc_same_zero(w, skel);
    *out = w;
    return SV_OK;
}

static sv_err ow_prepare(void *ctx, profile **p, sv_error *err)
{
    const ow_prep *x = ctx;
    profile *w = NULL;
    sv_err e = ow_layout(x->f->skel, *p, &w, err);
    if (!e) {
        profile_free(*p);
        *p = w;
    }
    return e;
}

/* ------------------------------------------------------------ back here */

typedef struct open_key {
    uint32_t reg;
    int64_t s, e;
    uint32_t lane;
} open_key;

static int open_key_cmp(const void *a, const void *b)
{
    const open_key *x = a, *y = b;
    if (x->reg != y->reg)
        return x->reg < y->reg ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* Rank rk of the window, whose whole profile inferred lanes: its calls
 * before the checkpoint are the open ones, forced into their lanes (an
 * identical interval of a region is in one lane: first fit treats both
 * alike). */
static sv_err renest_rank(rank_data *rk, const ooc_seek_rank *sr, int64_t t0, sv_error *err)
{
    const ooc_checkpoint *cp = plan_cp(sr, t0);
    size_t n = rk->ncalls, m = cp->count;
    uint32_t *forced = malloc((n ? n : 1) * sizeof *forced);
    open_key *keys = malloc((m ? m : 1) * sizeof *keys);
    if (!forced || !keys) {
        free(forced);
        free(keys);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < m; k++) {
        const ooc_open_call *o = &sr->open[cp->first + k];
        keys[k] = (open_key){o->region_index, o->start, o->end, o->lane};
    }
    qsort(keys, m, sizeof *keys, open_key_cmp);
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            open_key k = {(uint32_t)j, r->start_ns[i], r->end_ns[i], 0};
            const open_key *hit =
                r->start_ns[i] < cp->t ? bsearch(&k, keys, m, sizeof *keys, open_key_cmp) : NULL;
            forced[r->gidx0 + i] = hit ? hit->lane : UINT32_MAX;
        }
    }
    free(keys);
    sv_err e = ooc_nest_seeded(rk, forced, sr->ninferred, err);
    free(forced);
    return e;
}

static sv_err renest(const ooc_file *f, profile *w, int64_t t0, sv_error *err)
{
    for (size_t i = 0; i < w->nranks && i < f->skel->nranks; i++) {
        const ooc_seek_rank *sr = seek_rank_of(&f->seek, i);
        if (!sr || sr->ninferred == 0 || sr->ncp == 0)
            continue;
        sv_err e = renest_rank(&w->ranks[i], sr, t0, err);
        if (e)
            return e;
    }
    return SV_OK;
}

/* ------------------------------------------------------------ the window */

static sv_err empty_window(const ooc_file *f, profile **out, sv_error *err)
{
    profile *w = ooc_frame(f->skel);
    bool ok = w != NULL;
    for (size_t i = 0; ok && i < w->nranks; i++)
        for (size_t j = 0; ok && j < w->ranks[i].nregions; j++)
            ok = fill_empty(w->ranks[i].regions[j], f->skel->ranks[i].regions[j]);
    for (size_t i = 0; ok && i < w->nranks; i++) {
        w->ranks[i].explicit_ids = f->skel->ranks[i].explicit_ids;
        w->ranks[i].ninferred_lanes = f->skel->ranks[i].ninferred_lanes;
    }
    sv_err e = ok ? profile_finish_steps(w, false, false, err)
                  : sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    if (e) {
        profile_free(w);
        return e;
    }
    ooc_same_zero(w, f->skel);
    *out = w;
    return SV_OK;
}

static sv_err changed(const ooc_file *f, sv_error *err)
{
    char epath[256];
    text_escape_buf(epath, sizeof epath, f->path);
    return sv_error_set(err, SV_ERR_DAMAGED, "%s: " OOC_CHANGED_MSG, epath);
}

sv_err ooc_window(const ooc_file *f, int64_t t0, int64_t t1, profile **out, sv_error *err)
{
    return ooc_window_cancellable(f, t0, t1, NULL, out, err);
}

sv_err ooc_window_cancellable(const ooc_file *f, int64_t t0, int64_t t1, const atomic_bool *cancel,
                              profile **out, sv_error *err)
{
    *out = NULL;
    sv_error_clear(err);
    ooc_plan plan;
    if (t0 >= t1 || !f->skel)
        return f->skel ? empty_window(f, out, err)
                       : sv_error_set(err, SV_ERR_USAGE, "ooc_window: no skeleton");
    /* The map and the seek index describe the file opened: a window of
     * another one would be drawn on lanes and checkpoints that are not its. */
    if (!ooc_file_unchanged(f))
        return changed(f, err);
    if (!ooc_plan_make(f, t0, t1, &plan))
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    if (plan.nrows == 0) {
        ooc_plan_free(&plan);
        return empty_window(f, out, err);
    }
    ow_prep prep = {f};
    wire_section sec = {NULL, NULL, &prep};
    isolate_options io = {.budget = f->budget,
                          .window = &plan,
                          .prepare = ow_prepare,
                          .section = &sec,
                          .prepare_nests = true,
                          .cancel = cancel};
    /* A C-API file set: every file of it (its ranks are in several). */
    if (f->skel->npaths > 1) {
        io.paths = (const char *const *)f->skel->paths;
        io.npaths = f->skel->npaths;
    }
    profile *p = NULL;
    sv_err e = profile_load_isolated(f->path, &io, &p, err);
    /* In process the prepare step does not run: it runs here. */
    if (!e && isolate_disabled())
        e = ow_prepare(&prep, &p, err);
    ooc_plan_free(&plan);
    /* Checked again once read: the file replaced during the read. */
    if (!e && (!ooc_file_unchanged(f) || ooc_index_digest(p) != f->id.digest))
        e = changed(f, err);
    if (!e)
        e = renest(f, p, t0, err);
    if (e) {
        profile_free(p);
        return e;
    }
    *out = p;
    return SV_OK;
}
