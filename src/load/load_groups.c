/* load_groups: schema 1, the per-rank group layout (legacy and extended):
 * rank<N>/regions/<name>/ with one dataset per column, attributes and
 * stored summaries.  A region is staged, validated, then committed. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_rows.h"
#include "load_window.h"
#include "load_sink_ops.h"
#include "loader_internal.h"
#include "stream_col.h"
#include "util/text.h"

/* ------------------------------------------------------------ columns */

typedef struct opt_col {
    const char *name;
    size_t off; /* offset of the int64_t * field in region */
} opt_col;

static const opt_col opt_cols[] = {
    {"call_ids", offsetof(region, call_ids)},     {"parent_ids", offsetof(region, parent_ids)},
    {"thread_ids", offsetof(region, thread_ids)}, {"task_ids", offsetof(region, task_ids)},
    {"await_times", offsetof(region, await_ns)},  {"gpu_durations", offsetof(region, gpu_ns)},
};

static int64_t **col_field(region *r, const opt_col *oc)
{
    return (int64_t **)(void *)((char *)r + oc->off);
}

/* Reads a required column; false (with a warning) when the region must go. */
static bool read_required(ld_ctx *c, hid_t g, const char *region_name, h5u_list *l, const char *col,
                          int64_t **out, size_t *n, sv_err *e)
{
    char why[H5U_WHY_MAX];
    long idx = h5u_list_find(l, col);
    if (idx < 0 || !h5u_maybe_dataset(&l->v[idx])) {
        ld_warn(c, region_name, "dataset", col, "%s; region dropped",
                idx < 0 ? "missing" : "not a dataset");
        return false;
    }
    h5u_status st = h5u_read_i64(&c->rd, g, col, out, n, why, sizeof why);
    if (st == H5U_NOMEM)
        *e = SV_ERR_NOMEM;
    else if (st != H5U_OK)
        ld_warn(c, region_name, "dataset", col, "%s; region dropped", why);
    else
        l->v[idx].kind = H5U_DATASET; /* the walk need not look it up */
    return st == H5U_OK;
}

/* A statistics-only load (loader.h stats_only) reads no event_metadata and
 * no call_ids without parent_ids.  Such a column of tmp is checked as a
 * read checks it before reading (the same warnings; a refused layout drops
 * the region: *keep false), but its values are not read: true when it is
 * skipped. */
static bool skip_column(ld_ctx *c, hid_t g, const char *region_name, h5u_list *l, long idx,
                        const region *tmp, bool *keep)
{
    const char *col = l->v[idx].name;
    bool meta = strcmp(col, "event_metadata") == 0;
    *keep = true;
    if (!c->opt || !c->opt->stats_only ||
        !(meta || (strcmp(col, "call_ids") == 0 && h5u_list_find(l, "parent_ids") < 0)))
        return false;
    char why[H5U_WHY_MAX];
    uint64_t n;
    h5u_status st = h5u_check_dataset(&c->rd, g, col, meta, &n, why, sizeof why);
    if (st != H5U_OK) {
        ld_warn(c, region_name, "dataset", col, "%s; %s dropped", why,
                st == H5U_REFUSED ? "region" : "column");
        *keep = st != H5U_REFUSED;
        return true;
    }
    l->v[idx].kind = H5U_DATASET;
    if (n != tmp->n)
        ld_warn(c, region_name, "dataset", col,
                "%llu elements, start_times has %zu; column dropped", (unsigned long long)n,
                tmp->n);
    return true;
}

/* Reads one optional column of n values into the staged region.  false
 * when the whole region must go (a refused layout). */
