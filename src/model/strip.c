/* strip: see strip.h. */
#include "strip.h"

#include <stdlib.h>

#include "region.h"

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static bool strip_region(region *r)
{
    int64_t *rows = NULL;
    size_t nrows = 0;
    sv_error err;
    /* the thread list first: the columns are still there to make it */
    if (region_threads(r, &rows, &nrows, &err) != SV_OK)
        return false;
    uint32_t cols = (region_has_gpu_timing(r) ? SV_SCOL_GPU : 0) |
                    (region_has_await_data(r) ? SV_SCOL_AWAIT : 0) |
                    (region_has_thread_data(r) ? SV_SCOL_THREADS : 0) |
                    (region_has_task_data(r) ? SV_SCOL_TASKS : 0) |
                    (region_has_ids(r) ? SV_SCOL_IDS : 0);
    int64_t *colv[] = {r->start_ns,   r->end_ns,   r->call_ids, r->parent_ids,
                       r->thread_ids, r->task_ids, r->await_ns, r->gpu_ns};
    for (size_t k = 0; k < sizeof colv / sizeof *colv && !r->cols_shared; k++)
        free(colv[k]);
    r->cols_shared = false; /* the mapping stays the profile's */
    free_strv(r->event_meta, r->n);
    r->start_ns = r->end_ns = r->call_ids = r->parent_ids = NULL;
    r->thread_ids = r->task_ids = r->await_ns = r->gpu_ns = NULL;
    r->event_meta = NULL;
    r->n = 0;
    r->streamed = true;
    r->stream_cols = cols;
    free(r->stream_threads);
    r->stream_threads = rows;
    r->stream_nthreads = rows ? nrows : 0;
    return true;
}

void profile_strip_calls(profile *p)
{
    for (size_t i = 0; i < p->nregions; i++) {
        region *r = p->regions[i];
        if (r->has_event_data && !r->streamed && !r->own_excl_ns)
            (void)strip_region(r);
    }
}

sv_err strip_calls_prepare(void *ctx, profile **p, sv_error *err)
{
    (void)ctx;
    (void)err;
    profile_strip_calls(*p);
    return SV_OK;
}
