/* The timeline index: lanes, lane depths and per-row sorted call lists. */
#include "lanes_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lanes_key_cmp(lane_key a, lane_key b)
{
    if (a.kind != b.kind)
        return a.kind < b.kind ? -1 : 1;
    return (a.row > b.row) - (a.row < b.row);
}

lane_key lanes_call_key(const region *r, size_t i)
{
    if (r->task_ids && r->task_ids[i] >= 0)
        return (lane_key){LANE_TASK, r->task_ids[i]};
    if (r->thread_ids && r->thread_ids[i] >= 0)
        return (lane_key){LANE_THREAD, r->thread_ids[i]};
    const rank_calls *c = r->owner ? r->owner->calls : NULL;
    if (c && c->lane && r->gidx0 + i < c->n)
        return (lane_key){LANE_INFERRED, c->lane[r->gidx0 + i]};
    return (lane_key){LANE_RANK, -1};
}

const char *lanes_lane_name(const lane *ln, char *buf, size_t len)
{
    char nb[48];
    switch (ln->kind) {
    case LANE_TASK:
        snprintf(buf, len, "r%d %s", ln->rk->rank, rank_task_name(ln->rk, ln->row, nb, sizeof nb));
        break;
    case LANE_THREAD:
        snprintf(buf, len, "r%d %s", ln->rk->rank,
                 rank_thread_name(ln->rk, ln->row, nb, sizeof nb));
        break;
    case LANE_INFERRED:
        snprintf(buf, len, "r%d lane %lld (inferred)", ln->rk->rank, (long long)ln->row + 1);
        break;
    default:
        snprintf(buf, len, "r%d", ln->rk->rank);
    }
    return buf;
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
    lanes_call_span(ln->rk, lane_row_call(row, k), &s, &e);
    return s;
}

static int64_t entry_vend(const lane *ln, const lane_row *row, size_t k)
{
    int64_t s, e;
    lanes_call_span(ln->rk, lane_row_call(row, k), &s, &e);
    return lanes_visible_end(s, e);
}

/* ------------------------------------------------------------ queries */

size_t lane_row_lower_start(const lane *ln, const lane_row *row, int64_t t)
{
    size_t lo = 0, hi = lanes_nblocks(row->n);
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

void lane_row_bracket(const lane_row *row, size_t from, int64_t t, size_t *a, size_t *e)
{
    if (from >= row->n) {
        *a = *e = row->n;
        return;
    }
    /* Gallop over the block starts after from's block: cheap when the
     * answer is near, O(log distance) when it is far. */
    size_t nb = lanes_nblocks(row->n), b0 = from / LANES_BLOCK + 1, lo = b0, hi = b0, step = 1;
    while (hi < nb && row->bstart[hi] < t) {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    hi = hi < nb ? hi : nb;
    while (lo < hi) { /* first block in [lo, hi) starting at or after t, else hi */
        size_t mid = lo + (hi - lo) / 2;
        if (row->bstart[mid] >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    /* Block lo - 1 starts before t (or holds from), block lo does not. */
    *a = lo - 1 == from / LANES_BLOCK ? from : (lo - 1) * LANES_BLOCK + 1;
    *e = lo * LANES_BLOCK < row->n ? lo * LANES_BLOCK : row->n;
}

size_t lane_row_resolve(const lane *ln, const lane_row *row, size_t a, size_t e, int64_t t)
{
    while (a < e) {
        size_t mid = a + (e - a) / 2;
        if (entry_start(ln, row, mid) >= t)
            e = mid;
        else
            a = mid + 1;
    }
    return a;
}

size_t lane_row_lower_start_from(const lane *ln, const lane_row *row, size_t from, int64_t t)
{
    size_t a, e;
    lane_row_bracket(row, from, t, &a, &e);
    return lane_row_resolve(ln, row, a, e, t);
}

size_t lane_row_first_visible(const lane *ln, const lane_row *row, int64_t t)
{
    if (row->disjoint) {
        /* Ends grow with starts: only the call starting last before t can
         * still be running at t. */
        size_t m = lane_row_lower_start(ln, row, t);
        return m > 0 && entry_vend(ln, row, m - 1) > t ? m - 1 : m;
    }
    size_t lo = 0, hi = lanes_nblocks(row->n);
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
    if (row->disjoint) /* every entry from lo on that starts in time is visible */
        return hi - lo;
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
        int c = lanes_key_cmp((lane_key){ix->lanes[mid].kind, ix->lanes[mid].row}, want);
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
    lane_key key = lanes_call_key(r, i);
    size_t l = lanes_find_lane(ix, ri, key.kind, key.row);
    if (l == SIZE_MAX)
        return false;
    uint32_t d = 0;
    for (int32_t p = rk->calls->parent[call]; p >= 0; p = rk->calls->parent[p]) {
        const region *pr;
        size_t pi;
        if (call_indexed(ix, ri, rk, p, &pr, &pi) &&
            lanes_key_cmp(lanes_call_key(pr, pi), key) == 0)
            d++;
    }
    const lane *ln = &ix->lanes[l];
    if (d >= ln->ndepth)
        return false;
    const lane_row *row = &ln->rows[d];
    size_t k = lane_row_lower_start(ln, row, r->start_ns[i]);
    if (!row->idx) /* consecutive calls */
        k = (uint32_t)call >= row->first && (uint32_t)call - row->first < row->n
                ? (uint32_t)call - row->first
                : row->n;
    while (k < row->n && lane_row_call(row, k) != (uint32_t)call)
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
