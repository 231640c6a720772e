/* Nesting entry points and the explicit-id path (call_ids / parent_ids). */
#include "nest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nest_internal.h"
#include "nest_share.h"
#include "util/text.h"
#include "util/bigmem.h"

/* Per-call arrays of a big rank get a huge-page hint, as the loader's
 * columns do: a fresh array's page faults otherwise cost more than the
 * nesting that fills it.  Only the whole 2 MiB pages inside the array are
 * hinted: rounding the array up to whole huge pages (or aligning it to one)
 * would hold up to 2 MiB more per array, resident once the last page is
 * written (util/bigmem.h's bigmem_array).  Freed with free(). */
static void *alloc_big(size_t bytes)
{
    return bigmem_array(bytes);
}

int64_t nest_union_clipped(const int64_t *s, const int64_t *e, size_t n, int64_t lo, int64_t hi)
{
    int64_t covered = 0, cur_s = 0, cur_e = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        int64_t cs = s[i] > lo ? s[i] : lo, ce = e[i] < hi ? e[i] : hi;
        if (ce <= cs)
            continue;
        if (open && cs <= cur_e) {
            if (ce > cur_e)
                cur_e = ce;
            continue;
        }
        if (open)
            covered += cur_e - cur_s;
        cur_s = cs;
        cur_e = ce;
        open = true;
    }
    return open ? covered + (cur_e - cur_s) : covered;
}

static bool rank_uses_ids(const rank_data *rk)
{
    bool any = false;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (!r->has_event_data || r->n == 0)
            continue;
        if (!r->call_ids || !r->parent_ids)
            return false;
        any = true;
    }
    return any;
}

/* --- id → call index ------------------------------------------------ */

typedef struct id_pair {
    int64_t id;
    uint32_t g;
} id_pair;

typedef struct id_map {
    int64_t min;
    size_t range;
    int32_t *direct; /* dense ids: direct[id - min] */
    id_pair *pairs;  /* sparse ids: sorted by id */
    size_t n;
} id_map;

static int pair_cmp(const void *a, const void *b)
{
    int64_t x = ((const id_pair *)a)->id, y = ((const id_pair *)b)->id;
    return (x > y) - (x < y);
}

static void id_range(const rank_data *rk, int64_t *mn, int64_t *mx)
{
    *mn = INT64_MAX;
    *mx = INT64_MIN;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            *mn = r->call_ids[i] < *mn ? r->call_ids[i] : *mn;
            *mx = r->call_ids[i] > *mx ? r->call_ids[i] : *mx;
        }
    }
}

/* Returns false on a repeated id (the links are then meaningless). */
static bool id_map_fill_direct(id_map *m, const rank_data *rk)
{
    for (size_t k = 0; k < m->range; k++)
        m->direct[k] = -1;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            int32_t *slot = &m->direct[r->call_ids[i] - m->min];
            if (*slot >= 0)
                return false;
            *slot = (int32_t)(r->gidx0 + i);
        }
    }
    return true;
}

static bool id_map_fill_pairs(id_map *m, const rank_data *rk)
{
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            id_pair pr = {r->call_ids[i], (uint32_t)(r->gidx0 + i)};
            m->pairs[m->n++] = pr;
        }
    }
    qsort(m->pairs, m->n, sizeof *m->pairs, pair_cmp);
    for (size_t k = 1; k < m->n; k++)
        if (m->pairs[k].id == m->pairs[k - 1].id)
            return false;
    return true;
}

/* 1 ok, 0 repeated id, -1 out of memory. */
static int id_map_build(id_map *m, const rank_data *rk)
{
    memset(m, 0, sizeof *m);
    int64_t mn, mx;
    id_range(rk, &mn, &mx);
    m->min = mn;
    uint64_t span = (uint64_t)mx - (uint64_t)mn;
    if (span < 4 * (uint64_t)rk->ncalls + 1024) {
        m->range = (size_t)span + 1;
        m->direct = malloc(m->range * sizeof *m->direct);
        if (!m->direct)
            return -1;
        return id_map_fill_direct(m, rk) ? 1 : 0;
    }
    m->pairs = malloc(rk->ncalls * sizeof *m->pairs);
    if (!m->pairs)
        return -1;
    return id_map_fill_pairs(m, rk) ? 1 : 0;
}

