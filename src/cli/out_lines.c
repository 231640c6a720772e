/* --lines REGION: the line profile(s) of a region, one row per profiled line.
 *
 * A region's records are those lineprof_matches() gives on each selected rank (--rank N: only
 * that rank), in rank order, then file order.  Per row: the line, its hits, its time, time per
 * hit, its share of the record's total time (the function's), and the source line from the
 * record's own source text, else from the region's.  Text: one table per record under a
 * heading (rank, function, file:line, total); JSON and CSV: the same rows, flat, with the
 * record's rank, function and file on each.  Times are seconds in JSON and CSV. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/lineprof.h"
#include "outputs.h"
#include "util/text.h"
#include "util/timefmt.h"

#define LN_NKEYS 9
static const char *const ln_keys[LN_NKEYS] = {
    "rank", "function", "filename", "line", "hits", "time", "time_per_hit", "percent", "source",
};

typedef struct ln_rec {
    const line_profile *lp;
    const region *r; /* the region on that rank, or NULL */
    int rank;
    double total_s; /* the record's total time */
    /* The source text its lines come from (lineprof_text), split once:
     * line first + k starts at text + off[k]; nlines 0 without a text. */
    const char *text;
    int64_t first;
    size_t *off;
    size_t nlines;
} ln_rec;

typedef struct ln_ctx {
    const profile *p;
    ln_rec *recs;
    size_t nrecs;
    const ln_rec *cur; /* text output: the record being written */
} ln_ctx;

/* ------------------------------------------------------------------ rows */

/* Splits the record's source text into lines (a final newline opens no
 * empty line).  False when out of memory. */
static bool ln_index_text(ln_rec *rc)
{
    rc->text = lineprof_text(rc->lp, rc->r, &rc->first);
    if (!rc->text)
        return true;
    size_t n = 0;
    for (const char *c = rc->text; *c; c++)
        n += *c == '\n';
    rc->off = malloc((n + 1) * sizeof *rc->off);
    if (!rc->off)
        return false;
    size_t k = 0, start = 0;
    for (size_t i = 0;; i++) {
        if (rc->text[i] == '\n' || rc->text[i] == '\0') {
            if (rc->text[i] == '\0' && i == start)
                break; /* nothing after the last newline */
            rc->off[k++] = start;
            if (rc->text[i] == '\0')
                break;
            start = i + 1;
        }
    }
    rc->nlines = k;
    return true;
}

static out_value ln_source_value(const ln_rec *rc, size_t i, char **owned)
{
    int64_t ln = rc->lp->lineno[i];
    *owned = NULL;
    /* ln - first without overflow: both are checked against the range first. */
    if (rc->nlines > 0 && ln >= rc->first && (uint64_t)ln - (uint64_t)rc->first < rc->nlines) {
        const char *s = rc->text + rc->off[(uint64_t)ln - (uint64_t)rc->first];
        const char *nl = strchr(s, '\n');
        *owned = strndup(s, nl ? (size_t)(nl - s) : strlen(s));
    }
    return *owned ? (out_value){.kind = OV_STRING, .s = *owned} : (out_value){.kind = OV_NULL};
}

/* The values of row i of record rc into v[0..LN_NKEYS); *owned is freed by the caller. */
static void ln_values(const ln_rec *rc, size_t i, out_value *v, char **owned)
{
    const line_profile *lp = rc->lp;
    double t = lineprof_row_s(lp, i), total = rc->total_s;
    v[0] = (out_value){.kind = OV_INT, .i = rc->rank};
    v[1] = lp->function ? (out_value){.kind = OV_STRING, .s = lp->function}
                        : (out_value){.kind = OV_NULL};
    v[2] = lp->filename ? (out_value){.kind = OV_STRING, .s = lp->filename}
                        : (out_value){.kind = OV_NULL};
    v[3] = (out_value){.kind = OV_INT, .i = lp->lineno[i]};
    v[4] = (out_value){.kind = OV_INT, .i = lp->hits[i]};
    v[5] = (out_value){.kind = OV_SECONDS, .d = t};
    v[6] = lp->hits[i] > 0 ? (out_value){.kind = OV_SECONDS, .d = t / (double)lp->hits[i]}
                           : (out_value){.kind = OV_NULL};
    /* A share of a time or a total out of range is unknown too (not 0, not NaN). */
    bool share = total > 0 && timefmt_in_range_s(t) && timefmt_in_range_s(total);
    v[7] = share ? (out_value){.kind = OV_SECONDS, .d = 100.0 * t / total}
                 : (out_value){.kind = OV_NULL};
    v[8] = ln_source_value(rc, i, owned);
}

