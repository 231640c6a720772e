/* isolate_defer: the viewer's loading child sends the model before its
 * statistics (isolate_defer.h).
 *
 * Statistics, percentiles and exclusive totals are most of the child's
 * work after the read; the viewer's first frame needs none of them.  So
 * the model crosses as soon as it is sorted and numbered (its columns
 * lent to the pipe and kept: the statistics read them next), then the
 * child finishes the profile exactly as profile_finish would and sends
 * what that added.  Installed in the parent, the model is byte for byte an
 * in-process load's (test_wire_stats).
 *
 * What the statistics could change in the model itself is done before it
 * is sent: dropping a region whose durations leave the int64 range, and
 * minimum_start_time. */
#include "isolate_defer.h"

#include <stdlib.h>
#include <unistd.h>

#include "model/sanity.h"
#include "model/stats.h"
#include "util/text.h"
#include "wire.h"
#include "wire_stats.h"

static int64_t col_min(const int64_t *v, size_t n)
{
    int64_t m = INT64_MAX;
    for (size_t i = 0; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

typedef struct defer_min {
    bool has;
    int64_t v;
} defer_min;

/* minimum_start_time as profile_finish and the loader set it: the
 * smallest start of a call (`calls`: the kept regions' smallest, from
 * defer_drop_overflows' pass; NULL: computed here), else the smallest
 * stored first start of a summary-only region. */
static void defer_min_start(profile *p, const defer_min *calls)
{
    p->has_min_start = calls && calls->has;
    p->min_start_ns = calls && calls->has ? calls->v : p->min_start_ns;
    for (size_t i = 0; !calls && i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (!r->has_event_data || r->n == 0)
            continue;
        int64_t m = col_min(r->start_ns, r->n);
        if (!p->has_min_start || m < p->min_start_ns)
            p->min_start_ns = m;
        p->has_min_start = true;
    }
    profile_stored_min_start(p);
}

/* The loader keeps end >= start, so only a call starting before 0 can
 * last past 2^63 ns: those regions get their statistics now, and are
 * dropped as compute_rank_stats (finish.c) would, with its warning. */
static sv_err defer_drop_overflows(profile *p, defer_min *min_start, sv_error *err)
{
    bool dropped = false;
    *min_start = (defer_min){false, 0}; /* the kept calls' smallest start, for defer_min_start */
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &p->ranks[i];
        size_t keep = 0;
        for (size_t j = 0; j < rk->nregions; j++) {
            region *r = rk->regions[j];
            sv_error e1;
            sv_err e = SV_OK;
            bool calls = r->has_event_data && r->n;
            int64_t m = calls ? col_min(r->start_ns, r->n) : 0;
            if (calls && m < 0)
                e = stats_compute_region(r, &e1);
            if (e == SV_ERR_NOMEM)
                return sv_error_set(err, e, "%s: %s", p->path, e1.msg);
            if (e) {
                char name[160];
                text_escape_buf(name, sizeof name, r->name);
                profile_warn(p, "%s: rank %d: region %s: %s; region dropped", p->path, rk->rank,
                             name, e1.msg);
                region_free(r);
                dropped = true;
                continue;
            }
            rk->regions[keep++] = r;
            if (calls && (!min_start->has || m < min_start->v))
                *min_start = (defer_min){true, m};
        }
        rk->nregions = keep;
    }
    /* Numbering and the region list again, without the dropped ones. */
    return dropped ? profile_finish_steps(p, false, false, err) : SV_OK;
}

/* The statistics of the model sent: the same regions in the same order. */
static sv_err defer_finish(profile *p, region **sent, size_t nsent, sv_error *err)
{
    sv_err e = profile_finish_steps(p, true, true, err);
    if (e)
        return e;
    bool same = p->nregions == nsent;
    for (size_t i = 0; same && i < nsent; i++)
        same = p->regions[i] == sent[i];
    if (!same)
        return sv_error_set(err, SV_ERR_DAMAGED,
                            "%s: a region was dropped after the profile was shown; reopen it",
                            p->path);
    if (!p->has_min_start)
        defer_min_start(p, NULL); /* a summary-only profile: the stored first starts */
    profile_check_values(p);
    return SV_OK;
}

int isolate_defer_send(profile *p, sv_err e, sv_error *err, int data_fd, int tail_fd, int shm_sock)
{
    defer_min min_start = {false, 0};
    if (!e)
        e = defer_drop_overflows(p, &min_start, err);
    if (e)
        return wire_send_error(data_fd, err);
    defer_min_start(p, &min_start);
    if (tail_fd < 0) /* the viewer computes them (stats_local.h): columns released as they go */
        return wire_send_profile_shm(data_fd, shm_sock, p, true, NULL);
    size_t nsent = p->nregions, warn_from = p->nwarnings;
    region **sent = malloc((nsent ? nsent : 1) * sizeof *sent);
    if (!sent)
        return wire_send_error(data_fd, &(sv_error){SV_ERR_NOMEM, "out of memory"});
    for (size_t i = 0; i < nsent; i++)
        sent[i] = p->regions[i];
    /* Not wire_send_profile_final: the statistics read the columns next. */
    int wr = wire_send_profile_shm(data_fd, shm_sock, p, false, NULL);
    close(data_fd);
    if (wr)
        return wr;
    e = defer_finish(p, sent, nsent, err);
    free(sent);
    return e ? wire_send_error(tail_fd, err) : wire_send_stats(tail_fd, p, warn_from);
}
