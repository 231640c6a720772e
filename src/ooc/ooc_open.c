/* ooc_open: step 1 of the out-of-core viewer (ooc.h).
 *
 * The load runs streamed (LOAD_STREAM_FORCE) in the loading child, or
 * in-process when isolation is off, with two steps of its own:
 * - a columnar file's streamed load ends with ooc_h5's pass over its rows
 *   (load_options.streamed, while the columns are open): the map and the
 *   seek index;
 * - after the load (isolate_options.prepare, called here in-process):
 *   the pass's indices checked against the finished skeleton, the seek
 *   rows put in the skeleton's order, the map's coarser levels built.  A
 *   file the pass did not see was loaded in memory, within the budget
 *   (schema 1: load_groups.c does not stream it for the pass; a columnar
 *   file too sparse to stream): it is swept from its columns (ooc_scan.h)
 *   and then stripped to a skeleton.
 * The map and the seek index follow the skeleton as a wire.h section
 * (ooc_wire.c), checked against it by the receiver. */
#include "ooc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/budget.h"
#include "model/filter.h"
#include "model/lanes.h"
#include "load/loader.h"
#include "ooc_h5.h"
#include "ooc_paths.h"
#include "ooc_slowest.h"
#include "ooc_lanefig.h"
#include "ooc_bins.h"
#include "model/sanity.h"
#include "util/hash.h"
#include "util/text.h"
#include "isolate/wire.h"

typedef struct ooc_ctx {
    ooc_h5 h; /* the pass (in the child, or here) */
    ooc_map map;
    ooc_seek seek;
    call_paths *paths;   /* the sweep's (taken by oc_finish), then the ones received */
    bool got;            /* map and seek received (or moved from h) */
    slow_calls *slowest; /* the same for each region's slowest calls */
    time_bins *bins;     /* the same for the duration-over-time bins */
    const char *path;
    char epath[400];
    uint64_t budget;
    const ooc_sink_hook *hook; /* the caller's extra sink, NULL none */
    lane_figs *lanefigs;       /* the sweep's, then the ones received */
} ooc_ctx;

/* ------------------------------------------------------------ in memory */

typedef struct msrc {
    const region *r;
    bool done;
    bool aux; /* a sink or the hook reads the await and GPU columns */
    bool ids; /* the hook reads the call ids */
} msrc;

static int mem_refill(void *ctx, ooc_src *src)
{
    msrc *x = ctx;
    if (x->done) {
        src->base = x->r->n; /* every call read */
        return 0;
    }
    x->done = true;
    src->s = x->r->start_ns;
    src->e = x->r->end_ns;
    src->thr = x->r->thread_ids;
    src->task = x->r->task_ids;
    src->await = x->aux ? x->r->await_ns : NULL;
    src->gpu = x->aux ? x->r->gpu_ns : NULL;
    src->ids = x->ids ? x->r->call_ids : NULL;
    src->len = x->r->n;
    src->base = 0;
    return x->r->n > 0;
}

static bool in_order(const region *r)
{
    for (size_t i = 1; i < r->n; i++)
        if (r->start_ns[i] < r->start_ns[i - 1] ||
            (r->start_ns[i] == r->start_ns[i - 1] && r->end_ns[i] > r->end_ns[i - 1]))
            return false;
    return true;
}

/* Whether the sweep does the rank as nest.c does: no call ids (explicit
 * or fallen back), every row in (start, -end) order. */
static bool sweepable(const rank_data *rk, bool *lanes)
{
    bool ids = true, any = false;
    *lanes = false;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        *lanes |= r->thread_ids || r->task_ids; /* nest_infer.c's rank_has_lanes */
        if (!r->has_event_data || r->n == 0)
            continue;
        any = true;
        ids &= r->call_ids && r->parent_ids;
        if (!in_order(r))
            return false;
    }
    return !(ids && any);
}

