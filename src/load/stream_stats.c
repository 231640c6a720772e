/* stream_stats: pass-1 accumulators and exact percentiles with bounded
 * memory for the out-of-core batch outputs (stream.h).  Every formula is
 * stats.c's, in the same order, so the doubles match bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "util/hooks.h"

#define PCT_W 11 /* linear splits of a heavy bucket: 2^PCT_W sub-buckets */

size_t stream_log_bucket(uint64_t d)
{
    if (d < ((uint64_t)1 << STREAM_PCT_M))
        return (size_t)d;
    int e = 63 - __builtin_clzll(d);
    return ((size_t)(e - STREAM_PCT_M) << STREAM_PCT_M) + (size_t)(d >> (e - STREAM_PCT_M));
}

/* The durations of bucket b: [lo, lo + 2^w). */
static void bucket_range(size_t b, uint64_t *lo, int *w)
{
    if (b < ((size_t)2 << STREAM_PCT_M)) {
        *lo = b;
        *w = 0;
        return;
    }
    int e = (int)(b >> STREAM_PCT_M) + STREAM_PCT_M - 1;
    uint64_t mant = (b & (((size_t)1 << STREAM_PCT_M) - 1)) | ((uint64_t)1 << STREAM_PCT_M);
    *w = e - STREAM_PCT_M;
    *lo = mant << *w;
}

/* ------------------------------------------------------------ pass 1 */

bool stream_acc_init(stream_acc *a)
{
    memset(a, 0, sizeof *a);
    a->mn = a->fs = INT64_MAX;
    a->mx = a->le = INT64_MIN;
    a->hist = calloc(STREAM_HIST_BUCKETS, sizeof *a->hist);
    return a->hist != NULL;
}

void stream_acc_free(stream_acc *a)
{
    free(a->hist);
    a->hist = NULL;
}

void stream_acc_add(stream_acc *a, const int64_t *s, const int64_t *e, size_t n)
{
    if (n == 0)
        return;
    int64_t mn = a->mn, mx = a->mx, fs = a->fs, le = a->le;
    stream_i128 sum = a->sum;
    stream_u128 sumsq = a->sumsq;
    uint32_t *h = a->hist;
    for (size_t i = 0; i < n; i++) {
        int64_t d = e[i] - s[i];
        mn = d < mn ? d : mn;
        mx = d > mx ? d : mx;
        fs = s[i] < fs ? s[i] : fs;
        le = e[i] > le ? e[i] : le;
        sum += d;
        sumsq += (stream_u128)d * (stream_u128)d;
        h[stream_log_bucket((uint64_t)d)]++;
    }
    if (a->n == 0)
        a->first = e[0] - s[0];
    a->last = e[n - 1] - s[n - 1];
    a->n += n;
    a->mn = mn;
    a->mx = mx;
    a->fs = fs;
    a->le = le;
    a->sum = sum;
    a->sumsq = sumsq;
}

bool stream_acc_finish(const stream_acc *a, region_stats *st)
{
    st->num_calls = (int64_t)a->n;
    if (a->n == 0)
        return true;
    st->min_ns = a->mn;
    st->max_ns = a->mx;
    st->first_start_ns = a->fs;
    st->last_end_ns = a->le;
    st->first_ns = a->first;
    st->last_ns = a->last;
    double n = (double)a->n;
    st->total_ns = a->sum > INT64_MAX ? INT64_MAX : (int64_t)a->sum;
    st->mean_ns = (double)a->sum / n;
    /* stats.c's test: the exact form fits when n * max < 2^62. */
    if ((stream_u128)a->n * (stream_u128)a->mx >= ((stream_u128)1 << 62))
        return false;
    stream_i128 num = (stream_i128)((stream_u128)a->n * a->sumsq) - a->sum * a->sum;
    st->std_ns = sqrt((double)num) / n;
    return true;
}

void stream_ld_sum(stream_ld *l, const int64_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        l->sum += d[i];
    l->n += n;
}

void stream_ld_ss(stream_ld *l, const int64_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        long double x = d[i] - l->mean;
        l->ss += x * x;
    }
}

double stream_ld_std(const stream_ld *l)
{
    return (double)sqrtl(l->ss / (long double)l->n);
}

