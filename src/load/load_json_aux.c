/* load_json_aux: the per-rank sections of a JSON profile, each an object
 * keyed by the rank's number:
 *   threads["r"]      [{index, name, ident, native_id, daemon, start_ns, end_ns, cpu_ns}]
 *   tasks["r"]        [{index, kind, name, coro_name, thread_index, created_ns, done_ns,
 *                       steps, running_ns, suspended_ns}]
 *   line_profile["r"] [{region, filename, function, first_lineno, unit, source,
 *                       source_first_lineno, line_numbers, hits, times}]
 *   likwid["r"]       {tag: {event_names, events, call_counts, ...}}
 * Threads and tasks are gathered into the columns of the schema-3 lane
 * tables (load_tables.c places each rank's rows by index); line profiles and
 * LIKWID records become the records load_aux.c makes of the HDF5 groups. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_json_internal.h"

/* Thread and task keys, in ld_lane_tables' column order (ranks first: not
 * a key, the section's). */
static const char *const thread_i64[LT_THREAD_I64] = {"",       "index",    "ident",  "native_id",
                                                      "daemon", "start_ns", "end_ns", "cpu_ns"};
static const char *const thread_str[LT_THREAD_STR] = {"name"};
static const char *const task_i64[LT_TASK_I64] = {
    "", "index", "thread_index", "created_ns", "done_ns", "steps", "running_ns", "suspended_ns"};
static const char *const task_str[LT_TASK_STR] = {"kind", "name", "coro_name"};

enum {
    LK_REGION,
    LK_FILENAME,
    LK_FUNCTION,
    LK_SOURCE,
    LK_FIRST,
    LK_SFIRST,
    LK_UNIT,
    LK_LINES,
    LK_HITS,
    LK_TIMES,
    LK_N
};
static const char *const line_keys[LK_N] = {
    "region", "filename",     "function", "source", "first_lineno", "source_first_lineno",
    "unit",   "line_numbers", "hits",     "times"};

enum { KK_NAMES, KK_EVENTS, KK_CALLS, KK_N };
static const char *const likwid_keys[KK_N] = {"event_names", "events", "call_counts"};
/* Read by upstream, not by scopeview: derived metrics do not add up over
 * threads (load_aux.c). */
static const char *const likwid_ignored[] = {"group_name",   "cpus",       "times",
                                             "metric_names", "metrics",    "tag",
                                             "num_threads",  "thread_ids", "regions"};

/* ------------------------------------------------------------ tables */

typedef struct jl_table {
    size_t *n, *cap;
    int64_t **iv;
    char ***sv;
    size_t ni, ns;
    const char *const *inames, *const *snames;
    bool *has;
} jl_table;

static jl_table table_of(jl_ctx *j)
{
    ld_lane_tables *t = &j->lt;
    if (j->section == JS_THREADS)
        return (jl_table){&t->nt,        &j->tcap,   t->ti,      t->ts,          LT_THREAD_I64,
                          LT_THREAD_STR, thread_i64, thread_str, &t->has_threads};
    return (jl_table){&t->nk,      &j->kcap, t->ki,    t->ks,        LT_TASK_I64,
                      LT_TASK_STR, task_i64, task_str, &t->has_tasks};
}

static int table_grow(jl_ctx *j, jl_table *t)
{
    size_t cap = *t->cap ? *t->cap * 2 : 16;
    if (!jl_charge(j, (cap - *t->cap) * (t->ni * 8 + t->ns * 8), "tables"))
        return 0;
    for (size_t k = 0; k < t->ni; k++) {
        int64_t *v = realloc(t->iv[k], cap * sizeof *v);
        if (!v)
            return jl_nomem(j);
        t->iv[k] = v;
    }
    for (size_t k = 0; k < t->ns; k++) {
        char **v = realloc(t->sv[k], cap * sizeof *v);
        if (!v)
            return jl_nomem(j);
        t->sv[k] = v;
    }
    *t->cap = cap;
    return 1;
}

