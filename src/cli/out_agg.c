/* --imbalance and --timeseries REGION: the tables behind the rank
 * imbalance view and the duration-over-time view (imbalance.h, series.h),
 * as JSON or CSV.  Seconds read back exactly where they are whole
 * nanoseconds (totals, starts, durations); means and fitted values are
 * doubles. */
#include <stdio.h>
#include <stdlib.h>

#include "model/imbalance.h"
#include "model/region.h"
#include "model/series.h"
#include "outputs.h"
#include "util/text.h"

static out_value ov_ns(double ns)
{
    return (out_value){.kind = OV_SECONDS, .d = ns / SV_NS_PER_SECOND};
}

static out_value ov_num(double x)
{
    return (out_value){.kind = OV_SECONDS, .d = x};
}

static out_value ov_int(int64_t i)
{
    return (out_value){.kind = OV_INT, .i = i};
}

static out_value ov_null(void)
{
    return (out_value){.kind = OV_NULL};
}

/* ------------------------------------------------------------ imbalance */

#define IMB_NKEYS 9
static const char *const imb_keys[IMB_NKEYS] = {
    "region", "imbalance", "excess", "max", "mean", "ranks_ran", "ranks", "straggler", "not_run",
};

static void imb_values(const imb_row *r, out_value *v)
{
    size_t ran = 0;
    for (size_t k = 0; k < r->nranks; k++)
        ran += r->ranks[k].ran;
    v[0] = (out_value){.kind = OV_STRING, .s = r->name};
    v[1] = r->known ? ov_num(r->f.imbalance) : ov_null();
    v[2] = r->known ? ov_ns(r->f.excess) : ov_null();
    v[3] = r->known ? ov_ns(r->f.max) : ov_null();
    v[4] = r->known ? ov_ns(r->f.mean) : ov_null();
    v[5] = ov_int((int64_t)ran);
    v[6] = ov_int((int64_t)r->nranks);
    v[7] = r->known ? ov_int(r->straggler) : ov_null();
}

/* The ranks that did not run it: a JSON list, or in CSV one field "3 5". */
static void imb_not_run(strbuf *b, const imb_row *r, bool json)
{
    bool first = true;
    sb_puts(b, json ? "[" : "");
    for (size_t k = 0; k < r->nranks; k++) {
        if (r->ranks[k].ran)
            continue;
        sb_printf(b, "%s%d", first ? "" : json ? ", " : " ", r->ranks[k].rank);
        first = false;
    }
    sb_puts(b, json ? "]" : "");
}

static void imb_json_ranks(strbuf *b, const imb_row *r)
{
    sb_puts(b, ", \"per_rank\": [");
    for (size_t k = 0; k < r->nranks; k++) {
        const imb_rank *x = &r->ranks[k];
        sb_printf(b, "%s{\"rank\": %d, \"ran\": %s, \"total\": ", k ? ", " : "", x->rank,
                  x->ran ? "true" : "false");
        out_value t =
            x->r && x->known ? (out_value){.kind = OV_NS, .i = (int64_t)x->total} : ov_null();
        out_json_value(b, &t);
        sb_putc(b, '}');
    }
    sb_putc(b, ']');
}

static void imb_row_out(strbuf *b, const imb_row *r, size_t row, bool json, bool raw)
{
    out_value v[IMB_NKEYS];
    imb_values(r, v);
    if (json)
        sb_puts(b, row ? ",\n    {" : "\n    {");
    for (size_t k = 0; k + 1 < IMB_NKEYS; k++) {
        if (json) {
            sb_printf(b, "%s\"%s\": ", k ? ", " : "", imb_keys[k]);
            out_json_value(b, &v[k]);
        } else {
            if (k)
                sb_putc(b, ',');
            out_csv_value_mode(b, &v[k], raw);
        }
    }
    if (json) {
        sb_puts(b, ", \"not_run\": ");
        imb_not_run(b, r, true);
        imb_json_ranks(b, r);
        sb_putc(b, '}');
    } else {
        sb_putc(b, ',');
        imb_not_run(b, r, false);
        sb_putc(b, '\n');
    }
}

