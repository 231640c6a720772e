/* diff: building a comparison (see diff.h).  diff_rows.c tests the rows,
 * adjusts and flags them, and answers the views' questions. */
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "diff_internal.h"
#include "util/hash.h"
#include "merged.h"
#include "nest.h"

const char *const diff_metric_names[DM_COUNT] = {"total", "mean", "p50", "p95", "p99"};

bool diff_metric_parse(const char *s, diff_metric *out)
{
    for (int k = 0; k < DM_COUNT; k++)
        if (s && strcmp(s, diff_metric_names[k]) == 0) {
            *out = (diff_metric)k;
            return true;
        }
    return false;
}

void diff_options_init(diff_options *o)
{
    *o = (diff_options){.rank = -1, .metric = DM_TOTAL, .threshold = 0.05, .alpha = 0.01};
}

/* A per-call array (millions of entries).  Plain malloc: with a huge-page
 * hint (as the loader's columns) the two loading children took fewer page
 * faults but more system time (the kernel compacts memory for each 2 MiB
 * page on a busy machine): --diff on two 10M-call files 2.65 s -> 3.25 s
 * wall, median of 5. */
void *diff_alloc_big(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

/* ------------------------------------------------------------------ names */

static bool name_hash_grow(diff_result *d)
{
    diff_build *b = d->b;
    size_t ncap = b->nhcap ? b->nhcap * 2 : 256;
    uint32_t *nh = malloc(ncap * sizeof *nh);
    if (!nh)
        return false;
    memset(nh, 0xff, ncap * sizeof *nh);
    for (size_t i = 0; i < d->nnames; i++) {
        size_t h = sv_hash_str(d->names[i]) & (ncap - 1);
        while (nh[h] != DIFF_NONE)
            h = (h + 1) & (ncap - 1);
        nh[h] = (uint32_t)i;
    }
    free(b->nhash);
    b->nhash = nh;
    b->nhcap = ncap;
    return true;
}

static size_t name_slot(const diff_result *d, const char *s)
{
    const diff_build *b = d->b;
    size_t h = sv_hash_str(s) & (b->nhcap - 1);
    while (b->nhash[h] != DIFF_NONE && strcmp(d->names[b->nhash[h]], s) != 0)
        h = (h + 1) & (b->nhcap - 1);
    return h;
}

uint32_t diff_name_find(const diff_result *d, const char *s)
{
    return d->b->nhcap ? d->b->nhash[name_slot(d, s)] : DIFF_NONE;
}

/* The name's id, added (with an empty region row) when new; DIFF_NONE on NOMEM. */
static uint32_t name_intern(diff_result *d, const char *s)
{
    diff_build *b = d->b;
    if ((d->nnames + 1) * 2 > b->nhcap && !name_hash_grow(d))
        return DIFF_NONE;
    size_t h = name_slot(d, s);
    if (b->nhash[h] != DIFF_NONE)
        return b->nhash[h];
    if (d->nnames == b->ncap) {
        size_t nc = b->ncap ? b->ncap * 2 : 64;
        char **nn = realloc(d->names, nc * sizeof *nn);
        if (nn)
            d->names = nn;
        diff_row *nr = nn ? realloc(d->regions, nc * sizeof *nr) : NULL;
        if (!nr)
            return DIFF_NONE;
        d->regions = nr;
        b->ncap = nc;
    }
    char *copy = strdup(s);
    if (!copy)
        return DIFF_NONE;
    uint32_t id = (uint32_t)d->nnames++;
    d->names[id] = copy;
    d->regions[id] = (diff_row){.name = id, .parent = DIFF_NONE};
    d->nregions = d->nnames;
    b->nhash[h] = id;
    return id;
}

/* ------------------------------------------------------------------ paths */

static size_t path_slot(const diff_result *d, uint32_t parent, uint32_t name)
{
    const diff_build *b = d->b;
    size_t mask = b->phcap - 1;
    size_t h = (size_t)sv_hash_u64(((uint64_t)parent << 32) | name) & mask;
    for (;;) {
        uint32_t k = b->phash[h];
        if (k == DIFF_NONE || (d->paths[k].parent == parent && d->paths[k].name == name))
            return h;
        h = (h + 1) & mask;
    }
}

static bool path_reserve(diff_result *d)
{
    diff_build *b = d->b;
    if (d->npaths >= DIFF_NONE - 2)
        return false;
    if (d->npaths == b->pcap) {
        size_t nc = b->pcap ? b->pcap * 2 : 256;
        diff_row *np = realloc(d->paths, nc * sizeof *np);
        if (!np)
            return false;
        d->paths = np;
        b->pcap = nc;
    }
    if ((d->npaths + 1) * 2 <= b->phcap)
        return true;
    size_t ncap = b->phcap ? b->phcap * 2 : 1024;
    uint32_t *nh = malloc(ncap * sizeof *nh);
    if (!nh)
        return false;
    memset(nh, 0xff, ncap * sizeof *nh);
    free(b->phash);
    b->phash = nh;
    b->phcap = ncap;
    for (size_t i = 1; i < d->npaths; i++)
        b->phash[path_slot(d, d->paths[i].parent, d->paths[i].name)] = (uint32_t)i;
    return true;
}

static uint32_t path_intern(diff_result *d, uint32_t parent, uint32_t name)
{
    size_t h = path_slot(d, parent, name);
    if (d->b->phash[h] != DIFF_NONE)
        return d->b->phash[h];
    if (!path_reserve(d))
        return DIFF_NONE;
    h = path_slot(d, parent, name);
    uint32_t k = (uint32_t)d->npaths++;
    d->paths[k] = (diff_row){
        .name = name, .parent = parent, .depth = parent ? d->paths[parent].depth + 1 : 0};
    d->b->phash[h] = k;
    return k;
}

/* ------------------------------------------------------------------ begin */

sv_err diff_begin(const diff_options *o, const region_filter *f, diff_result **out, sv_error *err)
{
    *out = NULL;
    diff_result *d = calloc(1, sizeof *d);
    diff_build *b = d ? calloc(1, sizeof *b) : NULL;
    if (!b) {
        free(d);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    d->b = b;
    d->opt = *o;
    b->filter = f ? *f : (region_filter){0};
    b->has_filter = f != NULL;
    if (o->rank >= 0) {
        /* one rank on both sides: the user's rank list must allow it */
        if (f && !filter_match_rank(f, o->rank)) {
            diff_free(d);
            return sv_error_set(err, SV_ERR_USAGE, "rank %d is not among --ranks", o->rank);
        }
        b->one_rank = o->rank;
        b->filter.ranks = &b->one_rank;
        b->filter.nranks = 1;
        b->has_filter = true;
    }
    if (!path_reserve(d)) {
        diff_free(d);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    d->paths[0] = (diff_row){.name = DIFF_NONE, .parent = DIFF_NONE};
    d->npaths = 1;
    *out = d;
    return SV_OK;
}

/* ------------------------------------------------------------ one side */

static const region_filter *build_filter(const diff_result *d)
{
    return d->b->has_filter ? &d->b->filter : NULL;
}

static void side_set(diff_side *s, diff_value v, double x)
{
    s->v[v] = x;
    s->known |= 1u << v;
}

/* Region rows of one side from the regions merged over the ranks in scope. */
static sv_err add_regions(diff_result *d, int side, const profile *p, sv_error *err)
{
    merged_region *m = NULL;
    size_t nm = 0;
    sv_err rc = merged_regions_build(p, build_filter(d), &m, &nm, err);
    if (rc != SV_OK)
        return rc;
    static const struct {
        merged_stat ms;
        diff_value dv;
    } map[] = {{MS_TOTAL, DV_TOTAL},
               {MS_MEAN, DV_MEAN},
               {MS_P50, DV_P50},
               {MS_P95, DV_P95},
               {MS_P99, DV_P99},
               {MS_EXCL, DV_EXCL},
               {MS_IMBALANCE, DV_IMBALANCE}};
    for (size_t i = 0; i < nm; i++) {
        uint32_t id = name_intern(d, m[i].name);
        if (id == DIFF_NONE) {
            merged_regions_free(m, nm);
            return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
        }
        diff_side *s = &d->regions[id].s[side];
        s->present = true;
        s->events = m[i].event_data;
        if (m[i].known & (1u << MS_CALLS)) {
            s->has_calls = true;
            s->calls = (int64_t)m[i].v[MS_CALLS];
        }
        for (size_t k = 0; k < sizeof map / sizeof *map; k++)
            if (m[i].known & (1u << map[k].ms))
                side_set(s, map[k].dv, m[i].v[map[k].ms]);
    }
    merged_regions_free(m, nm);
    return SV_OK;
}

/* Per-rank scratch while resolving the path of every call.  One array per
 * call (4 bytes) serves twice: it holds the call's parent until the call
 * is resolved, then its path (eff), so the nesting and the paths never
 * need two arrays.  A bit per call says which it holds.  A call's name
 * comes from its region, found by binary search over the rank's call
 * numbering, and the stack grows with depth. */
typedef struct rank_walk {
    const rank_data *rk;
    const int64_t *excl; /* the rank's exclusive times (a borrowed buffer) */
    uint32_t *rid;       /* name id of each region of the rank, DIFF_NONE when filtered out */
    /* parent of each unresolved call (int32, -1 for none), then path of each
     * resolved call (or of its nearest kept ancestor) */
    uint32_t *eff;
    uint64_t *done;  /* bit c: eff[c] holds call c's path */
    uint32_t *stack; /* grows */
    size_t cap;
    /* Ancestors resolved in a row are mostly calls of one region with one
     * parent path: the last region found and the last path interned. */
    size_t hint;
    uint32_t last_base, last_name, last_path;
} rank_walk;

static bool walk_done(const rank_walk *w, size_t c)
{
    return (w->done[c >> 6] >> (c & 63)) & 1u;
}

static void walk_set(rank_walk *w, size_t c, uint32_t path)
{
    w->eff[c] = path;
    w->done[c >> 6] |= (uint64_t)1 << (c & 63);
}

static int64_t walk_parent(const rank_walk *w, size_t c)
{
    return (int32_t)w->eff[c];
}

/* Index of the region holding rank call c (regions number their calls
 * consecutively, in order). */
static size_t region_of_call(const rank_data *rk, size_t c)
{
    size_t lo = 0, hi = rk->nregions;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->regions[mid]->gidx0 <= c)
            lo = mid;
        else
            hi = mid;
    }
    /* the last region starting at or before c holds it: an empty region
     * shares the next one's gidx0, so it is never the last one */
    return lo;
}

static uint32_t call_name(rank_walk *w, size_t c)
{
    const region *h = w->hint < w->rk->nregions ? w->rk->regions[w->hint] : NULL;
    if (!h || c < h->gidx0 || c - h->gidx0 >= h->n)
        w->hint = region_of_call(w->rk, c);
    return w->rid[w->hint];
}

/* path_intern, remembering the last answer. */
static uint32_t walk_intern(diff_result *d, rank_walk *w, uint32_t base, uint32_t name)
{
    if (base != w->last_base || name != w->last_name || w->last_path == DIFF_NONE) {
        w->last_base = base;
        w->last_name = name;
        w->last_path = path_intern(d, base, name);
    }
    return w->last_path;
}

static bool stack_push(rank_walk *w, size_t k, uint32_t x)
{
    if (k == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 64;
        uint32_t *ns = realloc(w->stack, nc * sizeof *ns);
        if (!ns)
            return false;
        w->stack = ns;
        w->cap = nc;
    }
    w->stack[k] = x;
    return true;
}

static bool walk_resolve(diff_result *d, rank_walk *w, uint32_t c)
{
    size_t k = 0;
    int64_t x = c;
    while (x >= 0 && !walk_done(w, (size_t)x)) {
        if (!stack_push(w, k++, (uint32_t)x))
            return false;
        x = walk_parent(w, (size_t)x);
    }
    uint32_t base = x < 0 ? 0 : w->eff[x];
    while (k) {
        uint32_t y = w->stack[--k];
        uint32_t name = call_name(w, y);
        if (name != DIFF_NONE)
            base = walk_intern(d, w, base, name);
        if (base == DIFF_NONE)
            return false;
        walk_set(w, y, base);
    }
    return true;
}

static void path_sums(diff_result *d, int side, uint32_t path, int64_t calls, double tot, double ex)
{
    if (path == DIFF_NONE)
        return;
    diff_side *sd = &d->paths[path].s[side];
    sd->calls = calls;
    sd->v[DV_TOTAL] = tot;
    sd->v[DV_EXCL] = ex;
}

/* Resolves every call of the rank (w->eff holds the parents) and adds it
 * to its path's side.  Keeps eff and rid (the scatter pass needs them). */
static bool walk_rank(diff_result *d, int side, rank_walk *w)
{
    const rank_data *rk = w->rk;
    const region_filter *f = build_filter(d);
    size_t n = rk->ncalls;
    w->rid = malloc((rk->nregions ? rk->nregions : 1) * sizeof *w->rid);
    w->done = calloc(n / 64 + 1, sizeof *w->done);
    w->last_path = DIFF_NONE;
    bool ok = w->rid && w->done;
    for (size_t j = 0; ok && j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        w->rid[j] = filter_match_name(f, r->name) ? diff_name_find(d, r->name) : DIFF_NONE;
    }
    /* Region by region, so a call's name is at hand; only ancestors not yet
     * resolved are looked up.  Calls of a region mostly share their parent's
     * path: the last (parent path -> path) pair is reused.  Each kept call
     * is added to its path in the same pass, in the region's order (a path's
     * calls are one region's: its sums come out the same in any layout). */
    for (size_t j = 0; ok && j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        uint32_t name = w->rid[j], last_base = DIFF_NONE, last_path = DIFF_NONE;
        /* the current path's sums, held here while its calls come in a row
         * (the same additions in the same order as into the row itself) */
        uint32_t cur = DIFF_NONE;
        int64_t calls = 0;
        double tot = 0, ex = 0;
        for (size_t i = 0; ok && i < r->n; i++) {
            size_t c = r->gidx0 + i;
            if (!walk_done(w, c)) {
                int64_t up = walk_parent(w, c);
                if (up >= 0 && !walk_done(w, (size_t)up))
                    ok = walk_resolve(d, w, (uint32_t)up);
                uint32_t base = up < 0 ? 0 : w->eff[up];
                if (name == DIFF_NONE) {
                    walk_set(w, c, base);
                    continue;
                }
                if (base != last_base) {
                    last_base = base;
                    last_path = path_intern(d, base, name);
                    ok = ok && last_path != DIFF_NONE;
                }
                walk_set(w, c, last_path);
            }
            if (name == DIFF_NONE || !ok)
                continue;
            if (w->eff[c] != cur) {
                path_sums(d, side, cur, calls, tot, ex);
                cur = w->eff[c];
                diff_side *sd = &d->paths[cur].s[side];
                sd->present = sd->events = sd->has_calls = true;
                calls = sd->calls;
                tot = sd->v[DV_TOTAL];
                ex = sd->v[DV_EXCL];
            }
            calls++;
            tot += (double)(r->end_ns[i] - r->start_ns[i]);
            ex += (double)w->excl[c];
        }
        path_sums(d, side, cur, calls, tot, ex);
    }
    free(w->stack);
    w->stack = NULL;
    w->cap = 0;
    free(w->done);
    w->done = NULL;
    return ok;
}

/* Path runs ordered by (name, path) so each region's calls are one run.
 * buf (room for cap >= every kept call) becomes the side's samples. */
static sv_err layout_side(diff_result *d, int side, int64_t *buf, size_t cap, sv_error *err)
{
    size_t total = 0;
    for (size_t i = 1; i < d->npaths; i++)
        total += (size_t)d->paths[i].s[side].calls;
    /* counting sort of paths by name id: offsets per name, then per path */
    size_t *name_off = calloc(d->nnames + 1, sizeof *name_off);
    if (!name_off || total > cap) {
        free(name_off);
        free(buf);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff samples)");
    }
    if (total < cap) { /* shrinking: the excess goes back at once */
        int64_t *nb = realloc(buf, (total ? total : 1) * sizeof *buf);
        if (nb)
            buf = nb;
    }
    for (size_t i = 1; i < d->npaths; i++)
        name_off[d->paths[i].name + 1] += (size_t)d->paths[i].s[side].calls;
    for (size_t k = 0; k < d->nnames; k++) {
        name_off[k + 1] += name_off[k];
        d->regions[k].s[side].off = name_off[k];
        d->regions[k].s[side].n = name_off[k + 1] - name_off[k];
    }
    for (size_t i = 1; i < d->npaths; i++) {
        diff_side *s = &d->paths[i].s[side];
        s->off = name_off[d->paths[i].name];
        s->n = 0; /* grows as the scatter pass fills it */
        name_off[d->paths[i].name] += (size_t)s->calls;
    }
    free(name_off);
    d->samples[side] = buf;
    d->nsamples[side] = total;
    return SV_OK;
}

