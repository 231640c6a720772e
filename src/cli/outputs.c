/* outputs: what the batch outputs share — typed column values, their JSON / CSV / text forms,
 * and the two-pass aligned table. */
#include "outputs.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "model/region.h"
#include "util/text.h"
#include "util/timefmt.h"

const char *const out_region_keys[OUT_REGION_NFIELDS] = {
    "name",
    "rank",
    "num_calls",
    "has_event_data",
    "total_duration",
    "average_duration",
    "min_duration",
    "max_duration",
    "std_duration",
    "first_duration",
    "last_duration",
    "p50_duration",
    "p95_duration",
    "p99_duration",
    "first_start_time",
    "last_end_time",
    "inclusive_duration",
    "total_exclusive_duration",
    "gpu_total_duration",
    "gpu_average_duration",
    "total_await_duration",
    "threads",
    "tags",
    "source_file",
    "source_lineno",
    "has_source",
};

/* The statistics between has_event_data and threads, in key order. */
static const region_stat_id region_key_stats[] = {
    RSTAT_TOTAL,       RSTAT_MEAN,        RSTAT_MIN,       RSTAT_MAX,       RSTAT_STD,
    RSTAT_FIRST,       RSTAT_LAST,        RSTAT_P50,       RSTAT_P95,       RSTAT_P99,
    RSTAT_FIRST_START, RSTAT_LAST_END,    RSTAT_INCLUSIVE, RSTAT_EXCLUSIVE, RSTAT_GPU_TOTAL,
    RSTAT_GPU_MEAN,    RSTAT_AWAIT_TOTAL,
};
#define REGION_FIRST_STAT 4
#define REGION_NSTATS (sizeof region_key_stats / sizeof region_key_stats[0])

static out_value ov_null(void)
{
    return (out_value){.kind = OV_NULL};
}

static out_value ov_bool(bool b)
{
    return (out_value){.kind = OV_BOOL, .b = b};
}

static out_value ov_int(int64_t i)
{
    return (out_value){.kind = OV_INT, .i = i};
}

static out_value ov_string(const char *s)
{
    return s ? (out_value){.kind = OV_STRING, .s = s} : ov_null();
}

/* Summary-only regions may lack even the number of calls. */
static out_value num_calls_value(const region *r)
{
    if (!r->has_event_data && !(r->stored.known & (UINT32_C(1) << SUM_NUM_CALLS)))
        return ov_null();
    return ov_int(region_num_calls(r));
}

sv_err out_region_values(const region *r, out_value v[OUT_REGION_NFIELDS], int64_t **threads,
                         sv_error *err)
{
    size_t k = 0;
    *threads = NULL;
    v[k++] = ov_string(r->name);
    v[k++] = ov_int(r->rank);
    v[k++] = num_calls_value(r);
    v[k++] = ov_bool(r->has_event_data);
    for (size_t i = 0; i < REGION_NSTATS; i++) {
        double s;
        bool known = region_stat(r, region_key_stats[i], &s);
        v[k++] = known ? (out_value){.kind = OV_SECONDS, .d = s} : ov_null();
    }
    /* Python's `threads` is [] without a thread column (so is shared/data/expected); only a
     * summary-only region, which has no calls to look at, gives null. */
    if (r->has_event_data) {
        size_t count = 0;
        sv_err rc = region_has_thread_data(r) ? region_threads(r, threads, &count, err) : SV_OK;
        if (rc != SV_OK)
            return rc;
        v[k++] = (out_value){.kind = OV_INTS, .ints = *threads, .count = count};
    } else {
        v[k++] = ov_null();
    }
    v[k++] = (out_value){.kind = OV_STRINGS, .strs = r->tags, .count = r->ntags};
    v[k++] = ov_string(r->source_file);
    v[k++] = r->has_lineno ? ov_int(r->source_lineno) : ov_null();
    v[k++] = ov_bool(region_has_source(r));
    return SV_OK;
}

sv_err out_select(const profile *p, const region_filter *f, region ***regs, size_t *n,
                  sv_error *err)
{
    return profile_select_regions(p, f, regs, n, err);
}

/* ------------------------------------------------------------------ value forms */

static void put_seconds(strbuf *b, double s)
{
    char num[64];
    sb_puts(b, fmt_double_exact(num, sizeof num, s));
}

static void put_ns_as_seconds(strbuf *b, int64_t ns)
{
    put_seconds(b, (double)ns / SV_NS_PER_SECOND);
}

/* A time out of range (timefmt.h) is unknown in every output, as a null. */
static const out_value *out_known(const out_value *v)
{
    static const out_value unknown = {.kind = OV_NULL};
    return v->kind == OV_SECONDS && !timefmt_in_range_s(v->d) ? &unknown : v;
}