/* A new row of the open table, every value unknown until its key comes. */
static int row_begin(jl_ctx *j)
{
    jl_table t = table_of(j);
    if (*t.n == *t.cap && !table_grow(j, &t))
        return 0;
    size_t i = *t.n;
    t.iv[0][i] = j->section_rank;
    for (size_t k = 1; k < t.ni; k++)
        t.iv[k][i] = -1;
    for (size_t k = 0; k < t.ns; k++)
        t.sv[k][i] = NULL;
    (*t.n)++;
    *t.has = true;
    j->row_seen = 1u; /* ranks */
    return jl_push(j, JF_ROW, false);
}

static int table_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    jl_table t = table_of(j);
    size_t i = *t.n - 1;
    int k = jl_key_id(t.inames + 1, t.ni - 1, f->key_text);
    int s = k < 0 ? jl_key_id(t.snames, t.ns, f->key_text) : -1;
    if (k < 0 && s < 0) {
        jl_warn(j, "key not part of format_version 1; ignored");
        return jl_skip(j, v);
    }
    if (v->t == JV_NULL)
        return 1;
    if (k >= 0) {
        if (v->t != JV_INT && v->t != JV_BOOL)
            return jl_bad_type(j, v, "an integer");
        t.iv[k + 1][i] = v->i;
        j->row_seen |= 1u << (k + 1);
        return 1;
    }
    if (v->t != JV_STRING)
        return jl_bad_type(j, v, "a string");
    free(t.sv[s][i]);
    if (!jl_charge(j, v->len + 1, "strings") || !(t.sv[s][i] = jl_strdup(j, v)))
        return 0;
    j->row_seen |= 1u << (t.ni + (size_t)s);
    return 1;
}

/* A column some row lacks is dropped whole when the document ends (the
 * HDF5 tables have whole columns or none); a row without its index drops
 * the table. */
static void table_row_end(jl_ctx *j)
{
    jl_table t = table_of(j);
    uint32_t all = (1u << (t.ni + t.ns)) - 1;
    if (!(j->row_seen & 2u))
        jl_warn(j, "no index; the %s table is dropped",
                j->section == JS_THREADS ? "thread" : "task");
    j->tbl_missing[j->section == JS_THREADS ? 0 : 1] |= all & ~j->row_seen;
}

static void table_finish(jl_ctx *j, int section)
{
    j->section = section;
    jl_table t = table_of(j);
    uint32_t miss = j->tbl_missing[section == JS_THREADS ? 0 : 1];
    if (miss & 2u)
        *t.has = false;
    for (size_t k = 2; k < t.ni; k++)
        if (miss & (1u << k)) {
            free(t.iv[k]);
            t.iv[k] = NULL;
        }
    for (size_t k = 0; k < t.ns; k++)
        if (miss & (1u << (t.ni + k))) {
            ld_free_strv(t.sv[k], *t.n);
            t.sv[k] = NULL;
        }
}

void jl_tables_finish(jl_ctx *j)
{
    table_finish(j, JS_THREADS);
    table_finish(j, JS_TASKS);
}

/* ------------------------------------------------------------ line profiles */

static jl_line *cur_line(jl_ctx *j)
{
    return &j->lines[j->nlines - 1];
}

static int line_begin(jl_ctx *j)
{
    if (!jl_charge(j, sizeof(jl_line), "line_profile"))
        return 0;
    if (j->nlines == j->lines_cap) {
        size_t cap = j->lines_cap ? j->lines_cap * 2 : 4;
        jl_line *v = realloc(j->lines, cap * sizeof *v);
        if (!v)
            return jl_nomem(j);
        j->lines = v;
        j->lines_cap = cap;
    }
    jl_line *l = &j->lines[j->nlines++];
    memset(l, 0, sizeof *l);
    l->rank = j->section_rank;
    return jl_push(j, JF_ROW, false);
}

