/* select: lists of a profile's regions (select.h). */
#include "select.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_first_start(const void *a, const void *b)
{
    const region *x = *(region *const *)a, *y = *(region *const *)b;
    /* a streamed region (out of core) keeps its calls' count in st */
    bool tx = x->has_event_data && (x->n > 0 || (x->streamed && x->st.num_calls > 0));
    bool ty = y->has_event_data && (y->n > 0 || (y->streamed && y->st.num_calls > 0));
    if (tx != ty)
        return tx ? -1 : 1;
    if (tx && x->st.first_start_ns != y->st.first_start_ns)
        return x->st.first_start_ns < y->st.first_start_ns ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

sv_err profile_select_regions(const profile *p, const region_filter *f, region ***out,
                              size_t *count, sv_error *err)
{
    region **v = malloc((p->nregions ? p->nregions : 1) * sizeof *v);
    if (!v)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < p->nregions; i++)
        if (filter_match(f, p->regions[i]))
            v[k++] = p->regions[i];
    qsort(v, k, sizeof *v, cmp_first_start);
    *out = v;
    *count = k;
    return SV_OK;
}

sv_err profile_region_across_ranks(const profile *p, const char *name, region ***out, size_t *count,
                                   sv_error *err)
{
    region **v = malloc((p->nranks ? p->nranks : 1) * sizeof *v);
    if (!v)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < p->nranks; i++) {
        region *r = rank_region(&p->ranks[i], name);
        if (r)
            v[k++] = r;
    }
    *out = v;
    *count = k;
    return SV_OK;
}

static int cmp_region_by_name(const void *a, const void *b)
{
    const region *x = *(region *const *)a, *y = *(region *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

region **profile_regions_by_name(const profile *p)
{
    region **v = malloc((p->nregions ? p->nregions : 1) * sizeof *v);
    if (!v)
        return NULL;
    if (p->nregions)
        memcpy(v, p->regions, p->nregions * sizeof *v);
    qsort(v, p->nregions, sizeof *v, cmp_region_by_name);
    return v;
}
