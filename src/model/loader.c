/* loader: walks a scope-profiler file and fills the model through the
 * producer API of profile.h.
 *
 * A region is first read into a staging struct and validated; only a good
 * one is handed to rank_add_region(), so dropping a bad region never has to
 * undo anything in the profile.  Everything libhdf5-specific (and every
 * defensive check on sizes and layouts) lives in h5util.c. */
#include "loader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5util.h"
#include "strbuf.h"
#include "text.h"

/* Deeper group chains are not walked (a warning says so). */
#define LD_MAX_DEPTH 64
/* Room for escaped names inside one message line. */
#define LD_ESC_PATH 240
#define LD_ESC_NAME 160
#define LD_LINE 1024

/* Object addresses of the groups already walked in the current rank: a
 * group hard-linked under two names (or into its own ancestor) is walked
 * once, which bounds the walk by the number of groups in the file. */
typedef struct addr_set {
    uint64_t *v;
    size_t cap, n;
} addr_set;

typedef struct ld_ctx {
    profile *p;
    const load_options *opt;
    h5u_reader rd;
    char path[LD_ESC_PATH]; /* escaped file name, the start of every message */
    int rank;               /* the rank being loaded, -1 outside ranks */
    size_t meta_cap;
    addr_set seen;
    bool depth_warned;
} ld_ctx;

/* ------------------------------------------------------------ messages */

static size_t ld_append(char *line, size_t cap, size_t o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t ld_append(char *line, size_t cap, size_t o, const char *fmt, ...)
{
    if (o >= cap - 1)
        return o;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line + o, cap - o, fmt, ap);
    va_end(ap);
    if (k < 0)
        return o;
    return (size_t)k >= cap - o ? cap - 1 : o + (size_t)k;
}

/* "PATH: rank N: region NAME: KIND ITEM: " + fmt, names escaped. */
static void ld_vline(const ld_ctx *c, char *line, size_t cap, const char *reg, const char *kind,
                     const char *item, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

static void ld_vline(const ld_ctx *c, char *line, size_t cap, const char *reg, const char *kind,
                     const char *item, const char *fmt, va_list ap)
{
    char esc[LD_ESC_NAME];
    size_t o = ld_append(line, cap, 0, "%s", c->path);
    if (c->rank >= 0)
        o = ld_append(line, cap, o, ": rank %d", c->rank);
    if (reg) {
        text_escape_buf(esc, sizeof esc, reg);
        o = ld_append(line, cap, o, ": region %s", esc);
    }
    if (kind) {
        text_escape_buf(esc, sizeof esc, item ? item : "");
        o = ld_append(line, cap, o, ": %s %s", kind, esc);
    }
    o = ld_append(line, cap, o, ": ");
    if (o < cap - 1)
        vsnprintf(line + o, cap - o, fmt, ap);
}

static void ld_warn(ld_ctx *c, const char *reg, const char *kind, const char *item, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));

static void ld_warn(ld_ctx *c, const char *reg, const char *kind, const char *item, const char *fmt,
                    ...)
{
    char line[LD_LINE];
    va_list ap;
    va_start(ap, fmt);
    ld_vline(c, line, sizeof line, reg, kind, item, fmt, ap);
    va_end(ap);
    profile_warn(c->p, "%s", line);
}

static sv_err ld_nomem(const ld_ctx *c, sv_error *err)
{
    return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", c->path);
}

static void ld_progress(const ld_ctx *c)
{
    if (!c->opt || !c->opt->progress)
        return;
    uint64_t total = c->rd.file_size;
    uint64_t done = c->rd.bytes_done < total ? c->rd.bytes_done : total;
    c->opt->progress(c->opt->progress_ctx, done, total);
}

/* ------------------------------------------------------------ address set */

