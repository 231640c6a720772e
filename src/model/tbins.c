/* tbins: per-region bins by start time (tbins.h). */
#include "tbins.h"

#include <stdlib.h>

#include "util/checked.h"

void time_bins_free(time_bins *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows; i++)
        free(t->rows[i].v);
    free(t->rows);
    free(t);
}

const tbins_row *time_bins_row(const time_bins *t, size_t rank_index, uint32_t reg)
{
    size_t lo = 0, hi = t ? t->nrows : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const tbins_row *r = &t->rows[mid];
        if (r->rank_index < rank_index || (r->rank_index == rank_index && r->reg < reg))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < (t ? t->nrows : 0) && t->rows[lo].rank_index == rank_index && t->rows[lo].reg == reg
               ? &t->rows[lo]
               : NULL;
}

/* Whether the longest call (d, s, pos) comes before the bin's. */
static bool longer(const tbin *b, int64_t d, int64_t s, uint64_t pos)
{
    if (d != b->max)
        return d > b->max;
    return s < b->max_s || (s == b->max_s && pos < b->max_pos);
}

void tbin_merge(tbin *a, const tbin *b)
{
    if (!b->n)
        return;
    if (!a->n) {
        *a = *b;
        return;
    }
    a->min = b->min < a->min ? b->min : a->min;
    if (longer(a, b->max, b->max_s, b->max_pos)) {
        a->max = b->max;
        a->max_s = b->max_s;
        a->max_pos = b->max_pos;
        a->max_lane = b->max_lane;
        a->max_depth = b->max_depth;
    }
    a->n += b->n;
    a->sum = ck_add(a->sum, b->sum);
}

void tbin_add(tbin *b, int64_t s, int64_t d, uint64_t pos, uint32_t lane, uint32_t depth)
{
    tbin one = {1, d, d, d, s, pos, lane, depth};
    tbin_merge(b, &one);
}

uint32_t time_bins_of(const time_bins *t, int64_t s)
{
    if (s <= t->t0 || t->width <= 0 || t->nbins == 0)
        return 0;
    int64_t b = ck_sub(s, t->t0) / t->width;
    return b >= (int64_t)t->nbins ? t->nbins - 1 : (uint32_t)b;
}