/* ------------------------------------------------------------ percentiles */

void stream_pct_plan(stream_pct *pc, const uint32_t *h, uint64_t n)
{
    static const double pcts[3] = {50.0, 95.0, 99.0};
    memset(pc, 0, sizeof *pc);
    pc->n = n;
    pc->nr = 6;
    for (size_t c = 0; c < 3; c++) {
        /* The index arithmetic of stats_percentiles_inplace. */
        double idx = pcts[c] / 100.0 * (double)(n - 1);
        size_t lo = (size_t)floor(idx);
        if (lo >= n)
            lo = (size_t)n - 1;
        pc->lo[c] = lo;
        pc->frac[c] = idx - (double)lo;
        pc->rank[2 * c] = lo;
        pc->rank[2 * c + 1] = lo + 1 < n ? lo + 1 : lo;
    }
    for (size_t j = 0; j < pc->nr; j++) {
        size_t b = 0, k = pc->rank[j];
        while (k >= h[b])
            k -= h[b++];
        pc->bucket[j] = b;
        pc->within[j] = k;
        pc->cnt[j] = h[b];
        uint64_t lo;
        int w;
        bucket_range(b, &lo, &w);
        if (w == 0) { /* a bucket of one value */
            pc->value[j] = (int64_t)lo;
            pc->known[j] = true;
        }
    }
}

/* The distinct unknown buckets and their counts. */
static void pct_buckets(stream_pct *pc)
{
    pc->nb = 0;
    for (size_t j = 0; j < pc->nr; j++) {
        if (pc->known[j])
            continue;
        size_t s = 0;
        while (s < pc->nb && pc->bkt[s] != pc->bucket[j])
            s++;
        if (s == pc->nb) {
            pc->bkt[pc->nb] = pc->bucket[j];
            pc->bcnt[pc->nb++] = pc->cnt[j];
        }
    }
}

size_t stream_pct_need(const stream_pct *pc)
{
    stream_pct t = *pc;
    pct_buckets(&t);
    size_t need = 0;
    for (size_t s = 0; s < t.nb; s++)
        need += t.bcnt[s];
    return need;
}

bool stream_pct_alloc(stream_pct *pc, size_t cap)
{
    pct_buckets(pc);
    size_t keep = 0, used = 0;
    pc->bmin = SIZE_MAX;
    pc->bmax = 0;
    for (size_t s = 0; s < pc->nb; s++) {
        if (used + pc->bcnt[s] > cap)
            continue; /* left to stream_pct_refine */
        pc->bkt[keep] = pc->bkt[s];
        pc->bcnt[keep] = pc->bcnt[s];
        pc->fill[keep] = 0;
        pc->v[keep] = malloc((pc->bcnt[s] ? pc->bcnt[s] : 1) * sizeof *pc->v[keep]);
        if (!pc->v[keep])
            return false;
        used += pc->bcnt[s];
        pc->bmin = pc->bkt[s] < pc->bmin ? pc->bkt[s] : pc->bmin;
        pc->bmax = pc->bkt[s] > pc->bmax ? pc->bkt[s] : pc->bmax;
        keep++;
    }
    pc->nb = keep;
    if (keep) {
        int w;
        uint64_t hi;
        bucket_range(pc->bmin, &pc->vlo, &w);
        bucket_range(pc->bmax, &hi, &w);
        pc->vhi = hi + (((uint64_t)1 << w) - 1);
    }
    return true;
}