static uint64_t addr_hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static bool addr_set_grow(addr_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    uint64_t *v = malloc(cap * sizeof *v);
    if (!v)
        return false;
    for (size_t i = 0; i < cap; i++)
        v[i] = UINT64_MAX;
    for (size_t i = 0; i < s->cap; i++) {
        if (s->v[i] == UINT64_MAX)
            continue;
        size_t j = addr_hash(s->v[i]) & (cap - 1);
        while (v[j] != UINT64_MAX)
            j = (j + 1) & (cap - 1);
        v[j] = s->v[i];
    }
    free(s->v);
    s->v = v;
    s->cap = cap;
    return true;
}

/* Adds a; 1 when new, 0 when already there, -1 on NOMEM. */
static int addr_set_add(addr_set *s, uint64_t a)
{
    if ((s->n + 1) * 2 > s->cap && !addr_set_grow(s))
        return -1;
    size_t j = addr_hash(a) & (s->cap - 1);
    while (s->v[j] != UINT64_MAX) {
        if (s->v[j] == a)
            return 0;
        j = (j + 1) & (s->cap - 1);
    }
    s->v[j] = a;
    s->n++;
    return 1;
}

static void addr_set_clear(addr_set *s)
{
    for (size_t i = 0; i < s->cap; i++)
        s->v[i] = UINT64_MAX;
    s->n = 0;
}

/* ------------------------------------------------------------ staging */
static void free_strv(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}


/* Hands a validated staged region to the model. */
static sv_err stage_commit(rank_data *rk, const char *name, region *tmp)
{
    region *r = rank_add_region(rk, name);
    if (!r)
        return SV_ERR_NOMEM;
    char *nm = r->name;
    int rank = r->rank;
    rank_data *owner = r->owner;
    *r = *tmp;
    r->name = nm;
    r->rank = rank;
    r->owner = owner;
    memset(tmp, 0, sizeof *tmp);
    return SV_OK;
}

/* ------------------------------------------------------------ validation */

/* Index of the first call with end < start, or n.  The first pass only
 * accumulates a flag so the compiler can vectorise it. */
static size_t first_end_before_start(const int64_t *s, const int64_t *e, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= e[i] < s[i];
    if (!bad)
        return n;
    size_t i = 0;
    while (e[i] >= s[i])
        i++;
    return i;
}

/* Index of the first value outside [lo, hi], or n. */
static size_t first_outside(const int64_t *v, size_t n, int64_t lo, int64_t hi)
{
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    if (n == 0 || (mn >= lo && mx <= hi))
        return n;
    size_t i = 0;
    while (v[i] >= lo && v[i] <= hi)
        i++;
    return i;
}

/* Index of the first await time outside [0, end - start], or n. */
static size_t first_bad_await(const int64_t *a, const int64_t *s, const int64_t *e, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= (a[i] < 0) | ((uint64_t)a[i] > (uint64_t)e[i] - (uint64_t)s[i]);
    if (!bad)
        return n;
    size_t i = 0;
    while (a[i] >= 0 && (uint64_t)a[i] <= (uint64_t)e[i] - (uint64_t)s[i])
        i++;
    return i;
}

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

static void drop_col(int64_t **col)
{
    free(*col);
    *col = NULL;
}

