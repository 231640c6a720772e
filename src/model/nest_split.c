/* nest_split: one rank's inferred-nesting sweep cut by time into parts
 * that run on threads, with results equal to the whole sweep's.
 *
 * Part k sweeps the calls starting in [cut[k], cut[k + 1]) (the sweep
 * orders by start first, so each part is a stretch of the whole sweep's
 * order).  What the whole sweep holds when it reaches cut[k] is, after its
 * lazy pops, the calls before the cut that end at or after it, stacked
 * the way the sweep stacked them.  A part guesses that state by sweeping
 * just those calls (found by a scan of the end columns before the cut),
 * then sweeps its own calls from it.  The calls it started with are
 * "carried": their covered time before the cut is unknown to the part, so
 * it counts their children's time from zero and records their pops
 * instead of summing them.
 *
 * Then, in part order, the true state at each cut (part 0 is exact, and
 * each later part is made exact in turn) is compared with the part's
 * guess: the same lanes (the true state may have more lanes, empty at the
 * end: a part opens them at the same numbers), the same calls, and the same
 * end of their children's union where it matters (after the cut).  When
 * they agree the part's results are the whole sweep's (they are a function
 * of that state and the part's calls) and the carried pops get their
 * covered time; otherwise the part is swept again from the true state, as
 * the whole sweep would.  Exclusive totals are saturating sums of values
 * >= 0, which any order gives the same. */
#include <stdlib.h>
#include <string.h>

#include "nest_infer.h"
#include "par.h"

typedef struct split_part {
    sweep sw;     /* the part's state at its end */
    int64_t *tot; /* per region: exclusive times of the part's own pops */
    /* The guess at the cut: lanes, their depths, their calls in order. */
    size_t gnlanes, gn;
    size_t *gsp;
    open_call *gent;
    bool ran;      /* swept from its guess without running out of memory */
    bool disorder; /* a region's calls in its range are not in start order */
} split_part;

typedef struct split_plan {
    rank_data *rk;
    nest_out *out;
    nest_out none; /* the guesses write nothing */
    size_t nparts, nreg;
    /* pos[k * nreg + j]: region j's first call at or after cut[k] (k = 0:
     * 0; k = nparts: its count). */
    uint32_t *pos;
    int64_t *cut;
    size_t carried_max; /* a larger guess is not tried: the part is swept again */
    split_part *parts;
} split_plan;

static uint32_t region_len(const region *r)
{
    return r->has_event_data ? (uint32_t)r->n : 0;
}

