/* gen_columnar: svgen's writer of scope-profiler's columnar layouts
 * (schema 2 and 3, "columnar" and "aggregate"), the C API's per-rank files
 * and the auxiliary rank records (line profiles, perf events).  See
 * doc/FORMAT.md; like gen.c it shares no code with
 * the reader.
 *
 * The caller describes a profile in memory (rows of (rank, region) with
 * absolute start/end times in recorded order, lane tables, records) and
 * options (schema, strings, storage, deliberate faults); the writer encodes
 * it: start deltas, the index, summary_statistics and exclusive totals. */
#ifndef SV_GEN_COLUMNAR_H
#define SV_GEN_COLUMNAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"

/* Optional per-call columns, in /events order. */
enum { GC_GPU, GC_CALL, GC_PARENT, GC_THREAD, GC_TASK, GC_AWAIT, GC_NOPT };
extern const char *const gc_opt_names[GC_NOPT];

/* One (rank, region) row with its calls in recorded order. */
typedef struct gc_row {
    const char *region;
    int rank;
    size_t n;
    const int64_t *start, *end; /* absolute ns */
    /* NULL = this rank did not supply it; filled with the column's
     * sentinel (-1, await 0) when another row has it. */
    const int64_t *opt[GC_NOPT];
    const char *const *meta; /* per call JSON object text, NULL/"" = none */
    const char *source_file; /* NULL = "" */
    int64_t source_line;     /* 0 = -1 (unknown) */
    const char *source_text; /* NULL = "" */
    const char *tags_json;   /* NULL = "[]" */
    /* aggregate layout only */
    uint64_t agg_count;
    int64_t agg_total, agg_min, agg_max, agg_excl;
} gc_row;

typedef struct gc_thread {
    int rank;
    int64_t index, ident, native_id;
    int8_t daemon;
    int64_t start_ns, end_ns, cpu_ns;
    const char *name;
} gc_thread;

typedef struct gc_task {
    int rank;
    int64_t index, thread_index, created_ns, done_ns, steps, running_ns, suspended_ns;
    const char *kind, *name, *coro_name;
} gc_task;

typedef struct gc_line_profile {
    int rank;
    const char *region, *filename, *function;
    int64_t first_lineno;
    double unit;
    const char *source; /* NULL: no source attrs */
    int64_t source_first_lineno;
    size_t n;
    const int64_t *lines, *hits;
    const double *times;
} gc_line_profile;

typedef struct gc_perf {
    int rank;
    const char *region;
    int64_t calls;
    size_t n;
    const char *const *names;
    const uint64_t *values;
} gc_perf;

typedef struct gc_profile {
    const gc_row *rows;
    size_t nrows;
    const gc_thread *threads;
    size_t nthreads;
    const gc_task *tasks;
    size_t ntasks;
    const gc_line_profile *lines;
    size_t nlines;
    const gc_perf *perf;
    size_t nperf;
    const gen_kv *meta;
    size_t nmeta;
} gc_profile;

/* Deliberate damage for the loader's fault fixtures. */
typedef enum gc_fault {
    GC_FAULT_NONE,
    GC_FAULT_TRUNCATE, /* events/durations (or end_times) two shorter than N */
    GC_FAULT_OVERLAP,  /* row 1 starts one event early: rows 0 and 1 overlap */
    GC_FAULT_PASTEND,  /* the last row's count is 5 too large */
    GC_FAULT_SUMSTART, /* row 0's summary start_minimum 1 ns before its first start */
} gc_fault;

typedef struct gc_opts {
    int schema;          /* root attribute value; 0 = timing */
    int timing;          /* 2: start_times/end_times, 3: start_deltas/durations */
    bool aggregate;      /* storage_layout "aggregate" */
    bool fixed_strings;  /* fixed-length NULLPAD UTF-8 (parallel-HDF5 files) */
    bool wide_index;     /* region_ids and ranks as uint64 instead of uint32 */
    bool chunked;        /* chunked datasets (else contiguous, fixed size) */
    bool fixed_size;     /* chunked but not resizable (parallel-HDF5 files) */
    int deflate;         /* gzip level on event columns (0 = none; implies chunked) */
    bool shuffle;        /* shuffle before deflate */
    size_t chunk;        /* event column chunk (0: 65536 or N) */
    bool no_summary;     /* omit summary_statistics */
    bool no_event_meta;  /* omit event_metadata */
    bool excl_unknown;   /* exclusive_totals all -1 (C API, native imports) */
    bool no_index;       /* no region_table / rank_region_index (only aux groups) */
    const int64_t *excl; /* exclusive_totals given per row (else computed) */
    const char *lzf_col; /* this /events column gets filter 40000 (no plugin has it) */
    /* Every /events column chunked, shuffled and compressed with this filter:
     * 32000 (lzf, from the hdf5-plugin-lzf plugin) or 32015 (zstd, libzstd). */
    unsigned event_filter;
    gc_fault fault;
} gc_opts;

/* Write P to PATH with OPTS.  Dies on any HDF5 error. */
void gc_write(const char *path, const gc_profile *p, const gc_opts *opts);

/* The C API's output: one schema-2 file per rank present in P,
 * "<PREFIX>_rank<NNNNN>.h5"; SKIP_RANK (-1 none) is not written. */
void gc_write_capi(const char *prefix, const gc_profile *p, int skip_rank);

/* P in the aggregate layout: each row's aggregate_* values computed from its
 * calls (count, total, minimum, maximum, exclusive total). */
void gc_write_aggregated(const char *path, const gc_profile *p);

/* summary_statistics of one row, as upstream's _timing_summary. */
typedef struct gc_summary {
    int64_t total, minimum, maximum, first, last, start_minimum, end_maximum;
    uint64_t gpu_count;
    int64_t gpu_total;
    double mean, m2;
} gc_summary;

void gc_row_summary(const gc_row *r, gc_summary *out);

/* Exclusive totals of every row (ns), from the explicit call graph of each
 * rank: inclusive minus the union of the direct children's intervals clipped
 * to the call.  -1 for the rows of a rank where some row lacks ids. */
void gc_exclusive_totals(const gc_profile *p, int64_t *out);

#endif
