/* mwu: see mwu.h. */
#include "mwu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/checked.h"

double mwu_norm_sf(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

bool mwu_test(const int64_t *x, size_t n1, const int64_t *y, size_t n2, mwu_result *out)
{
    if (n1 == 0 || n2 == 0)
        return false;
    /* 2 U1 = sum over x of (2 #{y < x} + #{y == x}), counted per tie group
     * in one merge: exact in integers. */
    uint64_t two_u1 = 0;
    double tie = 0.0;
    size_t i = 0, j = 0;
    while (i < n1 || j < n2) {
        int64_t v = (j >= n2 || (i < n1 && x[i] <= y[j])) ? x[i] : y[j];
        size_t cx = 0, cy = 0, ylt = j;
        while (i < n1 && x[i] == v)
            i++, cx++;
        while (j < n2 && y[j] == v)
            j++, cy++;
        two_u1 += (uint64_t)cx * (2 * (uint64_t)ylt + cy);
        double t = (double)(cx + cy);
        tie += t * t * t - t;
    }
    double a = (double)n1, b = (double)n2, n = a + b;
    double u1 = (double)two_u1 / 2.0;
    double u = fmax(u1, a * b - u1);
    double s = sqrt(a * b / 12.0 * ((n + 1.0) - tie / (n * (n - 1.0))));
    double num = u - a * b / 2.0 - 0.5;
    double z;
    if (s > 0)
        z = num / s;
    else /* every value tied: U = mu, so num = -0.5 and scipy's z is -inf */
        z = num < 0 ? -INFINITY : num > 0 ? INFINITY : 0.0;
    double p = 2.0 * mwu_norm_sf(z);
    out->u1 = u1;
    out->z = z;
    out->p = p > 1.0 ? 1.0 : p < 0.0 ? 0.0 : p;
    out->tie_term = tie;
    return true;
}

uint64_t mwu_pairs_le(const int64_t *x, size_t n1, const int64_t *y, size_t n2, int64_t d)
{
    /* y[j] - x[i] <= d  <=>  x[i] >= y[j] - d; the bound rises with j.  A
     * bound past INT64_MAX (durations near 2^63, d negative) exceeds every
     * x, for this j and every later one; one below INT64_MIN is below every
     * x: counted exactly, never wrapped. */
    uint64_t c = 0;
    size_t i = 0;
    for (size_t j = 0; j < n2; j++) {
        int64_t t;
        if (__builtin_sub_overflow(y[j], d, &t)) {
            if (d < 0)
                break;   /* past INT64_MAX: no x */
            c += n1 - i; /* before INT64_MIN: every x left */
            continue;
        }
        while (i < n1 && x[i] < t)
            i++;
        c += n1 - i;
    }
    return c;
}

/* The smallest d in [lo, hi] with pairs_le(d) >= k, given
 * pairs_le(lo - 1) = clo < k <= chi = pairs_le(hi).  Interpolation steps
 * (counts are close to linear in d inside a bracket) alternate with
 * bisection steps, which bound the work at twice a plain bisection. */
static int64_t hl_kth(const int64_t *x, size_t n1, const int64_t *y, size_t n2, uint64_t k,
                      int64_t lo, int64_t hi, uint64_t clo, uint64_t chi)
{
    for (unsigned step = 0; lo < hi; step++) {
        int64_t mid;
        if (step % 2 == 0 && chi > clo) {
            double f = (double)(k - clo) / (double)(chi - clo);
            double g = (double)(lo - 1) + f * ((double)hi - (double)(lo - 1));
            mid = g <= (double)lo ? lo : g >= (double)(hi - 1) ? hi - 1 : (int64_t)g;
        } else {
            mid =
                lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2); /* hi - lo may pass INT64_MAX */
        }
        uint64_t c = mwu_pairs_le(x, n1, y, n2, mid);
        if (c >= k) {
            hi = mid;
            chi = c;
        } else {
            lo = mid + 1;
            clo = c;
        }
    }
    return lo;
}

bool mwu_hl_shift(const int64_t *x, size_t n1, const int64_t *y, size_t n2, double *shift)
{
    if (n1 == 0 || n2 == 0)
        return false;
    uint64_t total = (uint64_t)n1 * n2;
    /* Durations (>= 0): these differences fit; saturated for any other input. */
    int64_t lo = ck_sub(y[0], x[n1 - 1]), hi = ck_sub(y[n2 - 1], x[0]);
    uint64_t k = (total + 1) / 2; /* the lower middle (the middle when odd) */
    int64_t a = hl_kth(x, n1, y, n2, k, lo, hi, 0, total);
    if (total % 2) {
        *shift = (double)a;
        return true;
    }
    uint64_t ca = mwu_pairs_le(x, n1, y, n2, a);
    int64_t b = ca >= k + 1 ? a : hl_kth(x, n1, y, n2, k + 1, a + 1, hi, ca, total);
    *shift = ((double)a + (double)b) / 2.0;
    return true;
}

