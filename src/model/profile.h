/* profile: the in-memory region model of one scope-profiler HDF5 file.
 *
 * Producer/consumer contract (ncdu-style): the loader (loader.c) is the only
 * producer; it fills these structs, then calls profile_finish(), which
 * computes every statistic and the exclusive-time totals.  Everything else
 * (views, batch outputs, tests) only reads them through this header and
 * region.h.  Times are integer nanoseconds exactly as stored; conversion to
 * seconds happens at the API and output edges (region.h).
 *
 * Strings are the file's raw bytes, NUL-terminated (a NUL inside a string
 * ends it).  They may hold invalid UTF-8 or control characters: every
 * consumer that prints one must escape it (util/text.h). */
#ifndef SV_PROFILE_H
#define SV_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sv_error.h"

/* Longest string kept from a file; longer ones are cut with a warning. */
#define SV_STRING_MAX ((size_t)1 << 20)

/* Stored summary attributes (group `summary` or `aggregate`), nanoseconds. */
typedef enum summary_key {
    SUM_NUM_CALLS,
    SUM_TOTAL,
    SUM_MIN,
    SUM_MAX,
    SUM_MEAN,
    SUM_STD,
    SUM_FIRST,
    SUM_LAST,
    SUM_FIRST_START,
    SUM_LAST_END,
    SUM_P50,
    SUM_P95,
    SUM_P99,
    SUM_EXCLUSIVE_TOTAL,
    SUM_GPU_TOTAL,
    SUM_AWAIT_TOTAL,
    SUM_COUNT
} summary_key;

extern const char *const summary_key_names[SUM_COUNT]; /* "num_calls", "total_ns", ... */

typedef struct region_summary {
    uint32_t known; /* bit k set when key k was stored */
    double v[SUM_COUNT];
} region_summary;

/* Statistics computed from the events by stats_compute_region(). */
typedef struct region_stats {
    int64_t num_calls;
    int64_t total_ns; /* sum of durations (saturates at INT64_MAX) */
    int64_t min_ns, max_ns, first_ns, last_ns;
    int64_t first_start_ns, last_end_ns;
    double mean_ns, std_ns;
    double p50_ns, p95_ns, p99_ns;
    int64_t exclusive_total_ns; /* filled by nest_compute() */
    int64_t gpu_total_ns;       /* over entries >= 0 */
    int64_t gpu_count;          /* entries >= 0 */
    int64_t await_total_ns;
} region_stats;

struct rank_data;

typedef struct region {
    char *name; /* full name, folders joined with '/' */
    int rank;   /* rank number (not index) */
    struct rank_data *owner;

    bool has_event_data; /* start_times present */
    size_t n;            /* number of recorded calls; 0 when summary-only */
    int64_t *start_ns;   /* n, recorded order */
    int64_t *end_ns;     /* n */
    /* Optional per-call columns: NULL when absent (or dropped as bad). */
    int64_t *call_ids;
    int64_t *parent_ids;
    int64_t *thread_ids;
    int64_t *task_ids;
    int64_t *await_ns;
    int64_t *gpu_ns;   /* < 0 means "no GPU timing for this call" */
    char **event_meta; /* n strings ("" or "{}" = none), or NULL */

    char *source_file; /* NULL when absent */
    char *source_text; /* NULL when absent */
    int64_t source_lineno;
    bool has_lineno;
    char **tags;
    size_t ntags;

    bool has_stored_summary;
    region_summary stored;

    region_stats st; /* valid after profile_finish() when has_event_data */

    /* Index of this region's call 0 in its rank's call numbering
     * (regions of a rank are numbered in byte order of their names). */
    size_t gidx0;

    /* Per-call exclusive durations owned by a region_for_thread() slice
     * (a slice is not part of its rank's numbering); NULL otherwise. */
    int64_t *own_excl_ns;

    /* Columnar files (schema 2/3): the writer's own exclusive total
     * (`exclusive_totals`); has_stored_exclusive false for -1 or absent. */
    bool has_stored_exclusive;
    int64_t stored_exclusive_ns;

    /* Out-of-core batch load (stream*.c): st comes from a streaming pass
     * over the file and no per-call column is kept (n == 0; the calls are
     * st.num_calls).  stream_cols says which optional columns the row had
     * (SV_SCOL_*), stream_threads its sorted distinct thread rows. */
    bool streamed;
    bool stream_excl_unknown; /* exclusive total not computable exactly: null */
    /* The per-call columns (start_ns .. gpu_ns, not own_excl_ns) point
     * into the profile's shared mapping (profile.shared_cols): they are
     * read-only and freed with it, never one by one. */
    bool cols_shared;
    uint32_t stream_cols;
    int64_t *stream_threads;
    size_t stream_nthreads;
} region;