static int line_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    jl_line *l = cur_line(j);
    line_profile *lp = &l->lp;
    int k = jl_key_id(line_keys, LK_N, f->key_text);
    if (k < 0) {
        jl_warn(j, "key not part of format_version 1; ignored");
        return jl_skip(j, v);
    }
    if (l->seen & (1u << k))
        return jl_fail(j, "repeated key");
    l->seen |= 1u << k;
    f->key = (int16_t)k;
    if (v->t == JV_NULL)
        return 1;
    if (k >= LK_LINES)
        return v->t == JV_ARRAY ? jl_push(j, JF_ROW_ARR, true) : jl_bad_type(j, v, "an array");
    if (k == LK_UNIT) {
        if (v->t != JV_INT && v->t != JV_DOUBLE)
            return jl_bad_type(j, v, "a number");
        lp->unit_s = v->t == JV_INT ? (double)v->i : v->d;
        return 1;
    }
    if (k == LK_FIRST || k == LK_SFIRST) {
        if (v->t != JV_INT)
            return jl_bad_type(j, v, "an integer");
        *(k == LK_FIRST ? &lp->first_lineno : &lp->source_first_lineno) = v->i;
        return 1;
    }
    if (v->t != JV_STRING)
        return jl_bad_type(j, v, "a string");
    char **dst[] = {&lp->region, &lp->filename, &lp->function, &lp->source};
    if (!jl_charge(j, v->len + 1, "strings") || !(*dst[k] = jl_strdup(j, v)))
        return 0;
    return 1;
}

int jl_row_arr_value(jl_ctx *j, const jl_val *v)
{
    jl_line *l = cur_line(j);
    int k = j->st[j->depth - 2].key - LK_LINES; /* 0 line_numbers, 1 hits, 2 times */
    if (v->t != JV_INT && (k < 2 || v->t != JV_DOUBLE))
        return jl_bad_type(j, v, k < 2 ? "an integer" : "a number");
    if (l->n[k] == l->cap[k]) {
        size_t cap = l->cap[k] ? l->cap[k] * 2 : 16;
        if (cap > ((size_t)1 << 28))
            return jl_fail(j, "more than %zu lines", (size_t)1 << 28);
        if (!jl_charge(j, (cap - l->cap[k]) * 8, "line_profile"))
            return 0;
        void **dst = k == 0   ? (void **)&l->lp.lineno
                     : k == 1 ? (void **)&l->lp.hits
                              : (void **)&l->lp.times;
        void *nv = realloc(*dst, cap * 8);
        if (!nv)
            return jl_nomem(j);
        *dst = nv;
        l->cap[k] = cap;
    }
    if (k == 2)
        l->lp.times[l->n[2]++] = v->t == JV_INT ? (double)v->i : v->d;
    else
        (k == 0 ? l->lp.lineno : l->lp.hits)[l->n[k]++] = v->i;
    return 1;
}

/* load_aux.c's checks; false (warning given) when the record must go. */
static bool line_check(jl_ctx *j, jl_line *l)
{
    line_profile *lp = &l->lp;
    if (!(l->seen & (1u << LK_UNIT)) || !(lp->unit_s > 0) || !isfinite(lp->unit_s)) {
        jl_warn(j, "unit missing or not a positive time unit; record dropped");
        return false;
    }
    if (l->n[0] != l->n[1] || l->n[0] != l->n[2]) {
        jl_warn(j, "line_numbers, hits, times: lengths differ (%zu, %zu, %zu); record dropped",
                l->n[0], l->n[1], l->n[2]);
        return false;
    }
    lp->n = l->n[0];
    for (size_t i = 0; i < lp->n; i++)
        if (lp->hits[i] < 0 || !(lp->times[i] >= 0) || !isfinite(lp->times[i])) {
            jl_warn(j, "hits or times negative or not finite at row %zu; record dropped", i);
            return false;
        }
    if (lp->source && !(l->seen & (1u << LK_SFIRST)))
        lp->source_first_lineno = lp->first_lineno;
    return true;
}

/* ------------------------------------------------------------ LIKWID */

static jl_likwid *cur_lk(jl_ctx *j)
{
    return &j->lk[j->nlk - 1];
}

static int lk_begin(jl_ctx *j, const jl_frame *f)
{
    if (!jl_charge(j, sizeof(jl_likwid), "likwid"))
        return 0;
    if (j->nlk == j->lk_cap) {
        size_t cap = j->lk_cap ? j->lk_cap * 2 : 4;
        jl_likwid *v = realloc(j->lk, cap * sizeof *v);
        if (!v)
            return jl_nomem(j);
        j->lk = v;
        j->lk_cap = cap;
    }
    jl_likwid *l = &j->lk[j->nlk++];
    memset(l, 0, sizeof *l);
    l->rank = j->section_rank;
    l->pr.calls = -1;
    l->pr.kind = strdup("likwid");
    (void)f;
    l->pr.region = strdup(j->meta_key ? j->meta_key : ""); /* the whole tag */
    if (!l->pr.kind || !l->pr.region)
        return jl_nomem(j);
    return jl_push(j, JF_LK_REC, false);
}

