/* load_rows: a load split into parts for the MPI batch run (load_rows.h):
 * who owns a row, and the merge of the parts on process 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load_columnar_internal.h"
#include "load_rows.h"

bool load_part_owns(const load_part *pt, int rank, const char *name)
{
    if (!pt || pt->count <= 1)
        return true;
    /* FNV-1a over the rank and the name: the same in every process. */
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 4; i++)
        h = (h ^ (uint8_t)((unsigned)rank >> (8 * i))) * 1099511628211ull;
    for (const unsigned char *s = (const unsigned char *)name; *s; s++)
        h = (h ^ *s) * 1099511628211ull;
    return (int)(h % (uint64_t)pt->count) == pt->index;
}

/* ------------------------------------------------------------ columnar */

typedef struct lpt_row {
    uint64_t cnt;
    size_t row;
} lpt_row;

/* Longest first; equal lengths by row, so every process sorts alike. */
static int cmp_lpt(const void *a, const void *b)
{
    const lpt_row *x = a, *y = b;
    if (x->cnt != y->cnt)
        return x->cnt < y->cnt ? 1 : -1;
    return (x->row > y->row) - (x->row < y->row);
}

bool lc_partition(lc_file *lf, const load_part *pt)
{
    if (!pt || pt->count <= 1 || lf->nkept == 0)
        return true;
    size_t n = lf->nkept, np = (size_t)pt->count;
    lpt_row *v = malloc(n * sizeof *v);
    uint64_t *load = calloc(np, sizeof *load);
    bool *mine = calloc(lf->ix.P ? lf->ix.P : 1, sizeof *mine);
    if (!v || !load || !mine) {
        free(v);
        free(load);
        free(mine);
        return false;
    }
    for (size_t j = 0; j < n; j++)
        v[j] = (lpt_row){lf->cnt[lf->order[j]], lf->order[j]};
    qsort(v, n, sizeof *v, cmp_lpt);
    /* Greedy longest-processing-time: each row to the lightest bin. */
    size_t *bin = malloc(n * sizeof *bin);
    if (!bin) {
        free(v);
        free(load);
        free(mine);
        return false;
    }
    for (size_t j = 0; j < n; j++) {
        size_t best = 0;
        for (size_t k = 1; k < np; k++)
            if (load[k] < load[best])
                best = k;
        load[best] += v[j].cnt + 1; /* + 1: empty rows spread too */
        bin[j] = best;
    }
    /* Part 0 takes the heaviest bin: the others' rows travel to it once
     * they are read, so the fewer of them the sooner it can nest. */
    size_t heavy = 0;
    for (size_t k = 1; k < np; k++)
        if (load[k] > load[heavy])
            heavy = k;
    for (size_t j = 0; j < n; j++) {
        size_t part = bin[j] == heavy ? 0 : bin[j] == 0 ? heavy : bin[j];
        mine[v[j].row] = part == (size_t)pt->index;
    }
    free(bin);
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = lf->order[j];
        if (mine[i])
            lf->order[m++] = i;
        else
            lf->ix.keep[i] = false; /* not dropped: another process reads it */
    }
    lf->nkept = m;
    free(v);
    free(load);
    free(mine);
    return true;
}

/* ------------------------------------------------------------ merge */

static int cmp_region_ptr(const void *a, const void *b)
{
    return strcmp((*(region *const *)a)->name, (*(region *const *)b)->name);
}

static rank_data *find_rank(profile *p, int rank)
{
    for (size_t i = 0; i < p->nranks; i++)
        if (p->ranks[i].rank == rank)
            return &p->ranks[i];
    return NULL;
}

