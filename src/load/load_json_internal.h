/* load_json_internal: what the JSON loader's files share (load_json.c: the
 * input, yajl's callbacks, the stack of open containers, the document's
 * top level and metadata; load_json_regions.c: the regions, their columns
 * and aggregates, and the commit into the model; load_json_aux.c: the
 * threads, tasks, line_profile and likwid sections).
 *
 * The parse keeps one frame per open JSON container.  A value is placed by
 * the frame it arrives in (its kind, and in an object the current key),
 * so every number lands in its column as it is read. */
#ifndef SV_LOAD_JSON_INTERNAL_H
#define SV_LOAD_JSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "load_json.h"
#include "util/strbuf.h"

/* Containers nested deeper than this are refused (the format needs 5). */
#define JL_DEPTH_MAX 32
/* Room for one key of the path in messages (longer keys are cut). */
#define JL_KEY_MAX 40
/* A string or number token longer than this is refused: yajl holds a
 * token whole before it hands it over. */
#define JL_TOKEN_MAX ((uint64_t)16 << 20)

typedef enum jl_kind {
    JF_TOP,      /* before the document's value */
    JF_ROOT,     /* the document's object */
    JF_META,     /* "metadata" */
    JF_META_VAL, /* an array or object inside metadata, shown as text */
    JF_REGIONS,  /* "regions" */
    JF_REGION,   /* one region object */
    JF_COL,      /* a per-call integer column of a region */
    JF_TAGS,     /* a region's "tags" */
    JF_AGG,      /* a region's "aggregate" */
    JF_RANKMAP,  /* "threads", "tasks", "likwid", "line_profile": {"<rank>": ...} */
    JF_ROWS,     /* the rows of one rank (threads, tasks, line_profile) */
    JF_ROW,      /* one thread, task or line-profile object */
    JF_ROW_ARR,  /* line_numbers, hits, times of a line profile */
    JF_LK_TAGS,  /* likwid["<rank>"]: tag -> record */
    JF_LK_REC,   /* one LIKWID record */
    JF_LK_ARR,   /* event_names, events, call_counts of a LIKWID record */
    JF_LK_ROW,   /* events[i]: one event's values over the threads */
    JF_SKIP      /* a value not read (unknown key, or a known one scopeview ignores) */
} jl_kind;

typedef enum jl_section { JS_THREADS, JS_TASKS, JS_LIKWID, JS_LINES, JS_N } jl_section;

typedef struct jl_frame {
    uint8_t kind; /* jl_kind */
    bool is_array;
    int16_t key;  /* id of the current key in this object, -1 unknown */
    size_t count; /* elements (arrays) or keys (objects) done */
    char key_text[JL_KEY_MAX];
} jl_frame;

/* A value as yajl hands it over. */
typedef enum jl_vt { JV_NULL, JV_BOOL, JV_INT, JV_DOUBLE, JV_STRING, JV_MAP, JV_ARRAY } jl_vt;
typedef struct jl_val {
    jl_vt t;
    int64_t i; /* JV_INT, JV_BOOL */
    double d;  /* JV_DOUBLE */
    const char *s;
    size_t len; /* JV_STRING */
} jl_val;

/* A growable column, charged to the budget as it grows. */
typedef struct jl_vec {
    int64_t *v;
    size_t n, cap;
} jl_vec;

/* The per-call columns of a region, in the order of region's fields. */
enum { JC_START, JC_END, JC_GPU, JC_CALL, JC_PARENT, JC_THREAD, JC_TASK, JC_AWAIT, JC_N };
extern const char *const jl_col_keys[JC_N];

typedef struct jl_region {
    char *name;
    int64_t rank;
    bool has_rank;
    size_t index;  /* in regions[] */
    uint32_t seen; /* keys met (a repeated key is an error) */
    region r;      /* staged strings, tags, stored summary and exclusive total */
    jl_vec col[JC_N];
    bool has_col[JC_N];
    bool has_agg;
    bool no_events; /* "event_data_available": false */
    double agg_m2;  /* aggregate m2, turned into a deviation at the end */
    bool has_m2;
    int64_t gpu_count;
    bool has_gpu_count;
    strbuf agg_unknown; /* aggregate keys scopeview does not show */
} jl_region;

/* A LIKWID record in the making. */
typedef struct jl_likwid {
    int rank;
    perf_record pr;
    size_t names_cap, nvalues, values_cap;
    bool has_names, has_events;
} jl_likwid;

