#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;

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

void stats_percentiles_inplace(int64_t *v, size_t n, const double *pcts, double *out,
                               size_t count)
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
    i128 sum, sumsq;
    bool sumsq_ok;
} pass_acc;

static bool pass_durations(region *r, pass_acc *acc)
{
    bool bad = false;
    region_stats *st = &r->st;
    const int64_t *s = r->start_ns, *e = r->end_ns;
    int64_t mn = INT64_MAX, mx = INT64_MIN, fs = INT64_MAX, le = INT64_MIN;
    i128 sum = 0, sumsq = 0;
    for (size_t i = 0; i < r->n; i++) {
        int64_t d;
        bad |= __builtin_sub_overflow(e[i], s[i], &d) | (d < 0);
        mn = d < mn ? d : mn;
        mx = d > mx ? d : mx;
        fs = s[i] < fs ? s[i] : fs;
        le = e[i] > le ? e[i] : le;
        sum += d;
        sumsq += (i128)d * d;
    }
    st->min_ns = mn;
    st->max_ns = mx;
    st->first_start_ns = fs;
    st->last_end_ns = le;
    st->first_ns = e[0] - s[0];
    st->last_ns = e[r->n - 1] - s[r->n - 1];
    acc->sum = sum;
    acc->sumsq = sumsq;
    /* (d^2 summed over n) stays below 2^126 when every d < 2^50 and
     * n < 2^26; otherwise the exact form could overflow. */
    acc->sumsq_ok = mx < ((int64_t)1 << 50) && r->n < ((size_t)1 << 26);
    return !bad;
}

static void pass_optional(region *r)
{
    region_stats *st = &r->st;
    if (r->gpu_ns) {
        int64_t tot = 0, cnt = 0;
        for (size_t i = 0; i < r->n; i++) {
            int64_t g = r->gpu_ns[i];
            if (g >= 0) {
                tot = g > INT64_MAX - tot ? INT64_MAX : tot + g;
                cnt++;
            }
        }
        st->gpu_total_ns = tot;
        st->gpu_count = cnt;
    }
    if (r->await_ns) {
        int64_t tot = 0;
        for (size_t i = 0; i < r->n; i++)
            tot = r->await_ns[i] > INT64_MAX - tot ? INT64_MAX : tot + r->await_ns[i];
        st->await_total_ns = tot;
    }
}

static sv_err compute_percentiles(region *r, sv_error *err)
{
    int64_t *d = malloc(r->n * sizeof *d);
    if (!d)
        return sv_error_set(err, SV_ERR_NOMEM, "out of memory for %zu calls", r->n);
    for (size_t i = 0; i < r->n; i++)
        d[i] = r->end_ns[i] - r->start_ns[i];
    static const double pcts[3] = {50.0, 95.0, 99.0};
    double out[3];
    stats_percentiles_inplace(d, r->n, pcts, out, 3);
    r->st.p50_ns = out[0];
    r->st.p95_ns = out[1];
    r->st.p99_ns = out[2];
    free(d);
    return SV_OK;
}

static void finish_moments(region *r, const pass_acc *acc)
{
    region_stats *st = &r->st;
    double n = (double)r->n;
    st->total_ns = acc->sum > INT64_MAX ? INT64_MAX : (int64_t)acc->sum;
    st->mean_ns = (double)acc->sum / n;
    if (acc->sumsq_ok) {
        i128 num = (i128)r->n * acc->sumsq - acc->sum * acc->sum;
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

sv_err stats_compute_region(region *r, sv_error *err)
{
    int64_t excl = r->st.exclusive_total_ns;
    memset(&r->st, 0, sizeof r->st);
    r->st.exclusive_total_ns = excl;
    if (!r->has_event_data)
        return SV_OK;
    r->st.num_calls = (int64_t)r->n;
    pass_optional(r);
    if (r->n == 0)
        return SV_OK;
    pass_acc acc;
    if (!pass_durations(r, &acc))
        return sv_error_set(err, SV_ERR_FORMAT, "a call ends before it starts");
    finish_moments(r, &acc);
    return compute_percentiles(r, err);
}
