/* merged: region names merged across ranks (merged.h). */
#include "merged.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "imbalance.h"
#include "region.h"
#include "select.h"
#include "stats.h"

static const region_stat_id ms_rstat[MS_COUNT] = {
    [MS_TOTAL] = RSTAT_TOTAL,   [MS_MEAN] = RSTAT_MEAN, [MS_MIN] = RSTAT_MIN,
    [MS_MAX] = RSTAT_MAX,       [MS_P50] = RSTAT_P50,   [MS_P95] = RSTAT_P95,
    [MS_P99] = RSTAT_P99,       [MS_STD] = RSTAT_STD,   [MS_EXCL] = RSTAT_EXCLUSIVE,
    [MS_GPU] = RSTAT_GPU_TOTAL,
};

bool merged_stat_of_region(const region *r, merged_stat s, double *v)
{
    double a, t;
    switch (s) {
    case MS_CALLS:
        if (!r->has_event_data && !(r->stored.known & (1u << SUM_NUM_CALLS)))
            return false;
        *v = (double)region_num_calls(r);
        return true;
    case MS_AWAIT_SHARE:
        if (!region_stat_ns(r, RSTAT_AWAIT_TOTAL, &a) || !region_stat_ns(r, RSTAT_TOTAL, &t))
            return false;
        *v = t > 0 ? a / t : 0.0;
        return true;
    case MS_IMBALANCE:
    case MS_COUNT:
        return false;
    default:
        return region_stat_ns(r, ms_rstat[s], v);
    }
}

static void ms_set(merged_region *m, merged_stat s, double v)
{
    m->v[s] = v;
    m->known |= 1u << s;
}

/* Statistics that add up over ranks: known when every rank knows them
 * (GPU: when any rank has the column). */
static void merge_sums(merged_region *m)
{
    static const merged_stat sums[] = {MS_CALLS, MS_TOTAL, MS_EXCL};
    for (size_t k = 0; k < sizeof sums / sizeof *sums; k++) {
        double acc = 0, v;
        bool all = true;
        for (size_t i = 0; i < m->nranks; i++) {
            all &= merged_stat_of_region(m->ranks[i], sums[k], &v);
            acc += all ? v : 0;
        }
        if (all)
            ms_set(m, sums[k], acc);
    }
    double gpu = 0, aw = 0, awt = 0, v, t;
    bool any_gpu = false, any_aw = false;
    for (size_t i = 0; i < m->nranks; i++) {
        const region *r = m->ranks[i];
        if (region_stat_ns(r, RSTAT_GPU_TOTAL, &v)) {
            gpu += v;
            any_gpu = true;
        }
        if (region_stat_ns(r, RSTAT_AWAIT_TOTAL, &v) && region_stat_ns(r, RSTAT_TOTAL, &t)) {
            aw += v;
            awt += t;
            any_aw = true;
        }
    }
    if (any_gpu)
        ms_set(m, MS_GPU, gpu);
    if (any_aw)
        ms_set(m, MS_AWAIT_SHARE, awt > 0 ? aw / awt : 0.0);
    if ((m->known & (1u << MS_CALLS)) && (m->known & (1u << MS_TOTAL)))
        ms_set(m, MS_MEAN, m->v[MS_CALLS] > 0 ? m->v[MS_TOTAL] / m->v[MS_CALLS] : 0.0);
}

/* min and max over the ranks that have calls */
static void merge_extremes(merged_region *m)
{
    double lo = 0, hi = 0, calls;
    bool all = true, any = false;
    for (size_t i = 0; i < m->nranks && all; i++) {
        const region *r = m->ranks[i];
        if (merged_stat_of_region(r, MS_CALLS, &calls) && calls == 0)
            continue;
        double a, b;
        all = merged_stat_of_region(r, MS_MIN, &a) && merged_stat_of_region(r, MS_MAX, &b);
        if (all) {
            lo = any && lo < a ? lo : a;
            hi = any && hi > b ? hi : b;
            any = true;
        }
    }
    if (all) {
        ms_set(m, MS_MIN, lo);
        ms_set(m, MS_MAX, hi);
    }
}

/* Percentiles and std over every rank's durations together. */
static bool merge_durations(merged_region *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->nranks; i++)
        n += m->ranks[i]->n;
    int64_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!d)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < m->nranks; i++) {
        const region *r = m->ranks[i];
        for (size_t j = 0; j < r->n; j++)
            d[k++] = r->end_ns[j] - r->start_ns[j];
    }
    double mean, std, pct[3];
    static const double pcts[3] = {50, 95, 99};
    stats_mean_std(d, n, &mean, &std);
    stats_percentiles_inplace(d, n, pcts, pct, 3);
    free(d);
    ms_set(m, MS_P50, pct[0]);
    ms_set(m, MS_P95, pct[1]);
    ms_set(m, MS_P99, pct[2]);
    ms_set(m, MS_STD, std);
    return true;
}

/* Std from each rank's count, mean and std (summary-only ranks): the
 * pooled population variance E[x^2] - E[x]^2. */