typedef struct jl_line {
    int rank;
    line_profile lp;
    size_t n[3], cap[3]; /* line_numbers, hits, times */
    uint32_t seen;
} jl_line;

typedef struct jl_ctx {
    ld_ctx *c;
    sv_error *err;
    void *yh; /* the yajl handle (offsets for messages) */
    bool failed;
    bool ended; /* the whole text was handed over */
    jl_frame st[JL_DEPTH_MAX];
    int depth;
    jl_vec *col;    /* the column being read (JF_COL) */
    uint64_t fed;   /* bytes handed to yajl before the current chunk */
    bool called;    /* a callback ran during the current chunk */
    uint64_t quiet; /* bytes handed over since the last callback */
    /* the top level */
    uint32_t root_seen;
    bool has_format, has_version, has_num_ranks;
    bool events_available;
    int64_t num_ranks;
    /* metadata */
    char *meta_key; /* the current key of metadata or likwid["<rank>"], whole */
    strbuf meta_text;
    size_t meta_cap;
    /* regions */
    jl_region *reg;
    size_t nreg, reg_cap;
    /* sections */
    int section;      /* jl_section of the open JF_RANKMAP */
    int section_rank; /* its current rank key */
    uint32_t row_seen;
    uint32_t tbl_missing[2]; /* threads, tasks: columns some row lacked */
    ld_lane_tables lt;
    size_t tcap, kcap;
    jl_line *lines;
    size_t nlines, lines_cap;
    jl_likwid *lk;
    size_t nlk, lk_cap;
} jl_ctx;

/* --- load_json.c --- */
/* Fails the parse: "FILE: JSON PATH (byte N): " + fmt; returns 0 (yajl's
 * "stop"). */
int jl_fail(jl_ctx *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int jl_nomem(jl_ctx *j);
/* The current JSON path ("regions[3].start_times_ns[17]"), escaped. */
void jl_path(const jl_ctx *j, char *buf, size_t cap);
/* A warning naming the current path. */
void jl_warn(jl_ctx *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Charges bytes to the load's budget; false (the load fails) past it. */
bool jl_charge(jl_ctx *j, uint64_t bytes, const char *what);
/* Pushes a frame for a container value; 0 when nested too deep. */
int jl_push(jl_ctx *j, jl_kind kind, bool is_array);
/* The key's id in keys[0..n), -1 when unknown. */
int jl_key_id(const char *const *keys, size_t n, const char *key);
/* Walks over a value that is not read. */
int jl_skip(jl_ctx *j, const jl_val *v);
/* A NUL-free copy of a string value, cut to SV_STRING_MAX (a warning). */
char *jl_strdup(jl_ctx *j, const jl_val *v);
const char *jl_type_name(jl_vt t);
/* "<key>: not a <want> (a <type>)" at the current path. */
int jl_bad_type(jl_ctx *j, const jl_val *v, const char *want);

/* --- load_json_regions.c --- */
int jl_regions_value(jl_ctx *j, const jl_val *v);
int jl_region_value(jl_ctx *j, jl_frame *f, const jl_val *v);
int jl_region_end(jl_ctx *j);
int jl_col_value(jl_ctx *j, const jl_val *v);
int jl_tags_value(jl_ctx *j, const jl_val *v);
int jl_agg_value(jl_ctx *j, jl_frame *f, const jl_val *v);
/* Validates the staged regions and hands them, the lane tables and the
 * records to the model, rank by rank. */
sv_err jl_commit(jl_ctx *j);
void jl_regions_free(jl_ctx *j);

/* --- load_json_aux.c --- */
int jl_rankmap_value(jl_ctx *j, jl_frame *f, const jl_val *v);
int jl_rows_value(jl_ctx *j, const jl_val *v);
int jl_row_value(jl_ctx *j, jl_frame *f, const jl_val *v);
int jl_row_end(jl_ctx *j);
int jl_row_arr_value(jl_ctx *j, const jl_val *v);
int jl_lk_value(jl_ctx *j, jl_frame *f, const jl_val *v);
int jl_lk_end(jl_ctx *j);
/* The rank's lines and LIKWID records into rk (taken over). */
sv_err jl_aux_rank(jl_ctx *j, rank_data *rk);
/* Drops the table columns some row lacked (before the commit). */
void jl_tables_finish(jl_ctx *j);
/* Warns of records of ranks the run does not have (after the commit). */
void jl_aux_orphans(jl_ctx *j);
void jl_aux_free(jl_ctx *j);

#endif
