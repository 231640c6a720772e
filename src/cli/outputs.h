/* outputs: the batch outputs (--summary, --json, --csv, --events).
 *
 * Each writes to a FILE* and reads the model only through profile.h, region.h and filter.h.
 * Rows come in the order profile_select_regions() gives (first start, regions without events
 * last by name, then rank): the order the program ran in, the same in every output, so a
 * --summary row and a --json region are easy to match up.
 *
 * No string from the file reaches an output raw: text outputs escape with text_escape, JSON
 * with json_escape, CSV escapes with text_escape and then quotes (RFC 4180).
 *
 * Write errors are not reported here: the caller checks ferror()/fflush() once at the end. */
#ifndef SV_OUTPUTS_H
#define SV_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "model/filter.h"
#include "model/profile.h"
#include "model/select.h"
#include "util/strbuf.h"

sv_err out_summary(const profile *p, const region_filter *f, FILE *fp, sv_error *err);
sv_err out_json(const profile *p, const region_filter *f, FILE *fp, sv_error *err);
sv_err out_csv(const profile *p, const region_filter *f, FILE *fp, sv_error *err);
/* The same without the formula-injection prefix (--csv-raw; see out_csv_value_mode). */
sv_err out_csv_raw(const profile *p, const region_filter *f, FILE *fp, sv_error *err);

typedef struct events_request {
    const char *name; /* region name */
    bool has_rank;    /* false: every rank that has the region, with a rank column */
    int rank;
    events_format format;
    bool csv_raw; /* --csv-raw */
} events_request;

/* One row per recorded call.  SV_ERR_NOT_FOUND when no selected rank has the region,
 * SV_ERR_NO_EVENT_DATA when it is summary-only there.  Without a rank, summary-only ranks
 * are skipped with a line on warn (when there are others). */
sv_err out_events(profile *p, const region_filter *f, const events_request *req, FILE *fp,
                  FILE *warn, sv_error *err);

/* --lines REGION (out_lines.c): the region's line-profile records on the selected ranks (or
 * rank `rank`), one row per line.  SV_ERR_NOT_FOUND when there is none. */
typedef struct lines_request {
    const char *name;
    bool has_rank;
    int rank;
    events_format format;
} lines_request;
sv_err out_lines(const profile *p, const region_filter *f, const lines_request *req, FILE *fp,
                 sv_error *err);

/* --imbalance (out_agg.c): per region name, upstream's rank imbalance over the ranks that ran it
 * (model/imbalance.h), sorted by excess time; JSON (with each rank's total) or CSV. */
sv_err out_imbalance(const profile *p, const region_filter *f, events_format format, bool raw,
                     FILE *fp, sv_error *err);

/* --timeseries REGION [--rank N] (out_agg.c): each call's start and duration in start order, with
 * the series' percentiles, warm-up and drift (model/series.h) in the JSON head. */
typedef struct timeseries_request {
    const char *name;
    bool has_rank;
    int rank;
    events_format format;
} timeseries_request;
sv_err out_timeseries(const profile *p, const region_filter *f, const timeseries_request *req,
                      FILE *fp, sv_error *err);

/* ------------------------------------------------------------------ shared by the outputs */

/* A typed value of one output column, so JSON, CSV and text print the same rows. */
typedef enum out_kind {
    OV_NULL, /* unknown: null / empty field / "-" */
    OV_BOOL,
    OV_INT,
    OV_SECONDS, /* d: seconds */
    OV_NS,      /* i: a duration in ns, printed as seconds (text: adaptive units) */
    OV_TIME_NS, /* i: a time offset in ns, printed as seconds */
    OV_STRING,  /* s: raw bytes from the file */
    OV_INTS,    /* ints[count] */
    OV_STRINGS  /* strs[count] */
} out_kind;

typedef struct out_value {
    out_kind kind;
    bool b;
    int64_t i;
    double d;
    const char *s;
    const int64_t *ints;
    char *const *strs;
    size_t count;
} out_value;

/* The columns of one --json region object / --csv row, in the key order. */
#define OUT_REGION_NFIELDS 26
extern const char *const out_region_keys[OUT_REGION_NFIELDS];
/* Fills v; *threads receives a malloc'ed array the caller frees (may be NULL). */
sv_err out_region_values(const region *r, out_value v[OUT_REGION_NFIELDS], int64_t **threads,
                         sv_error *err);

/* Regions passing the filter, in output order (malloc'ed array). */
sv_err out_select(const profile *p, const region_filter *f, region ***regs, size_t *n,
                  sv_error *err);

void out_json_value(strbuf *b, const out_value *v);
/* The "lane_tables" key of --json: each rank's thread and task tables
 * (out_tables.c). */
void out_json_lane_tables(strbuf *b, const profile *p, const region_filter *f);
/* A CSV field.  A string cell starting with = + - @ tab or CR gets a leading ' (OWASP's
 * defence against formula injection in spreadsheets), unless raw (--csv-raw). */
void out_csv_value(strbuf *b, const out_value *v);
void out_csv_value_mode(strbuf *b, const out_value *v, bool raw);
void out_text_value(strbuf *b, const out_value *v);
/* A CSV field from raw bytes: text_escape, then quoted when needed. */
void out_csv_string(strbuf *b, const char *s);
void out_csv_quote(strbuf *b, const char *clean, size_t len);
void out_csv_quote_mode(strbuf *b, const char *clean, size_t len, bool raw);

/* Display width (terminal columns) of clean UTF-8 text, e.g. an escaped name. */
size_t out_display_width(const char *s, size_t len);

/* Aligned text tables in two passes (widths, then lines), so memory does not grow with the
 * number of rows.  fill() writes row `row`'s cells into cells[0..ncols), already escaped. */
typedef struct table_col {
    const char *header;
    bool right; /* right-aligned (numbers) */
} table_col;
typedef void (*table_fill_fn)(void *ctx, size_t row, strbuf *cells);
sv_err out_table(FILE *fp, const table_col *cols, size_t ncols, size_t nrows, table_fill_fn fill,
                 void *ctx, sv_error *err);

/* Writes b to fp and empties it; false when b ran out of memory. */
bool out_flush_buf(strbuf *b, FILE *fp);

#endif
