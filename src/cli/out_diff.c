/* out_diff: see out_diff.h. */
#include "out_diff.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "outputs.h"
#include "model/region.h"
#include "util/text.h"
#include "util/timefmt.h"

#define DIFF_NFIELDS 41
static const char *const diff_keys[DIFF_NFIELDS] = {
    "kind",
    "name",
    "path",
    "id",
    "parent",
    "depth",
    "state",
    "base_calls",
    "new_calls",
    "base_total",
    "new_total",
    "delta_total",
    "rel_total",
    "base_mean",
    "new_mean",
    "delta_mean",
    "base_p50",
    "new_p50",
    "delta_p50",
    "base_p95",
    "new_p95",
    "delta_p95",
    "base_p99",
    "new_p99",
    "delta_p99",
    "base_exclusive",
    "new_exclusive",
    "delta_exclusive",
    "base_imbalance",
    "new_imbalance",
    "delta_imbalance",
    "per_call_data",
    "u",
    "z",
    "p",
    "p_adjusted",
    "hl_shift",
    "metric",
    "rel_metric",
    "significant",
    "flag",
};

static const char *const state_names[] = {"both", "gone", "new"};

static out_value ov_null(void)
{
    return (out_value){.kind = OV_NULL};
}

static out_value ov_num(double v)
{
    return isfinite(v) ? (out_value){.kind = OV_SECONDS, .d = v} : ov_null();
}

static out_value ov_int(int64_t v)
{
    return (out_value){.kind = OV_INT, .i = v};
}

static out_value ov_str(const char *s)
{
    return (out_value){.kind = OV_STRING, .s = s};
}

/* A side's value in seconds (imbalance stays a fraction). */
static out_value side_val(const diff_row *r, int side, diff_value v)
{
    double x;
    if (!diff_side_value(r, side, v, &x))
        return ov_null();
    return ov_num(v == DV_IMBALANCE ? x : x / SV_NS_PER_SECOND);
}

static out_value delta_val(const diff_row *r, diff_value v)
{
    double x;
    if (!diff_row_delta(r, v, &x))
        return ov_null();
    return ov_num(v == DV_IMBALANCE ? x : x / SV_NS_PER_SECOND);
}

static out_value calls_val(const diff_row *r, int side)
{
    return r->s[side].present && r->s[side].has_calls ? ov_int(r->s[side].calls) : ov_null();
}

/* The values of one row; path text goes into path_buf. */
static void row_values(const diff_result *d, const diff_row *r, bool is_path, uint32_t id,
                       char *path_buf, size_t plen, out_value v[DIFF_NFIELDS])
{
    size_t k = 0;
    double rel;
    v[k++] = ov_str(is_path ? "path" : "region");
    v[k++] = ov_str(diff_row_name(d, r));
    v[k++] = is_path ? ov_str(diff_path_text(d, id, path_buf, plen)) : ov_null();
    v[k++] = is_path ? ov_int(id) : ov_null();
    v[k++] = is_path ? (r->parent ? ov_int(r->parent) : ov_null()) : ov_null();
    v[k++] = is_path ? ov_int(r->depth) : ov_null();
    v[k++] = ov_str(state_names[r->state]);
    v[k++] = calls_val(r, DIFF_BASE);
    v[k++] = calls_val(r, DIFF_NEW);
    v[k++] = side_val(r, DIFF_BASE, DV_TOTAL);
    v[k++] = side_val(r, DIFF_NEW, DV_TOTAL);
    v[k++] = delta_val(r, DV_TOTAL);
    v[k++] = diff_row_rel(r, DV_TOTAL, &rel) ? ov_num(rel) : ov_null();
    static const diff_value trio[] = {DV_MEAN, DV_P50, DV_P95, DV_P99, DV_EXCL, DV_IMBALANCE};
    for (size_t t = 0; t < sizeof trio / sizeof *trio; t++) {
        v[k++] = side_val(r, DIFF_BASE, trio[t]);
        v[k++] = side_val(r, DIFF_NEW, trio[t]);
        v[k++] = delta_val(r, trio[t]);
    }
    v[k++] = (out_value){.kind = OV_BOOL, .b = r->s[0].events && r->s[1].events};
    v[k++] = r->tested ? ov_num(r->mwu.u1) : ov_null();
    v[k++] = r->tested ? ov_num(r->mwu.z) : ov_null();
    v[k++] = r->tested ? ov_num(r->mwu.p) : ov_null();
    v[k++] = r->tested ? ov_num(r->q) : ov_null();
    v[k++] = r->tested ? ov_num(r->hl_ns / SV_NS_PER_SECOND) : ov_null();
    v[k++] = ov_str(diff_metric_names[d->opt.metric]);
    v[k++] = r->has_rel ? ov_num(r->rel) : ov_null();
    v[k++] = (out_value){.kind = OV_BOOL, .b = r->flag != 0};
    v[k++] = r->flag     ? ov_str(r->flag > 0 ? "slower" : "faster")
             : r->tested ? ov_str("none")
                         : ov_str("untested");
}