static int lk_grow(jl_ctx *j, void **v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap * 2 : 8;
    if (c > ((size_t)1 << 20))
        return jl_fail(j, "more than %zu LIKWID events", (size_t)1 << 20);
    if (!jl_charge(j, (c - *cap) * size, "likwid"))
        return 0;
    void *n = realloc(*v, c * size);
    if (!n)
        return jl_nomem(j);
    memset((char *)n + *cap * size, 0, (c - *cap) * size);
    *v = n;
    *cap = c;
    return 1;
}

/* events[row] += x (a row is one event over the threads). */
static int lk_add(jl_ctx *j, jl_likwid *l, size_t row, const jl_val *v)
{
    if (v->t != JV_INT && v->t != JV_DOUBLE)
        return jl_bad_type(j, v, "a number");
    if (!lk_grow(j, (void **)&l->pr.values, &l->values_cap, row + 1, sizeof(double)))
        return 0;
    l->pr.values[row] += v->t == JV_INT ? (double)v->i : v->d;
    l->nvalues = row + 1 > l->nvalues ? row + 1 : l->nvalues;
    return 1;
}

static int lk_array_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    jl_likwid *l = cur_lk(j);
    int key = j->st[j->depth - 2].key;
    if (key == KK_NAMES) {
        if (v->t != JV_STRING)
            return jl_bad_type(j, v, "a string");
        if (!lk_grow(j, (void **)&l->pr.names, &l->names_cap, l->pr.n + 1, sizeof(char *)))
            return 0;
        if (!(l->pr.names[l->pr.n] = jl_strdup(j, v)))
            return 0;
        l->pr.n++;
        return 1;
    }
    if (key == KK_CALLS) {
        if (v->t != JV_INT || v->i < 0)
            return jl_fail(j, "not a count");
        l->pr.calls = (l->pr.calls < 0 ? 0 : l->pr.calls);
        if (l->pr.calls <= INT64_MAX - v->i)
            l->pr.calls += v->i;
        return 1;
    }
    /* events: a flat list (one value an event) or a list per event */
    if (v->t == JV_ARRAY)
        return lk_grow(j, (void **)&l->pr.values, &l->values_cap, f->count + 1, sizeof(double))
                   ? (l->nvalues = f->count + 1 > l->nvalues ? f->count + 1 : l->nvalues,
                      jl_push(j, JF_LK_ROW, true))
                   : 0;
    return lk_add(j, l, f->count, v);
}

int jl_lk_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    switch ((jl_kind)f->kind) {
    case JF_LK_TAGS:
        return v->t == JV_MAP ? lk_begin(j, f) : jl_bad_type(j, v, "an object");
    case JF_LK_REC: {
        int k = jl_key_id(likwid_keys, KK_N, f->key_text);
        f->key = (int16_t)k;
        if (k < 0) {
            if (jl_key_id(likwid_ignored, sizeof likwid_ignored / sizeof *likwid_ignored,
                          f->key_text) < 0)
                jl_warn(j, "key not part of format_version 1; ignored");
            return jl_skip(j, v);
        }
        if (v->t == JV_NULL)
            return 1;
        if (v->t != JV_ARRAY)
            return jl_bad_type(j, v, "an array");
        if (k == KK_NAMES)
            cur_lk(j)->has_names = true;
        if (k == KK_EVENTS)
            cur_lk(j)->has_events = true;
        return jl_push(j, JF_LK_ARR, true);
    }
    case JF_LK_ARR:
        return lk_array_value(j, f, v);
    default: /* JF_LK_ROW */
        return lk_add(j, cur_lk(j), j->st[j->depth - 2].count, v);
    }
}

