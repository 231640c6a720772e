#include "region.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util/text.h"

const char *const region_stat_names[RSTAT_COUNT] = {
    [RSTAT_TOTAL] = "total_duration",
    [RSTAT_MEAN] = "average_duration",
    [RSTAT_MIN] = "min_duration",
    [RSTAT_MAX] = "max_duration",
    [RSTAT_STD] = "std_duration",
    [RSTAT_FIRST] = "first_duration",
    [RSTAT_LAST] = "last_duration",
    [RSTAT_P50] = "p50_duration",
    [RSTAT_P95] = "p95_duration",
    [RSTAT_P99] = "p99_duration",
    [RSTAT_FIRST_START] = "first_start_time",
    [RSTAT_LAST_END] = "last_end_time",
    [RSTAT_INCLUSIVE] = "inclusive_duration",
    [RSTAT_EXCLUSIVE] = "total_exclusive_duration",
    [RSTAT_GPU_TOTAL] = "gpu_total_duration",
    [RSTAT_GPU_MEAN] = "gpu_average_duration",
    [RSTAT_AWAIT_TOTAL] = "total_await_duration",
};

/* Which stored-summary key answers each statistic for summary-only regions. */
static const int stat_summary_key[RSTAT_COUNT] = {
    [RSTAT_TOTAL] = SUM_TOTAL,
    [RSTAT_MEAN] = SUM_MEAN,
    [RSTAT_MIN] = SUM_MIN,
    [RSTAT_MAX] = SUM_MAX,
    [RSTAT_STD] = SUM_STD,
    [RSTAT_FIRST] = SUM_FIRST,
    [RSTAT_LAST] = SUM_LAST,
    [RSTAT_P50] = SUM_P50,
    [RSTAT_P95] = SUM_P95,
    [RSTAT_P99] = SUM_P99,
    [RSTAT_FIRST_START] = SUM_FIRST_START,
    [RSTAT_LAST_END] = SUM_LAST_END,
    [RSTAT_INCLUSIVE] = SUM_TOTAL,
    [RSTAT_EXCLUSIVE] = SUM_EXCLUSIVE_TOTAL,
    [RSTAT_GPU_TOTAL] = SUM_GPU_TOTAL,
    [RSTAT_GPU_MEAN] = -1,
    [RSTAT_AWAIT_TOTAL] = SUM_AWAIT_TOTAL,
};

static bool stored_stat_ns(const region *r, region_stat_id id, double *ns)
{
    const region_summary *s = &r->stored;
    if (!r->has_stored_summary)
        return false;
    if (id == RSTAT_GPU_MEAN) {
        /* Derivable only when the summary says every call was GPU-timed. */
        return false;
    }
    if (id == RSTAT_MEAN && !(s->known & (1u << SUM_MEAN)) && (s->known & (1u << SUM_TOTAL)) &&
        (s->known & (1u << SUM_NUM_CALLS)) && s->v[SUM_NUM_CALLS] > 0) {
        *ns = s->v[SUM_TOTAL] / s->v[SUM_NUM_CALLS];
        return true;
    }
    int k = stat_summary_key[id];
    if (k < 0 || !(s->known & (1u << k)))
        return false;
    *ns = s->v[k];
    return true;
}