static void scatter_rank(diff_result *d, int side, const rank_walk *w)
{
    const rank_data *rk = w->rk;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (w->rid[j] == DIFF_NONE)
            continue;
        for (size_t i = 0; i < r->n; i++) {
            diff_side *s = &d->paths[w->eff[r->gidx0 + i]].s[side];
            d->samples[side][s->off + s->n++] = r->end_ns[i] - r->start_ns[i];
        }
    }
}

/* Sorts each path's run and fills its statistics. */
static sv_err finish_paths_side(diff_result *d, int side, sv_error *err)
{
    size_t maxn = 0;
    for (size_t i = 1; i < d->npaths; i++)
        if (d->paths[i].s[side].n > maxn)
            maxn = d->paths[i].s[side].n;
    int64_t *scratch = malloc((maxn ? maxn : 1) * sizeof *scratch);
    if (!scratch)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff sort)");
    for (size_t i = 1; i < d->npaths; i++) {
        diff_side *s = &d->paths[i].s[side];
        if (!s->present)
            continue;
        int64_t *v = d->samples[side] + s->off;
        mwu_sort_i64(v, s->n, scratch);
        s->known = 1u << DV_TOTAL | 1u << DV_EXCL;
        side_set(s, DV_MEAN, s->n ? s->v[DV_TOTAL] / (double)s->n : 0.0);
        side_set(s, DV_P50, mwu_sorted_percentile(v, s->n, 50));
        side_set(s, DV_P95, mwu_sorted_percentile(v, s->n, 95));
        side_set(s, DV_P99, mwu_sorted_percentile(v, s->n, 99));
    }
    free(scratch);
    return SV_OK;
}