void out_json_value(strbuf *b, const out_value *v)
{
    v = out_known(v);
    switch (v->kind) {
    case OV_NULL:
        sb_puts(b, "null");
        break;
    case OV_BOOL:
        sb_puts(b, v->b ? "true" : "false");
        break;
    case OV_INT:
        sb_printf(b, "%" PRId64, v->i);
        break;
    case OV_SECONDS:
        put_seconds(b, v->d);
        break;
    case OV_NS:
    case OV_TIME_NS:
        put_ns_as_seconds(b, v->i);
        break;
    case OV_STRING:
        json_escape(b, v->s);
        break;
    case OV_INTS:
    case OV_STRINGS:
        sb_putc(b, '[');
        for (size_t i = 0; i < v->count; i++) {
            if (i)
                sb_puts(b, ", ");
            if (v->kind == OV_INTS)
                sb_printf(b, "%" PRId64, v->ints[i]);
            else
                json_escape(b, v->strs[i] ? v->strs[i] : "");
        }
        sb_putc(b, ']');
        break;
    }
}

/* A cell a spreadsheet would run as a formula: OWASP's list of first characters. */
static bool csv_formula_start(const char *clean, size_t len)
{
    return len > 0 && (clean[0] == '=' || clean[0] == '+' || clean[0] == '-' || clean[0] == '@' ||
                       clean[0] == '\t' || clean[0] == '\r');
}

void out_csv_quote_mode(strbuf *b, const char *clean, size_t len, bool raw)
{
    if (!raw && csv_formula_start(clean, len)) {
        /* OWASP CSV injection: a leading ' makes the cell text; quoted like any other. */
        sb_puts(b, "\"'");
        for (size_t i = 0; i < len; i++) {
            if (clean[i] == '"')
                sb_putc(b, '"');
            sb_putc(b, clean[i]);
        }
        sb_putc(b, '"');
        return;
    }
    bool quote = false;
    for (size_t i = 0; i < len && !quote; i++)
        quote = clean[i] == ',' || clean[i] == '"' || clean[i] == '\r' || clean[i] == '\n';
    if (!quote) {
        sb_putn(b, clean, len);
        return;
    }
    sb_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        if (clean[i] == '"')
            sb_putc(b, '"');
        sb_putc(b, clean[i]);
    }
    sb_putc(b, '"');
}

void out_csv_quote(strbuf *b, const char *clean, size_t len)
{
    out_csv_quote_mode(b, clean, len, false);
}

static void csv_string(strbuf *b, const char *s, bool raw)
{
    strbuf t;
    sb_init(&t);
    text_escape(&t, s ? s : "", SIZE_MAX);
    if (t.oom)
        b->oom = true;
    else
        out_csv_quote_mode(b, t.s ? t.s : "", t.len, raw);
    sb_free(&t);
}

void out_csv_string(strbuf *b, const char *s)
{
    csv_string(b, s, false);
}

/* A list as one field: items escaped, joined with sep, the whole quoted when needed. */
static void put_list(strbuf *b, const out_value *v, const char *sep, bool csv, bool raw)
{
    strbuf t;
    sb_init(&t);
    for (size_t i = 0; i < v->count; i++) {
        if (i)
            sb_puts(&t, sep);
        if (v->kind == OV_INTS)
            sb_printf(&t, "%" PRId64, v->ints[i]);
        else
            text_escape(&t, v->strs[i] ? v->strs[i] : "", SIZE_MAX);
    }
    if (t.oom)
        b->oom = true;
    else if (csv)
        out_csv_quote_mode(b, t.s ? t.s : "", t.len, raw);
    else
        sb_putn(b, t.s ? t.s : "", t.len);
    sb_free(&t);
}

void out_csv_value_mode(strbuf *b, const out_value *v, bool raw)
{
    v = out_known(v);
    switch (v->kind) {
    case OV_NULL:
        break;
    case OV_STRING:
        csv_string(b, v->s, raw);
        break;
    case OV_INTS:
    case OV_STRINGS:
        put_list(b, v, ";", true, raw);
        break;
    default: /* numbers and booleans read the same in JSON and CSV */
        out_json_value(b, v);
        break;
    }
}

void out_csv_value(strbuf *b, const out_value *v)
{
    out_csv_value_mode(b, v, false);
}

