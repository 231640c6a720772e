/* stats_local: the statistics computed in the viewer on a shallow copy
 * (stats_local.h). */
#include "stats_local.h"

#include <stdlib.h>
#include <string.h>

#include "model/nest_share.h"
#include "model/sanity.h"
#include "model/warncap.h"

/* The copy; prof first, so the block is freed through it. */
struct stats_local {
    profile prof;
    region *copies; /* n, in p->regions order: the index maps back */
    size_t n;
    bool has_min_start; /* p's, set in the child before sending */
    int64_t min_start_ns;
};

stats_local *stats_local_new(const profile *p)
{
    stats_local *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    profile *v = &c->prof;
    *v = *p;
    /* What finish writes is the copy's own: sorted arrays, warnings, flags.
     * The metadata is not needed, and p's is sorted in place by finish. */
    v->meta = NULL;
    v->nmeta = 0;
    v->warnings = NULL;
    v->nwarnings = v->nwarnings_cap = 0;
    v->warn_kinds = NULL;
    v->nest_given = NULL;
    v->ranks = calloc(p->nranks ? p->nranks : 1, sizeof *v->ranks);
    v->regions = calloc(p->nregions ? p->nregions : 1, sizeof *v->regions);
    c->copies = calloc(p->nregions ? p->nregions : 1, sizeof *c->copies);
    c->n = p->nregions;
    c->has_min_start = p->has_min_start;
    c->min_start_ns = p->min_start_ns;
    v->ranks_cap = p->nranks;
    if (!v->ranks || !v->regions || !c->copies) {
        stats_local_free(c);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &v->ranks[i];
        *rk = p->ranks[i];
        rk->owner = v;
        rk->calls = NULL;
        rk->regions = calloc(rk->nregions ? rk->nregions : 1, sizeof *rk->regions);
        rk->regions_cap = rk->nregions;
        if (!rk->regions) {
            rk->nregions = 0;
            stats_local_free(c);
            return NULL;
        }
        for (size_t j = 0; j < rk->nregions && k < c->n; j++, k++) {
            region *r = &c->copies[k];
            *r = *p->regions[k];
            r->owner = rk;
            memset(&r->st, 0, sizeof r->st);
            rk->regions[j] = r;
            v->regions[k] = r;
        }
    }
    return c;
}

void stats_local_share(stats_local *c, nest_share *sh)
{
    nest_share_unref(c->prof.nest_given);
    c->prof.nest_given = nest_share_ref(sh);
}

void stats_local_free(stats_local *c)
{
    if (!c)
        return;
    profile *v = &c->prof;
    nest_share_unref(v->nest_given);
    for (size_t i = 0; v->ranks && i < v->nranks; i++)
        free(v->ranks[i].regions);
    free(v->ranks);
    free(v->regions);
    for (size_t i = 0; i < v->nwarnings; i++)
        free(v->warnings[i]);
    free(v->warnings);
    warn_cap_free(v);
    free(c->copies);
    free(c);
}

/* The copy's results, in p's region order. */
static wire_stats *stats_local_result(stats_local *c)
{
    profile *v = &c->prof;
    wire_stats *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nregions = c->n;
    s->nranks = v->nranks;
    s->st = calloc(c->n ? c->n : 1, sizeof *s->st);
    s->explicit_ids = calloc(v->nranks ? v->nranks : 1, sizeof *s->explicit_ids);
    s->ninferred_lanes = calloc(v->nranks ? v->nranks : 1, sizeof *s->ninferred_lanes);
    if (!s->st || !s->explicit_ids || !s->ninferred_lanes) {
        wire_stats_free(s);
        return NULL;
    }
    for (size_t i = 0; i < c->n; i++)
        s->st[i] = c->copies[i].st;
    for (size_t i = 0; i < v->nranks; i++) {
        s->explicit_ids[i] = v->ranks[i].explicit_ids;
        s->ninferred_lanes[i] = v->ranks[i].ninferred_lanes;
    }
    /* The child set the minimum start before sending (isolate_defer.c). */
    s->has_min_start = c->has_min_start;
    s->min_start_ns = c->min_start_ns;
    s->warnings = v->warnings; /* moved */
    s->nwarnings = v->nwarnings;
    v->warnings = NULL;
    v->nwarnings = v->nwarnings_cap = 0;
    return s;
}

sv_err stats_local_run(stats_local *c, wire_stats **out, sv_error *err)
{
    *out = NULL;
    profile *v = &c->prof;
    sv_err e = profile_finish_steps(v, true, true, err);
    /* The same regions in the same order: a region dropped now would leave
     * the model shown (the child drops those before sending). */
    bool same = !e && v->nregions == c->n;
    for (size_t i = 0; same && i < c->n; i++)
        same = v->regions[i] == &c->copies[i];
    if (!e && !same)
        e = sv_error_set(err, SV_ERR_DAMAGED, "%s: a region was dropped after it was shown",
                         v->path);
    if (!e) {
        profile_check_values(v);
        if (!(*out = stats_local_result(c)))
            e = sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", v->path);
    }
    stats_local_free(c);
    return e;
}
