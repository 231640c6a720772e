/* export_walk: each lane of the timeline's index as a properly nested sequence of opens and
 * closes in time order (export_internal.h), what the Chrome and speedscope writers need.
 *
 * A lane's calls are gathered from its depth rows, sorted by start, then swept with a stack
 * of open calls: a call opens inside the open call that contains it in time, and every open
 * call that does not contain it closes first.  Within a lane calls nest or are disjoint
 * (threads and tasks do, and the inferred lanes are made so), except in a file whose
 * explicit parent ids say otherwise; an open call that a later one outlasts is cut, its end
 * moved to where the later one starts (which covers the rest of it, so the lane's busy time
 * is kept), so that every consumer reads a valid nesting (counted, and said once).
 *
 * Calls of no length need care: a reader that pairs opens and closes by time (speedscope's
 * Trace Event import) takes, at one instant, closes before opens unless they are the same
 * call.  So a call of no length is written before the calls with a length that start at the
 * same instant (beside its caller rather than in it, when the caller starts then too) and
 * never holds another call: the order then reads back the same in every consumer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "util/text.h"

typedef struct walk_entry {
    int64_t start, end; /* cut to the range */
    const region *r;    /* the call is r's g - r->gidx0 */
    uint32_t g, depth;  /* rank call index, lane depth in the index (ties only) */
    bool cut;           /* by the range */
} walk_entry;

typedef struct walk_ctx {
    const export_walk_ops *ops;
    void *u;
    export_walk_stats *st;
    int64_t lo, hi;      /* the range, absolute ns; [INT64_MIN, INT64_MAX] without one */
    walk_entry *v, *tmp; /* one lane's calls; the merge's second buffer */
    size_t n, cap;
    size_t *runs; /* where each depth row's calls start in v, then n */
    size_t nruns, runs_cap;
    export_call *stack;
    size_t sp, scap;
} walk_ctx;

int64_t export_zero(const profile *p)
{
    return p->has_min_start ? p->min_start_ns : 0;
}

/* (start, no length first, end descending, index depth, call): an enclosing call before
 * what it encloses; identical spans keep the index's nesting. */
