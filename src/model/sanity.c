/* sanity: see sanity.h. */
#include "sanity.h"

#include <stdint.h>
#include <stdio.h>

#include "util/text.h"

static void warn_region(profile *p, const region *r, const char *what)
{
    char name[160];
    text_escape_buf(name, sizeof name, r->name);
    profile_warn(p, "%s: rank %d: region %s: %s", p->path, r->rank, name, what);
}

static bool stored(const region *r, summary_key k, double *v)
{
    if (!r->has_stored_summary || !(r->stored.known & (1u << k)))
        return false;
    *v = r->stored.v[k];
    return true;
}

static void check_summary(profile *p, const region *r)
{
    double v, a, b;
    if (stored(r, SUM_NUM_CALLS, &v) && v < 0)
        warn_region(p, r, "stored summary: num_calls is negative; shown as stored");
    if (stored(r, SUM_STD, &v) && v < 0)
        warn_region(p, r, "stored summary: std_ns is negative; shown as stored");
    if (stored(r, SUM_TOTAL, &v) && v < 0)
        warn_region(p, r, "stored summary: total_ns is negative; shown as stored");
    if (stored(r, SUM_FIRST_START, &a) && stored(r, SUM_LAST_END, &b) && a > b)
        warn_region(p, r, "stored summary: first_start_ns is after last_end_ns; shown as stored");
    if (stored(r, SUM_MIN, &a) && stored(r, SUM_MAX, &b) && a > b)
        warn_region(p, r, "stored summary: min_ns is above max_ns; shown as stored");
}

static bool has_max(const int64_t *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        if (v[i] == INT64_MAX)
            return true;
    return false;
}

static void check_columns(profile *p, const region *r)
{
    const int64_t *cols[] = {r->start_ns, r->end_ns, r->await_ns, r->gpu_ns};
    /* The datasets as the file names them: schema 3 stores start deltas and
     * durations, summed into the times that reach the limit. */
    static const char *const names[2][4] = {
        {"start_times", "end_times", "await_times", "gpu_durations"},
        {"start_deltas", "durations", "await_ns", "gpu_durations"},
    };
    const char *const *nm = names[p->schema >= 3];
    for (size_t k = 0; k < 4; k++) {
        if (!has_max(cols[k], r->n))
            continue;
        char what[240];
        snprintf(what, sizeof what,
                 "dataset %s: a time reaches 9223372036854775807 ns (2^63 - 1), the largest one "
                 "held: a larger one in the file, or a sum past it, is clamped to it; times may "
                 "be wrong",
                 nm[k]);
        warn_region(p, r, what);
    }
}

void profile_check_values(profile *p)
{
    for (size_t i = 0; i < p->nregions; i++) {
        check_summary(p, p->regions[i]);
        check_columns(p, p->regions[i]);
    }
}
