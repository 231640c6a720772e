/* Lanes without calls: the out-of-core viewer's rows.  The
 * timeline lays out its rows, groups and cursor from an index; out of core
 * the lanes and their depths come from the overview map (ooc_map.h), so an
 * index with those lanes and no call lets the same code draw them, and a
 * window's index completed with the lanes and depths it lacks has the rows
 * of the whole profile, in the same order. */
#include "lanes_internal.h"

#include <stdlib.h>
#include <string.h>

static bool empty_rows(lane *ln, uint32_t ndepth)
{
    ln->rows = calloc(ndepth ? ndepth : 1, sizeof *ln->rows);
    if (!ln->rows)
        return false;
    for (uint32_t d = 0; d < ndepth; d++)
        ln->rows[d].disjoint = true; /* n = 0: every query answers 0 */
    ln->ndepth = ndepth;
    return true;
}

/* Spec k is in lanes.h order after spec k - 1. */
static bool spec_ordered(const lanes_spec *spec, size_t n, size_t nranks)
{
    for (size_t k = 0; k < n; k++) {
        if (spec[k].rank_index >= nranks)
            return false;
        if (k == 0 || spec[k].rank_index > spec[k - 1].rank_index)
            continue;
        lane_key a = {spec[k - 1].kind, spec[k - 1].row}, b = {spec[k].kind, spec[k].row};
        if (spec[k].rank_index < spec[k - 1].rank_index || lanes_key_cmp(a, b) >= 0)
            return false;
    }
    return true;
}

static lanes_index *index_alloc(profile *p)
{
    lanes_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return NULL;
    ix->prof = p;
    ix->t_min = INT64_MAX;
    ix->t_max = INT64_MIN;
    ix->rank_lane0 = calloc(p->nranks + 1, sizeof *ix->rank_lane0);
    ix->rflags = calloc(p->nranks ? p->nranks : 1, sizeof *ix->rflags);
    for (size_t k = 0; ix->rflags && k < p->nranks; k++)
        if (!(ix->rflags[k] = calloc(p->ranks[k].nregions ? p->ranks[k].nregions : 1, 1)))
            break;
    bool ok = ix->rank_lane0 && ix->rflags;
    for (size_t k = 0; ok && k < p->nranks; k++)
        ok = ix->rflags[k] != NULL;
    if (!ok) {
        lanes_free(ix);
        return NULL;
    }
    return ix;
}

static sv_err usage_or_nomem(bool ordered, const profile *p, sv_error *err)
{
    if (!ordered)
        return sv_error_set(err, SV_ERR_RANGE, "%s: lanes out of order or of an unknown rank",
                            p->path);
    return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory while laying out the timeline",
                        p->path);
}

sv_err lanes_build_empty(profile *p, const lanes_spec *spec, size_t n, lanes_index **out,
                         sv_error *err)
{
    *out = NULL;
    bool ordered = spec_ordered(spec, n, p->nranks);
    lanes_index *ix = ordered ? index_alloc(p) : NULL;
    if (ix)
        ix->lanes = calloc(n ? n : 1, sizeof *ix->lanes);
    if (!ix || !ix->lanes) {
        lanes_free(ix);
        return usage_or_nomem(ordered, p, err);
    }
    for (size_t k = 0; k < n; k++) {
        lane *ln = &ix->lanes[k];
        ln->rk = &p->ranks[spec[k].rank_index];
        ln->kind = spec[k].kind;
        ln->row = spec[k].row;
        ix->nlanes = k + 1; /* lanes_free frees the rows of lanes [0, nlanes) */
        if (!empty_rows(ln, spec[k].ndepth)) {
            lanes_free(ix);
            return usage_or_nomem(true, p, err);
        }
    }
    size_t l = 0;
    for (size_t r = 0; r <= p->nranks; r++) { /* lanes of rank r: [rank_lane0[r], [r + 1]) */
        while (l < n && spec[l].rank_index < r)
            l++;
        ix->rank_lane0[r] = l;
    }
    *out = ix;
    return SV_OK;
}

/* Gives lane ln (of ix) depth rows up to ndepth, the new ones empty. */
static bool deepen(lane *ln, uint32_t ndepth)
{
    if (ndepth <= ln->ndepth)
        return true;
    lane_row *rows = realloc(ln->rows, ndepth * sizeof *rows);
    if (!rows)
        return false;
    memset(rows + ln->ndepth, 0, (ndepth - ln->ndepth) * sizeof *rows);
    for (uint32_t d = ln->ndepth; d < ndepth; d++)
        rows[d].disjoint = true;
    ln->rows = rows;
    ln->ndepth = ndepth;
    return true;
}

/* The merged lanes: ix's where spec has them too (deepened), the spec's
 * others empty, ix's own others kept: all in lanes.h order. */
static bool merge_lanes(lanes_index *ix, const lanes_spec *spec, size_t n, lane *to, size_t *rank0)
{
    const profile *p = ix->prof;
    size_t a = 0, b = 0, w = 0;
    for (size_t r = 0; r < p->nranks; r++) {
        rank0[r] = w;
        size_t a_end = ix->rank_lane0[r + 1];
        while (a < a_end || (b < n && spec[b].rank_index == r)) {
            bool have_b = b < n && spec[b].rank_index == r;
            int c = !have_b     ? -1
                    : a < a_end ? lanes_key_cmp((lane_key){ix->lanes[a].kind, ix->lanes[a].row},
                                                (lane_key){spec[b].kind, spec[b].row})
                                : 1;
            if (c <= 0) {
                to[w] = ix->lanes[a++];
                if (c == 0 && !deepen(&to[w], spec[b].ndepth))
                    return false;
                b += c == 0;
            } else {
                to[w] = (lane){.rk = &ix->prof->ranks[r], .kind = spec[b].kind, .row = spec[b].row};
                if (!empty_rows(&to[w], spec[b].ndepth))
                    return false;
                b++;
            }
            w++;
        }
    }
    rank0[p->nranks] = w;
    return true;
}

sv_err lanes_add_empty(lanes_index *ix, const lanes_spec *spec, size_t n, sv_error *err)
{
    bool ordered = spec_ordered(spec, n, ix->prof->nranks);
    lane *to = ordered ? calloc(ix->nlanes + n ? ix->nlanes + n : 1, sizeof *to) : NULL;
    size_t *rank0 = to ? calloc(ix->prof->nranks + 1, sizeof *rank0) : NULL;
    if (!rank0) {
        free(to);
        return usage_or_nomem(ordered, ix->prof, err);
    }
    if (!merge_lanes(ix, spec, n, to, rank0)) {
        /* ix's lanes moved into to may have been deepened (their rows
         * reallocated): put them back, free only the new empty ones. */
        size_t w = 0;
        for (size_t l = 0; l < ix->nlanes + n && to[l].rows; l++) {
            bool own = w < ix->nlanes && to[l].kind == ix->lanes[w].kind &&
                       to[l].row == ix->lanes[w].row && to[l].rk == ix->lanes[w].rk;
            if (own)
                ix->lanes[w++] = to[l];
            else
                free(to[l].rows);
        }
        free(to);
        free(rank0);
        return usage_or_nomem(true, ix->prof, err);
    }
    size_t total = rank0[ix->prof->nranks];
    free(ix->lanes);
    free(ix->rank_lane0);
    ix->lanes = to;
    ix->nlanes = total;
    ix->rank_lane0 = rank0;
    return SV_OK;
}