sv_err out_imbalance(const profile *p, const region_filter *f, events_format format, bool raw,
                     FILE *fp, sv_error *err)
{
    imb_row *rows;
    size_t n;
    sv_err rc = imb_build(p, f, &rows, &n, err);
    if (rc != SV_OK)
        return rc;
    bool json = format == EVENTS_JSON;
    strbuf b;
    sb_init(&b);
    if (json) {
        sb_puts(&b, "{\n  \"file\": ");
        json_escape(&b, p->path ? p->path : "");
        sb_puts(&b, ",\n  \"definition\": \"max / mean - 1 of the per-rank inclusive totals over "
                    "the ranks that ran the region\",\n  \"regions\": [");
    } else {
        for (size_t k = 0; k < IMB_NKEYS; k++)
            sb_printf(&b, "%s%s", k ? "," : "", imb_keys[k]);
        sb_putc(&b, '\n');
    }
    bool ok = out_flush_buf(&b, fp);
    for (size_t i = 0; ok && i < n && !ferror(fp); i++) {
        imb_row_out(&b, &rows[i], i, json, raw);
        ok = out_flush_buf(&b, fp);
    }
    if (json)
        sb_puts(&b, n ? "\n  ]\n}\n" : "]\n}\n");
    ok = ok && out_flush_buf(&b, fp);
    sb_free(&b);
    imb_free(rows, n);
    return ok ? SV_OK : sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing imbalance");
}

/* ----------------------------------------------------------- timeseries */

static void ts_json_head(strbuf *b, const profile *p, const series *s)
{
    sb_puts(b, "{\n  \"file\": ");
    json_escape(b, p->path ? p->path : "");
    sb_puts(b, ",\n  \"region\": ");
    json_escape(b, s->name);
    if (s->rank >= 0)
        sb_printf(b, ",\n  \"rank\": %d", s->rank);
    else
        sb_puts(b, ",\n  \"rank\": null");
    sb_printf(b, ",\n  \"calls\": %zu", s->n);
    const struct {
        const char *key;
        out_value v;
    } f[] = {
        {"min", ov_ns((double)s->min)},
        {"max", ov_ns((double)s->max)},
        {"p50", ov_ns(s->p50)},
        {"p95", ov_ns(s->p95)},
        {"p99", ov_ns(s->p99)},
        {"outliers_above_p99", ov_int((int64_t)s->outliers)},
        {"warmup_first", s->has_warmup ? ov_ns(s->warmup_first) : ov_null()},
        {"warmup_rest_median", s->has_warmup ? ov_ns(s->warmup_rest) : ov_null()},
        {"warmup_ratio", s->has_warmup ? ov_num(s->warmup_ratio) : ov_null()},
        {"drift", s->has_drift ? ov_num(s->drift) : ov_null()},
        {"drift_first_tenth", s->has_drift ? ov_ns(s->drift_from) : ov_null()},
        {"drift_last_tenth", s->has_drift ? ov_ns(s->drift_to) : ov_null()},
    };
    for (size_t k = 0; k < sizeof f / sizeof *f; k++) {
        sb_printf(b, ",\n  \"%s\": ", f[k].key);
        out_json_value(b, &f[k].v);
    }
    sb_puts(b, ",\n  \"series\": [");
}

static void ts_row(strbuf *b, const series *s, size_t i, bool json)
{
    const series_call *c = &s->calls[i];
    out_value v[4] = {ov_int(c->rank), ov_int((int64_t)c->index),
                      (out_value){.kind = OV_TIME_NS, .i = c->start},
                      (out_value){.kind = OV_NS, .i = c->dur}};
    static const char *const keys[4] = {"rank", "call_index", "start", "duration"};
    sb_puts(b, json ? (i ? ",\n    {" : "\n    {") : "");
    for (size_t k = 0; k < 4; k++) {
        if (json) {
            sb_printf(b, "%s\"%s\": ", k ? ", " : "", keys[k]);
            out_json_value(b, &v[k]);
        } else {
            if (k)
                sb_putc(b, ',');
            out_csv_value(b, &v[k]);
        }
    }
    sb_puts(b, json ? "}" : "\n");
}

sv_err out_timeseries(const profile *p, const region_filter *f, const timeseries_request *req,
                      FILE *fp, sv_error *err)
{
    series *s = NULL;
    sv_err rc = series_build(p, f, req->name, req->has_rank ? req->rank : -1, &s, err);
    if (rc != SV_OK) {
        char path[320], msg[SV_MSG_MAX];
        text_escape_buf(path, sizeof path, p->path ? p->path : "");
        snprintf(msg, sizeof msg, "%s", err->msg);
        return sv_error_set(err, rc, "%s: %s", path, msg);
    }
    bool json = req->format == EVENTS_JSON;
    strbuf b;
    sb_init(&b);
    if (json)
        ts_json_head(&b, p, s);
    else
        sb_puts(&b, "rank,call_index,start,duration\n");
    bool ok = out_flush_buf(&b, fp);
    for (size_t i = 0; ok && i < s->n && !ferror(fp); i++) {
        ts_row(&b, s, i, json);
        ok = out_flush_buf(&b, fp);
    }
    if (json)
        sb_puts(&b, s->n ? "\n  ]\n}\n" : "]\n}\n");
    ok = ok && out_flush_buf(&b, fp);
    sb_free(&b);
    series_free(s);
    return ok ? SV_OK : sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing the series");
}
