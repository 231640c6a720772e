/* gen_json: see gen_json.h.  The layout follows scope-profiler's
 * json_export (format_version 1): one object, regions in the description's
 * order, the per-rank tables keyed by the rank's number. */
#include "gen_json.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

typedef struct gj_out {
    FILE *f;
    gzFile gz;
    const char *path;
} gj_out;

static void gj_printf(gj_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void gj_printf(gj_out *o, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf)
        gen_die("%s: JSON text too long", o->path);
    int w = o->gz ? gzwrite(o->gz, buf, (unsigned)n) : (int)fwrite(buf, 1, (size_t)n, o->f);
    if (w != n)
        gen_die("%s: write failed", o->path);
}

/* A JSON string: quote, backslash and control characters escaped, other
 * bytes (UTF-8) as they are. */
static void gj_str(gj_out *o, const char *s)
{
    gj_printf(o, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            gj_printf(o, "\\%c", *c);
        else if (*c == '\n')
            gj_printf(o, "\\n");
        else if (*c < 0x20)
            gj_printf(o, "\\u%04x", *c);
        else
            gj_printf(o, "%c", *c);
    }
    gj_printf(o, "\"");
}

static void gj_key(gj_out *o, bool *first, const char *key)
{
    gj_printf(o, "%s", *first ? "" : ", ");
    *first = false;
    gj_str(o, key);
    gj_printf(o, ": ");
}

static void gj_i64s(gj_out *o, const int64_t *v, size_t n, int64_t fill)
{
    gj_printf(o, "[");
    for (size_t i = 0; i < n; i++)
        gj_printf(o, i ? ", %" PRId64 : "%" PRId64, v ? v[i] : fill);
    gj_printf(o, "]");
}

static void gj_meta(gj_out *o, const gc_profile *p)
{
    bool first = true;
    gj_printf(o, "{");
    for (size_t i = 0; i < p->nmeta; i++) {
        const gen_kv *kv = &p->meta[i];
        gj_key(o, &first, kv->key);
        if (kv->kind == GEN_STR)
            gj_str(o, kv->s);
        else if (kv->kind == GEN_INT)
            gj_printf(o, "%" PRId64, kv->i);
        else if (kv->kind == GEN_BOOL)
            gj_printf(o, "%s", kv->i ? "true" : "false");
        else
            gj_printf(o, "%.17g", kv->f);
    }
    gj_printf(o, "}");
}

static const char *const gj_opt_keys[GC_NOPT] = {"gpu_durations_ns", "call_ids", "parent_ids",
                                                 "thread_ids",       "task_ids", "await_ns"};

static void gj_row(gj_out *o, const gc_row *r, const bool *has, int64_t excl, const gj_opts *opt)
{
    bool first = true;
    gj_printf(o, "{");
    gj_key(o, &first, "name");
    gj_str(o, r->region);
    gj_key(o, &first, "rank");
    gj_printf(o, "%d", r->rank);
    if (r->source_file) {
        gj_key(o, &first, "source_file");
        gj_str(o, r->source_file);
    }
    if (r->source_line > 0) {
        gj_key(o, &first, "source_lineno");
        gj_printf(o, "%" PRId64, r->source_line);
    }
    if (r->source_text) {
        gj_key(o, &first, "source_text");
        gj_str(o, r->source_text);
    }
    if (r->tags_json && strcmp(r->tags_json, "[]") != 0) {
        gj_key(o, &first, "tags");
        gj_printf(o, "%s", r->tags_json); /* already JSON text */
    }
    if (opt->aggregate) {
        gc_summary s;
        gc_row_summary(r, &s);
        gj_key(o, &first, "aggregate");
        gj_printf(o, "{\"count\": %zu, \"total\": %" PRId64 ", \"minimum\": %" PRId64
                     ", \"maximum\": %" PRId64 ", \"exclusive\": %" PRId64 "}",
                  r->n, s.total, s.minimum, s.maximum, excl);
        gj_key(o, &first, "event_data_available");
        gj_printf(o, "false}");
        return;
    }
    gj_key(o, &first, "start_times_ns");
    gj_i64s(o, r->start, r->n, 0);
    gj_key(o, &first, "end_times_ns");
    gj_i64s(o, r->end, r->n, 0);
    /* As the columnar writer: a column some row has is written for every
     * row, filled with its sentinel where a row lacks it. */
    for (int k = 0; k < GC_NOPT; k++)
        if (has[k]) {
            gj_key(o, &first, gj_opt_keys[k]);
            gj_i64s(o, r->opt[k], r->n, k == GC_AWAIT ? 0 : -1);
        }
    if (excl >= 0) {
        gj_key(o, &first, "exclusive_total_ns");
        gj_printf(o, "%" PRId64, excl);
    }
    gj_printf(o, "}");
}

static int gj_num_ranks(const gc_profile *p)
{
    int64_t n = 0;
    for (size_t i = 0; i < p->nrows; i++)
        n = p->rows[i].rank + 1 > n ? p->rows[i].rank + 1 : n;
    for (size_t i = 0; i < p->nmeta; i++)
        if (strcmp(p->meta[i].key, "mpi_size") == 0 && p->meta[i].kind == GEN_INT &&
            p->meta[i].i > n)
            n = p->meta[i].i;
    return (int)n;
}

