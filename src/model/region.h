/* region: the C mirror of Python's scope_profiler.region.Region.
 *
 * Same meaning, units and edge cases as region-api.md.  Properties in
 * seconds return double; *_ns ones return integers.  A statistic that may be
 * unknown (summary-only regions, absent columns) is returned through an out
 * parameter with a bool "known" result, the C spelling of Python's None.
 *
 * Per-call arrays (durations, start times, ...) are returned as freshly
 * allocated arrays of n elements that the caller frees, or as const pointers
 * into the model where the column is stored as-is.  Asking a summary-only
 * region for per-call data fails with SV_ERR_NO_EVENT_DATA, the
 * EventDataUnavailableError of the Python API. */
#ifndef SV_REGION_H
#define SV_REGION_H

#include "profile.h"

#define SV_NS_PER_SECOND 1000000000.0

/* Statistics that outputs iterate over; see region_stat(). */
typedef enum region_stat_id {
    RSTAT_TOTAL,
    RSTAT_MEAN,
    RSTAT_MIN,
    RSTAT_MAX,
    RSTAT_STD,
    RSTAT_FIRST,
    RSTAT_LAST,
    RSTAT_P50,
    RSTAT_P95,
    RSTAT_P99,
    RSTAT_FIRST_START,
    RSTAT_LAST_END,
    RSTAT_INCLUSIVE,
    RSTAT_EXCLUSIVE,
    RSTAT_GPU_TOTAL,
    RSTAT_GPU_MEAN,
    RSTAT_AWAIT_TOTAL,
    RSTAT_COUNT
} region_stat_id;

/* Python property name of each statistic ("total_duration", ...). */
extern const char *const region_stat_names[RSTAT_COUNT];

/* A statistic in seconds.  Returns false (value untouched) when unknown:
 * a summary-only region whose summary lacks it, or an absent column. */
bool region_stat(const region *r, region_stat_id id, double *seconds);
/* The same in nanoseconds (percentiles and means may be fractional). */
bool region_stat_ns(const region *r, region_stat_id id, double *ns);

/* --- flags --- */
bool region_has_timing(const region *r); /* num_calls > 0 */
bool region_has_thread_data(const region *r);
bool region_has_task_data(const region *r);
bool region_has_await_data(const region *r);
bool region_has_gpu_timing(const region *r);
bool region_has_source(const region *r); /* source_text captured */
bool region_has_ids(const region *r);    /* call_ids and parent_ids */

/* --- scalar statistics (seconds), as the Python properties --- */
int64_t region_num_calls(const region *r); /* stored num_calls for summary-only, 0 if unknown */
double region_total_duration(const region *r);
double region_average_duration(const region *r);
double region_min_duration(const region *r);
double region_max_duration(const region *r);
double region_std_duration(const region *r);
double region_first_duration(const region *r);
double region_last_duration(const region *r);
double region_first_start_time(const region *r);
double region_last_end_time(const region *r);
double region_inclusive_duration(const region *r);
double region_total_exclusive_duration(const region *r); /* alias: exclusive_duration */
bool region_gpu_total_duration(const region *r, double *s);
bool region_gpu_average_duration(const region *r, double *s);
bool region_total_await_duration(const region *r, double *s);

/* numpy.percentile(durations, pct) with linear interpolation, seconds.
 * SV_ERR_RANGE outside [0, 100]; 0.0 for an empty region;
 * SV_ERR_NO_EVENT_DATA for summary-only regions. */
sv_err region_percentile_duration(const region *r, double pct, double *s, sv_error *err);

/* --- per-call arrays: malloc'ed, n elements, caller frees --- */
sv_err region_durations_ns(const region *r, int64_t **out, sv_error *err);
sv_err region_durations(const region *r, double **out, sv_error *err);
sv_err region_start_times(const region *r, double **out, sv_error *err);
sv_err region_end_times(const region *r, double **out, sv_error *err);
sv_err region_gpu_durations(const region *r, double **out, sv_error *err); /* NULL out if absent */
sv_err region_await_times(const region *r, double **out, sv_error *err);   /* NULL out if absent */
/* Exclusive durations of every call (builds the rank's nesting on demand). */
sv_err region_exclusive_durations_ns(region *r, int64_t **out, sv_error *err);
sv_err region_exclusive_durations(region *r, double **out, sv_error *err);

/* Stored columns without a copy (NULL when absent); n = r->n. */
sv_err region_start_times_ns(const region *r, const int64_t **out, sv_error *err);
sv_err region_end_times_ns(const region *r, const int64_t **out, sv_error *err);

/* Sorted distinct thread-table rows, malloc'ed (NULL, 0 when none). */
sv_err region_threads(const region *r, int64_t **rows, size_t *count, sv_error *err);

/* A new region holding only the calls of one thread: every column sliced
 * with the same mask, statistics recomputed.  SV_ERR_NO_THREADS without a
 * thread column.  Free with region_free(). */
sv_err region_for_thread(region *r, int64_t thread_row, region **out, sv_error *err);

/* One event of events(origin): seconds, recorded order. */
typedef struct region_event {
    size_t call_index;
    double start, end, duration;
} region_event;
sv_err region_events(const region *r, double origin_s, region_event **out, size_t *count,
                     sv_error *err);

/* get_summary(): the Python dict's keys, seconds. */
typedef struct region_summary_dict {
    int64_t num_calls;
    double total_duration, average_duration, min_duration, max_duration;
    double first_duration, last_duration, std_duration;
} region_summary_dict;
sv_err region_get_summary(const region *r, region_summary_dict *out, sv_error *err);

/* Stored summary (stored_summary), or NULL when the file had none. */
const region_summary *region_stored_summary(const region *r);

#endif
