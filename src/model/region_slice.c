/* region_for_thread(): a region holding one thread's calls, every column
 * sliced with the same mask, as the Python API does. */
#include <stdlib.h>
#include <string.h>

#include "region.h"
#include "stats.h"
#include "util/text.h"

static bool slice_i64(const int64_t *src, const int64_t *thr, int64_t row, size_t n, size_t m,
                      int64_t **dst)
{
    *dst = NULL;
    if (!src)
        return true;
    *dst = malloc((m ? m : 1) * sizeof **dst);
    if (!*dst)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (thr[i] == row)
            (*dst)[k++] = src[i];
    return true;
}

static bool slice_str(char *const *src, const int64_t *thr, int64_t row, size_t n, size_t m,
                      char ***dst)
{
    *dst = NULL;
    if (!src)
        return true;
    *dst = calloc(m ? m : 1, sizeof **dst);
    if (!*dst)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (thr[i] == row && !((*dst)[k++] = strdup(src[i] ? src[i] : "")))
            return false;
    return true;
}

static bool copy_attrs(region *d, const region *r)
{
    d->has_lineno = r->has_lineno;
    d->source_lineno = r->source_lineno;
    d->has_stored_summary = r->has_stored_summary;
    d->stored = r->stored;
    if (r->source_file && !(d->source_file = strdup(r->source_file)))
        return false;
    if (r->source_text && !(d->source_text = strdup(r->source_text)))
        return false;
    if (r->ntags && !(d->tags = calloc(r->ntags, sizeof *d->tags)))
        return false;
    for (size_t i = 0; i < r->ntags; i++, d->ntags++)
        if (!(d->tags[i] = strdup(r->tags[i])))
            return false;
    return true;
}

static bool slice_columns(region *d, const region *r, int64_t row, size_t m)
{
    const int64_t *t = r->thread_ids;
    size_t n = r->n;
    bool ok = slice_i64(r->start_ns, t, row, n, m, &d->start_ns) &&
              slice_i64(r->end_ns, t, row, n, m, &d->end_ns) &&
              slice_i64(r->call_ids, t, row, n, m, &d->call_ids) &&
              slice_i64(r->parent_ids, t, row, n, m, &d->parent_ids) &&
              slice_i64(r->thread_ids, t, row, n, m, &d->thread_ids) &&
              slice_i64(r->task_ids, t, row, n, m, &d->task_ids) &&
              slice_i64(r->await_ns, t, row, n, m, &d->await_ns) &&
              slice_i64(r->gpu_ns, t, row, n, m, &d->gpu_ns);
    d->n = m; /* event_meta is freed with d->n entries */
    return ok && slice_str(r->event_meta, t, row, n, m, &d->event_meta);
}

static sv_err slice_exclusive(region *d, region *r, int64_t row, sv_error *err)
{
    int64_t *all;
    sv_err e = region_exclusive_durations_ns(r, &all, err);
    if (e)
        return e;
    bool ok = slice_i64(all, r->thread_ids, row, r->n, d->n, &d->own_excl_ns);
    free(all);
    if (!ok)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    d->st.exclusive_total_ns = 0;
    for (size_t i = 0; i < d->n; i++)
        d->st.exclusive_total_ns += d->own_excl_ns[i];
    return SV_OK;
}

sv_err region_for_thread(region *r, int64_t row, region **out, sv_error *err)
{
    *out = NULL;
    char name[160];
    if (!r->thread_ids) {
        text_escape_buf(name, sizeof name, r->name);
        return sv_error_set(err, SV_ERR_NO_THREADS,
                            "rank %d: region %s: no thread column (the run did not track threads)",
                            r->rank, name);
    }
    size_t m = 0;
    for (size_t i = 0; i < r->n; i++)
        m += r->thread_ids[i] == row;
    region *d = calloc(1, sizeof *d);
    if (!d || !(d->name = strdup(r->name))) {
        free(d);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    d->rank = r->rank;
    d->owner = r->owner;
    d->has_event_data = r->has_event_data;
    sv_err e = SV_OK;
    if (!copy_attrs(d, r) || !slice_columns(d, r, row, m))
        e = sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    if (!e)
        e = slice_exclusive(d, r, row, err);
    if (!e)
        e = stats_compute_region(d, err);
    if (e) {
        region_free(d);
        return e;
    }
    *out = d;
    return SV_OK;
}
