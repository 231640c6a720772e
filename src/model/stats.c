#include "stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static void swap64(int64_t *a, int64_t *b)
{
    int64_t t = *a;
    *a = *b;
    *b = t;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t median3(int64_t a, int64_t b, int64_t c)
{
    if (a > b)
        swap64(&a, &b);
    if (b > c)
        b = c;
    return a > b ? a : b;
}

/* Puts the k-th smallest of v[lo..hi] at v[k], smaller ones before it and
 * larger ones after.  The three-way partition keeps runs of equal values
 * (zero-length calls, identical durations) linear; a bad run of pivots
 * falls back to sorting the range, so adversarial input stays O(n log n). */
static void select_kth(int64_t *v, size_t lo_u, size_t hi_u, size_t k_u)
{
    ptrdiff_t lo = (ptrdiff_t)lo_u, hi = (ptrdiff_t)hi_u, k = (ptrdiff_t)k_u;
    int budget = 64;
    while (hi - lo > 16) {
        if (budget-- == 0)
            break;
        int64_t pivot = median3(v[lo], v[lo + (hi - lo) / 2], v[hi]);
        ptrdiff_t lt = lo, i = lo, gt = hi;
        while (i <= gt) {
            if (v[i] < pivot)
                swap64(&v[lt++], &v[i++]);
            else if (v[i] > pivot)
                swap64(&v[i], &v[gt--]);
            else
                i++;
        }
        if (k < lt)
            hi = lt - 1;
        else if (k > gt)
            lo = gt + 1;
        else
            return;
    }
    qsort(v + lo, (size_t)(hi - lo + 1), sizeof *v, cmp_i64);
}

static int64_t min_of(const int64_t *v, size_t lo, size_t hi)
{
    int64_t m = v[lo];
    for (size_t i = lo + 1; i <= hi; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

void stats_percentiles_inplace(int64_t *v, size_t n, const double *pcts, double *out, size_t count)
{
    size_t from = 0;
    for (size_t c = 0; c < count; c++) {
        if (n == 0) {
            out[c] = 0.0;
            continue;
        }
        double idx = pcts[c] / 100.0 * (double)(n - 1);
        size_t lo = (size_t)floor(idx);
        if (lo >= n)
            lo = n - 1;
        double frac = idx - (double)lo;
        if (lo < from)
            from = 0; /* pcts not ascending: search the whole array */
        select_kth(v, from, n - 1, lo);
        double a = (double)v[lo];
        double b = lo + 1 < n ? (double)min_of(v, lo + 1, n - 1) : a;
        /* numpy's _lerp: symmetric form keeps the result within [a, b]. */
        out[c] = frac < 0.5 ? a + (b - a) * frac : b - (b - a) * (1.0 - frac);
        from = lo;
    }
}

int64_t stats_kth_inplace(int64_t *v, size_t n, size_t k)
{
    select_kth(v, 0, n - 1, k);
    return v[k];
}

double stats_percentile_inplace(int64_t *v, size_t n, double pct)
{
    double out;
    stats_percentiles_inplace(v, n, &pct, &out, 1);
    return out;
}

void stats_mean_std(const int64_t *v, size_t n, double *mean, double *std)
{
    if (n == 0) {
        *mean = 0.0;
        *std = 0.0;
        return;
    }
    long double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    long double m = sum / (long double)n, ss = 0;
    for (size_t i = 0; i < n; i++) {
        long double d = v[i] - m;
        ss += d * d;
    }
    *mean = (double)m;
    *std = (double)sqrtl(ss / (long double)n);
}

/* The single pass over the columns: everything but percentiles. */
typedef struct pass_acc {
    i128 sum;
    u128 sumsq; /* unsigned: may wrap on hostile data, then sumsq_ok is false */
    bool sumsq_ok;
} pass_acc;

/* Why pass_durations refused a region: the first bad call. */
typedef struct pass_bad {
    bool overflow; /* end - start leaves the int64 range */
    size_t call;
} pass_bad;

static void pass_find_bad(const region *r, pass_bad *why)
{
    for (size_t i = 0; i < r->n; i++) {
        int64_t d;
        bool ovf = __builtin_sub_overflow(r->end_ns[i], r->start_ns[i], &d);
        if (ovf || d < 0) {
            why->overflow = ovf;
            why->call = i;
            return;
        }
    }
}

static inline size_t log_bucket(uint64_t d);

/* hist: when not NULL, the durations' log-linear histogram (percentiles_radix) is counted in
 * the same pass, so the columns are read once less. */
static bool pass_durations(const region *r, region_stats *st, pass_acc *acc, uint32_t *hist)
{
    bool bad = false;
    const int64_t *s = r->start_ns, *e = r->end_ns;
    int64_t mn = INT64_MAX, mx = INT64_MIN, fs = INT64_MAX, le = INT64_MIN;
    i128 sum = 0;
    u128 sumsq = 0;
    for (size_t i = 0; i < r->n; i++) {
        int64_t d;
        bad |= __builtin_sub_overflow(e[i], s[i], &d) | (d < 0);
        mn = d < mn ? d : mn;
        mx = d > mx ? d : mx;
        fs = s[i] < fs ? s[i] : fs;
        le = e[i] > le ? e[i] : le;
        sum += d;
        sumsq += (u128)d * (u128)d;
        if (hist) /* any d, even a bad one, has a bucket below PCT_LOG_BUCKETS */
            hist[log_bucket((uint64_t)d)]++;
    }
    if (bad)
        return false;
    st->min_ns = mn;
    st->max_ns = mx;
    st->first_start_ns = fs;
    st->last_end_ns = le;
    st->first_ns = e[0] - s[0];
    st->last_ns = e[r->n - 1] - s[r->n - 1];
    acc->sum = sum;
    acc->sumsq = sumsq;
    /* n * sumsq <= (n * max)^2 and sum^2 <= (n * max)^2: both fit in 127
     * bits when n * max < 2^62, so the exact form is safe; otherwise (only
     * hostile data gets there) finish_moments takes two passes instead. */
    acc->sumsq_ok = (u128)r->n * (u128)mx < ((u128)1 << 62);
    return true;
}

static void pass_optional(const region *r, region_stats *st)
{
    if (r->gpu_ns) {
        int64_t tot = 0, cnt = 0;
        for (size_t i = 0; i < r->n; i++) {
            int64_t g = r->gpu_ns[i];
            if (g >= 0) {
                tot = ck_add(tot, g);
                cnt++;
            }
        }
        st->gpu_total_ns = tot;
        st->gpu_count = cnt;
    }
    if (r->await_ns) {
        int64_t tot = 0;
        for (size_t i = 0; i < r->n; i++)
            tot = ck_add(tot, r->await_ns[i]);
        st->await_total_ns = tot;
    }
}

/* --- percentiles of a region's durations ---------------------------
 *
 * numpy's linear interpolation needs, for each percentile, the order
 * statistics of rank lo and lo + 1.  Small regions copy their durations and
 * select.  Large ones find those ranks by radix selection on the columns
 * themselves: a histogram pass over log-linear buckets (256 per octave)
 * locates the bucket of each rank, and only the calls of those few buckets
 * are copied and selected, or the bucket is split linearly again when it
 * holds too many.  The values found are the same order statistics, so the
 * results are identical; no n-sized copy, no n-sized page faults. */

#define PCT_SMALL ((size_t)1 << 16) /* below: copy and select */
#define PCT_M 8                     /* log-linear buckets: 2^PCT_M per octave */
#define PCT_LOG_BUCKETS ((size_t)(65 - PCT_M) << PCT_M)
#define PCT_W 11 /* linear splits: 2^PCT_W sub-buckets */

static inline int64_t dur_at(const region *r, size_t i)
{
    return r->end_ns[i] - r->start_ns[i];
}

/* Monotone log-linear bucket of a duration d >= 0. */
static inline size_t log_bucket(uint64_t d)
{
    if (d < ((uint64_t)1 << PCT_M))
        return (size_t)d;
    int e = 63 - __builtin_clzll(d);
    return ((size_t)(e - PCT_M) << PCT_M) + (size_t)(d >> (e - PCT_M));
}

/* The durations of bucket b: [lo, lo + 2^w). */
static void log_bucket_range(size_t b, uint64_t *lo, int *w)
{
    if (b < ((size_t)2 << PCT_M)) {
        *lo = b;
        *w = 0;
        return;
    }
    int e = (int)(b >> PCT_M) + PCT_M - 1;
    uint64_t mant = (b & (((size_t)1 << PCT_M) - 1)) | ((uint64_t)1 << PCT_M);
    *w = e - PCT_M;
    *lo = mant << *w;
}

/* The rank-th smallest duration among those in [lo, lo + 2^w); rank counts
 * within that range.  -1 on NOMEM. */
static int rank_in_range(const region *r, uint64_t lo, int w, size_t cnt, size_t rank, int64_t *out)
{
    for (;;) {
        if (w == 0) {
            *out = (int64_t)lo;
            return 0;
        }
        uint64_t hi = lo + (((uint64_t)1 << w) - 1);
        if (cnt <= PCT_SMALL || cnt <= r->n / 8) {
            int64_t *v = malloc((cnt ? cnt : 1) * sizeof *v);
            if (!v)
                return -1;
            size_t k = 0;
            for (size_t i = 0; i < r->n; i++) {
                uint64_t d = (uint64_t)dur_at(r, i);
                if (d >= lo && d <= hi)
                    v[k++] = (int64_t)d;
            }
            select_kth(v, 0, k - 1, rank);
            *out = v[rank];
            free(v);
            return 0;
        }
        /* Too many to copy: split the range and keep the part holding rank. */
        int sw = w > PCT_W ? w - PCT_W : 0;
        size_t nb = (size_t)1 << (w - sw);
        uint32_t *h = calloc(nb, sizeof *h);
        if (!h)
            return -1;
        for (size_t i = 0; i < r->n; i++) {
            uint64_t d = (uint64_t)dur_at(r, i);
            if (d >= lo && d <= hi)
                h[(d - lo) >> sw]++;
        }
        size_t b = 0;
        while (rank >= h[b])
            rank -= h[b++];
        cnt = h[b];
        free(h);
        lo += (uint64_t)b << sw;
        w = sw;
    }
}

/* The ranks wanted (lo and lo + 1 of each percentile) and where they are. */
typedef struct pct_plan {
    size_t nr;
    size_t rank[6];   /* overall rank */
    size_t bucket[6]; /* log-linear bucket holding it */
    size_t within[6]; /* rank inside the bucket */
    int64_t value[6];
} pct_plan;

static void plan_ranks(pct_plan *pl, const uint32_t *h, const size_t *ranks, size_t nr)
{
    pl->nr = nr;
    for (size_t j = 0; j < nr; j++) {
        size_t b = 0, k = ranks[j];
        while (k >= h[b])
            k -= h[b++];
        pl->rank[j] = ranks[j];
        pl->bucket[j] = b;
        pl->within[j] = k;
    }
}

/* Ranks whose bucket is small enough are found with one shared pass that
 * copies only those buckets' durations; the rest split their bucket. */
static int resolve_ranks(const region *r, const uint32_t *h, pct_plan *pl)
{
    uint8_t slot_of[6];
    size_t nb = 0, bkt[6] = {0}, off[7] = {0}, fill[6];
    bool light[6] = {false};
    for (size_t j = 0; j < pl->nr; j++) {
        size_t s = 0;
        while (s < nb && bkt[s] != pl->bucket[j])
            s++;
        if (s == nb)
            bkt[nb++] = pl->bucket[j];
        slot_of[j] = (uint8_t)s;
    }
    size_t total = 0;
    for (size_t s = 0; s < nb; s++) {
        size_t c = h[bkt[s]];
        light[s] = c <= PCT_SMALL || c <= r->n / 8;
        off[s] = total;
        total += light[s] ? c : 0;
    }
    int64_t *v = total ? malloc(total * sizeof *v) : NULL;
    if (total && !v)
        return -1;
    memcpy(fill, off, sizeof fill);
    /* tab[b]: 1 + the slot of a light bucket b, 0 for every other bucket. */
    uint8_t *tab = total ? calloc(PCT_LOG_BUCKETS, 1) : NULL;
    if (total && !tab) {
        free(v);
        return -1;
    }
    for (size_t s = 0; s < nb && tab; s++)
        tab[bkt[s]] = light[s] ? (uint8_t)(s + 1) : 0;
    for (size_t i = 0; tab && i < r->n; i++) {
        int64_t d = dur_at(r, i);
        size_t s = tab[log_bucket((uint64_t)d)];
        if (s)
            v[fill[s - 1]++] = d;
    }
    free(tab);
    int rc = 0;
    for (size_t j = 0; j < pl->nr && rc == 0; j++) {
        size_t s = slot_of[j];
        if (light[s]) {
            select_kth(v + off[s], 0, h[bkt[s]] - 1, pl->within[j]);
            pl->value[j] = v[off[s] + pl->within[j]];
            continue;
        }
        uint64_t lo;
        int w;
        log_bucket_range(bkt[s], &lo, &w);
        rc = rank_in_range(r, lo, w, h[bkt[s]], pl->within[j], &pl->value[j]);
    }
    free(v);
    return rc;
}

static sv_err percentiles_small(const region *r, const double *pcts, double *out, sv_error *err)
{
    int64_t *d = malloc(r->n * sizeof *d);
    if (!d)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory for %zu calls", r->n);
    for (size_t i = 0; i < r->n; i++)
        d[i] = dur_at(r, i);
    stats_percentiles_inplace(d, r->n, pcts, out, 3);
    free(d);
    return SV_OK;
}

/* h: the histogram counted by pass_durations (freed here). */
static sv_err percentiles_radix(const region *r, uint32_t *h, const double *pcts, double *out,
                                sv_error *err)
{
    size_t n = r->n, ranks[6], nr = 0, lo[3];
    double frac[3];
    for (size_t c = 0; c < 3; c++) {
        /* The same index arithmetic as stats_percentiles_inplace. */
        double idx = pcts[c] / 100.0 * (double)(n - 1);
        lo[c] = (size_t)floor(idx);
        if (lo[c] >= n)
            lo[c] = n - 1;
        frac[c] = idx - (double)lo[c];
        ranks[nr++] = lo[c];
        ranks[nr++] = lo[c] + 1 < n ? lo[c] + 1 : lo[c];
    }
    pct_plan pl;
    plan_ranks(&pl, h, ranks, nr);
    int rc = resolve_ranks(r, h, &pl);
    free(h);
    if (rc)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory for %zu calls", r->n);
    for (size_t c = 0; c < 3; c++) {
        double x = (double)pl.value[2 * c], y = (double)pl.value[2 * c + 1];
        out[c] = frac[c] < 0.5 ? x + (y - x) * frac[c] : y - (y - x) * (1.0 - frac[c]);
    }
    return SV_OK;
}

/* A histogram bucket holds at most UINT32_MAX calls. */
static bool percentiles_by_radix(const region *r)
{
    return r->n > PCT_SMALL && r->n <= UINT32_MAX;
}

/* hist: pass_durations' histogram when percentiles_by_radix (freed here), else NULL. */
static sv_err compute_percentiles(const region *r, region_stats *st, uint32_t *hist, sv_error *err)
{
    static const double pcts[3] = {50.0, 95.0, 99.0};
    double out[3];
    sv_err e =
        hist ? percentiles_radix(r, hist, pcts, out, err) : percentiles_small(r, pcts, out, err);
    if (e)
        return e;
    st->p50_ns = out[0];
    st->p95_ns = out[1];
    st->p99_ns = out[2];
    return SV_OK;
}

static void finish_moments(const region *r, region_stats *st, const pass_acc *acc)
{
    double n = (double)r->n;
    st->total_ns = acc->sum > INT64_MAX ? INT64_MAX : (int64_t)acc->sum;
    st->mean_ns = (double)acc->sum / n;
    if (acc->sumsq_ok) {
        i128 num = (i128)((u128)r->n * acc->sumsq) - acc->sum * acc->sum;
        st->std_ns = sqrt((double)num) / n;
    } else {
        int64_t *d = malloc(r->n * sizeof *d);
        double mean;
        if (d) {
            for (size_t i = 0; i < r->n; i++)
                d[i] = r->end_ns[i] - r->start_ns[i];
            stats_mean_std(d, r->n, &mean, &st->std_ns);
            free(d);
        }
    }
}

static sv_err compute_into(const region *r, region_stats *st, sv_error *err)
{
    if (!r->has_event_data)
        return SV_OK;
    st->num_calls = (int64_t)r->n;
    pass_optional(r, st);
    if (r->n == 0)
        return SV_OK;
    pass_acc acc;
    uint32_t *hist = NULL;
    if (percentiles_by_radix(r) && !(hist = calloc(PCT_LOG_BUCKETS, sizeof *hist)))
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory for %zu calls", r->n);
    if (!pass_durations(r, st, &acc, hist)) {
        free(hist);
        pass_bad why = {false, 0};
        pass_find_bad(r, &why);
        if (why.overflow)
            return sv_error_set(
                err, SV_ERR_FORMAT, "call %zu lasts longer than 2^63 ns (start %lld, end %lld)",
                why.call, (long long)r->start_ns[why.call], (long long)r->end_ns[why.call]);
        return sv_error_set(err, SV_ERR_FORMAT, "call %zu ends before it starts", why.call);
    }
    finish_moments(r, st, &acc);
    return compute_percentiles(r, st, hist, err);
}

sv_err stats_compute_region(region *r, sv_error *err)
{
    if (r->streamed) /* out of core: computed by stream_col.c, no columns kept */
        return SV_OK;
    /* Computed aside, then copied around exclusive_total_ns: the nesting
     * may write that field of the same region meanwhile on another thread
     * (finish.c), so not one byte of it is touched here. */
    region_stats st;
    memset(&st, 0, sizeof st);
    sv_err e = compute_into(r, &st, err);
    const size_t at = offsetof(region_stats, exclusive_total_ns);
    const size_t past = at + sizeof st.exclusive_total_ns;
    memcpy(&r->st, &st, at);
    memcpy((char *)&r->st + past, (char *)&st + past, sizeof st - past);
    return e;
}

bool stats_durations_valid(const region *r)
{
    if (!r->has_event_data)
        return true;
    const int64_t *s = r->start_ns, *e = r->end_ns;
    uint64_t bad = 0;
    /* The condition pass_durations refuses a region for, branch-free so it
     * runs at memory speed: end - start overflows or is negative. */
    for (size_t i = 0; i < r->n; i++) {
        uint64_t d = (uint64_t)e[i] - (uint64_t)s[i];
        bad |= (((uint64_t)e[i] ^ (uint64_t)s[i]) & ((uint64_t)e[i] ^ d)) | d;
    }
    return !(bad >> 63);
}