/* region.stream_cols bits. */
#define SV_SCOL_GPU 1u
#define SV_SCOL_AWAIT 2u
#define SV_SCOL_THREADS 4u
#define SV_SCOL_TASKS 8u
#define SV_SCOL_IDS 16u

/* Every column is n long, or NULL when the file lacks it. */
typedef struct thread_table {
    size_t n;
    char **name;        /* n strings, or NULL when the dataset is absent */
    int64_t *ident;     /* n, or NULL */
    int64_t *native_id; /* n, or NULL */
    /* Schema 2/3 `thread_table` only: */
    int8_t *daemon;    /* 0/1 */
    int64_t *start_ns; /* perf_counter ns */
    int64_t *end_ns;   /* -1 = still running at the end of the run */
    int64_t *cpu_ns;
} thread_table;

typedef struct task_table {
    size_t n;
    char **name;     /* n strings, or NULL */
    int64_t *thread; /* n thread-table rows (-1 unknown), or NULL */
    /* Schema 2/3 `task_table` only: */
    char **kind; /* "task" | "greenlet" */
    char **coro_name;
    int64_t *created_ns;
    int64_t *done_ns; /* -1 = unfinished */
    int64_t *steps;
    int64_t *running_ns;
    int64_t *suspended_ns;
} task_table;

/* A line-profiler record (`rank<N>/line_profile/<i>`, schema 2/3). */
typedef struct line_profile {
    char *region; /* may be NULL */
    char *filename;
    char *function;
    int64_t first_lineno;
    double unit_s;               /* seconds per unit of times[] */
    char *source;                /* NULL when not captured */
    int64_t source_first_lineno; /* line of source's first line; valid with source */
    size_t n;
    int64_t *lineno; /* n */
    int64_t *hits;   /* n */
    double *times;   /* n, in units of unit_s */
} line_profile;

/* Hardware counters of a region (`rank<N>/perf_events/<region>`), or one
 * LIKWID group record (kind "likwid"). */
typedef struct perf_record {
    char *kind; /* "perf_events" or "likwid" */
    char *region;
    int64_t calls; /* -1 when unknown */
    size_t n;
    char **names;   /* n counter names */
    double *values; /* n (uint64 counters widened exactly below 2^53) */
} perf_record;

/* Per-call nesting of a rank, built on demand by profile_ensure_calls():
 * views need it, batch statistics do not (they only need totals). */
typedef struct rank_calls {
    size_t n;        /* calls of the rank: sum of its regions' n */
    int32_t *parent; /* n: rank call index of the direct parent, -1 none */
    /* Depths and exclusive durations are not stored (12 bytes a call):
     * rank_call_depth() and rank_call_excl() work them out when asked
     * (the viewer's resident size). */
    /* Every call that has a parent, grouped by parent (ascending call
     * index), each family ordered by (start, -end, index): the children
     * of c are the run with parent == c, found by binary search
     * (rank_call_children).  No offsets array (4 bytes a call). */
    uint32_t *child; /* nchild */
    size_t nchild;   /* calls with a parent */
    /* n: inferred lane of each call (doc/FORMAT.md, "Inferred lanes");
     * NULL when the rank has one lane or records its threads. */
    uint32_t *lane;
} rank_calls;

typedef struct rank_data {
    int rank; /* the N of group "rank<N>" */
    struct profile *owner;
    region **regions; /* sorted by name (byte order) */
    size_t nregions;
    size_t regions_cap;
    size_t ncalls; /* sum of regions' n */
    thread_table threads;
    bool has_threads;
    task_table tasks;
    bool has_tasks;
    bool explicit_ids; /* nesting came from call/parent ids */
    /* Lanes inferred for a rank without thread ids whose calls overlap
     * partly (>= 2), else 0.  Set by profile_finish(). */
    uint32_t ninferred_lanes;
    rank_calls *calls; /* NULL until profile_ensure_calls() */
    /* Auxiliary records (schema 2/3 rank groups; never regions). */
    line_profile *lines;
    size_t nlines;
    perf_record *perf;
    size_t nperf;
} rank_data;