static sv_err mem_rank(ooc_ctx *x, const rank_data *rk, size_t k)
{
    bool lanes;
    if (!sweepable(rk, &lanes))
        return SV_ERR_RANGE;
    ooc_src *srcs = calloc(rk->nregions + 1, sizeof *srcs);
    msrc *m = calloc(rk->nregions + 1, sizeof *m);
    size_t n = 0;
    for (size_t j = 0; srcs && m && j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (!r->has_event_data || r->n == 0)
            continue;
        m[n].r = r;
        m[n].aux = x->h.sc.aux || (x->hook && x->hook->aux);
        m[n].ids = x->hook && x->hook->ids;
        srcs[n] = (ooc_src){.reg = (uint32_t)j, .n = r->n, .refill = mem_refill, .ctx = &m[n]};
        n++;
    }
    for (size_t j = 0; srcs && m && j < n; j++)
        srcs[j].skip = x->h.filter && !filter_match(x->h.filter, m[j].r);
    int rc = srcs && m ? ooc_scan_rank(&x->h.sc, k, srcs, n, lanes, rk->ninferred_lanes) : -1;
    free(srcs);
    free(m);
    return rc == -2 ? SV_ERR_FORMAT : rc ? SV_ERR_NOMEM : SV_OK;
}

/* The grid's hint as the scan counts it (ooc_scan.h): a rank the sweep
 * does without lane columns counts one lane, its others added as found;
 * any other rank its (filtered) lanes. */
static size_t mem_hint(const profile *p, const lanes_index *ix)
{
    size_t hint = 0;
    for (size_t k = 0; k < p->nranks; k++) {
        size_t nl = ix->rank_lane0[k + 1] - ix->rank_lane0[k];
        bool lanes;
        bool swept = p->ranks[k].ncalls && sweepable(&p->ranks[k], &lanes) && !lanes;
        hint += swept && nl > 1 ? 1 : nl;
    }
    return hint;
}

/* A region's columns dropped, as the streamed load leaves it. */
static void strip_region(region *r)
{
    if (!r->has_event_data || r->streamed)
        return;
    r->stream_cols = (r->gpu_ns ? SV_SCOL_GPU : 0) | (r->await_ns ? SV_SCOL_AWAIT : 0) |
                     (r->thread_ids ? SV_SCOL_THREADS : 0) | (r->task_ids ? SV_SCOL_TASKS : 0) |
                     (r->call_ids && r->parent_ids ? SV_SCOL_IDS : 0);
    if (r->thread_ids && r->n) { /* the sorted distinct rows, region_threads' answer */
        int64_t *t = malloc(r->n * sizeof *t);
        size_t m = 0;
        for (size_t i = 0; t && i < r->n; i++) {
            size_t lo = 0, hi = m;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (t[mid] < r->thread_ids[i])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < m && t[lo] == r->thread_ids[i])
                continue;
            memmove(t + lo + 1, t + lo, (m - lo) * sizeof *t);
            t[lo] = r->thread_ids[i];
            m++;
        }
        r->stream_threads = t;
        r->stream_nthreads = t ? m : 0;
    }
    int64_t **cols[] = {&r->start_ns,   &r->end_ns,   &r->call_ids, &r->parent_ids,
                        &r->thread_ids, &r->task_ids, &r->await_ns, &r->gpu_ns};
    for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
        free(*cols[c]);
        *cols[c] = NULL;
    }
    for (size_t i = 0; r->event_meta && i < r->n; i++)
        free(r->event_meta[i]);
    free(r->event_meta);
    r->event_meta = NULL;
    r->n = 0;
    r->streamed = true;
}

static void strip(profile *p)
{
    for (size_t k = 0; k < p->nranks; k++) {
        rank_data *rk = &p->ranks[k];
        rank_calls_free(rk->calls);
        rk->calls = NULL;
        rk->ncalls = 0;
        for (size_t j = 0; j < rk->nregions; j++) {
            strip_region(rk->regions[j]);
            rk->regions[j]->gidx0 = 0;
        }
    }
}

static bool any_streamed(const profile *p)
{
    for (size_t i = 0; i < p->nregions; i++)
        if (p->regions[i]->streamed)
            return true;
    return false;
}

/* The file in memory, when it streamed without the pass (no layout does
 * today: a safety net). */
