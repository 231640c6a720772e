/* info: view 5, what the file holds.
 *
 * The page is built once per width as a list of lines (tables are aligned
 * by display width, warnings wrapped), then only scrolled.  Strings from
 * the file are stored raw and escaped where they are drawn
 * (grid_put_text), the one place every view escapes them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lineprof.h"
#include "model/region.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "ui/view.h"

#define INFO_MAXF 12
/* Widest a table column grows before its cells are cut. */
#define INFO_COL_MAX 40

typedef struct info_field {
    char *text;
    int x, w;   /* column offset and width (w 0: the rest of the line) */
    bool right; /* right-aligned in its column */
} info_field;

typedef struct info_line {
    int role, attr;
    int nf;
    info_field f[INFO_MAXF];
} info_line;

typedef struct info_doc {
    const grid *g;
    int width; /* the width the page was built for */
    info_line *lines;
    size_t n, cap;
    bool oom;
    bool pending; /* built before the statistics (and nesting flags) were in */
} info_doc;

typedef struct info_state {
    info_doc doc;
    size_t top;
    int page;
    size_t warn_line; /* the "Loader warnings" heading (W and the header's marker) */
} info_state;

static void doc_free(info_doc *d)
{
    for (size_t i = 0; i < d->n; i++)
        for (int k = 0; k < d->lines[i].nf; k++)
            free(d->lines[i].f[k].text);
    free(d->lines);
    memset(d, 0, sizeof *d);
}

static info_line *doc_add(info_doc *d, int role, int attr)
{
    if (d->oom)
        return NULL;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        info_line *l = realloc(d->lines, cap * sizeof *l);
        if (!l) {
            d->oom = true;
            return NULL;
        }
        d->lines = l;
        d->cap = cap;
    }
    info_line *l = &d->lines[d->n++];
    memset(l, 0, sizeof *l);
    l->role = role;
    l->attr = attr;
    return l;
}

static void line_field(info_doc *d, info_line *l, const char *text, int x)
{
    if (!l || l->nf >= INFO_MAXF)
        return;
    char *t = strdup(text ? text : "");
    if (!t) {
        d->oom = true;
        return;
    }
    l->f[l->nf++] = (info_field){.text = t, .x = x, .w = 0, .right = false};
}