void stream_pct_feed(stream_pct *pc, const int64_t *d, size_t n)
{
    if (pc->nb == 0)
        return;
    /* Branch-free: about half the calls fall in [vlo, vhi] at random, so a value goes through
     * a table of the range's buckets to its slot, or to the last slot (junk, limit 0), which
     * also takes what a full slot cannot (a row that changed between passes). */
    static const size_t none = 6;
    uint8_t tab[STREAM_HIST_BUCKETS + 1];
    size_t span_b = pc->bmax - pc->bmin;
    memset(tab, (int)none, span_b + 2);
    int64_t junk = 0, *base[7];
    size_t lim[7], fill[7];
    for (size_t s = 0; s < pc->nb; s++) {
        tab[pc->bkt[s] - pc->bmin + 1] = (uint8_t)s;
        base[s] = pc->v[s];
        lim[s] = pc->bcnt[s];
        fill[s] = pc->fill[s];
    }
    base[none] = &junk;
    lim[none] = 0;
    fill[none] = 0;
    uint64_t lo = pc->vlo, span = pc->vhi - pc->vlo;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = (uint64_t)d[i];
        size_t b = stream_log_bucket(x) - pc->bmin + 1;
        size_t t = x - lo <= span ? b : 0;
        size_t s = tab[t], k = fill[s];
        bool room = k < lim[s];
        int64_t *dst = room ? &base[s][k] : &junk;
        *dst = d[i];
        fill[s] = k + room;
    }
    for (size_t s = 0; s < pc->nb; s++)
        pc->fill[s] = fill[s];
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A bucket this narrow is counted value by value instead of sorted: its
 * values are its lowest duration plus less than 2^PCT_COUNT_W. */
#define PCT_COUNT_W 12

/* The ranks wanted in collected bucket s, from a count of each value;
 * false when the bucket is too wide or holds a value outside it. */
static bool resolve_counted(stream_pct *pc, size_t s)
{
    uint64_t lo;
    int w;
    bucket_range(pc->bkt[s], &lo, &w);
    if (w > PCT_COUNT_W)
        return false;
    uint32_t cnt[(size_t)1 << PCT_COUNT_W];
    size_t m = (size_t)1 << w, n = pc->fill[s];
    memset(cnt, 0, m * sizeof *cnt);
    const int64_t *v = pc->v[s];
    for (size_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)v[i] - lo;
        if (k >= m)
            return false;
        cnt[k]++;
    }
    for (size_t j = 0; j < pc->nr; j++) {
        if (pc->known[j] || pc->bucket[j] != pc->bkt[s] || pc->within[j] >= n)
            continue;
        size_t k = 0, below = cnt[0];
        while (below <= pc->within[j]) /* the rank's value: the first count passing it */
            below += cnt[++k];
        pc->value[j] = (int64_t)(lo + k);
        pc->known[j] = true;
    }
    return true;
}

void stream_pct_resolve(stream_pct *pc)
{
    for (size_t s = 0; s < pc->nb; s++) {
        if (resolve_counted(pc, s))
            continue;
        qsort(pc->v[s], pc->fill[s], sizeof *pc->v[s], cmp_i64);
        for (size_t j = 0; j < pc->nr; j++)
            if (!pc->known[j] && pc->bucket[j] == pc->bkt[s] && pc->within[j] < pc->fill[s]) {
                pc->value[j] = pc->v[s][pc->within[j]];
                pc->known[j] = true;
            }
    }
    stream_pct_free(pc);
}

void stream_pct_free(stream_pct *pc)
{
    for (size_t s = 0; s < 6; s++) {
        free(pc->v[s]);
        pc->v[s] = NULL;
    }
    pc->nb = 0;
}

/* One refinement step's state: the range [lo, lo + 2^w). */
typedef struct refine_ctx {
    uint64_t lo, hi;
    int sw;
    uint32_t *h; /* sub-histogram, or NULL when collecting */
    int64_t *v;  /* collected values */
    size_t fill, cap;
} refine_ctx;

static void refine_feed(void *vctx, const int64_t *d, size_t n)
{
    refine_ctx *r = vctx;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = (uint64_t)d[i];
        if (x < r->lo || x > r->hi)
            continue;
        if (r->h)
            r->h[(x - r->lo) >> r->sw]++;
        else if (r->fill < r->cap)
            r->v[r->fill++] = d[i];
    }
}