/* ------------------------------------------------------------------ text */

/* Text columns: line, hits, time, per hit, %, source. */
static const table_col ln_text_cols[] = {
    {"line", true},    {"hits", true}, {"time", true},
    {"per hit", true}, {"%", true},    {"source", false},
};

static void ln_fill_text(void *vctx, size_t row, strbuf *cells)
{
    ln_ctx *ctx = vctx;
    out_value v[LN_NKEYS];
    char *owned = NULL;
    ln_values(ctx->cur, row, v, &owned);
    out_text_value(&cells[0], &v[3]);
    out_text_value(&cells[1], &v[4]);
    out_text_value(&cells[2], &v[5]);
    out_text_value(&cells[3], &v[6]);
    if (v[7].kind == OV_NULL)
        sb_putc(&cells[4], '-');
    else
        sb_printf(&cells[4], "%.1f", v[7].d);
    if (v[8].kind == OV_STRING)
        text_escape(&cells[5], v[8].s, SIZE_MAX);
    free(owned);
}

static void ln_heading(strbuf *b, const ln_rec *rc)
{
    const line_profile *lp = rc->lp;
    char num[48];
    sb_printf(b, "rank %d  ", rc->rank);
    text_escape(b, lp->function ? lp->function : "?", SIZE_MAX);
    sb_puts(b, "  ");
    text_escape(b, lp->filename ? lp->filename : "?", SIZE_MAX);
    sb_printf(b, ":%" PRId64 "  total %s\n", lp->first_lineno,
              timefmt_ns(num, sizeof num, lineprof_total_ns(lp)));
}

static sv_err ln_write_text(ln_ctx *ctx, const char *name, FILE *fp, sv_error *err)
{
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "region: ");
    text_escape(&b, name, SIZE_MAX);
    sb_printf(&b, "  line profiles: %zu\n", ctx->nrecs);
    sv_err rc = SV_OK;
    for (size_t k = 0; k < ctx->nrecs && rc == SV_OK; k++) {
        sb_putc(&b, '\n');
        ln_heading(&b, &ctx->recs[k]);
        if (!out_flush_buf(&b, fp)) {
            rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory");
            break;
        }
        ctx->cur = &ctx->recs[k];
        rc = out_table(fp, ln_text_cols, sizeof ln_text_cols / sizeof ln_text_cols[0],
                       ctx->recs[k].lp->n, ln_fill_text, ctx, err);
    }
    sb_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ JSON, CSV */

static void ln_row_structured(const ln_rec *rc, size_t i, strbuf *b, bool json, bool first_row)
{
    out_value v[LN_NKEYS];
    char *owned = NULL;
    ln_values(rc, i, v, &owned);
    sb_puts(b, json ? (first_row ? "\n    {" : ",\n    {") : "");
    for (size_t k = 0; k < LN_NKEYS; k++) {
        if (json) {
            sb_printf(b, "%s\"%s\": ", k ? ", " : "", ln_keys[k]);
            out_json_value(b, &v[k]);
        } else {
            if (k)
                sb_putc(b, ',');
            out_csv_value(b, &v[k]);
        }
    }
    sb_puts(b, json ? "}" : "\n");
    free(owned);
}