typedef enum meta_kind { META_STRING, META_INT, META_FLOAT, META_BOOL } meta_kind;

typedef struct meta_entry {
    char *key;
    meta_kind kind;
    char *text; /* the value shown as text, always set */
} meta_entry;

/* Which scope-profiler layout a file had (doc/FORMAT.md). */
typedef enum profile_layout {
    LAYOUT_GROUPS,    /* schema 1: rank<N>/regions/<name>/ (legacy and extended) */
    LAYOUT_COLUMNAR,  /* schema 2 (start/end) or 3 (gap-encoded) */
    LAYOUT_AGGREGATE, /* schema 3, storage_layout "aggregate": summaries only */
    LAYOUT_NATIVE     /* native traces (.spt) only: start and end times, no schema */
} profile_layout;

/* What kind of file the profile was read from (the layout says what it
 * means: a JSON profile is a schema-3 run). */
typedef enum profile_format {
    PFMT_HDF5,     /* scope-profiler's HDF5 files */
    PFMT_JSON,     /* a JSON profile, format_version 1 */
    PFMT_JSON_GZIP /* the same, gzip'd */
} profile_format;

typedef struct profile {
    char *path; /* the first file; see paths for a C-API rank set */
    /* The directory the user named for a run of files (no trailing '/'),
     * NULL when a file was named: the run's name on screen (profile_name). */
    char *run_name;
    char **paths; /* every file opened as this profile (npaths >= 1) */
    size_t npaths;
    /* npaths lines saying what each file is ("native trace, version 2,
     * little-endian, rank 1"), or NULL (a model not made by the loader). */
    char **path_formats;
    uint64_t file_size; /* summed over paths */
    int schema;         /* scope_profiler_schema (1 when absent) */
    profile_layout layout;
    bool legacy;      /* no extended item anywhere in the file */
    uint8_t format;   /* profile_format */
    meta_entry *meta; /* sorted by key */
    size_t nmeta;
    rank_data *ranks; /* sorted by rank number */
    size_t nranks;
    size_t ranks_cap;
    region **regions; /* every (region, rank): by rank, then name */
    size_t nregions;
    bool has_min_start;
    int64_t min_start_ns; /* smallest start over every region of every rank */
    char **warnings;      /* one line each, already escaped; at most
                           * WARN_CAP_PER_KIND of a kind (warncap.h) */
    size_t nwarnings;
    size_t nwarnings_cap;
    struct warn_kinds *warn_kinds; /* owned by warncap.c */
    /* Call-path totals of a profile whose calls are not held (the
     * out-of-core skeleton: callpaths.h), owned; NULL otherwise. */
    struct call_paths *cpaths;
    /* Each region's slowest calls, of the same skeleton (slowcalls.h). */
    struct slow_calls *slowest;
    /* A read-only mapping that regions' columns point into (cols_shared:
     * the loading child's columns, received in shared memory, wire.h),
     * unmapped by profile_free; NULL otherwise. */
    void *shared_cols;
    size_t shared_len;
    /* The duration-over-time bins of such a profile (tbins.h), owned. */
    struct time_bins *tbins;
    /* The statistics' copy of the viewer's profile only (stats_local.c):
     * where its totals pass takes the per-call build's exclusive totals
     * (nest_share.h), not owned; NULL: the totals pass sweeps. */
    struct nest_share *nest_given;
} profile;

/* --- producer side (loader) ---
 * A rank_data pointer is valid until the next profile_add_rank() (the
 * array grows); fill one rank before adding the next. */
