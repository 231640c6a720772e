/* Building the timeline index, once per profile.
 *
 * Per rank: the lane of every call (from its thread and task columns), its
 * depth within that lane, then every (lane, depth) row filled in call order
 * and sorted by start.  Rows are filled region by region, so each is a few
 * runs already sorted (a region's calls are recorded in entry order): a
 * k-way merge over them reads the regions' own start columns, needs no
 * per-call copy of the times and fills the block arrays as it goes.
 * Extra memory while building: 8 bytes per call at most (4 for a
 * single-lane rank), 4 bytes per call kept. */
#include <stdlib.h>
#include <string.h>

#include "lanes_internal.h"

typedef struct rank_build {
    lanes_index *ix;
    rank_data *rk;
    size_t ri;      /* rank index */
    lane_key *keys; /* distinct lane keys of the rank, sorted */
    size_t nkeys;
    uint32_t *lane_of; /* n: position in keys, LANES_NO_LANE when not
                        * indexed; NULL when every call is in lane 0 */
    /* n: lane depth (freed after the build): a byte a call while every
     * depth is below 255 (the build's peak), else 4. */
    uint8_t *ld8;
    uint32_t *ldepth;
    bool all_sorted; /* every indexed region's starts are sorted */
    bool presorted;  /* rows filled in order (fill_rows_merged) */
} rank_build;

/* ------------------------------------------------------ lanes, depths */

static bool region_indexed(const lanes_index *ix, const region *r, const region_filter *f)
{
    return r->has_event_data && r->n > 0 && (!f || filter_match(f, r)) &&
           (!ix->keep || ix->keep(r, ix->keep_user));
}

static uint8_t region_flags(const lanes_index *ix, const region *r, const region_filter *f)
{
    if (!region_indexed(ix, r, f))
        return 0;
    for (size_t i = 1; i < r->n; i++)
        if (r->start_ns[i] < r->start_ns[i - 1])
            return LANES_R_INDEXED;
    return LANES_R_INDEXED | LANES_R_SORTED;
}

static int lane_key_qcmp(const void *a, const void *b)
{
    return lanes_key_cmp(*(const lane_key *)a, *(const lane_key *)b);
}

/* Sorts v[0, n) and drops repeats, in place. */
static size_t sort_unique_keys(lane_key *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, lane_key_qcmp);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (m == 0 || lanes_key_cmp(v[m - 1], v[k]) != 0)
            v[m++] = v[k];
    return m;
}