static bool read_optional(ld_ctx *c, hid_t g, const char *region_name, h5u_list *l,
                          const opt_col *oc, region *tmp, sv_err *e)
{
    long idx = h5u_list_find(l, oc->name);
    if (idx < 0)
        return true;
    c->p->legacy = false;
    if (!h5u_maybe_dataset(&l->v[idx])) {
        ld_warn(c, region_name, "dataset", oc->name, "not a dataset; column ignored");
        return true;
    }
    bool keep;
    if (skip_column(c, g, region_name, l, idx, tmp, &keep))
        return keep;
    char why[H5U_WHY_MAX];
    int64_t *v;
    size_t n;
    h5u_status st = h5u_read_i64(&c->rd, g, oc->name, &v, &n, why, sizeof why);
    if (st == H5U_NOMEM) {
        *e = SV_ERR_NOMEM;
        return false;
    }
    if (st == H5U_REFUSED) {
        ld_warn(c, region_name, "dataset", oc->name, "%s; region dropped", why);
        return false;
    }
    if (st != H5U_OK) {
        ld_warn(c, region_name, "dataset", oc->name, "%s; column dropped", why);
        return true;
    }
    l->v[idx].kind = H5U_DATASET;
    if (n != tmp->n) {
        ld_warn(c, region_name, "dataset", oc->name,
                "%zu elements, start_times has %zu; column dropped", n, tmp->n);
        free(v);
        return true;
    }
    *col_field(tmp, oc) = v;
    return true;
}

static bool read_event_meta(ld_ctx *c, hid_t g, const char *region_name, h5u_list *l, region *tmp,
                            sv_err *e)
{
    long idx = h5u_list_find(l, "event_metadata");
    if (idx < 0)
        return true;
    c->p->legacy = false;
    const char *col = "event_metadata";
    if (!h5u_maybe_dataset(&l->v[idx])) {
        ld_warn(c, region_name, "dataset", col, "not a dataset; column ignored");
        return true;
    }
    bool keep;
    if (skip_column(c, g, region_name, l, idx, tmp, &keep))
        return keep;
    char why[H5U_WHY_MAX];
    h5u_strs s;
    h5u_status st = h5u_read_strs(&c->rd, g, col, &s, why, sizeof why);
    if (st == H5U_NOMEM) {
        *e = SV_ERR_NOMEM;
        return false;
    }
    if (st != H5U_OK) {
        ld_warn(c, region_name, "dataset", col, "%s; %s dropped", why,
                st == H5U_REFUSED ? "region" : "column");
        return st != H5U_REFUSED;
    }
    l->v[idx].kind = H5U_DATASET;
    if (s.n != tmp->n) {
        ld_warn(c, region_name, "dataset", col, "%zu elements, start_times has %zu; column dropped",
                s.n, tmp->n);
        h5u_strs_free(&s);
        return true;
    }
    if (s.ncut)
        ld_warn(c, region_name, "dataset", col, "%zu strings cut to %zu bytes", s.ncut,
                (size_t)SV_STRING_MAX);
    tmp->event_meta = s.v;
    return true;
}

/* Checks between columns; a bad optional column is dropped. */
static void check_columns(ld_ctx *c, const rank_data *rk, const char *region_name, region *t)
{
    size_t i;
    if (t->parent_ids && !t->call_ids) {
        ld_warn(c, region_name, "dataset", "parent_ids",
                "present without call_ids; column dropped");
        ld_drop_col(&t->parent_ids);
    }
    int64_t tmax = rk->has_threads ? (int64_t)rk->threads.n - 1 : INT64_MAX;
    if (t->thread_ids && (i = ld_first_outside(t->thread_ids, t->n, 0, tmax)) < t->n) {
        ld_warn(c, region_name, "dataset", "thread_ids",
                "row %lld at call %zu is outside the thread table (%zu rows); column dropped",
                (long long)t->thread_ids[i], i, rk->has_threads ? rk->threads.n : (size_t)0);
        ld_drop_col(&t->thread_ids);
    }
    int64_t kmax = rk->has_tasks ? (int64_t)rk->tasks.n - 1 : INT64_MAX;
    if (t->task_ids && (i = ld_first_outside(t->task_ids, t->n, -1, kmax)) < t->n) {
        ld_warn(c, region_name, "dataset", "task_ids",
                "row %lld at call %zu is outside the task table (%zu rows); column dropped",
                (long long)t->task_ids[i], i, rk->has_tasks ? rk->tasks.n : (size_t)0);
        ld_drop_col(&t->task_ids);
    }
    if (t->await_ns && (i = ld_first_bad_await(t->await_ns, t->start_ns, t->end_ns, t->n)) < t->n) {
        ld_warn(c, region_name, "dataset", "await_times",
                "%lld at call %zu is outside [0, duration %lld]; column dropped",
                (long long)t->await_ns[i], i,
                (long long)(uint64_t)((uint64_t)t->end_ns[i] - (uint64_t)t->start_ns[i]));
        ld_drop_col(&t->await_ns);
    }
}