static sv_err reload(ooc_ctx *x, profile **pp, sv_error *err)
{
    load_budget b = {.limit = x->budget};
    load_options lo = {.budget = &b};
    profile *q = NULL;
    sv_err e = profile_load(x->path, &lo, &q, err);
    bool over = b.exceeded;
    budget_free(&b);
    if (e == SV_ERR_NOMEM && over) {
        char lim[32];
        budget_format(lim, sizeof lim, x->budget);
        return sv_error_set(err, SV_ERR_NOMEM,
                            "%s: out of core, a file of this layout (schema 1, or a JSON "
                            "profile) must fit the memory budget of %s (--memory); schema 2 "
                            "and 3 HDF5 files need not",
                            x->epath, lim);
    }
    if (e)
        return e;
    profile_check_values(q);
    profile_free(*pp);
    *pp = q;
    return SV_OK;
}

static int mview_rank_no(const void *ctx, size_t k)
{
    return ((const profile *)ctx)->ranks[k].rank;
}

static size_t mview_nregs(const void *ctx, size_t k)
{
    return ((const profile *)ctx)->ranks[k].nregions;
}

static const char *mview_reg_name(const void *ctx, size_t k, uint32_t j)
{
    return ((const profile *)ctx)->ranks[k].regions[j]->name;
}

static bool mem_hook(ooc_ctx *x, const profile *p)
{
    ooc_sweep_view v = {p,
                        p->nranks,
                        mview_rank_no,
                        mview_nregs,
                        mview_reg_name,
                        p->has_min_start,
                        p->min_start_ns,
                        &x->h.sc.map};
    return !x->hook || x->hook->attach(x->hook->ctx, &x->h.sc, &v);
}

static sv_err mem_route(ooc_ctx *x, profile **pp, sv_error *err)
{
    sv_err e = any_streamed(*pp) ? reload(x, pp, err) : SV_OK;
    profile *p = *pp;
    lanes_index *ix = NULL;
    if (!e)
        e = lanes_build(p, x->h.filter, &ix, err);
    if (e)
        return e;
    ooc_seek ref = {0};
    bool have_ref = false;
    e = ooc_scan_init(&x->h.sc, ix->t_min, ix->t_max, mem_hint(p, ix), x->h.map_cells) &&
                ooc_sinks_attach(&x->h.sc, x->budget) && mem_hook(x, p)
            ? SV_OK
            : SV_ERR_NOMEM;
    for (size_t k = 0; !e && k < p->nranks; k++) {
        const rank_data *rk = &p->ranks[k];
        if (rk->ncalls == 0) {
            e = ooc_scan_rank_entry(&x->h.sc, k, INT64_MAX, true) ? SV_OK : SV_ERR_NOMEM;
            continue;
        }
        e = mem_rank(x, rk, k);
        if (e != SV_ERR_RANGE)
            continue;
        /* call ids or a row out of order: the in-memory index and seek */
        e = SV_OK;
        if (!have_ref && !(have_ref = ooc_seek_from_profile(p, &ref)))
            e = SV_ERR_NOMEM;
        if (!e && (!ooc_scan_feed_lanes(&x->h.sc, k, ix, k, NULL) ||
                   !ooc_scan_take_seek(&x->h.sc, k, &ref, k, NULL)))
            e = SV_ERR_NOMEM;
        if (!e && !ref.ranks[k].windowable)
            profile_warn(p,
                         "%s: rank %d: out of core, the timeline shows only the overview for this "
                         "rank (its call ids fell back to inference, or a parent starts after "
                         "its child)",
                         x->epath, rk->rank);
    }
    ooc_seek_free(&ref);
    lanes_free(ix);
    if (e == SV_ERR_FORMAT)
        return sv_error_set(err, e, "%s: out of core: %s", x->epath, x->h.sc.why);
    if (e)
        return sv_error_set(err, e, "%s: out of memory while mapping the calls", x->epath);
    strip(p);
    return SV_OK;
}

/* ------------------------------------------------------------ finishing */

static int row_cmp(const void *a, const void *b)
{
    const ooc_seek_row *x = a, *y = b;
    if (x->rank_index != y->rank_index)
        return x->rank_index < y->rank_index ? -1 : 1;
    return (x->region_index > y->region_index) - (x->region_index < y->region_index);
}