static bool event_stat_ns(const region *r, region_stat_id id, double *ns)
{
    const region_stats *st = &r->st;
    switch (id) {
    case RSTAT_TOTAL:
    case RSTAT_INCLUSIVE:
        *ns = (double)st->total_ns;
        return true;
    case RSTAT_MEAN:
        *ns = st->mean_ns;
        return true;
    case RSTAT_MIN:
        *ns = (double)st->min_ns;
        return true;
    case RSTAT_MAX:
        *ns = (double)st->max_ns;
        return true;
    case RSTAT_STD:
        *ns = st->std_ns;
        return true;
    case RSTAT_FIRST:
        *ns = (double)st->first_ns;
        return true;
    case RSTAT_LAST:
        *ns = (double)st->last_ns;
        return true;
    case RSTAT_P50:
        *ns = st->p50_ns;
        return true;
    case RSTAT_P95:
        *ns = st->p95_ns;
        return true;
    case RSTAT_P99:
        *ns = st->p99_ns;
        return true;
    case RSTAT_FIRST_START:
        *ns = (double)st->first_start_ns;
        return true;
    case RSTAT_LAST_END:
        *ns = (double)st->last_end_ns;
        return true;
    case RSTAT_EXCLUSIVE:
        *ns = (double)st->exclusive_total_ns;
        return !r->stream_excl_unknown;
    case RSTAT_GPU_TOTAL:
        *ns = (double)st->gpu_total_ns;
        return region_has_gpu_timing(r);
    case RSTAT_GPU_MEAN:
        if (!region_has_gpu_timing(r) || st->gpu_count == 0)
            return false;
        *ns = (double)st->gpu_total_ns / (double)st->gpu_count;
        return true;
    case RSTAT_AWAIT_TOTAL:
        *ns = (double)st->await_total_ns;
        return region_has_await_data(r);
    default:
        return false;
    }
}

bool region_stat_ns(const region *r, region_stat_id id, double *ns)
{
    if ((unsigned)id >= RSTAT_COUNT)
        return false;
    if (!r->has_event_data)
        return stored_stat_ns(r, id, ns);
    return event_stat_ns(r, id, ns);
}

bool region_stat(const region *r, region_stat_id id, double *seconds)
{
    double ns;
    if (!region_stat_ns(r, id, &ns))
        return false;
    *seconds = ns / SV_NS_PER_SECOND;
    return true;
}

/* The Python properties report 0.0 where a statistic is unknown, except the
 * few declared Optional (GPU and await), which have their own functions. */
static double stat_or_zero(const region *r, region_stat_id id)
{
    double s = 0.0;
    return region_stat(r, id, &s) ? s : 0.0;
}

bool region_has_timing(const region *r)
{
    return region_num_calls(r) > 0;
}

/* A streamed region (out-of-core) keeps no columns: stream_cols says which it had. */
static bool streamed_col(const region *r, uint32_t bit)
{
    return r->streamed && (r->stream_cols & bit);
}

bool region_has_thread_data(const region *r)
{
    return r->thread_ids != NULL || streamed_col(r, SV_SCOL_THREADS);
}

bool region_has_task_data(const region *r)
{
    return r->task_ids != NULL || streamed_col(r, SV_SCOL_TASKS);
}

bool region_has_await_data(const region *r)
{
    return r->await_ns != NULL || streamed_col(r, SV_SCOL_AWAIT);
}

bool region_has_gpu_timing(const region *r)
{
    return r->gpu_ns != NULL || streamed_col(r, SV_SCOL_GPU);
}

bool region_has_source(const region *r)
{
    return r->source_text != NULL;
}

bool region_has_ids(const region *r)
{
    return (r->call_ids != NULL && r->parent_ids != NULL) || streamed_col(r, SV_SCOL_IDS);
}

int64_t region_num_calls(const region *r)
{
    if (r->has_event_data && r->streamed)
        return r->st.num_calls;
    if (r->has_event_data)
        return (int64_t)r->n;
    if (r->has_stored_summary && (r->stored.known & (1u << SUM_NUM_CALLS)))
        return (int64_t)r->stored.v[SUM_NUM_CALLS];
    return 0;
}

double region_total_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_TOTAL);
}

double region_average_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_MEAN);
}

double region_min_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_MIN);
}

double region_max_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_MAX);
}

double region_std_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_STD);
}

double region_first_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_FIRST);
}

double region_last_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_LAST);
}

double region_first_start_time(const region *r)
{
    return stat_or_zero(r, RSTAT_FIRST_START);
}

double region_last_end_time(const region *r)
{
    return stat_or_zero(r, RSTAT_LAST_END);
}

double region_inclusive_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_INCLUSIVE);
}

double region_total_exclusive_duration(const region *r)
{
    return stat_or_zero(r, RSTAT_EXCLUSIVE);
}

bool region_gpu_total_duration(const region *r, double *s)
{
    return region_stat(r, RSTAT_GPU_TOTAL, s);
}