static void doc_text(info_doc *d, int role, int attr, int indent, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void doc_text(info_doc *d, int role, int attr, int indent, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    line_field(d, doc_add(d, role, attr), buf, indent);
}

static void doc_heading(info_doc *d, const char *title)
{
    if (d->n > 0)
        doc_add(d, ROLE_NORMAL, 0);
    doc_text(d, ROLE_HEADER, GA_BOLD, 0, "%s", title);
}

/* A label and a value from the file: two fields, the value escaped when
 * drawn. */
static void doc_pair(info_doc *d, int indent, int labelw, const char *label, const char *value)
{
    info_line *l = doc_add(d, ROLE_NORMAL, 0);
    line_field(d, l, label, indent);
    line_field(d, l, value, indent + labelw + 2);
}

/* A table row of nf cells; doc_table_end aligns the rows. */
static void doc_row(info_doc *d, int role, int nf, const char *const *cells)
{
    info_line *l = doc_add(d, role, 0);
    for (int k = 0; k < nf; k++)
        line_field(d, l, cells[k], 0);
}

/* Aligns rows [first, d->n): each column as wide as its widest cell (at
 * most INFO_COL_MAX), two spaces apart; right_mask bit k right-aligns
 * column k. */
static void doc_table_end(info_doc *d, size_t first, int indent, unsigned right_mask)
{
    int w[INFO_MAXF] = {0};
    for (size_t i = first; i < d->n; i++)
        for (int k = 0; k < d->lines[i].nf; k++) {
            int tw = grid_text_width(d->g, d->lines[i].f[k].text);
            if (tw > w[k])
                w[k] = tw > INFO_COL_MAX ? INFO_COL_MAX : tw;
        }
    for (size_t i = first; i < d->n; i++) {
        int x = indent;
        info_line *l = &d->lines[i];
        for (int k = 0; k < l->nf; k++) {
            l->f[k].x = x;
            l->f[k].right = (right_mask >> k) & 1u;
            /* A last column aligned left may run to the end of the line. */
            l->f[k].w = k + 1 < l->nf || l->f[k].right ? w[k] : 0;
            x += w[k] + 2;
        }
    }
}

/* Bytes of the character at s (1 for an invalid byte, shown escaped). */
static size_t char_len(const char *s, size_t n)
{
    uint32_t cp;
    size_t k = utf8_decode(s, n, &cp);
    return k ? k : 1;
}

/* Breaks text at spaces into lines of the page width; a word longer than
 * a line is cut when drawn. */
static void doc_wrap(info_doc *d, int role, int indent, const char *text)
{
    int room = d->width - indent - 3 > 20 ? d->width - indent - 3 : 20;
    size_t n = strlen(text), pos = 0;
    bool first = true;
    while (pos < n) {
        size_t end = pos, brk = 0;
        int w = 0;
        while (end < n) {
            size_t k = char_len(text + end, n - end);
            w += grid_text_widthn(d->g, text + end, k);
            if (w > room)
                break;
            end += k;
            if (text[end - 1] == ' ')
                brk = end;
        }
        if (end < n && brk > pos)
            end = brk;
        if (end == pos)
            end = n; /* nothing fits: drawn cut */
        char *piece = strndup(text + pos, end - pos);
        if (!piece) {
            d->oom = true;
            return;
        }
        line_field(d, doc_add(d, role, 0), piece, first ? indent : indent + 2);
        free(piece);
        first = false;
        pos = end;
    }
}

/* --- the page --- */

/* What the file is, in scope-profiler's own terms (doc/FORMAT.md). */
static const char *info_layout_text(const profile *p)
{
    if (p->format == PFMT_JSON || p->format == PFMT_JSON_GZIP) {
        bool agg = p->layout == LAYOUT_AGGREGATE, gz = p->format == PFMT_JSON_GZIP;
        return agg  ? gz ? "JSON profile, gzip'd (format_version 1; aggregates only, no calls)"
                         : "JSON profile (format_version 1; aggregates only, no calls)"
               : gz ? "JSON profile, gzip'd (format_version 1; schema-3 columns)"
                    : "JSON profile (format_version 1; schema-3 columns)";
    }
    switch (p->layout) {
    case LAYOUT_NATIVE:
        return "native traces (start and end times only)";
    case LAYOUT_AGGREGATE:
        return "schema 3, aggregate (summaries only, no calls)";
    case LAYOUT_COLUMNAR:
        return p->schema == 2 ? "schema 2, columnar (start and end times)"
                              : "schema 3, columnar (gap-encoded start times)";
    case LAYOUT_GROUPS:
    default:
        return p->legacy ? "schema 1, legacy (start and end times only)"
                         : "schema 1, extended (optional columns)";
    }
}

static void build_file(info_doc *d, const profile *p)
{
    doc_heading(d, "File");
    char size[96];
    double kib = (double)p->file_size / 1024.0;
    if (kib >= 1024.0)
        snprintf(size, sizeof size, "%" PRIu64 " bytes (%.1f MiB)", p->file_size, kib / 1024.0);
    else
        snprintf(size, sizeof size, "%" PRIu64 " bytes (%.1f KiB)", p->file_size, kib);
    if (p->run_name)
        doc_pair(d, 2, 6, "run", p->run_name);
    if (p->npaths > 1) {
        char n[48];
        snprintf(n, sizeof n, "%zu (one per rank)", p->npaths);
        doc_pair(d, 2, 6, "files", n);
        /* Each file, and under it what it is (a native trace's version and byte order). */
        for (size_t i = 0; i < p->npaths; i++) {
            doc_pair(d, 2, 6, "", p->paths[i]);
            if (p->path_formats && p->path_formats[i])
                doc_pair(d, 4, 6, "", p->path_formats[i]);
        }
    } else {
        doc_pair(d, 2, 6, "path", p->path);
    }
    doc_pair(d, 2, 6, "size", size);
    doc_pair(d, 2, 6, "layout", info_layout_text(p));
    /* One native trace: its version and byte order (an HDF5 file's layout says it all). */
    if (p->npaths == 1 && p->layout == LAYOUT_NATIVE && p->path_formats && p->path_formats[0])
        doc_pair(d, 2, 6, "format", p->path_formats[0]);
}

static void build_meta(info_doc *d, const profile *p)
{
    char title[64];
    snprintf(title, sizeof title, "Metadata (%zu attribute%s)", p->nmeta, p->nmeta == 1 ? "" : "s");
    doc_heading(d, title);
    if (p->nmeta == 0) {
        doc_text(d, ROLE_DIM, 0, 2, "no /metadata attributes");
        return;
    }
    size_t first = d->n;
    for (size_t i = 0; i < p->nmeta; i++) {
        const char *cells[2] = {p->meta[i].key, p->meta[i].text};
        doc_row(d, ROLE_NORMAL, 2, cells);
    }
    doc_table_end(d, first, 2, 0);
}

/* A table time from the timeline's zero, a duration, or "-" without the column. */
static const char *tbl_time(char *buf, size_t len, const int64_t *v, size_t i, int64_t zero)
{
    if (!v)
        return "-";
    timefmt_ns(buf, len, (double)(v[i] - zero));
    return buf;
}

static void build_threads(info_doc *d, const rank_data *rk, int64_t zero)
{
    const thread_table *t = &rk->threads;
    char a[32], b[32], c[32], e[4][32], name[64];
    doc_text(d, ROLE_NORMAL, GA_BOLD, 2, "threads of rank %d (%zu), times from the timeline's zero",
             rk->rank, t->n);
    size_t first = d->n;
    const char *head[8] = {"row", "name", "ident", "native_id", "daemon", "start", "end", "cpu"};
    doc_row(d, ROLE_DIM, 8, head);
    for (size_t i = 0; i < t->n; i++) {
        snprintf(a, sizeof a, "%zu", i);
        snprintf(b, sizeof b, "%" PRId64, t->ident ? t->ident[i] : 0);
        snprintf(c, sizeof c, "%" PRId64, t->native_id ? t->native_id[i] : 0);
        const char *end =
            t->end_ns && t->end_ns[i] < 0 ? "running" : tbl_time(e[1], 32, t->end_ns, i, zero);
        const char *cells[8] = {a,
                                rank_thread_name(rk, (int64_t)i, name, sizeof name),
                                t->ident ? b : "-",
                                t->native_id ? c : "-",
                                !t->daemon     ? "-"
                                : t->daemon[i] ? "yes"
                                               : "no",
                                tbl_time(e[0], 32, t->start_ns, i, zero),
                                end,
                                tbl_time(e[2], 32, t->cpu_ns, i, 0)};
        doc_row(d, ROLE_NORMAL, 8, cells);
    }
    doc_table_end(d, first, 4, 1u | 4u | 8u | 32u | 64u | 128u);
}

static void build_tasks(info_doc *d, const rank_data *rk, int64_t zero)
{
    const task_table *t = &rk->tasks;
    char a[32], steps[32], e[4][32], name[64], tname[64];
    doc_text(d, ROLE_NORMAL, GA_BOLD, 2, "tasks of rank %d (%zu), times from the timeline's zero",
             rk->rank, t->n);
    size_t first = d->n;
    const char *head[10] = {"row",     "name", "thread", "kind",    "coroutine",
                            "created", "done", "steps",  "running", "suspended"};
    doc_row(d, ROLE_DIM, 10, head);
    for (size_t i = 0; i < t->n; i++) {
        int64_t th = t->thread ? t->thread[i] : -1;
        snprintf(a, sizeof a, "%zu", i);
        /* "row (name)", the name whole: the table cuts it by display width */
        strbuf c;
        sb_init(&c);
        if (th >= 0)
            sb_printf(&c, "%" PRId64 " (%s)", th, rank_thread_name(rk, th, tname, sizeof tname));
        snprintf(steps, sizeof steps, "%" PRId64, t->steps ? t->steps[i] : 0);
        const char *done = t->done_ns && t->done_ns[i] < 0
                               ? "unfinished"
                               : tbl_time(e[1], 32, t->done_ns, i, zero);
        const char *cells[10] = {a,
                                 rank_task_name(rk, (int64_t)i, name, sizeof name),
                                 th >= 0 && c.s ? c.s : "unknown",
                                 t->kind && t->kind[i] ? t->kind[i] : "-",
                                 t->coro_name && t->coro_name[i] ? t->coro_name[i] : "-",
                                 tbl_time(e[0], 32, t->created_ns, i, zero),
                                 done,
                                 t->steps ? steps : "-",
                                 tbl_time(e[2], 32, t->running_ns, i, 0),
                                 tbl_time(e[3], 32, t->suspended_ns, i, 0)};
        doc_row(d, ROLE_NORMAL, 10, cells);
        sb_free(&c);
    }
    doc_table_end(d, first, 4, 1u | 4u | 32u | 64u | 128u | 256u | 512u);
}

static void build_rank_tables(info_doc *d, const profile *p, const rank_data *rk)
{
    int64_t zero = p->has_min_start ? p->min_start_ns : 0;
    if (rk->has_threads)
        build_threads(d, rk, zero);
    if (rk->has_tasks)
        build_tasks(d, rk, zero);
}

/* One line for ranks whose lanes were inferred (doc/FORMAT.md
 * "inferred lanes"): the file names no threads, the lanes are a guess
 * (calls that overlap partly ran on different threads). */
static void build_inferred_note(info_doc *d, const profile *p)
{
    for (size_t i = 0; i < p->nranks; i++)
        if (p->ranks[i].ninferred_lanes > 0) {
            doc_wrap(d, ROLE_WARNING, 2,
                     "The file records no threads; lanes were inferred where calls overlap partly");
            return;
        }
}

static void build_ranks(info_doc *d, const profile *p)
{
    char title[64];
    snprintf(title, sizeof title, "Ranks (%zu)", p->nranks);
    doc_heading(d, title);
    if (p->nranks == 0) {
        doc_text(d, ROLE_DIM, 0, 2, "no rank groups in the file");
        return;
    }
    size_t first = d->n;
    const char *head[5] = {"rank", "regions", "calls", "nesting", "tables"};
    doc_row(d, ROLE_DIM, 5, head);
    for (size_t i = 0; i < p->nranks; i++) {
        const rank_data *rk = &p->ranks[i];
        char a[32], b[32], c[32], t[64];
        snprintf(a, sizeof a, "%d", rk->rank);
        snprintf(b, sizeof b, "%zu", rk->nregions);
        snprintf(c, sizeof c, "%zu", rk->ncalls);
        snprintf(t, sizeof t, "%s%s%s", rk->has_threads ? "threads" : "",
                 rk->has_threads && rk->has_tasks ? ", " : "", rk->has_tasks ? "tasks" : "");
        if (!t[0] && rk->ninferred_lanes)
            snprintf(t, sizeof t, "%u lanes (inferred)", rk->ninferred_lanes);
        /* The nesting flags come with the statistics. */
        const char *later = d->g->ascii ? "computing..." : "computing…";
        const char *cells[5] = {a, b, c,
                                d->pending         ? later
                                : rk->explicit_ids ? "call ids"
                                                   : "inferred",
                                t[0]         ? t
                                : d->pending ? later
                                             : "-"};
        doc_row(d, ROLE_NORMAL, 5, cells);
    }
    doc_table_end(d, first, 2, 1u | 2u | 4u);
    build_inferred_note(d, p);
    for (size_t i = 0; i < p->nranks; i++)
        build_rank_tables(d, p, &p->ranks[i]);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Distinct region names over every rank. */
static size_t distinct_names(const profile *p, info_doc *d)
{
    if (p->nregions == 0)
        return 0;
    const char **names = malloc(p->nregions * sizeof *names);
    if (!names) {
        d->oom = true;
        return 0;
    }
    for (size_t i = 0; i < p->nregions; i++)
        names[i] = p->regions[i]->name;
    qsort(names, p->nregions, sizeof *names, name_cmp);
    size_t k = 1;
    for (size_t i = 1; i < p->nregions; i++)
        k += strcmp(names[i], names[i - 1]) != 0;
    free(names);
    return k;
}

static void build_counts(info_doc *d, const profile *p)
{
    size_t calls = 0, no_events = 0;
    for (size_t i = 0; i < p->nranks; i++)
        calls += p->ranks[i].ncalls;
    for (size_t i = 0; i < p->nregions; i++)
        no_events += !p->regions[i]->has_event_data;
    doc_heading(d, "Counts");
    char v[128];
    size_t names = distinct_names(p, d);
    snprintf(v, sizeof v, "%zu name%s, %zu (region, rank) pair%s", names, names == 1 ? "" : "s",
             p->nregions, p->nregions == 1 ? "" : "s");
    doc_pair(d, 2, 14, "regions", v);
    snprintf(v, sizeof v, "%zu", calls);
    doc_pair(d, 2, 14, "calls", v);
    snprintf(v, sizeof v, "%zu", no_events);
    doc_pair(d, 2, 14, "summary-only", v);
    if (p->has_min_start) {
        /* Seconds, exact to the nanosecond: a 13-digit count of
         * nanoseconds is hard to read. */
        int64_t ns = p->min_start_ns;
        uint64_t mag = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
        snprintf(v, sizeof v, "%s%" PRIu64 ".%09" PRIu64 " s (the timeline's zero)",
                 ns < 0 ? "-" : "", mag / 1000000000u, mag % 1000000000u);
        doc_pair(d, 2, 14, "first start", v);
    }
}

static void build_no_events(info_doc *d, const profile *p)
{
    size_t count = 0;
    for (size_t i = 0; i < p->nregions; i++)
        count += !p->regions[i]->has_event_data;
    char title[80];
    snprintf(title, sizeof title, "Regions without event data (%zu)", count);
    doc_heading(d, title);
    if (count == 0) {
        doc_text(d, ROLE_DIM, 0, 2, "none: every region has per-call data");
        return;
    }
    size_t first = d->n;
    const char *head[4] = {"region", "rank", "stored calls", "stored total"};
    doc_row(d, ROLE_DIM, 4, head);
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (r->has_event_data)
            continue;
        char rank[32], calls[32] = "-", total[32] = "-";
        snprintf(rank, sizeof rank, "%d", r->rank);
        if (r->stored.known & (1u << SUM_NUM_CALLS))
            snprintf(calls, sizeof calls, "%.0f", r->stored.v[SUM_NUM_CALLS]);
        if (r->stored.known & (1u << SUM_TOTAL))
            timefmt_ns(total, sizeof total, r->stored.v[SUM_TOTAL]);
        const char *cells[4] = {r->name, rank, calls, total};
        doc_row(d, ROLE_NORMAL, 4, cells);
    }
    doc_table_end(d, first, 2, 2u | 4u | 8u);
}

/* The regions' tags (a region with none is left out), by rank. */
static void build_tags(info_doc *d, const profile *p)
{
    size_t count = 0;
    for (size_t i = 0; i < p->nregions; i++)
        count += p->regions[i]->ntags > 0;
    if (count == 0)
        return;
    char title[80];
    snprintf(title, sizeof title, "Region tags (%zu)", count);
    doc_heading(d, title);
    size_t first = d->n;
    const char *head[3] = {"region", "rank", "tags"};
    doc_row(d, ROLE_DIM, 3, head);
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (!r->ntags)
            continue;
        char rank[32], tags[256];
        snprintf(rank, sizeof rank, "%d", r->rank);
        size_t off = 0;
        tags[0] = '\0';
        for (size_t k = 0; k < r->ntags && off + 1 < sizeof tags; k++)
            off += (size_t)snprintf(tags + off, sizeof tags - off, "%s%.60s", k ? ", " : "",
                                    r->tags[k]);
        const char *cells[3] = {r->name, rank, tags};
        doc_row(d, ROLE_NORMAL, 3, cells);
    }
    doc_table_end(d, first, 2, 2u);
}