typedef struct bh_item {
    double p;
    size_t i;
} bh_item;

static int cmp_bh(const void *a, const void *b)
{
    const bh_item *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

bool mwu_bh_adjust(const double *p, size_t n, double *q)
{
    bh_item *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return false;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        q[i] = NAN;
        if (!isnan(p[i]))
            v[m++] = (bh_item){p[i], i};
    }
    qsort(v, m, sizeof *v, cmp_bh);
    double run = 1.0;
    for (size_t r = m; r > 0; r--) {
        double adj = v[r - 1].p * (double)m / (double)r;
        if (adj < run)
            run = adj;
        q[v[r - 1].i] = run;
    }
    free(v);
    return true;
}

/* ------------------------------------------------------------------ sorting */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
/* A counting sort takes one counter (4 bytes) per value in [min, max]:
 * used when that range is at most this, or an eighth of the sample's size. */
#define COUNT_RANGE_MIN ((uint64_t)1 << 16)

/* Durations of one call path sit in a narrow range (a few thousand ns
 * around their mean): count each value, then write them out in order, two
 * sequential passes instead of a radix sort's scattered ones. */
static bool counting_sort(int64_t *v, size_t n, int64_t minv, uint64_t range)
{
    uint32_t *count = calloc((size_t)range + 1, sizeof *count);
    if (!count)
        return false;
    for (size_t i = 0; i < n; i++)
        count[(uint64_t)v[i] - (uint64_t)minv]++;
    size_t k = 0;
    for (uint64_t x = 0; x <= range; x++)
        for (uint32_t c = count[x]; c > 0; c--)
            v[k++] = (int64_t)((uint64_t)minv + x);
    free(count);
    return true;
}

/* LSD radix on the offsets from the minimum (any sign, as few passes as
 * the range needs). */
static bool radix_sort(int64_t *v, size_t n, int64_t minv, uint64_t range, int64_t *scratch)
{
    unsigned passes = 0;
    while (passes * RADIX_BITS < 64 && (range >> (passes * RADIX_BITS)) != 0)
        passes++;
    int64_t *tmp = scratch ? scratch : malloc(n * sizeof *tmp);
    size_t *count = malloc(RADIX_SIZE * sizeof *count);
    if (!tmp || !count) {
        if (!scratch)
            free(tmp);
        free(count);
        return false;
    }
    int64_t *src = v, *dst = tmp;
    for (unsigned p = 0; p < passes; p++) {
        unsigned shift = p * RADIX_BITS;
        memset(count, 0, RADIX_SIZE * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(((uint64_t)src[i] - (uint64_t)minv) >> shift) & (RADIX_SIZE - 1)]++;
        size_t sum = 0;
        for (size_t d = 0; d < RADIX_SIZE; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(((uint64_t)src[i] - (uint64_t)minv) >> shift) & (RADIX_SIZE - 1)]++] =
                src[i];
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    if (!scratch)
        free(tmp);
    free(count);
    return true;
}

bool mwu_sort_i64(int64_t *v, size_t n, int64_t *scratch)
{
    if (n < 512) {
        qsort(v, n, sizeof *v, cmp_i64);
        return true;
    }
    int64_t minv = v[0], maxv = v[0];
    for (size_t i = 1; i < n; i++) {
        if (v[i] < minv)
            minv = v[i];
        if (v[i] > maxv)
            maxv = v[i];
    }
    uint64_t range = (uint64_t)maxv - (uint64_t)minv;
    if (range == 0)
        return true;
    if ((range <= COUNT_RANGE_MIN || range <= n / 8) && n <= UINT32_MAX)
        return counting_sort(v, n, minv, range);
    return radix_sort(v, n, minv, range, scratch);
}

double mwu_sorted_percentile(const int64_t *v, size_t n, double pct)
{
    if (n == 0)
        return 0.0;
    double idx = pct / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(idx);
    if (lo >= n - 1)
        return (double)v[n - 1];
    double frac = idx - (double)lo, a = (double)v[lo], b = (double)v[lo + 1];
    /* numpy's _lerp, as stats.c */
    return frac < 0.5 ? a + (b - a) * frac : b - (b - a) * (1.0 - frac);
}
