/* --events REGION: one row per recorded call, in recorded order, rank by rank.
 *
 * Times are seconds from the profile's zero (minimum_start_time), computed from the integer
 * nanoseconds so they are exact.  Ids (thread, task, call, parent) are printed as stored (-1
 * keeps its meaning from the file); thread_name / task_name give the table names, null when
 * there is no such column or no task.  A rank column comes first unless --rank was given. */
#include <inttypes.h>
#include <stdlib.h>

#include "util/checked.h"
#include "outputs.h"
#include "model/region.h"
#include "util/text.h"

#define EV_NKEYS 15
static const char *const ev_keys[EV_NKEYS] = {
    "rank",   "call_index",  "start", "end",       "duration", "exclusive", "await",    "gpu",
    "thread", "thread_name", "task",  "task_name", "call_id",  "parent_id", "metadata",
};
static const bool ev_right[EV_NKEYS] = {true, true,  true, true,  true, true, true, true,
                                        true, false, true, false, true, true, false};

typedef struct ev_source {
    region *r;
    int64_t *excl_ns; /* exclusive durations, malloc'ed */
} ev_source;

typedef struct ev_ctx {
    const profile *p;
    ev_source *src;
    size_t nsrc;
    size_t *first_row; /* nsrc + 1 prefix sums of the sources' call counts */
    size_t cursor;     /* source of the last row asked for: rows come in order */
    bool rank_col;
    bool csv_raw;
} ev_ctx;

/* ------------------------------------------------------------------ rows */

static const ev_source *ev_locate(ev_ctx *ctx, size_t row, size_t *call)
{
    if (ctx->cursor >= ctx->nsrc || row < ctx->first_row[ctx->cursor])
        ctx->cursor = 0;
    while (row >= ctx->first_row[ctx->cursor + 1])
        ctx->cursor++;
    *call = row - ctx->first_row[ctx->cursor];
    return &ctx->src[ctx->cursor];
}

static out_value ev_int_or_null(const int64_t *col, size_t i)
{
    return col ? (out_value){.kind = OV_INT, .i = col[i]} : (out_value){.kind = OV_NULL};
}

static out_value ev_ns_or_null(const int64_t *col, size_t i)
{
    if (!col || col[i] < 0)
        return (out_value){.kind = OV_NULL};
    return (out_value){.kind = OV_NS, .i = col[i]};
}

/* t - zero: exact in ns while it fits an int64; a profile may span more than INT64_MAX ns
 * from its first start, and then the difference is widened to double seconds (never wrapped). */
static out_value ev_time_since(int64_t t, int64_t zero)
{
    int64_t d;
    if (ck_sub_ok(t, zero, &d))
        return (out_value){.kind = OV_TIME_NS, .i = d};
    return (out_value){.kind = OV_SECONDS, .d = ck_diff_f64(t, zero) / SV_NS_PER_SECOND};
}

static out_value ev_string_or_null(const char *s)
{
    return s ? (out_value){.kind = OV_STRING, .s = s} : (out_value){.kind = OV_NULL};
}

/* The values of one row into v[0..EV_NKEYS); v[0] is the rank.  Names may point into bufs. */
static void ev_values(ev_ctx *ctx, size_t row, out_value *v, char bufs[2][48])
{
    size_t i;
    const ev_source *src = ev_locate(ctx, row, &i);
    const region *r = src->r;
    int64_t zero = ctx->p->has_min_start ? ctx->p->min_start_ns : 0;
    v[0] = (out_value){.kind = OV_INT, .i = r->rank};
    v[1] = (out_value){.kind = OV_INT, .i = (int64_t)i};
    v[2] = ev_time_since(r->start_ns[i], zero);
    v[3] = ev_time_since(r->end_ns[i], zero);
    v[4] = (out_value){.kind = OV_NS, .i = ck_sub(r->end_ns[i], r->start_ns[i])};
    v[5] = ev_ns_or_null(src->excl_ns, i);
    v[6] = ev_ns_or_null(r->await_ns, i);
    v[7] = ev_ns_or_null(r->gpu_ns, i);
    v[8] = ev_int_or_null(r->thread_ids, i);
    v[9] = r->thread_ids ? ev_string_or_null(rank_thread_name(r->owner, r->thread_ids[i], bufs[0],
                                                              sizeof bufs[0]))
                         : ev_string_or_null(NULL);
    v[10] = ev_int_or_null(r->task_ids, i);
    v[11] =
        r->task_ids && r->task_ids[i] >= 0
            ? ev_string_or_null(rank_task_name(r->owner, r->task_ids[i], bufs[1], sizeof bufs[1]))
            : ev_string_or_null(NULL);
    v[12] = ev_int_or_null(r->call_ids, i);
    v[13] = ev_int_or_null(r->parent_ids, i);
    v[14] = ev_string_or_null(r->event_meta ? r->event_meta[i] : NULL);
}