/* A counter as an exact integer while it is one, else four digits. */
static void counter_text(char *buf, size_t len, double v)
{
    if (v >= 0 && v < 9007199254740992.0 && v == (double)(int64_t)v)
        snprintf(buf, len, "%" PRId64, (int64_t)v);
    else
        snprintf(buf, len, "%.4g", v);
}

/* Hardware counters (perf_events, LIKWID events summed over threads): per
 * region the counter, its value and the value per call. */
static void build_counters(info_doc *d, const profile *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nranks; i++)
        for (size_t k = 0; k < p->ranks[i].nperf; k++)
            n += p->ranks[i].perf[k].n;
    if (n == 0)
        return;
    char title[64];
    snprintf(title, sizeof title, "Counters (%zu)", n);
    doc_heading(d, title);
    size_t first = d->n;
    const char *head[5] = {"rank", "region", "counter", "value", "per call"};
    doc_row(d, ROLE_DIM, 5, head);
    for (size_t i = 0; i < p->nranks; i++) {
        const rank_data *rk = &p->ranks[i];
        for (size_t k = 0; k < rk->nperf; k++) {
            const perf_record *pr = &rk->perf[k];
            bool likwid = pr->kind && strcmp(pr->kind, "likwid") == 0;
            for (size_t j = 0; j < pr->n; j++) {
                char a[16], v[32], pc[32] = "-";
                snprintf(a, sizeof a, "%d", rk->rank);
                strbuf name; /* whole: the screen fits it by display width */
                sb_init(&name);
                sb_printf(&name, "%s%s", likwid ? "likwid " : "",
                          pr->names[j] ? pr->names[j] : "?");
                counter_text(v, sizeof v, pr->values[j]);
                /* Whole units from 100 up (like the value column), else four digits. */
                double per = pr->calls > 0 ? pr->values[j] / (double)pr->calls : 0;
                if (pr->calls > 0)
                    snprintf(pc, sizeof pc, per >= 100 && per < 1e18 ? "%.0f" : "%.4g", per);
                const char *cells[5] = {a, pr->region ? pr->region : "?", name.s ? name.s : "?", v,
                                        pc};
                doc_row(d, ROLE_NORMAL, 5, cells);
                sb_free(&name);
            }
        }
    }
    doc_table_end(d, first, 2, 1u | 8u | 16u);
}