profile *profile_new(const char *path);
/* Names the run after dir (a copy, trailing '/' dropped); false on NOMEM. */
bool profile_set_run_name(profile *p, const char *dir);
/* What the run is called: its directory, else its first file. */
static inline const char *profile_name(const profile *p)
{
    return p->run_name ? p->run_name : p->path ? p->path : "";
}
rank_data *profile_add_rank(profile *p, int rank);        /* NULL on NOMEM */
region *rank_add_region(rank_data *rk, const char *name); /* NULL on NOMEM */
void profile_warn(profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sorts ranks and regions, numbers calls, computes statistics, nesting
 * totals and minimum_start_time.  Called once by the loader.  (finish.c:
 * the one step that calls statistics and nesting, so profile.c needs
 * neither.) */
sv_err profile_finish(profile *p, sv_error *err);
/* Its steps, for a load split into parts (load_rows.h): a part computes its
 * regions' statistics without nesting (stats, !nest), the merged profile
 * nests without recomputing them (!stats, nest). */
sv_err profile_finish_steps(profile *p, bool stats, bool nest, sv_error *err);
/* Without a start read (the fast summary open, a deferred load whose regions
 * have no events), the smallest stored first start (start_minimum, exact) is
 * the profile's minimum start; a no-op once it has one. */
void profile_stored_min_start(profile *p);

/* --- consumer side --- */
void profile_free(profile *p);
void region_free(region *r); /* for regions made by region_for_thread() */
/* Frees what a region owns except its name, and zeroes it (the loader's
 * staging of a region that is then dropped). */
void region_clear(region *r);
/* Free what a record owns and zero it (the loader's staging too). */
void line_profile_clear(line_profile *lp);
void perf_record_clear(perf_record *pr);

rank_data *profile_rank(const profile *p, int rank); /* by number, NULL if none */
region *rank_region(const rank_data *rk, const char *name);
/* The region and its call index for a rank call index (binary search). */
region *rank_call_region(const rank_data *rk, int64_t gidx, size_t *idx);
/* The index among rk's regions (in gidx0 order) of the first region whose
 * calls end after rank call g (nregions when none), and g's index in it in
 * *idx (0 when none; idx may be NULL): the sweeps that walk a lanes index
 * want the region's position, not the region. */
size_t rank_call_region_at(const rank_data *rk, size_t g, size_t *idx);

/* Builds rank_calls for every rank (parents, depths, exclusive times,
 * children).  Idempotent.  O(n log n) time, O(n) memory.  (finish.c) */
sv_err profile_ensure_calls(profile *p, sv_error *err);
void rank_calls_free(rank_calls *c);
/* Exclusive duration of rank call g: its duration less the union of its
 * direct children clipped to it (never negative), the same as the regions'
 * exclusive totals add up.  Needs rk->calls; O(children).  (nest.c) */
int64_t rank_call_excl(const rank_data *rk, size_t g);
/* The same within the time band [t0, t1): the part of the call inside it
 * less the union of its children's parts inside it (a flame graph of a
 * selection).  rank_call_excl is the band (INT64_MIN, INT64_MAX). */
int64_t rank_call_excl_in(const rank_data *rk, size_t g, int64_t t0, int64_t t1);
/* rank_call_excl_in of call i of region r whose children are kids[0, nk)
 * (rank_call_children's): for a pass over every call that meets the
 * families in order instead of searching each one.  O(nk).  (nest.c) */
int64_t rank_call_excl_kids(const rank_data *rk, const region *r, size_t i, const uint32_t *kids,
                            size_t nk, int64_t t0, int64_t t1);
/* The children of rank call g, ordered by start: *kids receives the
 * first (NULL when none); returns their number.  Needs rk->calls;
 * O(log calls).  (nest.c) */
size_t rank_call_children(const rank_data *rk, size_t g, const uint32_t **kids);
/* The same from a hint: *pos is where the search starts (SIZE_MAX: none)
 * and receives the family's end, so a pass that asks for calls in
 * ascending order (a hint kept per region when the regions interleave)
 * meets each family in a step or two.  O(log distance).  (nest.c) */
size_t rank_call_children_near(const rank_data *rk, size_t g, size_t *pos, const uint32_t **kids);
/* Number of ancestors of rank call g (0 for a root); O(depth). */
uint32_t rank_call_depth(const rank_data *rk, size_t g);

/* Ranks hold at most this many calls (call indices are 32-bit). */
#define SV_RANK_CALLS_MAX ((size_t)INT32_MAX)

const char *profile_meta(const profile *p, const char *key); /* text or NULL */

/* Display name of a thread / task row: the table's name, or "thread <row>" /
 * "task <row>".  Writes into buf (escaping is the caller's job). */
const char *rank_thread_name(const rank_data *rk, int64_t row, char *buf, size_t len);
const char *rank_task_name(const rank_data *rk, int64_t row, char *buf, size_t len);

#endif
