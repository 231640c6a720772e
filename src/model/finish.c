/* finish: the step after loading that makes a profile usable: sort ranks,
 * regions and metadata, compute every region's statistics (stats.c), number
 * the calls and compute the exclusive totals (nest.c); and, on demand, the
 * per-call nesting the views need.
 *
 * It sits above profile.c (the data and its producer API), stats.c and
 * nest.c, so none of those needs another: profile.c knows neither nesting
 * nor statistics, and nest.c only reports through profile_warn(). */
#include <stdlib.h>
#include <string.h>

#include "nest.h"
#include "profile.h"
#include "stats.h"
#include "text.h"

static int cmp_rank(const void *a, const void *b)
{
    const rank_data *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_region_name(const void *a, const void *b)
{
    const region *x = *(region *const *)a, *y = *(region *const *)b;
    return strcmp(x->name, y->name);
}

static int cmp_meta(const void *a, const void *b)
{
    return strcmp(((const meta_entry *)a)->key, ((const meta_entry *)b)->key);
}

/* Sorting ranks moves the rank_data structs, so back pointers are reset. */
static void fix_owners(profile *p)
{
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &p->ranks[i];
        rk->owner = p;
        if (rk->nregions)
            qsort(rk->regions, rk->nregions, sizeof *rk->regions, cmp_region_name);
        size_t g = 0;
        for (size_t j = 0; j < rk->nregions; j++) {
            rk->regions[j]->owner = rk;
            rk->regions[j]->rank = rk->rank;
            rk->regions[j]->gidx0 = g;
            g += rk->regions[j]->n;
        }
        rk->ncalls = g;
    }
}

static sv_err build_region_list(profile *p, sv_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nranks; i++)
        n += p->ranks[i].nregions;
    free(p->regions);
    p->regions = calloc(n ? n : 1, sizeof *p->regions);
    if (!p->regions)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    p->nregions = 0;
    for (size_t i = 0; i < p->nranks; i++)
        for (size_t j = 0; j < p->ranks[i].nregions; j++)
            p->regions[p->nregions++] = p->ranks[i].regions[j];
    return SV_OK;
}

static void compute_min_start(profile *p)
{
    p->has_min_start = false;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (!r->has_event_data || r->n == 0)
            continue;
        if (!p->has_min_start || r->st.first_start_ns < p->min_start_ns)
            p->min_start_ns = r->st.first_start_ns;
        p->has_min_start = true;
    }
}

/* Statistics of every region; a region whose columns break the model's
 * invariants is dropped with a warning, like any other bad region. */
static sv_err compute_rank_stats(profile *p, rank_data *rk, sv_error *err)
{
    size_t keep = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        region *r = rk->regions[j];
        sv_error e1;
        sv_err e = stats_compute_region(r, &e1);
        if (e == SV_ERR_NOMEM)
            return sv_error_set(err, e, "%s: %s", p->path, e1.msg);
        if (e) {
            char name[160];
            text_escape_buf(name, sizeof name, r->name);
            profile_warn(p, "%s: rank %d: region %s: %s; region dropped", p->path, rk->rank, name,
                         e1.msg);
            region_free(r);
            continue;
        }
        rk->regions[keep++] = r;
    }
    rk->nregions = keep;
    return SV_OK;
}

sv_err profile_finish_steps(profile *p, bool stats, bool nest, sv_error *err)
{
    if (p->nranks)
        qsort(p->ranks, p->nranks, sizeof *p->ranks, cmp_rank);
    if (p->nmeta)
        qsort(p->meta, p->nmeta, sizeof *p->meta, cmp_meta);
    for (size_t i = 0; stats && i < p->nranks; i++) {
        sv_err e = compute_rank_stats(p, &p->ranks[i], err);
        if (e)
            return e;
    }
    fix_owners(p);
    sv_err e = build_region_list(p, err);
    if (e)
        return e;
    compute_min_start(p);
    return nest ? nest_compute_totals(p, err) : SV_OK;
}

sv_err profile_finish(profile *p, sv_error *err)
{
    return profile_finish_steps(p, true, true, err);
}

sv_err profile_ensure_calls(profile *p, sv_error *err)
{
    return nest_build_calls(p, err);
}
