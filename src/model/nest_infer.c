/* Inferred nesting: order the calls of a rank by (lane, start, -end,
 * region, index) and sweep them with a stack of open calls.  A legacy rank
 * (no lane columns) is ordered by merging its regions' columns, which are
 * already in start order, so no sort of the whole rank is needed. */
#include <stdlib.h>
#include <string.h>

#include "nest_infer.h"
#include "par.h"
#include "nest.h"

static call_key key_of(const rank_data *rk, uint32_t reg, uint32_t idx)
{
    const region *r = rk->regions[reg];
    call_key k = {r->thread_ids ? r->thread_ids[idx] : -1,
                  r->task_ids ? r->task_ids[idx] : -1,
                  r->start_ns[idx],
                  r->end_ns[idx],
                  reg,
                  (uint32_t)(r->gidx0 + idx)};
    return k;
}

static int key_cmp(const call_key *a, const call_key *b)
{
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->task != b->task)
        return a->task < b->task ? -1 : 1;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    if (a->e != b->e)
        return a->e > b->e ? -1 : 1;
    if (a->reg != b->reg)
        return a->reg < b->reg ? -1 : 1;
    return (a->g > b->g) - (a->g < b->g);
}

int nest_key_cmp(const void *a, const void *b)
{
    return key_cmp(a, b);
}

/* --- the ordered stream of calls ------------------------------------ */

/* A region's next call in merge mode.  Without lanes the order is (start,
 * -end, region): two heads never come from the same region, so the
 * recorded index never decides. */
/* Up to this many regions, merge by scanning the heads, not by a heap. */
#define SCAN_MAX 8

/* (start, -end) as one unsigned number, so that a head's order is one
 * 128-bit comparison: the sign bit flipped keeps the order of signed
 * values, and the end's bits are inverted so that the longer call comes
 * first. */
static inline merge_key merge_key_of(int64_t s, int64_t e)
{
    uint64_t hi = (uint64_t)s ^ (UINT64_C(1) << 63);
    uint64_t lo = ~((uint64_t)e ^ (UINT64_C(1) << 63));
    return ((merge_key)hi << 64) | lo;
}

static bool region_in_order(const region *r)
{
    for (size_t i = 1; i < r->n; i++) {
        if (r->start_ns[i] < r->start_ns[i - 1])
            return false;
        if (r->start_ns[i] == r->start_ns[i - 1] && r->end_ns[i] > r->end_ns[i - 1])
            return false;
    }
    return true;
}