static sv_err ln_write_structured(const ln_ctx *ctx, const char *name, FILE *fp, bool json,
                                  sv_error *err)
{
    strbuf b;
    sb_init(&b);
    if (json) {
        sb_puts(&b, "{\n  \"file\": ");
        json_escape(&b, ctx->p->path ? ctx->p->path : "");
        sb_puts(&b, ",\n  \"region\": ");
        json_escape(&b, name);
        sb_puts(&b, ",\n  \"lines\": [");
    } else {
        for (size_t k = 0; k < LN_NKEYS; k++)
            sb_printf(&b, "%s%s", k ? "," : "", ln_keys[k]);
        sb_putc(&b, '\n');
    }
    bool ok = out_flush_buf(&b, fp), first = true;
    for (size_t k = 0; k < ctx->nrecs && ok; k++)
        for (size_t i = 0; i < ctx->recs[k].lp->n && ok && !ferror(fp); i++) {
            ln_row_structured(&ctx->recs[k], i, &b, json, first);
            first = false;
            ok = out_flush_buf(&b, fp);
        }
    if (json)
        sb_puts(&b, first ? "]\n}\n" : "\n  ]\n}\n");
    ok = ok && out_flush_buf(&b, fp);
    sb_free(&b);
    return ok ? SV_OK : sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing lines");
}

/* ------------------------------------------------------------------ choosing the records */

static size_t ln_count_all(const profile *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nranks; i++)
        n += p->ranks[i].nlines;
    return n;
}

static sv_err ln_collect(const profile *p, const region_filter *f, const lines_request *req,
                         ln_ctx *ctx, sv_error *err)
{
    size_t all = ln_count_all(p);
    ctx->recs = calloc(all ? all : 1, sizeof *ctx->recs);
    if (!ctx->recs)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < p->nranks; i++) {
        const rank_data *rk = &p->ranks[i];
        if ((req->has_rank && rk->rank != req->rank) || !filter_match_rank(f, rk->rank))
            continue;
        const region *r = rank_region(rk, req->name);
        for (size_t k = 0; k < rk->nlines; k++)
            if (lineprof_matches(&rk->lines[k], req->name, r)) {
                ln_rec *rc = &ctx->recs[ctx->nrecs++];
                *rc = (ln_rec){.lp = &rk->lines[k],
                               .r = r,
                               .rank = rk->rank,
                               .total_s = lineprof_total_ns(&rk->lines[k]) / 1e9};
                if (!ln_index_text(rc))
                    return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
            }
    }
    if (ctx->nrecs > 0)
        return SV_OK;
    char path[160], name[160];
    text_escape_buf(path, sizeof path, p->path ? p->path : "");
    text_escape_buf(name, sizeof name, req->name);
    if (all == 0)
        return sv_error_set(err, SV_ERR_NOT_FOUND,
                            "%s: no line profile for region %s (the file has no line profile)",
                            path, name);
    if (req->has_rank)
        return sv_error_set(err, SV_ERR_NOT_FOUND, "%s: no line profile for region %s on rank %d",
                            path, name, req->rank);
    return sv_error_set(err, SV_ERR_NOT_FOUND,
                        "%s: no line profile for region %s among the selected ranks", path, name);
}

sv_err out_lines(const profile *p, const region_filter *f, const lines_request *req, FILE *fp,
                 sv_error *err)
{
    ln_ctx ctx = {.p = p};
    sv_err rc = ln_collect(p, f, req, &ctx, err);
    if (rc == SV_OK && req->format == EVENTS_TEXT)
        rc = ln_write_text(&ctx, req->name, fp, err);
    else if (rc == SV_OK)
        rc = ln_write_structured(&ctx, req->name, fp, req->format == EVENTS_JSON, err);
    for (size_t k = 0; k < ctx.nrecs; k++)
        free(ctx.recs[k].off);
    free(ctx.recs);
    return rc;
}