static int entry_cmp(const void *a, const void *b)
{
    const walk_entry *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    bool xl = x->end > x->start, yl = y->end > y->start;
    if (xl != yl)
        return xl ? 1 : -1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

/* A call is written when it overlaps [lo, hi); a zero-length one when it lies in it. */
static bool in_range(const walk_ctx *w, int64_t s, int64_t e)
{
    return e > s ? s < w->hi && e > w->lo : s >= w->lo && s < w->hi;
}

static bool grow_entries(walk_ctx *w)
{
    size_t nc = w->cap ? w->cap * 2 : 1024;
    walk_entry *nv = realloc(w->v, nc * sizeof *nv);
    if (nv)
        w->v = nv;
    walk_entry *nt = nv ? realloc(w->tmp, nc * sizeof *nt) : NULL;
    if (nt)
        w->tmp = nt;
    if (!nv || !nt)
        return false;
    w->cap = nc;
    return true;
}

static bool push_run(walk_ctx *w, size_t at)
{
    if (w->nruns == w->runs_cap) {
        size_t nc = w->runs_cap ? w->runs_cap * 2 : 16;
        size_t *nr = realloc(w->runs, nc * sizeof *nr);
        if (!nr)
            return false;
        w->runs = nr;
        w->runs_cap = nc;
    }
    w->runs[w->nruns++] = at;
    return true;
}

/* One depth row's calls in the range, appended to v as one run.  A row is in start order;
 * only calls that start together may need the walk's finer order, which a check finds. */
static bool gather_row(walk_ctx *w, const lane *ln, const lane_row *row, uint32_t d)
{
    size_t first = w->n;
    size_t k = w->lo > INT64_MIN ? lane_row_first_visible(ln, row, w->lo) : 0;
    for (; k < row->n; k++) {
        uint32_t g = lane_row_call(row, k);
        size_t i = 0;
        const region *r = rank_call_region(ln->rk, g, &i);
        if (r && r->start_ns[i] >= w->hi)
            break; /* every later call starts later still */
        if (!r || !in_range(w, r->start_ns[i], r->end_ns[i]))
            continue;
        if (w->n == w->cap && !grow_entries(w))
            return false;
        int64_t s = r->start_ns[i] > w->lo ? r->start_ns[i] : w->lo;
        int64_t e = r->end_ns[i] < w->hi ? r->end_ns[i] : w->hi;
        e = e < s ? s : e;
        bool cut = s != r->start_ns[i] || e != r->end_ns[i];
        w->v[w->n++] = (walk_entry){s, e, r, g, d, cut};
    }
    for (size_t j = first + 1; j < w->n; j++)
        if (entry_cmp(&w->v[j - 1], &w->v[j]) > 0) {
            qsort(w->v + first, w->n - first, sizeof *w->v, entry_cmp);
            break;
        }
    return w->n == first || push_run(w, first);
}

/* Merges the sorted runs pairwise: O(n log rows) moves rather than a sort's O(n log n). */
static void merge_runs(walk_ctx *w)
{
    while (w->nruns > 1) {
        size_t out = 0, nr = 0;
        for (size_t k = 0; k < w->nruns; k += 2) {
            size_t a = w->runs[k], am = k + 1 < w->nruns ? w->runs[k + 1] : w->n;
            size_t b = am, bm = k + 2 < w->nruns ? w->runs[k + 2] : w->n;
            w->runs[nr++] = out;
            while (a < am && b < bm)
                w->tmp[out++] = entry_cmp(&w->v[b], &w->v[a]) < 0 ? w->v[b++] : w->v[a++];
            while (a < am)
                w->tmp[out++] = w->v[a++];
            while (b < bm)
                w->tmp[out++] = w->v[b++];
        }
        walk_entry *t = w->v;
        w->v = w->tmp;
        w->tmp = t;
        w->nruns = nr;
    }
}

static sv_err gather(walk_ctx *w, const lane *ln, sv_error *err)
{
    w->n = 0;
    w->nruns = 0;
    for (uint32_t d = 0; d < ln->ndepth; d++)
        if (!gather_row(w, ln, &ln->rows[d], d))
            return sv_error_set(err, SV_ERR_NOMEM, "out of memory (export)");
    merge_runs(w);
    return SV_OK;
}

/* Closes the top of the stack. */
static sv_err pop(walk_ctx *w)
{
    export_call *c = &w->stack[--w->sp];
    export_call shown = *c;
    shown.depth = (uint32_t)w->sp;
    return w->ops->close(w->u, &shown);
}

/* Whether e opens inside the open call top: top has a length and e starts inside it, or
 * at its end with no length (a zero-length call at a call's end is nested in it). */
static bool contains(const export_call *top, const walk_entry *e)
{
    if (top->end == top->start)
        return false;
    return e->start < top->end || (e->start == top->end && e->end == e->start);
}

static sv_err push(walk_ctx *w, const walk_entry *e, sv_error *err)
{
    sv_err rc = SV_OK;
    while (rc == SV_OK && w->sp > 0 && !contains(&w->stack[w->sp - 1], e))
        rc = pop(w);
    /* An open call that e outlasts overlaps it partly: it ends where e starts (e covers the
     * rest of it, so the lane's busy time is kept). */
    while (rc == SV_OK && w->sp > 0 && e->end > w->stack[w->sp - 1].end) {
        w->stack[w->sp - 1].end = e->start;
        w->stack[w->sp - 1].cut = true;
        w->st->overlap++;
        rc = pop(w);
    }
    if (rc != SV_OK)
        return rc;
    if (w->sp == w->scap) {
        size_t nc = w->scap ? w->scap * 2 : 64;
        export_call *ns = realloc(w->stack, nc * sizeof *ns);
        if (!ns)
            return sv_error_set(err, SV_ERR_NOMEM, "out of memory (export)");
        w->stack = ns;
        w->scap = nc;
    }
    export_call c = {.r = e->r,
                     .i = e->g - e->r->gidx0,
                     .g = e->g,
                     .start = e->start,
                     .end = e->end,
                     .cut = e->cut};
    w->stack[w->sp] = c;
    /* Writers see the depth among the calls written: filtered ancestors do not count. */
    c.depth = (uint32_t)w->sp;
    w->sp++;
    w->st->calls++;
    return w->ops->open(w->u, &c);
}

static sv_err walk_lane(walk_ctx *w, const lane *ln, size_t in_rank, sv_error *err)
{
    sv_err rc = gather(w, ln, err);
    if (rc != SV_OK || w->n == 0)
        return rc;
    int64_t t1 = w->v[0].end;
    for (size_t k = 1; k < w->n; k++)
        t1 = w->v[k].end > t1 ? w->v[k].end : t1;
    w->st->lanes++;
    rc = w->ops->begin(w->u, ln, in_rank, w->v[0].start, t1);
    w->sp = 0;
    for (size_t k = 0; rc == SV_OK && k < w->n; k++)
        rc = push(w, &w->v[k], err);
    while (rc == SV_OK && w->sp > 0)
        rc = pop(w);
    return rc == SV_OK ? w->ops->end(w->u, ln) : rc;
}

static void walk_bounds(walk_ctx *w, int64_t zero, const export_range *rg)
{
    w->lo = INT64_MIN;
    w->hi = INT64_MAX;
    if (rg->has_from)
        w->lo = rg->from_ns > INT64_MAX - zero ? INT64_MAX : zero + rg->from_ns;
    if (rg->has_to)
        w->hi = rg->to_ns > INT64_MAX - zero ? INT64_MAX : zero + rg->to_ns;
}

static void walk_free(walk_ctx *w)
{
    free(w->v);
    free(w->tmp);
    free(w->runs);
    free(w->stack);
}

sv_err export_walk(profile *p, const region_filter *f, const export_range *rg,
                   const export_walk_ops *ops, void *u, export_walk_stats *st, sv_error *err)
{
    lanes_index *ix = NULL;
    memset(st, 0, sizeof *st);
    sv_err rc = lanes_build(p, f, &ix, err);
    if (rc != SV_OK)
        return rc;
    walk_ctx w = {.ops = ops, .u = u, .st = st};
    walk_bounds(&w, export_zero(p), rg);
    for (size_t k = 0; rc == SV_OK && k < p->nranks; k++)
        for (size_t l = ix->rank_lane0[k]; rc == SV_OK && l < ix->rank_lane0[k + 1]; l++)
            rc = walk_lane(&w, &ix->lanes[l], l - ix->rank_lane0[k], err);
    walk_free(&w);
    lanes_free(ix);
    return rc;
}

sv_err export_walk_rank(const lanes_index *ix, size_t ix_rank, int64_t zero, const export_range *rg,
                        const export_walk_ops *ops, void *u, export_walk_stats *st, sv_error *err)
{
    memset(st, 0, sizeof *st);
    walk_ctx w = {.ops = ops, .u = u, .st = st};
    walk_bounds(&w, zero, rg);
    sv_err rc = SV_OK;
    for (size_t l = ix->rank_lane0[ix_rank]; rc == SV_OK && l < ix->rank_lane0[ix_rank + 1]; l++)
        rc = walk_lane(&w, &ix->lanes[l], l - ix->rank_lane0[ix_rank], err);
    walk_free(&w);
    return rc;
}

void export_warn_overlap(FILE *warn, const export_walk_stats *st)
{
    if (warn && st->overlap)
        fprintf(warn,
                "scopeview: warning: %zu calls overlap a later call of their lane partly (the "
                "file's parent ids nest them so): written ending where that call starts\n",
                st->overlap);
}

/* "00" to "99": two digits a division. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930"
    "31323334353637383940414243444546474849505152535455565758596061"
    "62636465666768697071727374757677787980818283848586878889909192"
    "93949596979899";

/* Writes the digits of a at p; returns their end.  In place, from the last digit: a copy of
 * a variable length is a call of its own, dearer than the digits (several numbers a call). */
static char *put_u64_at(char *p, uint64_t a)
{
    static const uint64_t pow10[20] = {1ULL,
                                       10ULL,
                                       100ULL,
                                       1000ULL,
                                       10000ULL,
                                       100000ULL,
                                       1000000ULL,
                                       10000000ULL,
                                       100000000ULL,
                                       1000000000ULL,
                                       10000000000ULL,
                                       100000000000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       100000000000000ULL,
                                       1000000000000000ULL,
                                       10000000000000000ULL,
                                       100000000000000000ULL,
                                       1000000000000000000ULL,
                                       10000000000000000000ULL};
    /* digits from the bit length (x 1233 / 4096 ~ log10 2), one less below its power */
    unsigned t = (unsigned)(64 - __builtin_clzll(a | 1)) * 1233 >> 12;
    size_t n = t + 1 - ((a | 1) < pow10[t]); /* a | 1: 0 has a digit too */
    char *q = p + n;
    /* Eight digits a 64-bit division; the rest (most numbers: times in us, call indices)
     * with 32-bit ones, four digits a step, whose two pairs do not wait on each other. */
    while (a > UINT32_MAX) {
        uint32_t r = (uint32_t)(a % 100000000u);
        a /= 100000000u;
        for (int i = 0; i < 4; i++, r /= 100)
            memcpy(q -= 2, digit_pairs + 2 * (r % 100), 2);
    }
    uint32_t b = (uint32_t)a;
    while (b >= 10000) {
        uint32_t r = b % 10000;
        b /= 10000;
        memcpy(q -= 2, digit_pairs + 2 * (r % 100), 2);
        memcpy(q -= 2, digit_pairs + 2 * (r / 100), 2);
    }
    if (b >= 100) {
        memcpy(q -= 2, digit_pairs + 2 * (b % 100), 2);
        b /= 100;
    }
    if (b >= 10)
        memcpy(q - 2, digit_pairs + 2 * b, 2);
    else
        q[-1] = (char)('0' + b);
    return p + n;
}

static uint64_t magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

char *export_i64_at(char *p, int64_t v)
{
    if (v < 0)
        *p++ = '-';
    return put_u64_at(p, magnitude(v));
}

char *export_us_at(char *p, int64_t ns)
{
    uint64_t a = magnitude(ns);
    if (ns < 0)
        *p++ = '-';
    p = put_u64_at(p, a / 1000);
    unsigned frac = (unsigned)(a % 1000);
    p[0] = '.';
    p[1] = (char)('0' + frac / 100);
    memcpy(p + 2, digit_pairs + 2 * (frac % 100), 2);
    return p + 4;
}

/* Ends b at p, which a reserve of room made valid. */
static void end_at(strbuf *b, char *p)
{
    b->len = (size_t)(p - b->s);
    b->s[b->len] = '\0';
}

void export_put_i64(strbuf *b, int64_t v)
{
    if (sb_reserve(b, EXPORT_NUM_MAX))
        end_at(b, export_i64_at(b->s + b->len, v));
}

void export_put_us(strbuf *b, int64_t ns)
{
    if (sb_reserve(b, EXPORT_NUM_MAX))
        end_at(b, export_us_at(b->s + b->len, ns));
}

sv_err export_flush(strbuf *b, FILE *fp, sv_error *err)
{
    if (b->oom)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory while writing the export");
    if (b->len)
        fwrite(b->s, 1, b->len, fp);
    sb_reset(b);
    if (!ferror(fp))
        return SV_OK;
    int e = errno ? errno : EIO;
    sv_error_set(err, SV_ERR_IO, "%s", strerror(e));
    errno = e; /* for the caller's sink or its closed-pipe check */
    return SV_ERR_IO;
}