static int32_t id_map_get(const id_map *m, int64_t id)
{
    if (m->direct) {
        if (id < m->min || (uint64_t)id - (uint64_t)m->min >= m->range)
            return -1;
        return m->direct[id - m->min];
    }
    id_pair key = {id, 0};
    const id_pair *hit = bsearch(&key, m->pairs, m->n, sizeof key, pair_cmp);
    return hit ? (int32_t)hit->g : -1;
}

static void id_map_free(id_map *m)
{
    free(m->direct);
    free(m->pairs);
}

/* --- explicit parents, depths, children ------------------------------ */

static void link_parents(rank_data *rk, const id_map *m, int32_t *parent, bool warn)
{
    char name[160];
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        size_t orphans = 0;
        for (size_t i = 0; i < r->n; i++) {
            int64_t pid = r->parent_ids[i];
            int32_t pg = pid == -1 ? -1 : id_map_get(m, pid);
            orphans += pid != -1 && pg < 0;
            parent[r->gidx0 + i] = pg;
        }
        if (orphans && warn) {
            text_escape_buf(name, sizeof name, r->name);
            profile_warn(rk->owner,
                         "%s: rank %d: region %s: dataset parent_ids: %zu call(s) name a parent "
                         "id that is no call; shown as top-level",
                         rk->owner->path, rk->rank, name, orphans);
        }
    }
}

#define DEPTH_UNSEEN UINT32_MAX
#define DEPTH_ON_PATH (UINT32_MAX - 1)

/* Depth of every call by walking up the parent links iteratively (chains
 * can be 100 000 deep).  Returns false when the links form a cycle. */
static bool compute_depths(const int32_t *parent, uint32_t *depth, size_t n, uint32_t *path)
{
    for (size_t g = 0; g < n; g++)
        depth[g] = DEPTH_UNSEEN;
    for (size_t g = 0; g < n; g++) {
        size_t len = 0;
        int32_t x = (int32_t)g;
        while (x >= 0 && depth[x] == DEPTH_UNSEEN) {
            depth[x] = DEPTH_ON_PATH;
            path[len++] = (uint32_t)x;
            x = parent[x];
        }
        if (x >= 0 && depth[x] == DEPTH_ON_PATH)
            return false;
        uint32_t d = x < 0 ? 0 : depth[x] + 1;
        while (len > 0)
            depth[path[--len]] = d++;
    }
    return true;
}

typedef struct child_key {
    int64_t s, e;
    uint32_t g;
} child_key;

static int child_cmp(const void *a, const void *b)
{
    const child_key *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e > y->e ? -1 : 1;
    return (x->g > y->g) - (x->g < y->g);
}

/* Index of the region holding rank call g, trying region j first:
 * children met in ascending order mostly stay in one region, so the hot
 * loops below rarely search. */
