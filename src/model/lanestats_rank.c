/* lanestats_rank: the lanes view's rank rows, worked out over the rank's
 * lanes together rather than lane by lane, so that what they say holds for
 * the rank: the busiest region is the one with the most exclusive time
 * summed over the lanes, and idle is the time no lane of the rank was busy
 * (never more than the span, however many short-lived tasks it had). */
#include <stdlib.h>
#include <string.h>

#include "lanestats.h"
#include "region.h"
#include "util/checked.h"

typedef struct span2 {
    int64_t s, e;
} span2;

static int span2_cmp(const void *a, const void *b)
{
    const span2 *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s ? 1 : 0;
}

/* Length of the union of the rank's lanes' top-level calls; -1 when out of
 * memory. */
static int64_t union_busy(const lanes_index *ix, size_t a, size_t z)
{
    size_t n = 0;
    for (size_t l = a; l < z; l++)
        n += ix->lanes[l].ndepth ? ix->lanes[l].rows[0].n : 0;
    span2 *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t m = 0;
    for (size_t l = a; l < z; l++) {
        const lane *ln = &ix->lanes[l];
        for (size_t k = 0; ln->ndepth && k < ln->rows[0].n; k++) {
            lanes_call_span(ln->rk, lane_row_call(&ln->rows[0], k), &v[m].s, &v[m].e);
            if (v[m].e > v[m].s) /* zero-length calls cover nothing */
                m++;
        }
    }
    qsort(v, m, sizeof *v, span2_cmp);
    int64_t sum = 0, cs = 0, ce = INT64_MIN;
    for (size_t k = 0; k < m; k++) {
        if (v[k].s > ce) {
            sum = ck_add(sum, ce > cs ? ck_sub(ce, cs) : 0);
            cs = v[k].s;
            ce = v[k].e;
        } else if (v[k].e > ce) {
            ce = v[k].e;
        }
    }
    sum = ck_add(sum, ce > cs ? ck_sub(ce, cs) : 0);
    free(v);
    return sum;
}

/* Index of the region of rk holding rank call g, SIZE_MAX when none. */
static size_t region_index(const rank_data *rk, uint32_t g)
{
    size_t i = 0;
    const region *r = rank_call_region(rk, g, &i);
    if (!r)
        return SIZE_MAX;
    size_t lo = 0, hi = rk->nregions;
    while (lo < hi) { /* regions are in gidx0 order */
        size_t mid = lo + (hi - lo) / 2;
        if (rk->regions[mid]->gidx0 < r->gidx0)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Regions without calls share the gidx0 of the next one. */
    while (lo < rk->nregions && rk->regions[lo] != r && rk->regions[lo]->gidx0 == r->gidx0)
        lo++;
    return lo < rk->nregions && rk->regions[lo] == r ? lo : SIZE_MAX;
}

/* The region with the most exclusive time over lanes [a, z) of one rank. */
static sv_err busiest_of(const lanes_index *ix, size_t a, size_t z, lane_stat *out)
{
    const rank_data *rk = ix->lanes[a].rk;
    if (!rk->calls || rk->nregions == 0)
        return SV_OK;
    int64_t *excl = calloc(rk->nregions, sizeof *excl);
    if (!excl)
        return SV_ERR_NOMEM;
    for (size_t l = a; l < z; l++) {
        const lane *ln = &ix->lanes[l];
        for (uint32_t d = 0; d < ln->ndepth; d++)
            for (size_t k = 0; k < ln->rows[d].n; k++) {
                uint32_t g = lane_row_call(&ln->rows[d], k);
                size_t j = region_index(rk, g);
                if (j != SIZE_MAX)
                    excl[j] += rank_call_excl(rk, g);
            }
    }
    for (size_t j = 0; j < rk->nregions; j++)
        if (excl[j] > out->busiest_excl || (!out->busiest && excl[j] > 0)) {
            out->busiest = rk->regions[j];
            out->busiest_excl = excl[j];
        }
    free(excl);
    return SV_OK;
}

sv_err lanestats_rank(const lanestats *ls, size_t rank, lane_stat *out, sv_error *err)
{
    const lanes_index *ix = ls->ix;
    memset(out, 0, sizeof *out);
    out->lane = SIZE_MAX;
    size_t a = ix->rank_lane0[rank], z = ix->rank_lane0[rank + 1];
    if (a == z)
        return SV_OK;
    out->first = INT64_MAX;
    out->last = INT64_MIN;
    for (size_t l = a; l < z; l++) {
        const lane_stat *st = &ls->st[l];
        out->busy = ck_add(out->busy, st->busy);
        out->awaited = ck_add(out->awaited, st->awaited);
        out->calls += st->calls;
        if (st->calls) {
            out->first = st->first < out->first ? st->first : out->first;
            out->last = st->last > out->last ? st->last : out->last;
        }
    }
    if (out->calls == 0)
        out->first = out->last = 0;
    /* t0 <= t1: their difference is exact in uint64 (it may pass INT64_MAX). */
    uint64_t span = (uint64_t)ls->t1 - (uint64_t)ls->t0;
    if (z - a == 1) {
        /* One lane: the rank's figures are the lane's, already measured
         * (the same union of its top row, the same exclusive sums). */
        out->busiest = ls->st[a].busiest;
        out->busiest_excl = ls->st[a].busiest_excl;
        out->idle = span > (uint64_t)ls->st[a].busy ? span - (uint64_t)ls->st[a].busy : 0;
        return SV_OK;
    }
    int64_t any = union_busy(ix, a, z);
    if (any < 0 || busiest_of(ix, a, z, out) != SV_OK) {
        sv_error_set(err, SV_ERR_NOMEM, "out of memory while measuring the lanes of a rank");
        return SV_ERR_NOMEM;
    }
    out->idle = span > (uint64_t)any ? span - (uint64_t)any : 0;
    return SV_OK;
}