/* Line-profiler records: which function, how many lines, the total. */
static void build_line_profiles(info_doc *d, const profile *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nranks; i++)
        n += p->ranks[i].nlines;
    if (n == 0)
        return;
    char title[96];
    snprintf(title, sizeof title, "Line profiles (%zu; s shows them beside the source)", n);
    doc_heading(d, title);
    size_t first = d->n;
    const char *head[5] = {"rank", "region", "function", "lines", "total"};
    doc_row(d, ROLE_DIM, 5, head);
    for (size_t i = 0; i < p->nranks; i++) {
        const rank_data *rk = &p->ranks[i];
        for (size_t k = 0; k < rk->nlines; k++) {
            const line_profile *lp = &rk->lines[k];
            char a[16], nl[32], tot[32];
            snprintf(a, sizeof a, "%d", rk->rank);
            strbuf fn; /* whole: the screen fits it by display width */
            sb_init(&fn);
            sb_printf(&fn, "%s  %s:%" PRId64, lp->function ? lp->function : "?",
                      lp->filename ? lp->filename : "?", lp->first_lineno);
            snprintf(nl, sizeof nl, "%zu", lp->n);
            timefmt_ns(tot, sizeof tot, lineprof_total_ns(lp));
            const char *cells[5] = {a, lp->region ? lp->region : "-", fn.s ? fn.s : "?", nl, tot};
            doc_row(d, ROLE_NORMAL, 5, cells);
            sb_free(&fn);
        }
    }
    doc_table_end(d, first, 2, 1u | 8u | 16u);
}