static size_t region_of_call(const rank_data *rk, size_t j, uint32_t g)
{
    const region *r = rk->regions[j];
    if (g >= r->gidx0 && g < r->gidx0 + r->n)
        return j;
    /* The last region starting at or before g (an empty region is never
     * last among those: the next one starts at the same index). */
    size_t lo = 0, hi = rk->nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->regions[mid]->gidx0 <= g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* Loads the intervals of one parent's children (ascending call index) into
 * tmp and orders both by (start, -end, index).  *j is the region cursor. */
static void order_children(const rank_data *rk, uint32_t *kids, size_t n, child_key *tmp, size_t *j)
{
    bool sorted = true;
    for (size_t k = 0; k < n; k++) {
        *j = region_of_call(rk, *j, kids[k]);
        const region *r = rk->regions[*j];
        size_t i = kids[k] - r->gidx0;
        tmp[k] = (child_key){r->start_ns[i], r->end_ns[i], kids[k]};
        if (k > 0 && child_cmp(&tmp[k - 1], &tmp[k]) > 0)
            sorted = false;
    }
    if (sorted)
        return;
    qsort(tmp, n, sizeof *tmp, child_cmp);
    for (size_t k = 0; k < n; k++)
        kids[k] = tmp[k].g;
}

/* Length of the union of the (start-ordered) intervals clipped to [lo, hi]:
 * nest_union_clipped over child keys. */
static int64_t union_of_keys(const child_key *k, size_t n, int64_t lo, int64_t hi)
{
    int64_t covered = 0, cur_s = 0, cur_e = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        int64_t cs = k[i].s > lo ? k[i].s : lo, ce = k[i].e < hi ? k[i].e : hi;
        if (ce <= cs)
            continue;
        if (open && cs <= cur_e) {
            cur_e = ce > cur_e ? ce : cur_e;
            continue;
        }
        if (open)
            covered += cur_e - cur_s;
        cur_s = cs;
        cur_e = ce;
        open = true;
    }
    return open ? covered + (cur_e - cur_s) : covered;
}

/* true when kids[0 .. n) are already in (start, -end, index) order. */
static bool children_sorted(const rank_data *rk, const uint32_t *kids, size_t n, size_t *j)
{
    child_key prev = {0, 0, 0};
    for (size_t k = 0; k < n; k++) {
        *j = region_of_call(rk, *j, kids[k]);
        const region *r = rk->regions[*j];
        size_t i = kids[k] - r->gidx0;
        child_key cur = {r->start_ns[i], r->end_ns[i], kids[k]};
        if (k > 0 && child_cmp(&prev, &cur) > 0)
            return false;
        prev = cur;
    }
    return true;
}

/* Without totals the keys are needed only to reorder children that are not
 * in start order (rare: the sweep meets them in order), so no buffer as
 * wide as the widest family is held (24 bytes a child: 46 MiB for a root
 * of 2M children). */
static bool order_only(rank_data *rk, const uint32_t *off, size_t nfam, uint32_t *child)
{
    child_key *tmp = NULL;
    size_t cap = 0, jk = 0, jc = 0;
    for (size_t g = 0; g < nfam; g++) {
        size_t a = off[g], m = off[g + 1] - a;
        if (m < 2 || children_sorted(rk, child + a, m, &jc))
            continue;
        if (m > cap) {
            child_key *nt = realloc(tmp, m * sizeof *nt);
            if (!nt) {
                free(tmp);
                return false;
            }
            tmp = nt;
            cap = m;
        }
        order_children(rk, child + a, m, tmp, &jk);
    }
    free(tmp);
    return true;
}

/* The exclusive time of every call from its children (off: the families'
 * offsets into child). */
static bool excl_pass(rank_data *rk, const uint32_t *off, uint32_t *child, size_t widest,
                      int64_t *excl)
{
    child_key *tmp = malloc((widest ? widest : 1) * sizeof *tmp);
    if (!tmp)
        return false;
    size_t jk = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++) {
            size_t g = r->gidx0 + i, a = off[g], m = off[g + 1] - a;
            order_children(rk, child + a, m, tmp, &jk);
            int64_t s = r->start_ns[i], e = r->end_ns[i];
            int64_t x = (e - s) - union_of_keys(tmp, m, s, e);
            x = x < 0 ? 0 : x;
            if (excl) /* per call: the totals pass set the region's total */
                excl[g] = x;
            else
                r->st.exclusive_total_ns = ck_add(r->st.exclusive_total_ns, x);
        }
    }
    free(tmp);
    return true;
}

/* The families' offsets (n + 1 entries, the caller frees them) and the
 * calls with a parent in *child (allocated here, *m of them: the caller
 * frees it too), grouped by parent, by call index within a family: the
 * parents are read twice (count, fill).  *widest receives the largest
 * family.  NULL when out of memory. */