bool region_gpu_average_duration(const region *r, double *s)
{
    return region_stat(r, RSTAT_GPU_MEAN, s);
}

bool region_total_await_duration(const region *r, double *s)
{
    return region_stat(r, RSTAT_AWAIT_TOTAL, s);
}

static sv_err need_events(const region *r, sv_error *err)
{
    if (r->has_event_data)
        return SV_OK;
    char name[160];
    text_escape_buf(name, sizeof name, r->name);
    return sv_error_set(err, SV_ERR_NO_EVENT_DATA,
                        "%s: rank %d: region %s: event data unavailable (summary-only result)",
                        r->owner && r->owner->owner ? r->owner->owner->path : "?", r->rank, name);
}

sv_err region_percentile_duration(const region *r, double pct, double *s, sv_error *err)
{
    if (!(pct >= 0.0 && pct <= 100.0))
        return sv_error_set(err, SV_ERR_RANGE, "percentile %g is outside [0, 100]", pct);
    sv_err e = need_events(r, err);
    if (e)
        return e;
    int64_t *d;
    if ((e = region_durations_ns(r, &d, err)))
        return e;
    *s = stats_percentile_inplace(d, r->n, pct) / SV_NS_PER_SECOND;
    free(d);
    return SV_OK;
}

static sv_err alloc_n(const region *r, size_t size, void **out, sv_error *err)
{
    *out = malloc((r->n ? r->n : 1) * size);
    if (!*out)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory for %zu calls", r->n);
    return SV_OK;
}

sv_err region_durations_ns(const region *r, int64_t **out, sv_error *err)
{
    sv_err e = need_events(r, err);
    if (!e)
        e = alloc_n(r, sizeof **out, (void **)out, err);
    if (e)
        return e;
    for (size_t i = 0; i < r->n; i++)
        (*out)[i] = r->end_ns[i] - r->start_ns[i];
    return SV_OK;
}

/* A column in seconds: col[i] - sub[i] when sub is given. */
static sv_err seconds_of(const region *r, const int64_t *col, const int64_t *sub, double **out,
                         sv_error *err)
{
    sv_err e = need_events(r, err);
    if (!e)
        e = alloc_n(r, sizeof **out, (void **)out, err);
    if (e)
        return e;
    for (size_t i = 0; i < r->n; i++)
        (*out)[i] = (double)(col[i] - (sub ? sub[i] : 0)) / SV_NS_PER_SECOND;
    return SV_OK;
}

sv_err region_durations(const region *r, double **out, sv_error *err)
{
    return seconds_of(r, r->end_ns, r->start_ns, out, err);
}

sv_err region_start_times(const region *r, double **out, sv_error *err)
{
    return seconds_of(r, r->start_ns, NULL, out, err);
}

sv_err region_end_times(const region *r, double **out, sv_error *err)
{
    return seconds_of(r, r->end_ns, NULL, out, err);
}

sv_err region_gpu_durations(const region *r, double **out, sv_error *err)
{
    *out = NULL;
    sv_err e = need_events(r, err);
    if (e || !r->gpu_ns)
        return e;
    return seconds_of(r, r->gpu_ns, NULL, out, err);
}

sv_err region_await_times(const region *r, double **out, sv_error *err)
{
    *out = NULL;
    sv_err e = need_events(r, err);
    if (e || !r->await_ns)
        return e;
    return seconds_of(r, r->await_ns, NULL, out, err);
}

sv_err region_exclusive_durations_ns(region *r, int64_t **out, sv_error *err)
{
    sv_err e = need_events(r, err);
    if (e)
        return e;
    const int64_t *src = r->own_excl_ns;
    if (!src) {
        if (!r->owner || !r->owner->owner)
            return sv_error_set(err, SV_ERR_RANGE, "region has no profile");
        if ((e = profile_ensure_calls(r->owner->owner, err)))
            return e;
    }
    if ((e = alloc_n(r, sizeof **out, (void **)out, err)))
        return e;
    for (size_t i = 0; i < r->n; i++)
        (*out)[i] = src ? src[i] : rank_call_excl(r->owner, r->gidx0 + i);
    return SV_OK;
}