/* Walks one rank with the nesting the views built, or else with parents
 * and exclusive times computed for the walk alone (no depth, children or
 * lane arrays).  excl: room for the rank's exclusive times, borrowed (the
 * side's samples buffer, not filled yet). */
static sv_err walk_rank_nested(diff_result *d, int side, rank_walk *w, int64_t *excl, sv_error *err)
{
    rank_data *rk = (rank_data *)w->rk;
    size_t m = rk->ncalls ? rk->ncalls : 1;
    w->eff = diff_alloc_big(m * sizeof *w->eff);
    w->excl = excl;
    sv_err rc = SV_OK;
    if (!w->eff) {
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
    } else if (rk->calls) { /* exclusive times are not stored: worked out per call */
        for (size_t g = 0; g < rk->ncalls; g++)
            excl[g] = rank_call_excl(rk, g);
        memcpy(w->eff, rk->calls->parent, rk->ncalls * sizeof *w->eff);
    } else {
        rc = nest_rank_parents(rk, (int32_t *)w->eff, excl, err);
    }
    if (rc == SV_OK && !walk_rank(d, side, w))
        rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
    w->excl = NULL;
    return rc;
}

/* Walks one rank whose parents and exclusive times were computed
 * beforehand (diff_add_nested); parent becomes w's. */