/* The per-call columns of a region with start_times.  false when the region
 * is dropped (warning given) or on NOMEM (*e set). */
static bool load_columns(ld_ctx *c, const rank_data *rk, hid_t g, const char *name, h5u_list *l,
                         region *t, sv_err *e)
{
    size_t ne;
    if (!read_required(c, g, name, l, "start_times", &t->start_ns, &t->n, e) ||
        !read_required(c, g, name, l, "end_times", &t->end_ns, &ne, e))
        return false;
    t->has_event_data = true;
    if (ne != t->n) {
        ld_warn(c, name, "dataset", "end_times",
                "%zu elements, start_times has %zu; region dropped", ne, t->n);
        return false;
    }
    size_t i = ld_first_end_before_start(t->start_ns, t->end_ns, t->n);
    if (i < t->n) {
        ld_warn(c, name, "dataset", "end_times",
                "end < start at call %zu (start %lld, end %lld); region dropped", i,
                (long long)t->start_ns[i], (long long)t->end_ns[i]);
        return false;
    }
    for (size_t k = 0; k < sizeof opt_cols / sizeof opt_cols[0]; k++)
        if (!read_optional(c, g, name, l, &opt_cols[k], t, e))
            return false;
    if (!read_event_meta(c, g, name, l, t, e))
        return false;
    check_columns(c, rk, name, t);
    return true;
}

/* ------------------------------------------------------------ attributes */

/* A string attribute (first element of an array); NULL when absent or bad. */
static sv_err read_str_attr(ld_ctx *c, hid_t g, const char *region_name, const char *attr,
                            char **out)
{
    *out = NULL;
    if (H5Aexists(g, attr) <= 0)
        return SV_OK;
    c->p->legacy = false;
    char why[H5U_WHY_MAX];
    h5u_strs s;
    h5u_status st = h5u_attr_strs(&c->rd, g, attr, &s, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK) {
        ld_warn(c, region_name, "attribute", attr, "%s; ignored", why);
        return SV_OK;
    }
    if (s.n > 0) {
        if (s.ncut)
            ld_warn(c, region_name, "attribute", attr, "cut to %zu bytes", (size_t)SV_STRING_MAX);
        *out = s.v[0];
        s.v[0] = NULL;
    }
    h5u_strs_free(&s);
    return SV_OK;
}

static sv_err read_tags(ld_ctx *c, hid_t g, const char *region_name, region *t)
{
    if (H5Aexists(g, "tags") <= 0)
        return SV_OK;
    c->p->legacy = false;
    char why[H5U_WHY_MAX];
    h5u_strs s;
    h5u_status st = h5u_attr_strs(&c->rd, g, "tags", &s, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK) {
        ld_warn(c, region_name, "attribute", "tags", "%s; ignored", why);
        return SV_OK;
    }
    if (s.ncut)
        ld_warn(c, region_name, "attribute", "tags", "%zu tags cut to %zu bytes", s.ncut,
                (size_t)SV_STRING_MAX);
    if (s.n == 0) {
        h5u_strs_free(&s);
        return SV_OK;
    }
    t->tags = s.v;
    t->ntags = s.n;
    return SV_OK;
}

