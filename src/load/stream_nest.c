/* stream_nest: the containment sweep (model/nest_sweep.h) fed by
 * chunked readers (stream.h).  A rank without lane columns or call ids is
 * ordered by (start, -end, region, index): a k-way merge of its rows, each
 * already in (start, -end) order (the reader checked), so two heads never
 * come from one region and the index never decides.  Calls that overlap
 * partly open inferred lanes (first fit, at most NEST_LANES_MAX); a call's
 * exclusive time is its duration less the union of its direct children,
 * added to its region's total when it is popped.  Memory: the open calls,
 * not the calls. */
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"
#include "stream.h"
#include "model/nest_sweep.h"

/* An open call: nest_sweep's span, then what its pop adds up. */
typedef struct open_call {
    nest_span sp;
    int64_t cover_end, covered;
    uint32_t reg;
} open_call;

/* A popped call's exclusive time goes to its region's total. */
static bool pop_excl(void *ctx, size_t lane, void *call, int64_t s)
{
    (void)lane;
    (void)s;
    stream_sweep_out *out = ctx;
    const open_call *oc = call;
    int64_t x = (oc->sp.e - oc->sp.s) - oc->covered;
    out->excl[oc->reg] = ck_add(out->excl[oc->reg], x < 0 ? 0 : x);
    return true;
}

static size_t choose(nest_sweep *sw, stream_sweep_out *out, int64_t s, int64_t e)
{
    if (out->lanes && sw->nlanes == 1) /* one real lane: pop what does not contain c */
        return nest_lane_pop_to(sw, 0, s, e, pop_excl, out) ? 0 : SIZE_MAX;
    return nest_sweep_first_fit(sw, s, e, pop_excl, out);
}

static bool push(nest_sweep *sw, stream_sweep_out *out, int64_t s, int64_t e, uint32_t reg)
{
    size_t l = choose(sw, out, s, e);
    if (l == SIZE_MAX)
        return false;
    open_call *p = nest_lane_top(sw, &sw->lanes[l]);
    if (p) { /* children come in start order: the union grows at its end */
        if (s >= p->cover_end) {
            p->covered += e - s;
            p->cover_end = e;
        } else if (e > p->cover_end) {
            p->covered += e - p->cover_end;
            p->cover_end = e;
        }
    }
    open_call *c = nest_lane_push(sw, l);
    if (!c)
        return false;
    *c = (open_call){{s, e}, INT64_MIN, 0, reg};
    return true;
}

/* 1: src has a call at pos; 0: none left; -1: error. */
static int head(stream_src *src)
{
    if (src->pos < src->len)
        return 1;
    src->pos = 0;
    src->len = 0;
    return src->refill(src->ctx, src);
}

/* A heap entry: the head call of its source, copied so that comparing needs no indirection. */
typedef struct hkey {
    stream_u128 key; /* (start, -end) as one number: the scan's comparison */
    int64_t s, e;
    uint32_t reg;
    stream_src *src;
} hkey;

static bool less(const hkey *a, const hkey *b)
{
    if (a->s != b->s)
        return a->s < b->s;
    if (a->e != b->e)
        return a->e > b->e;
    return a->reg < b->reg;
}

/* (start, -end) as one unsigned number (nest_infer.c's merge_key): the
 * sign bit flipped keeps the order of signed values, the end's bits
 * inverted put the longer call first. */
static inline stream_u128 scan_key(int64_t s, int64_t e)
{
    uint64_t hi = (uint64_t)s ^ (UINT64_C(1) << 63);
    uint64_t lo = ~((uint64_t)e ^ (UINT64_C(1) << 63));
    return ((stream_u128)hi << 64) | lo;
}

/* How far ahead of a row's head its columns are fetched: the chunks come
 * from the reader thread's core, and with several rows' heads each
 * crossing a cache line every eight calls the sweep otherwise waits on
 * most of those lines. */
#define PREFETCH_AHEAD 64