static sv_err walk_rank_pre(diff_result *d, int side, rank_walk *w, int32_t *parent, int64_t *excl,
                            sv_error *err)
{
    w->eff = (uint32_t *)parent;
    w->excl = excl;
    bool ok = walk_rank(d, side, w);
    w->excl = NULL;
    return ok ? SV_OK : sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
}

static sv_err add_paths(diff_result *d, int side, profile *p, diff_nesting *pre, sv_error *err)
{
    /* The viewer needs the full nesting anyway; a batch run does not. */
    sv_err rc = d->opt.release_calls || pre ? SV_OK : profile_ensure_calls(p, err);
    if (rc != SV_OK)
        return rc;
    const region_filter *f = build_filter(d);
    /* One buffer holds each rank's exclusive times in turn while walking,
     * then the side's samples: room for every call of the ranks in scope. */
    size_t cap = 0;
    for (size_t k = 0; k < p->nranks; k++)
        if (filter_match_rank(f, p->ranks[k].rank))
            cap += p->ranks[k].ncalls;
    rank_walk *w = calloc(p->nranks ? p->nranks : 1, sizeof *w);
    int64_t *buf = pre ? pre->excl : diff_alloc_big((cap ? cap : 1) * sizeof *buf);
    if (pre)
        pre->excl = NULL;
    if (!w || !buf) {
        free(w);
        free(buf);
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
    }
    for (size_t k = 0, off = 0; rc == SV_OK && k < p->nranks; k++) {
        w[k].rk = &p->ranks[k];
        if (!filter_match_rank(f, p->ranks[k].rank))
            continue;
        if (pre) { /* each rank's exclusive times after the previous one's */
            rc = walk_rank_pre(d, side, &w[k], pre->parent[k], buf + off, err);
            pre->parent[k] = NULL;
            off += p->ranks[k].ncalls;
        } else {
            rc = walk_rank_nested(d, side, &w[k], buf, err);
        }
    }
    if (rc == SV_OK)
        rc = layout_side(d, side, buf, cap, err);
    else
        free(buf);
    for (size_t k = 0; k < p->nranks; k++) {
        if (rc == SV_OK && w[k].eff)
            scatter_rank(d, side, &w[k]);
        free(w[k].eff);
        free(w[k].rid);
        free(w[k].stack);
        free(w[k].done);
    }
    free(w);
    return rc == SV_OK ? finish_paths_side(d, side, err) : rc;
}