static sv_err load_region_attrs(ld_ctx *c, hid_t g, const char *name, region *t)
{
    /* Legacy regions have no attributes: skip the lookups. */
    if (h5u_num_attrs(g, ".") == 0)
        return SV_OK;
    sv_err e;
    if ((e = read_str_attr(c, g, name, "source_file", &t->source_file)) ||
        (e = read_str_attr(c, g, name, "source_text", &t->source_text)) ||
        (e = read_tags(c, g, name, t)))
        return e;
    if (H5Aexists(g, "source_lineno") > 0) {
        char why[H5U_WHY_MAX];
        c->p->legacy = false;
        h5u_status st = h5u_attr_i64(g, "source_lineno", &t->source_lineno, why, sizeof why);
        if (st == H5U_NOMEM)
            return SV_ERR_NOMEM;
        if (st == H5U_OK)
            t->has_lineno = true;
        else
            ld_warn(c, name, "attribute", "source_lineno", "%s; ignored", why);
    }
    H5Eclear2(H5E_DEFAULT);
    return SV_OK;
}

static sv_err load_summary(ld_ctx *c, hid_t g, const char *name, const char *sum, region *t)
{
    c->p->legacy = false;
    hid_t sg = H5Gopen2(g, sum, H5P_DEFAULT);
    if (sg < 0) {
        char why[H5U_WHY_MAX];
        h5u_error_desc(why, sizeof why);
        ld_warn(c, name, "group", sum, "cannot open: %s; summary ignored", why);
        return SV_OK;
    }
    t->has_stored_summary = true;
    for (int k = 0; k < SUM_COUNT; k++) {
        const char *key = summary_key_names[k];
        if (H5Aexists(sg, key) <= 0)
            continue;
        char why[H5U_WHY_MAX], item[64];
        double v;
        h5u_status st = h5u_attr_f64(sg, key, &v, why, sizeof why);
        if (st == H5U_NOMEM) {
            H5Gclose(sg);
            return SV_ERR_NOMEM;
        }
        if (st == H5U_OK) {
            t->stored.known |= 1u << k;
            t->stored.v[k] = v;
            continue;
        }
        snprintf(item, sizeof item, "%s/%s", sum, key);
        ld_warn(c, name, "attribute", item, "%s; ignored", why);
    }
    H5Eclear2(H5E_DEFAULT);
    H5Gclose(sg);
    return SV_OK;
}

/* ------------------------------------------------------------ regions */

/* A subgroup `summary` (or `aggregate`) holding attributes and no
 * datasets is a stored summary; its name, or NULL. */
static const char *stored_summary(hid_t g, h5u_list *l, sv_err *e)
{
    static const char *const names[] = {"summary", "aggregate"};
    for (size_t k = 0; k < 2; k++) {
        long idx = h5u_list_find(l, names[k]);
        if (idx < 0 || h5u_entry_kind(g, &l->v[idx]) != H5U_GROUP ||
            h5u_num_attrs(g, names[k]) == 0)
            continue;
        hid_t sg = H5Gopen2(g, names[k], H5P_DEFAULT);
        if (sg < 0) {
            H5Eclear2(H5E_DEFAULT);
            continue;
        }
        h5u_list sl;
        char why[H5U_WHY_MAX];
        h5u_status st = h5u_list_group(sg, &sl, why, sizeof why);
        bool datasets = false;
        for (size_t i = 0; st == H5U_OK && i < sl.n; i++)
            datasets |= h5u_entry_kind(sg, &sl.v[i]) == H5U_DATASET;
        H5Gclose(sg);
        if (st == H5U_NOMEM) {
            *e = SV_ERR_NOMEM;
            return NULL;
        }
        if (st != H5U_OK)
            continue;
        h5u_list_free(&sl);
        if (!datasets)
            return names[k];
    }
    return NULL;
}

