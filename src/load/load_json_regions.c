/* load_json_regions: the "regions" of a JSON profile.  Each region object
 * is staged as it is read (its columns grow in place, charged to the
 * budget); when the document is done, the staged regions are checked as
 * the schema-3 loader checks its rows (load_colrows.c) against their
 * rank's thread and task tables, which may come after them in the text,
 * and committed. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_json_internal.h"
#include "model/budget.h"

const char *const jl_col_keys[JC_N] = {"start_times_ns", "end_times_ns", "gpu_durations_ns",
                                       "call_ids",       "parent_ids",   "thread_ids",
                                       "task_ids",       "await_ns"};

enum {
    GK_NAME,
    GK_RANK,
    GK_FILE,
    GK_LINE,
    GK_TEXT,
    GK_TAGS,
    GK_AGG,
    GK_EVENTS,
    GK_EXCL,
    GK_COL0,
    GK_N = GK_COL0 + JC_N
};
static const char *const region_keys[GK_N] = {"name",
                                              "rank",
                                              "source_file",
                                              "source_lineno",
                                              "source_text",
                                              "tags",
                                              "aggregate",
                                              "event_data_available",
                                              "exclusive_total_ns",
                                              "start_times_ns",
                                              "end_times_ns",
                                              "gpu_durations_ns",
                                              "call_ids",
                                              "parent_ids",
                                              "thread_ids",
                                              "task_ids",
                                              "await_ns"};

/* The keys of an `aggregate` object scopeview shows (UPSTREAM-FORMATS.md
 * 3.4 and 3.6); any other is listed in a warning, never guessed at. */
enum {
    AK_COUNT,
    AK_TOTAL,
    AK_MIN,
    AK_MAX,
    AK_EXCL,
    AK_FIRST,
    AK_LAST,
    AK_START_MIN,
    AK_END_MAX,
    AK_GPU_COUNT,
    AK_GPU_TOTAL,
    AK_MEAN,
    AK_M2,
    AK_N
};
static const char *const agg_keys[AK_N] = {
    "count",         "total",       "minimum",   "maximum",   "exclusive", "first", "last",
    "start_minimum", "end_maximum", "gpu_count", "gpu_total", "mean",      "m2"};
static const int agg_sum[AK_N] = {SUM_NUM_CALLS,
                                  SUM_TOTAL,
                                  SUM_MIN,
                                  SUM_MAX,
                                  SUM_EXCLUSIVE_TOTAL,
                                  SUM_FIRST,
                                  SUM_LAST,
                                  SUM_FIRST_START,
                                  SUM_LAST_END,
                                  -1,
                                  SUM_GPU_TOTAL,
                                  SUM_MEAN,
                                  -1};

static jl_region *cur_region(jl_ctx *j)
{
    return &j->reg[j->nreg - 1];
}

static void jr_free(jl_region *jr)
{
    free(jr->name);
    for (int k = 0; k < JC_N; k++)
        free(jr->col[k].v);
    region_clear(&jr->r);
    sb_free(&jr->agg_unknown);
    memset(jr, 0, sizeof *jr);
}

void jl_regions_free(jl_ctx *j)
{
    for (size_t i = 0; i < j->nreg; i++)
        jr_free(&j->reg[i]);
    free(j->reg);
    j->reg = NULL;
    j->nreg = j->reg_cap = 0;
}

/* ------------------------------------------------------------ parsing */

int jl_regions_value(jl_ctx *j, const jl_val *v)
{
    if (v->t != JV_MAP)
        return jl_bad_type(j, v, "an object");
    if (!jl_charge(j, sizeof(jl_region), "regions"))
        return 0;
    if (j->nreg == j->reg_cap) {
        size_t cap = j->reg_cap ? j->reg_cap * 2 : 16;
        jl_region *r = realloc(j->reg, cap * sizeof *r);
        if (!r)
            return jl_nomem(j);
        j->reg = r;
        j->reg_cap = cap;
    }
    jl_region *jr = &j->reg[j->nreg++];
    memset(jr, 0, sizeof *jr);
    jr->index = j->st[j->depth - 1].count;
    return jl_push(j, JF_REGION, false);
}

/* Room for at least one more value in c (doubling, then by halves past a
 * million), charged to the budget. */