/* The seek rows in the skeleton's order, one for every region with event
 * data (an empty one for a row without calls); false when they do not fit
 * the skeleton. */
static bool order_rows(ooc_seek *s, const profile *p)
{
    if (s->nrows > 1)
        qsort(s->rows, s->nrows, sizeof *s->rows, row_cmp);
    ooc_seek_row *v = calloc(p->nregions + 1, sizeof *v);
    size_t n = 0, at = 0;
    bool ok = v != NULL;
    for (size_t k = 0; ok && k < p->nranks; k++)
        for (size_t j = 0; ok && j < p->ranks[k].nregions; j++) {
            const region *r = p->ranks[k].regions[j];
            bool have =
                at < s->nrows && s->rows[at].rank_index == k && s->rows[at].region_index == j;
            if (!r->has_event_data) {
                ok = !have;
                continue;
            }
            if (have) {
                v[n] = s->rows[at++];
                ok = v[n++].n == (uint64_t)r->st.num_calls;
                continue;
            }
            int64_t *a = malloc(sizeof *a), *b = malloc(sizeof *b), *c = malloc(sizeof *c);
            v[n++] = (ooc_seek_row){k, j, 0, 0, a, b, c};
            ok = a && b && c && r->st.num_calls == 0;
        }
    ok = ok && at == s->nrows;
    if (!v)
        return false;
    if (!ok) { /* the rows moved to v are freed there */
        for (size_t i = at; i < s->nrows; i++)
            v[n++] = s->rows[i];
    }
    free(s->rows);
    s->rows = v;
    s->nrows = n;
    return ok;
}

static sv_err oc_finish(ooc_ctx *x, profile **pp, sv_error *err)
{
    ooc_h5 *h = &x->h;
    ooc_parts_close(&h->parts); /* in the child: a file mapped in memory sends no part */
    if (!h->ran) {
        sv_err e = mem_route(x, pp, err);
        if (e)
            return e;
    } else if (!ooc_h5_check(h, *pp)) {
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: out of core: the finished profile's ranks and regions are not "
                            "the ones mapped",
                            x->epath);
    }
    for (size_t i = 0; i < h->nnw; i++)
        profile_warn(*pp,
                     "%s: rank %d: out of core, the timeline shows only the overview for this "
                     "rank (%s)",
                     h->path, h->nw_rank[i], h->nw_why[i]);
    ooc_map_finish(&h->sc.map);
    if (h->sc.map.nomem)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory while mapping the calls",
                            x->epath);
    if (!order_rows(&h->sc.seek, *pp))
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: out of core: the seek index does not fit the profile", x->epath);
    x->paths = ooc_paths_take(ooc_scan_take_sink(&h->sc, &ooc_paths_sink));
    if (!x->paths)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory while summing the call paths",
                            x->epath);
    x->slowest = ooc_slowest_take(ooc_scan_take_sink(&h->sc, &ooc_slowest_sink));
    if (!x->slowest)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory while keeping the slowest calls",
                            x->epath);
    x->lanefigs = ooc_lanefig_take(ooc_scan_take_sink(&h->sc, &ooc_lanefig_sink), &h->sc.map);
    if (!x->lanefigs)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory while measuring the lanes",
                            x->epath);
    x->bins = ooc_bins_take(ooc_scan_take_sink(&h->sc, &ooc_bins_sink));
    if (!x->bins)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory while binning the calls",
                            x->epath);
    if (x->hook && x->hook->finish && !x->hook->finish(x->hook->ctx, &h->sc))
        return sv_error_set(err, SV_ERR_IO, "%s: out of core: the export failed", x->epath);
    return SV_OK;
}

static sv_err oc_prepare(void *ctx, profile **p, sv_error *err)
{
    return oc_finish(ctx, p, err);
}

static void oc_put(wire_w *w, void *ctx)
{
    ooc_ctx *x = ctx;
    ooc_wire_put(w, &x->h.sc.map, &x->h.sc.seek);
    ooc_paths_put(w, x->paths);
    ooc_slowest_put(w, x->slowest);
    lane_figs_put(w, x->lanefigs);
    ooc_bins_put(w, x->bins);
}

