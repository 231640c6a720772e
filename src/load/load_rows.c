/* load_rows: who does what in an MPI batch run (load_rows.h): the plan,
 * and the rows a process reads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load_columnar_internal.h"
#include "load_rows.h"
#include "util/hash.h"

/* Estimated cost of a call, in relative units, from the CPU time of each
 * step on the 100M-call schema-3 benchmark file (bench/README.md "MPI"):
 * reading its columns (libhdf5, decoding) about 25 ns, its row's
 * statistics and percentiles 5 ns, its rank's nesting 14 ns.  Only the
 * ratios matter; an empty row costs 1 so that empty rows spread too. */
#define COST_READ 5u
#define COST_STATS 1u
#define COST_NEST 3u

/* ------------------------------------------------------------ the plan */

typedef struct plan_rank {
    int rank;
    uint64_t calls;
    int owner;
} plan_rank;

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Heaviest first; equal ones by rank: every process sorts alike. */
static int cmp_rank_load(const void *a, const void *b)
{
    const plan_rank *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_rank_num(const void *a, const void *b)
{
    const plan_rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Rows heaviest first, then by rank and name (not by their order in the
 * file: process 0 plans over its loaded regions, the others over the
 * file's index). */
static int cmp_row_load(const void *a, const void *b)
{
    const plan_row *x = *(const plan_row *const *)a, *y = *(const plan_row *const *)b;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t cost(uint64_t calls, unsigned per_call)
{
    return calls > (UINT64_MAX - 1) / per_call ? UINT64_MAX : calls * per_call + 1;
}

/* The ranks of rows, each with its calls; *nr of them, sorted by number. */
static plan_rank *plan_ranks(const plan_row *rows, size_t n, size_t *nr)
{
    int *nums = malloc((n ? n : 1) * sizeof *nums);
    plan_rank *v = calloc(n ? n : 1, sizeof *v);
    if (!nums || !v) {
        free(nums);
        free(v);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        nums[i] = rows[i].rank;
    qsort(nums, n, sizeof *nums, cmp_int);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1].rank != nums[i])
            v[k++].rank = nums[i];
    free(nums);
    for (size_t i = 0; i < n; i++) {
        plan_rank key = {rows[i].rank, 0, 0};
        plan_rank *r = bsearch(&key, v, k, sizeof *v, cmp_rank_num);
        r->calls = sat_add(r->calls, rows[i].calls);
    }
    *nr = k;
    return v;
}

/* The process whose load grows least by taking the work (lowest on ties),
 * among process 0 and those k > 0 with may[k] (NULL: every process). */
static int lightest(const uint64_t *load, int count, uint64_t at0, uint64_t elsewhere,
                    const bool *may)
{
    int best = 0;
    uint64_t best_v = sat_add(load[0], at0);
    for (int k = 1; k < count; k++) {
        if (may && !may[k])
            continue;
        uint64_t v = sat_add(load[k], elsewhere);
        if (v < best_v) {
            best = k;
            best_v = v;
        }
    }
    return best;
}

bool load_plan(plan_row *rows, size_t n, int count)
{
    for (size_t i = 0; i < n; i++)
        rows[i].stats = rows[i].nest = 0;
    if (count <= 1 || n == 0)
        return true;
    size_t nr = 0;
    plan_rank *rk = plan_ranks(rows, n, &nr);
    uint64_t *load = calloc((size_t)count, sizeof *load);
    bool *nests = calloc((size_t)count, sizeof *nests);
    const plan_row **order = malloc(n * sizeof *order);
    if (!rk || !load || !nests || !order) {
        free(rk);
        free(load);
        free(nests);
        free(order);
        return false;
    }
    /* Process 0 reads every row whatever it computes. */
    for (size_t i = 0; i < n; i++)
        load[0] = sat_add(load[0], cost(rows[i].calls, COST_READ));
    /* Ranks: nested at 0 (rows read already), or elsewhere with their
     * statistics (the rows read there). */
    qsort(rk, nr, sizeof *rk, cmp_rank_load);
    for (size_t j = 0; j < nr; j++) {
        uint64_t c = rk[j].calls;
        int k = lightest(load, count, cost(c, COST_NEST),
                         cost(c, COST_READ + COST_STATS + COST_NEST), NULL);
        load[k] =
            sat_add(load[k], k ? cost(c, COST_READ + COST_STATS + COST_NEST) : cost(c, COST_NEST));
        rk[j].owner = k;
        nests[k] = true;
    }
    qsort(rk, nr, sizeof *rk, cmp_rank_num);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        plan_rank key = {rows[i].rank, 0, 0};
        const plan_rank *r = bsearch(&key, rk, nr, sizeof *rk, cmp_rank_num);
        rows[i].nest = rows[i].stats = r->owner;
        if (r->owner == 0)
            order[m++] = &rows[i];
    }
    /* The rows of process 0's ranks: statistics where they finish soonest,
     * but never on a process that nests no rank: it would read rows only to
     * save process 0 their statistics, the cheapest step (a fifth of the
     * read), and on a machine without idle cores (the one-rank file, 2
     * processes on 2 shared cores: bench/README.md "MPI") that second read
     * slowed process 0 more than it saved. */
    qsort(order, m, sizeof *order, cmp_row_load);
    for (size_t j = 0; j < m; j++) {
        uint64_t c = order[j]->calls;
        int k = lightest(load, count, cost(c, COST_STATS), cost(c, COST_READ + COST_STATS), nests);
        load[k] = sat_add(load[k], k ? cost(c, COST_READ + COST_STATS) : cost(c, COST_STATS));
        ((plan_row *)order[j])->stats = k;
    }
    free(rk);
    free(load);
    free(nests);
    free(order);
    return true;
}

/* ------------------------------------------------------------ schema 1 */

/* Sizes are unknown before a row is read: a hash of the rank and the name
 * over processes 1..count-1 (process 0 nests every rank). */
static int groups_stats_owner(int rank, const char *name, int count)
{
    if (count <= 1)
        return 0;
    /* FNV-1a over the rank and the name: the same in every process. */
    uint64_t h = SV_FNV64_INIT;
    for (int i = 0; i < 4; i++)
        h = sv_fnv64_byte(h, (uint8_t)((unsigned)rank >> (8 * i)));
    h = sv_fnv64_str(h, name);
    return 1 + (int)(h % (uint64_t)(count - 1));
}

bool load_part_owns(const load_part *pt, int rank, const char *name)
{
    if (!pt || pt->count <= 1 || pt->index == 0)
        return true;
    return groups_stats_owner(rank, name, pt->count) == pt->index;
}

/* ------------------------------------------------------------ columnar */

static void nest_list_add(load_nest_list *l, int rank)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->rank[i] == rank)
            return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        int *v = realloc(l->rank, cap * sizeof *v);
        if (!v) {
            l->oom = true;
            return;
        }
        l->rank = v;
        l->cap = cap;
    }
    l->rank[l->n++] = rank;
}