static int vec_grow(jl_ctx *j, jl_vec *c, size_t want)
{
    size_t cap = want > c->cap                ? want
                 : c->cap < 16                ? 16
                 : c->cap < ((size_t)1 << 20) ? c->cap * 2
                                              : c->cap + c->cap / 2;
    if (cap > SV_RANK_CALLS_MAX + (size_t)1)
        return jl_fail(j, "more than %zu calls", (size_t)SV_RANK_CALLS_MAX);
    char what[160];
    j->depth--; /* the column's path, without the element's index */
    jl_path(j, what, sizeof what);
    j->depth++;
    if (!jl_charge(j, (cap - c->cap) * sizeof(int64_t), what))
        return 0;
    int64_t *v = realloc(c->v, cap * sizeof *v);
    if (!v)
        return jl_nomem(j);
    c->v = v;
    c->cap = cap;
    return 1;
}

int jl_col_value(jl_ctx *j, const jl_val *v)
{
    if (v->t != JV_INT)
        return jl_bad_type(j, v, "an integer");
    jl_vec *c = j->col;
    if (c->n == c->cap && !vec_grow(j, c, 0))
        return 0;
    c->v[c->n++] = v->i;
    return 1;
}

static int begin_column(jl_ctx *j, jl_region *jr, int k, const jl_val *v)
{
    if (v->t == JV_NULL)
        return 1;
    if (v->t != JV_ARRAY)
        return jl_bad_type(j, v, "an array");
    jr->has_col[k] = true;
    j->col = &jr->col[k];
    /* The columns after the first have its length: reserved at once. */
    size_t n = jr->has_col[JC_START] && k != JC_START ? jr->col[JC_START].n : 0;
    if (jl_push(j, JF_COL, true) == 0)
        return 0;
    return n ? vec_grow(j, j->col, n) : 1;
}

int jl_tags_value(jl_ctx *j, const jl_val *v)
{
    if (v->t != JV_STRING)
        return jl_bad_type(j, v, "a string");
    region *r = &cur_region(j)->r;
    if (!jl_charge(j, v->len + 2 * sizeof(char *), "tags"))
        return 0;
    char **t = realloc(r->tags, (r->ntags + 1) * sizeof *t);
    if (!t)
        return jl_nomem(j);
    r->tags = t;
    if (!(t[r->ntags] = jl_strdup(j, v)))
        return 0;
    r->ntags++;
    return 1;
}

static int set_string(jl_ctx *j, const jl_val *v, char **dst)
{
    if (v->t == JV_NULL)
        return 1;
    if (v->t != JV_STRING)
        return jl_bad_type(j, v, "a string");
    if (!jl_charge(j, v->len + 1, "strings"))
        return 0;
    if (v->len == 0)
        return 1; /* "" = unknown, as in schema 3 */
    *dst = jl_strdup(j, v);
    return *dst ? 1 : 0;
}

static int region_scalar(jl_ctx *j, jl_region *jr, int key, const jl_val *v)
{
    region *r = &jr->r;
    switch (key) {
    case GK_NAME:
        if (v->t != JV_STRING)
            return jl_bad_type(j, v, "a string");
        if (!jl_charge(j, v->len + 1, "strings"))
            return 0;
        return (jr->name = jl_strdup(j, v)) != NULL;
    case GK_RANK:
        if (v->t != JV_INT)
            return jl_bad_type(j, v, "an integer");
        if (v->i < 0 || v->i > INT_MAX)
            return jl_fail(j, "rank %lld is outside 0..%d", (long long)v->i, INT_MAX);
        jr->rank = v->i;
        jr->has_rank = true;
        return 1;
    case GK_FILE:
        return set_string(j, v, &r->source_file);
    case GK_TEXT:
        return set_string(j, v, &r->source_text);
    case GK_LINE:
        if (v->t == JV_NULL)
            return 1;
        if (v->t != JV_INT)
            return jl_bad_type(j, v, "an integer");
        r->has_lineno = v->i >= 0; /* -1 = unknown */
        r->source_lineno = v->i;
        return 1;
    case GK_EVENTS:
        if (v->t != JV_BOOL)
            return jl_bad_type(j, v, "a boolean");
        jr->no_events = !v->i;
        return 1;
    case GK_EXCL:
        if (v->t == JV_NULL)
            return 1;
        if (v->t != JV_INT)
            return jl_bad_type(j, v, "an integer");
        if (v->i < -1)
            return jl_fail(j, "exclusive total %lld is negative", (long long)v->i);
        r->has_stored_exclusive = v->i >= 0; /* -1 = not computed */
        r->stored_exclusive_ns = v->i;
        return 1;
    default:
        return jl_bad_type(j, v, key == GK_TAGS ? "an array" : "an object");
    }
}

