/* The timeline index: lanes, lane depths and per-row sorted call lists. */
#include "lanes.h"

#include <stdlib.h>
#include <string.h>

#define NO_LANE UINT32_MAX

typedef struct lane_key {
    lane_kind kind;
    int64_t row;
} lane_key;

static int lane_key_cmp(lane_key a, lane_key b)
{
    if (a.kind != b.kind)
        return a.kind < b.kind ? -1 : 1;
    return (a.row > b.row) - (a.row < b.row);
}

static int lane_key_qcmp(const void *a, const void *b)
{
    return lane_key_cmp(*(const lane_key *)a, *(const lane_key *)b);
}

static lane_key call_lane_key(const region *r, size_t i)
{
    if (r->task_ids && r->task_ids[i] >= 0)
        return (lane_key){LANE_TASK, r->task_ids[i]};
    if (r->thread_ids && r->thread_ids[i] >= 0)
        return (lane_key){LANE_THREAD, r->thread_ids[i]};
    return (lane_key){LANE_RANK, -1};
}

void lanes_call_span(const rank_data *rk, uint32_t g, int64_t *start, int64_t *end)
{
    size_t i = 0;
    const region *r = rank_call_region(rk, g, &i);
    *start = r ? r->start_ns[i] : 0;
    *end = r ? r->end_ns[i] : 0;
}

static int64_t entry_start(const lane *ln, const lane_row *row, size_t k)
{
    int64_t s, e;
    lanes_call_span(ln->rk, row->idx[k], &s, &e);
    return s;
}

static int64_t entry_vend(const lane *ln, const lane_row *row, size_t k)
{
    int64_t s, e;
    lanes_call_span(ln->rk, row->idx[k], &s, &e);
    return lanes_visible_end(s, e);
}

/* ------------------------------------------------------------ queries */

static size_t nblocks(size_t n)
{
    return (n + LANES_BLOCK - 1) / LANES_BLOCK;
}

size_t lane_row_lower_start(const lane *ln, const lane_row *row, int64_t t)
{
    size_t lo = 0, hi = nblocks(row->n);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (row->bstart[mid] >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == 0)
        return 0;
    /* Entry (lo-1)*B starts before t; the answer lies in ((lo-1)*B, lo*B]. */
    size_t a = (lo - 1) * LANES_BLOCK + 1, b = lo * LANES_BLOCK;
    b = b < row->n ? b : row->n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (entry_start(ln, row, mid) >= t)
            b = mid;
        else
            a = mid + 1;
    }
    return a;
}