static void merge_pooled_std(merged_region *m)
{
    double n = 0, s1 = 0, s2 = 0;
    for (size_t i = 0; i < m->nranks; i++) {
        const region *r = m->ranks[i];
        double c, mu, sd;
        if (!merged_stat_of_region(r, MS_CALLS, &c))
            return;
        if (c == 0)
            continue;
        if (!merged_stat_of_region(r, MS_MEAN, &mu) || !merged_stat_of_region(r, MS_STD, &sd))
            return;
        n += c;
        s1 += c * mu;
        s2 += c * (sd * sd + mu * mu);
    }
    double var = n > 0 ? s2 / n - (s1 / n) * (s1 / n) : 0.0;
    ms_set(m, MS_STD, var > 0 ? sqrt(var) : 0.0);
}

/* Upstream's definition over the ranks that ran it (imbalance.h); the
 * slowest rank is the one with the largest total among them. */
static bool merge_imbalance(merged_region *m)
{
    double *t = malloc((m->nranks ? m->nranks : 1) * sizeof *t);
    bool *ran = malloc((m->nranks ? m->nranks : 1) * sizeof *ran);
    if (!t || !ran) {
        free(t);
        free(ran);
        return false;
    }
    bool all = true;
    for (size_t i = 0; i < m->nranks; i++) {
        bool known;
        ran[i] = imb_region_ran(m->ranks[i], &t[i], &known);
        all &= !ran[i] || known;
        m->nnot_run += !ran[i];
    }
    imb_figures f;
    if (all && imb_figures_of(t, ran, m->nranks, &f)) {
        ms_set(m, MS_IMBALANCE, f.imbalance);
        m->slowest_rank = m->ranks[f.argmax]->rank;
    }
    free(t);
    free(ran);
    return true;
}

static bool merge_one(merged_region *m)
{
    m->event_data = true;
    m->summary_only = true;
    for (size_t i = 0; i < m->nranks; i++) {
        m->event_data &= m->ranks[i]->has_event_data;
        m->summary_only &= !m->ranks[i]->has_event_data;
    }
    m->slowest_rank = -1;
    merge_sums(m);
    merge_extremes(m);
    if (!merge_imbalance(m))
        return false;
    if (m->nranks == 1) {
        static const merged_stat own[] = {MS_P50, MS_P95, MS_P99, MS_STD};
        for (size_t k = 0; k < sizeof own / sizeof *own; k++) {
            double v;
            if (merged_stat_of_region(m->ranks[0], own[k], &v))
                ms_set(m, own[k], v);
        }
        return true;
    }
    /* Streamed regions (the out-of-core viewer's skeleton) keep no calls:
     * the merge's percentiles are unknown, never those of no durations. */
    bool streamed = false;
    for (size_t i = 0; i < m->nranks; i++)
        streamed |= m->ranks[i]->streamed;
    if (m->event_data && !streamed)
        return merge_durations(m);
    merge_pooled_std(m);
    return true;
}

/* The kept ranks without the region (g->ranks is in rank order). */
static bool merge_absent(merged_region *g, const profile *p, const region_filter *filter)
{
    size_t j = 0;
    for (size_t k = 0; k < p->nranks; k++) {
        int rank = p->ranks[k].rank;
        if (!filter_match_rank(filter, rank))
            continue;
        while (j < g->nranks && g->ranks[j]->rank < rank)
            j++;
        if (j < g->nranks && g->ranks[j]->rank == rank)
            continue;
        if (!g->absent && !(g->absent = malloc(p->nranks * sizeof *g->absent)))
            return false;
        g->absent[g->nabsent++] = rank;
    }
    g->nnot_run = g->nabsent;
    return true;
}

void merged_regions_free(merged_region *m, size_t count)
{
    if (!m)
        return;
    for (size_t i = 0; i < count; i++) {
        free(m[i].ranks);
        free(m[i].absent);
    }
    free(m);
}

sv_err merged_regions_build(const profile *p, const region_filter *filter, merged_region **out,
                            size_t *count, sv_error *err)
{
    *out = NULL;
    *count = 0;
    size_t nv = 0;
    region **v = profile_regions_by_name(p);
    for (size_t i = 0; v && i < p->nregions; i++)
        if (filter_match(filter, v[i]))
            v[nv++] = v[i];
    merged_region *m = calloc(p->nregions ? p->nregions : 1, sizeof *m);
    size_t n = 0;
    bool ok = v && m;
    for (size_t i = 0; ok && i < nv;) {
        size_t j = i;
        while (j < nv && strcmp(v[j]->name, v[i]->name) == 0)
            j++;
        merged_region *g = &m[n++];
        g->name = v[i]->name;
        g->nranks = j - i;
        g->ranks = malloc(g->nranks * sizeof *g->ranks);
        ok = g->ranks != NULL;
        if (ok) {
            memcpy(g->ranks, v + i, g->nranks * sizeof *g->ranks);
            ok = merge_absent(g, p, filter) && merge_one(g);
        }
        i = j;
    }
    free(v);
    if (!ok) {
        merged_regions_free(m, n);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (regions)");
    }
    *out = m;
    *count = n;
    return SV_OK;
}