/* Whether k is among the sorted v[0, n). */
static bool has_key(const lane_key *v, size_t n, lane_key k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = lanes_key_cmp(v[mid], k);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* The keys being collected: v[0, sorted) sorted and unique, then keys not among them. */
typedef struct key_set {
    lane_key *v;
    size_t n, sorted, cap;
} key_set;

/* Adds k unless the sorted part has it; a full array is first made unique again, and grows
 * only when that leaves it more than half full.  Calls of threads taking turns change key at
 * almost every call: without this the array held one key per call and its sort cost more
 * than the rest of the index. */
static bool push_key(key_set *ks, lane_key k)
{
    if (has_key(ks->v, ks->sorted, k))
        return true;
    if (ks->n == ks->cap) {
        ks->n = ks->sorted = sort_unique_keys(ks->v, ks->n);
        if (has_key(ks->v, ks->sorted, k))
            return true;
        if (ks->n > ks->cap / 2 || ks->cap == 0) {
            size_t nc = ks->cap ? ks->cap * 2 : 64;
            lane_key *nv = realloc(ks->v, nc * sizeof *nv);
            if (!nv)
                return false;
            ks->v = nv;
            ks->cap = nc;
        }
    }
    ks->v[ks->n++] = k;
    return true;
}

/* Whether every call of r has the same lane key: no task, thread or
 * inferred lane column (a legacy region, or one thread's). */
static bool region_one_key(const region *r)
{
    const rank_calls *c = r->owner ? r->owner->calls : NULL;
    return !r->task_ids && !r->thread_ids && !(c && c->lane);
}

/* Distinct lane keys of the rank's indexed calls, sorted. */
static bool collect_keys(rank_build *b)
{
    key_set ks = {b->keys, b->nkeys, 0, 0};
    const uint8_t *fl = b->ix->rflags[b->ri];
    bool ok = true;
    for (size_t j = 0; ok && j < b->rk->nregions; j++) {
        const region *r = b->rk->regions[j];
        bool have = false;
        lane_key last = {LANE_RANK, 0};
        if ((fl[j] & LANES_R_INDEXED) && region_one_key(r)) { /* its calls' key is its first's */
            ok = push_key(&ks, lanes_call_key(r, 0));
            continue;
        }
        for (size_t i = 0; ok && (fl[j] & LANES_R_INDEXED) && i < r->n; i++) {
            lane_key k = lanes_call_key(r, i);
            if (have && lanes_key_cmp(k, last) == 0)
                continue;
            ok = push_key(&ks, k);
            last = k;
            have = true;
        }
    }
    b->keys = ks.v;
    b->nkeys = ok ? sort_unique_keys(ks.v, ks.n) : ks.n;
    return ok;
}

static uint32_t key_pos(const rank_build *b, lane_key k)
{
    size_t lo = 0, hi = b->nkeys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = lanes_key_cmp(b->keys[mid], k);
        if (c == 0)
            return (uint32_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return LANES_NO_LANE;
}

static void assign_lanes(rank_build *b)
{
    const uint8_t *fl = b->ix->rflags[b->ri];
    for (size_t j = 0; j < b->rk->nregions; j++) {
        const region *r = b->rk->regions[j];
        lane_key last = {LANE_RANK, 0};
        uint32_t pos = LANES_NO_LANE;
        for (size_t i = 0; i < r->n; i++) {
            if (!(fl[j] & LANES_R_INDEXED)) {
                b->lane_of[r->gidx0 + i] = LANES_NO_LANE;
                continue;
            }
            lane_key k = lanes_call_key(r, i);
            if (pos == LANES_NO_LANE || lanes_key_cmp(k, last) != 0) {
                pos = key_pos(b, k);
                last = k;
            }
            b->lane_of[r->gidx0 + i] = pos;
        }
    }
}

static uint32_t lane_at(const rank_build *b, size_t g)
{
    return b->lane_of ? b->lane_of[g] : 0;
}

static uint32_t ld_get(const rank_build *b, size_t g)
{
    return b->ld8 ? b->ld8[g] : b->ldepth[g];
}

/* false when a byte cannot hold d (the caller widens and starts again) */
static bool ld_set(rank_build *b, size_t g, uint32_t d)
{
    if (!b->ld8) {
        b->ldepth[g] = d;
        return true;
    }
    b->ld8[g] = (uint8_t)d;
    return d < UINT8_MAX;
}

typedef struct dfs_frame {
    uint32_t g, next;
} dfs_frame;

/* Where each call's children start in c->child (n + 1 entries): the
 * families are grouped by parent, so one pass.  A temporary of the walk,
 * freed before the rows are allocated (never held with them). */
static uint32_t *child_offsets(const rank_calls *c)
{
    uint32_t *off = malloc((c->n + 1) * sizeof *off);
    size_t g = 0;
    for (size_t k = 0; off && k < c->nchild; k++) {
        size_t p = (size_t)c->parent[c->child[k]];
        while (g <= p)
            off[g++] = (uint32_t)k;
    }
    while (off && g <= c->n)
        off[g++] = (uint32_t)c->nchild;
    return off;
}

/* Lane depth = number of ancestors in the same lane: a depth-first walk of
 * the call forest keeping one open-call counter per lane.  1 done, 0 a
 * depth too deep for bytes, -1 out of memory. */
static int lane_depths(rank_build *b)
{
    const rank_calls *c = b->rk->calls;
    size_t n = c->n, cap = 64, sp = 0;
    uint32_t *cnt = calloc(b->nkeys ? b->nkeys : 1, sizeof *cnt);
    dfs_frame *st = malloc(cap * sizeof *st);
    uint32_t *off = child_offsets(c);
    bool ok = cnt && st && off, fits = true;
    if (ok && b->ld8)
        memset(b->ld8, 0, n);
    else if (ok)
        memset(b->ldepth, 0, n * sizeof *b->ldepth);
    for (size_t root = 0; ok && fits && root < n; root++) {
        if (c->parent[root] >= 0)
            continue;
        uint32_t g = (uint32_t)root;
        for (;;) {
            if (lane_at(b, g) != LANES_NO_LANE && !(fits = ld_set(b, g, cnt[lane_at(b, g)]++)))
                break;
            if (sp == cap) {
                dfs_frame *ns = realloc(st, cap * 2 * sizeof *st);
                if (!(ok = ns != NULL))
                    break;
                st = ns;
                cap *= 2;
            }
            st[sp++] = (dfs_frame){g, off[g]};
            /* Leave every finished call, then descend into the next child. */
            while (sp > 0 && st[sp - 1].next == off[st[sp - 1].g + 1]) {
                uint32_t done = st[--sp].g;
                if (lane_at(b, done) != LANES_NO_LANE)
                    cnt[lane_at(b, done)]--;
            }
            if (sp == 0)
                break;
            g = c->child[st[sp - 1].next++];
        }
    }
    free(cnt);
    free(st);
    free(off);
    return !ok ? -1 : fits ? 1 : 0;
}

/* One lane (lane_of NULL): a call's lane depth is its nesting depth, its
 * parent's plus one, found by walking up to the nearest call whose depth
 * is known.  Each call is written once: O(calls), and no children offsets
 * (4 bytes a call) beside the depths.  Same return values as lane_depths. */
static int walk_depths(rank_build *b)
{
    const int32_t *parent = b->rk->calls->parent;
    size_t n = b->rk->calls->n, cap = 64, len = 0;
    uint32_t unknown = b->ld8 ? UINT8_MAX : UINT32_MAX;
    uint32_t *path = malloc(cap * sizeof *path);
    if (!path)
        return -1;
    if (b->ld8)
        memset(b->ld8, 0xff, n);
    else
        memset(b->ldepth, 0xff, n * sizeof *b->ldepth);
    for (size_t g = 0; g < n; g++) {
        int32_t x = (int32_t)g;
        len = 0;
        while (x >= 0 && ld_get(b, (size_t)x) == unknown) {
            if (len == cap || len > n) { /* len > n: a cycle, which nest rules out */
                uint32_t *np = len > n ? NULL : realloc(path, cap * 2 * sizeof *path);
                if (!np) {
                    free(path);
                    return -1;
                }
                path = np;
                cap *= 2;
            }
            path[len++] = (uint32_t)x;
            x = parent[x];
        }
        uint32_t d = x < 0 ? 0 : ld_get(b, (size_t)x) + 1;
        while (len > 0)
            if (!ld_set(b, path[--len], d++)) {
                free(path);
                return 0;
            }
    }
    free(path);
    return 1;
}

/* A rank whose calls all share one lane (legacy files, one thread) needs
 * no lane per call: its lane depths are the nesting depths. */
static bool single_lane(const rank_build *b)
{
    if (b->nkeys != 1)
        return false;
    for (size_t j = 0; j < b->rk->nregions; j++)
        if (b->rk->regions[j]->n > 0 && !(b->ix->rflags[b->ri][j] & LANES_R_INDEXED))
            return false;
    return true;
}

static bool depths(rank_build *b)
{
    size_t n = b->rk->ncalls;
    if (!single_lane(b)) { /* else lane_of stays NULL: every call on lane 0 */
        b->lane_of = malloc((n ? n : 1) * sizeof *b->lane_of);
        if (!b->lane_of)
            return false;
        assign_lanes(b);
    }
    int (*walk)(rank_build *) = b->lane_of ? lane_depths : walk_depths;
    b->ld8 = malloc(n ? n : 1);
    int rc = b->ld8 ? walk(b) : -1;
    if (rc == 0) { /* 255 deep or more: four bytes a call */
        free(b->ld8);
        b->ld8 = NULL;
        b->ldepth = malloc((n ? n : 1) * sizeof *b->ldepth);
        rc = b->ldepth ? walk(b) : -1;
    }
    return rc == 1;
}

/* --------------------------------------------------------------- rows */

/* A row of consecutive calls (first != LANES_NOT_CONSECUTIVE) keeps no
 * indices. */
static bool alloc_row(lane_row *row)
{
    if (row->first != LANES_NOT_CONSECUTIVE) {
        row->idx = NULL;
        return true;
    }
    row->idx = malloc((row->n ? row->n : 1) * sizeof *row->idx);
    return row->idx != NULL;
}

/* The block arrays come after the lane depths are freed (finish_rows), so
 * the two are never held at once (the index's peak). */
static bool alloc_blocks(lane_row *row)
{
    size_t nb = lanes_nblocks(row->n);
    row->bstart = malloc((nb ? 2 * nb : 1) * sizeof *row->bstart);
    row->bmaxend = row->bstart ? row->bstart + nb : NULL;
    return row->bstart != NULL;
}

/* Creates the rank's lanes with their rows sized and allocated. */
/* Counts call g (met in ascending order) into its row, noting whether the
 * row's calls so far are consecutive. */
static void count_entry(lane_row *row, size_t g)
{
    if (row->n == 0)
        row->first = (uint32_t)g;
    else if (row->first != LANES_NOT_CONSECUTIVE && g != row->first + row->n)
        row->first = LANES_NOT_CONSECUTIVE;
    row->n++;
}

/* Whether the consecutive calls of row are in (start, index) order, so that
 * they need no index: a region's calls are (in recorded order), and one
 * that spans two regions must start no earlier than the other ends. */
static bool starts_sorted(const rank_data *rk, const lane_row *row)
{
    size_t i, g = row->first, end = g + row->n;
    const region *r = rank_call_region(rk, (int64_t)g, &i);
    int64_t prev = INT64_MIN;
    while (r && g < end) {
        for (; i < r->n && g < end; i++, g++) {
            if (r->start_ns[i] < prev)
                return false;
            prev = r->start_ns[i];
        }
        if (g < end)
            r = rank_call_region(rk, (int64_t)g, &i);
    }
    return g == end;
}

static bool make_lanes(rank_build *b, size_t first)
{
    lanes_index *ix = b->ix;
    lane *nl = realloc(ix->lanes, (first + b->nkeys + 1) * sizeof *nl);
    if (!nl)
        return false;
    ix->lanes = nl;
    for (size_t k = 0; k < b->nkeys; k++) {
        lane *ln = &ix->lanes[first + k];
        memset(ln, 0, sizeof *ln);
        ln->rk = b->rk;
        ln->kind = b->keys[k].kind;
        ln->row = b->keys[k].row;
        ix->nlanes++;
    }
    size_t n = b->rk->ncalls;
    for (size_t g = 0; g < n; g++)
        if (lane_at(b, g) != LANES_NO_LANE) {
            lane *ln = &ix->lanes[first + lane_at(b, g)];
            ln->ndepth = ld_get(b, g) + 1 > ln->ndepth ? ld_get(b, g) + 1 : ln->ndepth;
            ln->ncalls++;
        }
    for (size_t k = 0; k < b->nkeys; k++) {
        lane *ln = &ix->lanes[first + k];
        ln->rows = calloc(ln->ndepth, sizeof *ln->rows);
        if (!ln->rows)
            return false;
    }
    for (size_t g = 0; g < n; g++)
        if (lane_at(b, g) != LANES_NO_LANE)
            count_entry(&ix->lanes[first + lane_at(b, g)].rows[ld_get(b, g)], g);
    for (size_t k = 0; k < b->nkeys; k++) {
        lane *ln = &ix->lanes[first + k];
        for (uint32_t d = 0; d < ln->ndepth; d++) {
            if (ln->rows[d].first != LANES_NOT_CONSECUTIVE && !starts_sorted(b->rk, &ln->rows[d]))
                ln->rows[d].first = LANES_NOT_CONSECUTIVE;
            if (!alloc_row(&ln->rows[d]))
                return false;
        }
    }
    return true;
}

/* One indexed region's calls in a k-way merge: gidx g .. end. */
typedef struct hrun {
    const int64_t *s;
    size_t gidx0, g, end;
} hrun;

static bool hrun_less(const hrun *a, const hrun *b)
{
    int64_t x = a->s[a->g - a->gidx0], y = b->s[b->g - b->gidx0];
    return x < y || (x == y && a->g < b->g);
}

static void hrun_sift(hrun *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && hrun_less(&h[l], &h[m]))
            m = l;
        if (l + 1 < n && hrun_less(&h[l + 1], &h[m]))
            m = l + 1;
        if (m == i)
            return;
        hrun t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* The row of call g that keeps indices, NULL when it has none. */
static inline lane_row *indexed_row(const rank_build *b, size_t first, size_t g)
{
    uint32_t l = lane_at(b, g);
    lane_row *row = l == LANES_NO_LANE ? NULL : &b->ix->lanes[first + l].rows[ld_get(b, g)];
    return row && row->idx ? row : NULL;
}

/* Appends call g (met in row order) to its row if that keeps indices. */
static inline void place_call(rank_build *b, size_t first, size_t g)
{
    lane_row *row = indexed_row(b, first, g);
    if (row)
        row->idx[row->n++] = (uint32_t)g;
}

/* Whether a call of r goes to a row that keeps indices.  The merge leaves
 * out the other regions (a region at a depth of its own, as in most files):
 * a row's order is the same in a merge of only the regions it holds. */
static bool region_fills(const rank_build *b, size_t first, const region *r)
{
    for (size_t g = r->gidx0; g < r->gidx0 + r->n; g++)
        if (indexed_row(b, first, g))
            return true;
    return false;
}

/* Rows of consecutive calls are complete once counted: the others emptied. */
static void reset_indexed_rows(rank_build *b, size_t first)
{
    for (size_t k = 0; k < b->nkeys; k++) {
        lane *ln = &b->ix->lanes[first + k];
        for (uint32_t d = 0; d < ln->ndepth; d++)
            if (ln->rows[d].idx)
                ln->rows[d].n = 0;
    }
}

static void fill_rows(rank_build *b, size_t first)
{
    reset_indexed_rows(b, first);
    for (size_t g = 0; g < b->rk->ncalls; g++)
        place_call(b, first, g);
}

/* Up to this many regions, the merge scans the heads instead of keeping
 * a heap (a heap's unpredictable branches cost more than the extra
 * comparisons; nest_infer.c merges the same way). */
#define HRUN_SCAN_MAX 8

/* The merge of fill_rows_merged by scanning nh <= HRUN_SCAN_MAX heads,
 * their starts kept beside them: the same order as the heap's ((start,
 * call index) is a strict order, so the smallest head is unique). */
static void fill_scan(rank_build *b, size_t first, hrun *h, size_t nh)
{
    int64_t hs[HRUN_SCAN_MAX];
    for (size_t k = 0; k < nh; k++)
        hs[k] = h[k].s[h[k].g - h[k].gidx0];
    while (nh > 0) {
        size_t m = 0;
        for (size_t k = 1; k < nh; k++)
            if (hs[k] < hs[m] || (hs[k] == hs[m] && h[k].g < h[m].g))
                m = k;
        place_call(b, first, h[m].g);
        if (++h[m].g == h[m].end) {
            h[m] = h[--nh];
            hs[m] = hs[nh];
        } else {
            hs[m] = h[m].s[h[m].g - h[m].gidx0];
        }
    }
}

/* When every indexed region's starts are sorted: rows filled in (start,
 * call index) order by a k-way merge of the regions, so each row comes out
 * sorted and none needs a row-sized scratch to be merged afterwards (the
 * index's peak).  false when out of memory (fill_rows then). */
static bool fill_rows_merged(rank_build *b, size_t first)
{
    const rank_data *rk = b->rk;
    hrun *h = malloc((rk->nregions ? rk->nregions : 1) * sizeof *h);
    if (!h)
        return false;
    size_t nh = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (r->n && (b->ix->rflags[b->ri][j] & LANES_R_INDEXED) && region_fills(b, first, r))
            h[nh++] = (hrun){r->start_ns, r->gidx0, r->gidx0, r->gidx0 + r->n};
    }
    reset_indexed_rows(b, first);
    if (nh <= HRUN_SCAN_MAX) {
        fill_scan(b, first, h, nh);
        free(h);
        return true;
    }
    for (size_t k = nh / 2; k-- > 0;)
        hrun_sift(h, nh, k);
    while (nh > 0) {
        place_call(b, first, h[0].g);
        if (++h[0].g == h[0].end)
            h[0] = h[--nh];
        hrun_sift(h, nh, 0);
    }
    free(h);
    return true;
}

/* ------------------------------------------------ sorting and blocks */

/* Fills a row's block arrays and disjoint flag entry by entry, in order. */
typedef struct row_fin {
    lane_row *row;
    size_t k;
    int64_t maxend, prev_ve;
} row_fin;

static void fin_init(row_fin *f, lane_row *row)
{
    *f = (row_fin){row, 0, INT64_MIN, INT64_MIN};
    row->disjoint = true;
}

static void fin_push(row_fin *f, int64_t s, int64_t e)
{
    lane_row *row = f->row;
    int64_t ve = lanes_visible_end(s, e);
    size_t k = f->k++;
    if (k % LANES_BLOCK == 0)
        row->bstart[k / LANES_BLOCK] = s;
    if (s < f->prev_ve)
        row->disjoint = false;
    f->prev_ve = ve;
    f->maxend = ve > f->maxend ? ve : f->maxend;
    if (k % LANES_BLOCK == LANES_BLOCK - 1 || k + 1 == row->n)
        row->bmaxend[k / LANES_BLOCK] = f->maxend;
}

/* One region's entries of a row: idx[pos .. end) of the unsorted row. */
typedef struct mrun {
    const int64_t *s, *e;
    size_t gidx0;
    size_t pos, end;
} mrun;

static int64_t run_key(const mrun *r, const uint32_t *idx)
{
    return r->s[idx[r->pos] - r->gidx0];
}

static bool run_less(const mrun *a, const mrun *b, const uint32_t *idx)
{
    int64_t x = run_key(a, idx), y = run_key(b, idx);
    return x < y || (x == y && idx[a->pos] < idx[b->pos]);
}

static void sift_down(uint32_t *heap, size_t n, size_t i, const mrun *runs, const uint32_t *idx)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && run_less(&runs[heap[l]], &runs[heap[m]], idx))
            m = l;
        if (l + 1 < n && run_less(&runs[heap[l + 1]], &runs[heap[m]], idx))
            m = l + 1;
        if (m == i)
            return;
        uint32_t t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
}