void out_text_value(strbuf *b, const out_value *v)
{
    char num[64];
    v = out_known(v);
    switch (v->kind) {
    case OV_NULL:
        sb_putc(b, '-');
        break;
    case OV_BOOL:
        sb_puts(b, v->b ? "yes" : "no");
        break;
    case OV_INT:
        sb_printf(b, "%" PRId64, v->i);
        break;
    case OV_SECONDS:
        sb_puts(b, timefmt_ns(num, sizeof num, v->d * SV_NS_PER_SECOND));
        break;
    case OV_NS:
        sb_puts(b, timefmt_ns(num, sizeof num, (double)v->i));
        break;
    case OV_TIME_NS:
        sb_puts(b, timefmt_seconds(num, sizeof num, (double)v->i / SV_NS_PER_SECOND));
        sb_puts(b, " s");
        break;
    case OV_STRING:
        text_escape(b, v->s, SIZE_MAX);
        break;
    case OV_INTS:
    case OV_STRINGS:
        put_list(b, v, ",", false, false);
        break;
    }
}

/* ------------------------------------------------------------------ tables */

size_t out_display_width(const char *s, size_t len)
{
    size_t w = 0, i = 0;
    while (i < len) {
        uint32_t cp;
        size_t k = utf8_decode(s + i, len - i, &cp);
        if (k == 0) { /* cannot happen for escaped text; count the byte */
            w++;
            i++;
            continue;
        }
        /* wcwidth is -1 outside a UTF-8 locale: one column is the best guess then. */
        int cw = wcwidth((wchar_t)cp);
        w += cw < 0 ? 1 : (size_t)cw;
        i += k;
    }
    return w;
}

bool out_flush_buf(strbuf *b, FILE *fp)
{
    if (b->oom)
        return false;
    if (b->len)
        fwrite(b->s, 1, b->len, fp);
    sb_reset(b);
    return true;
}

static void pad(strbuf *b, size_t n)
{
    while (n--)
        sb_putc(b, ' ');
}

/* One line: cells padded to the widths, two spaces apart, the last one not padded. */
static void table_line(strbuf *line, const table_col *cols, size_t ncols, const size_t *widths,
                       const strbuf *cells)
{
    for (size_t c = 0; c < ncols; c++) {
        const char *s = cells[c].s ? cells[c].s : "";
        size_t w = out_display_width(s, cells[c].len);
        size_t gap = widths[c] > w ? widths[c] - w : 0;
        if (c)
            sb_puts(line, "  ");
        if (cols[c].right)
            pad(line, gap);
        sb_putn(line, s, cells[c].len);
        if (!cols[c].right && c + 1 < ncols)
            pad(line, gap);
    }
    sb_putc(line, '\n');
}

static void fill_headers(strbuf *cells, const table_col *cols, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++) {
        sb_reset(&cells[c]);
        sb_puts(&cells[c], cols[c].header);
    }
}

static void fill_row(strbuf *cells, size_t ncols, size_t row, table_fill_fn fill, void *ctx)
{
    for (size_t c = 0; c < ncols; c++)
        sb_reset(&cells[c]);
    fill(ctx, row, cells);
}

static bool cells_oom(const strbuf *cells, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++)
        if (cells[c].oom)
            return true;
    return false;
}

static void widen(size_t *widths, const strbuf *cells, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++) {
        size_t w = out_display_width(cells[c].s ? cells[c].s : "", cells[c].len);
        if (w > widths[c])
            widths[c] = w;
    }
}

sv_err out_table(FILE *fp, const table_col *cols, size_t ncols, size_t nrows, table_fill_fn fill,
                 void *ctx, sv_error *err)
{
    size_t *widths = calloc(ncols, sizeof *widths);
    strbuf *cells = calloc(ncols, sizeof *cells);
    strbuf line;
    sb_init(&line);
    bool oom = !widths || !cells;
    for (size_t c = 0; c < ncols && !oom; c++)
        sb_init(&cells[c]);
    if (!oom) {
        fill_headers(cells, cols, ncols);
        widen(widths, cells, ncols);
    }
    for (size_t r = 0; r < nrows && !oom; r++) {
        fill_row(cells, ncols, r, fill, ctx);
        oom = cells_oom(cells, ncols);
        widen(widths, cells, ncols);
    }
    if (!oom) {
        fill_headers(cells, cols, ncols);
        table_line(&line, cols, ncols, widths, cells);
        oom = !out_flush_buf(&line, fp);
    }
    for (size_t r = 0; r < nrows && !oom && !ferror(fp); r++) {
        fill_row(cells, ncols, r, fill, ctx);
        table_line(&line, cols, ncols, widths, cells);
        oom = cells_oom(cells, ncols) || !out_flush_buf(&line, fp);
    }
    for (size_t c = 0; cells && c < ncols; c++)
        sb_free(&cells[c]);
    free(cells);
    free(widths);
    sb_free(&line);
    return oom ? sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing a table") : SV_OK;
}