/* Path rows in tree order (preorder, children as sorted), without recursion. */
static uint32_t *paths_preorder(const diff_result *d, size_t *n)
{
    uint32_t *out = malloc((d->npaths ? d->npaths : 1) * sizeof *out);
    uint32_t *stack = malloc((d->npaths ? d->npaths : 1) * sizeof *stack);
    size_t k = 0, sp = 0;
    if (!out || !stack) {
        free(out);
        free(stack);
        return NULL;
    }
    for (uint32_t c = d->child_off[1]; c > d->child_off[0]; c--)
        stack[sp++] = d->child[c - 1];
    while (sp) {
        uint32_t x = stack[--sp];
        out[k++] = x;
        for (uint32_t c = d->child_off[x + 1]; c > d->child_off[x]; c--)
            stack[sp++] = d->child[c - 1];
    }
    free(stack);
    *n = k;
    return out;
}

typedef void (*row_fn)(strbuf *b, const out_value *v, size_t i);

static void json_row(strbuf *b, const out_value *v, size_t i)
{
    sb_puts(b, i ? ",\n    {" : "\n    {");
    for (size_t k = 0; k < DIFF_NFIELDS; k++) {
        sb_printf(b, "%s\"%s\": ", k ? ", " : "", diff_keys[k]);
        out_json_value(b, &v[k]);
    }
    sb_putc(b, '}');
}

static void csv_row(strbuf *b, const out_value *v, size_t i)
{
    (void)i;
    for (size_t k = 0; k < DIFF_NFIELDS; k++) {
        if (k)
            sb_putc(b, ',');
        out_csv_value(b, &v[k]);
    }
    sb_putc(b, '\n');
}

static sv_err emit_rows(const diff_result *d, bool paths, row_fn fn, strbuf *b, FILE *fp,
                        sv_error *err)
{
    size_t n = d->nregions;
    uint32_t *order = paths ? paths_preorder(d, &n) : NULL;
    if (paths && !order)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    char path[4096];
    out_value v[DIFF_NFIELDS];
    sv_err rc = SV_OK;
    for (size_t i = 0; i < n && rc == SV_OK && !ferror(fp); i++) {
        uint32_t id = paths ? order[i] : (uint32_t)i;
        row_values(d, paths ? &d->paths[id] : &d->regions[id], paths, id, path, sizeof path, v);
        fn(b, v, i);
        if (!out_flush_buf(b, fp))
            rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing");
    }
    free(order);
    return rc;
}

static void json_header(strbuf *b, const diff_result *d)
{
    char num[64];
    sb_puts(b, "{\n  \"base\": ");
    json_escape(b, d->label[0] ? d->label[0] : "");
    sb_puts(b, ",\n  \"new\": ");
    json_escape(b, d->label[1] ? d->label[1] : "");
    sb_printf(b, ",\n  \"metric\": \"%s\",\n  \"threshold\": %s,\n",
              diff_metric_names[d->opt.metric],
              fmt_double_exact(num, sizeof num, d->opt.threshold));
    sb_printf(b, "  \"alpha\": %s,\n", fmt_double_exact(num, sizeof num, d->opt.alpha));
    if (d->opt.rank >= 0)
        sb_printf(b, "  \"rank\": %d,\n", d->opt.rank);
    else
        sb_puts(b, "  \"rank\": null,\n");
    sb_printf(b,
              "  \"flagged\": {\"regions_slower\": %zu, \"regions_faster\": %zu, "
              "\"paths_slower\": %zu, \"paths_faster\": %zu},\n",
              d->nflag[0][0], d->nflag[0][1], d->nflag[1][0], d->nflag[1][1]);
}