/* stats.c's rank_in_range, each scan of the calls a pass over the row. */
static int refine_one(stream_pct *pc, size_t j, size_t cap, stream_pass_fn pass, void *ctx)
{
    uint64_t lo;
    int w;
    bucket_range(pc->bucket[j], &lo, &w);
    size_t cnt = pc->cnt[j], rank = pc->within[j];
    for (;;) {
        if (w == 0) {
            pc->value[j] = (int64_t)lo;
            pc->known[j] = true;
            return 0;
        }
        refine_ctx r = {lo, lo + (((uint64_t)1 << w) - 1), 0, NULL, NULL, 0, cnt};
        if (cnt <= cap) {
            r.v = malloc((cnt ? cnt : 1) * sizeof *r.v);
            int rc = r.v ? pass(ctx, refine_feed, &r) : -1;
            if (rc == 0 && r.fill == cnt) {
                qsort(r.v, r.fill, sizeof *r.v, cmp_i64);
                pc->value[j] = r.v[rank];
                pc->known[j] = true;
            } else if (rc == 0) {
                rc = -1; /* the row changed between passes */
            }
            free(r.v);
            return rc;
        }
        r.sw = w > PCT_W ? w - PCT_W : 0;
        size_t nb = (size_t)1 << (w - r.sw);
        r.h = calloc(nb, sizeof *r.h);
        int rc = r.h ? pass(ctx, refine_feed, &r) : -1;
        size_t b = 0;
        while (rc == 0 && b < nb && rank >= r.h[b])
            rank -= r.h[b++];
        if (rc == 0 && b == nb)
            rc = -1;
        if (rc == 0) {
            cnt = r.h[b];
            lo += (uint64_t)b << r.sw;
            w = r.sw;
        }
        free(r.h);
        if (rc)
            return rc;
    }
}

int stream_pct_refine(stream_pct *pc, size_t cap, stream_pass_fn pass, void *ctx)
{
    for (size_t j = 0; j < pc->nr; j++) {
        if (pc->known[j])
            continue;
        int rc = refine_one(pc, j, cap ? cap : 1, pass, ctx);
        if (rc)
            return rc;
        /* Another rank of the same range found with the same value? Only
         * when it is the same rank. */
        for (size_t k = j + 1; k < pc->nr; k++)
            if (!pc->known[k] && pc->rank[k] == pc->rank[j]) {
                pc->value[k] = pc->value[j];
                pc->known[k] = true;
            }
    }
    return 0;
}

void stream_pct_result(const stream_pct *pc, region_stats *st)
{
    double out[3];
    for (size_t c = 0; c < 3; c++) {
        double x = (double)pc->value[2 * c], y = (double)pc->value[2 * c + 1];
        double f = pc->frac[c];
        /* numpy's _lerp, as stats.c */
        out[c] = f < 0.5 ? x + (y - x) * f : y - (y - x) * (1.0 - f);
    }
    st->p50_ns = out[0];
    st->p95_ns = out[1];
    st->p99_ns = out[2];
}

size_t stream_chunk_len(uint64_t budget, size_t nreaders, size_t ncols)
{
    const char *env = hook_value(HOOK_STREAM_CHUNK);
    if (env && *env) {
        long v = strtol(env, NULL, 10);
        if (v >= 1)
            return (size_t)v;
    }
    size_t per = (nreaders ? nreaders : 1) * (ncols ? ncols : 1) * sizeof(int64_t);
    /* A quarter of the budget for the chunk buffers: the rest holds the
     * model, the percentile buckets and libhdf5. */
    uint64_t b = budget ? budget / 4 : ((uint64_t)256 << 20);
    uint64_t len = b / per;
    if (len > ((uint64_t)1 << 20))
        len = (uint64_t)1 << 20;
    if (len < 1024)
        len = 1024;
    return (size_t)len;
}

/* ------------------------------------------------------------ percentiles in pass 1 */

void stream_early_init(stream_early *e, size_t prefix, size_t cap)
{
    memset(e, 0, sizeof *e);
    e->cap = cap ? cap : 1;
    e->prefix = prefix < e->cap ? prefix : e->cap;
    e->prefix = e->prefix ? e->prefix : 1;
}

void stream_early_free(stream_early *e)
{
    free(e->v);
    e->v = NULL;
    e->nv = e->vcap = 0;
}

static void early_fail(stream_early *e)
{
    stream_early_free(e);
    e->failed = true;
}

/* The bucket holding rank k of the histogram's m calls. */
static size_t early_bucket(const uint32_t *h, uint64_t k)
{
    size_t b = 0;
    while (b + 1 < STREAM_HIST_BUCKETS && k >= h[b])
        k -= h[b++];
    return b;
}

/* Windows around each percentile of the seen calls: its sampling spread
 * (four standard errors of a quantile of m values) and a margin of a
 * thousandth of the calls for a slow drift, in whole buckets. */