static uint32_t *family_offsets(const int32_t *parent, size_t n, uint32_t **child, size_t *m,
                                size_t *widest)
{
    *child = NULL;
    *m = *widest = 0;
    uint32_t *off = alloc_big((n + 1) * sizeof *off);
    if (!off)
        return NULL;
    memset(off, 0, (n + 1) * sizeof *off);
    for (size_t g = 0; g < n; g++)
        if (parent[g] >= 0)
            off[parent[g] + 1]++;
    for (size_t g = 0; g < n; g++) {
        *widest = off[g + 1] > *widest ? off[g + 1] : *widest;
        off[g + 1] += off[g];
    }
    *m = off[n];
    uint32_t *ch = *child = alloc_big((*m ? *m : 1) * sizeof *ch);
    if (!ch) {
        free(off);
        return NULL;
    }
    /* off[p] serves as p's fill cursor, ending at p + 1's start: shift back. */
    for (size_t g = 0; g < n; g++)
        if (parent[g] >= 0)
            ch[off[parent[g]]++] = (uint32_t)g;
    memmove(off + 1, off, n * sizeof *off);
    off[0] = 0;
    return off;
}

/* Children lists of every call (grouped by parent, each ordered by start)
 * from parent links into c->child.  With totals, also the exclusive time of
 * every call: its duration less the union of its children, stored per call
 * when excl is given, else added to its region's total; without, the
 * viewer's children alone.  The families' offsets (4 bytes a call) are a
 * temporary (the views find a family by binary search). */
static bool build_children(rank_data *rk, const int32_t *parent, rank_calls *c, bool totals,
                           int64_t *excl)
{
    size_t n = rk->ncalls, widest = 0;
    uint32_t *off = family_offsets(parent, n, &c->child, &c->nchild, &widest);
    bool ok = off && (totals ? excl_pass(rk, off, c->child, widest, excl)
                             : order_only(rk, off, n, c->child));
    free(off);
    return ok;
}

/* false (warned on the totals pass) when the parent links form a cycle.
 * -1 on NOMEM.  Fills out->depth when given. */
static int check_acyclic(rank_data *rk, const int32_t *parent, nest_out *out)
{
    size_t n = rk->ncalls, m = n ? n : 1;
    uint32_t *depth = out->depth ? out->depth : malloc(m * sizeof *depth);
    uint32_t *path = malloc(m * sizeof *path);
    int rc = depth && path ? 1 : -1;
    if (rc == 1 && !compute_depths(parent, depth, n, path)) {
        if (!out->per_call)
            profile_warn(rk->owner,
                         "%s: rank %d: dataset parent_ids: parent links form a cycle; "
                         "nesting inferred from times instead",
                         rk->owner->path, rk->rank);
        rc = 0;
    }
    if (depth != out->depth)
        free(depth);
    free(path);
    return rc;
}

/* 1 done, 0 fall back to inference (warned), -1 out of memory.  Each
 * temporary is freed as soon as it is no longer needed, which keeps the
 * totals pass at 12 bytes a call on top of the columns. */
static int explicit_rank(rank_data *rk, nest_out *out, rank_calls *keep)
{
    size_t n = rk->ncalls;
    id_map m;
    int built = id_map_build(&m, rk);
    if (built <= 0) {
        id_map_free(&m);
        if (built == 0 && !out->per_call)
            profile_warn(rk->owner,
                         "%s: rank %d: dataset call_ids: an id repeats; nesting inferred "
                         "from times instead",
                         rk->owner->path, rk->rank);
        return built;
    }
    int32_t *parent = out->per_call ? out->parent : malloc((n ? n : 1) * sizeof *parent);
    int rc = parent ? 1 : -1;
    /* The per-call pass repeats the totals pass: warn only once. */
    if (rc == 1)
        link_parents(rk, &m, parent, !out->per_call);
    id_map_free(&m);
    if (rc == 1)
        rc = check_acyclic(rk, parent, out);
    rank_calls tmp = {0};
    rank_calls *c = keep ? keep : &tmp;
    /* Exclusive times for the totals pass or an excl array (per call
     * without one: the children alone; rank_call_excl() works them out). */
    bool totals = !out->per_call || out->excl;
    if (rc == 1 && !build_children(rk, parent, c, totals, out->excl))
        rc = -1;
    if (!keep || rc != 1) {
        free(c->child);
        c->child = NULL;
        c->nchild = 0;
    }
    if (!out->per_call)
        free(parent);
    return rc;
}