sv_err diff_add(diff_result *d, int side, profile *p, sv_error *err)
{
    if (d->opt.rank >= 0 && !profile_rank(p, d->opt.rank))
        return sv_error_set(err, SV_ERR_NOT_FOUND, "%s has no rank %d", p->path ? p->path : "",
                            d->opt.rank);
    free(d->label[side]);
    d->label[side] = strdup(profile_name(p));
    if (!d->label[side])
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    sv_err rc = add_regions(d, side, p, err);
    return rc == SV_OK ? add_paths(d, side, p, NULL, err) : rc;
}

sv_err diff_add_nested(diff_result *d, int side, profile *p, diff_nesting *nest, sv_error *err)
{
    sv_err rc = SV_OK;
    if (d->opt.rank >= 0 && !profile_rank(p, d->opt.rank))
        rc = sv_error_set(err, SV_ERR_NOT_FOUND, "%s has no rank %d", p->path ? p->path : "",
                          d->opt.rank);
    if (rc == SV_OK) {
        free(d->label[side]);
        d->label[side] = strdup(profile_name(p));
        if (!d->label[side])
            rc = sv_error_set(err, SV_ERR_NOMEM, "out of memory");
    }
    if (rc == SV_OK)
        rc = add_regions(d, side, p, err);
    if (rc == SV_OK)
        rc = add_paths(d, side, p, nest, err);
    /* whatever add_paths did not take */
    for (size_t k = 0; nest->parent && k < p->nranks; k++)
        free(nest->parent[k]);
    free(nest->parent);
    free(nest->excl);
    nest->parent = NULL;
    nest->excl = NULL;
    return rc;
}