/* In the child, once the model is sent (isolate.h light_first): the map
 * and the index are the parent's now, and the full load needs the room. */
static void oc_sent(void *ctx)
{
    ooc_ctx *x = ctx;
    ooc_scan_free(&x->h.sc);
    call_paths_free(x->paths);
    x->paths = NULL;
    slow_calls_free(x->slowest);
    x->slowest = NULL;
    lane_figs_free(x->lanefigs);
    x->lanefigs = NULL;
    time_bins_free(x->bins);
    x->bins = NULL;
}

static bool oc_get(wire_r *r, void *ctx)
{
    ooc_ctx *x = ctx;
    x->got = ooc_wire_get(r, &x->map, &x->seek) && (x->paths = ooc_paths_get(r)) != NULL &&
             (x->slowest = ooc_slowest_get(r)) != NULL &&
             (x->lanefigs = lane_figs_get(r)) != NULL && (x->bins = ooc_bins_get(r)) != NULL;
    return x->got;
}

/* ------------------------------------------------------------ the API */

bool ooc_file_id_now(const char *path, ooc_file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (!path || stat(path, &st) != 0)
        return false;
    *id = (ooc_file_id){.dev = (uint64_t)st.st_dev,
                        .ino = (uint64_t)st.st_ino,
                        .size = (int64_t)st.st_size,
                        .mtime_s = (int64_t)st.st_mtim.tv_sec,
                        .mtime_ns = (int64_t)st.st_mtim.tv_nsec};
    return true;
}

static uint64_t digest_mix(uint64_t h, uint64_t v)
{
    return sv_hash_u64(h ^ v) + 0x9e3779b97f4a7c15ULL;
}

uint64_t ooc_index_digest(const profile *p)
{
    uint64_t h = digest_mix(0, p->nranks);
    for (size_t i = 0; i < p->nranks; i++) {
        const rank_data *rk = &p->ranks[i];
        h = digest_mix(digest_mix(h, (uint64_t)(int64_t)rk->rank), rk->nregions);
        for (size_t j = 0; j < rk->nregions; j++)
            h = digest_mix(h, sv_hash_str(rk->regions[j]->name ? rk->regions[j]->name : ""));
    }
    return h;
}

bool ooc_file_unchanged(const ooc_file *f)
{
    ooc_file_id now;
    return ooc_file_id_now(f->path, &now) && now.dev == f->id.dev && now.ino == f->id.ino &&
           now.size == f->id.size && now.mtime_s == f->id.mtime_s && now.mtime_ns == f->id.mtime_ns;
}

void ooc_file_free(ooc_file *f)
{
    if (!f)
        return;
    free(f->path);
    profile_free(f->skel);
    ooc_map_free(&f->map);
    ooc_seek_free(&f->seek);
    lane_figs_free(f->lanefigs);
    free(f);
}

sv_err ooc_open(const char *path, const isolate_options *opt, ooc_file **out, sv_error *err)
{
    return ooc_open_where(path, opt, NULL, out, err);
}

uint64_t ooc_sweep_pack(ooc_sweep s)
{
    uint64_t r = s.rank < 0xfffff ? s.rank : 0xfffff, n = s.nranks < 0xfffff ? s.nranks : 0xfffff;
    return r << 44 | n << 24 | (s.permyriad < 10000 ? s.permyriad : 10000);
}

ooc_sweep ooc_sweep_unpack(uint64_t v)
{
    ooc_sweep s = {(uint32_t)(v >> 44), (uint32_t)(v >> 24) & 0xfffff, (uint32_t)v & 0xffffff};
    s.permyriad = s.permyriad < 10000 ? s.permyriad : 10000;
    return s;
}

typedef struct oc_progress {
    const isolate_options *opt;
    const ooc_watch *watch;
} oc_progress;

/* The load's records split: bytes to the caller's callback, the pass's
 * to the watcher. */