static size_t ev_first_key(const ev_ctx *ctx)
{
    return ctx->rank_col ? 0 : 1;
}

static void ev_fill_text(void *vctx, size_t row, strbuf *cells)
{
    ev_ctx *ctx = vctx;
    out_value v[EV_NKEYS];
    char bufs[2][48];
    ev_values(ctx, row, v, bufs);
    for (size_t k = ev_first_key(ctx); k < EV_NKEYS; k++)
        out_text_value(&cells[k - ev_first_key(ctx)], &v[k]);
}

static sv_err ev_write_text(ev_ctx *ctx, const events_request *req, FILE *fp, sv_error *err)
{
    table_col cols[EV_NKEYS];
    size_t ncols = 0;
    for (size_t k = ev_first_key(ctx); k < EV_NKEYS; k++)
        cols[ncols++] = (table_col){ev_keys[k], ev_right[k]};
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "region: ");
    text_escape(&b, req->name, SIZE_MAX);
    sb_printf(&b, "  calls: %zu\n\n", ctx->first_row[ctx->nsrc]);
    sv_err rc = out_flush_buf(&b, fp) ? SV_OK : sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    sb_free(&b);
    if (rc != SV_OK)
        return rc;
    return out_table(fp, cols, ncols, ctx->first_row[ctx->nsrc], ev_fill_text, ctx, err);
}

/* JSON and CSV: one row at a time through b. */
static void ev_row_structured(ev_ctx *ctx, size_t row, strbuf *b, bool json)
{
    out_value v[EV_NKEYS];
    char bufs[2][48];
    ev_values(ctx, row, v, bufs);
    sb_puts(b, json ? (row ? ",\n    {" : "\n    {") : "");
    for (size_t k = ev_first_key(ctx); k < EV_NKEYS; k++) {
        bool first = k == ev_first_key(ctx);
        if (json) {
            sb_printf(b, "%s\"%s\": ", first ? "" : ", ", ev_keys[k]);
            out_json_value(b, &v[k]);
        } else {
            if (!first)
                sb_putc(b, ',');
            out_csv_value_mode(b, &v[k], ctx->csv_raw);
        }
    }
    sb_puts(b, json ? "}" : "\n");
}

static void ev_head_structured(const ev_ctx *ctx, const events_request *req, strbuf *b, bool json)
{
    if (!json) {
        for (size_t k = ev_first_key(ctx); k < EV_NKEYS; k++)
            sb_printf(b, "%s%s", k == ev_first_key(ctx) ? "" : ",", ev_keys[k]);
        sb_putc(b, '\n');
        return;
    }
    sb_puts(b, "{\n  \"file\": ");
    json_escape(b, ctx->p->path ? ctx->p->path : "");
    sb_puts(b, ",\n  \"region\": ");
    json_escape(b, req->name);
    if (req->has_rank)
        sb_printf(b, ",\n  \"rank\": %d", req->rank);
    sb_puts(b, ",\n  \"minimum_start_time\": ");
    out_json_value(b, ctx->p->has_min_start
                          ? &(out_value){.kind = OV_TIME_NS, .i = ctx->p->min_start_ns}
                          : &(out_value){.kind = OV_NULL});
    sb_puts(b, ",\n  \"events\": [");
}

static sv_err ev_write_structured(ev_ctx *ctx, const events_request *req, FILE *fp, bool json,
                                  sv_error *err)
{
    size_t nrows = ctx->first_row[ctx->nsrc];
    strbuf b;
    sb_init(&b);
    ev_head_structured(ctx, req, &b, json);
    bool ok = out_flush_buf(&b, fp);
    for (size_t row = 0; row < nrows && ok && !ferror(fp); row++) {
        ev_row_structured(ctx, row, &b, json);
        ok = out_flush_buf(&b, fp);
    }
    if (json)
        sb_puts(&b, nrows ? "\n  ]\n}\n" : "]\n}\n");
    ok = ok && out_flush_buf(&b, fp);
    sb_free(&b);
    return ok ? SV_OK : sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing events");
}

/* ------------------------------------------------------------------ choosing the regions */

typedef struct ev_names {
    char path[320]; /* a path over 200 characters (a deep checkout) stays whole */
    char name[160];
} ev_names;