/* Splits a row filled in call order into its regions' runs. */
static size_t split_runs(const rank_data *rk, const lane_row *row, mrun *runs)
{
    size_t nr = 0, j = 0;
    for (size_t k = 0; k < row->n; k++) {
        size_t g = row->idx[k];
        bool moved = false;
        while (g >= rk->regions[j]->gidx0 + rk->regions[j]->n) {
            j++;
            moved = true;
        }
        if (nr == 0 || moved) {
            const region *r = rk->regions[j];
            runs[nr++] = (mrun){r->start_ns, r->end_ns, r->gidx0, k, k};
        }
        runs[nr - 1].end = k + 1;
    }
    return nr;
}

/* A scratch array allocated the first time a row needs one (a row of one
 * region's calls never does: legacy files build no row-sized copy). */
typedef struct scratch {
    uint32_t *p;
    size_t cap, want; /* want: the widest row */
} scratch;

static uint32_t *scratch_get(scratch *sc)
{
    if (!sc->p && sc->want) {
        sc->p = malloc(sc->want * sizeof *sc->p);
        sc->cap = sc->p ? sc->want : 0;
    }
    return sc->p;
}

/* Merges the sorted runs of a row (regions with sorted starts); false
 * when out of memory. */
static bool merge_row(const rank_data *rk, lane_row *row, mrun *runs, uint32_t *heap, scratch *sc)
{
    row_fin f;
    fin_init(&f, row);
    size_t nr = split_runs(rk, row, runs);
    if (nr == 1) {
        const mrun *r = &runs[0];
        for (size_t k = 0; k < row->n; k++)
            fin_push(&f, r->s[row->idx[k] - r->gidx0], r->e[row->idx[k] - r->gidx0]);
        return true;
    }
    uint32_t *tmp = scratch_get(sc);
    if (!tmp)
        return false;
    for (size_t k = 0; k < nr; k++)
        heap[k] = (uint32_t)k;
    for (size_t k = nr / 2; k-- > 0;)
        sift_down(heap, nr, k, runs, row->idx);
    size_t live = nr;
    for (size_t o = 0; o < row->n; o++) {
        mrun *r = &runs[heap[0]];
        uint32_t g = row->idx[r->pos];
        tmp[o] = g;
        fin_push(&f, r->s[g - r->gidx0], r->e[g - r->gidx0]);
        if (++r->pos == r->end)
            heap[0] = heap[--live];
        sift_down(heap, live, 0, runs, row->idx);
    }
    memcpy(row->idx, tmp, row->n * sizeof *tmp);
    return true;
}

