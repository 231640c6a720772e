/* load_aggregate: storage_layout "aggregate" (doc/FORMAT.md, "The aggregate layout"):
 * one summary per (region, rank) from the aggregate_* index columns, no
 * events.  The layout's other index and /events columns exist with 0 rows;
 * they are not read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_internal.h"

enum { AG_COUNT, AG_TOTAL, AG_MIN, AG_MAX, AG_EXCL, AG_N };

static const char *const ag_cols[AG_N] = {"aggregate_counts", "aggregate_totals",
                                          "aggregate_minimums", "aggregate_maximums",
                                          "aggregate_exclusives"};
static const int ag_keys[AG_N] = {SUM_NUM_CALLS, SUM_TOTAL, SUM_MIN, SUM_MAX, SUM_EXCLUSIVE_TOTAL};

static sv_err commit_row(ld_ctx *c, ld_index *ix, int64_t *const *v, size_t i)
{
    rank_data *rk = ld_rank(c, ix->rank[i]);
    if (!rk)
        return SV_ERR_NOMEM;
    region t;
    memset(&t, 0, sizeof t);
    t.has_stored_summary = true;
    for (int k = 0; k < AG_N; k++) {
        if (!v[k])
            continue;
        t.stored.known |= 1u << ag_keys[k];
        t.stored.v[ag_keys[k]] = (double)v[k][i];
    }
    if (v[AG_EXCL]) {
        t.has_stored_exclusive = true;
        t.stored_exclusive_ns = v[AG_EXCL][i];
    }
    sv_err e = ld_stage_commit(rk, ix->names.v[ix->rid[i]], &t);
    region_clear(&t);
    return e;
}

sv_err ld_load_aggregate(ld_ctx *c, hid_t f, ld_index *ix)
{
    int64_t *v[AG_N] = {NULL};
    sv_err e = SV_OK;
    for (int k = 0; !e && k < AG_N; k++) {
        char path[96];
        snprintf(path, sizeof path, "rank_region_index/%s", ag_cols[k]);
        if (H5Lexists(f, path, H5P_DEFAULT) <= 0) {
            H5Eclear2(H5E_DEFAULT);
            ld_warn(c, NULL, "dataset", path, "missing");
            continue;
        }
        e = ld_read_i64_col(c, f, path, ix->P, &v[k], NULL);
    }
    if (!e && !v[AG_COUNT])
        ld_warn(c, NULL, "dataset", "rank_region_index/aggregate_counts",
                "unusable; regions dropped");
    for (size_t i = 0; !e && v[AG_COUNT] && i < ix->P; i++) {
        if (!ix->keep[i])
            continue;
        if (v[AG_COUNT][i] < 0) {
            ld_warn(c, ix->names.v[ix->rid[i]], "dataset", "rank_region_index/aggregate_counts",
                    "rank %d: count %llu beyond 2^63; row dropped", ix->rank[i],
                    (unsigned long long)(uint64_t)v[AG_COUNT][i]);
            continue;
        }
        e = commit_row(c, ix, v, i);
    }
    for (int k = 0; k < AG_N; k++)
        free(v[k]);
    return e;
}