static sv_err load_region(ld_ctx *c, rank_data *rk, hid_t g, const char *name, h5u_list *l,
                          bool has_start, const char *sum)
{
    region t;
    memset(&t, 0, sizeof t);
    sv_err e = SV_OK;
    const load_sink *s = ld_sink(c);
    if (!s->ops->owns(s, rk->rank, name))
        return SV_OK; /* another MPI process's row (load_rows.h) */
    /* Out of core (stream_col.h): the plain region streams, any other loads here. */
    int streamed = has_start && c->sg ? sg_load_columns(c, rk, g, name, l, &t, &e) : -1;
    /* The sink's own read (an out-of-core window: only its calls). */
    if (has_start && streamed < 0)
        streamed = s->ops->group(s, c, rk, g, name, l, &t, &e);
    bool keep =
        !has_start || (streamed >= 0 ? streamed == 1 : load_columns(c, rk, g, name, l, &t, &e));
    if (!e && keep && sum)
        e = load_summary(c, g, name, sum, &t);
    if (!e && keep)
        e = load_region_attrs(c, g, name, &t);
    if (!e && keep)
        e = ld_stage_commit(rk, name, &t);
    if (!e && keep && c->sg)
        e = sg_committed(c, rk->regions[rk->nregions - 1]);
    region_clear(&t);
    ld_progress(c);
    return e;
}

static sv_err walk_group(ld_ctx *c, rank_data *rk, hid_t g, strbuf *name, int depth);

/* "regions/NAME/CHILD" for messages about groups and links of the walk. */
static void child_path(char *buf, size_t cap, const strbuf *name, int depth, const char *child)
{
    snprintf(buf, cap, "regions/%s%s%s", depth > 0 ? name->s : "", depth > 0 ? "/" : "",
             child ? child : "");
}

/* Descends into child group `child` of g, extending the region name. */
static sv_err walk_child(ld_ctx *c, rank_data *rk, hid_t g, const h5u_entry *child, strbuf *name,
                         int depth)
{
    char item[LD_LINE / 2];
    child_path(item, sizeof item, name, depth, child->name);
    if (depth + 1 > LD_MAX_DEPTH) {
        if (!c->depth_warned)
            ld_warn(c, NULL, "group", item, "nested deeper than %d levels; not walked",
                    LD_MAX_DEPTH);
        c->depth_warned = true;
        return SV_OK;
    }
    int added = ld_addr_set_add(&c->seen, (uint64_t)child->addr);
    if (added < 0)
        return SV_ERR_NOMEM;
    if (added == 0) {
        ld_warn(c, NULL, "group", item, "already walked under another name; skipped");
        return SV_OK;
    }
    hid_t cg = H5Gopen2(g, child->name, H5P_DEFAULT);
    if (cg < 0) {
        char why[H5U_WHY_MAX];
        h5u_error_desc(why, sizeof why);
        ld_warn(c, NULL, "group", item, "cannot open: %s; skipped", why);
        return SV_OK;
    }
    size_t len = name->len;
    if (depth > 0)
        sb_putc(name, '/');
    sb_puts(name, child->name);
    sv_err e = name->oom ? SV_ERR_NOMEM : walk_group(c, rk, cg, name, depth + 1);
    name->len = len;
    if (name->s)
        name->s[len] = '\0';
    H5Gclose(cg);
    return e;
}

/* Walks group g of a rank's `regions` tree; depth 0 is `regions` itself.
 * g is a region when it holds start_times or a stored summary; every
 * subgroup but that summary is walked too (a region can be a folder). */