int jl_region_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    jl_region *jr = cur_region(j);
    int key = jl_key_id(region_keys, GK_N, f->key_text);
    if (key < 0) {
        jl_warn(j, "key not part of format_version 1; ignored");
        return jl_skip(j, v);
    }
    if (jr->seen & (1u << key))
        return jl_fail(j, "repeated key");
    jr->seen |= 1u << key;
    if (key >= GK_COL0)
        return begin_column(j, jr, key - GK_COL0, v);
    if (key == GK_TAGS && v->t == JV_ARRAY)
        return jl_push(j, JF_TAGS, true);
    if (key == GK_TAGS && v->t == JV_NULL)
        return 1;
    if (key == GK_AGG && v->t == JV_MAP) {
        jr->has_agg = true;
        jr->r.has_stored_summary = true;
        return jl_push(j, JF_AGG, false);
    }
    return region_scalar(j, jr, key, v);
}

int jl_agg_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    jl_region *jr = cur_region(j);
    int key = jl_key_id(agg_keys, AK_N, f->key_text);
    if (key < 0) {
        strbuf *b = &jr->agg_unknown;
        if (b->len < 200) {
            sb_puts(b, b->len ? ", " : "");
            sb_puts(b, f->key_text);
        }
        return jl_skip(j, v);
    }
    if (v->t == JV_NULL)
        return 1; /* unknown (a non-finite value is written as null) */
    if (v->t != JV_INT && v->t != JV_DOUBLE)
        return jl_bad_type(j, v, "a number");
    double x = v->t == JV_INT ? (double)v->i : v->d;
    if ((key == AK_COUNT || key == AK_GPU_COUNT) && (v->t != JV_INT || v->i < 0))
        return jl_fail(j, "%s is not a count", agg_keys[key]);
    if (key == AK_GPU_COUNT) {
        jr->gpu_count = v->i;
        jr->has_gpu_count = true;
        return 1;
    }
    if (key == AK_M2) {
        jr->agg_m2 = x;
        jr->has_m2 = true;
        return 1;
    }
    if (key == AK_EXCL && v->t == JV_INT && v->i >= 0) {
        jr->r.has_stored_exclusive = true;
        jr->r.stored_exclusive_ns = v->i;
    }
    jr->r.stored.known |= 1u << agg_sum[key];
    jr->r.stored.v[agg_sum[key]] = x;
    return 1;
}

/* ------------------------------------------------------------ a region's end */

