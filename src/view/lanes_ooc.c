/* lanes_ooc: the lanes view's figures out of core (lanes_ooc.h). */
#include "lanes_ooc.h"

#include <stdlib.h>
#include <string.h>

#include "model/region.h"
#include "util/checked.h"

static sv_err no_memory(sv_error *err)
{
    return sv_error_set(err, SV_ERR_NOMEM, "out of memory while measuring the lanes");
}

static const region *region_of(const profile *p, size_t rank, uint32_t reg)
{
    const rank_data *rk = &p->ranks[rank];
    return reg != UINT32_MAX && reg < rk->nregions ? rk->regions[reg] : NULL;
}

/* Lane l's row of the table from its figure. */
static void fig_row(const lanes_ooc *lo, const lanes_index *ix, lanestats *ls, size_t l,
                    unsigned char *flag)
{
    const lanefig *x = &lo->figs->v[l];
    lane_stat *st = &ls->st[l];
    memset(st, 0, sizeof *st);
    st->lane = l;
    if (!x->has) {
        *flag = LO_NOFIG;
        return;
    }
    st->busy = x->busy;
    st->awaited = x->awaited < x->busy ? x->awaited : x->busy; /* lanestats.c's cap */
    st->calls = (size_t)x->calls;
    st->first = x->calls ? x->first : 0;
    st->last = x->calls ? x->last : 0;
    st->busiest = region_of(ix->prof, x->rank_index, x->busiest);
    st->busiest_excl = st->busiest ? x->busiest_excl : 0;
    int64_t a, z;
    lanestats_window(&ix->lanes[l], ls->t0, ls->t1, &a, &z);
    /* Busy inside [a, z] is all of it when the union lies inside. */
    if (x->busy > 0 && (x->u_first < a || x->u_last > z)) {
        *flag = LO_IDLE_UNKNOWN;
        return;
    }
    uint64_t span = (uint64_t)z - (uint64_t)a;
    st->idle = span > (uint64_t)x->busy ? span - (uint64_t)x->busy : 0;
}

sv_err lanes_ooc_build(const ooc_file *f, profile *p, lanes_index **ixp, lanestats **lsp,
                       lanes_ooc *lo, sv_error *err)
{
    *ixp = NULL;
    *lsp = NULL;
    memset(lo, 0, sizeof *lo);
    const lane_figs *figs = f->lanefigs;
    size_t n = f->map.nlanes;
    if (!figs || figs->n != n)
        return sv_error_set(err, SV_ERR_NO_EVENT_DATA, "no per-lane figures out of core");
    lanes_spec *spec = calloc(n ? n : 1, sizeof *spec);
    if (!spec)
        return no_memory(err);
    for (size_t l = 0; l < n; l++) {
        const ooc_lane *ol = &f->map.lanes[l];
        spec[l] = (lanes_spec){ol->rank_index, ol->kind, ol->row, ol->ndepth};
    }
    lanes_index *ix = NULL;
    sv_err e = lanes_build_empty(p, spec, n, &ix, err);
    free(spec);
    if (e)
        return e;
    lanestats *ls = calloc(1, sizeof *ls);
    lo->figs = figs;
    lo->flag = calloc(n ? n : 1, 1);
    lo->rflag = calloc(p->nranks ? p->nranks : 1, 1);
    if (ls) {
        ls->ix = ix;
        ls->n = n;
        ls->st = calloc(n ? n : 1, sizeof *ls->st);
        ls->top = calloc(n ? n : 1, sizeof *ls->top);
        ls->t0 = figs->t0;
        ls->t1 = figs->t1;
    }
    if (!ls || !ls->st || !ls->top || !lo->flag || !lo->rflag) {
        lanestats_free(ls);
        lanes_free(ix);
        lanes_ooc_free(lo);
        return no_memory(err);
    }
    for (size_t l = 0; l < n; l++) {
        fig_row(lo, ix, ls, l, &lo->flag[l]);
        lo->nofig += lo->flag[l] == LO_NOFIG;
        lo->noidle += lo->flag[l] == LO_IDLE_UNKNOWN;
    }
    *ixp = ix;
    *lsp = ls;
    return SV_OK;
}

static const lanefig_rank *rank_fig(const lane_figs *f, size_t k)
{
    for (size_t i = 0; i < f->nranks; i++)
        if (f->ranks[i].rank_index == k)
            return &f->ranks[i];
    return NULL;
}

sv_err lanes_ooc_totals(lanes_ooc *lo, const lanes_index *ix, const lanestats *ls,
                        lane_stat *rank_tot, sv_error *err)
{
    (void)err;
    for (size_t k = 0; k < ix->prof->nranks; k++) {
        lane_stat *out = &rank_tot[k];
        memset(out, 0, sizeof *out);
        out->lane = SIZE_MAX;
        size_t a = ix->rank_lane0[k], z = ix->rank_lane0[k + 1];
        const lanefig_rank *rf = rank_fig(lo->figs, k);
        bool any = false;
        out->first = INT64_MAX;
        out->last = INT64_MIN;
        for (size_t l = a; l < z; l++) {
            const lane_stat *st = &ls->st[l];
            if (lo->flag[l] == LO_NOFIG)
                continue;
            any = true;
            out->busy = ck_add(out->busy, st->busy);
            out->awaited = ck_add(out->awaited, st->awaited); /* lanestats_rank's sum */
            out->calls += st->calls;
            if (st->calls) {
                out->first = st->first < out->first ? st->first : out->first;
                out->last = st->last > out->last ? st->last : out->last;
            }
        }
        if (out->calls == 0)
            out->first = out->last = 0;
        if (!any || !rf) {
            lo->rflag[k] = a < z ? LO_NOFIG : 0;
            continue;
        }
        /* t0 <= t1: their difference is exact in uint64 (it may pass INT64_MAX). */
        uint64_t span = (uint64_t)ls->t1 - (uint64_t)ls->t0;
        out->idle = span > (uint64_t)rf->busy_any ? span - (uint64_t)rf->busy_any : 0;
        out->busiest = region_of(ix->prof, k, rf->busiest);
        out->busiest_excl = out->busiest ? rf->busiest_excl : 0;
    }
    return SV_OK;
}

void lanes_ooc_free(lanes_ooc *lo)
{
    if (!lo)
        return;
    free(lo->flag);
    free(lo->rflag);
    memset(lo, 0, sizeof *lo);
}
