/* imbalance: upstream's rank imbalance (imbalance.h). */
#include "imbalance.h"

#include <stdlib.h>
#include <string.h>

#include "region.h"
#include "select.h"

bool imb_figures_of(const double *t, const bool *ran, size_t n, imb_figures *out)
{
    memset(out, 0, sizeof *out);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ran[i])
            continue;
        if (out->nran == 0 || t[i] > out->max) {
            out->max = t[i];
            out->argmax = i;
        }
        sum += t[i];
        out->nran++;
    }
    if (out->nran == 0)
        return false;
    out->mean = sum / (double)out->nran;
    out->excess = out->max - out->mean;
    out->imbalance = out->mean > 0 ? out->max / out->mean - 1.0 : 0.0;
    return true;
}

bool imb_region_ran(const region *r, double *total, bool *known)
{
    *known = region_stat_ns(r, RSTAT_TOTAL, total);
    if (!*known)
        *total = 0;
    if (r->has_event_data || r->streamed || (r->stored.known & (1u << SUM_NUM_CALLS)))
        return region_num_calls(r) > 0;
    return *known && *total > 0;
}

void imb_free(imb_row *rows, size_t n)
{
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++)
        free(rows[i].ranks);
    free(rows);
}

/* The row of name over the kept ranks, from its regions v[0..nv) (rank order). */
static bool imb_fill(imb_row *row, const profile *p, const region_filter *f, region *const *v,
                     size_t nv, size_t nkept)
{
    row->name = v[0]->name;
    row->ranks = calloc(nkept ? nkept : 1, sizeof *row->ranks);
    double *t = malloc((nkept ? nkept : 1) * sizeof *t);
    bool *ran = malloc((nkept ? nkept : 1) * sizeof *ran);
    bool ok = row->ranks && t && ran;
    bool all_known = true;
    size_t k = 0, j = 0;
    for (size_t i = 0; ok && i < p->nranks; i++) {
        int rank = p->ranks[i].rank;
        if (!filter_match_rank(f, rank))
            continue;
        imb_rank *x = &row->ranks[k];
        x->rank = rank;
        while (j < nv && v[j]->rank < rank)
            j++;
        if (j < nv && v[j]->rank == rank) {
            x->r = v[j];
            x->ran = imb_region_ran(v[j], &x->total, &x->known);
            all_known &= !x->ran || x->known;
        }
        t[k] = x->total;
        ran[k] = x->ran;
        k++;
    }
    row->nranks = k;
    row->straggler = -1;
    if (ok && all_known && imb_figures_of(t, ran, k, &row->f)) {
        row->known = true;
        row->straggler = row->ranks[row->f.argmax].rank;
    }
    free(t);
    free(ran);
    return ok;
}

static int imb_cmp(const void *a, const void *b)
{
    const imb_row *x = a, *y = b;
    if (x->known != y->known)
        return x->known ? -1 : 1;
    if (x->known && x->f.excess != y->f.excess)
        return x->f.excess > y->f.excess ? -1 : 1;
    return strcmp(x->name, y->name);
}

sv_err imb_build(const profile *p, const region_filter *filter, imb_row **out, size_t *n,
                 sv_error *err)
{
    *out = NULL;
    *n = 0;
    size_t nkept = 0, nv = 0;
    for (size_t k = 0; k < p->nranks; k++)
        nkept += filter_match_rank(filter, p->ranks[k].rank);
    region **v = profile_regions_by_name(p);
    for (size_t i = 0; v && i < p->nregions; i++)
        if (filter_match(filter, v[i]))
            v[nv++] = v[i];
    imb_row *rows = calloc(p->nregions ? p->nregions : 1, sizeof *rows);
    bool ok = v && rows;
    size_t nr = 0;
    for (size_t i = 0; ok && i < nv;) {
        size_t j = i;
        while (j < nv && strcmp(v[j]->name, v[i]->name) == 0)
            j++;
        ok = imb_fill(&rows[nr++], p, filter, v + i, j - i, nkept);
        i = j;
    }
    free(v);
    if (!ok) {
        imb_free(rows, nr);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (imbalance)");
    }
    qsort(rows, nr, sizeof *rows, imb_cmp);
    *out = rows;
    *n = nr;
    return SV_OK;
}