static void oc_progress_split(void *ctx, uint64_t done, uint64_t total)
{
    const oc_progress *x = ctx;
    if (done == OOC_SWEEP_MARK) {
        if (x->watch && x->watch->sweep)
            x->watch->sweep(x->watch->ctx, ooc_sweep_unpack(total));
    } else if (x->opt && x->opt->progress) {
        x->opt->progress(x->opt->progress_ctx, done, total);
    }
}

sv_err ooc_open_where(const char *path, const isolate_options *opt, const region_filter *filter,
                      ooc_file **out, sv_error *err)
{
    return ooc_open_watch(path, opt, filter, NULL, out, err);
}

sv_err ooc_open_hooked(const char *path, const isolate_options *opt, const region_filter *filter,
                       const ooc_sink_hook *hook, ooc_file **out, sv_error *err)
{
    ooc_watch w = {NULL, NULL, hook, {0}};
    return ooc_open_watch(path, opt, filter, &w, out, err);
}

/* An open started (ooc_open_begin): the loading child forked by the
 * caller's thread, which a child's parent-death signal follows. */
struct ooc_opening {
    ooc_ctx *x;
    wire_section sec;
    oc_progress split;
    isolate_options io;
    ooc_file_id id;
    bool have_id;
    isolate_load *ld;
    sv_err rc; /* a failure before the start */
    sv_error err;
};

ooc_opening *ooc_open_begin(const char *path, const isolate_options *opt,
                            const region_filter *filter, const ooc_watch *watch)
{
    ooc_opening *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    sv_error_clear(&g->err);
    ooc_ctx *x = path ? calloc(1, sizeof *x) : NULL;
    if (!path || !x) {
        g->rc = sv_error_set(&g->err, path ? SV_ERR_NOMEM : SV_ERR_USAGE,
                             path ? "out of memory" : "ooc_open: no path");
        free(x);
        return g;
    }
    g->x = x;
    x->path = path;
    text_escape_buf(x->epath, sizeof x->epath, path);
    if (opt && opt->paths && opt->npaths > 1) {
        g->rc = sv_error_set(&g->err, SV_ERR_USAGE, "%s: a file set cannot be opened out of core",
                             x->epath);
        return g;
    }
    x->budget = isolate_budget_or_default(opt ? opt->budget : 0);
    g->sec = (wire_section){oc_put, oc_get, x};
    isolate_options io = opt ? *opt : (isolate_options){0};
    io.budget = x->budget;
    x->h.map_cells = ooc_map_cells_cap(x->budget);
    x->h.budget = x->budget;
    x->h.filter = filter; /* the loading child's copy of the caller's */
    x->h.hook = watch ? watch->hook : NULL;
    if (watch && !isolate_disabled()) /* in process the pass would write to its own reader */
        x->h.parts = watch->parts;
    x->hook = x->h.hook;
    io.paths = NULL;
    io.npaths = 0;
    io.stored_statistics = false;
    io.stream = LOAD_STREAM_FORCE;
    io.prepare = oc_prepare;
    io.section = &g->sec;
    io.prepare_nests = false;
    /* The first frame needs the map, not pass 2 (exclusive totals,
     * percentiles): they follow as a tail, to opt->tail when the caller
     * takes it (the viewer's stats_job), else received before returning. */
    io.defer_stats = true;
    io.stats_in_child = true;
    io.light_first = true;
    io.sent = oc_sent;
    io.tail = opt ? opt->tail : NULL;
    io.streamed = ooc_h5_streamed;
    io.streamed_ctx = &x->h;
    g->split = (oc_progress){opt, watch};
    if (opt) { /* the caller's callback, kept past its options */
        g->split.opt = &g->io;
        g->io.progress = opt->progress;
        g->io.progress_ctx = opt->progress_ctx;
    }
    io.progress = oc_progress_split;
    io.progress_ctx = &g->split;
    /* Taken before the load: a change during it is the load's to report. */
    g->have_id = ooc_file_id_now(path, &g->id);
    g->ld = isolate_start(path, &io);
    g->io.tail = io.tail;
    if (!g->ld)
        g->rc = sv_error_set(&g->err, SV_ERR_NOMEM, "out of memory");
    return g;
}