static void region_warn(jl_ctx *j, const jl_region *jr, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "FILE: rank N: region NAME: key regions[i].KEY: " + fmt. */
static void region_warn(jl_ctx *j, const jl_region *jr, const char *key, const char *fmt, ...)
{
    char item[96], msg[400];
    snprintf(item, sizeof item, "regions[%zu]%s%s", jr->index, key ? "." : "", key ? key : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int rank = j->c->rank;
    j->c->rank = jr->has_rank ? (int)jr->rank : -1;
    ld_warn(j->c, jr->name, "key", item, "%s", msg);
    j->c->rank = rank;
}

/* The stored summary's derived values: the deviation from m2, the GPU
 * total only when some call was GPU-timed. */
static void finish_summary(jl_region *jr)
{
    region_summary *s = &jr->r.stored;
    if (!jr->has_agg)
        return;
    bool has_n = s->known & (1u << SUM_NUM_CALLS);
    double n = s->v[SUM_NUM_CALLS];
    if (jr->has_m2 && has_n && n > 0 && isfinite(jr->agg_m2) && jr->agg_m2 >= 0) {
        s->known |= 1u << SUM_STD;
        s->v[SUM_STD] = sqrt(jr->agg_m2 / n);
    }
    if (jr->has_gpu_count && jr->gpu_count == 0)
        s->known &= ~(1u << SUM_GPU_TOTAL);
    if ((s->known & (1u << SUM_MEAN)) && !isfinite(s->v[SUM_MEAN]))
        s->known &= ~(1u << SUM_MEAN);
}

/* Moves the columns into the staged region; false when it must go. */
static bool take_columns(jl_ctx *j, jl_region *jr)
{
    bool s = jr->has_col[JC_START], e = jr->has_col[JC_END];
    if (!s && !e)
        return true;
    if (s != e) {
        region_warn(j, jr, jl_col_keys[s ? JC_END : JC_START], "missing beside %s; %s",
                    jl_col_keys[s ? JC_START : JC_END],
                    jr->has_agg ? "calls dropped, the aggregate kept" : "region dropped");
        return jr->has_agg;
    }
    size_t n = jr->col[JC_START].n;
    if (jr->col[JC_END].n != n) {
        region_warn(j, jr, jl_col_keys[JC_END],
                    "%zu entries, start_times_ns has %zu; region "
                    "dropped",
                    jr->col[JC_END].n, n);
        return false;
    }
    int64_t **dst[JC_N] = {&jr->r.start_ns,   &jr->r.end_ns,     &jr->r.gpu_ns,   &jr->r.call_ids,
                           &jr->r.parent_ids, &jr->r.thread_ids, &jr->r.task_ids, &jr->r.await_ns};
    for (int k = 0; k < JC_N; k++) {
        if (!jr->has_col[k])
            continue;
        if (jr->col[k].n != n) {
            region_warn(j, jr, jl_col_keys[k], "%zu entries for %zu calls; column dropped",
                        jr->col[k].n, n);
            free(jr->col[k].v);
        } else {
            /* the first column grew in steps: its slack goes back */
            int64_t *v = jr->col[k].cap > n && n ? realloc(jr->col[k].v, n * sizeof *v) : NULL;
            *dst[k] = v ? v : jr->col[k].v;
            load_budget *b = j->c->rd.budget;
            if (v && b && b->used >= (jr->col[k].cap - n) * sizeof *v)
                b->used -= (jr->col[k].cap - n) * sizeof *v;
        }
        jr->col[k] = (jl_vec){0};
    }
    if (!jr->r.start_ns) /* n == 0 */
        jr->r.start_ns = calloc(1, sizeof(int64_t)), jr->r.end_ns = calloc(1, sizeof(int64_t));
    jr->r.n = n;
    jr->r.has_event_data = true;
    return jr->r.start_ns && jr->r.end_ns;
}

int jl_region_end(jl_ctx *j)
{
    jl_region *jr = cur_region(j);
    bool keep = true;
    if (!jr->name || !jr->has_rank) {
        region_warn(j, jr, NULL, "no %s; region dropped", jr->name ? "rank" : "name");
        keep = false;
    }
    if (keep && jr->agg_unknown.len)
        region_warn(j, jr, "aggregate", "keys not shown: %s", jr->agg_unknown.s);
    finish_summary(jr);
    if (keep)
        keep = take_columns(j, jr);
    if (keep && !jr->r.has_event_data && !jr->has_agg) {
        region_warn(j, jr, NULL, "no calls and no aggregate; region dropped");
        keep = false;
    }
    if (!keep) {
        jr_free(jr);
        j->nreg--;
    }
    return 1;
}

/* ------------------------------------------------------------ commit */

/* Per-call checks against the rank's tables (load_colrows.c's); false
 * when the region must go. */
static bool check_calls(jl_ctx *j, jl_region *jr, const rank_data *rk)
{
    region *t = &jr->r;
    size_t b;
    if (!t->has_event_data)
        return true;
    if ((b = ld_first_end_before_start(t->start_ns, t->end_ns, t->n)) < t->n) {
        region_warn(j, jr, "end_times_ns",
                    "end < start at call %zu (start %lld, end %lld); "
                    "region dropped",
                    b, (long long)t->start_ns[b], (long long)t->end_ns[b]);
        return false;
    }
    if (t->gpu_ns && ld_first_outside(t->gpu_ns, t->n, INT64_MIN, -1) == t->n)
        ld_drop_col(&t->gpu_ns); /* -1 everywhere: no GPU timing */
    if (t->parent_ids && !t->call_ids)
        ld_drop_col(&t->parent_ids);
    if (t->call_ids && !t->parent_ids)
        ld_drop_col(&t->call_ids);
    int64_t tmax = rk->has_threads ? (int64_t)rk->threads.n - 1 : INT64_MAX;
    if (t->thread_ids && (b = ld_first_outside(t->thread_ids, t->n, -1, tmax)) < t->n) {
        region_warn(j, jr, "thread_ids",
                    "thread %lld at call %zu is outside the threads of rank %d (%zu rows); column "
                    "dropped",
                    (long long)t->thread_ids[b], b, rk->rank, rk->has_threads ? rk->threads.n : 0);
        ld_drop_col(&t->thread_ids);
    }
    int64_t kmax = rk->has_tasks ? (int64_t)rk->tasks.n - 1 : INT64_MAX;
    if (t->task_ids && (b = ld_first_outside(t->task_ids, t->n, -1, kmax)) < t->n) {
        region_warn(j, jr, "task_ids",
                    "task %lld at call %zu is outside the tasks of rank %d (%zu rows); column "
                    "dropped",
                    (long long)t->task_ids[b], b, rk->rank, rk->has_tasks ? rk->tasks.n : 0);
        ld_drop_col(&t->task_ids);
    }
    if (t->await_ns && (b = ld_first_bad_await(t->await_ns, t->start_ns, t->end_ns, t->n)) < t->n) {
        region_warn(j, jr, "await_ns", "%lld at call %zu is outside [0, duration]; column dropped",
                    (long long)t->await_ns[b], b);
        ld_drop_col(&t->await_ns);
    }
    return true;
}

/* Native data had every id -1: that is no call graph (load_colrows.c). */
static void drop_fake_ids(jl_region **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const region *t = &v[i]->r;
        if (t->call_ids && ld_first_outside(t->call_ids, t->n, -1, -1) < t->n)
            return;
    }
    for (size_t i = 0; i < n; i++) {
        ld_drop_col(&v[i]->r.call_ids);
        ld_drop_col(&v[i]->r.parent_ids);
    }
}

static int cmp_staged(const void *a, const void *b)
{
    const jl_region *x = *(jl_region *const *)a, *y = *(jl_region *const *)b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->index > y->index) - (x->index < y->index);
}