static void reset_totals(rank_data *rk)
{
    for (size_t j = 0; j < rk->nregions; j++)
        rk->regions[j]->st.exclusive_total_ns = 0;
}

/* The totals pass (profile_finish) writes the regions' exclusive totals and
 * the rank's flags; the per-call passes leave them as that pass set them
 * (the same values), so a background build (calls_job.c) writes nothing the
 * viewer reads meanwhile. */
static sv_err nest_rank(rank_data *rk, nest_out *out, rank_calls *keep, sv_error *err)
{
    bool totals = !out->per_call;
    if (totals) {
        reset_totals(rk);
        rk->explicit_ids = false;
        rk->ninferred_lanes = 0;
    }
    if (rank_uses_ids(rk)) {
        int rc = explicit_rank(rk, out, keep);
        if (rc < 0)
            return sv_error_set(err, SV_ERR_NOMEM, "%s: rank %d: out of memory while nesting",
                                rk->owner->path, rk->rank);
        if (rc == 1) {
            if (totals)
                rk->explicit_ids = true;
            return SV_OK;
        }
        if (totals)
            reset_totals(rk);
    }
    return nest_infer_rank(rk, out, err);
}

static sv_err check_size(const rank_data *rk, sv_error *err)
{
    if (rk->ncalls > SV_RANK_CALLS_MAX)
        return sv_error_set(err, SV_ERR_NOMEM, "%s: rank %d: %zu calls is more than %zu",
                            rk->owner->path, rk->rank, rk->ncalls, SV_RANK_CALLS_MAX);
    return SV_OK;
}

/* The per-call build's totals of rk when the profile has a share and the
 * build swept the rank (nest_share.h): true when rk got them. */
static bool take_given(rank_data *rk)
{
    profile *p = rk->owner;
    bool capped = false;
    if (!p || !p->nest_given || rk < p->ranks || rk >= p->ranks + p->nranks ||
        !nest_share_take(p->nest_given, (size_t)(rk - p->ranks), rk, &capped))
        return false;
    if (capped)
        nest_warn_capped(rk);
    return true;
}

sv_err nest_rank_totals(rank_data *rk, sv_error *err)
{
    nest_out out = {false, NULL, NULL, NULL, NULL, false, NULL, 0, false, false};
    sv_err e = check_size(rk, err);
    if (e || take_given(rk))
        return e;
    return nest_rank(rk, &out, NULL, err);
}

sv_err nest_compute_totals(profile *p, sv_error *err)
{
    for (size_t i = 0; i < p->nranks; i++) {
        sv_err e = nest_rank_totals(&p->ranks[i], err);
        if (e)
            return e;
    }
    return SV_OK;
}

sv_err nest_rank_calls(rank_data *rk, rank_calls **outc, sv_error *err)
{
    return nest_rank_calls_shared(rk, outc, NULL, 0, err);
}