sv_err region_exclusive_durations(region *r, double **out, sv_error *err)
{
    int64_t *ns;
    sv_err e = region_exclusive_durations_ns(r, &ns, err);
    if (e)
        return e;
    *out = malloc((r->n ? r->n : 1) * sizeof **out);
    if (!*out) {
        free(ns);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < r->n; i++)
        (*out)[i] = (double)ns[i] / SV_NS_PER_SECOND;
    free(ns);
    return SV_OK;
}

sv_err region_start_times_ns(const region *r, const int64_t **out, sv_error *err)
{
    sv_err e = need_events(r, err);
    *out = e ? NULL : r->start_ns;
    return e;
}

sv_err region_end_times_ns(const region *r, const int64_t **out, sv_error *err)
{
    sv_err e = need_events(r, err);
    *out = e ? NULL : r->end_ns;
    return e;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Thread rows are small table indices, so a presence map over their range
 * replaces a sort of the whole column; a wide range falls back to sorting. */
static size_t distinct_by_map(const int64_t *col, size_t n, int64_t lo, size_t span, int64_t *out)
{
    unsigned char *seen = calloc(span, 1);
    if (!seen)
        return (size_t)-1;
    for (size_t i = 0; i < n; i++)
        seen[col[i] - lo] = 1;
    size_t k = 0;
    for (size_t j = 0; j < span; j++)
        if (seen[j])
            out[k++] = lo + (int64_t)j;
    free(seen);
    return k;
}

static size_t distinct_by_sort(const int64_t *col, size_t n, int64_t *v)
{
    memcpy(v, col, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_i64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

sv_err region_threads(const region *r, int64_t **rows, size_t *count, sv_error *err)
{
    *rows = NULL;
    *count = 0;
    if (r->streamed && r->stream_nthreads) { /* out-of-core: the list the stream kept */
        *rows = malloc(r->stream_nthreads * sizeof **rows);
        if (!*rows)
            return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
        memcpy(*rows, r->stream_threads, r->stream_nthreads * sizeof **rows);
        *count = r->stream_nthreads;
        return SV_OK;
    }
    if (!r->thread_ids || r->n == 0)
        return SV_OK;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < r->n; i++) {
        lo = r->thread_ids[i] < lo ? r->thread_ids[i] : lo;
        hi = r->thread_ids[i] > hi ? r->thread_ids[i] : hi;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    int64_t *v = malloc(r->n * sizeof *v); /* n >= the number of distinct rows */
    if (!v)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    size_t k = span <= (1u << 20) ? distinct_by_map(r->thread_ids, r->n, lo, span, v) : (size_t)-1;
    if (k == (size_t)-1)
        k = distinct_by_sort(r->thread_ids, r->n, v);
    *rows = v;
    *count = k;
    return SV_OK;
}

sv_err region_events(const region *r, double origin_s, region_event **out, size_t *count,
                     sv_error *err)
{
    sv_err e = need_events(r, err);
    if (!e)
        e = alloc_n(r, sizeof **out, (void **)out, err);
    if (e)
        return e;
    for (size_t i = 0; i < r->n; i++) {
        region_event ev = {i, (double)r->start_ns[i] / SV_NS_PER_SECOND - origin_s,
                           (double)r->end_ns[i] / SV_NS_PER_SECOND - origin_s,
                           (double)(r->end_ns[i] - r->start_ns[i]) / SV_NS_PER_SECOND};
        (*out)[i] = ev;
    }
    *count = r->n;
    return SV_OK;
}

sv_err region_get_summary(const region *r, region_summary_dict *out, sv_error *err)
{
    (void)err;
    out->num_calls = region_num_calls(r);
    out->total_duration = region_total_duration(r);
    out->average_duration = region_average_duration(r);
    out->min_duration = region_min_duration(r);
    out->max_duration = region_max_duration(r);
    out->first_duration = region_first_duration(r);
    out->last_duration = region_last_duration(r);
    out->std_duration = region_std_duration(r);
    return SV_OK;
}

const region_summary *region_stored_summary(const region *r)
{
    return r->has_stored_summary ? &r->stored : NULL;
}