/* Checks between columns; a bad optional column is dropped. */
static void check_columns(ld_ctx *c, const rank_data *rk, const char *region_name, region *t)
{
    size_t i;
    if (t->parent_ids && !t->call_ids) {
        ld_warn(c, region_name, "dataset", "parent_ids",
                "present without call_ids; column dropped");
        drop_col(&t->parent_ids);
    }
    int64_t tmax = rk->has_threads ? (int64_t)rk->threads.n - 1 : INT64_MAX;
    if (t->thread_ids && (i = first_outside(t->thread_ids, t->n, 0, tmax)) < t->n) {
        ld_warn(c, region_name, "dataset", "thread_ids",
                "row %lld at call %zu is outside the thread table (%zu rows); column dropped",
                (long long)t->thread_ids[i], i, rk->has_threads ? rk->threads.n : (size_t)0);
        drop_col(&t->thread_ids);
    }
    int64_t kmax = rk->has_tasks ? (int64_t)rk->tasks.n - 1 : INT64_MAX;
    if (t->task_ids && (i = first_outside(t->task_ids, t->n, -1, kmax)) < t->n) {
        ld_warn(c, region_name, "dataset", "task_ids",
                "row %lld at call %zu is outside the task table (%zu rows); column dropped",
                (long long)t->task_ids[i], i, rk->has_tasks ? rk->tasks.n : (size_t)0);
        drop_col(&t->task_ids);
    }
    if (t->await_ns && (i = first_bad_await(t->await_ns, t->start_ns, t->end_ns, t->n)) < t->n) {
        ld_warn(c, region_name, "dataset", "await_times",
                "%lld at call %zu is outside [0, duration %lld]; column dropped",
                (long long)t->await_ns[i], i,
                (long long)(uint64_t)((uint64_t)t->end_ns[i] - (uint64_t)t->start_ns[i]));
        drop_col(&t->await_ns);
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
    /* The probe's walk reads no values (columns stay NULL): nothing to check,
     * and check_columns() skips absent columns. */
    size_t i = c->rd.probe ? t->n : first_end_before_start(t->start_ns, t->end_ns, t->n);
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
    bool keep = !has_start || load_columns(c, rk, g, name, l, &t, &e);
    if (!e && keep && sum)
        e = load_summary(c, g, name, sum, &t);
    if (!e && keep)
        e = load_region_attrs(c, g, name, &t);
    if (!e && keep && !c->rd.probe)
        e = stage_commit(rk, name, &t);
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
    int added = addr_set_add(&c->seen, (uint64_t)child->addr);
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

static sv_err load_threads(ld_ctx *c, rank_data *rk, hid_t rg)
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
        free_strv(t->name, n[0]);
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
    if (t->thread && (i = first_outside(t->thread, t->n, -1, hi)) < t->n) {
        ld_warn(c, NULL, "dataset", "tasks/thread",
                "row %lld of task %zu is outside the thread table; column dropped",
                (long long)t->thread[i], i);
        drop_col(&t->thread);
    }
}

static sv_err load_tasks(ld_ctx *c, rank_data *rk, hid_t rg)
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
        free_strv(t->name, n[0]);
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

/* ------------------------------------------------------------ ranks */

/* "rank<N>", N a decimal number without sign that fits an int. */
static bool parse_rank(const char *name, int *rank)
{
    if (strncmp(name, "rank", 4) != 0 || name[4] == '\0')
        return false;
    long long v = 0;
    for (const char *s = name + 4; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (*s - '0');
        if (v > INT_MAX)
            return false;
    }
    *rank = (int)v;
    return true;
}

static bool rank_exists(const profile *p, int rank)
{
    for (size_t i = 0; i < p->nranks; i++)
        if (p->ranks[i].rank == rank)
            return true;
    return false;
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
    addr_set_clear(&c->seen);
    c->depth_warned = false;
    sv_err e = addr_set_add(&c->seen, (uint64_t)l->v[idx].addr) < 0 ? SV_ERR_NOMEM : SV_OK;
    strbuf name;
    sb_init(&name);
    if (!e)
        e = walk_group(c, rk, g, &name, 0);
    sb_free(&name);
    H5Gclose(g);
    return e;
}

/* Tables first: region columns are checked against their sizes. */
static sv_err load_rank(ld_ctx *c, hid_t f, const char *gname, int rank)
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
        e = load_threads(c, rk, rg);
    if (!e && ki >= 0 && h5u_entry_kind(rg, &l.v[ki]) == H5U_GROUP)
        e = load_tasks(c, rk, rg);
    if (!e)
        e = load_regions(c, rk, rg, &l);
    c->rank = -1;
    h5u_list_free(&l);
    H5Gclose(rg);
    return e;
}

/* ------------------------------------------------------------ metadata */