static int perm_cmp(const void *a, const void *b, void *ctx)
{
    const region *r = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (r->start_ns[x] != r->start_ns[y])
        return r->start_ns[x] < r->start_ns[y] ? -1 : 1;
    if (r->end_ns[x] != r->end_ns[y])
        return r->end_ns[x] > r->end_ns[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static uint32_t *region_perm(const region *r)
{
    uint32_t *p = malloc(r->n * sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i < r->n; i++)
        p[i] = (uint32_t)i;
    qsort_r(p, r->n, sizeof *p, perm_cmp, (void *)r);
    return p;
}

static inline bool heap_less(const heap_item *a, const heap_item *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    return a->reg < b->reg;
}

static void heap_sift_down(heap_item *h, size_t n, size_t i)
{
    heap_item x = h[i];
    for (;;) {
        size_t l = 2 * i + 1, m = l;
        if (l >= n)
            break;
        if (l + 1 < n && heap_less(&h[l + 1], &h[l]))
            m = l + 1;
        if (!heap_less(&h[m], &x))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

static inline uint32_t item_idx(const heap_item *h)
{
    return h->perm ? h->perm[h->pos] : h->pos;
}

static inline void item_load(heap_item *h)
{
    uint32_t i = item_idx(h);
    h->s = h->sp[i];
    h->e = h->ep[i];
    h->key = merge_key_of(h->s, h->e);
}

/* Moves h to its region's next call; false when there is none. */
static inline bool item_advance(heap_item *h)
{
    if (++h->pos >= h->n)
        return false;
    item_load(h);
    return true;
}

/* Back to region order (the heap has shrunk to scanning size). */
static void items_by_region(heap_item *h, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        heap_item x = h[i];
        size_t j = i;
        for (; j > 0 && h[j - 1].reg > x.reg; j--)
            h[j] = h[j - 1];
        h[j] = x;
    }
}

static bool merge_init(call_iter *it)
{
    const rank_data *rk = it->rk;
    it->heap = malloc((rk->nregions ? rk->nregions : 1) * sizeof *it->heap);
    it->perm = calloc(rk->nregions ? rk->nregions : 1, sizeof *it->perm);
    if (!it->heap || !it->perm)
        return false;
    for (uint32_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (!r->has_event_data || r->n == 0)
            continue;
        if (!region_in_order(r) && !(it->perm[j] = region_perm(r)))
            return false;
        heap_item *h = &it->heap[it->nheap++];
        *h = (heap_item){0,           0, 0, r->start_ns,    r->end_ns,
                         it->perm[j], j, 0, (uint32_t)r->n, (uint32_t)r->gidx0};
        item_load(h);
    }
    it->scan = it->nheap <= SCAN_MAX;
    if (!it->scan)
        for (size_t i = it->nheap / 2; i-- > 0;)
            heap_sift_down(it->heap, it->nheap, i);
    return true;
}

static bool sorted_init(call_iter *it)
{
    const rank_data *rk = it->rk;
    it->keys = malloc((rk->ncalls ? rk->ncalls : 1) * sizeof *it->keys);
    if (!it->keys)
        return false;
    for (uint32_t j = 0; j < rk->nregions; j++)
        for (uint32_t i = 0; i < rk->regions[j]->n; i++)
            it->keys[it->nkeys++] = key_of(rk, j, i);
    qsort(it->keys, it->nkeys, sizeof *it->keys, nest_key_cmp);
    return true;
}

/* Few regions: the smallest head by a branch-free scan (a heap's
 * unpredictable branches cost more than the extra comparisons); the first
 * of equal keys wins, the smallest region. */
static inline size_t scan_min(const heap_item *h, size_t n)
{
    size_t m = 0;
    merge_key mk = h[0].key;
    for (size_t j = 1; j < n; j++) {
        if (h[j].key < mk) {
            __asm__ volatile("");
            m = j;
            mk = h[j].key;
        }
    }
    return m;
}

static inline bool iter_next(call_iter *it, call_key *out)
{
    if (it->keys) {
        if (it->next >= it->nkeys)
            return false;
        *out = it->keys[it->next++];
        return true;
    }
    if (it->nheap == 0)
        return false;
    if (it->scan) {
        size_t m = scan_min(it->heap, it->nheap);
        heap_item *h = &it->heap[m];
        call_key k = {-1, -1, h->s, h->e, h->reg, h->g0 + item_idx(h)};
        *out = k;
        if (!item_advance(h)) {
            memmove(h, h + 1, (--it->nheap - m) * sizeof *h);
        }
        return true;
    }
    heap_item *top = &it->heap[0];
    call_key k = {-1, -1, top->s, top->e, top->reg, top->g0 + item_idx(top)};
    *out = k;
    if (!item_advance(top))
        it->heap[0] = it->heap[--it->nheap];
    heap_sift_down(it->heap, it->nheap, 0);
    if (it->nheap <= SCAN_MAX) {
        items_by_region(it->heap, it->nheap);
        it->scan = true;
    }
    return true;
}

void nest_iter_free(call_iter *it)
{
    if (it->perm)
        for (size_t j = 0; j < it->rk->nregions; j++)
            free(it->perm[j]);
    free(it->perm);
    free(it->heap);
    if (!it->keys_borrowed)
        free(it->keys);
}

bool nest_iter_range(call_iter *it, const rank_data *rk, const uint32_t *lo, const uint32_t *hi)
{
    memset(it, 0, sizeof *it);
    it->rk = rk;
    it->heap = malloc((rk->nregions ? rk->nregions : 1) * sizeof *it->heap);
    if (!it->heap)
        return false;
    for (uint32_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (!r->has_event_data || lo[j] >= hi[j])
            continue;
        heap_item *h = &it->heap[it->nheap++];
        *h =
            (heap_item){0, 0, 0, r->start_ns, r->end_ns, NULL, j, lo[j], hi[j], (uint32_t)r->gidx0};
        item_load(h);
    }
    it->scan = it->nheap <= SCAN_MAX;
    if (!it->scan)
        for (size_t i = it->nheap / 2; i-- > 0;)
            heap_sift_down(it->heap, it->nheap, i);
    return true;
}

void nest_iter_keys(call_iter *it, const rank_data *rk, call_key *keys, size_t n)
{
    memset(it, 0, sizeof *it);
    it->rk = rk;
    it->keys = keys;
    it->nkeys = n;
    it->keys_borrowed = true;
}

static bool rank_has_lanes(const rank_data *rk)
{
    for (size_t j = 0; j < rk->nregions; j++)
        if (rk->regions[j]->thread_ids || rk->regions[j]->task_ids)
            return true;
    return false;
}

/* --- the sweep ------------------------------------------------------ */

/* The lanes, their first fit and the limit of inferred lanes are
 * nest_sweep.h's; what a pop adds up is this file's. */

/* A split sweep's part pops a call that was open when the part began: its
 * covered time is known only with the part before (nest_split.c). */
static __attribute__((noinline)) void carried_pop_record(sweep *sw, size_t l, const open_call *oc)
{
    if (sw->ncpops == sw->cpops_cap) {
        size_t cap = sw->cpops_cap ? sw->cpops_cap * 2 : 16;
        carried_pop *v = realloc(sw->cpops, cap * sizeof *v);
        if (!v) {
            sw->nomem = true;
            return;
        }
        sw->cpops = v;
        sw->cpops_cap = cap;
    }
    carried_pop cp = {(uint32_t)l, (uint32_t)sw->ns.lanes[l].sp, oc->covered};
    sw->cpops[sw->ncpops++] = cp;
}

/* nest_sweep's pop: the call's exclusive time (it is still at `call`). */
static inline bool infer_pop(void *ctx, size_t l, void *call, int64_t s)
{
    (void)s;
    sweep *sw = ctx;
    const open_call *oc = call;
    if (oc->carried) {
        carried_pop_record(sw, l, oc);
        return true;
    }
    int64_t excl = (oc->span.e - oc->span.s) - oc->covered;
    if (excl < 0)
        excl = 0;
    /* Per call, the totals pass set the region's total; a totals pass with
     * excl also gives the calls' (nest_rank_totals_parents). */
    if (sw->excl_tot)
        sw->excl_tot[oc->reg] = ck_add(sw->excl_tot[oc->reg], excl);
    if (sw->out->excl)
        sw->out->excl[oc->g] = excl;
    return true;
}

void nest_infer_pop(sweep *sw, size_t l)
{
    nest_lane_pop(&sw->ns, l, infer_pop, sw, 0);
}

/* Children reach their parent in start order, so the union grows at its
 * right end only. */
static void add_child(open_call *p, const call_key *c)
{
    if (c->s >= p->cover_end) {
        p->covered += c->e - c->s;
        p->cover_end = c->e;
    } else if (c->e > p->cover_end) {
        p->covered += c->e - p->cover_end;
        p->cover_end = c->e;
    }
}

/* With real lanes (thread/task columns) the calls come lane by lane onto
 * one stack: a new lane pops every call of the one before (none contains
 * a call of another thread), then what does not contain c is popped. */
static size_t real_lane(sweep *sw, const call_key *c)
{
    if (sw->ns.nlanes == 0 && !nest_sweep_lanes_to(&sw->ns, 1))
        return SIZE_MAX;
    if (c->thread != sw->thread || c->task != sw->task) {
        while (sw->ns.lanes[0].sp > 0)
            nest_infer_pop(sw, 0);
        sw->thread = c->thread;
        sw->task = c->task;
    }
    return nest_lane_pop_to(&sw->ns, 0, c->s, c->e, infer_pop, sw) ? 0 : SIZE_MAX;
}

/* Per call: the second lane needs the lane column (earlier calls: 0). */
static bool lane_column(sweep *sw)
{
    size_t n = sw->rk->ncalls;
    sw->out->lane = calloc(n ? n : 1, sizeof *sw->out->lane);
    return sw->out->lane != NULL;
}

static bool sweep_push(sweep *sw, const call_key *c)
{
    size_t l =
        sw->infer ? nest_sweep_first_fit(&sw->ns, c->s, c->e, infer_pop, sw) : real_lane(sw, c);
    if (l == SIZE_MAX)
        return false;
    if (sw->ns.nlanes == 2 && sw->out->per_call && !sw->out->lane && !lane_column(sw))
        return false;
    nest_lane *ln = &sw->ns.lanes[l];
    open_call *p = nest_lane_top(&sw->ns, ln);
    if (sw->out->per_call || sw->out->parent) {
        uint32_t g = c->g;
        sw->out->parent[g] = p ? (int32_t)p->g : -1;
        if (sw->out->depth)
            sw->out->depth[g] = (uint32_t)ln->sp;
        if (sw->out->lane && (l || !sw->out->lane_nonzero))
            sw->out->lane[g] = (uint32_t)l;
    }
    if (p)
        add_child(p, c);
    open_call *oc = nest_lane_push(&sw->ns, l);
    if (!oc)
        return false;
    *oc = (open_call){{c->s, c->e}, c->reg, c->g, INT64_MIN, 0, false};
    return true;
}

void nest_infer_begin(sweep *sw, rank_data *rk, nest_out *out, bool infer)
{
    memset(sw, 0, sizeof *sw);
    sw->rk = rk;
    sw->out = out;
    sw->infer = infer;
    nest_sweep_init(&sw->ns, sizeof(open_call));
}

bool nest_infer_run(sweep *sw, call_iter *it)
{
    call_key c;
    while (iter_next(it, &c))
        if (!sweep_push(sw, &c))
            return false;
    return true;
}

void nest_infer_free(sweep *sw)
{
    nest_sweep_free(&sw->ns);
    free(sw->cpops);
    sw->cpops = NULL;
    sw->ncpops = sw->cpops_cap = 0;
}

static void sweep_finish(sweep *sw, bool ok)
{
    for (size_t l = 0; ok && l < sw->ns.nlanes; l++)
        while (sw->ns.lanes[l].sp > 0)
            nest_infer_pop(sw, l);
    nest_infer_free(sw);
    size_t nreg = sw->rk->nregions;
    if (sw->excl_tot && sw->out->per_call)
        memcpy(sw->out->tot, sw->excl_tot, nreg * sizeof *sw->excl_tot);
    else if (sw->excl_tot)
        for (size_t j = 0; j < nreg; j++)
            sw->rk->regions[j]->st.exclusive_total_ns = sw->excl_tot[j];
    free(sw->excl_tot);
}

/* A rank's sweep is cut by time into parts on threads from this many
 * calls (fewer cost less than the threads' start). */
#define SPLIT_MIN_CALLS ((size_t)1 << 20)

void nest_warn_capped(const rank_data *rk)
{
    profile_warn(rk->owner,
                 "%s: rank %d: calls overlap partly on more than %d inferred lanes; "
                 "the rest are drawn on the last lane",
                 rk->owner->path, rk->rank, NEST_LANES_MAX);
}

/* Per call (the viewer's build) the parts write the parents of their own
 * calls, and their lanes into a column allocated before (nest_split.c
 * makes each part's results the whole sweep's, or sweeps it again).  The
 * parts check that the regions are in start order (otherwise the whole
 * sweep runs). */
static bool rank_splittable(const rank_data *rk, const nest_out *out)
{
    return !rank_has_lanes(rk) && !(out->per_call && out->lane);
}

/* The split sweep of nest_infer_rank_parts; false when the whole sweep
 * must run instead (out of memory, regions out of start order).  Per call
 * it leaves the rank's totals and flags alone, as the whole sweep does. */
static bool infer_split(rank_data *rk, nest_out *out, size_t nparts)
{
    size_t nlanes = 0, n = rk->ncalls;
    bool capped = false;
    if (out->per_call && !(out->lane = calloc(n ? n : 1, sizeof *out->lane)))
        return false;
    out->lane_nonzero = out->per_call;
    bool ok = nest_split_rank(rk, out, nparts, par_threads(), &nlanes, &capped);
    out->lane_nonzero = false;
    if (out->per_call && (!ok || nlanes < 2)) { /* one lane: no column, as the whole sweep */
        free(out->lane);
        out->lane = NULL;
    }
    if (ok && !out->per_call) {
        rk->ninferred_lanes = nlanes > 1 ? (uint32_t)nlanes : 0;
        if (capped)
            nest_warn_capped(rk);
    }
    if (ok && out->per_call && out->tot) {
        out->nlanes = nlanes > 1 ? (uint32_t)nlanes : 0;
        out->capped = capped;
        out->swept = true;
    }
    return ok;
}

sv_err nest_infer_rank(rank_data *rk, nest_out *out, sv_error *err)
{
    int nthreads = par_threads();
    size_t nparts = rk->ncalls >= SPLIT_MIN_CALLS ? (size_t)nthreads : 1;
    return nest_infer_rank_parts(rk, out, nparts, err);
}

sv_err nest_infer_rank_parts(rank_data *rk, nest_out *out, size_t nparts, sv_error *err)
{
    if (nparts > 1 && rank_splittable(rk, out) && infer_split(rk, out, nparts))
        return SV_OK;
    call_iter it;
    memset(&it, 0, sizeof it);
    it.rk = rk;
    bool lanes = rank_has_lanes(rk);
    bool ok = lanes ? sorted_init(&it) : merge_init(&it);
    sweep sw;
    nest_infer_begin(&sw, rk, out, !lanes);
    /* Per call the totals are summed only for a share (out->tot), from 0 as
     * the totals pass's reset left them. */
    if (ok && (!out->per_call || out->tot)) {
        ok = (sw.excl_tot = malloc((rk->nregions ? rk->nregions : 1) * sizeof *sw.excl_tot));
        for (size_t j = 0; ok && j < rk->nregions; j++)
            sw.excl_tot[j] = out->per_call ? 0 : rk->regions[j]->st.exclusive_total_ns;
    }
    ok = ok && nest_infer_run(&sw, &it);
    uint32_t nlanes = ok && sw.ns.nlanes > 1 ? (uint32_t)sw.ns.nlanes : 0;
    if (!out->per_call)
        rk->ninferred_lanes = nlanes;
    if (ok && out->per_call && out->tot) {
        out->nlanes = nlanes;
        out->capped = sw.ns.capped;
        out->swept = true;
    }
    sweep_finish(&sw, ok);
    nest_iter_free(&it);
    if (!ok) {
        free(out->lane);
        out->lane = NULL;
        return sv_error_set(err, SV_ERR_NOMEM, "%s: rank %d: out of memory while nesting calls",
                            rk->owner->path, rk->rank);
    }
    if (sw.ns.capped && !out->per_call)
        nest_warn_capped(rk);
    return SV_OK;
}