void load_nest_list_free(load_nest_list *l)
{
    if (!l)
        return;
    free(l->rank);
    memset(l, 0, sizeof *l);
}

bool lc_partition(lc_file *lf, const load_part *pt)
{
    if (!pt || pt->count <= 1 || lf->nkept == 0)
        return true;
    size_t n = lf->nkept;
    plan_row *rows = malloc(n * sizeof *rows);
    if (!rows)
        return false;
    for (size_t j = 0; j < n; j++) {
        size_t i = lf->order[j];
        rows[j] = (plan_row){lf->ix.rank[i], row_name(lf, i), lf->cnt[i], 0, 0};
    }
    if (!load_plan(rows, n, pt->count)) {
        free(rows);
        return false;
    }
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = lf->order[j];
        if (rows[j].nest == pt->index && pt->nests)
            nest_list_add(pt->nests, rows[j].rank);
        if (pt->index == 0 || rows[j].stats == pt->index || rows[j].nest == pt->index)
            lf->order[m++] = i;
        else
            lf->ix.keep[i] = false; /* not dropped: another process reads it */
    }
    lf->nkept = m;
    free(rows);
    return true;
}

/* ------------------------------------------------------------ process 0 */

/* Process 0's plan over its loaded profile: each region's statistics
 * owner (in p->regions order) and each rank's nesting owner (p->ranks
 * order).  Schema 1 by the hash, columnar by load_plan over the regions
 * (a C-API set: each file, that is each rank, planned alone, as its file's
 * load did). */
bool load_rows_plan_profile(const profile *p, int count, int *stats, int *nest)
{
    for (size_t i = 0; i < p->nranks; i++)
        nest[i] = 0;
    if (p->layout != LAYOUT_COLUMNAR) {
        for (size_t i = 0; i < p->nregions; i++)
            stats[i] = p->layout == LAYOUT_GROUPS || p->layout == LAYOUT_NATIVE
                           ? groups_stats_owner(p->regions[i]->rank, p->regions[i]->name, count)
                           : 0;
        return true;
    }
    plan_row *rows = malloc((p->nregions ? p->nregions : 1) * sizeof *rows);
    if (!rows)
        return false;
    for (size_t i = 0; i < p->nregions; i++) {
        const region *r = p->regions[i];
        rows[i] = (plan_row){r->rank, r->name, r->has_event_data ? r->n : 0, 0, 0};
    }
    bool ok = true;
    if (p->npaths > 1) { /* p->regions run rank by rank */
        for (size_t i = 0; ok && i < p->nregions;) {
            size_t j = i;
            while (j < p->nregions && rows[j].rank == rows[i].rank)
                j++;
            ok = load_plan(rows + i, j - i, count);
            i = j;
        }
    } else {
        ok = load_plan(rows, p->nregions, count);
    }
    for (size_t i = 0, k = 0; ok && i < p->nregions; i++) {
        stats[i] = rows[i].stats;
        while (k < p->nranks && p->ranks[k].rank != rows[i].rank) /* both by rank */
            k++;
        if (k < p->nranks)
            nest[k] = rows[i].nest;
    }
    free(rows);
    return ok;
}