static void build_warnings(info_doc *d, const profile *p)
{
    char title[64];
    snprintf(title, sizeof title, "Loader warnings (%zu)", p->nwarnings);
    doc_heading(d, title);
    if (p->nwarnings == 0)
        doc_text(d, ROLE_DIM, 0, 2, "none: the file loaded cleanly");
    for (size_t i = 0; i < p->nwarnings; i++)
        doc_wrap(d, ROLE_WARNING, 2, p->warnings[i]);
}

static void info_build(info_state *s, ui_ctx *ctx, int width)
{
    doc_free(&s->doc);
    info_doc *d = &s->doc;
    d->g = &ctx->grid;
    d->width = width;
    d->pending = ui_stats_pending(ctx);
    const profile *p = ctx->prof;
    build_file(d, p);
    build_meta(d, p);
    build_ranks(d, p);
    build_counts(d, p);
    build_no_events(d, p);
    build_tags(d, p);
    build_counters(d, p);
    build_line_profiles(d, p);
    s->warn_line = d->n;
    build_warnings(d, p);
}

/* --- the view --- */

static void *info_create(ui_ctx *ctx)
{
    (void)ctx;
    return calloc(1, sizeof(info_state));
}

static void info_destroy(void *state)
{
    info_state *s = state;
    if (!s)
        return;
    doc_free(&s->doc);
    free(s);
}