sv_err nest_rank_calls_shared(rank_data *rk, rank_calls **outc, nest_share *sh, size_t k,
                              sv_error *err)
{
    *outc = NULL;
    sv_err e0 = check_size(rk, err);
    if (e0)
        return e0;
    size_t n = rk->ncalls, m = n ? n : 1;
    rank_calls *c = calloc(1, sizeof *c);
    nest_out out = {true, NULL, NULL, NULL, NULL, false, NULL, 0, false, false};
    /* Only an inferred rank's sweep gives the totals pass's sums: a rank
     * with ids that falls back to inference warns in that pass, which is
     * told at once so that it does not wait for this rank's build. */
    if (sh && !rank_uses_ids(rk))
        out.tot = malloc((rk->nregions ? rk->nregions : 1) * sizeof *out.tot);
    if (!out.tot)
        nest_share_none(sh, k);
    if (c) {
        c->n = n;
        out.parent = c->parent = alloc_big(m * sizeof *c->parent);
    }
    /* No depth array (4 bytes a call at the worker's peak): the explicit
     * pass takes a temporary one for its cycle check, the sweep none. */
    sv_err e = c && c->parent ? nest_rank(rk, &out, c, err)
                              : sv_error_set(err, SV_ERR_NOMEM, "%s: rank %d: out of memory",
                                             rk->owner->path, rk->rank);
    /* Before the children: the statistics go on while they are built. */
    if (!e && out.swept)
        nest_share_put(sh, k, rk, out.tot, out.nlanes, out.capped);
    else
        nest_share_none(sh, k);
    free(out.tot);
    if (c)
        c->lane = out.lane;
    /* Inference leaves no children lists behind: build them from parents. */
    if (!e && !c->child && !build_children(rk, c->parent, c, false, NULL))
        e = sv_error_set(err, SV_ERR_NOMEM, "%s: rank %d: out of memory", rk->owner->path,
                         rk->rank);
    if (e) {
        rank_calls_free(c);
        return e;
    }
    *outc = c;
    return SV_OK;
}

sv_err nest_rank_parents(rank_data *rk, int32_t *parent, int64_t *excl, sv_error *err)
{
    sv_err e = check_size(rk, err);
    if (e)
        return e;
    nest_out out = {true, parent, NULL, excl, NULL, false, NULL, 0, false, false};
    e = nest_rank(rk, &out, NULL, err);
    free(out.lane);
    return e;
}

/* One sweep for the totals pass and the per-call arrays of an inferred
 * rank: the totals pass with parent and excl given (nest_infer.c fills them
 * as the per-call pass does).  A rank with ids takes the two passes. */
sv_err nest_rank_totals_parents(rank_data *rk, int32_t *parent, int64_t *excl, sv_error *err)
{
    sv_err e = check_size(rk, err);
    if (e)
        return e;
    if (rank_uses_ids(rk)) {
        e = nest_rank_totals(rk, err);
        return e ? e : nest_rank_parents(rk, parent, excl, err);
    }
    reset_totals(rk);
    rk->explicit_ids = false;
    rk->ninferred_lanes = 0;
    nest_out out = {false, parent, NULL, excl, NULL, false, NULL, 0, false, false};
    return nest_infer_rank(rk, &out, err);
}

sv_err nest_build_calls(profile *p, sv_error *err)
{
    for (size_t i = 0; i < p->nranks; i++) {
        rank_data *rk = &p->ranks[i];
        if (rk->calls)
            continue;
        sv_err e = nest_rank_calls(rk, &rk->calls, err);
        if (e)
            return e;
    }
    return SV_OK;
}

int64_t rank_call_excl(const rank_data *rk, size_t g)
{
    return rank_call_excl_in(rk, g, INT64_MIN, INT64_MAX);
}

int64_t rank_call_excl_in(const rank_data *rk, size_t g, int64_t t0, int64_t t1)
{
    const rank_calls *c = rk->calls;
    size_t i = 0;
    const region *r = rank_call_region(rk, (int64_t)g, &i);
    if (!c || !r || g >= c->n)
        return 0;
    const uint32_t *kids;
    size_t nk = rank_call_children(rk, g, &kids);
    return rank_call_excl_kids(rk, r, i, kids, nk, t0, t1);
}