void ooc_open_abandon(ooc_opening *g)
{
    if (!g)
        return;
    isolate_cancel(g->ld);
    if (g->x)
        ooc_h5_free(&g->x->h);
    free(g->x);
    free(g);
}

sv_err ooc_open_watch(const char *path, const isolate_options *opt, const region_filter *filter,
                      const ooc_watch *watch, ooc_file **out, sv_error *err)
{
    return ooc_open_end(ooc_open_begin(path, opt, filter, watch), out, err);
}

sv_err ooc_open_end(ooc_opening *g, ooc_file **out, sv_error *err)
{
    sv_error_clear(err);
    if (out)
        *out = NULL;
    if (!g || !out || g->rc) {
        sv_err rc = !g     ? sv_error_set(err, SV_ERR_NOMEM, "out of memory")
                    : !out ? sv_error_set(err, SV_ERR_USAGE, "ooc_open: no path")
                           : (*err = g->err, g->rc);
        ooc_open_abandon(g);
        return rc;
    }
    ooc_ctx *x = g->x;
    const char *path = x->path;
    isolate_options io = g->io; /* the tail as asked for */
    ooc_file_id id = g->id;
    bool have_id = g->have_id;
    profile *p = NULL;
    sv_err e = isolate_collect(g->ld, &p, err);
    g->ld = NULL;
    if (!e && !have_id)
        e = sv_error_set(err, SV_ERR_IO, "%s: %s", x->epath, strerror(errno));
    if (!e && isolate_disabled() && !(e = oc_finish(x, &p, err))) {
        x->map = x->h.sc.map;
        x->seek = x->h.sc.seek;
        memset(&x->h.sc.map, 0, sizeof x->h.sc.map);
        memset(&x->h.sc.seek, 0, sizeof x->h.sc.seek);
        x->got = true;
    }
    if (!e && !x->got)
        e = sv_error_set(err, SV_ERR_DAMAGED, "%s: the loading process sent no overview", x->epath);
    if (!e &&
        (!ooc_scan_valid(&x->map, &x->seek, p) || !x->paths || !ooc_paths_valid(x->paths, p) ||
         !x->slowest || !ooc_slowest_valid(x->slowest, p, x->map.nlanes) ||
         !lane_figs_valid(x->lanefigs, &x->map, p) || !x->bins || !ooc_bins_valid(x->bins, p)))
        e = sv_error_set(err, SV_ERR_DAMAGED, "%s: the loading process sent a malformed overview",
                         x->epath);
    ooc_file *f = e ? NULL : calloc(1, sizeof *f);
    if (!e && (!f || !(f->path = strdup(path)))) {
        free(f);
        f = NULL;
        e = sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    if (f) {
        /* Until the statistics come, the sweep's count (windows nest with it). */
        for (size_t i = 0; io.tail && *io.tail && i < x->seek.nranks; i++)
            if (x->seek.ranks[i].rank_index < p->nranks)
                p->ranks[x->seek.ranks[i].rank_index].ninferred_lanes = x->seek.ranks[i].ninferred;
        p->cpaths = x->paths;
        x->paths = NULL;
        p->slowest = x->slowest;
        x->slowest = NULL;
        f->lanefigs = x->lanefigs;
        x->lanefigs = NULL;
        p->tbins = x->bins;
        x->bins = NULL;
        f->skel = p;
        f->id = id;
        f->id.digest = ooc_index_digest(p);
        f->map = x->map;
        f->seek = x->seek;
        f->budget = x->budget;
        *out = f;
    } else {
        profile_free(p);
        ooc_map_free(&x->map);
        ooc_seek_free(&x->seek);
        if (io.tail && *io.tail) {
            isolate_tail_free(*io.tail);
            *io.tail = NULL;
        }
    }
    call_paths_free(x->paths);
    x->paths = NULL;
    slow_calls_free(x->slowest);
    x->slowest = NULL;
    lane_figs_free(x->lanefigs);
    x->lanefigs = NULL;
    time_bins_free(x->bins);
    x->bins = NULL;
    ooc_open_abandon(g);
    return e;
}