static sv_err meta_append(ld_ctx *c, char *key, h5u_text_kind kind, char *text)
{
    profile *p = c->p;
    if (p->nmeta == c->meta_cap) {
        size_t cap = c->meta_cap ? c->meta_cap * 2 : 16;
        meta_entry *v = realloc(p->meta, cap * sizeof *v);
        if (!v)
            return SV_ERR_NOMEM;
        p->meta = v;
        c->meta_cap = cap;
    }
    static const meta_kind kinds[] = {
        [H5U_TEXT_STRING] = META_STRING,
        [H5U_TEXT_INT] = META_INT,
        [H5U_TEXT_FLOAT] = META_FLOAT,
        [H5U_TEXT_BOOL] = META_BOOL,
    };
    p->meta[p->nmeta++] = (meta_entry){key, kinds[kind], text};
    return SV_OK;
}

static sv_err load_meta_attr(ld_ctx *c, hid_t g, const char *key)
{
    char why[H5U_WHY_MAX];
    h5u_text_kind kind;
    char *text;
    bool cut;
    h5u_status st = h5u_attr_text(&c->rd, g, key, &kind, &text, &cut, why, sizeof why);
    if (st == H5U_NOMEM)
        return SV_ERR_NOMEM;
    if (st != H5U_OK) {
        ld_warn(c, NULL, "attribute", key, "%s; ignored", why);
        return SV_OK;
    }
    if (cut)
        ld_warn(c, NULL, "attribute", key, "metadata value cut to %zu bytes",
                (size_t)SV_STRING_MAX);
    char *k = h5u_strndup_cut(key, strlen(key), NULL);
    if (!k || meta_append(c, k, kind, text) != SV_OK) {
        free(k);
        free(text);
        return SV_ERR_NOMEM;
    }
    return SV_OK;
}

static sv_err load_metadata(ld_ctx *c, hid_t f)
{
    char why[H5U_WHY_MAX];
    hid_t g = H5Gopen2(f, "metadata", H5P_DEFAULT);
    if (g < 0) {
        h5u_error_desc(why, sizeof why);
        ld_warn(c, NULL, "group", "metadata", "cannot open: %s; ignored", why);
        return SV_OK;
    }
    h5u_strs names;
    h5u_status st = h5u_attr_names(g, &names, why, sizeof why);
    sv_err e = st == H5U_NOMEM ? SV_ERR_NOMEM : SV_OK;
    if (st == H5U_BAD)
        ld_warn(c, NULL, "group", "metadata", "%s; ignored", why);
    for (size_t i = 0; st == H5U_OK && !e && i < names.n; i++)
        e = load_meta_attr(c, g, names.v[i]);
    h5u_strs_free(&names);
    H5Gclose(g);
    return e;
}

/* ------------------------------------------------------------ file */

static sv_err load_top_entry(ld_ctx *c, hid_t f, h5u_entry *en)
{
    int rank;
    h5u_entry_kind(f, en);
    if (en->kind == H5U_SOFT || en->kind == H5U_EXTERNAL) {
        ld_warn(c, NULL, "link", en->name, "%s link not followed",
                en->kind == H5U_SOFT ? "soft" : "external");
        return SV_OK;
    }
    if (strcmp(en->name, "metadata") == 0) {
        if (en->kind == H5U_GROUP)
            return load_metadata(c, f);
        ld_warn(c, NULL, "link", en->name, "not a group; ignored");
        return SV_OK;
    }
    if (!parse_rank(en->name, &rank)) {
        ld_warn(c, NULL, en->kind == H5U_GROUP ? "group" : "link", en->name,
                "not a rank group or metadata; ignored");
        return SV_OK;
    }
    if (en->kind != H5U_GROUP) {
        ld_warn(c, NULL, "link", en->name, "not a group; ignored");
        return SV_OK;
    }
    if (rank_exists(c->p, rank)) {
        ld_warn(c, NULL, "group", en->name, "another group already holds rank %d; ignored", rank);
        return SV_OK;
    }
    return load_rank(c, f, en->name, rank);
}