size_t lane_row_first_visible(const lane *ln, const lane_row *row, int64_t t)
{
    size_t lo = 0, hi = nblocks(row->n);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (row->bmaxend[mid] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t end = (lo + 1) * LANES_BLOCK;
    end = end < row->n ? end : row->n;
    for (size_t k = lo * LANES_BLOCK; k < end; k++)
        if (entry_vend(ln, row, k) > t)
            return k;
    return row->n;
}

size_t lane_row_count(const lane *ln, const lane_row *row, int64_t t0, int64_t t1, size_t exact,
                      size_t *first)
{
    size_t lo = lane_row_first_visible(ln, row, t0);
    size_t hi = lo < row->n ? lane_row_lower_start(ln, row, t1) : lo;
    if (first)
        *first = lo < hi ? lo : row->n;
    if (lo >= hi)
        return 0;
    if (hi - lo <= exact) {
        size_t count = 0;
        for (size_t k = lo; k < hi; k++)
            count += entry_vend(ln, row, k) > t0;
        return count;
    }
    /* Entries starting inside the window are all visible; of the ones that
     * start before it (one at most without overlaps) count a few exactly. */
    size_t m = lane_row_lower_start(ln, row, t0);
    m = m > lo ? m : lo;
    size_t count = hi - m, scan_end = m - lo > exact ? lo + exact : m;
    for (size_t k = lo; k < scan_end; k++)
        count += entry_vend(ln, row, k) > t0;
    return count;
}

size_t lanes_find_lane(const lanes_index *ix, size_t rank_index, lane_kind kind, int64_t row)
{
    size_t lo = ix->rank_lane0[rank_index], hi = ix->rank_lane0[rank_index + 1];
    lane_key want = {kind, row};
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = lane_key_cmp((lane_key){ix->lanes[mid].kind, ix->lanes[mid].row}, want);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

/* The region holding rank call g and its position among the rank's regions. */
static const region *call_region(const rank_data *rk, int64_t g, size_t *j, size_t *i)
{
    if (g < 0 || (size_t)g >= rk->ncalls)
        return NULL;
    size_t lo = 0, hi = rk->nregions;
    while (lo < hi) { /* first region whose calls end after g */
        size_t mid = lo + (hi - lo) / 2;
        if (rk->regions[mid]->gidx0 + rk->regions[mid]->n <= (size_t)g)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo < rk->nregions && rk->regions[lo]->n == 0)
        lo++;
    if (lo == rk->nregions)
        return NULL;
    *j = lo;
    *i = (size_t)g - rk->regions[lo]->gidx0;
    return rk->regions[lo];
}

static bool call_indexed(const lanes_index *ix, size_t rank_index, const rank_data *rk, int64_t g,
                         const region **r, size_t *i)
{
    size_t j;
    *r = call_region(rk, g, &j, i);
    return *r && (ix->rflags[rank_index][j] & LANES_R_INDEXED);
}

bool lanes_locate(const lanes_index *ix, int rank, int64_t call, size_t *lane_out,
                  uint32_t *depth_out, size_t *pos_out)
{
    const rank_data *rk = profile_rank(ix->prof, rank);
    const region *r;
    size_t i;
    if (!rk || !rk->calls)
        return false;
    size_t ri = (size_t)(rk - ix->prof->ranks);
    if (!call_indexed(ix, ri, rk, call, &r, &i))
        return false;
    lane_key key = call_lane_key(r, i);
    size_t l = lanes_find_lane(ix, ri, key.kind, key.row);
    if (l == SIZE_MAX)
        return false;
    uint32_t d = 0;
    for (int32_t p = rk->calls->parent[call]; p >= 0; p = rk->calls->parent[p]) {
        const region *pr;
        size_t pi;
        if (call_indexed(ix, ri, rk, p, &pr, &pi) && lane_key_cmp(call_lane_key(pr, pi), key) == 0)
            d++;
    }
    const lane *ln = &ix->lanes[l];
    if (d >= ln->ndepth)
        return false;
    const lane_row *row = &ln->rows[d];
    size_t k = lane_row_lower_start(ln, row, r->start_ns[i]);
    while (k < row->n && row->idx[k] != (uint32_t)call)
        k++;
    if (k == row->n)
        return false;
    *lane_out = l;
    *depth_out = d;
    if (pos_out)
        *pos_out = k;
    return true;
}

/* ------------------------------------------------------------- search */

static int key_cmp(const lanes_key *a, const lanes_key *b)
{
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->call > b->call) - (a->call < b->call);
}

static lanes_key region_key(const region *r, size_t i)
{
    return (lanes_key){r->start_ns[i], r->rank, (int64_t)(r->gidx0 + i)};
}

/* Index of the call of r nearest key in direction dir, or SIZE_MAX. */
static size_t region_nearest(const region *r, bool sorted, const lanes_key *key, int dir)
{
    if (sorted) {
        /* Keys grow with the index: start sorted, call index increasing. */
        size_t lo = 0, hi = r->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            lanes_key k = region_key(r, mid);
            int c = key_cmp(&k, key);
            if (dir > 0 ? c <= 0 : c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (dir > 0)
            return lo < r->n ? lo : SIZE_MAX;
        return lo > 0 ? lo - 1 : SIZE_MAX;
    }
    size_t best = SIZE_MAX;
    lanes_key bk = {0, 0, 0};
    for (size_t i = 0; i < r->n; i++) {
        lanes_key k = region_key(r, i);
        int c = key_cmp(&k, key);
        if ((dir > 0 && c <= 0) || (dir < 0 && c >= 0))
            continue;
        if (best == SIZE_MAX || (dir > 0 ? key_cmp(&k, &bk) < 0 : key_cmp(&k, &bk) > 0)) {
            best = i;
            bk = k;
        }
    }
    return best;
}

bool lanes_search(const lanes_index *ix, const lanes_key *key, int dir,
                  bool (*match)(const region *r, void *user), void *user, lanes_key *out)
{
    bool found = false;
    for (size_t k = 0; k < ix->prof->nranks; k++) {
        const rank_data *rk = &ix->prof->ranks[k];
        for (size_t j = 0; j < rk->nregions; j++) {
            const region *r = rk->regions[j];
            uint8_t fl = ix->rflags[k][j];
            if (!(fl & LANES_R_INDEXED) || !match(r, user))
                continue;
            size_t i = region_nearest(r, fl & LANES_R_SORTED, key, dir);
            if (i == SIZE_MAX)
                continue;
            lanes_key cand = region_key(r, i);
            if (!found || (dir > 0 ? key_cmp(&cand, out) < 0 : key_cmp(&cand, out) > 0)) {
                *out = cand;
                found = true;
            }
        }
    }
    return found;
}

/* -------------------------------------------------------------- build */

typedef struct rank_build {
    lanes_index *ix;
    rank_data *rk;
    size_t ri;      /* rank index */
    lane_key *keys; /* distinct lane keys of the rank, sorted */
    size_t nkeys;
    uint32_t *lane_of; /* n: position in keys, NO_LANE when not indexed */
    uint32_t *ldepth;  /* n */
} rank_build;

static bool region_indexed(const region *r, const region_filter *f)
{
    return r->has_event_data && r->n > 0 && (!f || filter_match(f, r));
}

static uint8_t region_flags(const region *r, const region_filter *f)
{
    if (!region_indexed(r, f))
        return 0;
    uint8_t fl = LANES_R_INDEXED | LANES_R_SORTED;
    for (size_t i = 1; i < r->n; i++)
        if (r->start_ns[i] < r->start_ns[i - 1])
            return LANES_R_INDEXED;
    return fl;
}

static bool push_key(lane_key **v, size_t *n, size_t *cap, lane_key k)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        lane_key *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return false;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = k;
    return true;
}

/* Distinct lane keys of the rank's indexed calls, sorted. */
static bool collect_keys(rank_build *b)
{
    size_t cap = 0;
    const uint8_t *fl = b->ix->rflags[b->ri];
    for (size_t j = 0; j < b->rk->nregions; j++) {
        const region *r = b->rk->regions[j];
        bool have = false;
        lane_key last = {LANE_RANK, 0};
        for (size_t i = 0; (fl[j] & LANES_R_INDEXED) && i < r->n; i++) {
            lane_key k = call_lane_key(r, i);
            if (have && lane_key_cmp(k, last) == 0)
                continue;
            if (!push_key(&b->keys, &b->nkeys, &cap, k))
                return false;
            last = k;
            have = true;
        }
    }
    if (b->nkeys)
        qsort(b->keys, b->nkeys, sizeof *b->keys, lane_key_qcmp);
    size_t m = 0;
    for (size_t k = 0; k < b->nkeys; k++)
        if (m == 0 || lane_key_cmp(b->keys[m - 1], b->keys[k]) != 0)
            b->keys[m++] = b->keys[k];
    b->nkeys = m;
    return true;
}

static uint32_t key_pos(const rank_build *b, lane_key k)
{
    size_t lo = 0, hi = b->nkeys;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = lane_key_cmp(b->keys[mid], k);
        if (c == 0)
            return (uint32_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NO_LANE;
}

static void assign_lanes(rank_build *b)
{
    const uint8_t *fl = b->ix->rflags[b->ri];
    for (size_t j = 0; j < b->rk->nregions; j++) {
        const region *r = b->rk->regions[j];
        lane_key last = {LANE_RANK, 0};
        uint32_t pos = NO_LANE;
        for (size_t i = 0; i < r->n; i++) {
            if (!(fl[j] & LANES_R_INDEXED)) {
                b->lane_of[r->gidx0 + i] = NO_LANE;
                continue;
            }
            lane_key k = call_lane_key(r, i);
            if (pos == NO_LANE || lane_key_cmp(k, last) != 0) {
                pos = key_pos(b, k);
                last = k;
            }
            b->lane_of[r->gidx0 + i] = pos;
        }
    }
}

typedef struct dfs_frame {
    uint32_t g, next;
} dfs_frame;

/* Lane depth = number of ancestors in the same lane: a depth-first walk of
 * the call forest keeping one open-call counter per lane. */
static bool lane_depths(rank_build *b)
{
    const rank_calls *c = b->rk->calls;
    size_t n = c->n, cap = 64, sp = 0;
    uint32_t *cnt = calloc(b->nkeys ? b->nkeys : 1, sizeof *cnt);
    dfs_frame *st = malloc(cap * sizeof *st);
    if (!cnt || !st) {
        free(cnt);
        free(st);
        return false;
    }
    memset(b->ldepth, 0, n * sizeof *b->ldepth);
    for (size_t root = 0; root < n; root++) {
        if (c->parent[root] >= 0)
            continue;
        uint32_t g = (uint32_t)root;
        for (;;) {
            if (b->lane_of[g] != NO_LANE)
                b->ldepth[g] = cnt[b->lane_of[g]]++;
            if (sp == cap) {
                dfs_frame *ns = realloc(st, cap * 2 * sizeof *st);
                if (!ns) {
                    free(cnt);
                    free(st);
                    return false;
                }
                st = ns;
                cap *= 2;
            }
            st[sp++] = (dfs_frame){g, c->child_off[g]};
            /* Leave every finished call, then descend into the next child. */
            while (sp > 0 && st[sp - 1].next == c->child_off[st[sp - 1].g + 1]) {
                uint32_t done = st[--sp].g;
                if (b->lane_of[done] != NO_LANE)
                    cnt[b->lane_of[done]]--;
            }
            if (sp == 0)
                break;
            g = c->child[st[sp - 1].next++];
        }
    }
    free(cnt);
    free(st);
    return true;
}

static bool entry_less(const int64_t *key, uint32_t a, uint32_t b)
{
    return key[a] < key[b] || (key[a] == key[b] && a < b);
}

static size_t run_end(const uint32_t *a, size_t from, size_t n, const int64_t *key)
{
    size_t k = from + 1;
    while (k < n && !entry_less(key, a[k], a[k - 1]))
        k++;
    return k;
}

/* Natural merge sort by key: rows arrive as a few sorted runs (one per
 * region), so this is close to linear. */
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

static void flat_column(const rank_data *rk, int64_t *flat, bool vend)
{
    for (size_t j = 0; j < rk->nregions; j++) {
        const region *r = rk->regions[j];
        for (size_t i = 0; i < r->n; i++)
            flat[r->gidx0 + i] =
                vend ? lanes_visible_end(r->start_ns[i], r->end_ns[i]) : r->start_ns[i];
    }
}

static bool alloc_row(lane_row *row)
{
    size_t nb = nblocks(row->n);
    row->idx = malloc((row->n ? row->n : 1) * sizeof *row->idx);
    row->bstart = malloc((nb ? 2 * nb : 1) * sizeof *row->bstart);
    row->bmaxend = row->bstart ? row->bstart + nb : NULL;
    return row->idx && row->bstart;
}

/* Creates the rank's lanes (rows sized and allocated, still empty). */
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
        if (b->lane_of[g] != NO_LANE) {
            lane *ln = &ix->lanes[first + b->lane_of[g]];
            ln->ndepth = b->ldepth[g] + 1 > ln->ndepth ? b->ldepth[g] + 1 : ln->ndepth;
            ln->ncalls++;
        }
    for (size_t k = 0; k < b->nkeys; k++) {
        lane *ln = &ix->lanes[first + k];
        ln->rows = calloc(ln->ndepth, sizeof *ln->rows);
        if (!ln->rows)
            return false;
    }
    for (size_t g = 0; g < n; g++)
        if (b->lane_of[g] != NO_LANE)
            ix->lanes[first + b->lane_of[g]].rows[b->ldepth[g]].n++;
    for (size_t k = 0; k < b->nkeys; k++) {
        lane *ln = &ix->lanes[first + k];
        for (uint32_t d = 0; d < ln->ndepth; d++)
            if (!alloc_row(&ln->rows[d]))
                return false;
    }
    return true;
}

static void fill_rows(rank_build *b, size_t first)
{
    size_t n = b->rk->ncalls;
    for (size_t k = 0; k < b->nkeys; k++) {
        lane *ln = &b->ix->lanes[first + k];
        for (uint32_t d = 0; d < ln->ndepth; d++)
            ln->rows[d].n = 0;
    }
    for (size_t g = 0; g < n; g++)
        if (b->lane_of[g] != NO_LANE) {
            lane_row *row = &b->ix->lanes[first + b->lane_of[g]].rows[b->ldepth[g]];
            row->idx[row->n++] = (uint32_t)g;
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

/* Sorts the rows and fills their block arrays; flat is scratch of n. */
static bool finish_rows(lanes_index *ix, rank_data *rk, size_t first, int64_t *flat)
{
    uint32_t *tmp = malloc(widest_row(ix, first) * sizeof *tmp);
    if (!tmp)
        return false;
    flat_column(rk, flat, false);
    for (size_t l = first; l < ix->nlanes; l++)
        for (uint32_t d = 0; d < ix->lanes[l].ndepth; d++) {
            lane_row *row = &ix->lanes[l].rows[d];
            sort_row(row->idx, row->n, tmp, flat);
            for (size_t k = 0; k < row->n; k += LANES_BLOCK)
                row->bstart[k / LANES_BLOCK] = flat[row->idx[k]];
            if (row->n && flat[row->idx[0]] < ix->t_min)
                ix->t_min = flat[row->idx[0]];
        }
    free(tmp);
    flat_column(rk, flat, true);
    for (size_t l = first; l < ix->nlanes; l++)
        for (uint32_t d = 0; d < ix->lanes[l].ndepth; d++) {
            lane_row *row = &ix->lanes[l].rows[d];
            int64_t mx = INT64_MIN;
            for (size_t k = 0; k < row->n; k++) {
                mx = flat[row->idx[k]] > mx ? flat[row->idx[k]] : mx;
                if (k % LANES_BLOCK == LANES_BLOCK - 1 || k + 1 == row->n)
                    row->bmaxend[k / LANES_BLOCK] = mx;
            }
        }
    return true;
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
    rank_build b = {ix, rk, ri, NULL, 0, NULL, NULL};
    bool rank_ok = !f || filter_match_rank(f, rk->rank);
    ix->rflags[ri] = calloc(rk->nregions ? rk->nregions : 1, 1);
    if (!ix->rflags[ri])
        return false;
    size_t nidx = 0;
    for (size_t j = 0; j < rk->nregions; j++) {
        ix->rflags[ri][j] = rank_ok ? region_flags(rk->regions[j], f) : 0;
        nidx += ix->rflags[ri][j] ? rk->regions[j]->n : 0;
    }
    size_t first = ix->nlanes;
    ix->rank_lane0[ri] = first;
    if (nidx == 0)
        return true;
    size_t n = rk->ncalls;
    b.lane_of = malloc(n * sizeof *b.lane_of);
    b.ldepth = malloc(n * sizeof *b.ldepth);
    bool ok = b.lane_of && b.ldepth && collect_keys(&b);
    if (ok) {
        assign_lanes(&b);
        ok = lane_depths(&b) && make_lanes(&b, first);
    }
    if (ok)
        fill_rows(&b, first);
    free(b.lane_of);
    free(b.ldepth);
    free(b.keys);
    int64_t *flat = ok ? malloc(n * sizeof *flat) : NULL;
    ok = ok && flat && finish_rows(ix, rk, first, flat);
    free(flat);
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
        if (!r->has_event_data && (!f || (filter_match_rank(f, r->rank) && filter_match(f, r))))
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

void lanes_free(lanes_index *ix)
{
    if (!ix)
        return;
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
    *out = NULL;
    sv_err e = profile_ensure_calls(p, err);
    if (e)
        return e;
    lanes_index *ix = calloc(1, sizeof *ix);
    if (ix) {
        ix->prof = p;
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