static void ev_names_init(ev_names *nm, const profile *p, const char *name)
{
    text_escape_buf(nm->path, sizeof nm->path, p->path ? p->path : "");
    text_escape_buf(nm->name, sizeof nm->name, name);
}

/* The regions of that name the filter and --rank let through.  *all counts every rank. */
static sv_err ev_candidates(const profile *p, const region_filter *f, const events_request *req,
                            region ***out, size_t *n, sv_error *err)
{
    size_t all = 0, k = 0;
    region **v = NULL;
    sv_err rc = profile_region_across_ranks(p, req->name, &v, &all, err);
    if (rc != SV_OK)
        return rc;
    for (size_t i = 0; i < all; i++)
        if (filter_match(f, v[i]) && (!req->has_rank || v[i]->rank == req->rank))
            v[k++] = v[i];
    ev_names nm;
    ev_names_init(&nm, p, req->name);
    if (k == 0) {
        free(v);
        if (all == 0)
            return sv_error_set(err, SV_ERR_NOT_FOUND, "%s: no region %s", nm.path, nm.name);
        if (req->has_rank)
            return sv_error_set(err, SV_ERR_NOT_FOUND, "%s: no region %s on rank %d", nm.path,
                                nm.name, req->rank);
        return sv_error_set(err, SV_ERR_NOT_FOUND,
                            "%s: no region %s among the selected regions and ranks", nm.path,
                            nm.name);
    }
    *out = v;
    *n = k;
    return SV_OK;
}

static sv_err ev_no_event_data(const profile *p, const region *r, sv_error *err)
{
    ev_names nm;
    ev_names_init(&nm, p, r->name);
    return sv_error_set(err, SV_ERR_NO_EVENT_DATA,
                        "%s: rank %d: region %s: event data unavailable (a summary-only result "
                        "has no per-call data)",
                        nm.path, r->rank, nm.name);
}

/* Keeps the regions with events, with a warning for each rank skipped; fails when none has
 * any (the only case with --rank). */
static sv_err ev_keep_with_events(const profile *p, region **v, size_t *n, FILE *warn,
                                  sv_error *err)
{
    size_t with = 0, k = 0;
    for (size_t i = 0; i < *n; i++)
        with += v[i]->has_event_data;
    if (with == 0)
        return ev_no_event_data(p, v[0], err);
    for (size_t i = 0; i < *n; i++) {
        if (v[i]->has_event_data) {
            v[k++] = v[i];
        } else if (warn) {
            sv_error skipped;
            ev_no_event_data(p, v[i], &skipped);
            fprintf(warn, "scopeview: warning: %s; skipped\n", skipped.msg);
        }
    }
    *n = k;
    return SV_OK;
}

static void ev_free(ev_ctx *ctx)
{
    for (size_t i = 0; i < ctx->nsrc; i++)
        free(ctx->src[i].excl_ns);
    free(ctx->src);
    free(ctx->first_row);
}

static sv_err ev_prepare(ev_ctx *ctx, region **v, size_t n, sv_error *err)
{
    ctx->src = calloc(n, sizeof *ctx->src);
    ctx->first_row = calloc(n + 1, sizeof *ctx->first_row);
    if (!ctx->src || !ctx->first_row)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        ctx->src[i].r = v[i];
        ctx->nsrc = i + 1;
        sv_err rc = region_exclusive_durations_ns(v[i], &ctx->src[i].excl_ns, err);
        if (rc != SV_OK)
            return rc;
        ctx->first_row[i + 1] = ctx->first_row[i] + v[i]->n;
    }
    return SV_OK;
}

sv_err out_events(profile *p, const region_filter *f, const events_request *req, FILE *fp,
                  FILE *warn, sv_error *err)
{
    region **v = NULL;
    size_t n = 0;
    sv_err rc = ev_candidates(p, f, req, &v, &n, err);
    if (rc != SV_OK)
        return rc;
    rc = ev_keep_with_events(p, v, &n, warn, err);
    ev_ctx ctx = {.p = p, .rank_col = !req->has_rank, .csv_raw = req->csv_raw};
    if (rc == SV_OK)
        rc = ev_prepare(&ctx, v, n, err);
    if (rc == SV_OK && req->format == EVENTS_TEXT)
        rc = ev_write_text(&ctx, req, fp, err);
    else if (rc == SV_OK)
        rc = ev_write_structured(&ctx, req, fp, req->format == EVENTS_JSON, err);
    ev_free(&ctx);
    free(v);
    return rc;
}
