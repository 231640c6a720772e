/* gen_colexcl: exclusive totals of a columnar profile from its explicit call
 * graph, by doc/FORMAT.md's rule: a call's exclusive time is its
 * duration minus the length of the union of its direct children's intervals,
 * each clipped to the call.  Children are the calls of the same rank whose
 * parent id is the call's id (ids are unique within a rank only). */
#include <stdlib.h>

#include "gen_columnar.h"

typedef struct xc_call {
    int64_t id, start, end;
    size_t row;
} xc_call;

typedef struct xc_child {
    size_t parent; /* index into the rank's sorted calls */
    int64_t start, end;
} xc_child;

static int xc_by_id(const void *a, const void *b)
{
    const xc_call *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static int xc_by_parent(const void *a, const void *b)
{
    const xc_child *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* Index of the call with ID in the sorted CALLS, or N. */
static size_t xc_find(const xc_call *calls, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (calls[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && calls[lo].id == id ? lo : n;
}

/* Length of the union of children [c, c_end) of one parent, clipped to [s, e]. */
static int64_t xc_union(const xc_child *c, size_t n, int64_t s, int64_t e)
{
    int64_t total = 0, cur_s = 0, cur_e = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        int64_t a = c[i].start < s ? s : c[i].start, b = c[i].end > e ? e : c[i].end;
        if (b <= a)
            continue;
        if (open && a <= cur_e) {
            cur_e = b > cur_e ? b : cur_e;
            continue;
        }
        if (open)
            total += cur_e - cur_s;
        cur_s = a, cur_e = b, open = true;
    }
    return open ? total + cur_e - cur_s : total;
}

static void xc_rank(const gc_profile *p, int rank, int64_t *out)
{
    size_t n = 0;
    bool ids = true;
    for (size_t r = 0; r < p->nrows; r++) {
        const gc_row *w = &p->rows[r];
        if (w->rank != rank)
            continue;
        n += w->n;
        if (w->n && (!w->opt[GC_CALL] || !w->opt[GC_PARENT]))
            ids = false;
    }
    for (size_t r = 0; r < p->nrows; r++)
        if (p->rows[r].rank == rank)
            out[r] = ids ? 0 : -1;
    if (!ids || !n)
        return;
    xc_call *calls = gen_alloc(n, sizeof *calls);
    xc_child *kids = gen_alloc(n, sizeof *kids);
    size_t k = 0, nk = 0;
    for (size_t r = 0; r < p->nrows; r++)
        for (size_t i = 0; p->rows[r].rank == rank && i < p->rows[r].n; i++)
            calls[k++] =
                (xc_call){p->rows[r].opt[GC_CALL][i], p->rows[r].start[i], p->rows[r].end[i], r};
    qsort(calls, n, sizeof *calls, xc_by_id);
    for (size_t r = 0; r < p->nrows; r++)
        for (size_t i = 0; p->rows[r].rank == rank && i < p->rows[r].n; i++) {
            int64_t pid = p->rows[r].opt[GC_PARENT][i];
            size_t at = pid < 0 ? n : xc_find(calls, n, pid);
            if (at < n)
                kids[nk++] = (xc_child){at, p->rows[r].start[i], p->rows[r].end[i]};
        }
    qsort(kids, nk, sizeof *kids, xc_by_parent);
    for (size_t c = 0; c < n; c++)
        out[calls[c].row] += calls[c].end - calls[c].start;
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && kids[j].parent == kids[i].parent)
            j++;
        const xc_call *pc = &calls[kids[i].parent];
        out[pc->row] -= xc_union(kids + i, j - i, pc->start, pc->end);
        i = j;
    }
    free(calls);
    free(kids);
}

void gc_exclusive_totals(const gc_profile *p, int64_t *out)
{
    for (size_t r = 0; r < p->nrows; r++) {
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++)
            seen = p->rows[q].rank == p->rows[r].rank;
        if (!seen)
            xc_rank(p, p->rows[r].rank, out);
    }
}