/* The ranks of n items (rank at byte offset off of each size-byte item). */
static void gj_rank_keys(gj_out *o, const char *section, const void *items, size_t n,
                         size_t size, size_t off, int nranks,
                         void (*item)(gj_out *, const void *))
{
    if (n == 0)
        return;
    gj_printf(o, ", ");
    gj_str(o, section);
    gj_printf(o, ": {");
    bool firstrank = true;
    for (int r = 0; r < nranks; r++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            const char *it = (const char *)items + i * size;
            if (*(const int *)(it + off) != r)
                continue;
            if (!any) {
                gj_printf(o, "%s\"%d\": [", firstrank ? "" : ", ", r);
                firstrank = false;
            } else {
                gj_printf(o, ", ");
            }
            any = true;
            item(o, it);
        }
        if (any)
            gj_printf(o, "]");
    }
    gj_printf(o, "}");
}

static void gj_thread(gj_out *o, const void *v)
{
    const gc_thread *t = v;
    gj_printf(o, "{\"index\": %" PRId64 ", \"name\": ", t->index);
    gj_str(o, t->name ? t->name : "");
    gj_printf(o, ", \"ident\": %" PRId64 ", \"native_id\": %" PRId64 ", \"daemon\": %d"
                 ", \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 ", \"cpu_ns\": %" PRId64 "}",
              t->ident, t->native_id, t->daemon, t->start_ns, t->end_ns, t->cpu_ns);
}

static void gj_task(gj_out *o, const void *v)
{
    const gc_task *t = v;
    gj_printf(o, "{\"index\": %" PRId64 ", \"kind\": ", t->index);
    gj_str(o, t->kind ? t->kind : "task");
    gj_printf(o, ", \"name\": ");
    gj_str(o, t->name ? t->name : "");
    gj_printf(o, ", \"coro_name\": ");
    gj_str(o, t->coro_name ? t->coro_name : "");
    gj_printf(o, ", \"thread_index\": %" PRId64 ", \"created_ns\": %" PRId64
                 ", \"done_ns\": %" PRId64 ", \"steps\": %" PRId64 ", \"running_ns\": %" PRId64
                 ", \"suspended_ns\": %" PRId64 "}",
              t->thread_index, t->created_ns, t->done_ns, t->steps, t->running_ns,
              t->suspended_ns);
}

static void gj_line(gj_out *o, const void *v)
{
    const gc_line_profile *l = v;
    gj_printf(o, "{\"region\": ");
    gj_str(o, l->region ? l->region : "");
    gj_printf(o, ", \"filename\": ");
    gj_str(o, l->filename ? l->filename : "");
    gj_printf(o, ", \"function\": ");
    gj_str(o, l->function ? l->function : "");
    gj_printf(o, ", \"first_lineno\": %" PRId64 ", \"unit\": %.17g", l->first_lineno, l->unit);
    if (l->source) {
        gj_printf(o, ", \"source\": ");
        gj_str(o, l->source);
        gj_printf(o, ", \"source_first_lineno\": %" PRId64, l->source_first_lineno);
    }
    gj_printf(o, ", \"line_numbers\": ");
    gj_i64s(o, l->lines, l->n, 0);
    gj_printf(o, ", \"hits\": ");
    gj_i64s(o, l->hits, l->n, 0);
    gj_printf(o, ", \"times\": [");
    for (size_t i = 0; i < l->n; i++)
        gj_printf(o, i ? ", %.17g" : "%.17g", l->times[i]);
    gj_printf(o, "]}");
}

static void gj_body(gj_out *o, const gc_profile *p, const gj_opts *opt)
{
    int nranks = gj_num_ranks(p);
    gj_printf(o, "{\"format\": \"scope-profiler-profile\", \"format_version\": 1, "
                 "\"exporter\": \"svgen\", \"time_unit\": \"nanoseconds\", \"num_ranks\": %d, "
                 "\"event_data_available\": %s, \"metadata\": ",
              nranks, opt->aggregate ? "false" : "true");
    gj_meta(o, p);
    int64_t *excl = gen_alloc(p->nrows ? p->nrows : 1, sizeof *excl);
    if (opt->excl)
        memcpy(excl, opt->excl, p->nrows * sizeof *excl);
    else
        gc_exclusive_totals(p, excl);
    bool has[GC_NOPT] = {false};
    for (size_t i = 0; i < p->nrows; i++)
        for (int k = 0; k < GC_NOPT; k++)
            has[k] |= p->rows[i].opt[k] != NULL;
    gj_printf(o, ", \"regions\": [");
    for (size_t i = 0; i < p->nrows; i++) {
        gj_printf(o, i ? ", " : "");
        gj_row(o, &p->rows[i], has, excl[i], opt);
    }
    gj_printf(o, "]");
    free(excl);
    if (!opt->aggregate) {
        gj_rank_keys(o, "threads", p->threads, p->nthreads, sizeof *p->threads,
                     offsetof(gc_thread, rank), nranks, gj_thread);
        gj_rank_keys(o, "tasks", p->tasks, p->ntasks, sizeof *p->tasks, offsetof(gc_task, rank),
                     nranks, gj_task);
    }
    gj_rank_keys(o, "line_profile", p->lines, p->nlines, sizeof *p->lines,
                 offsetof(gc_line_profile, rank), nranks, gj_line);
    gj_printf(o, "}\n");
}

void gj_write(const char *path, const gc_profile *p, const gj_opts *opt)
{
    gj_out o = {.path = path};
    if (opt->gzip) {
        /* no name, no time in the header, as upstream's writer */
        o.gz = gzopen(path, "wb6");
        if (!o.gz)
            gen_die("%s: cannot create", path);
        gzbuffer(o.gz, 1u << 17);
    } else if (!(o.f = fopen(path, "wb"))) {
        gen_die("%s: cannot create", path);
    }
    gj_body(&o, p, opt);
    if (o.gz ? gzclose(o.gz) != Z_OK : fclose(o.f) != 0)
        gen_die("%s: write failed", path);
}