/* Checks and commits the regions v[0..n) of one rank. */
static sv_err commit_rank(jl_ctx *j, jl_region **v, size_t n)
{
    ld_ctx *c = j->c;
    rank_data *rk = ld_rank(c, (int)v[0]->rank); /* there already: no pointer moves */
    c->rank = rk->rank;
    sv_err e = ld_lane_tables_rank(c, &j->lt, rk);
    c->rank = -1;
    drop_fake_ids(v, n);
    for (size_t i = 0; !e && i < n; i++) {
        jl_region *jr = v[i];
        if (i > 0 && strcmp(jr->name, v[i - 1]->name) == 0) {
            region_warn(j, jr, NULL, "repeats regions[%zu] (rank %d); region dropped",
                        v[i - 1]->index, rk->rank);
            continue;
        }
        if (jr->r.n > SV_RANK_CALLS_MAX) {
            region_warn(j, jr, NULL, "%zu calls, more than %zu; region dropped", jr->r.n,
                        (size_t)SV_RANK_CALLS_MAX);
            continue;
        }
        if (check_calls(j, jr, rk))
            e = ld_stage_commit(rk, jr->name, &jr->r);
    }
    return e ? e : jl_aux_rank(j, rk);
}

/* Every rank the run had: those of the regions, and 0..num_ranks-1. */
static sv_err add_ranks(jl_ctx *j, jl_region **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!ld_rank(j->c, (int)v[i]->rank))
            return SV_ERR_NOMEM;
    for (int64_t r = 0; r < j->num_ranks; r++)
        if (!ld_rank(j->c, (int)r))
            return SV_ERR_NOMEM;
    return SV_OK;
}

sv_err jl_commit(jl_ctx *j)
{
    profile *p = j->c->p;
    size_t n = j->nreg, events = 0;
    jl_region **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return SV_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        v[i] = &j->reg[i];
        events += v[i]->r.has_event_data;
    }
    p->layout = n > 0 && events == 0 ? LAYOUT_AGGREGATE : LAYOUT_COLUMNAR;
    jl_tables_finish(j);
    qsort(v, n, sizeof *v, cmp_staged);
    sv_err e = add_ranks(j, v, n);
    /* Ranks are added only above: their pointers hold from here on. */
    for (size_t a = 0, b; !e && a < n; a = b) {
        for (b = a + 1; b < n && v[b]->rank == v[a]->rank; b++)
            ;
        e = commit_rank(j, v + a, b - a);
    }
    /* Ranks without regions still get their tables and records. */
    for (size_t r = 0; !e && r < p->nranks; r++) {
        bool has = false;
        for (size_t i = 0; i < n && !has; i++)
            has = v[i]->rank == p->ranks[r].rank;
        if (!has) {
            j->c->rank = p->ranks[r].rank;
            e = ld_lane_tables_rank(j->c, &j->lt, &p->ranks[r]);
            j->c->rank = -1;
            if (!e)
                e = jl_aux_rank(j, &p->ranks[r]);
        }
    }
    free(v);
    if (!e)
        jl_aux_orphans(j);
    return e;
}