int64_t rank_call_excl_kids(const rank_data *rk, const region *r, size_t i, const uint32_t *kids,
                            size_t nk, int64_t t0, int64_t t1)
{
    size_t ci = 0;
    int64_t s = r->start_ns[i] > t0 ? r->start_ns[i] : t0;
    int64_t e = r->end_ns[i] < t1 ? r->end_ns[i] : t1;
    if (e <= s)
        return 0;
    int64_t covered = 0, cur_s = 0, cur_e = 0;
    bool open = false;
    /* Children are ordered by start: the union of nest_union_clipped.
     * Runs of them come from one region: the last one found is tried
     * before a search (a root may have millions of children). */
    const region *cr = NULL;
    for (size_t k = 0; k < nk; k++) {
        size_t cg = (size_t)kids[k];
        if (cr && cg >= cr->gidx0 && cg - cr->gidx0 < cr->n)
            ci = cg - cr->gidx0;
        else if (!(cr = rank_call_region(rk, kids[k], &ci)))
            continue;
        int64_t cs = cr->start_ns[ci] > s ? cr->start_ns[ci] : s;
        int64_t ce = cr->end_ns[ci] < e ? cr->end_ns[ci] : e;
        if (ce <= cs)
            continue;
        if (open && cs <= cur_e) {
            cur_e = ce > cur_e ? ce : cur_e;
            continue;
        }
        if (open)
            covered += cur_e - cur_s;
        cur_s = cs;
        cur_e = ce;
        open = true;
    }
    if (open)
        covered += cur_e - cur_s;
    int64_t x = (e - s) - covered;
    return x < 0 ? 0 : x;
}

/* The first position k of the children list whose parent is not below g
 * (nc when none).  Parents ascend along the list.  From a hint h <= nc it
 * gallops outward (a pass in call order finds the next family in a step or
 * two), from h > nc it searches the whole list. */
static size_t child_lower(const uint32_t *ch, const int32_t *par, size_t nc, size_t h, size_t g)
{
    size_t lo = 0, hi = nc;
    if (h < nc && (size_t)par[ch[h]] < g) { /* forward: the answer is past h */
        lo = h + 1;
        for (size_t step = 1;; step *= 2) {
            hi = nc - lo > step ? lo + step - 1 : nc;
            if (hi == nc || (size_t)par[ch[hi]] >= g)
                break;
            lo = hi + 1;
        }
    } else if (h <= nc) { /* backward: the answer is h or before */
        hi = h;
        for (size_t step = 1; hi > 0; step *= 2) {
            size_t q = hi > step ? hi - step : 0;
            if ((size_t)par[ch[q]] < g) {
                lo = q + 1;
                break;
            }
            hi = q;
        }
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((size_t)par[ch[mid]] < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t rank_call_children_near(const rank_data *rk, size_t g, size_t *pos, const uint32_t **kids)
{
    const rank_calls *c = rk->calls;
    *kids = NULL;
    if (!c || g >= c->n || !c->child)
        return 0;
    const uint32_t *ch = c->child;
    const int32_t *par = c->parent;
    size_t a = child_lower(ch, par, c->nchild, *pos, g);
    if (a == c->nchild || (size_t)par[ch[a]] != g) {
        *pos = a;
        return 0;
    }
    /* the family's end: galloping from its start (most families are small) */
    size_t b = child_lower(ch, par, c->nchild, a, g + 1);
    *pos = b;
    *kids = ch + a;
    return b - a;
}

size_t rank_call_children(const rank_data *rk, size_t g, const uint32_t **kids)
{
    size_t pos = SIZE_MAX;
    return rank_call_children_near(rk, g, &pos, kids);
}

uint32_t rank_call_depth(const rank_data *rk, size_t g)
{
    const rank_calls *c = rk->calls;
    uint32_t d = 0;
    if (!c || g >= c->n)
        return 0;
    /* Parent links are acyclic (nest falls back to inference on a cycle). */
    for (int32_t x = c->parent[g]; x >= 0 && d < UINT32_MAX; x = c->parent[x])
        d++;
    return d;
}