/* A one-sided comparison built elsewhere (side 0 of part: diff_remote.c)
 * as side `side` of d.  Names, then paths, are interned in part's order,
 * the order diff_add() finds them in; a path's parent comes before it.
 * part's samples move into d: its offsets stay valid. */
sv_err diff_add_built(diff_result *d, int side, const char *label, diff_result *part, sv_error *err)
{
    free(d->label[side]);
    d->label[side] = strdup(label ? label : "");
    uint32_t *nmap = malloc((part->nnames ? part->nnames : 1) * sizeof *nmap);
    uint32_t *pmap = malloc((part->npaths ? part->npaths : 1) * sizeof *pmap);
    bool ok = d->label[side] && nmap && pmap;
    for (size_t i = 0; ok && i < part->nnames; i++) {
        nmap[i] = name_intern(d, part->names[i]);
        ok = nmap[i] != DIFF_NONE;
        if (ok)
            d->regions[nmap[i]].s[side] = part->regions[i].s[0];
    }
    pmap[0] = 0;
    for (size_t i = 1; ok && i < part->npaths; i++) {
        const diff_row *r = &part->paths[i];
        pmap[i] = path_intern(d, pmap[r->parent], nmap[r->name]);
        ok = pmap[i] != DIFF_NONE;
        if (ok)
            d->paths[pmap[i]].s[side] = r->s[0];
    }
    free(nmap);
    free(pmap);
    if (!ok)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory (diff)");
    free(d->samples[side]);
    d->samples[side] = part->samples[0];
    d->nsamples[side] = part->nsamples[0];
    part->samples[0] = NULL;
    part->nsamples[0] = 0;
    return SV_OK;
}

void diff_free(diff_result *d)
{
    if (!d)
        return;
    if (d->b) {
        free(d->b->nhash);
        free(d->b->phash);
        free(d->b);
    }
    for (size_t i = 0; i < d->nnames; i++)
        free(d->names[i]);
    free(d->names);
    free(d->regions);
    free(d->paths);
    free(d->child_off);
    free(d->child);
    free(d->samples[0]);
    free(d->samples[1]);
    free(d->label[0]);
    free(d->label[1]);
    free(d);
}

const region_filter *diff_scope_filter(const diff_result *d)
{
    return d->b && d->b->has_filter ? &d->b->filter : NULL;
}

sv_err diff_profiles(profile *base, profile *newp, const diff_options *o, const region_filter *f,
                     diff_result **out, sv_error *err)
{
    diff_result *d = NULL;
    sv_err rc = diff_begin(o, f, &d, err);
    if (rc == SV_OK)
        rc = diff_add(d, DIFF_BASE, base, err);
    if (rc == SV_OK)
        rc = diff_add(d, DIFF_NEW, newp, err);
    if (rc == SV_OK)
        rc = diff_finish(d, err);
    if (rc != SV_OK) {
        diff_free(d);
        return rc;
    }
    *out = d;
    return SV_OK;
}