static bool entry_less(const int64_t *key, uint32_t a, uint32_t b)
{
    /* a < b breaks ties between call indices; it is no bounds check. */
    // cppcheck-suppress arrayIndexThenCheck
    return key[a] < key[b] || (key[a] == key[b] && a < b);
}

static size_t run_end(const uint32_t *a, size_t from, size_t n, const int64_t *key)
{
    size_t k = from + 1;
    while (k < n && !entry_less(key, a[k], a[k - 1]))
        k++;
    return k;
}

/* Natural merge sort by a per-call key (for regions whose starts are not
 * sorted, which recorded order normally rules out). */
static void sort_row(uint32_t *a, size_t n, uint32_t *tmp, const int64_t *key)
{
    uint32_t *src = a, *dst = tmp;
    while (n > 1 && run_end(src, 0, n, key) < n) {
        size_t k = 0;
        while (k < n) {
            size_t m = run_end(src, k, n, key);
            size_t e = m < n ? run_end(src, m, n, key) : n;
            size_t i = k, j = m, o = k;
            while (i < m && j < e)
                dst[o++] = entry_less(key, src[j], src[i]) ? src[j++] : src[i++];
            while (i < m)
                dst[o++] = src[i++];
            while (j < e)
                dst[o++] = src[j++];
            k = e;
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

static void sort_row_flat(const rank_data *rk, lane_row *row, uint32_t *tmp, const int64_t *flat)
{
    row_fin f;
    sort_row(row->idx, row->n, tmp, flat);
    fin_init(&f, row);
    for (size_t k = 0; k < row->n; k++) {
        int64_t s, e;
        lanes_call_span(rk, lane_row_call(row, k), &s, &e);
        fin_push(&f, s, e);
    }
}

static size_t widest_row(const lanes_index *ix, size_t first)
{
    size_t w = 1;
    for (size_t l = first; l < ix->nlanes; l++)
        for (uint32_t d = 0; d < ix->lanes[l].ndepth; d++)
            w = ix->lanes[l].rows[d].n > w ? ix->lanes[l].rows[d].n : w;
    return w;
}

static int64_t *start_column(const rank_data *rk)
{
    int64_t *flat = malloc((rk->ncalls ? rk->ncalls : 1) * sizeof *flat);
    for (size_t j = 0; flat && j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (r->n) /* a region without calls may have no column at all */
            memcpy(flat + r->gidx0, r->start_ns, r->n * sizeof *flat);
    }
    return flat;
}

/* Sorts every row of the rank's lanes and fills their block arrays. */
/* A row already in (start, index) order: its blocks alone. */
static void fin_sorted(const rank_data *rk, lane_row *row)
{
    row_fin f;
    fin_init(&f, row);
    /* The regions last found are tried before a search (the search per
     * call cost as much as the rest of the row's pass). */
    lanes_hint h = {{NULL}, 0};
    for (size_t k = 0; k < row->n; k++) {
        size_t i = 0;
        const region *r = lanes_hint_find(&h, rk, lane_row_call(row, k), &i);
        fin_push(&f, r ? r->start_ns[i] : 0, r ? r->end_ns[i] : 0);
    }
}

static bool finish_rows(rank_build *b, size_t first)
{
    lanes_index *ix = b->ix;
    size_t nr = b->rk->nregions ? b->rk->nregions : 1;
    scratch sc = {NULL, 0, widest_row(ix, first)};
    mrun *runs = malloc(nr * sizeof *runs);
    uint32_t *heap = malloc(nr * sizeof *heap);
    int64_t *flat = b->all_sorted ? NULL : start_column(b->rk);
    bool ok = runs && heap && (b->all_sorted || flat) && (b->all_sorted || scratch_get(&sc));
    for (size_t l = first; ok && l < ix->nlanes; l++)
        for (uint32_t d = 0; ok && d < ix->lanes[l].ndepth; d++) {
            lane_row *row = &ix->lanes[l].rows[d];
            if (!(ok = alloc_blocks(row)))
                break;
            if (b->presorted || !row->idx)
                fin_sorted(b->rk, row);
            else if (flat)
                sort_row_flat(b->rk, row, sc.p, flat);
            else
                ok = merge_row(b->rk, row, runs, heap, &sc);
            if (row->n && row->bstart[0] < ix->t_min)
                ix->t_min = row->bstart[0];
        }
    free(sc.p);
    free(runs);
    free(heap);
    free(flat);
    return ok;
}

/* Whether a row of the lanes from first on keeps indices (make_lanes
 * counted the rows; only the indices are left to fill). */
static bool rows_need_fill(const lanes_index *ix, size_t first)
{
    for (size_t l = first; l < ix->nlanes; l++)
        for (uint32_t d = 0; d < ix->lanes[l].ndepth; d++)
            if (ix->lanes[l].rows[d].idx)
                return true;
    return false;
}

static void update_tmax(lanes_index *ix, const rank_data *rk)
{
    const uint8_t *fl = ix->rflags[rk - ix->prof->ranks];
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        if (!(fl[j] & LANES_R_INDEXED))
            continue;
        ix->ncalls += r->n;
        for (size_t i = 0; i < r->n; i++)
            ix->t_max = r->end_ns[i] > ix->t_max ? r->end_ns[i] : ix->t_max;
    }
}

static bool build_rank(lanes_index *ix, size_t ri, const region_filter *f)
{
    rank_data *rk = &ix->prof->ranks[ri];
    rank_build b = {ix, rk, ri, NULL, 0, NULL, NULL, NULL, true, false};
    bool rank_ok = !f || filter_match_rank(f, rk->rank);
    ix->rflags[ri] = calloc(rk->nregions ? rk->nregions : 1, 1);
    if (!ix->rflags[ri])
        return false;
    size_t nidx = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        uint8_t fl = rank_ok ? region_flags(ix, rk->regions[j], f) : 0;
        ix->rflags[ri][j] = fl;
        nidx += fl ? rk->regions[j]->n : 0;
        if ((fl & LANES_R_INDEXED) && !(fl & LANES_R_SORTED))
            b.all_sorted = false;
    }
    size_t first = ix->nlanes;
    ix->rank_lane0[ri] = first;
    if (nidx == 0)
        return true;
    bool ok = collect_keys(&b) && depths(&b) && make_lanes(&b, first);
    /* Rows of consecutive calls (each region's calls at one depth, as in
     * most files) are complete once counted: no pass fills them. */
    bool fill = ok && rows_need_fill(ix, first);
    if (fill)
        b.presorted = b.all_sorted && fill_rows_merged(&b, first);
    if (fill && !b.presorted)
        fill_rows(&b, first);
    free(b.lane_of);
    free(b.ld8);
    free(b.ldepth);
    free(b.keys);
    ok = ok && finish_rows(&b, first);
    if (ok)
        update_tmax(ix, rk);
    return ok;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Regions without event data, counted by name: allreduce on every rank
 * is one region to the user. */
static bool count_summary_only(lanes_index *ix, const region_filter *f)
{
    const profile *p = ix->prof;
    const char **names = malloc((p->nregions ? p->nregions : 1) * sizeof *names);
    if (!names)
        return false;
    size_t n = 0;
    for (size_t k = 0; k < p->nregions; k++) {
        const region *r = p->regions[k];
        if (!r->has_event_data && (!f || (filter_match_rank(f, r->rank) && filter_match(f, r))) &&
            (!ix->keep || ix->keep(r, ix->keep_user)))
            names[n++] = r->name;
    }
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    ix->nsummary_only = 0;
    for (size_t k = 0; k < n; k++)
        ix->nsummary_only += k == 0 || strcmp(names[k - 1], names[k]) != 0;
    ix->summary_only_name = n ? names[0] : NULL;
    free(names);
    return true;
}

lanes_index *lanes_share(lanes_index *ix)
{
    if (ix)
        ix->shares++;
    return ix;
}

void lanes_free(lanes_index *ix)
{
    if (!ix)
        return;
    if (ix->shares) {
        ix->shares--;
        return;
    }
    for (size_t l = 0; l < ix->nlanes; l++) {
        lane *ln = &ix->lanes[l];
        for (uint32_t d = 0; ln->rows && d < ln->ndepth; d++) {
            free(ln->rows[d].idx);
            free(ln->rows[d].bstart);
        }
        free(ln->rows);
    }
    free(ix->lanes);
    if (ix->rflags)
        for (size_t k = 0; k < ix->prof->nranks; k++)
            free(ix->rflags[k]);
    free(ix->rflags);
    free(ix->rank_lane0);
    free(ix);
}

sv_err lanes_build(profile *p, const region_filter *f, lanes_index **out, sv_error *err)
{
    return lanes_build_where(p, f, NULL, NULL, out, err);
}

sv_err lanes_build_where(profile *p, const region_filter *f,
                         bool (*keep)(const region *r, void *user), void *user, lanes_index **out,
                         sv_error *err)
{
    *out = NULL;
    sv_err e = profile_ensure_calls(p, err);
    if (e)
        return e;
    lanes_index *ix = calloc(1, sizeof *ix);
    if (ix) {
        ix->prof = p;
        ix->keep = keep;
        ix->keep_user = user;
        ix->t_min = INT64_MAX;
        ix->t_max = INT64_MIN;
        ix->rank_lane0 = calloc(p->nranks + 1, sizeof *ix->rank_lane0);
        ix->rflags = calloc(p->nranks ? p->nranks : 1, sizeof *ix->rflags);
    }
    bool ok = ix && ix->rank_lane0 && ix->rflags;
    for (size_t k = 0; ok && k < p->nranks; k++)
        ok = build_rank(ix, k, f);
    if (!ok) {
        lanes_free(ix);
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory while indexing the timeline",
                            p->path);
    }
    ix->rank_lane0[p->nranks] = ix->nlanes;
    if (!count_summary_only(ix, f)) {
        lanes_free(ix);
        return sv_error_set(err, SV_ERR_NOMEM, "%s: out of memory", p->path);
    }
    *out = ix;
    return SV_OK;
}