static sv_err load_file(ld_ctx *c, hid_t f, sv_error *err)
{
    char why[H5U_WHY_MAX];
    h5u_list l;
    h5u_status st = h5u_list_group(f, &l, why, sizeof why);
    if (st == H5U_NOMEM)
        return ld_nomem(c, err);
    if (st != H5U_OK)
        return sv_error_set(err, SV_ERR_DAMAGED, "%s: damaged HDF5 file: %s", c->path, why);
    sv_err e = SV_OK;
    for (size_t i = 0; !e && i < l.n; i++)
        e = load_top_entry(c, f, &l.v[i]);
    h5u_list_free(&l);
    return e == SV_ERR_NOMEM ? ld_nomem(c, err) : e;
}

/* Whole-file checks before libhdf5 sees the path. */
static sv_err check_path(const char *path, const char *epath, uint64_t *size, sv_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return sv_error_set(err, SV_ERR_IO, "%s: %s", epath, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return sv_error_set(err, SV_ERR_IO, "%s: is a directory", epath);
    if (!S_ISREG(st.st_mode))
        return sv_error_set(err, SV_ERR_IO, "%s: not a regular file", epath);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sv_error_set(err, SV_ERR_IO, "%s: %s", epath, strerror(errno));
    close(fd);
    if (st.st_size == 0)
        return sv_error_set(err, SV_ERR_NOT_HDF5, "%s: not an HDF5 file (empty)", epath);
    *size = (uint64_t)st.st_size;
    return SV_OK;
}

/* Opens the file and loads it into c->p; closes everything it opened. */
static sv_err load_path(ld_ctx *c, const char *path, sv_error *err)
{
    char why[H5U_WHY_MAX];
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return sv_error_set(err, SV_ERR_NOT_HDF5, "%s: not an HDF5 file", c->path);
    }
    if (h5u_reader_init(&c->rd, c->p->file_size) != H5U_OK)
        return ld_nomem(c, err);
    hid_t f = h5u_open_file(path, why, sizeof why);
    sv_err e;
    if (f < 0) {
        e = sv_error_set(err, SV_ERR_DAMAGED, "%s: damaged or truncated HDF5 file: %s", c->path,
                         why);
    } else {
        e = load_file(c, f, err);
        H5Fclose(f);
    }
    h5u_reader_close(&c->rd);
    H5Eclear2(H5E_DEFAULT);
    return e;
}

/* The load, or with probe only its walk (no profile is kept). */
static sv_err load_main(const char *path, const load_options *opt, bool probe, profile **out,
                        sv_error *err)
{
    ld_ctx c;
    memset(&c, 0, sizeof c);
    c.opt = opt;
    c.rank = -1;
    c.rd.dapl = -1;
    c.rd.probe = probe;
    text_escape_buf(c.path, sizeof c.path, path);
    uint64_t size = 0;
    sv_err e = check_path(path, c.path, &size, err);
    if (e)
        return e;
    h5u_setup();
    bool nomem = false;
    if (probe)
        h5u_watch_nomem(&nomem);
    c.p = profile_new(path);
    if (!c.p)
        return ld_nomem(&c, err);
    c.p->file_size = size;
    e = load_path(&c, path, err);
    free(c.seen.v);
    /* Whatever the walk made of it: an allocation refused under the probe's
     * limit would be a huge one, and slow, in-process. */
    if (probe) {
        h5u_setup();
        if (nomem)
            e = ld_nomem(&c, err);
    }
    if (!e && !probe)
        e = profile_finish(c.p, err);
    if (e || probe) {
        profile_free(c.p);
        return e;
    }
    c.rd.bytes_done = size;
    ld_progress(&c);
    *out = c.p;
    return SV_OK;
}

sv_err profile_load(const char *path, const load_options *opt, profile **out, sv_error *err)
{
    sv_error_clear(err);
    if (out)
        *out = NULL;
    if (!path || !out)
        return sv_error_set(err, SV_ERR_USAGE, "profile_load: no path");
    return load_main(path, opt, false, out, err);
}

sv_err loader_probe_walk(const char *path, const load_options *opt, sv_error *err)
{
    profile *p = NULL;
    sv_error_clear(err);
    if (!path)
        return sv_error_set(err, SV_ERR_USAGE, "loader_probe_walk: no path");
    return load_main(path, opt, true, &p, err);
}