static void info_clamp(info_state *s)
{
    size_t page = s->page > 0 ? (size_t)s->page : 1;
    size_t max_top = s->doc.n > page ? s->doc.n - page : 0;
    if (s->top > max_top)
        s->top = max_top;
}

/* Draws a field left of column `end`. */
static void draw_field(grid *g, const info_line *l, const info_field *f, rect a, int y, int end)
{
    int x = a.x + 1 + f->x;
    int room = end - x;
    int w = f->w > 0 && f->w < room ? f->w : room;
    if (w <= 0)
        return;
    int tw = grid_text_width(g, f->text);
    if (f->right && tw < w)
        x += w - tw;
    grid_put_text(g, x, y, w, f->text, l->role, l->attr);
}

static void info_draw(void *state, ui_ctx *ctx, rect area)
{
    info_state *s = state;
    if (!s || area.h < 1 || area.w < 2)
        return;
    if (s->doc.width != area.w || !s->doc.lines || s->doc.pending != ui_stats_pending(ctx))
        info_build(s, ctx, area.w);
    s->page = area.h;
    if (ctx->show_warnings) { /* W, or a click on the header's marker */
        s->top = s->warn_line;
        ctx->show_warnings = false;
    }
    info_clamp(s);
    grid *g = &ctx->grid;
    if (s->doc.oom) {
        grid_put_text(g, area.x + 1, area.y, area.w - 1, "out of memory", ROLE_WARNING, 0);
        return;
    }
    /* Where the page is longer than the view, its position takes the
     * top right corner. */
    char pos[48] = "";
    if (s->doc.n > (size_t)area.h) {
        size_t last = s->top + (size_t)area.h;
        snprintf(pos, sizeof pos, " %zu-%zu/%zu", s->top + 1, last < s->doc.n ? last : s->doc.n,
                 s->doc.n);
    }
    int pw = grid_text_width(g, pos);
    for (int row = 0; row < area.h && s->top + (size_t)row < s->doc.n; row++) {
        const info_line *l = &s->doc.lines[s->top + (size_t)row];
        int end = area.x + area.w - (row == 0 ? pw + 1 : 0);
        for (int k = 0; k < l->nf; k++)
            draw_field(g, l, &l->f[k], area, area.y + row, end);
    }
    if (pw)
        grid_put_text(g, area.x + area.w - pw - 1, area.y, pw, pos, ROLE_DIM, 0);
}

static int info_cmd(void *state, ui_ctx *ctx, ui_cmd cmd)
{
    info_state *s = state;
    (void)ctx;
    if (!s)
        return 0;
    if (!ui_scroll(&s->top, s->doc.n, s->page, cmd))
        return 0;
    info_clamp(s);
    return VF_HANDLED | VF_REDRAW;
}

const view_ops info_view = {
    .name = "info",
    .create = info_create,
    .destroy = info_destroy,
    .draw = info_draw,
    .on_cmd = info_cmd,
    .on_resize = NULL,
};