static sv_err walk_group(ld_ctx *c, rank_data *rk, hid_t g, strbuf *name, int depth)
{
    char why[H5U_WHY_MAX];
    h5u_list l;
    h5u_status st = h5u_list_group(g, &l, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK) {
        char item[LD_LINE / 2];
        snprintf(item, sizeof item, "regions%s%s", depth > 0 ? "/" : "", depth > 0 ? name->s : "");
        ld_warn(c, NULL, "group", item, "%s; skipped", why);
        return SV_OK;
    }
    sv_err e = SV_OK;
    const char *sum = NULL;
    if (depth > 0) {
        sum = stored_summary(g, &l, &e);
        long si = h5u_list_find(&l, "start_times");
        bool has_start = si >= 0 && h5u_entry_kind(g, &l.v[si]) == H5U_DATASET;
        if (!e && (has_start || sum))
            e = load_region(c, rk, g, name->s, &l, has_start, sum);
    }
    for (size_t i = 0; !e && i < l.n; i++) {
        h5u_entry *ch = &l.v[i];
        if (ch->kind == H5U_SOFT || ch->kind == H5U_EXTERNAL) {
            char item[LD_LINE / 2];
            child_path(item, sizeof item, name, depth, ch->name);
            ld_warn(c, NULL, "link", item, "%s link not followed",
                    ch->kind == H5U_SOFT ? "soft" : "external");
        } else if (h5u_entry_kind(g, ch) == H5U_GROUP && !(sum && strcmp(ch->name, sum) == 0))
            e = walk_child(c, rk, g, ch, name, depth);
    }
    h5u_list_free(&l);
    return e;
}

static sv_err load_regions(ld_ctx *c, rank_data *rk, hid_t rg, h5u_list *l)
{
    long idx = h5u_list_find(l, "regions");
    if (idx < 0)
        return SV_OK;
    if (h5u_entry_kind(rg, &l->v[idx]) != H5U_GROUP) {
        ld_warn(c, NULL, "link", "regions", "not a group; ignored");
        return SV_OK;
    }
    hid_t g = H5Gopen2(rg, "regions", H5P_DEFAULT);
    if (g < 0) {
        char why[H5U_WHY_MAX];
        h5u_error_desc(why, sizeof why);
        ld_warn(c, NULL, "group", "regions", "cannot open: %s; skipped", why);
        return SV_OK;
    }
    ld_addr_set_clear(&c->seen);
    c->depth_warned = false;
    sv_err e = ld_addr_set_add(&c->seen, (uint64_t)l->v[idx].addr) < 0 ? SV_ERR_NOMEM : SV_OK;
    strbuf name;
    sb_init(&name);
    if (!e)
        e = walk_group(c, rk, g, &name, 0);
    sb_free(&name);
    H5Gclose(g);
    return e;
}

/* Tables first: region columns are checked against their sizes. */
sv_err ld_load_rank_group(ld_ctx *c, hid_t f, const char *gname, int rank)
{
    hid_t rg = H5Gopen2(f, gname, H5P_DEFAULT);
    char why[H5U_WHY_MAX];
    if (rg < 0) {
        h5u_error_desc(why, sizeof why);
        ld_warn(c, NULL, "group", gname, "cannot open: %s; rank skipped", why);
        return SV_OK;
    }
    h5u_list l;
    h5u_status st = h5u_list_group(rg, &l, why, sizeof why);
    if (st != H5U_OK) {
        H5Gclose(rg);
        if (st == H5U_NOMEM)
            return SV_ERR_NOMEM;
        ld_warn(c, NULL, "group", gname, "%s; rank skipped", why);
        return SV_OK;
    }
    sv_err e = SV_OK;
    rank_data *rk = profile_add_rank(c->p, rank);
    if (!rk)
        e = SV_ERR_NOMEM;
    c->rank = rank;
    long ti = h5u_list_find(&l, "threads"), ki = h5u_list_find(&l, "tasks");
    if (!e && ti >= 0 && h5u_entry_kind(rg, &l.v[ti]) == H5U_GROUP)
        e = ld_load_threads(c, rk, rg);
    if (!e && ki >= 0 && h5u_entry_kind(rg, &l.v[ki]) == H5U_GROUP)
        e = ld_load_tasks(c, rk, rg);
    if (!e) /* the sink may stream the rank's regions (stream_col.h) */
        e = ld_sink(c)->ops->group_stream(ld_sink(c), c, rk);
    if (!e)
        e = load_regions(c, rk, rg, &l);
    if (!e && c->sg) /* pass 2 of the out-of-core load: the rank's nesting, percentiles */
        e = sg_rank_finish(c, rk);
    c->rank = -1;
    h5u_list_free(&l);
    H5Gclose(rg);
    return e;
}