/* Region `name` among the first n of rk's regions (sorted by name). */
static bool has_region(const rank_data *rk, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(rk->regions[mid]->name, name);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* The tables a part read for a rank whose rows it owns: the rank may exist
 * in p as an empty rank (upstream's num_ranks) without them. */
static void take_tables(rank_data *to, rank_data *from)
{
    if (!to->has_threads && from->has_threads) {
        to->threads = from->threads;
        to->has_threads = true;
        memset(&from->threads, 0, sizeof from->threads);
        from->has_threads = false;
    }
    if (!to->has_tasks && from->has_tasks) {
        to->tasks = from->tasks;
        to->has_tasks = true;
        memset(&from->tasks, 0, sizeof from->tasks);
        from->has_tasks = false;
    }
    if (!to->nlines && from->nlines) {
        to->lines = from->lines;
        to->nlines = from->nlines;
        from->lines = NULL;
        from->nlines = 0;
    }
    if (!to->nperf && from->nperf) {
        to->perf = from->perf;
        to->nperf = from->nperf;
        from->perf = NULL;
        from->nperf = 0;
    }
}

/* Moves from's regions that `to` lacks; the rest stay in from. */
static sv_err merge_rank(rank_data *to, rank_data *from)
{
    take_tables(to, from);
    if (to->nregions > 1)
        qsort(to->regions, to->nregions, sizeof *to->regions, cmp_region_ptr);
    size_t n0 = to->nregions, need = to->nregions + from->nregions;
    if (need > to->regions_cap) {
        region **v = realloc(to->regions, need * sizeof *v);
        if (!v)
            return SV_ERR_NOMEM;
        to->regions = v;
        to->regions_cap = need;
    }
    size_t left = 0;
    for (size_t j = 0; j < from->nregions; j++) {
        region *r = from->regions[j];
        if (has_region(to, n0, r->name)) {
            from->regions[left++] = r;
            continue;
        }
        r->owner = to;
        to->regions[to->nregions++] = r;
    }
    from->nregions = left;
    return SV_OK;
}

static bool has_warning(const profile *p, const char *w)
{
    for (size_t i = 0; i < p->nwarnings; i++)
        if (strcmp(p->warnings[i], w) == 0)
            return true;
    return false;
}

static sv_err merge_warnings(profile *p, profile *q)
{
    for (size_t i = 0; i < q->nwarnings; i++) {
        if (has_warning(p, q->warnings[i]))
            continue;
        if (p->nwarnings == p->nwarnings_cap) {
            size_t cap = p->nwarnings_cap ? p->nwarnings_cap * 2 : 8;
            char **w = realloc(p->warnings, cap * sizeof *w);
            if (!w)
                return SV_ERR_NOMEM;
            p->warnings = w;
            p->nwarnings_cap = cap;
        }
        p->warnings[p->nwarnings++] = q->warnings[i];
        q->warnings[i] = NULL;
    }
    return SV_OK;
}

sv_err load_rows_merge(profile *p, profile *q, sv_error *err)
{
    sv_err e = SV_OK;
    for (size_t i = 0; !e && i < q->nranks; i++) {
        rank_data *from = &q->ranks[i];
        rank_data *to = find_rank(p, from->rank);
        if (!to) {
            /* A rank p has not seen: taken whole. */
            if (!(to = profile_add_rank(p, from->rank)))
                e = SV_ERR_NOMEM;
            else {
                *to = *from;
                to->owner = p;
                for (size_t j = 0; j < to->nregions; j++)
                    to->regions[j]->owner = to;
                memset(from, 0, sizeof *from);
                from->rank = to->rank;
            }
        } else {
            e = merge_rank(to, from);
        }
    }
    if (!e)
        e = merge_warnings(p, q);
    p->legacy = p->legacy && q->legacy;
    if (e)
        return sv_error_set(err, e, "%s: out of memory merging the MPI processes' rows", p->path);
    return SV_OK;
}

/* As the loader's own: the fast summary open reads no start, so the
 * smallest stored first start is the profile's minimum start then. */
static void stored_min_start(profile *p)
{
    if (p->has_min_start)
        return;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        if (r->has_event_data || !r->has_stored_summary ||
            !(r->stored.known & (1u << SUM_FIRST_START)))
            continue;
        int64_t v = (int64_t)r->stored.v[SUM_FIRST_START];
        if (!p->has_min_start || v < p->min_start_ns)
            p->min_start_ns = v;
        p->has_min_start = true;
    }
}

static bool all_minus_one(const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != -1)
            return false;
    return true;
}

/* The columnar loader's rule, on every row of a rank at once (a part saw
 * some only): call ids that are -1 in every row of a rank (native data)
 * are no call graph, and go. */
static void drop_fake_ids(profile *p)
{
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &p->ranks[i];
        bool real = false;
        for (size_t j = 0; j < rk->nregions && !real; j++) {
            const region *r = rk->regions[j];
            real = r->call_ids && !all_minus_one(r->call_ids, r->n);
        }
        for (size_t j = 0; j < rk->nregions && !real; j++) {
            region *r = rk->regions[j];
            free(r->call_ids);
            free(r->parent_ids);
            r->call_ids = r->parent_ids = NULL;
        }
    }
}

sv_err load_rows_finish(profile *p, sv_error *err)
{
    if (p->layout == LAYOUT_COLUMNAR)
        drop_fake_ids(p);
    sv_err e = profile_finish_steps(p, false, true, err);
    if (!e)
        stored_min_start(p);
    return e;
}