/* Calls of region r starting before t. */
static uint32_t count_before(const region *r, int64_t t)
{
    uint32_t lo = 0, hi = region_len(r);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->start_ns[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t rank_count_before(const rank_data *rk, int64_t t)
{
    size_t c = 0;
    for (size_t j = 0; j < rk->nregions; j++)
        c += count_before(rk->regions[j], t);
    return c;
}

/* Cuts at equal shares of the calls: the first time before which at least
 * k / nparts of them start. */
static void plan_cuts(split_plan *pl)
{
    const rank_data *rk = pl->rk;
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    size_t n = 0;
    for (size_t j = 0; j < pl->nreg; j++) {
        const region *r = rk->regions[j];
        uint32_t len = region_len(r);
        if (!len)
            continue;
        mn = r->start_ns[0] < mn ? r->start_ns[0] : mn;
        mx = r->start_ns[len - 1] > mx ? r->start_ns[len - 1] : mx;
        n += len;
    }
    for (size_t k = 1; k < pl->nparts; k++) {
        size_t want = n / pl->nparts * k;
        int64_t lo = mn, hi = mx; /* the answer is in [lo, hi] */
        while (lo < hi) {
            int64_t mid = (int64_t)((uint64_t)lo + ((uint64_t)hi - (uint64_t)lo) / 2);
            if (rank_count_before(rk, mid) >= want)
                hi = mid;
            else
                lo = mid + 1;
        }
        pl->cut[k] = k > 1 && lo < pl->cut[k - 1] ? pl->cut[k - 1] : lo;
        for (size_t j = 0; j < pl->nreg; j++)
            pl->pos[k * pl->nreg + j] = count_before(rk->regions[j], pl->cut[k]);
    }
    for (size_t j = 0; j < pl->nreg; j++) {
        pl->pos[j] = 0;
        pl->pos[pl->nparts * pl->nreg + j] = region_len(rk->regions[j]);
    }
}

/* The calls before cut k that end at or after it, in the sweep's order;
 * NULL with *n = SIZE_MAX when out of memory or too many. */
static call_key *carried_calls(const split_plan *pl, size_t k, size_t *n)
{
    size_t cap = 64, m = 0;
    call_key *v = malloc(cap * sizeof *v);
    int64_t t = pl->cut[k];
    for (uint32_t j = 0; v && j < pl->nreg; j++) {
        const region *r = pl->rk->regions[j];
        const int64_t *e = r->end_ns;
        uint32_t end = pl->pos[k * pl->nreg + j];
        for (uint32_t i = 0; i < end; i++) {
            if (e[i] < t)
                continue;
            if (m == cap) {
                call_key *w = m < pl->carried_max ? realloc(v, 2 * cap * sizeof *v) : NULL;
                if (!w) {
                    free(v);
                    v = NULL;
                    break;
                }
                v = w;
                cap *= 2;
            }
            call_key c = {-1, -1, r->start_ns[i], e[i], j, (uint32_t)(r->gidx0 + i)};
            v[m++] = c;
        }
    }
    if (!v) {
        *n = SIZE_MAX;
        return NULL;
    }
    qsort(v, m, sizeof *v, nest_key_cmp);
    *n = m;
    return v;
}

/* The part's guess: the carried calls swept alone, then marked carried
 * (their covered time counted from zero) and kept for the comparison. */
static bool part_guess(split_plan *pl, size_t k, split_part *pt)
{
    size_t n;
    call_key *keys = carried_calls(pl, k, &n);
    if (!keys)
        return false;
    call_iter it;
    nest_iter_keys(&it, pl->rk, keys, n);
    pt->sw.out = &pl->none;
    bool ok = nest_infer_run(&pt->sw, &it);
    nest_iter_free(&it);
    free(keys);
    if (!ok)
        return false;
    nest_sweep *ns = &pt->sw.ns;
    pt->gnlanes = ns->nlanes;
    pt->gsp = malloc((pt->gnlanes ? pt->gnlanes : 1) * sizeof *pt->gsp);
    pt->gent = malloc((n ? n : 1) * sizeof *pt->gent);
    if (!pt->gsp || !pt->gent)
        return false;
    for (size_t l = 0; l < ns->nlanes; l++) {
        nest_lane *ln = &ns->lanes[l];
        pt->gsp[l] = ln->sp;
        memcpy(pt->gent + pt->gn, ln->stk, ln->sp * sizeof(open_call));
        pt->gn += ln->sp;
        for (size_t d = 0; d < ln->sp; d++) {
            open_call *oc = nest_lane_at(ns, ln, d);
            oc->covered = 0;
            oc->carried = true;
        }
    }
    return true;
}

/* The regions' calls in part k's range are in start order (longer first
 * at equal starts), each compared with the one before: the parts' ranges
 * cover every region, so together they check it whole. */
static bool range_in_order(const split_plan *pl, size_t k)
{
    for (size_t j = 0; j < pl->nreg; j++) {
        const region *r = pl->rk->regions[j];
        uint32_t lo = pl->pos[k * pl->nreg + j], hi = pl->pos[(k + 1) * pl->nreg + j];
        if (hi < lo)
            return false;
        const int64_t *s = r->start_ns, *e = r->end_ns;
        uint64_t bad = 0;
        for (uint32_t i = lo ? lo : 1; i < hi; i++)
            bad |= (uint64_t)(s[i] < s[i - 1]) | (uint64_t)(s[i] == s[i - 1] && e[i] > e[i - 1]);
        if (bad)
            return false;
    }
    return true;
}

static void part_task(void *ctx, size_t k)
{
    split_plan *pl = ctx;
    split_part *pt = &pl->parts[k];
    if (!range_in_order(pl, k)) {
        pt->disorder = true;
        return;
    }
    nest_infer_begin(&pt->sw, pl->rk, pl->out, true);
    if (k > 0 && !part_guess(pl, k, pt))
        return;
    pt->tot = calloc(pl->nreg ? pl->nreg : 1, sizeof *pt->tot);
    call_iter it;
    if (!pt->tot ||
        !nest_iter_range(&it, pl->rk, pl->pos + k * pl->nreg, pl->pos + (k + 1) * pl->nreg)) {
        if (pt->tot)
            nest_iter_free(&it);
        return;
    }
    pt->sw.out = pl->out;
    pt->sw.excl_tot = pt->tot;
    pt->ran = nest_infer_run(&pt->sw, &it) && !pt->sw.nomem;
    nest_iter_free(&it);
}

static int64_t after_cut(int64_t v, int64_t t)
{
    return v > t ? v : t;
}

/* The true state (after its lazy pops) equals the part's guess: see the
 * top of the file. */
static bool guess_holds(const sweep *st, const split_part *pt, int64_t t)
{
    if (!pt->ran || pt->gnlanes > st->ns.nlanes)
        return false;
    const open_call *g = pt->gent;
    for (size_t l = 0; l < st->ns.nlanes; l++) {
        const nest_lane *ln = &st->ns.lanes[l];
        if (ln->sp != (l < pt->gnlanes ? pt->gsp[l] : 0))
            return false;
        for (size_t d = 0; d < ln->sp; d++, g++) {
            const open_call *oc = nest_lane_at(&st->ns, ln, d);
            if (oc->g != g->g || after_cut(oc->cover_end, t) != after_cut(g->cover_end, t))
                return false;
        }
    }
    return true;
}

/* The whole sweep's lazy pops at cut t: calls ending before it. */
static void pop_ended(sweep *st, int64_t t)
{
    for (size_t l = 0; l < st->ns.nlanes; l++) {
        const open_call *top;
        while ((top = nest_lane_top(&st->ns, &st->ns.lanes[l])) && top->span.e < t)
            nest_infer_pop(st, l);
    }
}

static void add_totals(int64_t *tot, const int64_t *part, size_t n)
{
    for (size_t j = 0; j < n; j++)
        tot[j] = ck_add(tot[j], part[j]);
}

/* The part's guess held: its carried calls get the time covered before
 * the cut, and its state becomes the true one. */
static bool adopt_part(split_plan *pl, sweep *st, split_part *pt)
{
    for (size_t i = 0; i < pt->sw.ncpops; i++) {
        const carried_pop *cp = &pt->sw.cpops[i];
        const open_call *oc = nest_lane_at(&st->ns, &st->ns.lanes[cp->lane], cp->pos);
        int64_t excl = (oc->span.e - oc->span.s) - (oc->covered + cp->covered);
        if (excl < 0)
            excl = 0;
        st->excl_tot[oc->reg] = ck_add(st->excl_tot[oc->reg], excl);
        if (pl->out->excl)
            pl->out->excl[oc->g] = excl;
    }
    nest_sweep *ns = &pt->sw.ns;
    for (size_t l = 0; l < ns->nlanes; l++) {
        nest_lane *ln = &ns->lanes[l];
        open_call *oc;
        /* the carried calls are the bottom of the stack */
        for (size_t d = 0; d < ln->sp && (oc = nest_lane_at(ns, ln, d))->carried; d++) {
            oc->covered += ((open_call *)nest_lane_at(&st->ns, &st->ns.lanes[l], d))->covered;
            oc->carried = false;
        }
    }
    if (!nest_sweep_lanes_to(ns, st->ns.nlanes))
        return false;
    add_totals(st->excl_tot, pt->tot, pl->nreg);
    int64_t *tot = st->excl_tot;
    bool capped = st->ns.capped || ns->capped;
    nest_infer_free(st);
    *st = pt->sw;
    memset(&pt->sw, 0, sizeof pt->sw);
    st->excl_tot = tot;
    st->out = pl->out;
    st->ns.capped = capped;
    st->ncpops = 0;
    return true;
}

/* Part k swept again from the true state.  A lane column written only
 * off lane 0 (nest_out.lane_nonzero) forgets what the part's first sweep
 * wrote there first. */
static bool redo_part(split_plan *pl, sweep *st, size_t k)
{
    for (size_t j = 0; pl->out->lane && pl->out->lane_nonzero && j < pl->nreg; j++) {
        uint32_t lo = pl->pos[k * pl->nreg + j], hi = pl->pos[(k + 1) * pl->nreg + j];
        if (hi > lo)
            memset(pl->out->lane + pl->rk->regions[j]->gidx0 + lo, 0,
                   (hi - lo) * sizeof *pl->out->lane);
    }
    call_iter it;
    if (!nest_iter_range(&it, pl->rk, pl->pos + k * pl->nreg, pl->pos + (k + 1) * pl->nreg))
        return false;
    bool ok = nest_infer_run(st, &it);
    nest_iter_free(&it);
    return ok;
}

/* Parts in order, each made exact; then the last pops. */
static bool stitch(split_plan *pl, int64_t *tot, size_t *nlanes, bool *capped)
{
    for (size_t k = 0; k < pl->nparts; k++)
        if (pl->parts[k].disorder)
            return false;
    split_part *p0 = &pl->parts[0];
    if (!p0->ran)
        return false;
    sweep st = p0->sw;
    memset(&p0->sw, 0, sizeof p0->sw);
    add_totals(tot, p0->tot, pl->nreg);
    st.excl_tot = tot;
    bool ok = true;
    for (size_t k = 1; ok && k < pl->nparts; k++) {
        pop_ended(&st, pl->cut[k]);
        if (guess_holds(&st, &pl->parts[k], pl->cut[k]))
            ok = adopt_part(pl, &st, &pl->parts[k]);
        else
            ok = redo_part(pl, &st, k);
    }
    for (size_t l = 0; ok && l < st.ns.nlanes; l++)
        while (st.ns.lanes[l].sp > 0)
            nest_infer_pop(&st, l);
    *nlanes = st.ns.nlanes;
    *capped = st.ns.capped;
    nest_infer_free(&st);
    return ok;
}

static void plan_free(split_plan *pl)
{
    for (size_t k = 0; pl->parts && k < pl->nparts; k++) {
        split_part *pt = &pl->parts[k];
        nest_infer_free(&pt->sw);
        free(pt->tot);
        free(pt->gsp);
        free(pt->gent);
    }
    free(pl->parts);
    free(pl->pos);
    free(pl->cut);
}

bool nest_split_rank(rank_data *rk, nest_out *out, size_t nparts, int nthreads, size_t *nlanes,
                     bool *capped)
{
    split_plan pl = {.rk = rk, .out = out, .nparts = nparts, .nreg = rk->nregions};
    pl.carried_max = rk->ncalls / (4 * nparts) > 4096 ? rk->ncalls / (4 * nparts) : 4096;
    pl.pos = malloc((nparts + 1) * (pl.nreg ? pl.nreg : 1) * sizeof *pl.pos);
    pl.cut = calloc(nparts, sizeof *pl.cut);
    pl.parts = calloc(nparts, sizeof *pl.parts);
    int64_t *tot = malloc((pl.nreg ? pl.nreg : 1) * sizeof *tot);
    bool ok = pl.pos && pl.cut && pl.parts && tot;
    if (ok) {
        plan_cuts(&pl);
        par_job job = {nparts, part_task, &pl, NULL, NULL, 0};
        par_run(&job, nthreads);
        /* Per call the rank's totals are the totals pass's: read and
         * written by the thread that owns the profile only. */
        for (size_t j = 0; j < pl.nreg; j++)
            tot[j] = out->per_call ? 0 : rk->regions[j]->st.exclusive_total_ns;
        ok = stitch(&pl, tot, nlanes, capped);
    }
    if (ok && !out->per_call)
        for (size_t j = 0; j < pl.nreg; j++)
            rk->regions[j]->st.exclusive_total_ns = tot[j];
    if (ok && out->per_call && out->tot)
        memcpy(out->tot, tot, pl.nreg * sizeof *tot);
    free(tot);
    plan_free(&pl);
    return ok;
}