static void early_plan(stream_early *e, const uint32_t *h, uint64_t m)
{
    static const double q[3] = {0.50, 0.95, 0.99};
    for (size_t c = 0; c < 3; c++) {
        double d = 0.001 + 4.0 * sqrt(q[c] * (1.0 - q[c]) / (double)m);
        double a = (q[c] - d) * (double)(m - 1), z = (q[c] + d) * (double)(m - 1);
        uint64_t ka = a > 0 ? (uint64_t)a : 0, kz = z < (double)(m - 1) ? (uint64_t)z : m - 1;
        size_t b0 = early_bucket(h, ka), b1 = early_bucket(h, kz);
        uint64_t lo, hi;
        int w;
        bucket_range(b0, &lo, &w);
        e->wlo[c] = lo;
        bucket_range(b1, &hi, &w);
        e->whi[c] = hi + (((uint64_t)1 << w) - 1);
    }
    e->planned = true;
    /* The prefix keeps only what the windows take. */
    size_t k = 0;
    for (size_t i = 0; i < e->nv; i++) {
        uint64_t x = (uint64_t)e->v[i];
        bool in = (x - e->wlo[0] <= e->whi[0] - e->wlo[0]) |
                  (x - e->wlo[1] <= e->whi[1] - e->wlo[1]) |
                  (x - e->wlo[2] <= e->whi[2] - e->wlo[2]);
        e->v[k] = e->v[i];
        k += in;
    }
    e->nv = k;
}

/* Room for one more value: the buffer doubles, up to cap. */
static bool early_grow(stream_early *e)
{
    if (e->nv < e->vcap)
        return true;
    size_t cap = e->vcap ? 2 * e->vcap : e->prefix < 4096 ? e->prefix : 4096;
    cap = cap < e->cap ? cap : e->cap;
    if (cap <= e->nv)
        return false;
    int64_t *v = realloc(e->v, cap * sizeof *v);
    if (!v)
        return false;
    e->v = v;
    e->vcap = cap;
    return true;
}

void stream_early_feed(stream_early *e, const int64_t *s, const int64_t *en, size_t n,
                       const uint32_t *hist, uint64_t seen)
{
    size_t i = 0;
    for (; !e->planned && i < n; i++) {
        if (e->failed)
            return;
        if (e->nv == e->prefix) { /* one more than the prefix holds: windows from here on */
            early_plan(e, hist, seen);
            break;
        }
        if (!early_grow(e)) {
            early_fail(e);
            return;
        }
        e->v[e->nv++] = en[i] - s[i];
    }
    if (e->failed || !e->planned)
        return;
    uint64_t l0 = e->wlo[0], l1 = e->wlo[1], l2 = e->wlo[2];
    uint64_t s0 = e->whi[0] - l0, s1 = e->whi[1] - l1, s2 = e->whi[2] - l2;
    for (; i < n; i++) {
        if (e->nv == e->vcap && !early_grow(e)) {
            early_fail(e);
            return;
        }
        uint64_t x = (uint64_t)(en[i] - s[i]);
        e->v[e->nv] = (int64_t)x;
        e->nv += (x - l0 <= s0) | (x - l1 <= s1) | (x - l2 <= s2);
    }
}

bool stream_early_apply(stream_early *e, stream_pct *pc)
{
    if (e->failed)
        return false;
    for (size_t j = 0; e->planned && j < pc->nr; j++) {
        if (pc->known[j])
            continue;
        uint64_t lo;
        int w;
        bucket_range(pc->bucket[j], &lo, &w);
        uint64_t hi = lo + (((uint64_t)1 << w) - 1);
        bool in = false;
        for (size_t c = 0; c < 3; c++)
            in |= lo >= e->wlo[c] && hi <= e->whi[c];
        if (!in)
            return false;
    }
    if (!stream_pct_alloc(pc, SIZE_MAX)) {
        stream_pct_free(pc);
        return false;
    }
    stream_pct_feed(pc, e->v, e->nv);
    for (size_t s = 0; s < pc->nb; s++)
        if (pc->fill[s] != pc->bcnt[s]) { /* cannot happen: the windows held all of it */
            stream_pct_free(pc);
            return false;
        }
    return true;
}