static sv_err out_diff_json(const diff_result *d, FILE *fp, sv_error *err)
{
    strbuf b;
    sb_init(&b);
    json_header(&b, d);
    sb_puts(&b, "  \"regions\": [");
    sv_err rc = emit_rows(d, false, json_row, &b, fp, err);
    sb_puts(&b, d->nregions ? "\n  ],\n  \"paths\": [" : "],\n  \"paths\": [");
    if (rc == SV_OK)
        rc = emit_rows(d, true, json_row, &b, fp, err);
    sb_puts(&b, d->npaths > 1 ? "\n  ]\n}\n" : "]\n}\n");
    if (rc == SV_OK && !out_flush_buf(&b, fp))
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing JSON");
    sb_free(&b);
    return rc;
}

static sv_err out_diff_csv(const diff_result *d, FILE *fp, sv_error *err)
{
    strbuf b;
    sb_init(&b);
    for (size_t k = 0; k < DIFF_NFIELDS; k++)
        sb_printf(&b, "%s%s", k ? "," : "", diff_keys[k]);
    sb_putc(&b, '\n');
    sv_err rc = emit_rows(d, false, csv_row, &b, fp, err);
    if (rc == SV_OK)
        rc = emit_rows(d, true, csv_row, &b, fp, err);
    if (rc == SV_OK && !out_flush_buf(&b, fp))
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing CSV");
    sb_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ text */

static void put_ns(strbuf *b, bool known, double ns, bool sign)
{
    char num[48];
    if (!known) {
        sb_puts(b, "-");
        return;
    }
    if (sign && ns > 0)
        sb_putc(b, '+');
    sb_puts(b, timefmt_ns(num, sizeof num, ns));
}

static void put_pct(strbuf *b, bool known, double rel)
{
    if (!known)
        sb_puts(b, "-");
    else if (isinf(rel))
        sb_puts(b, rel > 0 ? "new" : "gone");
    else
        sb_printf(b, "%+.1f%%", rel * 100.0);
}

static void put_p(strbuf *b, const diff_row *r)
{
    if (!r->tested)
        sb_puts(b, "untested");
    else if (r->q < 1e-4)
        sb_printf(b, "%.1e", r->q);
    else
        sb_printf(b, "%.4f", r->q);
}

static const char *diff_flag_text(const diff_row *r)
{
    if (r->state == DS_NEW)
        return r->flag > 0 ? "NEW SLOWER" : "new";
    if (r->state == DS_GONE)
        return "gone";
    return r->flag > 0 ? "SLOWER" : r->flag < 0 ? "FASTER" : "";
}

typedef struct text_ctx {
    const diff_result *d;
    const uint32_t *order;
    bool paths;
} text_ctx;

static const table_col text_cols[] = {
    {"name", false},  {"calls base/new", true}, {"base", true},  {"new", true},   {"delta", true},
    {"delta%", true}, {"p50 delta", true},      {"shift", true}, {"p adj", true}, {"", false},
};
#define TEXT_NCOLS (sizeof text_cols / sizeof *text_cols)

static void text_fill(void *vctx, size_t row, strbuf *cells)
{
    const text_ctx *c = vctx;
    uint32_t id = c->order[row];
    const diff_row *r = c->paths ? &c->d->paths[id] : &c->d->regions[id];
    double a = 0, x = 0;
    if (c->paths)
        for (uint32_t k = 0; k < r->depth && k < 40; k++)
            sb_puts(&cells[0], "  ");
    text_escape(&cells[0], diff_row_name(c->d, r), SIZE_MAX);
    for (int s = 0; s < 2; s++) {
        if (s)
            sb_putc(&cells[1], '/');
        if (r->s[s].present && r->s[s].has_calls)
            sb_printf(&cells[1], "%lld", (long long)r->s[s].calls);
        else
            sb_putc(&cells[1], '-');
    }
    bool k = diff_side_value(r, DIFF_BASE, DV_TOTAL, &a);
    put_ns(&cells[2], k, a, false);
    k = diff_side_value(r, DIFF_NEW, DV_TOTAL, &a);
    put_ns(&cells[3], k, a, false);
    k = diff_row_delta(r, DV_TOTAL, &x);
    put_ns(&cells[4], k, x, true);
    k = diff_row_rel(r, DV_TOTAL, &x);
    put_pct(&cells[5], k, x);
    k = r->state == DS_BOTH && diff_row_delta(r, DV_P50, &x);
    put_ns(&cells[6], k, x, true);
    put_ns(&cells[7], r->tested, r->hl_ns, true);
    put_p(&cells[8], r);
    sb_puts(&cells[9], diff_flag_text(r));
}

static sv_err out_diff_text(const diff_result *d, FILE *fp, sv_error *err)
{
    strbuf b;
    sb_init(&b);
    sb_puts(&b, "base: ");
    text_escape(&b, d->label[0] ? d->label[0] : "", SIZE_MAX);
    sb_puts(&b, "\nnew:  ");
    text_escape(&b, d->label[1] ? d->label[1] : "", SIZE_MAX);
    sb_printf(&b,
              "\nflagged when p (Mann-Whitney U, Benjamini-Hochberg) < %g and the %s changes "
              "by %g%% or more\n",
              d->opt.alpha, diff_metric_names[d->opt.metric], d->opt.threshold * 100.0);
    sb_printf(&b, "regions: %zu slower, %zu faster; call paths: %zu slower, %zu faster\n\n",
              d->nflag[0][0], d->nflag[0][1], d->nflag[1][0], d->nflag[1][1]);
    if (!out_flush_buf(&b, fp)) {
        sb_free(&b);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    sb_free(&b);
    uint32_t *order = diff_sorted_regions(d, DK_ABS_DELTA, true);
    if (!order)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    text_ctx c = {d, order, false};
    sv_err rc = out_table(fp, text_cols, TEXT_NCOLS, d->nregions, text_fill, &c, err);
    free(order);
    if (rc != SV_OK)
        return rc;
    fputs("\ncall paths:\n", fp);
    size_t n = 0;
    order = paths_preorder(d, &n);
    if (!order)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    c = (text_ctx){d, order, true};
    rc = out_table(fp, text_cols, TEXT_NCOLS, n, text_fill, &c, err);
    free(order);
    return rc;
}

sv_err out_diff(const diff_result *d, diff_format fmt, FILE *fp, sv_error *err)
{
    if (fmt == DIFF_OUT_JSON)
        return out_diff_json(d, fp, err);
    if (fmt == DIFF_OUT_CSV)
        return out_diff_csv(d, fp, err);
    return out_diff_text(d, fp, err);
}

/* ------------------------------------------------------------------ check */

static bool is_regression(const diff_row *r, bool fail_on_new)
{
    return r->flag > 0 || (fail_on_new && r->state == DS_NEW);
}

static void check_line(const diff_result *d, const diff_row *r, const char *what, uint32_t id,
                       FILE *fp)
{
    strbuf b;
    char path[4096];
    sb_init(&b);
    sb_printf(&b, "%s ", what);
    text_escape(&b,
                id != DIFF_NONE ? diff_path_text(d, id, path, sizeof path) : diff_row_name(d, r),
                SIZE_MAX);
    double x = 0;
    if (r->state == DS_NEW) {
        bool k = diff_row_delta(r, DV_TOTAL, &x);
        sb_puts(&b, ": only in NEW (total ");
        put_ns(&b, k, x, false);
        sb_putc(&b, ')');
    } else {
        sb_printf(&b, ": %s ", diff_metric_names[d->opt.metric]);
        put_pct(&b, r->has_rel, r->rel);
        sb_puts(&b, " (total ");
        bool k = diff_row_delta(r, DV_TOTAL, &x);
        put_ns(&b, k, x, true);
        sb_puts(&b, ", per-call shift ");
        put_ns(&b, r->tested, r->hl_ns, true);
        sb_puts(&b, ", p adj ");
        put_p(&b, r);
        sb_putc(&b, ')');
    }
    sb_putc(&b, '\n');
    out_flush_buf(&b, fp);
    sb_free(&b);
}

int out_check(const diff_result *d, bool fail_on_new, FILE *fp)
{
    size_t found = 0;
    for (size_t i = 0; i < d->nregions; i++)
        if (is_regression(&d->regions[i], fail_on_new)) {
            check_line(d, &d->regions[i], "region", DIFF_NONE, fp);
            found++;
        }
    for (size_t i = 1; i < d->npaths; i++)
        if (is_regression(&d->paths[i], fail_on_new)) {
            check_line(d, &d->paths[i], "path", (uint32_t)i, fp);
            found++;
        }
    if (found)
        fprintf(fp, "FAIL: %zu regression%s beyond %g%% (%s, p adj < %g)\n", found,
                found == 1 ? "" : "s", d->opt.threshold * 100.0, diff_metric_names[d->opt.metric],
                d->opt.alpha);
    else
        fprintf(fp, "OK: no significant regression beyond %g%% (%s, p adj < %g)\n",
                d->opt.threshold * 100.0, diff_metric_names[d->opt.metric], d->opt.alpha);
    return found ? 1 : 0;
}