int jl_lk_end(jl_ctx *j)
{
    jl_likwid *l = cur_lk(j);
    const char *why = !l->has_names           ? "no event_names"
                      : !l->has_events        ? "no events"
                      : l->nvalues != l->pr.n ? "events and event_names differ in length"
                                              : NULL;
    if (why) {
        jl_warn(j, "%s; record dropped", why);
        perf_record_clear(&l->pr);
        j->nlk--;
        return 1;
    }
    if (!l->pr.values && !(l->pr.values = calloc(1, sizeof(double))))
        return jl_nomem(j);
    return 1;
}

/* ------------------------------------------------------------ sections */

int jl_rankmap_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    char *end;
    long r = strtol(f->key_text, &end, 10);
    if (!f->key_text[0] || *end || f->key_text[0] == '-' || f->key_text[0] == '+' || r > INT_MAX) {
        jl_warn(j, "not a rank number; ignored");
        return jl_skip(j, v);
    }
    j->section_rank = (int)r;
    if (v->t == JV_NULL)
        return 1;
    if (j->section == JS_LIKWID)
        return v->t == JV_MAP ? jl_push(j, JF_LK_TAGS, false) : jl_bad_type(j, v, "an object");
    return v->t == JV_ARRAY ? jl_push(j, JF_ROWS, true) : jl_bad_type(j, v, "an array");
}

int jl_rows_value(jl_ctx *j, const jl_val *v)
{
    if (v->t != JV_MAP)
        return jl_bad_type(j, v, "an object");
    return j->section == JS_LINES ? line_begin(j) : row_begin(j);
}

int jl_row_value(jl_ctx *j, jl_frame *f, const jl_val *v)
{
    return j->section == JS_LINES ? line_value(j, f, v) : table_value(j, f, v);
}

int jl_row_end(jl_ctx *j)
{
    if (j->section != JS_LINES) {
        table_row_end(j);
        return 1;
    }
    jl_line *l = cur_line(j);
    if (!line_check(j, l)) {
        line_profile_clear(&l->lp);
        j->nlines--;
    }
    return 1;
}

/* ------------------------------------------------------------ into the model */

static sv_err append_lines(rank_data *rk, jl_line *l)
{
    line_profile *v = realloc(rk->lines, (rk->nlines + 1) * sizeof *v);
    if (!v)
        return SV_ERR_NOMEM;
    rk->lines = v;
    v[rk->nlines++] = l->lp;
    memset(&l->lp, 0, sizeof l->lp);
    l->rank = -1;
    return SV_OK;
}

static sv_err append_perf(rank_data *rk, jl_likwid *l)
{
    perf_record *v = realloc(rk->perf, (rk->nperf + 1) * sizeof *v);
    if (!v)
        return SV_ERR_NOMEM;
    rk->perf = v;
    v[rk->nperf++] = l->pr;
    memset(&l->pr, 0, sizeof l->pr);
    l->rank = -1;
    return SV_OK;
}

sv_err jl_aux_rank(jl_ctx *j, rank_data *rk)
{
    sv_err e = SV_OK;
    for (size_t i = 0; !e && i < j->nlines; i++)
        if (j->lines[i].rank == rk->rank)
            e = append_lines(rk, &j->lines[i]);
    for (size_t i = 0; !e && i < j->nlk; i++)
        if (j->lk[i].rank == rk->rank)
            e = append_perf(rk, &j->lk[i]);
    return e;
}

void jl_aux_orphans(jl_ctx *j)
{
    for (size_t i = 0; i < j->nlines; i++)
        if (j->lines[i].rank >= 0)
            profile_warn(j->c->p,
                         "%s: JSON line_profile.%d: a rank the run does not have; "
                         "ignored",
                         j->c->path, j->lines[i].rank);
    for (size_t i = 0; i < j->nlk; i++)
        if (j->lk[i].rank >= 0)
            profile_warn(j->c->p, "%s: JSON likwid.%d: a rank the run does not have; ignored",
                         j->c->path, j->lk[i].rank);
}

void jl_aux_free(jl_ctx *j)
{
    for (size_t i = 0; i < j->nlines; i++)
        line_profile_clear(&j->lines[i].lp);
    for (size_t i = 0; i < j->nlk; i++)
        perf_record_clear(&j->lk[i].pr);
    free(j->lines);
    free(j->lk);
    ld_lane_tables_free(&j->lt);
}