static hkey key_of(stream_src *t)
{
    /* past the chunk's end too: a prefetch never faults */
    __builtin_prefetch(t->s + t->pos + PREFETCH_AHEAD);
    __builtin_prefetch(t->e + t->pos + PREFETCH_AHEAD);
    int64_t s = t->s[t->pos], e = t->e[t->pos];
    return (hkey){scan_key(s, e), s, e, t->reg, t};
}

/* Up to this many rows, the least head is found by a scan of the heads
 * kept in region order (nest_infer.c's merge): a heap's unpredictable
 * branches cost more than the few comparisons. */
#define SCAN_MAX 8

/* The least head; of equal keys the first, the smallest region. */
static size_t scan_min(const hkey *h, size_t n)
{
    size_t m = 0;
    stream_u128 mk = h[0].key;
    for (size_t j = 1; j < n; j++) {
        if (h[j].key < mk) {
            __asm__ volatile(""); /* a branch (predicted), as nest_infer.c's scan */
            m = j;
            mk = h[j].key;
        }
    }
    return m;
}

static void sift(hkey *h, size_t n, size_t i)
{
    hkey x = h[i];
    for (;;) {
        size_t l = 2 * i + 1, m = l;
        if (l >= n)
            break;
        if (l + 1 < n && less(&h[l + 1], &h[l]))
            m = l + 1;
        if (!less(&h[m], &x))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

int stream_sweep(stream_src *srcs, size_t nsrc, stream_sweep_out *out)
{
    nest_sweep sw;
    nest_sweep_init(&sw, sizeof(open_call));
    hkey *h = malloc((nsrc ? nsrc : 1) * sizeof *h);
    int rc = h ? 0 : -1;
    size_t n = 0;
    for (size_t i = 0; rc == 0 && i < nsrc; i++) {
        int k = head(&srcs[i]);
        if (k < 0)
            rc = -1;
        else if (k > 0)
            h[n++] = key_of(&srcs[i]);
    }
    /* Scanning: the heads in region order, kept so as rows run out. */
    bool scan = n <= SCAN_MAX;
    for (size_t i = 1; scan && i < n; i++)
        for (size_t j = i; j > 0 && h[j - 1].reg > h[j].reg; j--) {
            hkey x = h[j];
            h[j] = h[j - 1];
            h[j - 1] = x;
        }
    for (size_t i = n / 2; !scan && rc == 0 && i-- > 0;)
        sift(h, n, i);
    while (rc == 0 && n > 0) {
        size_t m = scan ? scan_min(h, n) : 0;
        stream_src *t = h[m].src;
        int64_t s = h[m].s, e = h[m].e;
        if (t->started && (s < t->ps || (s == t->ps && e > t->pe))) {
            rc = -2; /* the row is not in (start, -end) order */
            break;
        }
        t->started = true;
        t->ps = s;
        t->pe = e;
        if (!push(&sw, out, s, e, t->reg)) {
            rc = -1;
            break;
        }
        t->pos++;
        int k = head(t);
        if (k < 0) {
            rc = -1;
        } else if (scan) {
            if (k == 0)
                memmove(&h[m], &h[m + 1], (--n - m) * sizeof *h);
            else
                h[m] = key_of(t);
            continue;
        } else if (k == 0) {
            h[0] = h[--n];
        } else {
            h[0] = key_of(t);
            /* still the least of the heads (calls of one row in a run): no sift */
            if (n == 1 || ((n == 2 || less(&h[0], &h[2])) && less(&h[0], &h[1])))
                continue;
        }
        if (n)
            sift(h, n, 0);
    }
    for (size_t l = 0; l < sw.nlanes; l++)
        while (rc == 0 && sw.lanes[l].sp > 0)
            nest_lane_pop(&sw, l, pop_excl, out, 0);
    out->nlanes = rc == 0 && sw.nlanes > 1 ? (uint32_t)sw.nlanes : 0;
    out->capped = out->capped || sw.capped;
    nest_sweep_free(&sw);
    free(h);
    return rc;
}
